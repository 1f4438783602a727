#include "report/profile_diff.h"

#include <cmath>
#include <cstdio>

#include "formats/callgrind.h"
#include "report/flame.h"
#include "report/site_paths.h"
#include "util/file.h"

namespace bb::report {

namespace {

const model::Benchmark* find(const model::ResultSet& rs, const model::BenchmarkKey& key) {
  for (const auto& b : rs.benchmarks)
    if (b.key == key) return &b;
  return nullptr;
}

// Every function and call of every process's profile, summed.
Result<formats::CallGraph> load(const model::Benchmark& b) {
  formats::CallGraph out;
  auto it = b.extra.find("profiles");
  if (it == b.extra.end() || !it->is_array() || it->empty())
    return make_error(Errc::not_found, "no callgrind profile was kept");
  for (const auto& p : *it) {
    if (!p.is_string()) continue;
    const std::string path = p.get<std::string>();
    const std::string name = path.substr(path.rfind('/') + 1);
    // The box's own paths mean nothing to a reader of the report: the
    // errors name the profile's file only.
    auto text = read_file(path, size_t(1) << 30);
    if (!text && text.error().code == Errc::not_found)
      return make_error(Errc::not_found, "the profile " + name + " is no longer kept on the box");
    if (!text) return make_error(text.error().code, "the profile " + name + " could not be read");
    if (auto st = formats::add_callgrind_calls(*text, name, out); !st) return st.error();
  }
  return out;
}

std::string count(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string signed_count(double v) { return (v > 0 ? "+" : "") + count(v); }

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", v * 100);
  return buf;
}

// Where a reader finds a side's profiles: beside its run on the dashboard
// (site_runs.cpp copies them there), never the box's own paths.
nlohmann::json served(const model::ResultSet& rs, const model::Benchmark& b) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : b.extra.at("profiles")) {
    if (!p.is_string()) continue;
    const std::string path = p.get<std::string>();
    out.push_back(site::run_profile(rs.repository, std::to_string(rs.job_id), rs.role.empty() ? "run" : rs.role,
                                    path.substr(path.rfind('/') + 1)));
  }
  return out;
}

std::string served_markdown(const nlohmann::json& files, const ReportLinks& links) {
  std::string out;
  for (const auto& f : files) {
    const std::string path = f.get<std::string>();
    out += out.empty() ? "" : ", ";
    out += links.site_url.empty() ? "`" + path + "`"
                                  : "[" + path.substr(path.rfind('/') + 1) + "](" + links.site_url + path + ")";
  }
  return out;
}

}  // namespace

void add_profile_diffs(JobReport& report, const model::ResultSet& base, const model::ResultSet& head,
                       const ReportLinks& links) {
  if (!report.comparison) return;
  nlohmann::json all = nlohmann::json::array();
  std::string md;
  for (const auto& row : report.comparison->rows) {
    if (row.verdict != compare::Verdict::regressed || row.method != "exact") continue;
    const model::Benchmark* b = find(base, row.key);
    const model::Benchmark* h = find(head, row.key);
    if (!b || !h || !h->extra.contains("profiles")) continue;
    md += "\n### Differential profile: `" + row.key.to_string() + "`\n\n";
    auto bp = load(*b);
    auto hp = load(*h);
    if (!bp || !hp) {
      md += "Not available: " + (bp ? hp.error().message : bp.error().message) + ".\n";
      continue;
    }
    const auto changes = formats::profile_diff(bp->functions, hp->functions);
    nlohmann::json rows = nlohmann::json::array();
    md += "Instructions (Ir) per function, base → head; share is the function's own change over the whole "
          "change. The profiles open in `callgrind_annotate` and KCachegrind.\n\n"
          "| function | self base | self head | self change | share | inclusive change |\n"
          "|:--|--:|--:|--:|--:|--:|\n";
    for (const auto& c : changes) {
      md += "| `" + c.function + "` | " + count(c.base.self) + " | " + count(c.head.self) + " | " +
            signed_count(c.head.self - c.base.self) + " | " + percent(c.share) + " | " +
            signed_count(c.head.inclusive - c.base.inclusive) + " |\n";
      rows.push_back({{"function", c.function},
                      {"base_self", c.base.self},
                      {"head_self", c.head.self},
                      {"base_inclusive", c.base.inclusive},
                      {"head_inclusive", c.head.inclusive},
                      {"share", c.share}});
    }
    const nlohmann::json base_files = served(base, *b), head_files = served(head, *h);
    md += "\nProfiles, on the dashboard beside each run: base " + served_markdown(base_files, links) + "; head " +
          served_markdown(head_files, links) + ".\n";
    // Head's call tree coloured by the change against base, on the run page.
    const std::string flame_page = site::run_page(head.repository, std::to_string(head.job_id)) + "#" +
                                   site::flame_anchor(all.size());
    md += "Differential flame graph: " +
          (links.site_url.empty() ? "`" + flame_page + "`"
                                  : "[head's call tree, coloured by the change](" + links.site_url + flame_page + ")") +
          ".\n";
    all.push_back({{"benchmark", row.key.to_string()},
                   {"functions", rows},
                   {"base_profiles", base_files},
                   {"head_profiles", head_files},
                   {"flame_page", flame_page},
                   {"flame", flame_json(merge_folded(fold_calls(*bp), fold_calls(*hp)))}});
  }
  if (md.empty()) return;
  report.markdown += md;
  report.json["profile_diffs"] = all;
}

}  // namespace bb::report
