// The static dashboard: one index page listing every repository, one page per
// repository with a trend chart (inline SVG, no JavaScript, no network) for
// every benchmark series on its main branch. Regenerated after each ingest;
// any web server (or a browser on the files) can serve it.
#pragma once

#include <string>

#include <vector>

#include "report/change_points.h"
#include "report/history.h"
#include "util/result.h"

namespace bb::report {

// Change points are marked on every series; `cache` (the reporter keeps one)
// saves recomputing series that did not change, null computes afresh.
Status render_site(HistoryStore& history, const std::string& site_dir, const std::string& reports_dir,
                   ChangeCache* cache = nullptr);

// Pieces exposed for tests.
std::string html_escape(const std::string& text);
// An SVG polyline of the series' medians, y scaled to [min, max] of the series,
// with a dashed vertical line before each point index (into Series::points)
// in `marks`: the change points.
std::string sparkline_svg(const Series& series, int width, int height, const std::vector<size_t>& marks = {});
// The dashboard's "change points" cell: "abc..def ×1.120 [1.080, 1.160]" per change.
std::string change_points_cell(const std::vector<SeriesChange>& changes);
// The dashboard's "profiles" cell of a callgrind series: links to the
// callgrind profiles of its latest run and of the run before it (the two
// sides of its latest step; they open in callgrind_annotate and
// KCachegrind). Empty when the latest run kept none.
std::string profiles_cell(const Series& series);

}  // namespace bb::report
