#include "executor.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <random>

#include "build_step.h"
#include "config/suite.h"
#include "containment.h"
#include "fetch_token.h"
#include "daemon/log.h"
#include "exec/suite_check.h"
#include "git/repository.h"
#include "git/select.h"
#include "measure.h"
#include "push_base.h"
#include "shard_step.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::runnerd {

namespace {

namespace fs = std::filesystem;
using model::JobKind;

// Removes the job's work trees however execute_job leaves, then ends
// what the runner kept for the job (the supervised runner's units).
struct WorkDirGuard {
  std::string path;
  int64_t job_id;
  exec::CommandRunner* runner;  // the transient service, else null
  exec::CommandRunner* job_runner;
  ~WorkDirGuard() {
    remove_job_dir(path, job_id, runner);
    if (job_runner) job_runner->end_job();
  }
};

struct Failure {
  std::string reason;
};

// A compare job's range is recorded up to this many commits (the newest).
constexpr size_t kMaxRange = 10000;

// The commit a job names: its head_sha when it was fetched, else its ref.
Result<std::string> commit_of(const git::Repository& repo, const std::string& sha, const std::string& ref,
                              const std::string& url) {
  if (!sha.empty()) {
    if (repo.has_commit(sha)) return sha;
    return make_error(Errc::not_found, "commit " + sha + " not found after fetching " + url);
  }
  if (ref.empty()) return make_error(Errc::invalid_argument, "the job names neither a commit nor a ref");
  auto resolved = repo.resolve(ref);
  if (!resolved) return resolved.error().with_context("after fetching " + url);
  return resolved;
}

std::vector<std::string> refspecs_for(const model::JobSpec& spec) {
  auto specs = git::fetch_refspecs(spec.pr_number > 0 ? spec.pr_number : 0);
  // A ref outside branches, tags and this PR's head (a manual job naming
  // refs/pull/9/head, say) is fetched explicitly.
  for (const std::string& ref : {spec.ref, spec.base_ref}) {
    if (ref.rfind("refs/", 0) != 0 || ref.rfind("refs/heads/", 0) == 0 || ref.rfind("refs/tags/", 0) == 0)
      continue;
    std::string spec_text = "+" + ref + ":" + ref;
    if (std::find(specs.begin(), specs.end(), spec_text) == specs.end()) specs.push_back(spec_text);
  }
  return specs;
}

// Resolves the commits to measure into targets (base first for a PR or a
// compare job).
Result<std::vector<Target>> pick_targets(const git::Repository& repo, const model::JobSpec& spec) {
  std::vector<Target> targets;
  if (spec.kind == JobKind::compare) {
    // Two commits exactly as named: no merge-base, both on the job's ref.
    auto base = commit_of(repo, spec.base_sha, "", spec.clone_url);
    if (!base) return base.error().with_context("compare base");
    auto head = commit_of(repo, spec.head_sha, "", spec.clone_url);
    if (!head) return head.error().with_context("compare head");
    for (auto [role, commit] : {std::pair<const char*, std::string>{"base", *base}, {"head", *head}}) {
      Target t;
      t.role = role;
      t.commit = commit;
      t.result.ref = spec.ref;
      targets.push_back(std::move(t));
    }
    return targets;
  }
  if (spec.kind != JobKind::pull_request) {
    auto commit = commit_of(repo, spec.head_sha, spec.ref, spec.clone_url);
    if (!commit) return commit.error();
    Target t;
    t.commit = *commit;
    t.result.ref = spec.ref;
    targets.push_back(std::move(t));
    return targets;
  }
  std::string head_ref = spec.ref.empty() ? "refs/pull/" + std::to_string(spec.pr_number) + "/head" : spec.ref;
  auto head = commit_of(repo, spec.head_sha, head_ref, spec.clone_url);
  if (!head) return head.error().with_context("pull request #" + std::to_string(spec.pr_number) + " head");
  // The base tip the PR was blessed against, if we have it; otherwise the
  // base branch as it is now (the sha may be gone after a force-push).
  std::string base_tip;
  if (!spec.base_sha.empty() && repo.has_commit(spec.base_sha)) {
    base_tip = spec.base_sha;
  } else {
    if (spec.base_ref.empty())
      return make_error(Errc::invalid_argument, "pull request job without a fetched base_sha or a base_ref");
    auto tip = repo.resolve(spec.base_ref);
    if (!tip) return tip.error().with_context("pull request base");
    base_tip = *tip;
  }
  auto mb = repo.merge_base(*head, base_tip);
  if (!mb) return mb.error();
  Target base, head_target;
  base.role = "base";
  base.commit = *mb;
  base.result.ref = spec.base_ref;
  head_target.role = "head";
  head_target.commit = *head;
  head_target.result.ref = head_ref;
  targets.push_back(std::move(base));
  targets.push_back(std::move(head_target));
  return targets;
}

// Takes every sharded suite out of `suites` and queues its shards, unless
// the job is a shard itself or a compare job (a confirmation or a bisection
// step measures its pair whole), or the suite declares too few names here.
Status hand_over_shards(const model::Job& job, const ExecContext& ctx, std::vector<config::Suite>& suites,
                        std::vector<Target>& targets) {
  if (job.spec.shard > 0 || job.spec.kind == JobKind::compare || !ctx.queue_shards) return {};
  const std::string id = std::to_string(job.id);
  std::vector<config::Suite> here;
  for (auto& s : suites) {
    if (s.shards < 2) {
      here.push_back(std::move(s));
      continue;
    }
    // Every name either commit declares: a benchmark new in a PR's head is
    // measured too (and shown new), one it removed still shows removed.
    std::vector<std::string> names;
    for (const auto& t : targets) {
      auto it = t.result.suites.find(s.name);
      if (it != t.result.suites.end() && it->second.declared)
        names.insert(names.end(), it->second.declared->begin(), it->second.declared->end());
    }
    auto plan = plan_shards(s, names);
    if (!plan) {
      daemon::log_warning("suite '" + s.name + "' declares too few benchmarks here to shard: measured whole",
                          {{"JOB_ID", id}});
      here.push_back(std::move(s));
      continue;
    }
    auto group = ctx.queue_shards(shard_group(job, *plan), shard_specs(job.spec, *plan));
    if (!group) return group.error().with_context("queueing the shards of suite '" + s.name + "'");
    daemon::log_info("suite '" + s.name + "' handed to " + std::to_string(plan->shards.size()) +
                         " shard jobs in group " + std::to_string(*group),
                     {{"JOB_ID", id}, {"GROUP_ID", std::to_string(*group)}});
    for (auto& t : targets) {
      model::SuiteOutcome& o = t.result.suites[s.name];
      o.status = model::BenchmarkStatus::skipped;
      o.reason = sharded_reason(plan->shards.size(), *group);
    }
  }
  suites = std::move(here);
  return {};
}

}  // namespace

void remove_job_dir(const std::string& path, int64_t job_id, exec::CommandRunner* runner) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (!ec || !runner || !fs::exists(path)) return;
  exec::Command c;
  c.shell = "chmod -R u+rwX,g+rwX . 2>/dev/null; exit 0";
  c.cwd = path;
  c.writable_dir = path;
  c.timeout = std::chrono::minutes(5);
  c.unit_name = "benchbox-job-" + std::to_string(job_id) + "-0.service";
  auto done = runner->run(c, nullptr);
  fs::remove_all(path, ec);
  if (ec)
    daemon::log_warning("could not remove the job's directory " + path + ": " + ec.message() +
                            (done ? "" : " (making it writable as the job failed: " + done.error().message + ")"),
                        {{"JOB_ID", std::to_string(job_id)}});
}

void clean_work_dir(const std::string& work_dir, exec::CommandRunner* runner) {
  std::error_code ec;
  std::vector<fs::path> left;
  for (auto it = fs::directory_iterator(work_dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    left.push_back(it->path());
  for (const auto& p : left) {
    int64_t id = 0;
    try {
      id = std::stoll(p.filename().string());
    } catch (...) {
    }
    remove_job_dir(p.string(), id, runner);
  }
  if (runner) runner->end_job();
}

// "" when some benchmark measured; else the first failure's reason.
static std::string why_nothing_measured(const model::JobResult& result) {
  std::string first;
  for (const model::ResultSet* rs : {result.base ? &*result.base : nullptr, &result.head}) {
    if (!rs) continue;
    for (const auto& b : rs->benchmarks) {
      if (b.status == model::BenchmarkStatus::ok) return "";
      if (first.empty() && b.status == model::BenchmarkStatus::failed)
        first = "suite '" + b.key.suite + "' on " + short_sha(rs->commit) + ": " + b.reason;
    }
  }
  return first;
}

ExecOutcome execute_job(const model::Job& job, const ExecContext& ctx) {
  const auto& spec = job.spec;
  const std::string id = std::to_string(job.id);
  auto failed = [&](const std::string& reason) {
    daemon::log_error("job failed: " + reason, {{"JOB_ID", id}, {"REPOSITORY", spec.repository}});
    ExecOutcome o;
    o.state = ExecOutcome::State::failed;
    o.reason = reason;
    return o;
  };
  auto cancelled = [&] {
    daemon::log_notice("job cancelled, its processes are stopped", {{"JOB_ID", id}});
    ExecOutcome o;
    o.state = ExecOutcome::State::cancelled;
    return o;
  };

  // 1. Fetch into the bare cache.
  auto repo = git::Repository::open_or_init_bare(git::cache_path(ctx.git_cache_dir, spec.repository));
  if (!repo) return failed(repo.error().message);
  if (auto st = repo->remove_stale_locks(); !st) return failed(st.error().message);
  daemon::log_info("fetching " + spec.clone_url, {{"JOB_ID", id}, {"REPOSITORY", spec.repository}});
  std::optional<git::FetchCredential> credential;
  if (ctx.tokens) {
    auto c = ctx.tokens->for_fetch(spec.repository, spec.clone_url);
    if (c) credential = std::move(*c);
    else
      daemon::log_warning("fetching without an installation token: " + c.error().message,
                          {{"JOB_ID", id}, {"REPOSITORY", spec.repository}});
  }
  if (auto st = repo->fetch(spec.clone_url, refspecs_for(spec), credential ? &*credential : nullptr); !st)
    return failed(st.error().message);
  credential.reset();
  if (ctx.cancel->load()) return cancelled();

  // 2. The commits, and the suites from the (head) commit's .benchbox.yml.
  auto picked = pick_targets(*repo, spec);
  if (!picked) return failed(picked.error().message);
  std::vector<Target> targets = std::move(*picked);
  const std::string config_commit = targets.back().commit;
  auto text = repo->read_file(config_commit, config::kSuiteFileName);
  if (!text) return failed(text.error().message);
  auto suite_config = config::parse_suite_config(*text, config::kSuiteFileName);
  if (!suite_config)
    return failed("broken .benchbox.yml in commit " + short_sha(config_commit) + ": " + suite_config.error().message);
  auto suites = config::select_suites(
      *suite_config, spec.suite.empty() ? std::vector<std::string>{} : std::vector<std::string>{spec.suite});
  if (!suites) return failed(suites.error().message);
  if (suites->empty()) return failed("no suites to run");
  // A confirmation or a bisection step is decided by the sequential engine
  // (a suite without `sequential:` gets four times its repetitions as the
  // budget), and a step at the job's threshold for every metric: its
  // sampling stops, and its report judges, at that one question.
  if (spec.kind == JobKind::compare)
    for (auto& s : *suites) {
      if (!s.sequential)
        s.sequential = config::SequentialSampling{std::min(4 * s.repetitions, config::kMaxSequentialRepetitions), 0};
      if (spec.threshold > 0) s.thresholds = {{"", spec.threshold}};
    }
  if (auto st = exec::check_suites(*suites); !st) return failed(st.error().message);
  if (spec.shard > 0 && (suites->size() != 1 || suites->front().shards < 2))
    return failed("shard " + std::to_string(spec.shard) + " of suite '" + spec.suite +
                  "': the suite is not sharded at " + short_sha(targets.back().commit));
  // A pull request that changes none of a suite's `paths:` does not run it:
  // its benchmarks are reported skipped (not affected), never missing.
  std::map<std::string, std::string> not_affected;  // suite -> why
  if (spec.kind == JobKind::pull_request && targets.size() == 2 &&
      std::any_of(suites->begin(), suites->end(), [](const config::Suite& s) { return !s.paths.empty(); })) {
    auto changed = repo->changed_paths(targets.front().commit, targets.back().commit);
    if (!changed) return failed(changed.error().message);
    std::vector<config::Suite> affected;
    for (auto& s : *suites) {
      if (config::suite_affected(s, *changed)) {
        affected.push_back(std::move(s));
        continue;
      }
      std::string paths;
      for (const auto& p : s.paths) paths += (paths.empty() ? "" : ", ") + p;
      not_affected[s.name] = std::string(model::kNotAffected) + ": the pull request changes none of its paths (" +
                             paths + ")";
      daemon::log_info("suite '" + s.name + "' not affected by the pull request: not run", {{"JOB_ID", id}});
    }
    *suites = std::move(affected);
  }
  // A push measures the branch's previous head beside it (push_base.h).
  if (spec.kind == JobKind::push) {
    if (auto why = add_push_base(*repo, spec, *suites, targets); why.empty())
      daemon::log_info("push measured against the branch's previous head " + short_sha(spec.base_sha) +
                           ", interleaved in this job",
                       {{"JOB_ID", id}});
    else
      daemon::log_info("push measured alone, to be compared with the branch's previous run: " + why,
                       {{"JOB_ID", id}});
  }

  // 3. Work trees, result set headers, builds (once per commit and command).
  const std::string work = path_join(ctx.work_dir, id);
  WorkDirGuard guard{work, job.id, ctx.contained_service ? ctx.runner : nullptr, ctx.runner};
  {
    std::error_code ec;
    fs::remove_all(work, ec);
  }
  SystemClock clock;
  for (auto& t : targets) {
    t.tree_dir = path_join(work, t.role.empty() ? "run" : t.role);
    if (auto st = repo->export_tree(t.commit, t.tree_dir); !st) return failed(st.error().message);
  }
  // Build and benchmark are someone else's code: where runnerd may, they
  // run as the job's own uid, which owns this job's directory and nothing
  // else, with the repository's network.
  ContainRules rules{ctx.contained_service, ctx.job_user, ctx.limits, ctx.network};
  auto contained = contain_job(job.id, work, rules);
  if (!contained) return failed(contained.error().message);
  const std::string containment = contained->description;
  const std::string results = path_join(ctx.results_dir, id);
  MeasureContext mctx{job.id, ctx.cpus, ctx.runner, ctx.cancel,
                      path_join(results, "profiles"), contained->identity, work,
                      contained->network, contained->job_group, contained->limits, ctx.work_tree_max_bytes};
  // What the commands print: the job's own log beside its result, not the
  // journal (command_log.h).
  std::optional<OutputLog> output_log;
  if (auto st = make_dirs(results); st)
    output_log.emplace(path_join(results, "output.log"));
  else
    daemon::log_warning("no output log for the job: " + st.error().message, {{"JOB_ID", id}});
  mctx.output_log = output_log ? &*output_log : nullptr;
  // One environment for the job, from the head's tree: a PR's base and head
  // are always compared, even when the PR changes a lock file.
  bool env_cancelled = false;
  // A shard's key is its suite's (the filter on its run command is not part
  // of it): every shard's benchmarks land in the suite's trends.
  model::Environment env = describe_environment(ctx.isolation, ctx.runner_id, *suites, targets.back(), mctx,
                                                env_cancelled);
  if (spec.shard > 0)
    for (auto& s : *suites) s = shard_suite(s, spec);
  env.hardware = ctx.hardware;
  if (env_cancelled) return cancelled();
  const std::string env_key = env.key();
  const nlohmann::json env_inputs = env.to_json();
  for (auto& t : targets) {
    auto& rs = t.result;
    rs.repository = spec.repository;
    rs.commit = t.commit;
    // Where the commit sits and when it was made: history orders trends by
    // it. A commit whose chain cannot be walked is still measured, unplaced.
    if (auto meta = repo->commit_meta(t.commit)) {
      rs.commit_info = {meta->time, meta->author, meta->subject, meta->first_parent_position};
    } else {
      daemon::log_warning("commit not placed in first-parent order: " + meta.error().message,
                          {{"JOB_ID", id}, {"COMMIT", t.commit}});
    }
    rs.job_id = job.id;
    rs.role = t.role;
    rs.config_sha256 = sha256_hex(*text);
    rs.config_text = *text;
    rs.environment_key = env_key;
    rs.environment = env_inputs;
    rs.machine_fingerprint = ctx.machine_fingerprint;
    rs.host_drifted = ctx.host_drifted;
    rs.tuning = ctx.tuning;
    rs.isolation = ctx.isolation;
    rs.containment = containment;
    rs.cpus = ctx.cpus;
    rs.created = clock.now_unix();
    for (const auto& s : *suites)
      if (!s.thresholds.empty()) rs.thresholds[s.name] = s.thresholds;
    for (const auto& [name, why] : not_affected) {
      model::SuiteOutcome& o = rs.suites[name];
      o.status = model::BenchmarkStatus::skipped;
      o.reason = why;
    }
  }
  SystemClock cache_clock;
  std::optional<cache::BuildCache> build_cache;
  if (ctx.build_cache_bytes > 0) build_cache.emplace(ctx.build_cache_dir, ctx.build_cache_bytes, cache_clock);
  for (auto& t : targets) {
    BuildInputs inputs{build_cache ? &*build_cache : nullptr, "", env_key};
    if (auto tree = repo->tree_id(t.commit)) inputs.tree_id = *tree;
    else inputs.cache = nullptr;  // no key without the tree id: just build
    bool build_cancelled = false;
    std::string reason = build_target(*suites, t, mctx, inputs, build_cancelled);
    if (build_cancelled) return cancelled();
    if (!reason.empty()) return failed(reason);
    for (const auto& s : *suites) {
      bool was_cancelled = false;
      model::SuiteOutcome declared = declare_suite(s, t, mctx, was_cancelled);
      if (was_cancelled) return cancelled();
      if (!declared.list_error.empty())
        daemon::log_warning("list command of suite '" + s.name + "' failed at " + short_sha(t.commit) + ": " +
                                declared.list_error,
                            {{"JOB_ID", id}, {"COMMIT", t.commit}});
      t.result.suites[s.name] = std::move(declared);
    }
  }

  // A sharded suite is measured by its shards, on whichever boxes claim
  // them: planned from what it declares here, queued, and not run here.
  if (auto st = hand_over_shards(job, ctx, *suites, targets); !st) return failed(st.error().message);

  // 4. Measure, interleaving base and head in a recorded random order.
  model::JobResult result;
  result.job_id = job.id;
  result.kind = model::to_string(spec.kind);
  std::random_device device;
  result.seed = static_cast<int64_t>((uint64_t(device()) << 32 | device()) >> 1);
  std::mt19937_64 rng(static_cast<uint64_t>(result.seed));
  for (const auto& s : *suites) {
    daemon::log_info("measuring suite '" + s.name + "'", {{"JOB_ID", id}});
    if (!measure_suite(s, targets, rng, mctx)) return cancelled();
  }

  if (spec.shard > 0)
    for (auto& t : targets) keep_shard_benchmarks(t.result, spec);

  // 5. The result file, written atomically: reporterd may read it as soon
  // as the job is done.
  result.head = std::move(targets.back().result);
  if (targets.size() == 2) result.base = std::move(targets.front().result);
  if (spec.kind == JobKind::compare) {
    // What a bisection of this pair chooses among, with what naming a
    // commit needs; a base off head's first-parent chain walks to the root,
    // hence the bound.
    auto commits = git::first_parent_commits(*repo, targets.back().commit, targets.front().commit, kMaxRange);
    if (!commits) return failed(commits.error().message);
    for (const auto& c : *commits) {
      model::RangeCommit rc{c, {}};
      if (auto meta = repo->commit_meta(c)) rc.info = {meta->time, meta->author, meta->subject, meta->first_parent_position};
      result.range.push_back(std::move(rc));
    }
  }
  if (auto st = make_dirs(results); !st) return failed(st.error().message);
  const std::string path = path_join(results, "result.json");
  if (auto st = write_file_atomic(path, model::to_json(result).dump(2) + "\n"); !st)
    return failed(st.error().message);
  // A job that measured nothing is a failed job, not a done one with an
  // empty table: say why, and keep the file for the post-mortem. A job where
  // only some benchmarks failed completes; the report shows those as failed.
  if (auto why = why_nothing_measured(result); !why.empty())
    return failed("no benchmark could be measured: " + why + " (details in " + path + ")");
  ExecOutcome o;
  o.state = ExecOutcome::State::done;
  o.result_path = path;
  return o;
}

}  // namespace bb::runnerd
