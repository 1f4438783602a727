// vitest bench's JSON (`vitest bench --run --outputJson out.json`), i.e.
// tinybench's results per benchmark, in milliseconds:
//   {"files": [{"filepath", "groups": [{"fullName": "bench/x.bench.js > group",
//     "benchmarks": [{"name", "samples": [...], "min", "max", "mean", "median",
//                     "p75", "p99", "p995", "p999", "sd", "hz", "rme",
//                     "sampleCount", ...}]}]}]}
// The name is the group's full name and the benchmark's. vitest leaves
// "samples" empty unless asked to keep them: then the benchmark is
// summary_only with its mean as the sample (tinybench's headline value).
#include <cmath>

#include "formats/json_support.h"
#include "formats/parsers.h"

namespace bb::formats::detail {

namespace {

constexpr double kMs = 1e-3;

Result<Parsed> one(const json& b, const Loc& at, const std::string& group) {
  if (auto st = expect(b, at, Kind::object); !st) return st.error();
  auto name = need_string(b, at, "name");
  if (!name) return name.error();
  Parsed p;
  p.place = at.ptr;
  model::Benchmark& out = p.bench;
  out.key.name = group.empty() ? *name : group + " > " + *name;
  out.key.metric = "wall_time";
  out.unit = "s";
  // (tinybench's name, summary name)
  const std::pair<const char*, const char*> kStats[] = {{"min", "min"},   {"max", "max"},   {"mean", "mean"},
                                                        {"median", "median"}, {"p75", "p75"}, {"p99", "p99"},
                                                        {"p995", "p995"}, {"p999", "p999"}, {"sd", "stddev"}};
  for (const auto& [key, as] : kStats) {
    auto v = maybe(b, at, key, Kind::number);
    if (!v) return v.error();
    if (!*v) continue;
    auto n = finite_number(**v, at.child(key));
    if (!n) return n.error();
    out.summary[as] = *n * kMs;
  }
  for (const char* k : {"hz", "rme", "sampleCount", "rank"})
    if (auto it = b.find(k); it != b.end() && it->is_number()) out.extra[k] = *it;
  auto samples = maybe(b, at, "samples", Kind::array);
  if (!samples) return samples.error();
  if (*samples && !(*samples)->empty()) {
    for (size_t i = 0; i < (*samples)->size(); ++i) {
      auto n = finite_number((**samples)[i], [&] { return at.child("samples").child(i); });
      if (!n) return n.error();
      out.samples.push_back(*n * kMs);
    }
  } else {
    auto mean = need_number(b, at, "mean");
    if (!mean) return mean.error();
    out.summary_only = true;
    out.samples = {*mean * kMs};
  }
  return p;
}

}  // namespace

Result<ParsedList> parse_vitest(const Input& in) {
  auto doc = parse_json(in.json(), in.source);
  if (!doc) return doc.error();
  Loc root{&in.source, ""};
  if (auto st = expect(*doc, root, Kind::object); !st) return st.error();
  auto files = need(*doc, root, "files", Kind::array);
  if (!files) return files.error();
  ParsedList out;
  for (size_t f = 0; f < (*files)->size(); ++f) {
    const Loc fat = root.child("files").child(f);
    const json& file = (**files)[f];
    if (auto st = expect(file, fat, Kind::object); !st) return st.error();
    auto groups = need(file, fat, "groups", Kind::array);
    if (!groups) return groups.error();
    for (size_t g = 0; g < (*groups)->size(); ++g) {
      const Loc gat = fat.child("groups").child(g);
      const json& group = (**groups)[g];
      if (auto st = expect(group, gat, Kind::object); !st) return st.error();
      auto full = need_string(group, gat, "fullName");
      if (!full) return full.error();
      auto benches = need(group, gat, "benchmarks", Kind::array);
      if (!benches) return benches.error();
      for (size_t i = 0; i < (*benches)->size(); ++i) {
        auto p = one((**benches)[i], gat.child("benchmarks").child(i), *full);
        if (!p) return p.error();
        out.push_back(std::move(*p));
      }
    }
  }
  return out;
}

}  // namespace bb::formats::detail
