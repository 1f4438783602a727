// benchboxctl run [--suite S]... [--against REV] [OPTIONS]
// Runs a repository's suites on this machine the way the box runs a job,
// with runnerd's own measuring code (daemons/runnerd/measure.h): the
// commit's .benchbox.yml, each commit exported to a scratch tree and built
// there, warmup and rounds, each round every target once in a seeded random
// order, a crashed round retried once, pinned to the benchmark CPUs. With
// --against, base and head run interleaved in one job, as a pull request's
// do, and the report is the comparison engine's. What differs from the
// box, and is said where it matters: no containment (the commands run as
// you), no tuning, no build cache, all the network.
//
// Exit status: 0 nothing regressed, 1 a benchmark regressed, failed or is
// missing (or, alone, failed), 2 usage error or a run that could not be
// made (no repository, broken .benchbox.yml, failed build).
#include <sched.h>
#include <signal.h>
#include <stdlib.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>

#include "build_step.h"
#include "commands.h"
#include "compare/compare.h"
#include "config/suite.h"
#include "daemon/log.h"
#include "exec/pinned_runner.h"
#include "exec/suite_check.h"
#include "git/repository.h"
#include "local_summary.h"
#include "measure.h"
#include "util/clock.h"
#include "util/cpu_list.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::cli {

namespace {

constexpr const char* kRunUsage =
    "usage: benchboxctl run [--suite NAME]... [--against REV] [--commit REV] [--repo DIR]\n"
    "                       [--rounds N] [--cpus LIST] [--seed N] [--output FILE] [--keep]\n"
    "Runs .benchbox.yml's suites at --commit (default HEAD) as the box would: exported,\n"
    "built, measured in rounds pinned to --cpus (default: this process's last CPU).\n"
    "--against REV measures REV beside it, interleaved, and prints the comparison.\n"
    "--output FILE writes the job's result (for `benchboxctl compare FILE`).\n"
    "Exit 1 when a benchmark regressed, failed or is missing.";

struct Options {
  std::vector<std::string> suites;
  std::string against, commit = "HEAD", repo = ".", output;
  uint64_t rounds = 0;  // 0: the suite's own
  std::vector<int> cpus;
  std::optional<uint64_t> seed;
  bool keep = false;
};

std::atomic<bool> g_cancel{false};

extern "C" void on_interrupt(int) { g_cancel.store(true); }

Result<uint64_t> number_of(const std::string& flag, const std::string& text) {
  if (auto v = parse_whole_number(text)) return *v;
  return make_error(Errc::invalid_argument, flag + " wants a whole number, not '" + text + "'");
}

Result<Options> parse_options(const Args& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    auto value = [&]() -> const std::string& { return args[++i]; };
    if (a == "--keep") {
      o.keep = true;
    } else if (!has_value || a.rfind("--", 0) != 0) {
      return make_error(Errc::invalid_argument, "unexpected '" + a + "'");
    } else if (a == "--suite") {
      o.suites.push_back(value());
    } else if (a == "--against") {
      o.against = value();
    } else if (a == "--commit") {
      o.commit = value();
    } else if (a == "--repo") {
      o.repo = value();
    } else if (a == "--output") {
      o.output = value();
    } else if (a == "--rounds") {
      auto n = number_of(a, value());
      if (!n) return n.error();
      if (*n < 1) return make_error(Errc::invalid_argument, "--rounds must be at least 1");
      o.rounds = *n;
    } else if (a == "--seed") {
      auto n = number_of(a, value());
      if (!n) return n.error();
      o.seed = *n;
    } else if (a == "--cpus") {
      auto cpus = parse_cpu_list(value());
      if (!cpus) return cpus.error().with_context("--cpus");
      o.cpus = *cpus;
    } else {
      return make_error(Errc::invalid_argument, "unknown option '" + a + "'");
    }
  }
  return o;
}

// The last CPU this process may run on: where the integration tests and
// a quiet desktop keep their noise least.
Result<std::vector<int>> default_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return make_error(Errc::io, "sched_getaffinity failed");
  for (int cpu = CPU_SETSIZE - 1; cpu >= 0; --cpu)
    if (CPU_ISSET(cpu, &set)) return std::vector<int>{cpu};
  return make_error(Errc::io, "this process may run on no CPU");
}

Result<std::vector<config::Suite>> pick_suites(const config::SuiteConfig& cfg, const Options& o) {
  auto picked = config::select_suites(cfg, o.suites);
  if (!picked) return picked.error();
  std::vector<config::Suite> out = std::move(*picked);
  for (auto& s : out) {
    if (o.rounds == 0) continue;
    s.repetitions = o.rounds;
    if (s.sequential && s.sequential->max_repetitions < o.rounds) s.sequential->max_repetitions = o.rounds;
  }
  if (auto st = exec::check_suites(out); !st) return st.error();
  return out;
}

// The scratch directory of one run, removed at the end unless kept.
struct Scratch {
  std::string path;
  bool keep = false;
  ~Scratch() {
    if (path.empty()) return;
    if (keep) {
      std::cerr << "benchboxctl: trees, output.log and profiles kept in " << path << "\n";
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

Result<std::string> make_scratch() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/benchbox-run-XXXXXX";
  if (!::mkdtemp(templ.data())) return make_error(Errc::io, "cannot make a scratch directory in " + templ);
  return templ;
}

class LocalRun {
 public:
  LocalRun(const Options& o, const git::Repository& repo) : o_(o), repo_(repo) {}
  int go();

 private:
  Status prepare_targets();
  void fill_header(runnerd::Target& t, const std::string& text, const std::vector<config::Suite>& suites,
                   const model::Environment& env);
  int report(model::JobResult& result);

  const Options& o_;
  const git::Repository& repo_;
  std::vector<runnerd::Target> targets_;
  std::vector<int> cpus_;
  Scratch scratch_;
};

Status LocalRun::prepare_targets() {
  if (!o_.against.empty()) {
    auto base = repo_.resolve(o_.against);
    if (!base) return base.error().with_context("--against " + o_.against);
    targets_.push_back({"base", *base, "", {}});
  }
  auto head = repo_.resolve(o_.commit);
  if (!head) return head.error().with_context(o_.commit);
  targets_.push_back({o_.against.empty() ? "" : "head", *head, "", {}});
  return {};
}

void LocalRun::fill_header(runnerd::Target& t, const std::string& text, const std::vector<config::Suite>& suites,
                           const model::Environment& env) {
  auto& rs = t.result;
  rs.repository = "local/" + std::filesystem::absolute(o_.repo).lexically_normal().filename().string();
  if (rs.repository == "local/") rs.repository = "local/repository";
  rs.commit = t.commit;
  if (auto meta = repo_.commit_meta(t.commit))
    rs.commit_info = {meta->time, meta->author, meta->subject, meta->first_parent_position};
  rs.role = t.role;
  rs.config_sha256 = sha256_hex(text);
  rs.config_text = text;
  rs.environment_key = env.key();
  rs.environment = env.to_json();
  rs.isolation = "affinity:" + format_cpu_list(cpus_);
  rs.containment = "none: benchboxctl run, as " + local_user();
  rs.cpus = cpus_;
  rs.created = SystemClock().now_unix();
  for (const auto& s : suites)
    if (!s.thresholds.empty()) rs.thresholds[s.name] = s.thresholds;
}

int LocalRun::go() {
  if (auto st = prepare_targets(); !st) return fail(st.error().message);
  const std::string& head = targets_.back().commit;
  auto text = repo_.read_file(head, config::kSuiteFileName);
  if (!text) return fail(text.error().message);
  auto cfg = config::parse_suite_config(*text, std::string(config::kSuiteFileName) + " at " + short_sha(head));
  if (!cfg) return fail(cfg.error().message);
  auto suites = pick_suites(*cfg, o_);
  if (!suites) return fail(suites.error().message);
  if (suites->empty()) return fail(".benchbox.yml at " + short_sha(head) + " has no suites");
  if (o_.cpus.empty()) {
    auto cpus = default_cpus();
    if (!cpus) return fail(cpus.error().message);
    cpus_ = *cpus;
  } else {
    cpus_ = o_.cpus;
  }

  auto dir = make_scratch();
  if (!dir) return fail(dir.error().message);
  scratch_.path = *dir;
  scratch_.keep = o_.keep;
  for (auto& t : targets_) {
    t.tree_dir = path_join(scratch_.path, t.role.empty() ? "run" : t.role);
    if (auto st = repo_.export_tree(t.commit, t.tree_dir); !st) return fail(st.error().message);
    std::cerr << "benchboxctl: " << (t.role.empty() ? "commit" : t.role) << " " << short_sha(t.commit) << "\n";
  }

  exec::PinnedChildRunner runner;
  runnerd::OutputLog output_log(path_join(scratch_.path, "output.log"));
  runnerd::MeasureContext ctx;
  ctx.cpus = cpus_;
  ctx.runner = &runner;
  ctx.cancel = &g_cancel;
  ctx.profiles_dir = path_join(scratch_.path, "profiles");
  ctx.job_dir = scratch_.path;
  ctx.output_log = &output_log;

  bool cancelled = false;
  model::Environment env =
      runnerd::describe_environment(runner.describe(), "local", *suites, targets_.back(), ctx, cancelled);
  if (cancelled) return fail("interrupted");
  for (auto& t : targets_) fill_header(t, *text, *suites, env);
  for (auto& t : targets_) {
    const std::string why = runnerd::build_target(*suites, t, ctx, {nullptr, "", env.key()}, cancelled);
    if (cancelled) return fail("interrupted");
    if (!why.empty()) {
      scratch_.keep = true;
      return fail(why);
    }
    for (const auto& s : *suites) {
      t.result.suites[s.name] = runnerd::declare_suite(s, t, ctx, cancelled);
      if (cancelled) return fail("interrupted");
    }
  }

  model::JobResult result;
  result.kind = "local";
  std::random_device device;
  result.seed = static_cast<int64_t>(o_.seed ? *o_.seed : ((uint64_t(device()) << 32 | device()) >> 1));
  std::cerr << "benchboxctl: seed " << result.seed << " (--seed to repeat the order), CPUs "
            << format_cpu_list(cpus_) << "\n";
  std::mt19937_64 rng(static_cast<uint64_t>(result.seed));
  for (const auto& s : *suites)
    if (!runnerd::measure_suite(s, targets_, rng, ctx)) return fail("interrupted");
  result.head = std::move(targets_.back().result);
  if (targets_.size() == 2) result.base = std::move(targets_.front().result);
  return report(result);
}

int LocalRun::report(model::JobResult& result) {
  if (!o_.output.empty()) {
    if (auto st = write_file_atomic(o_.output, model::to_json(result).dump(2) + "\n"); !st)
      return fail(st.error().message);
    std::cerr << "benchboxctl: result written to " << o_.output << "\n";
  }
  int status = 0;
  if (result.base) {
    compare::Options options;
    options.seed = static_cast<uint64_t>(result.seed);
    const compare::Comparison c = compare::compare(*result.base, result.head, options);
    std::cout << compare::render_markdown(c);
    status = compare::any_problem(c) ? 1 : 0;
  } else {
    std::cout << render_local_summary(result.head);
    status = local_summary_failed(result.head) ? 1 : 0;
  }
  if (status != 0) scratch_.keep = true;  // the output log says why
  return status;
}

}  // namespace

int cmd_run(const Args& args) {
  auto options = parse_options(args);
  if (!options) return fail(options.error().message + "\n" + kRunUsage);
  auto repo = git::Repository::open_any(options->repo);
  if (!repo)
    return fail(options->repo + ": " + repo.error().message +
                " (run it at the top of a git clone, or give --repo DIR)");
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  // runnerd's measuring code logs one line per command; without a journal
  // that is a line on stderr, the run's progress.
  ::setenv("BENCHBOX_LOG", "stderr", 1);
  daemon::log_init("benchboxctl run");
  LocalRun run(*options, *repo);
  return run.go();
}

}  // namespace bb::cli
