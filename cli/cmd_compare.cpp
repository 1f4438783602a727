// benchboxctl compare BASE [HEAD]: the comparison engine without the
// appliance, e.g. as a CI gate. BASE and HEAD are canonical result-set files
// or job-result files; one job-result file with a base compares its base
// against its head. --base/--head, each repeated, pool several runs a side
// (a harness run three times) as repetitions. Exit status: 0 nothing
// regressed, 1 a benchmark regressed, failed or is missing, 2 usage or
// input error.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bus/dict.h"
#include "bus/names.h"
#include "bus_client.h"
#include "commands.h"
#include "compare/compare.h"
#include "formats/formats.h"
#include "model/job.h"
#include "model/result_set.h"
#include "util/file.h"

namespace bb::cli {

namespace {

constexpr const char* kCompareUsage =
    "usage: benchboxctl compare BASE [HEAD] [--json] [--threshold [METRIC=]FRACTION]...\n"
    "                           [--confidence LEVEL] [--fdr-q Q] [--seed N]\n"
    "       benchboxctl compare --base FILE... --head FILE... [OPTIONS]\n"
    "--base/--head, each repeated: several runs a side (a harness run three times), pooled as\n"
    "repetitions of one side, unpaired.\n"
    "BASE, HEAD: result-set or job-result files, a harness's own output files (recognised as\n"
    "`convert --format auto` does), or ids of finished jobs of the running appliance\n"
    "(one job: its base against its head).\n"
    "Thresholds are fractions (0.02 or 2%); without --threshold each suite's own (.benchbox.yml\n"
    "thresholds:, carried in the result set) apply, then the engine's defaults.\n"
    "Exit 1 when a benchmark regressed, failed or is missing.\n";

struct Loaded {
  model::ResultSet plain;                 // a result-set file, or a job result's only set
  std::optional<model::ResultSet> base;   // a job result's base, when it has one
  bool job = false;
};

// A harness's own file (pytest-benchmark's JSON, Google Benchmark's, go
// test's output, ...), read as `convert --format auto` reads it.
Result<Loaded> load_harness_file(const std::string& path, const std::string& why_not_benchbox) {
  auto format = formats::detect_format(path);
  if (!format)
    return make_error(Errc::parse, path + ": neither a benchbox result (" + why_not_benchbox +
                                       ") nor a harness file benchboxctl recognises (" + format.error().message +
                                       "); `benchboxctl convert --format FORMAT` names the format");
  auto benches = formats::parse_path(*format, path, {});
  if (!benches) return benches.error().with_context(path);
  std::cerr << "benchboxctl: " << path << ": recognised as " << *format << "\n";
  Loaded out;
  out.plain.benchmarks = std::move(*benches);
  out.plain.created = 0;
  return out;
}

Result<Loaded> load(const std::string& path) {
  auto text = read_file(path, size_t(1) << 30);
  if (!text) return text.error().with_context(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {
    return load_harness_file(path, std::string("not JSON: ") + e.what());
  }
  // Without benchbox's schema, a JSON file is some harness's.
  if (!j.is_object() || !j.contains("schema")) return load_harness_file(path, "no \"schema\"");
  Loaded out;
  if (j.value("schema", "") == model::kJobResultSchema) {
    auto jr = model::job_result_from_json(j);
    if (!jr) return jr.error().with_context(path);
    out.job = true;
    out.plain = std::move(jr->head);
    out.base = std::move(jr->base);
    return out;
  }
  auto rs = model::result_set_from_json(j);
  if (!rs) return rs.error().with_context(path);
  out.plain = std::move(*rs);
  return out;
}

bool is_job_id(const std::string& arg) {
  return !arg.empty() && arg.size() < 19 && arg.find_first_not_of("0123456789") == std::string::npos &&
         !path_exists(arg);
}

// A job id stands for its result file: asks benchbox-queued where it is.
Result<std::string> job_result_path(const std::string& id_text) {
  auto client = BusClient::connect();
  if (!client) return client.error();
  auto m = client->new_call(bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "Get");
  if (!m) return m.error();
  sd_bus_message_append(m->get(), "x", static_cast<int64_t>(std::stoll(id_text)));
  auto reply = client->call(m->get());
  if (!reply) return reply.error().with_context("job " + id_text);
  auto dict = bus::read_dict(reply->get());
  if (!dict) return dict.error();
  auto job = model::job_from_json(*dict);
  if (!job) return job.error();
  if (job->state != model::JobState::done)
    return make_error(Errc::conflict, "job " + id_text + " is " + model::to_string(job->state) +
                                          (job->error.empty() ? "" : " (" + job->error + ")") +
                                          ": it has no results to compare");
  return job->result_path;
}

Result<Loaded> load_arg(const std::string& arg) {
  if (!is_job_id(arg)) return load(arg);
  auto path = job_result_path(arg);
  if (!path) return path.error();
  return load(*path);
}

// Several runs of one side as one: each benchmark's samples from every file,
// in file order. Rounds of different files are unrelated runs, so a pooled
// side is compared unpaired; a benchmark that failed in any run failed.
Result<model::ResultSet> pool(const std::vector<std::string>& args, bool as_base) {
  model::ResultSet out;
  std::map<model::BenchmarkKey, size_t> index;
  for (size_t f = 0; f < args.size(); ++f) {
    auto loaded = load_arg(args[f]);
    if (!loaded) return loaded.error();
    model::ResultSet rs = as_base && loaded->base ? std::move(*loaded->base) : std::move(loaded->plain);
    if (f == 0) {
      out = rs;
      out.benchmarks.clear();
    }
    for (auto& b : rs.benchmarks) {
      if (args.size() > 1) b.rounds.clear();
      auto [it, fresh] = index.emplace(b.key, out.benchmarks.size());
      if (fresh) {
        out.benchmarks.push_back(std::move(b));
        continue;
      }
      model::Benchmark& into = out.benchmarks[it->second];
      const bool iterations = into.iterations.size() == into.samples.size() && b.iterations.size() == b.samples.size();
      into.samples.insert(into.samples.end(), b.samples.begin(), b.samples.end());
      if (iterations) into.iterations.insert(into.iterations.end(), b.iterations.begin(), b.iterations.end());
      else into.iterations.clear();
      if (b.status != model::BenchmarkStatus::ok && into.status == model::BenchmarkStatus::ok) {
        into.status = b.status;
        into.reason = args[f] + ": " + b.reason;
      }
    }
  }
  if (args.size() > 1)
    std::cerr << "benchboxctl: " << (as_base ? "base" : "head") << ": " << args.size()
              << " runs pooled as repetitions (unpaired)\n";
  return out;
}

int report(const model::ResultSet& base, const model::ResultSet& head, const compare::Options& options, bool json) {
  const compare::Comparison c = compare::compare(base, head, options);
  if (json)
    std::cout << compare::to_json(c).dump(2) << "\n";
  else
    std::cout << compare::render_markdown(c);
  return compare::any_problem(c) ? 1 : 0;
}

Result<double> parse_fraction(const std::string& s) {
  std::string t = s;
  double scale = 1;
  if (!t.empty() && t.back() == '%') {
    t.pop_back();
    scale = 0.01;
  }
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !(v >= 0) || v * scale >= 1)
    return make_error(Errc::invalid_argument, "not a fraction in [0, 1): '" + s + "'");
  return v * scale;
}

}  // namespace

int cmd_compare(const Args& args) {
  compare::Options options;
  bool json = false;
  std::vector<std::string> files, base_files, head_files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    if (a == "--json") {
      json = true;
    } else if (a == "--base" || a == "--head") {
      auto v = value();
      if (!v) return fail(a + " needs a file\n" + kCompareUsage);
      (a == "--base" ? base_files : head_files).push_back(*v);
    } else if (a == "--help" || a == "-h") {
      std::cout << kCompareUsage;
      return 0;
    } else if (a == "--threshold" || a == "--confidence" || a == "--fdr-q" || a == "--seed") {
      auto v = value();
      if (!v) return fail(a + " needs a value\n" + kCompareUsage);
      if (a == "--seed") {
        char* end = nullptr;
        options.seed = std::strtoull(v->c_str(), &end, 10);
        if (v->empty() || *end) return fail("--seed: not a number: '" + *v + "'");
        continue;
      }
      std::string metric, number = *v;
      if (a == "--threshold" && v->find('=') != std::string::npos) {
        metric = v->substr(0, v->find('='));
        number = v->substr(v->find('=') + 1);
      }
      auto f = parse_fraction(number);
      if (!f) return fail(a + ": " + f.error().message);
      if (a == "--confidence") {
        if (*f <= 0.5) return fail("--confidence: must be above 0.5, e.g. 0.98");
        options.confidence = *f;
      } else if (a == "--fdr-q") {
        options.fdr_q = *f;
      } else {
        // Over the suites' own thresholds too: the caller asked for this one.
        options.overrides[metric] = *f;
      }
    } else if (!a.empty() && a[0] == '-') {
      return fail("unknown option '" + a + "'\n" + kCompareUsage);
    } else {
      files.push_back(a);
    }
  }
  model::ResultSet base, head;
  if (!base_files.empty() || !head_files.empty()) {
    if (!files.empty() || base_files.empty() || head_files.empty())
      return fail(std::string("--base and --head go together, each at least once, without BASE HEAD\n") +
                  kCompareUsage);
    auto b = pool(base_files, true);
    if (!b) return fail(b.error().message);
    auto h = pool(head_files, false);
    if (!h) return fail(h.error().message);
    base = std::move(*b);
    head = std::move(*h);
    return report(base, head, options, json);
  }
  if (files.empty() || files.size() > 2) return fail(std::string("expected BASE [HEAD]\n") + kCompareUsage);

  auto first = load_arg(files[0]);
  if (!first) return fail(first.error().message);
  if (files.size() == 1) {
    if (!first->base) return fail(files[0] + ": a single file must be a job result with a base and a head");
    base = std::move(*first->base);
    head = std::move(first->plain);
  } else {
    auto second = load_arg(files[1]);
    if (!second) return fail(second.error().message);
    // A job result as BASE stands for the run it measured: its base when it
    // has one (a PR's merge-base), else its only result set.
    base = first->base ? std::move(*first->base) : std::move(first->plain);
    head = std::move(second->plain);
  }

  return report(base, head, options, json);
}

}  // namespace bb::cli
