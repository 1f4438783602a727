// Bencher Metric Format: {"<benchmark>": {"<measure>": {"value": x,
// "lower_value": y, "upper_value": z}}}. Bencher's built-in measures are
// "latency" (nanoseconds), "throughput" (operations/second), "file-size"
// (bytes) and "build-time" (seconds); any other measure slug is the
// project's own and its unit is not in the file. A value is one summary
// (Bencher never sees raw samples), so every benchmark is summary_only.
#include "formats/json_support.h"
#include "formats/parsers.h"

namespace bb::formats::detail {

namespace {

struct Measure {
  std::string metric, unit;
  double scale;
};

Measure measure_for(const std::string& slug) {
  if (slug == "latency") return {"wall_time", "s", 1e-9};
  if (slug == "throughput") return {"throughput", "ops/s", 1};
  if (slug == "file-size") return {"file-size", "bytes", 1};
  if (slug == "build-time") return {"build-time", "s", 1};
  return {slug, "unspecified", 1};
}

}  // namespace

Result<ParsedList> parse_bmf(const Input& in) {
  ParsedList out;
  // Only a root object is streamed member by member; anything else is wrong.
  size_t first = in.text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && in.text[first] != '{')
    return Loc{&in.source, ""}.bad("expected an object of benchmarks (Bencher Metric Format)");
  auto streamed = stream_children(in.text, in.source, "", [&](const std::string& name, json&& measures,
                                                              const Loc& at) -> Status {
    if (auto st = expect(measures, at, Kind::object); !st) return st;
    if (measures.empty()) return at.bad("expected at least one measure (e.g. \"latency\")");
    for (const auto& [slug, m] : measures.items()) {
      Loc mat = at.child(slug);
      if (auto st = expect(m, mat, Kind::object); !st) return st;
      auto value = need_number(m, mat, "value");
      if (!value) return value.error();
      Measure how = measure_for(slug);
      Parsed p;
      p.place = mat.ptr;
      p.bench.key.name = name;
      p.bench.key.metric = how.metric;
      p.bench.unit = how.unit;
      // Bencher keeps a measure's direction on its server, not in the file:
      // throughput and rates are higher-is-better, every other measure lower.
      p.bench.direction = how.metric == "throughput" ? model::Direction::higher_is_better
                                                      : model::direction_for_unit(how.unit);
      p.bench.summary_only = true;
      p.bench.samples = {*value * how.scale};
      p.bench.summary["value"] = *value * how.scale;
      for (const char* bound : {"lower_value", "upper_value"}) {
        auto v = maybe(m, mat, bound, Kind::number);
        if (!v) return v.error();
        if (!*v) continue;
        auto n = finite_number(**v, mat.child(bound));
        if (!n) return n.error();
        p.bench.summary[bound] = *n * how.scale;
      }
      out.push_back(std::move(p));
    }
    return {};
  });
  if (!streamed) return streamed.error();
  if (!streamed->found || streamed->kind != Kind::object)
    return Loc{&in.source, ""}.bad("expected an object of benchmarks (Bencher Metric Format)");
  return out;
}

}  // namespace bb::formats::detail
