// pyperf JSON (python -m pyperf, pyperformance; format version "1.0"):
//   {"version": "1.0", "metadata": {...},
//    "benchmarks": [{"metadata": {"name", "unit", "loops", ...},
//                    "runs": [{"metadata": {...}, "warmups": [[loops, value], ...],
//                              "values": [value, ...]}, ...]}]}
// Metadata is inherited: the file's, then the benchmark's, then the run's.
// A value is the time of one inner-loop iteration (pyperf has divided by
// loops x inner_loops already); every value of every run is a sample, with
// loops x inner_loops as its iteration count. Warmups are not samples, and a
// run without values (a calibration run) measured nothing.
#include <cmath>

#include "formats/json_support.h"
#include "formats/parsers.h"

namespace bb::formats::detail {

namespace {

// The metadata member `key` as the run sees it.
const json* inherited(const char* key, std::initializer_list<const json*> levels) {
  const json* found = nullptr;
  for (const json* m : levels)
    if (m && m->is_object())
      if (auto it = m->find(key); it != m->end() && !it->is_null()) found = &*it;
  return found;
}

struct Unit {
  std::string metric, unit;
};

std::optional<Unit> unit_for(const std::string& pyperf_unit) {
  if (pyperf_unit == "second") return Unit{"wall_time", "s"};
  if (pyperf_unit == "byte") return Unit{"memory", "bytes"};
  if (pyperf_unit == "integer") return Unit{"count", "count"};
  return std::nullopt;
}

Result<Parsed> one(const json& bench, const Loc& at, const json* common) {
  if (auto st = expect(bench, at, Kind::object); !st) return st.error();
  auto meta = maybe(bench, at, "metadata", Kind::object);
  if (!meta) return meta.error();
  auto runs = need(bench, at, "runs", Kind::array);
  if (!runs) return runs.error();

  Parsed p;
  p.place = at.ptr;
  model::Benchmark& b = p.bench;
  const json* name = inherited("name", {common, *meta});
  if (!name || !name->is_string())
    return at.child("metadata").child("name").bad("is missing, expected the benchmark's name (a string)");
  b.key.name = name->get<std::string>();
  std::string unit_name = "second";
  if (const json* u = inherited("unit", {common, *meta})) {
    if (!u->is_string()) return at.child("metadata").child("unit").bad("expected a string");
    unit_name = u->get<std::string>();
  }
  auto unit = unit_for(unit_name);
  if (!unit)
    return at.child("metadata").child("unit").bad("unknown unit \"" + unit_name + "\", expected second, byte or integer");
  b.key.metric = unit->metric;
  b.unit = unit->unit;

  size_t warmups = 0, measured_runs = 0;
  for (size_t i = 0; i < (*runs)->size(); ++i) {
    const json& run = (**runs)[i];
    const Loc rat = at.child("runs").child(i);
    if (auto st = expect(run, rat, Kind::object); !st) return st.error();
    auto rmeta = maybe(run, rat, "metadata", Kind::object);
    if (!rmeta) return rmeta.error();
    double iterations = 1;
    for (const char* k : {"loops", "inner_loops"})
      if (const json* n = inherited(k, {common, *meta, *rmeta})) {
        if (!n->is_number() || !(n->get<double>() >= 1))
          return rat.child("metadata").child(k).bad("expected a positive number of loops");
        iterations *= n->get<double>();
      }
    auto w = maybe(run, rat, "warmups", Kind::array);
    if (!w) return w.error();
    if (*w) warmups += (*w)->size();
    auto values = maybe(run, rat, "values", Kind::array);
    if (!values) return values.error();
    if (!*values || (*values)->empty()) continue;  // a calibration run
    ++measured_runs;
    for (size_t k = 0; k < (*values)->size(); ++k) {
      auto v = finite_number((**values)[k], rat.child("values").child(k));
      if (!v) return v.error();
      b.samples.push_back(*v);
      b.iterations.push_back(iterations);
    }
  }
  if (b.samples.empty()) {
    b.status = model::BenchmarkStatus::skipped;
    b.reason = "pyperf recorded no values (only warmups or calibration runs)";
  }
  b.extra["runs"] = measured_runs;
  b.extra["warmups"] = warmups;
  return p;
}

}  // namespace

Result<ParsedList> parse_pyperf(const Input& in) {
  auto doc = parse_json(in.json(), in.source);
  if (!doc) return doc.error();
  Loc root{&in.source, ""};
  if (auto st = expect(*doc, root, Kind::object); !st) return st.error();
  auto version = need_string(*doc, root, "version");
  if (!version) return version.error();
  if (version->rfind("1.", 0) != 0)
    return root.child("version").bad("expected pyperf format version 1.x, got \"" + *version + "\"");
  auto common = maybe(*doc, root, "metadata", Kind::object);
  if (!common) return common.error();
  auto benches = need(*doc, root, "benchmarks", Kind::array);
  if (!benches) return benches.error();
  ParsedList out;
  for (size_t i = 0; i < (*benches)->size(); ++i) {
    auto p = one((**benches)[i], root.child("benchmarks").child(i), *common);
    if (!p) return p.error();
    out.push_back(std::move(*p));
  }
  return out;
}

}  // namespace bb::formats::detail
