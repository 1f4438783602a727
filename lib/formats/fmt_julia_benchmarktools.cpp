// Julia BenchmarkTools' JSON, as `BenchmarkTools.save("results.json", results)`
// writes it (src/serialization.jl; BenchmarkTools 0.4 and later, JSON.jl 0.21 or 1.x):
//   [{"Julia": "1.10.4", "BenchmarkTools": "1.5.0"},      <- the versions that wrote it
//    [value, ...]]                                         <- save's arguments, in order
// Every value is ["TypeName", {field: value}] ("BenchmarkTools.TypeName" when
// the session had not `using BenchmarkTools`, as load() also accepts):
//   ["BenchmarkGroup", {"data": {"key": value, ...}, "tags": [...]}]
//   ["Trial", {"params": ["Parameters", {"evals", "samples", "seconds", ...}],
//              "times": [ns per evaluation, one per sample], "gctimes": [same],
//              "memory": bytes allocated per evaluation, "allocs": allocations per evaluation}]
//   ["TrialEstimate", {"params", "time", "gctime", "memory", "allocs"}]  (median(results), ...)
// A group key that was an Int, a Float64 or a tuple is written as Julia's
// string() of it ("1000", "(\"join\", 1)"), and stays that text here.
// Julia's NaN and Inf are written as null (TrialEstimate of std() over one sample).
//
// The name is the path of group keys joined by "/" ("sort/quicksort/1000",
// as github-action-benchmark names them); a Trial saved outside any group is
// named by its position in the file (1-based, as load(file)[n]). When save()
// was given more than one result, params {"value": n} tell them apart.
// A Trial's times are wall_time samples in seconds, iterations = params.evals;
// memory and allocs become alloc_bytes and allocs (one sample: BenchmarkTools
// keeps the least over the samples). A TrialEstimate is summary_only. Saved
// Parameters and TagFilters beside the results are not results and are passed
// over; TrialRatio and TrialJudgement (comparisons) are refused.
//
// PkgBenchmark's result file (writeresults) is an object whose
// "benchmarkgroup" member is this whole document as a string; it is read
// too, its errors placed as "file:/benchmarkgroup:<pointer inside>".
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "formats/json_support.h"
#include "formats/parsers.h"

namespace bb::formats::detail {

namespace {

constexpr double kNs = 1e-9;

std::string what(const json& v) {
  if (v.is_array()) return "an array of " + std::to_string(v.size()) + (v.size() == 1 ? " value" : " values");
  if (v.is_object()) return "an object";
  if (v.is_string()) return "the string \"" + v.get_ref<const std::string&>().substr(0, 40) + "\"";
  if (v.is_number()) return "a number";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return "null";
}

// The type name of a ["TypeName", {fields}] value without load()'s accepted
// "BenchmarkTools." prefix; empty when v does not have that shape.
std::string type_tag(const json& v) {
  if (!v.is_array() || v.size() != 2 || !v[0].is_string()) return "";
  std::string t = v[0].get<std::string>();
  if (t.rfind("BenchmarkTools.", 0) == 0) t.erase(0, 15);
  return t;
}

// v as ["TypeName", {fields}]: its type (see type_tag) and its fields.
Result<std::pair<std::string, const json*>> typed(const json& v, const Loc& at) {
  if (!v.is_array() || v.size() != 2)
    return at.bad("expected a BenchmarkTools value [\"TypeName\", {fields}], got " + what(v));
  if (!v[0].is_string()) return at.child(size_t(0)).bad("expected a type name (a string), got " + what(v[0]));
  std::string type = type_tag(v);
  if (!v[1].is_object())
    return at.child(1).bad("expected an object (the fields of a " + type + "), got " + what(v[1]));
  return std::make_pair(type, &v[1]);
}

// A whole number >= low at obj[key].
Result<double> whole(const json& obj, const Loc& at, const char* key, double low, const char* expected) {
  auto n = need_number(obj, at, key);
  if (!n) return n.error();
  if (*n < low || std::floor(*n) != *n)
    return at.child(key).bad(std::string("expected ") + expected + ", got " + json(*n).dump());
  return *n;
}

class Reader {
 public:
  Reader(ParsedList& out, json extra, std::string place_prefix)
      : out_(out), extra_(std::move(extra)), prefix_(std::move(place_prefix)) {}

  // One of save()'s values (position n, 1-based), with `value_param` when
  // the file holds more than one result.
  Status top(const json& v, const Loc& at, size_t n, bool value_param) {
    position_ = n;
    value_param_ = value_param;
    return value(v, at);
  }

 private:
  // The depth of this recursion is bounded by parse_json's kMaxDepth: each
  // group level is three JSON levels.
  Status value(const json& v, const Loc& at) {
    auto t = typed(v, at);
    if (!t) return t.error();
    const auto& [type, fields] = *t;
    const Loc fat = at.child(1);
    if (type == "BenchmarkGroup") return group(*fields, fat);
    if (type == "Trial") return trial(*fields, fat, at);
    if (type == "TrialEstimate") return estimate(*fields, fat, at);
    const Loc tat = at.child(size_t(0));
    if (type == "Parameters" || type == "TagFilter")
      return tat.bad("is " + type + " (benchmark settings, e.g. params(suite)), not a result; save " +
                     "run(suite)'s results or an estimate of them");
    if (type == "TrialRatio" || type == "TrialJudgement")
      return tat.bad("is a " + type + " (a comparison of two results, from ratio() or judge()), not a " +
                     "measurement; save the results themselves");
    return tat.bad("unknown BenchmarkTools type \"" + type.substr(0, 60) +
                   "\"; expected BenchmarkGroup, Trial or TrialEstimate");
  }

  Status group(const json& f, const Loc& at) {
    auto data = need(f, at, "data", Kind::object);
    if (!data) return data.error();
    auto tags = maybe(f, at, "tags", Kind::array);
    if (!tags) return tags.error();
    const size_t ntags = tags_.size();
    if (*tags)
      for (const auto& tag : **tags)
        if (std::find(tags_.begin(), tags_.end(), tag) == tags_.end()) tags_.push_back(tag);
    for (const auto& [key, v] : (*data)->items()) {
      path_.push_back(key);
      auto st = value(v, at.child("data").child(key));
      path_.pop_back();
      if (!st) return st;
    }
    tags_.resize(ntags);
    return {};
  }

  // Parameters' fields, checked for evals.
  struct Params {
    const json* fields;
    double evals;
  };
  Result<Params> params(const json& f, const Loc& at) {
    auto p = need(f, at, "params", Kind::array);
    if (!p) return p.error();
    const Loc pat = at.child("params");
    auto t = typed(**p, pat);
    if (!t) return t.error();
    if (t->first != "Parameters")
      return pat.child(size_t(0)).bad("expected Parameters, got \"" + t->first.substr(0, 60) + "\"");
    auto evals = whole(*t->second, pat.child(1), "evals", 1, "a number of evaluations per sample (at least 1)");
    if (!evals) return evals.error();
    return Params{t->second, *evals};
  }

  Parsed start(const Loc& at, const char* metric, const char* unit, const Params& p) {
    Parsed out;
    out.place = prefix_ + at.ptr;
    model::Benchmark& b = out.bench;
    if (path_.empty()) {
      b.key.name = std::to_string(position_);
    } else {
      for (size_t i = 0; i < path_.size(); ++i) b.key.name += (i ? "/" : "") + path_[i];
      b.extra["keys"] = path_;
    }
    if (value_param_) b.key.params["value"] = std::to_string(position_);
    b.key.metric = metric;
    b.unit = unit;
    b.direction = model::Direction::lower_is_better;
    if (!tags_.empty()) b.extra["tags"] = tags_;
    b.extra["params"] = *p.fields;
    for (const auto& [k, v] : extra_.items()) b.extra[k] = v;
    return out;
  }

  // alloc_bytes and allocs, one sample each (skipped with `skip` as reason when not empty).
  Status allocations(const json& f, const Loc& fat, const Loc& at, const Params& p, const std::string& skip) {
    auto memory = whole(f, fat, "memory", 0, "a byte count (a whole number, at least 0)");
    if (!memory) return memory.error();
    auto allocs = whole(f, fat, "allocs", 0, "a number of allocations (a whole number, at least 0)");
    if (!allocs) return allocs.error();
    for (auto [metric, unit, v] : {std::tuple{"alloc_bytes", "bytes", *memory}, std::tuple{"allocs", "count", *allocs}}) {
      Parsed m = start(at, metric, unit, p);
      if (skip.empty()) {
        m.bench.samples = {v};
      } else {
        m.bench.status = model::BenchmarkStatus::skipped;
        m.bench.reason = skip;
      }
      out_.push_back(std::move(m));
    }
    return {};
  }

  Status trial(const json& f, const Loc& fat, const Loc& at) {
    auto p = params(f, fat);
    if (!p) return p.error();
    auto times = need(f, fat, "times", Kind::array);
    if (!times) return times.error();
    auto gctimes = need(f, fat, "gctimes", Kind::array);
    if (!gctimes) return gctimes.error();
    if ((*gctimes)->size() != (*times)->size())
      return fat.child("gctimes").bad("has " + std::to_string((*gctimes)->size()) + " entries for " +
                                      std::to_string((*times)->size()) + " times; expected one per sample");
    Parsed w = start(at, "wall_time", "s", *p);
    model::Benchmark& b = w.bench;
    double gc_sum = 0, gc_max = 0;
    for (size_t i = 0; i < (*times)->size(); ++i) {
      auto t = finite_number((**times)[i], fat.child("times").child(i));
      if (!t) return t.error();
      auto g = finite_number((**gctimes)[i], fat.child("gctimes").child(i));
      if (!g) return g.error();
      b.samples.push_back(*t * kNs);
      b.iterations.push_back(p->evals);
      gc_sum += *g * kNs;
      gc_max = std::max(gc_max, *g * kNs);
    }
    std::string skip;
    if (b.samples.empty()) {
      skip = "the Trial has no samples";
      b.status = model::BenchmarkStatus::skipped;
      b.reason = skip;
    } else {
      b.summary["gc_time_mean"] = gc_sum / double(b.samples.size());
      b.summary["gc_time_max"] = gc_max;
    }
    out_.push_back(std::move(w));
    return allocations(f, fat, at, *p, skip);
  }

  Status estimate(const json& f, const Loc& fat, const Loc& at) {
    auto p = params(f, fat);
    if (!p) return p.error();
    auto time = maybe(f, fat, "time", Kind::number);
    if (!time) return time.error();
    if (!*time && !f.contains("time")) return fat.child("time").bad("is missing, expected a number");
    Parsed w = start(at, "wall_time", "s", *p);
    model::Benchmark& b = w.bench;
    b.summary_only = true;
    if (*time) {
      auto t = finite_number(**time, fat.child("time"));
      if (!t) return t.error();
      b.samples = {*t * kNs};
      b.summary["estimate"] = *t * kNs;
    } else {
      b.status = model::BenchmarkStatus::skipped;
      b.reason = "the estimate's time is null (Julia's NaN or Inf, e.g. std() of a single sample)";
    }
    auto gctime = maybe(f, fat, "gctime", Kind::number);
    if (!gctime) return gctime.error();
    if (*gctime) {
      auto g = finite_number(**gctime, fat.child("gctime"));
      if (!g) return g.error();
      b.summary["gc_time"] = *g * kNs;
    }
    out_.push_back(std::move(w));
    return allocations(f, fat, at, *p, "");
  }

  ParsedList& out_;
  json extra_;
  std::string prefix_;
  size_t position_ = 0;
  bool value_param_ = false;
  std::vector<std::string> path_;
  std::vector<json> tags_;  // of the enclosing groups, each once
};

// save()'s document in `text`; `extra` goes to every benchmark, `prefix`
// before every place.
Status read_saved(std::string_view text, const std::string& source, json extra, const std::string& prefix,
                  ParsedList& out) {
  auto doc = parse_json(text, source);
  if (!doc) return doc.error();
  const Loc root{&source, ""};
  if (!doc->is_array() || doc->size() != 2)
    return root.bad("expected BenchmarkTools.save's [{\"Julia\": version, \"BenchmarkTools\": version}, "
                    "[values...]], got " + what(*doc));
  const json& versions = (*doc)[0];
  const Loc vat = root.child(size_t(0));
  if (auto st = expect(versions, vat, Kind::object); !st) return st;
  for (const char* k : {"Julia", "BenchmarkTools"})
    if (auto v = need_string(versions, vat, k); !v) return v.error();
  json kept = json::object();
  for (const auto& [k, v] : versions.items())
    if (v.is_string()) kept[k] = v;
  extra["versions"] = std::move(kept);
  const json& values = (*doc)[1];
  const Loc at = root.child(1);
  if (auto st = expect(values, at, Kind::array); !st) return st;
  // Settings saved beside the results (save(f, params(suite), results)) are not results.
  auto settings = [](const json& v) {
    const std::string t = type_tag(v);
    return t == "Parameters" || t == "TagFilter";
  };
  const size_t results = size_t(std::count_if(values.begin(), values.end(), [&](const json& v) { return !settings(v); }));
  Reader reader(out, std::move(extra), prefix);
  for (size_t i = 0; i < values.size(); ++i) {
    if (settings(values[i])) continue;
    if (auto st = reader.top(values[i], at.child(i), i + 1, results > 1); !st) return st;
  }
  return {};
}

}  // namespace

Result<ParsedList> parse_julia_benchmarktools(const Input& in) {
  ParsedList out;
  // PkgBenchmark's writeresults: the document is a string member of an object.
  size_t first = in.text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && in.text[first] == '{') {
    auto doc = parse_json(in.json(), in.source);
    if (!doc) return doc.error();
    const Loc root{&in.source, ""};
    if (!doc->contains("benchmarkgroup"))
      return root.bad("expected BenchmarkTools.save's [{\"Julia\": version, \"BenchmarkTools\": version}, "
                      "[values...]] or a PkgBenchmark result file (with \"benchmarkgroup\"), got an object");
    auto inner = need_string(*doc, root, "benchmarkgroup");
    if (!inner) return inner.error();
    json extra = json::object();
    for (const char* k : {"name", "commit", "julia_commit", "date"})
      if (auto it = doc->find(k); it != doc->end() && it->is_string()) extra["pkgbenchmark"][k] = *it;
    const std::string source = in.source + ":/benchmarkgroup";
    if (auto st = read_saved(*inner, source, std::move(extra), "/benchmarkgroup:", out); !st) return st.error();
    return out;
  }
  if (auto st = read_saved(in.text, in.source, json::object(), "", out); !st) return st.error();
  return out;
}

}  // namespace bb::formats::detail
