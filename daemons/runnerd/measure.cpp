#include "measure.h"

#include "containment.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>

#include <nlohmann/json.hpp>

#include "command_log.h"
#include "daemon/log.h"
#include "formats/callgrind.h"
#include "formats/formats.h"
#include "sequential_rounds.h"
#include "util/clock.h"
#include "util/cpu_list.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::runnerd {

namespace {

// Harness output read from stdout is parsed from memory; beyond this the
// result would be truncated, so the round fails instead.
constexpr size_t kMaxHarnessStdout = size_t(64) << 20;
constexpr size_t kMaxListing = size_t(16) << 20;

struct SuiteProgress {
  std::map<model::BenchmarkKey, model::Benchmark> benchmarks;
  std::vector<model::BenchmarkKey> order;  // first-seen order, for stable output
  bool failed = false;
  std::string reason;
  int64_t failed_round = -1;
  std::string stderr_tail;
  // The failure may not repeat (a stray kill, a lost race): a round that
  // fails after others succeeded is run once more (measure_suite).
  bool transient = false;
  uint64_t rounds_ok = 0;                // rounds of this target that succeeded, warmup included
  nlohmann::json retried = nlohmann::json::array();  // {round, reason} of each round run again
  std::string callgrind_dir;  // the newest measured round's profiles

  model::Benchmark& get(const model::Benchmark& like) {
    auto it = benchmarks.find(like.key);
    if (it != benchmarks.end()) return it->second;
    order.push_back(like.key);
    model::Benchmark fresh = like;
    fresh.samples.clear();
    fresh.rounds.clear();
    fresh.iterations.clear();
    // A harness's summary describes one round; with samples kept the
    // engine computes its own over all rounds.
    if (!fresh.summary_only) fresh.summary.clear();
    return benchmarks.emplace(like.key, std::move(fresh)).first->second;
  }
};


CommandLabel label_of(const config::Suite& suite, const Target& t, const MeasureContext& ctx, const std::string& round,
                      const char* what) {
  return {std::to_string(ctx.job_id), suite.name, t.role.empty() ? "run" : t.role, t.commit, round, what};
}

// Runs it, and gives the journal its one entry (command_log.h).
Result<exec::Outcome> run_logged(const MeasureContext& ctx, const exec::Command& c, const CommandLabel& label,
                                 const Tail& tail) {
  auto outcome = ctx.runner->run(c, ctx.cancel);
  log_command(label, outcome, tail, ctx.output_log);
  return outcome;
}

exec::Command make_command(const config::Suite& suite, const Target& t, const MeasureContext& ctx,
                           const std::string& shell, Tail& tail, const CommandLabel& label) {
  const std::string& round = label.round;
  exec::Command c;
  c.shell = shell;
  c.cwd = t.tree_dir;
  c.env = suite.env;
  c.env["BENCHBOX_JOB_ID"] = std::to_string(ctx.job_id);
  c.env["BENCHBOX_SUITE"] = suite.name;
  c.env["BENCHBOX_COMMIT"] = t.commit;
  c.env["BENCHBOX_ROLE"] = t.role.empty() ? "run" : t.role;
  c.env["BENCHBOX_WORK_TREE"] = t.tree_dir;
  if (!round.empty()) c.env["BENCHBOX_ROUND"] = round;
  if (!suite.output.empty()) c.env["BENCHBOX_OUTPUT"] = path_join(t.tree_dir, suite.output);
  c.network = ctx.network;
  c.limits = ctx.limits;
  c.writable_dir = ctx.job_dir;
  if (ctx.identity || ctx.job_group) {
    c.identity = ctx.identity;
    // runnerd's HOME and the shared /tmp are not the job's to write.
    c.env["HOME"] = path_join(ctx.job_dir, "home");
    c.env["TMPDIR"] = path_join(ctx.job_dir, "tmp");
  }
  c.timeout = std::chrono::seconds(suite.timeout_seconds);
  // Scope names must be unique while a scope lingers: job id plus a
  // process-wide command counter.
  static std::atomic<uint64_t> commands{0};
  c.unit_name = "benchbox-job-" + std::to_string(ctx.job_id) + "-" + std::to_string(++commands) + ".scope";
  c.log_fields = {{"JOB_ID", std::to_string(ctx.job_id)}};
  // Every line goes to the job's output log, none to the journal: it gets
  // one entry per command (run_logged).
  c.on_line = [&tail, log = ctx.output_log, prefix = label.prefix()](std::string_view line, bool is_stderr) {
    tail.add(line);
    if (log) log->line(prefix, line, is_stderr);
  };
  return c;
}

void mark_failed(SuiteProgress& p, const std::string& reason, int64_t round, const std::string& tail,
                 bool transient = false) {
  p.failed = true;
  p.reason = reason;
  p.failed_round = round;
  p.stderr_tail = tail;
  p.transient = transient;
}

// The harness itself failed (an exit status, a signal, a timeout, output it
// could not write whole): that may not happen again. A bound the job hit,
// a command that could not start or a tree it could not prepare would.
bool may_not_repeat(const exec::Outcome& o) { return o.limit_hit.empty() && !o.cancelled; }

// One round of one target. Returns false when the job was cancelled.
bool run_round(const config::Suite& suite, Target& t, SuiteProgress& p, uint64_t r,
               const MeasureContext& ctx) {
  const bool measured = r >= suite.warmup;
  const int64_t round = static_cast<int64_t>(r) - static_cast<int64_t>(suite.warmup);
  const bool is_command = suite.format == config::kCommandFormat;
  std::string output_path = suite.output.empty() ? "" : path_join(t.tree_dir, suite.output);
  // A file left by the previous round must not be parsed as this round's,
  // and the harness only has to write the file, not make its directory.
  // With a job identity both are done as the job (prepare_output), so a
  // symlink it left in its tree cannot make runnerd remove or create
  // anything outside it.
  if (!output_path.empty())
    if (auto st = prepare_output(t.tree_dir, suite.output, ctx.identity, ctx.job_group); !st) {
      mark_failed(p, st.error().message, round, "");
      return true;
    }

  Tail tail;
  // BENCHBOX_ROUND counts every round from 0, warmup included; the rounds
  // recorded with the samples count measured rounds only.
  const CommandLabel label = label_of(suite, t, ctx, std::to_string(r), "run");
  exec::Command c = make_command(suite, t, ctx, suite.run, tail, label);
  c.env["BENCHBOX_WARMUP"] = measured ? "0" : "1";
  c.cpus = ctx.cpus;
  if (is_command) c.counters = suite.counters;
  const std::string callgrind_dir = t.tree_dir + ".callgrind/" + std::to_string(r);
  if (suite.callgrind) {
    std::error_code ec;
    std::filesystem::remove_all(callgrind_dir, ec);
    Status made = make_dirs(callgrind_dir);
    // Outside the tree, made by runnerd: valgrind runs as the job and writes here.
    if (made && ctx.identity) made = exec::hand_over(callgrind_dir, *ctx.identity);
    if (made && ctx.job_group) made = exec::share_with_group(t.tree_dir + ".callgrind", *ctx.job_group);
    if (!made) {
      mark_failed(p, made.error().message, round, "");
      return true;
    }
    c.shell = callgrind_command(suite.run, callgrind_dir);
    c.no_aslr = true;
  }
  if (!is_command && output_path.empty()) {
    c.max_output_bytes = kMaxHarnessStdout;
    c.stdout_padding = formats::kTextPadding;  // parsed in place below
  }
  auto outcome = run_logged(ctx, c, label, tail);
  if (!outcome) {
    mark_failed(p, "could not start: " + outcome.error().message, round, "");
    return true;
  }
  if (outcome->cancelled) return false;
  if (!outcome->success()) {
    mark_failed(p, outcome->describe(), round, tail.text(), may_not_repeat(*outcome));
    return true;
  }
  if (auto st = check_work_tree(ctx.job_dir, ctx.work_tree_max_bytes); !st) {
    mark_failed(p, "stopped by a per-job bound: " + st.error().message, round, "");
    return true;
  }

  if (suite.callgrind) {
    if (!measured) return true;
    auto totals = callgrind_totals(callgrind_dir);
    if (!totals) {
      mark_failed(p, totals.error().message, round, tail.text());
      return true;
    }
    p.callgrind_dir = callgrind_dir;
    model::Benchmark proto;
    proto.key = {suite.name, suite.name, {}, ""};
    proto.unit = "count";
    for (const auto& [event, count] : *totals) {
      proto.key.metric = formats::callgrind_metric(event);
      if (proto.key.metric.empty()) continue;
      auto& b = p.get(proto);
      b.samples.push_back(count);
      b.rounds.push_back(round);
      b.extra["callgrind_event"] = event;
    }
    return true;
  }
  if (is_command) {
    if (!measured) return true;
    // Everything the runner measures from outside the process, each a raw
    // sample per round; the suite's `metrics:` says which are judged.
    const std::pair<const char*, double> times[] = {
        {"wall_time", outcome->wall_seconds},
        {"cpu_time", outcome->user_seconds + outcome->system_seconds},
        {"user_time", outcome->user_seconds},
        {"system_time", outcome->system_seconds}};
    const std::pair<const char*, double> counts[] = {
        {"voluntary_switches", double(outcome->voluntary_switches)},
        {"involuntary_switches", double(outcome->involuntary_switches)}};
    const size_t count_metrics = outcome->switches_measured ? 2 : 0;
    model::Benchmark proto;
    proto.key = {suite.name, suite.name, {}, ""};
    auto add = [&](const char* metric, const char* unit, double value) -> model::Benchmark& {
      proto.key.metric = metric;
      proto.unit = unit;
      auto& b = p.get(proto);
      b.samples.push_back(value);
      b.rounds.push_back(round);
      return b;
    };
    for (const auto& [metric, v] : times) add(metric, "s", v);
    for (size_t i = 0; i < count_metrics; ++i) add(counts[i].first, "count", counts[i].second);
    if (!outcome->switches_measured)
      for (const auto& [metric, v] : counts) {
        // Recorded once, with why: never silently absent.
        proto.key.metric = metric;
        proto.unit = "count";
        auto& b = p.get(proto);
        if (b.samples.empty()) {
          b.status = model::BenchmarkStatus::skipped;
          b.reason = "unavailable: " + outcome->switches_unavailable;
        }
      }
    if (outcome->peak_memory_bytes > 0) {
      auto& mem = add("peak_memory", "bytes", double(outcome->peak_memory_bytes));
      mem.extra["memory_source"] = outcome->memory_source;
    }
    for (const auto& r : outcome->counters) {
      const std::string metric = config::counter_metric(r.name);
      const bool clock = r.name == "task-clock";  // nanoseconds: kept in seconds like every time
      proto.key.metric = metric;
      proto.unit = clock ? "s" : "count";
      auto& b = p.get(proto);
      if (r.available && b.status == model::BenchmarkStatus::ok) {
        b.samples.push_back(clock ? r.value * 1e-9 : r.value);
        b.rounds.push_back(round);
      } else if (!r.available && b.samples.empty()) {
        // Recorded once, with why: never silently absent.
        b.status = model::BenchmarkStatus::skipped;
        b.reason = "unavailable: " + r.unavailable;
      } else if (!r.available) {
        auto& n = b.extra["rounds_unavailable"];  // null the first time
        n = n.is_number_unsigned() ? n.get<uint64_t>() + 1 : 1;
      }
    }
    return true;
  }

  formats::ParseOptions opts;
  opts.suite = suite.name;
  opts.allow_empty = suite.allow_empty;
  Result<std::vector<model::Benchmark>> parsed = make_error(Errc::internal, "not parsed");
  if (output_path.empty()) {
    if (outcome->dropped_bytes > 0) {
      mark_failed(p, "harness output on stdout is larger than " + std::to_string(kMaxHarnessStdout) + " bytes",
                  round, "");
      return true;
    }
    opts.text_padded = formats::has_text_padding(outcome->stdout_text);
    parsed = formats::parse_text(suite.format, outcome->stdout_text, suite.name + " stdout", opts);
  } else {
    // The job's processes are gone (the runner killed every one of its
    // identity), so the file checked here is the file read.
    auto real = exec::inside(t.tree_dir, output_path);
    if (real) parsed = formats::parse_path(suite.format, *real, opts);
    else if (real.error().code == Errc::not_found) parsed = formats::parse_path(suite.format, output_path, opts);
    else parsed = make_error(Errc::permission_denied, "the harness output " + suite.output + ": " + real.error().message);
  }
  if (!parsed) {
    // Output the harness did not write whole (killed while writing it).
    mark_failed(p, parsed.error().message, round, tail.text(), true);
    return true;
  }
  if (!measured) return true;
  for (const auto& b : *parsed) {
    auto& acc = p.get(b);
    acc.samples.insert(acc.samples.end(), b.samples.begin(), b.samples.end());
    acc.rounds.insert(acc.rounds.end(), b.samples.size(), round);
    if (!b.iterations.empty()) acc.iterations.insert(acc.iterations.end(), b.iterations.begin(), b.iterations.end());
    if (b.summary_only) {
      acc.summary_only = true;
      acc.summary = b.summary;
    }
    if (b.status != model::BenchmarkStatus::ok) {
      acc.status = b.status;
      acc.reason = b.reason;
    }
  }
  return true;
}

// Runs round r; a round that fails after others of this target succeeded,
// in a way that may not repeat, is run once more. A failure that repeats
// fails the target's suite, with both reasons. Returns false when cancelled.
bool run_round_or_retry(const config::Suite& suite, Target& t, SuiteProgress& p, uint64_t r,
                        const MeasureContext& ctx) {
  if (!run_round(suite, t, p, r, ctx)) return false;
  if (!p.failed) {
    ++p.rounds_ok;
    return true;
  }
  if (!p.transient || p.rounds_ok == 0) return true;
  const std::string first = p.reason;
  daemon::log_warning("suite '" + suite.name + "' round " + std::to_string(r) + " failed on " + short_sha(t.commit) +
                          " after " + std::to_string(p.rounds_ok) + " good rounds: " + first + "; running it once more",
                      {{"JOB_ID", std::to_string(ctx.job_id)}, {"COMMIT", t.commit}});
  p.retried.push_back({{"round", p.failed_round}, {"reason", first}});
  p.failed = false;
  p.reason.clear();
  p.stderr_tail.clear();
  if (!run_round(suite, t, p, r, ctx)) return false;
  if (!p.failed) {
    ++p.rounds_ok;
    return true;
  }
  p.reason = p.reason == first ? p.reason + " (twice: the round was run again and failed the same way)"
                               : p.reason + " (the round had failed once already: " + first + ")";
  return true;
}

void finish(const config::Suite& suite, Target& t, SuiteProgress& p, const SequentialRounds* sequential,
            const MeasureContext& ctx) {
  // The last measured round's profiles are kept with the result, once, for
  // the report's differential profile and for callgrind_annotate/KCachegrind.
  if (!p.callgrind_dir.empty()) {
    auto kept = keep_profiles(p.callgrind_dir, path_join(path_join(ctx.profiles_dir, t.role.empty() ? "run" : t.role),
                                                           suite.name));
    if (!kept)
      daemon::log_warning("callgrind profiles not kept: " + kept.error().message,
                          {{"JOB_ID", std::to_string(ctx.job_id)}});
    else if (auto it = p.benchmarks.find({suite.name, suite.name, {}, "instructions"}); it != p.benchmarks.end())
      it->second.extra["profiles"] = *kept;
  }
  if (p.failed && p.order.empty()) {
    // Nothing was measured; the suite still shows up, failed, so it can
    // never be mistaken for a suite that has no benchmarks.
    // Under a metric the suite shows, or its tables would hide it.
    const auto shown = config::shown_metrics(suite);
    model::Benchmark placeholder;
    placeholder.key = {suite.name, suite.name, {}, shown.empty() ? "wall_time" : shown.front()};
    if (suite.callgrind) placeholder.unit = "count";
    p.get(placeholder);
  }
  model::SuiteOutcome& outcome = t.result.suites[suite.name];
  if (p.failed) {
    outcome.status = model::BenchmarkStatus::failed;
    outcome.reason = p.reason;
  }
  for (const auto& key : p.order) {
    model::Benchmark b = std::move(p.benchmarks.at(key));
    // Interrupted runs leave ragged iterations; keep them only if complete.
    if (b.iterations.size() != b.samples.size()) b.iterations.clear();
    if (p.failed) {
      b.status = model::BenchmarkStatus::failed;
      b.reason = p.reason;
      b.extra["failed_round"] = p.failed_round;
      if (!p.stderr_tail.empty()) b.extra["output_tail"] = p.stderr_tail;
    }
    if (!p.retried.empty()) b.extra["retried_rounds"] = p.retried;
    if (sequential) b.extra["sequential"] = sequential->record(b.key);
    t.result.benchmarks.push_back(std::move(b));
  }
}

// valgrind writes callgrind.out.* as the job; runnerd reads and copies them
// as itself. A symlink the job put there instead (to a file only root may
// read) is skipped, not followed.
bool own_regular_file(const std::filesystem::directory_entry& e) {
  std::error_code ec;
  return e.symlink_status(ec).type() == std::filesystem::file_type::regular && !ec;
}

}  // namespace

std::string callgrind_command(const std::string& run, const std::string& out_dir) {
  // A fixed cache model (not the host's), so counts do not depend on the
  // box; every child traced, one output file per process. valgrind writes
  // its files 0600: as the contained job's user they are then unreadable
  // to runnerd, which shares only the group, so the shell (not traced, not
  // counted) opens them to the group once valgrind is done.
  return "valgrind --tool=callgrind --quiet --trace-children=yes --cache-sim=yes --branch-sim=yes"
         " --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 --callgrind-out-file=" +
         shell_quote(out_dir + "/callgrind.out.%p") + " /bin/sh -c " + shell_quote(run) +
         "; s=$?; chmod g+r " + shell_quote(out_dir) + "/callgrind.out.* 2>/dev/null; exit $s";
}

Result<std::vector<std::string>> keep_profiles(const std::string& out_dir, const std::string& keep_dir) {
  std::error_code ec;
  std::filesystem::remove_all(keep_dir, ec);
  if (auto st = make_dirs(keep_dir); !st) return st.error();
  std::vector<std::string> kept;
  for (auto it = std::filesystem::directory_iterator(out_dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("callgrind.out.", 0) != 0 || !own_regular_file(*it)) continue;
    const std::string to = path_join(keep_dir, name);
    std::filesystem::copy_file(it->path(), to, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) return make_error(Errc::io, "copy " + it->path().string() + " to " + to + ": " + ec.message());
    kept.push_back(to);
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

Result<std::map<std::string, double>> callgrind_totals(const std::string& out_dir) {
  std::map<std::string, double> sum;
  size_t files = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(out_dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    if (it->path().filename().string().rfind("callgrind.out.", 0) != 0 || !own_regular_file(*it)) continue;
    auto text = read_file(it->path().string(), size_t(1) << 30);
    if (!text) return text.error();
    auto t = formats::parse_callgrind_totals(*text, it->path().filename().string());
    if (!t) return t.error();
    for (const auto& [event, n] : *t) sum[event] += n;
    ++files;
  }
  if (files == 0)
    return make_error(Errc::not_found, "callgrind wrote no output (is valgrind installed? see the output above)");
  return sum;
}

bool measure_suite(const config::Suite& suite, std::vector<Target>& targets, std::mt19937_64& rng,
                   const MeasureContext& ctx) {
  std::vector<SuiteProgress> progress(targets.size());
  // Sequential sampling needs a base to compare with: pull requests only
  // (targets are base, head). Everything else runs `repetitions` rounds.
  std::optional<SequentialRounds> sequential;
  if (suite.sequential && targets.size() == 2 && targets[0].role == "base") sequential.emplace(suite);
  const uint64_t measured = sequential ? suite.sequential->max_repetitions : suite.repetitions;
  const uint64_t rounds = suite.warmup + measured;
  SystemClock clock;
  const uint64_t started = clock.now_monotonic_usec();
  for (uint64_t r = 0; r < rounds; ++r) {
    std::vector<size_t> order(targets.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i : order) {
      if (progress[i].failed) continue;
      if (ctx.cancel && ctx.cancel->load()) return false;
      if (!run_round_or_retry(suite, targets[i], progress[i], r, ctx)) return false;
      if (progress[i].failed)
        daemon::log_warning("suite '" + suite.name + "' failed on " + short_sha(targets[i].commit) + ": " +
                                progress[i].reason,
                            {{"JOB_ID", std::to_string(ctx.job_id)}, {"COMMIT", targets[i].commit}});
    }
    // `repetitions` is the minimum; from there on, ask after every round.
    const uint64_t done = r + 1 > suite.warmup ? r + 1 - suite.warmup : 0;
    if (!sequential || done < suite.repetitions) continue;
    const uint64_t max_seconds = suite.sequential->max_seconds;
    const bool out_of_time = max_seconds && clock.now_monotonic_usec() - started >= max_seconds * 1000000;
    if (sequential->after_round({progress[0].benchmarks, progress[0].failed},
                                {progress[1].benchmarks, progress[1].failed}, done, out_of_time)) {
      daemon::log_info("suite '" + suite.name + "': sequential sampling stopped after " + std::to_string(done) +
                           " of at most " + std::to_string(measured) + " rounds" +
                           (out_of_time ? " (out of time)" : ""),
                       {{"JOB_ID", std::to_string(ctx.job_id)}});
      break;
    }
  }
  for (size_t i = 0; i < targets.size(); ++i) finish(suite, targets[i], progress[i], sequential ? &*sequential : nullptr, ctx);
  return true;
}

std::string build_suite(const config::Suite& suite, const Target& target, const MeasureContext& ctx,
                        bool& cancelled) {
  cancelled = false;
  Tail tail;
  const CommandLabel label = label_of(suite, target, ctx, "", "build");
  exec::Command c = make_command(suite, target, ctx, suite.build, tail, label);
  auto outcome = run_logged(ctx, c, label, tail);
  std::string where = "build of suite '" + suite.name + "' failed at " + short_sha(target.commit) +
                      (target.role.empty() ? "" : " (" + target.role + ")");
  if (!outcome) return where + ": " + outcome.error().message;
  if (outcome->cancelled) {
    cancelled = true;
    return "cancelled";
  }
  if (outcome->success()) {
    if (auto st = check_work_tree(ctx.job_dir, ctx.work_tree_max_bytes); !st)
      return where + ": stopped by a per-job bound: " + st.error().message;
    return "";
  }
  std::string text = tail.text();
  return where + ": " + outcome->describe() + (text.empty() ? "" : ":\n" + text);
}

model::SuiteOutcome declare_suite(const config::Suite& suite, const Target& target, const MeasureContext& ctx,
                                  bool& cancelled) {
  cancelled = false;
  model::SuiteOutcome o;
  o.metrics = config::shown_metrics(suite);
  if (!suite.benchmarks.empty()) {
    o.declared = suite.benchmarks;
    o.declared_by = ".benchbox.yml";
    return o;
  }
  if (suite.list.empty()) return o;
  Tail tail;
  const CommandLabel label = label_of(suite, target, ctx, "", "list");
  exec::Command c = make_command(suite, target, ctx, suite.list, tail, label);
  c.max_output_bytes = kMaxListing;
  auto outcome = run_logged(ctx, c, label, tail);
  if (!outcome) {
    o.list_error = "could not start: " + outcome.error().message;
    return o;
  }
  if (outcome->cancelled) {
    cancelled = true;
    return o;
  }
  if (!outcome->success()) {
    std::string text = tail.text();
    o.list_error = outcome->describe() + (text.empty() ? "" : ":\n" + text);
    return o;
  }
  if (outcome->dropped_bytes > 0) {
    o.list_error = "its output is larger than " + std::to_string(kMaxListing) + " bytes";
    return o;
  }
  auto names = formats::parse_listing(suite.format, outcome->stdout_text, suite.name + " list");
  if (!names) {
    o.list_error = names.error().message;
    return o;
  }
  o.declared = std::move(*names);
  o.declared_by = "list command";
  return o;
}

model::Environment describe_environment(const std::string& isolation, const std::string& runner_id,
                                        const std::vector<config::Suite>& suites, const Target& head,
                                        const MeasureContext& ctx, bool& cancelled) {
  cancelled = false;
  model::Environment e;
  e.cpus = format_cpu_list(ctx.cpus);
  e.isolation = isolation;
  e.runner = runner_id;
  std::map<std::string, std::string> asked;  // suites often share `cc --version`
  for (const auto& s : suites) {
    model::SuiteEnvironment se{s.name, s.build, s.run, s.format, s.env, {}, {}};
    for (const auto& command : s.toolchain) {
      auto known = asked.find(command);
      if (known != asked.end()) {
        se.toolchain[command] = known->second;
        continue;
      }
      Tail tail;
      const CommandLabel label = label_of(s, head, ctx, "", "toolchain");
      exec::Command c = make_command(s, head, ctx, command, tail, label);
      auto outcome = run_logged(ctx, c, label, tail);
      std::string printed;
      if (!outcome) {
        printed = "could not start: " + outcome.error().message;
      } else if (outcome->cancelled) {
        cancelled = true;
        return e;
      } else {
        // Some tools print their version on stderr (java -version).
        printed = trim(outcome->stdout_text + outcome->stderr_text);
        if (!outcome->success()) printed = "failed (" + outcome->describe() + ")" + (printed.empty() ? "" : ": " + printed);
      }
      se.toolchain[command] = asked[command] = printed;
    }
    for (const auto& file : s.lock_files) {
      // A lock file that is a symlink out of the tree is not read (as root, it
      // could be anything on the box).
      auto real = exec::inside(head.tree_dir, path_join(head.tree_dir, file));
      auto text = real ? read_file(*real, size_t(256) << 20) : Result<std::string>(real.error());
      se.lock_files[file] = text                                 ? sha256_hex(*text)
                            : text.error().code == Errc::not_found ? "absent"
                                                                   : "unreadable: " + text.error().message;
    }
    e.suites.push_back(std::move(se));
  }
  return e;
}

}  // namespace bb::runnerd
