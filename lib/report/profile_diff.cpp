#include "report/profile_diff.h"

#include <cmath>
#include <cstdio>

#include "formats/callgrind.h"
#include "util/file.h"

namespace bb::report {

namespace {

const model::Benchmark* find(const model::ResultSet& rs, const model::BenchmarkKey& key) {
  for (const auto& b : rs.benchmarks)
    if (b.key == key) return &b;
  return nullptr;
}

// Every function of every process's profile, summed.
Result<std::map<std::string, formats::FunctionCost>> load(const model::Benchmark& b) {
  std::map<std::string, formats::FunctionCost> out;
  auto it = b.extra.find("profiles");
  if (it == b.extra.end() || !it->is_array() || it->empty())
    return make_error(Errc::not_found, "no callgrind profile was kept");
  for (const auto& p : *it) {
    if (!p.is_string()) continue;
    const std::string path = p.get<std::string>();
    auto text = read_file(path, size_t(1) << 30);
    if (!text) return text.error();
    if (auto st = formats::add_callgrind_functions(*text, path, out); !st) return st.error();
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

}  // namespace

void add_profile_diffs(JobReport& report, const model::ResultSet& base, const model::ResultSet& head) {
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
    const auto changes = formats::profile_diff(*bp, *hp);
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
    md += "\nProfiles: base `" + b->extra["profiles"].dump() + "`, head `" + h->extra["profiles"].dump() + "`.\n";
    all.push_back({{"benchmark", row.key.to_string()},
                   {"functions", rows},
                   {"base_profiles", b->extra["profiles"]},
                   {"head_profiles", h->extra["profiles"]}});
  }
  if (md.empty()) return;
  report.markdown += md;
  report.json["profile_diffs"] = all;
}

}  // namespace bb::report
