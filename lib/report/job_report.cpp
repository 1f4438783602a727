#include "report/job_report.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "model/environment.h"
#include "stats/describe.h"
#include "report/reproduce.h"
#include "report/site_paths.h"
#include "util/text.h"

namespace bb::report {

const char* to_string(Overall o) {
  switch (o) {
    case Overall::failed: return "failed";
    case Overall::regressed: return "regressed";
    case Overall::inconclusive: return "inconclusive";
    case Overall::improved: return "improved";
    case Overall::unchanged: return "unchanged";
    case Overall::recorded: return "recorded";
    case Overall::cancelled: return "cancelled";
  }
  return "recorded";
}

namespace {


std::string subject(const model::Job& job) {
  if (job.spec.kind == model::JobKind::pull_request)
    return job.spec.repository + " pull request #" + std::to_string(job.spec.pr_number);
  if (job.spec.kind == model::JobKind::compare)
    return job.spec.repository + " " + short_sha(job.spec.base_sha) + ".." + short_sha(job.spec.head_sha);
  return job.spec.repository + " " + job.spec.ref;
}

// Worst verdict wins: a failed or missing benchmark is never success.
Overall overall_of(const compare::Comparison& c) {
  bool regressed = false, inconclusive = false, improved = false, failed = false;
  for (const auto& row : c.rows) {
    switch (row.verdict) {
      case compare::Verdict::regressed: regressed = true; break;
      case compare::Verdict::failed:
      case compare::Verdict::missing: failed = true; break;
      case compare::Verdict::inconclusive:
      case compare::Verdict::not_comparable: inconclusive = true; break;
      case compare::Verdict::improved: improved = true; break;
      default: break;
    }
  }
  if (failed) return Overall::failed;
  if (regressed) return Overall::regressed;
  if (inconclusive) return Overall::inconclusive;
  if (improved) return Overall::improved;
  return Overall::unchanged;
}

std::map<std::string, int> verdict_counts(const compare::Comparison& c) {
  std::map<std::string, int> counts;
  for (const auto& row : c.rows) counts[compare::to_string(row.verdict)]++;
  return counts;
}

std::string counts_text(const std::map<std::string, int>& counts) {
  std::string out;
  for (const auto& [verdict, n] : counts) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + verdict;
  return out.empty() ? "no benchmarks" : out;
}

// Benchmarks of a run that has nothing to compare against: recorded, but a
// failed one still shows as failed.
bool any_failed(const model::ResultSet& rs) {
  for (const auto& b : rs.benchmarks)
    if (b.status == model::BenchmarkStatus::failed) return true;
  return false;
}

// The median and spread of one side's samples: the spread is the robust
// spread (MAD) of their logarithms, as compare's noise is, so a first run
// already shows how noisy each benchmark is. "–" where there is nothing.
std::pair<std::string, std::string> level_and_spread(const model::Benchmark& b) {
  std::vector<double> logs;
  for (double x : b.samples)
    if (std::isfinite(x) && x > 0) logs.push_back(std::log(x));
  if (b.status != model::BenchmarkStatus::ok || logs.empty()) return {"–", "–"};
  const std::string level = compare::format_value(std::exp(stats::median(logs)), b.unit);
  if (logs.size() < 2) return {level, "–"};
  char buf[32];
  std::snprintf(buf, sizeof buf, "±%.1f %%", 100 * (std::exp(stats::mad(logs)) - 1));
  return {level, buf};
}

// The change a later run of as many samples would catch against these
// (compare::min_detectable_one_side), at the threshold `options` gives it.
std::string detectable_cell(const compare::Options& options, const model::Benchmark& b) {
  if (b.status != model::BenchmarkStatus::ok) return "–";
  const double d = compare::min_detectable_one_side(b.samples, options.threshold_for(b.key), options.confidence);
  if (!std::isfinite(d)) return "–";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100 * d);
  return buf;
}

std::string recorded_table(const model::ResultSet& rs) {
  std::string md = "| benchmark | median | spread | min. detectable | samples | status |\n|---|---:|---:|---:|---:|---|\n";
  compare::Options options;  // the engine's defaults and the suites' own thresholds
  for (const auto& [suite, metrics] : rs.thresholds) options.suite_thresholds.emplace(suite, metrics);
  for (const auto& b : rs.benchmarks)
    if (model::shown(rs, b.key)) {
      const auto [level, spread] = level_and_spread(b);
      md += "| `" + b.key.to_string() + "` | " + level + " | " + spread + " | " + detectable_cell(options, b) + " | " +
            std::to_string(b.samples.size()) + " | " + model::to_string(b.status) +
            (b.reason.empty() ? "" : ": " + b.reason) + " |\n";
    }
  return md + "\nMin. detectable: the change a next run of as many samples would catch about 80 % of the time "
              "against these, compared unpaired at the suite's threshold (one run's spread is itself noisy: 73 % "
              "in simulation); interleaved rounds usually resolve smaller changes.\n";
}

// One line per suite that sampled sequentially (runnerd records it in each
// benchmark's extra.sequential): how many rounds it took, and why it stopped.
std::string sequential_note(const model::ResultSet& head) {
  std::map<std::string, std::string> by_suite;
  for (const auto& b : head.benchmarks) {
    auto it = b.extra.find("sequential");
    if (it == b.extra.end() || !it->is_object() || by_suite.count(b.key.suite)) continue;
    const auto& q = *it;
    std::string why = q.value("stopped_early", false) && !q.value("budget_exhausted", false)
                          ? "every benchmark was decided"
                          : q.value("out_of_time", false) ? "its time budget ran out" : "its round budget ran out";
    by_suite[b.key.suite] = "- Suite `" + b.key.suite + "`: " + std::to_string(q.value("rounds", 0)) + " of at most " +
                            std::to_string(q.value("max_rounds", 0)) + " rounds; stopped because " + why + ".\n";
  }
  if (by_suite.empty()) return "";
  std::string out = "Sequential sampling (the false-positive rate holds across the looks):\n";
  for (const auto& [suite, line] : by_suite) out += line;
  return out + "\n";
}

// One line per suite and side whose runner ran a failed round once more
// (runnerd records extra.retried_rounds): what died and that the suite went
// on, so a stray kill is seen, not hidden.
std::string retried_note(const model::ResultSet* base, const model::ResultSet& head) {
  std::map<std::pair<std::string, std::string>, std::string> lines;  // (suite, side) -> line
  for (const model::ResultSet* rs : {base, &head}) {
    if (!rs) continue;
    const std::string side = rs == &head ? (base ? "head" : "") : "base";
    for (const auto& b : rs->benchmarks) {
      auto it = b.extra.find("retried_rounds");
      if (it == b.extra.end() || !it->is_array() || it->empty() || lines.count({b.key.suite, side})) continue;
      std::string what;
      for (const auto& r : *it)
        if (r.is_object())
          what += (what.empty() ? "" : "; ") + std::string("round ") + std::to_string(r.value("round", int64_t{-1})) +
                  " (" + r.value("reason", std::string("failed")) + ")";
      lines[{b.key.suite, side}] = "- Suite `" + b.key.suite + "`" + (side.empty() ? "" : " on the " + side) + ": " +
                                   what + " failed after good rounds and was run once more; every measured round was kept.\n";
    }
  }
  std::string out;
  for (const auto& [k, line] : lines) out += line;
  return out.empty() ? "" : "Rounds run again:\n" + out + "\n";
}

}  // namespace

namespace {

// The run's context: what was measured where, so a reader can tell a real
// change from a changed machine.
std::string context_lines(const model::ResultSet& head) {
  std::string out = "Environment `" + short_sha(head.environment_key) + "`";
  if (!head.machine_fingerprint.empty()) {
    const std::string tuning = tuning_of(head);
    out += " · host `" + short_sha(head.machine_fingerprint) + "`, tuning " +
           (tuning == "tuned"     ? std::string("held")
            : tuning == "unknown" ? std::string("unknown (tunerd did not say)")
            : head.host_drifted   ? std::string("**drifted** during the run")
                                  : "**" + tuning + "** (tunerd's state when the job began)");
  }
  if (!head.commit_info.subject.empty()) out += " · head: " + head.commit_info.subject;
  // Whose rights the repository's code had: said on every report, loudly
  // when it had the runner's own.
  const std::string contained = model::containment_line(head);
  out += "\n\n" + (model::uncontained(head) ? "⚠ **" + contained + "**" : contained);
  return out + "\n\n";
}

bool missing_any(const compare::Comparison& c) {
  for (const auto& row : c.rows)
    if (row.verdict == compare::Verdict::missing) return true;
  return false;
}

bool measured_any(const model::ResultSet& rs) {
  for (const auto& b : rs.benchmarks)
    if (b.status == model::BenchmarkStatus::ok && !b.samples.empty()) return true;
  return false;
}

// What the head was compared with, for the report's first line.
std::string baseline_text(const model::Job& job, const model::ResultSet& base, bool in_this_job) {
  if (!in_this_job)
    return "previous run of " + job.spec.ref + " at " + short_sha(base.commit) + " (job " + std::to_string(base.job_id) + ")";
  const std::string measured = short_sha(base.commit) + " (measured interleaved in this job)";
  switch (job.spec.kind) {
    case model::JobKind::pull_request: return "merge-base " + measured;
    case model::JobKind::push: return "the branch's previous head " + measured;
    // A confirmation (last good against first bad) or a bisection step
    // (last good against a commit between): the good side either way.
    case model::JobKind::compare: return "the last good commit " + measured;
    default: return measured;
  }
}

}  // namespace

std::string tuning_of(const model::ResultSet& rs) {
  if (rs.host_drifted) return "drifted";
  if (rs.tuning.empty()) return "unknown";
  return rs.tuning;
}

JobReport build_report(const model::Job& job, const std::optional<model::JobResult>& result,
                       const std::optional<model::ResultSet>& previous,
                       const compare::Options& options, const std::optional<model::ResultSet>& elsewhere,
                       const ReportLinks& links) {
  JobReport r;
  r.job = job;
  nlohmann::json env_changes;  // set when a first run follows a run in another environment
  r.head_commit = result ? result->head.commit : job.spec.head_sha;
  std::string title = "## benchbox: " + subject(job) + "\n\n";
  const std::string& repo = job.spec.repository;
  auto download = [&](int64_t job_id) {
    return links.site_url.empty() ? std::string() : links.site_url + site::run_result_download(repo, job_id);
  };

  if (job.state == model::JobState::cancelled) {
    r.overall = Overall::cancelled;
    std::string why = job.error.empty() ? "no reason given" : job.error;
    r.markdown = title + "**The benchmark job was cancelled**: " + why + "\n";
    r.summary = "job " + std::to_string(job.id) + " cancelled: " + why;
  } else if (job.state != model::JobState::done || !result) {
    r.overall = Overall::failed;
    std::string why = job.error.empty() ? "the job did not produce results" : job.error;
    r.markdown = title + "**The benchmark job " + std::string(model::to_string(job.state)) +
                 ".**\n\n```\n" + why + "\n```\n";
    r.summary = "job " + std::to_string(job.id) + " " + model::to_string(job.state) + ": " + why;
  } else if (result->base || previous) {
    const model::ResultSet& base = result->base ? *result->base : *previous;
    r.baseline = baseline_text(job, base, result->base.has_value());
    r.baseline_job = base.job_id;
    compare::Options opts = options;
    if (!opts.seed) opts.seed = static_cast<uint64_t>(result->seed);
    r.comparison = compare::compare(base, result->head, opts);
    // A push measured alone was compared with another job's run: nothing it
    // reads there is called regressed or improved before a confirmation.
    if (job.spec.kind == model::JobKind::push && !result->base) compare::hold_for_confirmation(*r.comparison);
    r.overall = overall_of(*r.comparison);
    r.missing = missing_any(*r.comparison);
    r.nothing_measured = !measured_any(result->head);
    r.reproduce = reproduce_commands(result->head, job.spec.clone_url, base.commit, {},
                                     download(base.job_id), download(job.id));
    r.markdown = title + "Head `" + short_sha(result->head.commit) + "` against " + r.baseline +
                 ".\n\n**Overall: " + to_string(r.overall) + "**\n\n" + context_lines(result->head) +
                 sequential_note(result->head) + retried_note(result->base ? &*result->base : nullptr, result->head) +
                 compare::render_markdown(*r.comparison) + "\n" +
                 reproduce_markdown(r.reproduce);
    r.summary = "job " + std::to_string(job.id) + " " + subject(job) + ": " + to_string(r.overall) +
                " (" + counts_text(verdict_counts(*r.comparison)) + ")";
  } else {
    r.overall = any_failed(result->head) ? Overall::failed : Overall::recorded;
    r.nothing_measured = !measured_any(result->head);
    std::string changed;
    if (elsewhere && elsewhere->environment_key != result->head.environment_key) {
      const auto lines = model::environment_changes(elsewhere->environment, result->head.environment);
      changed = "Not compared with job " + std::to_string(elsewhere->job_id) + " (`" + short_sha(elsewhere->commit) +
                "`): the environment changed since";
      if (lines.empty()) changed += " (its inputs were not recorded).\n\n";
      else {
        changed += ":\n\n";
        for (const auto& l : lines) changed += "- " + l + "\n";
        changed += "\n";
      }
      env_changes = lines;
    }
    r.reproduce = reproduce_commands(result->head, job.spec.clone_url, "", {}, "", "");
    r.markdown = title + "First run of `" + job.spec.ref + "` at `" + short_sha(result->head.commit) +
                 "` in this environment: recorded as the baseline, nothing to compare against yet.\n\n" +
                 context_lines(result->head) + retried_note(nullptr, result->head) + changed +
                 recorded_table(result->head) + "\n" +
                 reproduce_markdown(r.reproduce);
    r.summary = "job " + std::to_string(job.id) + " " + subject(job) + ": " + to_string(r.overall) +
                " (" + std::to_string(result->head.benchmarks.size()) + " benchmarks, first run)";
  }
  if (!links.site_url.empty())
    r.markdown += "\nThe full report, its trends and the raw results: " + links.site_url + site::run_page(repo, job.id) +
                  "\n";

  r.json = {{"job", model::to_json(job)},
            {"overall", to_string(r.overall)},
            {"head_commit", r.head_commit},
            {"baseline", r.baseline},
            {"baseline_job", r.baseline_job},
            {"summary", r.summary},
            {"nothing_measured", r.nothing_measured},
            {"reproduce", r.reproduce},
            {"comparison", r.comparison ? compare::to_json(*r.comparison) : nlohmann::json(nullptr)}};
  if (!env_changes.is_null()) r.json["environment_changes"] = env_changes;
  return r;
}

void add_change_points(JobReport& report, const std::vector<Series>& series, ChangeCache& cache,
                       size_t recent) {
  std::vector<const Series*> list;
  list.reserve(series.size());
  for (const auto& s : series) list.push_back(&s);
  add_change_points(report, list, cache, recent);
}

void add_change_points(JobReport& report, const std::vector<const Series*>& series, ChangeCache& cache,
                       size_t recent) {
  const model::Job& job = report.job;
  if (job.spec.kind != model::JobKind::push || job.spec.ref.rfind("refs/heads/", 0) != 0) return;
  nlohmann::json list = nlohmann::json::array();
  std::string rows;
  for (const Series* one : series) {
    const Series& s = *one;
    // Only series this job measured; the window ends at this job's point.
    size_t here = s.points.size();
    for (size_t i = 0; i < s.points.size(); ++i)
      if (s.points[i].job_id == job.id) here = i;
    if (here == s.points.size()) continue;
    const auto& changes = cache.changes(s);
    const SeriesChange* latest = nullptr;
    for (const auto& c : changes)
      if (c.index <= here) latest = &c;
    if (!latest || latest->index + recent <= here) continue;
    nlohmann::json j = latest->to_json();
    j["benchmark"] = s.key;
    j["environment_key"] = s.environment_key;
    j["direction"] = model::to_string(s.direction);
    list.push_back(std::move(j));
    char effect[128];
    std::snprintf(effect, sizeof effect, "×%.3f %s | [%.3f, %.3f] (%.0f %%) | %.3f", latest->ratio,
                  latest->worse ? "worse" : "better", latest->ci_low, latest->ci_high, latest->confidence * 100,
                  latest->p_value);
    rows += "| `" + s.key + "` | `" + latest->range() + "` (jobs " + std::to_string(latest->job_before) + ".." +
            std::to_string(latest->job_after) + ") | " + effect + " | " + std::to_string(latest->seed) + " |\n";
  }
  report.json["change_points"] = list;
  if (rows.empty()) return;
  report.markdown += "\n### Change points on " + job.spec.ref + "\n\n"
                     "Most recent change point per benchmark within the last " + std::to_string(recent) +
                     " runs (E-divisive on run medians; effect = after / before, Hodges-Lehmann):\n\n"
                     "| benchmark | commits | effect | interval | p-value | seed |\n|---|---|---:|---|---:|---:|\n" +
                     rows;
}

}  // namespace bb::report
