// benchboxctl backfill: historical commits of a repository as one group of
// low-priority jobs, so trends start before the box did.
//
// The commits are picked here, from a fresh fetch into a temporary
// repository (or the operator's own clone, --git-dir), not by runnerd:
// runnerd's cache is its own, and picking is a read that should not wait
// behind a running benchmark. Each job then runs like a push (a tag for
// --tags), placed on the trend by its first-parent position, whatever
// order it runs in. A commit without a .benchbox.yml has nothing to measure:
// it is left out here, not queued to fail. --dry-run asks the queue what it
// would do with the rest (Queue1.PlanGroup) and lists every commit.
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "bus/enqueue_group.h"
#include "bus/names.h"
#include "bus_client.h"
#include "commands.h"
#include "config/suite.h"
#include "git_source.h"
#include "git/repository.h"
#include "git/select.h"
#include "model/job.h"
#include "model/job_group.h"
#include "util/text.h"

namespace bb::cli {

namespace {

const char* kBackfillUsage =
    "usage: benchboxctl backfill OWNER/NAME (--tags GLOB | --range A..B | --first-parent) [--every N]\n"
    "         [--branch NAME] [--clone-url URL] [--git-dir PATH] [--suite NAME] [--priority N]\n"
    "         [--max-jobs N] [--again] [--dry-run]";

struct Options {
  std::string repository, tags, range, branch = "main", clone_url, git_dir, suite;
  bool first_parent = false, again = false, dry_run = false;
  size_t every = 1, max_jobs = 500;
  int64_t priority = -10;
};

bool parse_count(const std::string& s, size_t& out) {
  auto v = parse_whole_number(s);
  if (!v || *v < 1) return false;
  out = static_cast<size_t>(*v);
  return true;
}

// The jobs to enqueue, oldest first.
Result<std::vector<model::JobSpec>> plan(const Options& o, const git::Repository& repo) {
  model::JobSpec base;
  base.kind = model::JobKind::push;
  base.repository = o.repository;
  base.clone_url = o.clone_url;
  base.suite = o.suite;
  base.priority = o.priority;
  base.requested_by = local_user();
  std::vector<model::JobSpec> specs;
  if (!o.tags.empty()) {
    auto tags = git::tags_matching(repo, o.tags);
    if (!tags) return tags.error();
    for (const auto& t : *tags) {
      model::JobSpec s = base;
      s.kind = model::JobKind::tag;  // the release series (docs/dashboard.md)
      s.ref = "refs/tags/" + t.tag;
      s.head_sha = t.commit;
      specs.push_back(std::move(s));
    }
    return specs;
  }
  std::string tip = "refs/heads/" + o.branch, since;
  if (!o.range.empty()) {
    const size_t dots = o.range.find("..");
    if (dots == std::string::npos || o.range.find("...") != std::string::npos || dots + 2 == o.range.size())
      return make_error(Errc::invalid_argument, "--range wants A..B, got '" + o.range + "'");
    since = o.range.substr(0, dots);
    tip = o.range.substr(dots + 2);
  }
  // One more than allowed, so "too many" can be told from "exactly enough".
  auto commits = git::first_parent_commits(repo, tip, since, o.every * (o.max_jobs + 1));
  if (!commits) return commits.error();
  for (const auto& sha : git::every_nth(*commits, o.every)) {
    model::JobSpec s = base;
    s.ref = "refs/heads/" + o.branch;
    s.head_sha = sha;
    specs.push_back(std::move(s));
  }
  return specs;
}

// Commits without a .benchbox.yml: runnerd would fail their jobs, so they
// are not queued. Returns the specs that have one; `skipped` gets the rest.
Result<std::vector<model::JobSpec>> with_suite_file(const git::Repository& repo, std::vector<model::JobSpec> specs,
                                                    std::vector<model::JobSpec>& skipped) {
  std::vector<model::JobSpec> out;
  for (auto& s : specs) {
    auto file = repo.read_file(s.head_sha, config::kSuiteFileName);
    if (file) out.push_back(std::move(s));
    else if (file.error().code == Errc::not_found) skipped.push_back(std::move(s));
    else return file.error().with_context(short_sha(s.head_sha));
  }
  return out;
}

// One line per commit, oldest first, with what a backfill would do to it.
int print_plan(const std::vector<model::JobSpec>& all, const std::vector<model::JobSpec>& skipped,
               const std::vector<model::JobSpec>& measured, const bus::GroupPlanned& plan) {
  std::map<std::string, std::string> fate;
  size_t fresh = 0, done = 0, waiting = 0;
  for (const auto& s : skipped) fate[s.head_sha + s.ref] = "skipped: no " + std::string(config::kSuiteFileName);
  for (size_t i = 0; i < measured.size() && i < plan.jobs.size(); ++i) {
    const auto& j = plan.jobs[i];
    const std::string job = "job " + std::to_string(j.id);
    std::string what;
    if (j.state == "new") what = "measure", ++fresh;
    else if (j.state == "done") what = "already measured (" + job + ")", ++done;
    else what = "waiting (" + job + ", " + j.state + ")", ++waiting;
    fate[measured[i].head_sha + measured[i].ref] = what;
  }
  for (const auto& s : all)
    std::printf("%s  %-24s %s\n", short_sha(s.head_sha).c_str(), s.ref.c_str(), fate[s.head_sha + s.ref].c_str());
  std::printf("%zu commits: %zu to measure, %zu already measured, %zu waiting, %zu without %s (dry run: nothing queued)\n",
              all.size(), fresh, done, waiting, skipped.size(), config::kSuiteFileName);
  return 0;
}

}  // namespace

int cmd_backfill(const Args& args) {
  if (args.empty() || args[0].rfind("--", 0) == 0) return fail(kBackfillUsage);
  Options o;
  o.repository = args[0];
  int modes = 0;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& k = args[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= args.size()) return false;
      out = args[++i];
      return true;
    };
    std::string v;
    if (k == "--first-parent") o.first_parent = true, ++modes;
    else if (k == "--again") o.again = true;
    else if (k == "--dry-run") o.dry_run = true;
    else if (k == "--tags" && value(o.tags)) ++modes;
    else if (k == "--range" && value(o.range)) ++modes;
    else if (k == "--branch" && value(o.branch)) {}
    else if (k == "--clone-url" && value(o.clone_url)) {}
    else if (k == "--git-dir" && value(o.git_dir)) {}
    else if (k == "--suite" && value(o.suite)) {}
    else if (k == "--every" && value(v) && parse_count(v, o.every)) {}
    else if (k == "--max-jobs" && value(v) && parse_count(v, o.max_jobs)) {}
    else if (k == "--priority" && value(v)) {
      try {
        o.priority = std::stoll(v);
      } catch (...) {
        return fail("--priority wants an integer, got '" + v + "'");
      }
    } else return fail(std::string(kBackfillUsage) + "\n(at '" + k + "')");
  }
  if (modes != 1) return fail("backfill takes exactly one of --tags, --range and --first-parent\n" + std::string(kBackfillUsage));
  if (!o.tags.empty() && o.every > 1) return fail("--every goes with --range or --first-parent, not --tags");
  if (o.repository.find('/') == std::string::npos) return fail("the repository is OWNER/NAME, got '" + o.repository + "'");

  auto client = BusClient::connect();
  if (!client) return fail(client.error().message);
  if (o.clone_url.empty()) {
    auto url = known_clone_url(*client, o.repository);
    if (!url) return fail(url.error().message);
    o.clone_url = *url;
  }

  auto source = GitSource::open(o.clone_url, o.git_dir);
  if (!source) return fail(source.error().message);
  const git::Repository* repo = &(*source)->repo();

  auto specs = plan(o, *repo);
  if (!specs) return fail(specs.error().message);
  if (specs->empty()) return fail("no commit matches: nothing to backfill");
  if (specs->size() > o.max_jobs)
    return fail("more than --max-jobs " + std::to_string(o.max_jobs) + " commits selected; use --every N, a "
                "narrower --range, or raise --max-jobs");
  std::vector<model::JobSpec> skipped;
  auto measured = with_suite_file(*repo, *specs, skipped);
  if (!measured) return fail(measured.error().message);

  model::GroupSpec group;
  group.kind = model::GroupKind::backfill;
  group.repository = o.repository;
  group.requested_by = local_user();
  group.skip_measured = !o.again;
  group.description = "backfill " + (!o.tags.empty() ? "--tags " + o.tags
                                     : !o.range.empty() ? "--range " + o.range
                                                        : "--first-parent " + o.branch);
  if (o.every > 1) group.description += " --every " + std::to_string(o.every);
  group.description = utf8_cut(group.description, 200, "");

  std::vector<nlohmann::json> jobs;
  for (const auto& s : *measured) jobs.push_back(model::to_json(s));
  if (o.dry_run) {
    bus::GroupPlanned plan;
    if (!jobs.empty()) {
      auto planned = bus::plan_group(client->get(), model::to_json(group), jobs);
      if (!planned) return fail(planned.error().message);
      plan = std::move(*planned);
    }
    return print_plan(*specs, skipped, *measured, plan);
  }
  if (!skipped.empty())
    std::printf("skipped %zu of %zu commits: no %s in them\n", skipped.size(), specs->size(), config::kSuiteFileName);
  if (measured->empty()) return fail(std::string("no selected commit has a ") + config::kSuiteFileName + ": nothing to backfill");
  auto call = bus::new_enqueue_group(client->get(), model::to_json(group), jobs);
  if (!call) return fail(call.error().message);
  auto reply = client->call(call->get());
  if (!reply) return fail(reply.error().message);
  auto queued = bus::read_group_enqueued(reply->get());
  if (!queued) return fail(queued.error().message);
  const int64_t group_id = queued->group_id;
  size_t created = 0, existing = 0;
  for (const auto& j : queued->jobs) j.created ? ++created : ++existing;
  if (group_id == 0) {
    std::printf("nothing queued: all %zu commits are measured or waiting already (--again measures them anew)\n",
                measured->size());
    return 0;
  }
  std::printf("group %lld: %zu jobs queued, %zu already measured or waiting (of %zu commits)\n",
              static_cast<long long>(group_id), created, existing, measured->size());
  std::printf("follow: benchboxctl jobs group %lld    stop: benchboxctl cancel --group %lld\n",
              static_cast<long long>(group_id), static_cast<long long>(group_id));
  return 0;
}

}  // namespace bb::cli
