#include "report/shard_merge.h"

#include <algorithm>
#include <set>

#include "util/text.h"

namespace bb::report {

namespace {

std::string shard_name(const model::Job& job) {
  return "shard " + std::to_string(job.spec.shard) + " (job " + std::to_string(job.id);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "; ") + i;
  return out;
}

}  // namespace

std::string ShardProgress::text() const {
  std::string out = std::to_string(done) + " of " + std::to_string(shards) + " shards done";
  if (!pending.empty()) out += "; pending: " + joined(pending);
  if (!lost.empty()) out += "; lost: " + joined(lost);
  return out;
}

nlohmann::json ShardProgress::to_json() const {
  return {{"group", group_id}, {"suite", suite}, {"shards", shards}, {"done", done},
          {"pending", pending}, {"lost", lost},  {"finished", finished()}};
}

model::ResultSet merge_result_sets(const std::vector<const model::ResultSet*>& parts) {
  model::ResultSet out;
  if (parts.empty()) return out;
  out = *parts.front();
  out.benchmarks.clear();
  std::map<std::string, std::set<std::string>> declared;  // suite -> names
  std::map<std::string, std::string> failed;              // suite -> why, shard by shard
  for (const auto* rs : parts) {
    out.benchmarks.insert(out.benchmarks.end(), rs->benchmarks.begin(), rs->benchmarks.end());
    // A shard that read a host drifting taints the whole suite's run.
    out.host_drifted = out.host_drifted || rs->host_drifted;
    for (const auto& [suite, o] : rs->suites) {
      auto [it, first] = out.suites.emplace(suite, o);
      if (o.declared) declared[suite].insert(o.declared->begin(), o.declared->end());
      if (o.status == model::BenchmarkStatus::failed)
        failed[suite] += (failed[suite].empty() ? "" : "; ") + o.declared_by + ": " + o.reason;
      if (!first && it->second.list_error.empty()) it->second.list_error = o.list_error;
    }
  }
  for (auto& [suite, names] : declared) {
    model::SuiteOutcome& o = out.suites[suite];
    o.declared = std::vector<std::string>(names.begin(), names.end());
    o.declared_by = "its shards";
  }
  for (auto& [suite, why] : failed) {
    out.suites[suite].status = model::BenchmarkStatus::failed;
    out.suites[suite].reason = why;
  }
  return out;
}

Result<MergedShards> merge_shards(int64_t group_id, std::vector<ShardJob> jobs) {
  if (jobs.empty()) return make_error(Errc::invalid_argument, "job group " + std::to_string(group_id) + " has no jobs");
  std::sort(jobs.begin(), jobs.end(), [](const ShardJob& a, const ShardJob& b) {
    return std::pair{a.job.spec.shard, a.job.id} < std::pair{b.job.spec.shard, b.job.id};
  });
  MergedShards m;
  m.progress.group_id = group_id;
  m.progress.suite = jobs.front().job.spec.suite;
  m.progress.shards = jobs.size();
  for (const auto& s : jobs) {
    const model::Job& j = s.job;
    if (j.spec.shard <= 0 || j.spec.suite != m.progress.suite)
      return make_error(Errc::invalid_argument, "job group " + std::to_string(group_id) + ": job " +
                                                    std::to_string(j.id) + " is not a shard of suite '" +
                                                    m.progress.suite + "'");
  }

  std::vector<const model::ResultSet*> heads, bases;
  const ShardJob* first_done = nullptr;
  for (const auto& s : jobs) {
    const model::Job& j = s.job;
    if (!model::is_terminal(j.state)) {
      m.progress.pending.push_back(shard_name(j) + ", " +
                                   (j.state == model::JobState::running
                                        ? "running on `" + (j.runner.empty() ? std::string("a runner") : j.runner) + "`"
                                        : std::string("queued") + (j.attempts ? ", attempt " + std::to_string(j.attempts + 1)
                                                                              : std::string())) +
                                   ")");
      continue;
    }
    if (j.state == model::JobState::done && s.result) {
      ++m.progress.done;
      if (!first_done) first_done = &s;
      heads.push_back(&s.result->head);
      if (s.result->base) bases.push_back(&*s.result->base);
      continue;
    }
    // Finished without results: what it was to measure is missing, with why.
    std::string why = j.state == model::JobState::done ? "its result could not be read: " + s.unreadable
                      : j.error.empty()                ? std::string("no reason given")
                                                       : j.error;
    std::string line = shard_name(j) + ") " + model::to_string(j.state) +
                       (j.attempts > 1 ? " after " + std::to_string(j.attempts) + " attempts" : std::string()) +
                       ": " + why;
    m.progress.lost.push_back(line);
    m.lost.push_back({j.spec.suite, j.spec.benchmarks, line});
  }

  m.job = first_done ? first_done->job : jobs.front().job;
  m.job.spec.shard = m.job.spec.shards = 0;
  m.job.spec.benchmarks.clear();
  m.job.spec.group_id = 0;
  if (first_done) {
    model::JobResult r = *first_done->result;
    r.head = merge_result_sets(heads);
    if (r.base) r.base = merge_result_sets(bases);
    m.result = std::move(r);
    m.job.state = model::JobState::done;
    m.job.error.clear();
  } else if (m.progress.finished()) {
    m.job.state = model::JobState::failed;
    m.job.error = "no shard of suite '" + m.progress.suite + "' finished with results: " + joined(m.progress.lost);
  }
  for (const auto& s : jobs) m.job.finished = std::max(m.job.finished, s.job.finished);
  return m;
}

JobReport shards_report(const MergedShards& merged, const std::optional<model::ResultSet>& previous,
                        compare::Options options) {
  const ShardProgress& p = merged.progress;
  options.lost = merged.lost;
  const std::string heading = "## benchbox: " + merged.job.spec.repository + " suite `" + p.suite +
                              "`, sharded (job group " + std::to_string(p.group_id) + ")\n\n";
  std::string progress = "**" + std::to_string(p.done) + " of " + std::to_string(p.shards) + " shards done**";
  if (!p.pending.empty()) progress += ". Pending:\n" + [&] {
    std::string s;
    for (const auto& x : p.pending) s += "- " + x + "\n";
    return s;
  }();
  if (!p.lost.empty()) {
    progress += (p.pending.empty() ? ". " : "\n") + std::string("Lost (their benchmarks are missing):\n");
    for (const auto& x : p.lost) progress += "- " + x + "\n";
  }
  progress += p.pending.empty() && p.lost.empty() ? ".\n\n" : "\n";

  JobReport r;
  if (merged.result || p.finished()) {
    r = build_report(merged.job, merged.result, merged.result && merged.result->base ? std::nullopt : previous,
                     options);
    // build_report's own heading names one job; the group's replaces it.
    const auto cut = r.markdown.find("\n\n");
    r.markdown = heading + progress + (cut == std::string::npos ? r.markdown : r.markdown.substr(cut + 2));
  } else {
    r.job = merged.job;
    r.overall = Overall::recorded;
    r.head_commit = merged.job.spec.head_sha;
    r.markdown = heading + progress + "Nothing measured yet.\n";
    r.nothing_measured = true;
  }
  r.summary = "job group " + std::to_string(p.group_id) + " suite " + p.suite + ": " + p.text() +
              (merged.result ? "; " + r.summary : std::string());
  if (r.json.is_null()) r.json = {{"job", model::to_json(r.job)}, {"overall", to_string(r.overall)}};
  r.json["summary"] = r.summary;
  r.json["shards"] = p.to_json();
  return r;
}

}  // namespace bb::report
