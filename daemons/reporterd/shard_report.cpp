// A sharded suite's one report and check run, rebuilt from its job group
// each time one of its shards changes (queued, started, finished), so
// maintainers see results as shards arrive ("3 of 8 shards done").
#include <algorithm>

#include "bus/dict.h"
#include "bus/errors.h"
#include "bus/names.h"
#include "daemon/log.h"
#include "manager.h"
#include "report/github_wants.h"
#include "report/shard_merge.h"
#include "util/file.h"

namespace bb::reporterd {

using daemon::log_error;
using daemon::log_info;
using daemon::log_warning;

namespace {

// The jobs of a group (Queue1.GroupJobs).
Result<std::vector<model::Job>> group_jobs(sd_bus* bus, int64_t group_id) {
  bus::BusError error;
  sd_bus_message* reply = nullptr;
  int r = sd_bus_call_method(bus, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "GroupJobs", error.get(),
                             &reply, "x", group_id);
  bus::MessagePtr owned(reply);
  if (r < 0) return bus::from_bus_error(error.get(), r, "Queue1.GroupJobs");
  if ((r = sd_bus_message_enter_container(reply, 'a', "a{sv}")) < 0) return errno_error("read Queue1.GroupJobs", -r);
  std::vector<model::Job> jobs;
  while (sd_bus_message_at_end(reply, 0) == 0) {
    auto dict = bus::read_dict(reply);
    if (!dict) return dict.error();
    auto job = model::job_from_json(*dict);
    if (!job) return job.error().with_context("job group " + std::to_string(group_id));
    jobs.push_back(std::move(*job));
  }
  return jobs;
}

}  // namespace

std::string Manager::group_report_dir(int64_t group_id) const {
  return path_join(config_.reports_dir(), "group-" + std::to_string(group_id));
}

Status Manager::report_shards(int64_t group_id) {
  auto jobs = group_jobs(bus_, group_id);
  if (!jobs) return jobs.error();
  std::vector<report::ShardJob> shards;
  // A push: each done shard against the run before it that measured its
  // own benchmarks (history.h, previous_run's with_key), not the run of
  // another shard; those runs merged are the suite's baseline.
  std::vector<model::ResultSet> before;
  for (auto& j : *jobs) {
    report::ShardJob s{std::move(j), std::nullopt, ""};
    if (s.job.state == model::JobState::done) {
      auto jr = load_job_result(s.job);
      if (jr) s.result = std::move(*jr);
      else s.unreadable = jr.error().message;
    }
    if (s.result && !s.result->base && !s.result->head.benchmarks.empty()) {
      auto prev = history_.previous_run(s.result->head, s.result->kind,
                                        s.result->head.benchmarks.front().key.to_string());
      if (!prev) return prev.error();
      if (*prev) {
        model::SuiteOutcome own;
        own.declared = s.job.spec.benchmarks;
        auto& b = (*prev)->benchmarks;
        b.erase(std::remove_if(b.begin(), b.end(),
                               [&](const model::Benchmark& x) {
                                 return x.key.suite != s.job.spec.suite || !own.declares(x.key);
                               }),
                b.end());
        before.push_back(std::move(**prev));
      }
    }
    shards.push_back(std::move(s));
  }
  auto merged = report::merge_shards(group_id, std::move(shards));
  if (!merged) return merged.error();
  std::optional<model::ResultSet> previous;
  if (!before.empty()) {
    std::vector<const model::ResultSet*> parts;
    for (const auto& p : before) parts.push_back(&p);
    previous = report::merge_result_sets(parts);
  }

  compare::Options options;
  report::JobReport rep = report::shards_report(*merged, previous, options);
  const std::string dir = group_report_dir(group_id);
  if (auto st = write_report(rep, dir); !st) return st;
  if (auto st = site_->shards_changed(rep, merged->result, group_id); !st)
    log_warning("dashboard not updated for the sharded suite: " + st.error().message,
                {{"GROUP_ID", std::to_string(group_id)}});
  if (poster_) {
    const report::PostingPolicy policy = posting_policy();
    if (auto want = report::shards_check_run_want(rep, merged->progress, policy))
      if (auto st = poster_->want(*want); !st)
        log_error("sharded suite's check run not recorded for GitHub: " + st.error().message,
                  {{"GROUP_ID", std::to_string(group_id)}});
  }
  log_info(rep.summary, {{"GROUP_ID", std::to_string(group_id)}, {"REPOSITORY", rep.job.spec.repository}});
  return {};
}

void Manager::shard_changed(const model::Job& job) {
  if (job.spec.shard <= 0 || job.spec.group_id == 0) return;
  if (auto st = report_shards(job.spec.group_id); !st)
    log_warning("sharded suite's report not updated: " + st.error().message,
                {{"JOB_ID", std::to_string(job.id)}, {"GROUP_ID", std::to_string(job.spec.group_id)}});
}

Result<std::pair<std::string, std::string>> Manager::stored_group_report(int64_t group_id) const {
  return read_stored_report(group_report_dir(group_id),
                            "no report for job group " + std::to_string(group_id) +
                                " (not a group of shards, or none of them has changed yet)");
}

}  // namespace bb::reporterd
