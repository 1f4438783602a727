// BenchmarkDotNet's JSON (JsonExporter: `--exporters json` writes
// <Title>-report-full-compressed.json, `fulljson` -report-full.json,
// `briefjson` -report-brief.json without Measurements):
//   {"Title", "HostEnvironmentInfo": {"BenchmarkDotNetVersion", "RuntimeVersion", ...},
//    "Benchmarks": [{"DisplayInfo": "Type.Method: Job-ABCDEF(...) [N=10, S=a]",
//      "Namespace", "Type", "Method", "MethodTitle", "Parameters": "N=10&S=a",
//      "FullName": "Ns.Outer+Type.Method(N: 10, S: \"a\")",
//      "Statistics": {"OriginalValues", "N", "Mean", "Median", "StandardDeviation", ...,
//                     "Percentiles": {"P0", ..., "P100"}} | null (the benchmark failed),
//      "Memory": {"Gen0Collections", ..., "TotalOperations", "BytesAllocatedPerOperation"},
//      "Measurements": [{"IterationMode": "Overhead"|"Workload", "IterationStage":
//                        "Jitting"|"Pilot"|"Warmup"|"Actual"|"Result", "LaunchIndex",
//                        "IterationIndex", "Operations", "Nanoseconds"}],
//      "Metrics": [{"Value", "Descriptor": {"Id", "Unit", "TheGreaterTheBetter", ...}}]}]}
// A sample is one Workload/Result measurement (the Actual iteration less the
// overhead, after BDN's outlier removal: what its Statistics are computed
// from) as seconds per operation, with Operations as its iterations. BDN
// 0.10 wrote IterationMode "Result" and no stage. Without Measurements the
// samples are Statistics.OriginalValues (ns per operation), else the Mean
// (summary_only). Statistics in ns; BDN writes NaN as "" (0.13 on) or a bare
// NaN (before), both read as absent. Name: FullName without its arguments.
// BytesAllocatedPerOperation is `memory`; each other metric is its own.
#include <cmath>
#include <set>

#include "formats/json_support.h"
#include "formats/parsers.h"
#include "formats/units.h"

namespace bb::formats::detail {

namespace {

constexpr double kNs = 1e-9;

// A statistic or metric value; nullopt for null and BDN's NaN.
Result<std::optional<double>> value_or_nan(const json& v, const Loc& at) {
  if (v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty())) return std::optional<double>{};
  if (auto n = number(v); n && !std::isfinite(*n)) return std::optional<double>{};
  auto n = finite_number(v, at);
  if (!n) return n.error();
  return std::optional<double>{*n};
}

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
// Length of "Name=" at s[i] (a C# identifier, then '='), or 0.
size_t name_eq(const std::string& s, size_t i) {
  size_t j = i;
  while (j < s.size() && ident_char(s[j])) ++j;
  return j > i && j < s.size() && s[j] == '=' && !(s[i] >= '0' && s[i] <= '9') ? j - i + 1 : 0;
}

// "N=10&S=a,b" (ParameterInstances.PrintInfo): a value may hold '&', ',' or
// '=', so only an '&' before "Name=" separates.
Result<std::vector<std::pair<std::string, std::string>>> split_params(const std::string& s, const Loc& at) {
  std::vector<std::pair<std::string, std::string>> out;
  if (s.empty()) return out;
  if (!name_eq(s, 0)) return at.bad("expected Name=value pairs joined by '&', got \"" + s.substr(0, 60) + "\"");
  size_t i = 0;
  while (i < s.size()) {
    size_t eq = i + name_eq(s, i) - 1, end = eq + 1;
    while (end < s.size() && !(s[end] == '&' && name_eq(s, end + 1))) ++end;
    out.emplace_back(s.substr(i, eq - i), s.substr(eq + 1, end - eq - 1));
    i = end + 1;
  }
  return out;
}

// The job in DisplayInfo "Type.Title: <job> [N=10, S=a]": "Job-ABCDEF(...)".
std::string job_of(const std::string& display, const std::string& title,
                   const std::vector<std::pair<std::string, std::string>>& params) {
  size_t at = display.find("." + title + ": ");
  if (at == std::string::npos) return "";
  std::string job = display.substr(at + title.size() + 3);
  std::string shown;
  for (const auto& [k, v] : params) shown += (shown.empty() ? " [" : ", ") + k + "=" + v;
  if (!params.empty() && job.size() > shown.size() + 1 && job.back() == ']' &&
      job.compare(job.size() - shown.size() - 1, shown.size(), shown) == 0)
    job.resize(job.size() - shown.size() - 1);
  return job;
}

Status statistics(const json& st, const Loc& at, model::Benchmark& b) {
  const std::pair<const char*, const char*> kStats[] = {
      {"Mean", "mean"}, {"Median", "median"}, {"StandardDeviation", "stddev"}, {"StandardError", "stderr"},
      {"Min", "min"},   {"Max", "max"},       {"Q1", "q1"},                    {"Q3", "q3"}};
  for (const auto& [key, as] : kStats)
    if (auto it = st.find(key); it != st.end()) {
      auto v = value_or_nan(*it, at.child(key));
      if (!v) return v.error();
      if (*v) b.summary[as] = **v * kNs;
    }
  if (auto pc = maybe(st, at, "Percentiles", Kind::object); !pc) return pc.error();
  else if (*pc)
    for (const auto& [k, x] : (*pc)->items()) {
      auto v = value_or_nan(x, at.child("Percentiles").child(k));
      if (!v) return v.error();
      if (*v && k.size() > 1 && k[0] == 'P') b.summary["p" + k.substr(1)] = **v * kNs;
    }
  if (auto ci = maybe(st, at, "ConfidenceInterval", Kind::object); !ci) return ci.error();
  else if (*ci)
    for (const auto& [key, as] : {std::pair{"Lower", "ci_lower"}, {"Upper", "ci_upper"}, {"Margin", "ci_margin"}})
      if (auto it = (*ci)->find(key); it != (*ci)->end()) {
        auto v = value_or_nan(*it, at.child("ConfidenceInterval").child(key));
        if (!v) return v.error();
        if (*v) b.summary[as] = **v * kNs;
      }
  return {};
}

// The Workload/Result measurements as samples; false when there were none.
Result<bool> measurements(const json& ms, const Loc& at, model::Benchmark& b) {
  std::set<double> launches;
  for (size_t i = 0; i < ms.size(); ++i) {
    const Loc mat = at.child(i);
    auto mode = need_string(ms[i], mat, "IterationMode");
    if (!mode) return mode.error();
    auto stage = maybe(ms[i], mat, "IterationStage", Kind::string);
    if (!stage) return stage.error();
    if (!(*mode == "Result" || (*mode == "Workload" && *stage && (*stage)->get_ref<const std::string&>() == "Result")))
      continue;
    auto ops = need_number(ms[i], mat, "Operations");
    if (!ops) return ops.error();
    if (!(*ops >= 1)) return mat.child("Operations").bad("expected a positive number of operations");
    auto ns = need_number(ms[i], mat, "Nanoseconds");
    if (!ns) return ns.error();
    b.samples.push_back(*ns / *ops * kNs);
    b.iterations.push_back(*ops);
    if (auto l = ms[i].find("LaunchIndex"); l != ms[i].end() && l->is_number()) launches.insert(l->get<double>());
  }
  if (!launches.empty()) b.extra["launches"] = launches.size();
  return !b.samples.empty();
}

// A value BDN gives once per benchmark (allocations, a diagnoser's metric).
Parsed single(const model::Benchmark& base, const Loc& at, const std::string& metric, const std::string& unit,
              model::Direction dir, double v) {
  Parsed p;
  p.place = at.ptr;
  p.bench.key = base.key;
  p.bench.key.metric = metric;
  p.bench.unit = unit;
  p.bench.direction = dir;
  p.bench.summary_only = true;
  p.bench.samples = {v};
  p.bench.summary["mean"] = v;
  p.bench.extra = base.extra;
  if (p.bench.extra.is_object()) p.bench.extra.erase("launches");
  return p;
}

// Name, parameters and job of benchmark `e`.
Status identity(const json& e, const Loc& at, model::Benchmark& b) {
  auto type = need_string(e, at, "Type");
  if (!type) return type.error();
  auto method = need_string(e, at, "Method");
  if (!method) return method.error();
  auto full = maybe(e, at, "FullName", Kind::string);
  if (!full) return full.error();
  auto ns = maybe(e, at, "Namespace", Kind::string);
  if (!ns) return ns.error();
  if (*full && !(*full)->get_ref<const std::string&>().empty()) {
    // Without the argument list "(N: 10, S: \"a\")" that follows the method.
    b.key.name = (*full)->get<std::string>();
    size_t args = b.key.name.find("." + *method + "(");
    if (args != std::string::npos && b.key.name.back() == ')') b.key.name.resize(args + 1 + method->size());
  } else {
    b.key.name = (*ns ? (*ns)->get<std::string>() + "." : "") + *type + "." + *method;
  }
  std::vector<std::pair<std::string, std::string>> params;
  if (auto ps = maybe(e, at, "Parameters", Kind::string); !ps) return ps.error();
  else if (*ps) {
    auto split = split_params((*ps)->get<std::string>(), at.child("Parameters"));
    if (!split) return split.error();
    params = std::move(*split);
  }
  for (const auto& [k, v] : params) b.key.params[k] = v;
  auto title = maybe(e, at, "MethodTitle", Kind::string);
  if (!title) return title.error();
  std::string method_title = *title ? (*title)->get<std::string>() : *method;
  if (method_title != *method) b.extra["method_title"] = method_title;
  auto display = maybe(e, at, "DisplayInfo", Kind::string);
  if (!display) return display.error();
  if (*display)
    if (std::string job = job_of((*display)->get<std::string>(), method_title, params); !job.empty())
      b.extra["job"] = job;
  return {};
}

// The samples: Result measurements, else OriginalValues, else the Mean.
Status times(const json& e, const Loc& at, model::Benchmark& b) {
  auto stats = maybe(e, at, "Statistics", Kind::object);
  if (!stats) return stats.error();
  const Loc sat = at.child("Statistics");
  if (*stats)
    if (auto st = statistics(**stats, sat, b); !st) return st;
  auto ms = maybe(e, at, "Measurements", Kind::array);
  if (!ms) return ms.error();
  if (*ms) {
    auto m = measurements(**ms, at.child("Measurements"), b);
    if (!m) return m.error();
    if (*m) return {};
  }
  if (!*stats) {
    b.status = model::BenchmarkStatus::failed;
    b.reason = "BenchmarkDotNet has no result for it (no Workload Result measurement, Statistics null): "
               "it failed or did not run; see BenchmarkDotNet's log";
    return {};
  }
  auto orig = maybe(**stats, sat, "OriginalValues", Kind::array);
  if (!orig) return orig.error();
  for (size_t i = 0; *orig && i < (*orig)->size(); ++i) {
    auto v = finite_number((**orig)[i], sat.child("OriginalValues").child(i));
    if (!v) return v.error();
    b.samples.push_back(*v * kNs);
  }
  if (!b.samples.empty()) return {};
  auto mean = need_number(**stats, sat, "Mean");
  if (!mean) return mean.error();
  b.summary_only = true;
  b.samples = {*mean * kNs};
  return {};
}

// Memory.BytesAllocatedPerOperation as `memory`, and each of Metrics.
Status once_per_benchmark(const json& e, const Loc& at, const model::Benchmark& base, ParsedList& out) {
  bool memory = false;
  if (auto mem = maybe(e, at, "Memory", Kind::object); !mem) return mem.error();
  else if (*mem) {
    const Loc mat = at.child("Memory");
    auto bytes = maybe(**mem, mat, "BytesAllocatedPerOperation", Kind::number);
    if (!bytes) return bytes.error();
    if (*bytes) {
      auto v = finite_number(**bytes, mat.child("BytesAllocatedPerOperation"));
      if (!v) return v.error();
      Parsed m = single(base, mat, "memory", "bytes", model::Direction::lower_is_better, *v);
      for (const char* k : {"Gen0Collections", "Gen1Collections", "Gen2Collections", "TotalOperations"})
        if (auto it = (*mem)->find(k); it != (*mem)->end() && it->is_number()) m.bench.extra[k] = *it;
      out.push_back(std::move(m));
      memory = true;
    }
  }
  auto metrics = maybe(e, at, "Metrics", Kind::array);
  if (!metrics) return metrics.error();
  for (size_t i = 0; *metrics && i < (*metrics)->size(); ++i) {
    const json& m = (**metrics)[i];
    const Loc mat = at.child("Metrics").child(i);
    auto desc = need(m, mat, "Descriptor", Kind::object);
    if (!desc) return desc.error();
    const Loc dat = mat.child("Descriptor");
    auto id = need_string(**desc, dat, "Id");
    if (!id) return id.error();
    if (id->empty()) return dat.child("Id").bad("expected a metric id");
    auto value = need(m, mat, "Value", Kind::any);
    if (!value) return value.error();
    auto v = value_or_nan(**value, mat.child("Value"));
    if (!v) return v.error();
    auto unit = maybe(**desc, dat, "Unit", Kind::string);
    if (!unit) return unit.error();
    auto better = maybe(**desc, dat, "TheGreaterTheBetter", Kind::boolean);
    if (!better) return better.error();
    if (!*v || (*id == "Allocated Memory" && memory)) continue;  // NaN: BDN shows "NA"
    std::string u = *unit ? (*unit)->get<std::string>() : "";
    double scale = 1;
    if (u == "Count") u = "count";
    else if (u == "B") u = "bytes";
    else if (auto s = seconds_per(u)) scale = *s, u = "s";
    else if (u.empty()) u = "unspecified";
    auto dir = !*better                ? model::direction_for_unit(u)
               : (*better)->get<bool>() ? model::Direction::higher_is_better
                                        : model::Direction::lower_is_better;
    out.push_back(single(base, mat, *id == "Allocated Memory" ? "memory" : *id, u, dir, **v * scale));
    if (auto dn = (*desc)->find("DisplayName"); dn != (*desc)->end() && dn->is_string())
      out.benches.back().extra["display_name"] = *dn;
  }
  return {};
}

}  // namespace

Result<ParsedList> parse_benchmarkdotnet(const Input& in) {
  // Before 0.13 BDN wrote NaN bare (Skewness of a single iteration).
  auto doc = parse_json(in.json(), in.source, /*python_nan=*/true);
  if (!doc) return doc.error();
  Loc root{&in.source, ""};
  if (auto st = expect(*doc, root, Kind::object); !st) return st.error();
  auto host = maybe(*doc, root, "HostEnvironmentInfo", Kind::object);
  if (!host) return host.error();
  auto benches = need(*doc, root, "Benchmarks", Kind::array);
  if (!benches) return benches.error();
  ParsedList out;
  for (size_t i = 0; i < (*benches)->size(); ++i) {
    const Loc at = root.child("Benchmarks").child(i);
    const json& e = (**benches)[i];
    if (auto st = expect(e, at, Kind::object); !st) return st.error();
    Parsed p;
    p.place = at.ptr;
    model::Benchmark& b = p.bench;
    b.key.metric = "wall_time";
    b.unit = "s";
    if (auto st = identity(e, at, b); !st) return st.error();
    if (*host)
      for (const auto& [k, as] :
           {std::pair{"BenchmarkDotNetVersion", "benchmarkdotnet_version"}, {"RuntimeVersion", "runtime_version"}})
        if (auto it = (*host)->find(k); it != (*host)->end() && it->is_string()) b.extra[as] = *it;
    if (auto st = times(e, at, b); !st) return st.error();
    model::Benchmark base;  // key and extra of the other metrics
    base.key = b.key;
    base.extra = b.extra;
    const bool ran = b.status == model::BenchmarkStatus::ok;
    out.push_back(std::move(p));
    // BDN's Memory and Metrics of a failed benchmark are zeros.
    if (ran)
      if (auto st = once_per_benchmark(e, at, base, out); !st) return st.error();
  }
  // Several jobs ([SimpleJob] per runtime, --job short,medium) run the same
  // case more than once: then the job's id (before its "(settings)") is a
  // parameter. With one job it is left out, so keys stay as they were.
  std::set<std::string> jobs;
  for (const auto& b : out.benches)
    if (auto j = b.extra.find("job"); j != b.extra.end() && j->is_string()) jobs.insert(j->get<std::string>());
  if (jobs.size() > 1)
    for (auto& b : out.benches)
      if (auto j = b.extra.find("job"); j != b.extra.end() && j->is_string())
        b.key.params.emplace("job", j->get<std::string>().substr(0, j->get<std::string>().find('(')));
  return out;
}

}  // namespace bb::formats::detail
