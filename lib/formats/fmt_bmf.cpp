// Bencher Metric Format: {"<benchmark>": {"<measure>": {"value": x,
// "lower_value": y, "upper_value": z}}}. Bencher's built-in measures are
// "latency" (nanoseconds), "throughput" (operations/second), "file-size"
// (bytes) and "build-time" (seconds); any other measure slug is the
// project's own and its unit is not in the file. A value is one summary
// (Bencher never sees raw samples), so every benchmark is summary_only.
// Two readers: simdjson straight into benchmarks for the plain shape, the
// DOM reader for everything else and for every error.
#include "util/simdjson.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "formats/json_simd.h"
#include "formats/json_support.h"
#include "formats/parsers.h"

namespace bb::formats::detail {

namespace {

// Views of literals, or of the slug: assigned into the benchmark's own
// strings, no string made per benchmark (they were three a benchmark).
struct Measure {
  std::string_view metric, unit;
  double scale;
};

Measure measure_for(std::string_view slug) {
  if (slug == "latency") return {"wall_time", "s", 1e-9};
  if (slug == "throughput") return {"throughput", "ops/s", 1};
  if (slug == "file-size") return {"file-size", "bytes", 1};
  if (slug == "build-time") return {"build-time", "s", 1};
  return {slug, "unspecified", 1};
}

// A measure's slug back from its benchmark: a built-in measure by its
// metric and unit (a project's own measure "wall_time" has the unit
// "unspecified", latency "s"), any other by its metric, which is its slug.
std::string_view slug_of(const model::Benchmark& b) {
  for (std::string_view slug : {"latency", "throughput", "file-size", "build-time"}) {
    const Measure how = measure_for(slug);
    if (b.key.metric == how.metric && b.unit == how.unit) return slug;
  }
  return b.key.metric;
}

// The fast reader's places, "/<name>/<slug>" as the DOM reader's: made
// only when finish() words an error.
std::string place_of(const model::Benchmark& b) {
  std::string at = "/";
  append_pointer_token(at, b.key.name);
  at.push_back('/');
  append_pointer_token(at, slug_of(b));
  return at;
}

// One measure of one benchmark, from either reader, filled in where it stays.
void measure(model::Benchmark& b, std::string_view name, std::string_view slug, double value,
             std::optional<double> lower, std::optional<double> upper) {
  const Measure how = measure_for(slug);
  b.key.name.assign(name);
  b.key.metric.assign(how.metric);
  b.unit.assign(how.unit);
  // Bencher keeps a measure's direction on its server, not in the file:
  // throughput and rates are higher-is-better, every other measure lower.
  b.direction = how.metric == "throughput" ? model::Direction::higher_is_better
                                           : model::direction_for_unit(how.unit);
  b.summary_only = true;
  b.samples = {value * how.scale};
  // In name order, each at the end: no search; one allocation.
  b.summary.reserve(1 + (lower ? 1 : 0) + (upper ? 1 : 0));
  if (lower) b.summary.emplace_hint(b.summary.end(), "lower_value", *lower * how.scale);
  if (upper) b.summary.emplace_hint(b.summary.end(), "upper_value", *upper * how.scale);
  b.summary.emplace_hint(b.summary.end(), "value", value * how.scale);
}

}  // namespace

// The fast reader: simdjson straight into benchmarks, no DOM. It takes only
// the plain shape (objects of objects of value/lower_value/upper_value
// numbers); anything else, good or bad, is left to the DOM reader below,
// which reads it as it always has and words any error.
std::optional<ParsedList> bmf_fast(JsonText text) {
  namespace od = simdjson::ondemand;
  if (!simdjson_enabled()) return std::nullopt;
  SimdRoot file(text, false);
  od::object root;
  if (!file.open(root)) return std::nullopt;
  const char* end = file.buf.end();
  // Count the measures first (a skim over simdjson's index, not the text),
  // so the list is allocated once: grown by doubling, it would hold the
  // old and the new array at once, a third of the peak on a large file.
  auto measures_in = [&]() -> std::optional<size_t> {
    size_t n = 0, k;
    for (auto bench_field : root) {
      od::field bf;
      od::object measures;
      if (std::move(bench_field).get(bf) || bf.value().get_object().get(measures) ||
          measures.count_fields().get(k))
        return std::nullopt;
      n += k;
    }
    return n;
  };
  auto count = measures_in();
  if (!count) return std::nullopt;  // a document simdjson stopped in cannot be rewound
  file.doc.rewind();
  if (file.doc.get_object().get(root)) return std::nullopt;
  ParsedList out;
  out.place_by(place_of);
  out.reserve(*count);
  struct Read {
    std::string_view slug;  // in the text, or in simdjson's buffer: both outlive the document
    double value;
    std::optional<double> lower, upper;
  };
  std::vector<Read> mine;  // one benchmark's, put in slug order as the DOM reader's map is
  for (auto bench_field : root) {
    od::field bf;
    std::string_view name, k;
    od::object measures;
    if (std::move(bench_field).get(bf) || !key_of(bf, end, name) || bf.value().get_object().get(measures))
      return std::nullopt;
    mine.clear();
    for (auto measure_field : measures) {
      od::field mf;
      od::object m;
      if (std::move(measure_field).get(mf) || !key_of(mf, end, k) || mf.value().get_object().get(m))
        return std::nullopt;
      Read r{k, 0, std::nullopt, std::nullopt};
      std::optional<double> value;
      for (auto number_field : m) {
        od::field nf;
        double v;
        if (std::move(number_field).get(nf) || !key_of(nf, end, k) || !finite_double(nf.value(), v))
          return std::nullopt;
        if (k == "value") value = v;
        else if (k == "lower_value") r.lower = v;
        else if (k == "upper_value") r.upper = v;
        else return std::nullopt;
      }
      if (!value) return std::nullopt;
      r.value = *value;
      for (const Read& seen : mine)
        if (seen.slug == r.slug) return std::nullopt;  // a repeated measure: the last one wins there
      mine.push_back(r);
    }
    if (mine.empty()) return std::nullopt;
    if (mine.size() > 1)
      std::sort(mine.begin(), mine.end(), [](const Read& a, const Read& b) { return a.slug < b.slug; });
    for (const Read& r : mine) measure(out.emplace(), name, r.slug, r.value, r.lower, r.upper);
  }
  if (!file.at_end()) return std::nullopt;
  return out;
}

Result<ParsedList> parse_bmf(const Input& in) {
  if (auto fast = bmf_fast(in.json())) return std::move(*fast);
  ParsedList out;
  // Only a root object is streamed member by member; anything else is wrong.
  size_t first = in.text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && in.text[first] != '{')
    return Loc{&in.source, ""}.bad("expected an object of benchmarks (Bencher Metric Format)");
  auto streamed = stream_children(in.json(), in.source, "", [&](const std::string& name, json&& measures,
                                                              const Loc& at) -> Status {
    if (auto st = expect(measures, at, Kind::object); !st) return st;
    if (measures.empty()) return at.bad("expected at least one measure (e.g. \"latency\")");
    for (const auto& [slug, m] : measures.items()) {
      Loc mat = at.child(slug);
      if (auto st = expect(m, mat, Kind::object); !st) return st;
      auto value = need_number(m, mat, "value");
      if (!value) return value.error();
      std::optional<double> bounds[2];
      for (int i = 0; i < 2; ++i) {
        const char* bound = i == 0 ? "lower_value" : "upper_value";
        auto v = maybe(m, mat, bound, Kind::number);
        if (!v) return v.error();
        if (!*v) continue;
        auto n = finite_number(**v, [&] { return mat.child(bound); });
        if (!n) return n.error();
        bounds[i] = *n;
      }
      measure(out.emplace(mat.ptr), name, slug, *value, bounds[0], bounds[1]);
    }
    return {};
  });
  if (!streamed) return streamed.error();
  if (!streamed->found || streamed->kind != Kind::object)
    return Loc{&in.source, ""}.bad("expected an object of benchmarks (Bencher Metric Format)");
  return out;
}

}  // namespace bb::formats::detail
