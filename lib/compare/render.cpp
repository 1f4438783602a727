// Rendering a Comparison: the Markdown a maintainer reads in a pull-request
// comment, and the JSON machines read. Regressions come first, because that
// is what a reader looks for.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "compare/compare.h"
#include "util/text.h"

namespace bb::compare {

namespace {

// Order of the verdict counts: what needs attention first.
int severity(Verdict v) {
  switch (v) {
    case Verdict::regressed: return 0;
    case Verdict::failed: return 1;
    case Verdict::missing: return 2;
    case Verdict::improved: return 3;
    case Verdict::inconclusive: return 4;
    case Verdict::not_comparable: return 5;
    case Verdict::added: return 6;
    case Verdict::removed: return 7;
    case Verdict::skipped: return 8;
    case Verdict::unchanged: return 9;
  }
  return 10;
}

std::string fmt(const char* format, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

// A change at least double or at most half reads as a ratio ("34.5×"; a
// "+3355.4 %" does not read), a smaller one as a percentage.
bool big_change(double ratio) { return ratio >= 2 || ratio <= 0.5; }

// Relative changes with as many decimals as the threshold needs, or the
// ratio itself (as_ratio: the cell's estimate is a big change).
std::string format_change(double ratio, double threshold, bool as_ratio) {
  if (!std::isfinite(ratio)) return "–";
  if (as_ratio) return fmt(ratio >= 10 ? "%.1f×" : "%.2f×", ratio);
  const char* f = threshold < 0.002 ? "%+.3f %%" : (threshold < 0.02 ? "%+.1f %%" : "%+.0f %%");
  return fmt(f, (ratio - 1) * 100);
}

std::string change_cell(const BenchmarkComparison& r) {
  if (!std::isfinite(r.ratio)) return "–";
  const bool as_ratio = big_change(r.ratio);
  std::string s = format_change(r.ratio, r.threshold, as_ratio);
  if (r.verdict == Verdict::regressed || r.verdict == Verdict::improved) s = "**" + s + "**";
  if (std::isfinite(r.ci_low) && std::isfinite(r.ci_high) && r.ci_low > 0)
    s += " (" + format_change(r.ci_low, r.threshold, as_ratio) + " … " + format_change(r.ci_high, r.threshold, as_ratio) +
         ")";
  else if (r.method != "")
    s += " (interval unbounded)";
  return s;
}

std::string verdict_cell(const BenchmarkComparison& r) {
  if (r.held) return std::string("❔ ") + to_string(*r.held) + "? (across jobs: unconfirmed)";
  switch (r.verdict) {
    case Verdict::regressed: return "🔴 **regressed**";
    case Verdict::failed: return "❌ **failed**";
    case Verdict::missing: return "❌ **missing**";
    case Verdict::improved: return "🟢 improved";
    case Verdict::inconclusive: return "❔ inconclusive";
    default: return to_string(r.verdict);
  }
}

// The benchmark's cell: its key, and ↑ where higher is better (a rate), so
// a reader knows a positive change there is good news.
std::string key_cell(const BenchmarkComparison& r) {
  return "`" + r.key.to_string() + "`" + (r.higher_is_better ? " ↑" : "");
}

std::string percent_or_dash(double x, int decimals) {
  if (!std::isfinite(x)) return "–";
  return fmt(decimals == 1 ? "%.1f %%" : "%.3f %%", x * 100);
}

// One sample a side has no spread to speak of: unknown, not ±0.0 %. An
// exact count's is its own (none) however few.
std::string noise_cell(const BenchmarkComparison& r, bool fine) {
  if (r.method.empty() || (r.method != "exact" && std::max(r.n_base, r.n_head) < 2)) return "–";
  return "±" + percent_or_dash(r.noise, fine ? 3 : 1);
}

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

}  // namespace

std::string format_value(double v, const std::string& unit) {
  if (!std::isfinite(v)) return "–";
  const double a = std::fabs(v);
  if (unit == "s") {
    if (a >= 1) return fmt("%.4g s", v);
    if (a >= 1e-3) return fmt("%.4g ms", v * 1e3);
    if (a >= 1e-6) return fmt("%.4g µs", v * 1e6);
    return fmt("%.4g ns", v * 1e9);
  }
  if (unit == "bytes") {
    if (a >= 1024.0 * 1024 * 1024) return fmt("%.4g GiB", v / (1024.0 * 1024 * 1024));
    if (a >= 1024.0 * 1024) return fmt("%.4g MiB", v / (1024.0 * 1024));
    if (a >= 1024.0) return fmt("%.4g KiB", v / 1024.0);
    return fmt("%.0f B", v);
  }
  if (unit == "count") {
    // Counts are compared to 0.01 %: show enough digits to see that.
    if (a >= 1e9) return fmt("%.7g G", v / 1e9);
    if (a >= 1e6) return fmt("%.7g M", v / 1e6);
    if (a >= 1e3) return fmt("%.7g k", v / 1e3);
    return fmt("%.7g", v);
  }
  return fmt("%.4g", v) + (unit.empty() ? "" : " " + unit);
}

namespace {

// How much worse head is, whichever way is better: > 1 is a worsening.
double worsening(const BenchmarkComparison& r) {
  if (!std::isfinite(r.ratio) || r.ratio <= 0) return 1;
  return r.higher_is_better ? 1 / r.ratio : r.ratio;
}

void table(std::ostringstream& out, const std::vector<const BenchmarkComparison*>& rows, int level) {
  out << "| benchmark | base | head | change (" << level << " % CI) | verdict | noise | min. detectable |\n";
  out << "|:--|--:|--:|:--|:--|--:|--:|\n";
  for (const auto* r : rows) {
    const bool fine = r->threshold > 0 && r->threshold < 0.002;
    out << "| " << key_cell(*r) << " | " << format_value(r->base_median, r->unit) << " | "
        << format_value(r->head_median, r->unit) << " | " << change_cell(*r) << " | " << verdict_cell(*r)
        << " | " << noise_cell(*r, fine) << " | "
        << (r->method.empty() ? "–" : percent_or_dash(r->min_detectable, fine ? 3 : 1)) << " |\n";
  }
}

// A section listing benchmarks of one verdict with what they say.
void listing(std::ostringstream& out, const char* title, const std::vector<const BenchmarkComparison*>& rows,
             const char* empty_note) {
  if (rows.empty()) return;
  out << "\n#### " << title << " (" << rows.size() << ")\n\n";
  for (const auto* r : rows)
    out << "- `" << r->key.to_string() << "`" << (r->note.empty() ? std::string(empty_note) : ": " + r->note) << "\n";
}

}  // namespace

namespace {

// Once, for the rows whose threshold is out of the noise's reach: what
// the noise allows, per metric (thresholds are set per metric), and the
// quieter ways to measure. The median of their minimum detectable changes
// is what this run's samples resolve for most of them.
void too_noisy_advice(std::ostringstream& out, const Comparison& c) {
  std::map<std::string, std::vector<const BenchmarkComparison*>> by_metric;
  for (const auto& r : c.rows)
    if (r.too_noisy) by_metric[r.key.metric].push_back(&r);
  if (by_metric.empty()) return;
  out << "\n#### Too noisy for their thresholds\n\n";
  for (const auto& [metric, rows] : by_metric) {
    std::vector<double> mdc;
    for (const auto* r : rows)
      if (std::isfinite(r->min_detectable)) mdc.push_back(r->min_detectable);
    std::sort(mdc.begin(), mdc.end());
    out << "- " << rows.size() << " `" << metric << "` benchmark" << (rows.size() == 1 ? "" : "s")
        << " (threshold ±" << percent_or_dash(rows.front()->threshold, 1) << "): deciding "
        << (rows.size() == 1 ? "it" : "them") << " would take more than " << kMaxAdvisedRuns << " runs a side.";
    if (!mdc.empty()) {
      const double typical = mdc[mdc.size() / 2];
      const double suggested = std::ceil(typical * 100) / 100;
      out << " These samples resolve changes of about " << percent_or_dash(typical, 1)
          << (mdc.size() > 1 ? " (up to " + percent_or_dash(mdc.back(), 1) + ")" : std::string()) << ": a threshold of "
          << fmt("%.2f", suggested) << " (`thresholds: {" << metric << ": " << fmt("%.2f", suggested)
          << "}` in .benchbox.yml) would decide most of them.";
    }
    out << "\n";
  }
  out << "\nOr measure more quietly: more iterations in each sample (the harness's own repeat count), "
         "or `measure: callgrind`, whose instruction counts repeat exactly.\n";
}

}  // namespace

std::string render_markdown(const Comparison& c) {
  // What was measured on both sides goes in the table, regressions first
  // and the largest first; benchmarks that were not (failed, missing, new,
  // removed, skipped) get sections of their own below it; unchanged ones
  // are folded away.
  std::map<Verdict, std::vector<const BenchmarkComparison*>> by;
  for (const auto& r : c.rows) by[r.verdict].push_back(&r);
  for (auto& [v, rows] : by)
    std::stable_sort(rows.begin(), rows.end(), [v = v](auto* a, auto* b) {
      if (v == Verdict::regressed && worsening(*a) != worsening(*b)) return worsening(*a) > worsening(*b);
      if (v == Verdict::improved && worsening(*a) != worsening(*b)) return worsening(*a) < worsening(*b);
      return a->key.to_string() < b->key.to_string();
    });
  std::vector<const BenchmarkComparison*> changes;
  for (Verdict v : {Verdict::regressed, Verdict::improved, Verdict::inconclusive, Verdict::not_comparable})
    changes.insert(changes.end(), by[v].begin(), by[v].end());

  std::ostringstream out;
  out << "### benchbox: `" << (c.base_commit.empty() ? "base" : short_sha(c.base_commit)) << "` → `"
      << (c.head_commit.empty() ? "head" : short_sha(c.head_commit)) << "`\n\n";
  if (c.across_jobs)
    out << "_Compared across jobs: base ran in "
        << (c.base_job ? "job " + std::to_string(c.base_job) : std::string("no job")) << ", head in "
        << (c.head_job ? "job " + std::to_string(c.head_job) : std::string("no job"))
        << ". No run is paired, and a change of the host between the two jobs reads the same as a change "
           "of the code._\n\n";

  std::map<int, std::pair<Verdict, int>> counts;
  for (const auto& r : c.rows) {
    auto& e = counts[severity(r.verdict)];
    e.first = r.verdict;
    ++e.second;
  }
  bool first = true;
  for (const auto& [sev, e] : counts) {
    out << (first ? "" : " · ");
    const bool bad = e.first == Verdict::regressed || e.first == Verdict::failed || e.first == Verdict::missing;
    out << (bad ? "**" : "") << e.second << " " << to_string(e.first) << (bad ? "**" : "");
    first = false;
  }
  if (c.rows.empty()) out << "no benchmarks";
  out << "\n\n";

  const int level = int(std::lround(c.confidence * 100));
  if (!changes.empty()) table(out, changes, level);
  std::ostringstream notes;
  for (const auto* r : changes)
    if (!r->note.empty()) notes << "- `" << r->key.to_string() << "`: " << r->note << "\n";
  if (!notes.str().empty()) out << "\n" << notes.str();
  too_noisy_advice(out, c);

  listing(out, "Failed", by[Verdict::failed], ": failed (no reason recorded)");
  listing(out, "Missing", by[Verdict::missing], ": expected, not measured");
  if (!by[Verdict::added].empty()) {
    out << "\n#### New on head (" << by[Verdict::added].size() << ")\n\n";
    for (const auto* r : by[Verdict::added])
      out << "- `" << r->key.to_string() << "` (head " << format_value(r->head_median, r->unit) << ")"
          << (r->note.empty() ? "" : ": " + r->note) << "\n";
  }
  if (!by[Verdict::removed].empty()) {
    out << "\n#### Removed on head (" << by[Verdict::removed].size() << ")\n\n";
    for (const auto* r : by[Verdict::removed])
      out << "- `" << r->key.to_string() << "` (base " << format_value(r->base_median, r->unit) << ")"
          << (r->note.empty() ? "" : ": " + r->note) << "\n";
  }
  listing(out, "Skipped", by[Verdict::skipped], ": skipped (no reason recorded)");
  if (!by[Verdict::unchanged].empty()) {
    out << "\n<details><summary>Unchanged (" << by[Verdict::unchanged].size() << ")</summary>\n\n";
    table(out, by[Verdict::unchanged], level);
    out << "\n</details>\n";
  }

  std::vector<const BenchmarkComparison*> tested_rows = changes;
  tested_rows.insert(tested_rows.end(), by[Verdict::unchanged].begin(), by[Verdict::unchanged].end());
  size_t tested = 0, cleared = 0;
  for (const auto& r : c.rows)
    if (!std::isnan(r.p_adjusted)) {
      ++tested;
      cleared += r.fdr_significant;
    }
  out << "\n<details><summary>How to read this</summary>\n\n"
      << "Change is the Hodges-Lehmann estimate of head/base with its " << level
      << " % confidence interval (each end a one-sided bound): Wilcoxon signed-rank on the log ratios of base "
         "and head runs that ran adjacent (interleaved rounds), Mann-Whitney where runs were not paired "
         "(within each speed state when the host flipped between them), exact comparison for deterministic "
         "counts. A benchmark regressed or improved when the interval excludes no change and does not lie "
         "inside ±threshold (for ↑ rates, higher is better: a fall is the regression), is unchanged "
         "when the interval lies inside ±threshold, and is inconclusive otherwise. Noise is the "
         "robust spread (MAD) of one measurement; min. detectable is the change that would be caught 80 % of "
         "the time with these samples. Benjamini-Hochberg false-discovery control: "
      << cleared << " of " << tested << " tested benchmarks cleared it. Seed " << c.seed << ".\n\n";
  out << "| benchmark | method | n base | n head | p | p (BH) | threshold |\n|:--|:--|--:|--:|--:|--:|--:|\n";
  for (const auto* r : tested_rows) {
    if (r->method.empty()) continue;
    out << "| `" << r->key.to_string() << "` | " << r->method << (r->paired ? " (paired)" : "") << " | "
        << r->n_base << " | " << r->n_head << " | " << fmt("%.3g", r->p_value) << " | "
        << fmt("%.3g", r->p_adjusted) << " | ±" << percent_or_dash(r->threshold, r->threshold < 0.002 ? 3 : 1)
        << " |\n";
  }
  out << "\n</details>\n";
  return out.str();
}

nlohmann::json to_json(const Comparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  // Member by member: a row per benchmark, and an initializer list of 27
  // pairs builds each pair as an array first and copies it into the object.
  auto& list = rows.get_ref<nlohmann::json::array_t&>();
  list.reserve(c.rows.size());
  for (const auto& r : c.rows) {
    nlohmann::json row = nlohmann::json::object();
    row["key"] = model::to_json(r.key);
    row["id"] = r.key.to_string();
    row["verdict"] = to_string(r.verdict);
    row["unit"] = r.unit;
    row["ratio"] = number(r.ratio);
    row["ci_low"] = number(r.ci_low);
    row["ci_high"] = number(r.ci_high);
    row["p_value"] = number(r.p_value);
    row["p_adjusted"] = number(r.p_adjusted);
    row["fdr_significant"] = r.fdr_significant;
    row["n_base"] = r.n_base;
    row["n_head"] = r.n_head;
    row["n_used"] = r.n_used;
    row["paired"] = r.paired;
    row["method"] = r.method;
    row["noise"] = number(r.noise);
    row["min_detectable"] = number(r.min_detectable);
    row["more_runs"] = r.more_runs;
    row["too_noisy"] = r.too_noisy;
    row["base_median"] = number(r.base_median);
    row["head_median"] = number(r.head_median);
    row["threshold"] = r.threshold;
    row["higher_is_better"] = r.higher_is_better;
    row["direction"] = r.higher_is_better ? "higher_is_better" : "lower_is_better";
    row["note"] = r.note;
    row["held"] = r.held ? nlohmann::json(to_string(*r.held)) : nlohmann::json();
    row["sequential_level"] = r.sequential_level > 0 ? nlohmann::json(r.sequential_level) : nlohmann::json();
    list.push_back(std::move(row));
  }
  return {{"schema", "benchbox.comparison/1"},
          {"repository", c.repository},
          {"base_commit", c.base_commit},
          {"head_commit", c.head_commit},
          {"seed", c.seed},
          {"confidence", c.confidence},
          {"across_jobs", c.across_jobs},
          {"base_job", c.base_job},
          {"head_job", c.head_job},
          {"regressed", any_regression(c)},
          {"rows", std::move(rows)}};
}

}  // namespace bb::compare
