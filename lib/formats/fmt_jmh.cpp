// JMH's JSON (`java -jar benchmarks.jar -rf json -rff out.json`): an array
// of runs, one per benchmark method and parameter set:
//   {"benchmark": "org.x.MyBench.parse", "mode": "thrpt"|"avgt"|"sample"|"ss",
//    "params": {"size": "100"}, "forks", "threads", "jmhVersion", ...,
//    "primaryMetric": {"score", "scoreError", "scoreConfidence",
//                      "scorePercentiles", "scoreUnit": "ops/s",
//                      "rawData": [[per iteration] per fork]
//                      | "rawDataHistogram": [[[[value, count], ...] per iteration] per fork]},
//    "secondaryMetrics": {"·gc.alloc.rate": {same shape}, ...}}
// The primary metric of a time mode (avgt, sample, ss: "ms/op") is
// wall_time in seconds per operation; of thrpt ("ops/s") the metric
// throughput, higher-is-better. Every iteration of every fork is a sample.
// A secondary metric is a metric of its own (its name without JMH's "·").
#include <cmath>

#include "formats/json_support.h"
#include "formats/parsers.h"
#include "formats/units.h"

namespace bb::formats::detail {

namespace {

// A sampleTime histogram becomes its values; past this many, the file is
// refused rather than expanded.
constexpr double kMaxHistogramSamples = 1e7;

// "ms/op" -> seconds per "ms"; nullopt when the unit is not a time per op.
std::optional<double> seconds_per_op(const std::string& unit) {
  auto slash = unit.find("/op");
  if (slash == std::string::npos || slash + 3 != unit.size()) return std::nullopt;
  return seconds_per(unit.substr(0, slash));
}

Status metric_samples(const json& m, const Loc& at, double scale, model::Benchmark& b) {
  if (auto raw = maybe(m, at, "rawData", Kind::array); !raw) return raw.error();
  else if (*raw) {
    for (size_t f = 0; f < (*raw)->size(); ++f) {
      const Loc fat = at.child("rawData").child(f);
      if (auto st = expect((**raw)[f], fat, Kind::array); !st) return st;
      for (size_t i = 0; i < (**raw)[f].size(); ++i) {
        auto v = finite_number((**raw)[f][i], [&] { return fat.child(i); });
        if (!v) return v.error();
        b.samples.push_back(*v * scale);
      }
    }
    b.extra["forks"] = (*raw)->size();
    return {};
  }
  auto hist = maybe(m, at, "rawDataHistogram", Kind::array);
  if (!hist) return hist.error();
  if (!*hist) return {};
  double total = 0;
  for (size_t f = 0; f < (*hist)->size(); ++f) {
    const Loc fat = at.child("rawDataHistogram").child(f);
    if (auto st = expect((**hist)[f], fat, Kind::array); !st) return st;
    for (size_t i = 0; i < (**hist)[f].size(); ++i) {
      const Loc iat = fat.child(i);
      if (auto st = expect((**hist)[f][i], iat, Kind::array); !st) return st;
      for (size_t k = 0; k < (**hist)[f][i].size(); ++k) {
        const json& pair = (**hist)[f][i][k];
        const Loc pat = iat.child(k);
        if (!pair.is_array() || pair.size() != 2) return pat.bad("expected a [value, count] pair");
        auto v = finite_number(pair[0], pat.child(size_t(0)));
        if (!v) return v.error();
        auto n = finite_number(pair[1], pat.child(size_t(1)));
        if (!n) return n.error();
        if (*n < 0 || std::floor(*n) != *n) return pat.child(size_t(1)).bad("expected a count (a whole number)");
        total += *n;
        if (total > kMaxHistogramSamples)
          return pat.bad("the histogram holds more than " + std::to_string(int64_t(kMaxHistogramSamples)) +
                         " samples; refused rather than expanded");
        b.samples.insert(b.samples.end(), static_cast<size_t>(*n), *v * scale);
      }
    }
  }
  b.extra["forks"] = (*hist)->size();
  return {};
}

// One metric of a run as a benchmark; `time_mode` for the primary metric of
// a time mode.
Result<Parsed> metric(const json& m, const Loc& at, const model::BenchmarkKey& base, const std::string& metric_name,
                      bool primary, const std::string& mode) {
  if (auto st = expect(m, at, Kind::object); !st) return st.error();
  auto unit = need_string(m, at, "scoreUnit");
  if (!unit) return unit.error();
  auto score = need_number(m, at, "score");
  if (!score) return score.error();
  Parsed p;
  p.place = at.ptr;
  model::Benchmark& b = p.bench;
  b.key = base;
  double scale = 1;
  if (primary && mode != "thrpt") {
    auto s = seconds_per_op(*unit);
    if (!s) return at.child("scoreUnit").bad("expected a time per operation (e.g. ms/op) in mode " + mode +
                                                 ", got \"" + *unit + "\"");
    scale = *s;
    b.key.metric = "wall_time";
    b.unit = "s";
    b.direction = model::Direction::lower_is_better;
  } else {
    b.key.metric = primary ? "throughput" : metric_name;
    b.unit = *unit;
    // A rate (ops/s, MB/sec) is higher-is-better; thrpt always is.
    b.direction = primary ? model::Direction::higher_is_better : model::direction_for_unit(*unit);
  }
  b.summary["score"] = *score * scale;
  if (auto e = m.find("scoreError"); e != m.end() && e->is_number() && std::isfinite(e->get<double>()))
    b.summary["score_error"] = e->get<double>() * scale;
  if (auto pc = m.find("scorePercentiles"); pc != m.end() && pc->is_object())
    for (const auto& [q, v] : pc->items())
      if (v.is_number() && std::isfinite(v.get<double>())) b.summary["p" + q] = v.get<double>() * scale;
  if (auto st = metric_samples(m, at, scale, b); !st) return st.error();
  if (b.samples.empty()) {
    b.summary_only = true;
    b.samples = {*score * scale};
  }
  if (primary) b.extra["mode"] = mode;
  return p;
}

}  // namespace

Result<ParsedList> parse_jmh(const Input& in) {
  auto doc = parse_json(in.json(), in.source);
  if (!doc) return doc.error();
  Loc root{&in.source, ""};
  if (!doc->is_array()) return root.bad("expected an array of JMH runs (-rf json)");
  ParsedList out;
  for (size_t r = 0; r < doc->size(); ++r) {
    const json& run = (*doc)[r];
    const Loc at = root.child(r);
    if (auto st = expect(run, at, Kind::object); !st) return st.error();
    auto name = need_string(run, at, "benchmark");
    if (!name) return name.error();
    auto mode = need_string(run, at, "mode");
    if (!mode) return mode.error();
    if (*mode != "thrpt" && *mode != "avgt" && *mode != "sample" && *mode != "ss")
      return at.child("mode").bad("expected thrpt, avgt, sample or ss, got \"" + *mode + "\"");
    model::BenchmarkKey key;
    key.name = *name;
    auto params = maybe(run, at, "params", Kind::object);
    if (!params) return params.error();
    if (*params)
      for (const auto& [k, v] : (*params)->items()) key.params[k] = param_string(v);
    auto primary = need(run, at, "primaryMetric", Kind::object);
    if (!primary) return primary.error();
    auto p = metric(**primary, at.child("primaryMetric"), key, "", true, *mode);
    if (!p) return p.error();
    for (const char* k : {"threads", "forks", "jmhVersion", "jdkVersion", "vmName"})
      if (auto it = run.find(k); it != run.end() && !it->is_null()) p->bench.extra[k] = *it;
    out.push_back(std::move(*p));
    auto secondary = maybe(run, at, "secondaryMetrics", Kind::object);
    if (!secondary) return secondary.error();
    if (!*secondary) continue;
    for (const auto& [sname, m] : (*secondary)->items()) {
      std::string metric_name = sname;
      // JMH marks profiler metrics with a middle dot (U+00B7).
      if (metric_name.rfind("\xc2\xb7", 0) == 0) metric_name = metric_name.substr(2);
      if (metric_name.empty()) return at.child("secondaryMetrics").child(sname).bad("expected a metric name");
      auto s = metric(m, at.child("secondaryMetrics").child(sname), key, metric_name, false, *mode);
      if (!s) return s.error();
      out.push_back(std::move(*s));
    }
  }
  return out;
}

}  // namespace bb::formats::detail
