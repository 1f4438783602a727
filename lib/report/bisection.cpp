#include "report/bisection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>

#include "report/regression.h"
#include "util/json_read.h"
#include "util/text.h"

namespace bb::report {

namespace {

constexpr int64_t kPriority = -5;  // below pushes and pull requests, above backfills

const BisectionState kStates[] = {BisectionState::confirming, BisectionState::bisecting, BisectionState::done,
                                  BisectionState::narrowed,   BisectionState::refuted,   BisectionState::failed};

BisectRange range_of(const Bisection& b) {
  BisectRange r;
  r.good = b.good;
  for (const auto& c : b.range) r.commits.push_back(c.commit);
  if (r.commits.empty()) r.commits.push_back(b.bad);
  return r;
}

const model::RangeCommit* find_commit(const Bisection& b, const std::string& sha) {
  for (const auto& c : b.range)
    if (c.commit == sha) return &c;
  return nullptr;
}

const compare::BenchmarkComparison* row_of(const compare::Comparison& c, const std::string& key) {
  for (const auto& r : c.rows)
    if (r.key.to_string() == key) return &r;
  return nullptr;
}

std::string interval_text(const compare::BenchmarkComparison& r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " [%.3f, %.3f]", r.ci_low, r.ci_high);
  return effect_phrase(r.ratio, r.ci_low, r.ci_high, r.key.metric, r.higher_is_better) + buf;
}

}  // namespace

const char* to_string(BisectionState s) {
  switch (s) {
    case BisectionState::confirming: return "confirming";
    case BisectionState::bisecting: return "bisecting";
    case BisectionState::done: return "done";
    case BisectionState::narrowed: return "narrowed";
    case BisectionState::refuted: return "refuted";
    case BisectionState::failed: return "failed";
  }
  return "failed";
}

nlohmann::json to_json(const Bisection& b) {
  nlohmann::json range = nlohmann::json::array(), steps = nlohmann::json::array();
  for (const auto& c : b.range) range.push_back({{"commit", c.commit}, {"commit_info", model::to_json(c.info)}});
  for (const auto& s : b.steps)
    steps.push_back({{"base", s.base}, {"commit", s.commit}, {"outcome", to_string(s.outcome)}, {"job_id", s.job_id},
                     {"detail", s.detail}, {"residual", s.residual}});
  return {{"id", b.id},
          {"group_id", b.group_id},
          {"state", to_string(b.state)},
          {"repository", b.repository},
          {"ref", b.ref},
          {"clone_url", b.clone_url},
          {"suite", b.suite},
          {"regression_id", b.regression_id},
          {"requested_by", b.requested_by},
          {"good", b.good},
          {"bad", b.bad},
          {"keys", b.keys},
          {"waiting_job", b.waiting_job},
          {"confirmed_ratio", b.confirmed_ratio},
          {"confirm_detail", b.confirm_detail},
          {"range", std::move(range)},
          {"steps", std::move(steps)},
          {"culprit", b.culprit},
          {"second_regression", b.second_regression},
          {"failed_once", b.failed_once},
          {"outcome", b.outcome},
          {"created", b.created},
          {"updated", b.updated}};
}

Result<Bisection> bisection_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return make_error(Errc::parse, "a bisection is not a JSON object");
  Bisection b;
  std::string state;
  bool ok = read_member(j, "id", b.id) && read_member(j, "group_id", b.group_id) && read_member(j, "state", state) &&
            read_member(j, "repository", b.repository) && read_member(j, "ref", b.ref) &&
            read_member(j, "clone_url", b.clone_url) && read_member(j, "suite", b.suite) &&
            read_member(j, "regression_id", b.regression_id) && read_member(j, "requested_by", b.requested_by) &&
            read_member(j, "good", b.good) && read_member(j, "bad", b.bad) && read_member(j, "keys", b.keys) &&
            read_member(j, "waiting_job", b.waiting_job) && read_member(j, "confirmed_ratio", b.confirmed_ratio) &&
            read_member(j, "confirm_detail", b.confirm_detail) && read_member(j, "culprit", b.culprit) &&
            read_member(j, "second_regression", b.second_regression) && read_member(j, "outcome", b.outcome) &&
            read_member(j, "created", b.created) && read_member(j, "updated", b.updated);
  if (!ok) return make_error(Errc::parse, "a bisection has a field of the wrong type");
  auto it = std::find_if(std::begin(kStates), std::end(kStates), [&](auto s) { return state == to_string(s); });
  if (it == std::end(kStates)) return make_error(Errc::parse, "unknown bisection state '" + state + "'");
  b.state = *it;
  for (const auto& e : j.value("range", nlohmann::json::array())) {
    model::RangeCommit c;
    c.commit = e.value("commit", "");
    const auto info = e.value("commit_info", nlohmann::json::object());
    c.info.time = info.value("time", int64_t{0});
    c.info.author = info.value("author", "");
    c.info.subject = info.value("subject", "");
    c.info.first_parent_position = info.value("first_parent_position", int64_t{-1});
    b.range.push_back(std::move(c));
  }
  const nlohmann::json failed_once = j.value("failed_once", nlohmann::json::object());  // items() must not outlive it
  for (const auto& [commit, error] : failed_once.items())
    if (error.is_string()) b.failed_once[commit] = error.get<std::string>();
  for (const auto& e : j.value("steps", nlohmann::json::array())) {
    BisectStep s;
    s.base = e.value("base", "");
    s.commit = e.value("commit", "");
    const std::string outcome = e.value("outcome", "inconclusive");
    for (auto o : {StepOutcome::bad, StepOutcome::good, StepOutcome::inconclusive, StepOutcome::skipped})
      if (outcome == to_string(o)) s.outcome = o;
    s.job_id = e.value("job_id", int64_t{0});
    s.detail = e.value("detail", "");
    s.residual = e.value("residual", false);
    b.steps.push_back(std::move(s));
  }
  return b;
}

std::optional<model::JobSpec> next_job(const Bisection& b) {
  if (b.finished() || b.waiting_job != 0) return std::nullopt;
  model::JobSpec s;
  s.kind = model::JobKind::compare;
  s.repository = b.repository;
  s.clone_url = b.clone_url;
  s.ref = b.ref;
  s.suite = b.suite;
  s.priority = kPriority;
  s.requested_by = b.requested_by.empty() ? "benchbox-reporterd" : b.requested_by;
  if (b.state == BisectionState::confirming) {
    s.base_sha = b.good;
    s.head_sha = b.bad;
    return s;  // at the suite's own thresholds: is there a regression at all?
  }
  const BisectPlan plan = plan_bisection(range_of(b), b.steps);
  if (plan.state != BisectState::measure && plan.state != BisectState::residual) return std::nullopt;
  s.base_sha = plan.base;
  s.head_sha = plan.next;
  s.threshold = step_threshold(b.confirmed_ratio);
  return s;
}

namespace {

// Whether a job failed for its commit: the commit does not build, or its
// .benchbox.yml is broken. Anything else (an expired lease, a failed fetch,
// a crash) may not happen again.
bool commit_failure(const std::string& error) {
  for (const char* says : {"build of suite '", "build failed", "build: ", "does not build", "broken .benchbox.yml"})
    if (error.find(says) != std::string::npos) return true;
  return false;
}

std::string failure_of(const model::Job& job) {
  return job.error.empty() ? std::string(model::to_string(job.state)) : job.error;
}

// A failed job that is run once more: true when `what` had not failed
// before and the failure is not its commit's (the plan then asks for the
// same job again). Otherwise the reason to give up on it.
bool run_again(Bisection& b, const std::string& what, const model::Job& job, std::string* why) {
  const std::string error = failure_of(job);
  auto first = b.failed_once.find(what);
  if (commit_failure(error)) {
    *why = error;
    return false;
  }
  if (first == b.failed_once.end()) {
    b.failed_once[what] = error;
    return true;
  }
  *why = "failed twice: " + first->second + "; then " + error;
  return false;
}

// An operator's keys as asked; a regression's, once confirmed, with every
// other benchmark the confirmation found regressed by enough for the steps
// to see it: at least 1.5 times their threshold (half the confirmed
// change). A smaller one would read undecided at every step and stop the
// bisection early.
void follow_confirmed(Bisection& b, const compare::Comparison& c) {
  if (b.regression_id == 0) return;
  const double enough = 1.5 * std::log1p(step_threshold(b.confirmed_ratio));
  for (const auto& r : c.rows) {
    const std::string k = r.key.to_string();
    if (r.verdict == compare::Verdict::regressed && std::fabs(std::log(r.ratio)) >= enough &&
        std::find(b.keys.begin(), b.keys.end(), k) == b.keys.end())
      b.keys.push_back(k);
  }
}

}  // namespace

Advance advance(Bisection& b, const model::Job& job, const compare::Comparison* comparison,
                const std::vector<model::RangeCommit>& range) {
  Advance a;
  if (b.finished() || job.id != b.waiting_job) return a;  // a stale or repeated job
  a.used = true;
  b.waiting_job = 0;
  const bool measured = job.state == model::JobState::done && comparison;
  if (job.state == model::JobState::cancelled) {
    // An operator stopped the group (or the job): the bisection ends there.
    b.state = BisectionState::failed;
    b.outcome = "stopped: job " + std::to_string(job.id) + " was cancelled" + (job.error.empty() ? "" : " (" + job.error + ")");
    a.finished = true;
    return a;
  }

  if (b.state == BisectionState::confirming) {
    if (!measured) {
      std::string why;
      if (run_again(b, "confirmation", job, &why)) return a;
      b.state = BisectionState::failed;
      b.outcome = "the confirmation (job " + std::to_string(job.id) + ") could not run: " + why;
      a.finished = true;
      return a;
    }
    if (b.keys.empty()) {
      for (const auto& r : comparison->rows)
        if (r.verdict == compare::Verdict::regressed) b.keys.push_back(r.key.to_string());
    } else {
      // "suite/name" (an operator's --benchmark) stands for all its metrics.
      std::vector<std::string> keys;
      for (const auto& want : b.keys)
        for (const auto& r : comparison->rows) {
          const std::string k = r.key.to_string();
          if (k == want || (want.find(':') == std::string::npos && k.rfind(want + ":", 0) == 0)) keys.push_back(k);
        }
      if (keys.empty()) {
        std::string asked;
        for (const auto& k : b.keys) asked += (asked.empty() ? "" : ", ") + k;
        b.state = BisectionState::failed;
        b.outcome = "the confirmation (job " + std::to_string(job.id) + ") measured none of the benchmarks asked for: " + asked;
        a.finished = true;
        return a;
      }
      b.keys = keys;
    }
    std::string detail;
    const StepOutcome o = b.keys.empty() ? StepOutcome::good : step_outcome(comparison->rows, b.keys, &detail);
    // The row to quote: the first regressed benchmark, else the first found.
    const compare::BenchmarkComparison* first = nullptr;
    for (const auto& k : b.keys) {
      const auto* r = row_of(*comparison, k);
      if (!r) continue;
      if (r->verdict == compare::Verdict::regressed) {
        first = r;
        break;
      }
      if (!first) first = r;
    }
    const std::string job_text = " (job " + std::to_string(job.id) + ")";
    if (o != StepOutcome::bad) {
      b.state = BisectionState::refuted;
      b.outcome = "not confirmed: " +
                  (first ? "`" + first->key.to_string() + "` " + interval_text(*first) : std::string("no benchmark regressed")) +
                  " measuring `" + short_sha(b.good) + "` against `" + short_sha(b.bad) + "` interleaved" + job_text;
      a.refuted = a.finished = true;
      return a;
    }
    b.confirmed_ratio = first ? first->ratio : 1;
    // Confirmed on what the regression named: its bisection follows the
    // other benchmarks the confirmation found regressed too.
    follow_confirmed(b, *comparison);
    b.confirm_detail = first ? "`" + first->key.to_string() + "` " + interval_text(*first) + job_text : detail;
    a.confirmed = true;
    b.range = range;
    if (b.range.empty() || b.range.back().commit != b.bad) b.range.push_back({b.bad, {}});
    b.state = BisectionState::bisecting;
  } else {
    const BisectPlan before = plan_bisection(range_of(b), b.steps);
    BisectStep s;
    s.base = job.spec.base_sha;
    s.commit = job.spec.head_sha;
    s.job_id = job.id;
    s.residual = before.state == BisectState::residual && before.next == s.commit && before.base == s.base;
    if (!measured) {
      std::string why;
      if (run_again(b, s.commit, job, &why)) return a;
      s.outcome = StepOutcome::skipped;
      s.detail = why;
    } else {
      s.outcome = step_outcome(comparison->rows, b.keys, &s.detail);
    }
    b.steps.push_back(std::move(s));
  }

  const BisectPlan plan = plan_bisection(range_of(b), b.steps);
  if (plan.state == BisectState::done) {
    b.state = BisectionState::done;
    b.culprit = plan.culprit;
    b.second_regression = plan.second_regression;
    b.outcome = "first bad commit: `" + short_sha(plan.culprit) + "`";
    a.finished = true;
  } else if (plan.state == BisectState::narrowed) {
    b.state = BisectionState::narrowed;
    b.outcome = "narrowed to `" + short_sha(plan.good) + "`..`" + short_sha(plan.bad) + "` (" +
                std::to_string(plan.candidates) + " commits): " + plan.reason;
    a.finished = true;
  }
  return a;
}

std::string step_text(const Bisection& b) {
  switch (b.state) {
    case BisectionState::confirming: return "confirming " + short_sha(b.good) + ".." + short_sha(b.bad);
    case BisectionState::bisecting: {
      const BisectPlan p = plan_bisection(range_of(b), b.steps);
      const size_t done = b.steps.size();
      if (p.state == BisectState::residual) return "checking the range's end against " + short_sha(p.culprit);
      return "step " + std::to_string(done + 1) + " of ~" + std::to_string(done + p.steps_left) + ": " +
             std::to_string(p.candidates) + " commits left";
    }
    default: return std::string(to_string(b.state)) + ": " + b.outcome;
  }
}

void add_to_report(const Bisection& b, std::string& md, nlohmann::json& json) {
  md += "\n## Confirmation and bisection\n\n";
  md += b.state == BisectionState::refuted ? "**Not confirmed.** " + b.outcome + "\n" : markdown(b);
  json["bisection"] = {{"id", b.id},
                       {"state", to_string(b.state)},
                       {"confirmed", b.state != BisectionState::refuted && b.state != BisectionState::failed &&
                                         !b.confirm_detail.empty()},
                       {"outcome", b.outcome},
                       {"step", step_text(b)},
                       {"culprit", b.culprit},
                       {"good", b.good},
                       {"bad", b.bad},
                       {"regression_id", b.regression_id}};
}

int64_t pull_request_of(const std::string& subject) {
  static const std::regex merge(R"(^Merge pull request #([0-9]+))");
  static const std::regex squash(R"(\(#([0-9]+)\)\s*$)");
  std::smatch m;
  if (std::regex_search(subject, m, merge) || std::regex_search(subject, m, squash)) {
    try {
      return std::stoll(m[1].str());
    } catch (...) {
      return 0;
    }
  }
  return 0;
}

nlohmann::json site_json(const Bisection& b) {
  nlohmann::json culprit = nullptr;
  if (!b.culprit.empty()) {
    const auto* c = find_commit(b, b.culprit);
    culprit = {{"commit", b.culprit},
               {"subject", c ? c->info.subject : ""},
               {"author", c ? c->info.author : ""},
               {"pull_request", c ? pull_request_of(c->info.subject) : 0},
               {"effect", ""},
               {"job_id", 0}};
    for (auto it = b.steps.rbegin(); it != b.steps.rend(); ++it)
      if (it->commit == b.culprit && it->outcome == StepOutcome::bad) {
        culprit["effect"] = it->detail;
        culprit["job_id"] = it->job_id;
        break;
      }
  }
  return {{"state", to_string(b.state)},
          {"outcome", b.outcome},
          {"step", step_text(b)},
          {"confirmation", b.confirm_detail},
          {"confirmed_ratio", b.confirm_detail.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.confirmed_ratio)},
          {"culprit", culprit}};
}

std::string markdown(const Bisection& b) {
  std::string out;
  if (!b.confirm_detail.empty())
    out += "**Confirmed** by measuring `" + short_sha(b.good) + "` and `" + short_sha(b.bad) +
           "` interleaved on the same cores: " + b.confirm_detail + ".\n\n";
  if (b.state == BisectionState::refuted || b.state == BisectionState::failed) return out + b.outcome + "\n";
  if (b.keys.size() > 1) {
    out += "**Followed** " + std::to_string(b.keys.size()) +
           " benchmarks (what the regression named, and what the confirmation found regressed by at least 1.5 "
           "times the steps' threshold), each step bad when any of them regressed:";
    for (size_t i = 0; i < b.keys.size() && i < 10; ++i) out += (i ? ", `" : " `") + b.keys[i] + "`";
    out += b.keys.size() > 10 ? " and " + std::to_string(b.keys.size() - 10) + " more.\n\n" : ".\n\n";
  }
  if (b.state == BisectionState::done) {
    const auto* c = find_commit(b, b.culprit);
    out += "**First bad commit:** `" + b.culprit + "`";
    if (c && !c->info.subject.empty()) out += " " + c->info.subject;
    if (c && !c->info.author.empty()) out += " (" + c->info.author + ")";
    if (c) {
      if (int64_t pr = pull_request_of(c->info.subject)) out += ", pull request #" + std::to_string(pr);
    }
    for (auto it = b.steps.rbegin(); it != b.steps.rend(); ++it)
      if (it->commit == b.culprit && it->outcome == StepOutcome::bad && !it->detail.empty()) {
        out += ": " + it->detail;
        break;
      }
    out += ".\n";
    if (b.second_regression)
      out += "\nA second regression lies after it: `" + short_sha(b.bad) + "` is slower than `" +
             short_sha(b.culprit) + "` too (not bisected).\n";
  } else if (b.state == BisectionState::narrowed) {
    out += "**Bisection " + b.outcome + ".**\n";
  } else if (b.state == BisectionState::bisecting) {
    out += "**Bisecting:** " + step_text(b) + ".\n";
  }
  if (!b.steps.empty()) {
    out += "\n| step | commit | against | outcome | job |\n|--:|:--|:--|:--|--:|\n";
    for (size_t i = 0; i < b.steps.size(); ++i) {
      const auto& s = b.steps[i];
      out += "| " + std::to_string(i + 1) + " | `" + short_sha(s.commit) + "` | `" + short_sha(s.base) + "` | " +
             to_string(s.outcome) + (s.residual ? " (range end vs culprit)" : "") +
             (s.detail.empty() ? "" : ": " + utf8_cut(s.detail, 200, "…")) + " | " + std::to_string(s.job_id) +
             " |\n";
    }
  }
  return out;
}

}  // namespace bb::report
