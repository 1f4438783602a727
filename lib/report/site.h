// The static dashboard: one index page listing every repository, one page per
// repository with a trend chart (inline SVG, no JavaScript, no network) for
// every benchmark series on its main branch. Regenerated after each ingest;
// any web server (or a browser on the files) can serve it.
#pragma once

#include <string>

#include "report/history.h"
#include "util/result.h"

namespace bb::report {

Status render_site(HistoryStore& history, const std::string& site_dir, const std::string& reports_dir);

// Pieces exposed for tests.
std::string html_escape(const std::string& text);
// An SVG polyline of the series' medians, y scaled to [min, max] of the series.
std::string sparkline_svg(const Series& series, int width, int height);

}  // namespace bb::report
