#include "report/site.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "util/file.h"
#include "util/text.h"

namespace bb::report {

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string sparkline_svg(const Series& series, int width, int height, const std::vector<size_t>& marks) {
  std::vector<double> ys;
  std::vector<size_t> mark_at;  // positions in ys of the first point after each mark
  for (size_t i = 0; i < series.points.size(); ++i) {
    const SeriesPoint& p = series.points[i];
    if (std::find(marks.begin(), marks.end(), i) != marks.end()) mark_at.push_back(ys.size());
    if (p.status == "ok" && p.samples > 0) ys.push_back(p.median);
  }
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
                    "\" height=\"" + std::to_string(height) + "\" role=\"img\">";
  if (ys.empty()) return svg + "</svg>";
  auto [lo_it, hi_it] = std::minmax_element(ys.begin(), ys.end());
  double lo = *lo_it, hi = *hi_it;
  double span = hi > lo ? hi - lo : (lo != 0 ? lo * 0.01 : 1);
  auto x_of = [&](double i) { return ys.size() == 1 ? width / 2.0 : 2 + (width - 4) * i / double(ys.size() - 1); };
  for (size_t m : mark_at) {
    if (m == 0 || m >= ys.size()) continue;
    char buf[160];
    const double x = x_of(double(m) - 0.5);  // between the last point before and the first after
    std::snprintf(buf, sizeof buf,
                  "<line class=\"change-point\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d73a49\" "
                  "stroke-dasharray=\"2,2\"/>",
                  x, x, height);
    svg += buf;
  }
  std::string points;
  for (size_t i = 0; i < ys.size(); ++i) {
    double x = x_of(double(i));
    double y = height - 2 - (height - 4) * (ys[i] - lo) / span;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f,%.1f ", x, y);
    points += buf;
  }
  svg += "<polyline fill=\"none\" stroke=\"#0366d6\" stroke-width=\"1.5\" points=\"" + points + "\"/>";
  return svg + "</svg>";
}

std::string change_points_cell(const std::vector<SeriesChange>& changes) {
  if (changes.empty()) return "none";
  std::string out;
  for (const auto& c : changes) out += (out.empty() ? "" : "<br>") + html_escape(c.describe());
  return out;
}

std::string profiles_cell(const Series& series) {
  if (series.points.empty() || series.points.back().profiles.empty()) return "";
  auto links = [](const SeriesPoint& p, const char* label) {
    std::string out = std::string(label) + " <code>" + html_escape(short_sha(p.commit)) + "</code>:";
    for (const auto& f : p.profiles) {
      const auto slash = f.rfind('/');
      out += " <a href=\"file://" + html_escape(f) + "\">" +
             html_escape(slash == std::string::npos ? f : f.substr(slash + 1)) + "</a>";
    }
    return out;
  };
  std::string out = links(series.points.back(), "latest");
  for (size_t i = series.points.size() - 1; i-- > 0;)
    if (!series.points[i].profiles.empty()) {
      out += "<br>" + links(series.points[i], "before");
      break;
    }
  return out;
}

namespace {

std::string page(const std::string& title, const std::string& body) {
  return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
         "</title><style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
         "td,th{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left}"
         "td.num{text-align:right;font-variant-numeric:tabular-nums}</style></head><body>\n" +
         body + "\n</body></html>\n";
}

std::string format_value(double v, const std::string& unit) {
  char buf[64];
  if (unit == "s") {
    if (v < 1e-6) std::snprintf(buf, sizeof buf, "%.1f ns", v * 1e9);
    else if (v < 1e-3) std::snprintf(buf, sizeof buf, "%.2f µs", v * 1e6);
    else if (v < 1) std::snprintf(buf, sizeof buf, "%.2f ms", v * 1e3);
    else std::snprintf(buf, sizeof buf, "%.3f s", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g %s", v, unit.c_str());
  }
  return buf;
}

// "owner/name" -> "owner_name.html": a flat, safe file name.
std::string repo_file(const std::string& repository) {
  std::string f;
  for (char c : repository) f += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return f + ".html";
}

Status render_repository(HistoryStore& history, const std::string& site_dir, const std::string& reports_dir,
                         const std::string& repository, ChangeCache& cache) {
  // Trends are drawn for the default branch; other refs are in job reports.
  auto series = history.series(repository, "refs/heads/main");
  if (!series) return series.error();
  std::string body = "<p><a href=\"index.html\">all repositories</a></p><h1>" + html_escape(repository) +
                     "</h1><h2>main branch</h2><table><tr><th>benchmark</th><th>trend</th>"
                     "<th>change points</th><th>latest</th><th>runs</th><th>latest job</th></tr>\n";
  for (const auto& s : *series) {
    const SeriesPoint& last = s.points.back();
    std::string report = path_join(reports_dir, std::to_string(last.job_id) + "/report.md");
    const auto& changes = cache.changes(s);
    std::vector<size_t> marks;
    for (const auto& c : changes) marks.push_back(c.index);
    const bool up = s.direction == model::Direction::higher_is_better;
    const std::string profiles = profiles_cell(s);
    body += "<tr><td><code>" + html_escape(s.key) + "</code>" +
            (up ? " <span title=\"higher is better\">↑</span>" : "") + "</td><td>" + sparkline_svg(s, 160, 32, marks) +
            "</td><td>" + change_points_cell(changes) + "</td><td class=\"num\">" +
            (last.status == "ok" ? format_value(last.median, s.unit) : html_escape(last.status)) +
            "</td><td class=\"num\">" + std::to_string(s.points.size()) + "</td><td><a href=\"file://" +
            html_escape(report) + "\">job " + std::to_string(last.job_id) + "</a> <code>" +
            html_escape(short_sha(last.commit)) + "</code>" + (profiles.empty() ? "" : "<br>" + profiles) +
            "</td></tr>\n";
  }
  body += "</table>\n";
  if (series->empty()) body += "<p>No main-branch runs yet.</p>\n";
  return write_file_atomic(path_join(site_dir, repo_file(repository)), page(repository + " · benchbox", body));
}

}  // namespace

Status render_site(HistoryStore& history, const std::string& site_dir, const std::string& reports_dir,
                   ChangeCache* cache) {
  ChangeCache local;
  if (!cache) cache = &local;
  if (auto st = make_dirs(site_dir, 0755); !st) return st;
  auto repos = history.repositories();
  if (!repos) return repos.error();
  std::string body = "<h1>benchbox</h1><ul>\n";
  for (const auto& r : *repos) {
    if (auto st = render_repository(history, site_dir, reports_dir, r, *cache); !st) return st;
    body += "<li><a href=\"" + html_escape(repo_file(r)) + "\">" + html_escape(r) + "</a></li>\n";
  }
  body += "</ul>\n";
  return write_file_atomic(path_join(site_dir, "index.html"), page("benchbox", body));
}

}  // namespace bb::report
