// asv (airspeed velocity) results, api version 2:
// results/<machine>/<commit>-<env>.json holds
//   "result_columns": ["result", "params", "version", "started_at", "duration",
//                      "stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75",
//                      "stats_number", "stats_repeat", "samples", "profile"],
//   "results": {"<benchmark>": [<one value per column; trailing nulls dropped>]}
// "result" has one entry per parameter combination (the cartesian product of
// "params", last parameter fastest): a number (asv's median), null (the
// benchmark failed) or NaN (skipped for that combination). "samples" has the
// raw samples per combination when asv ran with --record-samples, each the
// time of one iteration averaged over stats_number iterations.
// results/benchmarks.json, when present, gives the type, unit and parameter
// names, and lists the benchmarks that should have produced a result.
//
// API version 1 (asv 0.4) is read as asv itself reads it (Results.update_to_2):
// "results": {"<benchmark>": <value> | {"result": <value or list>, "params",
// "samples", "stats": <dict or list of dicts: ci_99, q_25, q_75, number,
// repeat>}}, versions in "benchmark_version". Each benchmark becomes a row of
// named columns, so errors still point into the file as it is.
//
// This is the DOM reader, for every shape and every error; asv_fast.cpp
// reads api version 2 as asv writes it first (asv_rows.h has what the two
// share).
#include <algorithm>
#include <cmath>
#include <map>

#include "formats/asv_rows.h"
#include "formats/json_support.h"
#include "formats/parsers.h"
#include "formats/units.h"

namespace bb::formats::detail {

namespace asv {

Declared* declared_for(DeclaredMap* declared, const std::string& name) {
  if (!declared) return nullptr;
  auto it = declared->find(name);
  if (it == declared->end()) return nullptr;
  it->second.has_result = true;
  return &it->second;
}

namespace {

std::string type_from_name(const std::string& name) {
  std::string last = name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
  for (const char* t : {"timeraw", "time", "peakmem", "mem", "track"})
    if (last.rfind(std::string(t) + "_", 0) == 0) return t;
  return "";
}

}  // namespace

Result<MetricUnit> metric_for(const std::string& type, const std::string& declared_unit, const Loc& at) {
  if (type == "time" || type == "timeraw") {
    std::string u = declared_unit.empty() ? "seconds" : declared_unit;
    auto s = seconds_per(u);
    if (!s) return at.bad("unknown unit \"" + u + "\" for a time benchmark, expected " + kTimeUnitsExpected);
    return MetricUnit{"wall_time", "s", *s};
  }
  // benchmarks.json says "memory"/"peakmemory"; name prefixes say mem_/peakmem_.
  if (type == "mem" || type == "memory") return MetricUnit{"memory", "bytes", 1};
  if (type == "peakmem" || type == "peakmemory") return MetricUnit{"peak_memory", "bytes", 1};
  if (type == "track") return MetricUnit{"track", declared_unit.empty() ? "unit" : declared_unit, 1};
  return at.bad("cannot tell the benchmark type (time_, timeraw_, mem_, peakmem_ or track_ prefix, "
                "or benchmarks.json) of this benchmark");
}

Result<MetricUnit> metric_of(const std::string& name, const Declared* decl, const Loc& at) {
  return metric_for(decl && !decl->type.empty() ? decl->type : type_from_name(name), decl ? decl->unit : "", at);
}

Result<Columns> read_columns(const json& names, const Loc& at) {
  if (auto st = expect(names, at, Kind::array); !st) return st.error();
  Columns columns;
  bool has_result = false;
  for (size_t i = 0; i < names.size(); ++i) {
    if (auto st = expect(names[i], at.child(i), Kind::string); !st) return st.error();
    const auto& name = names[i].get_ref<const std::string&>();
    has_result = has_result || name == "result";
    // A name listed twice: the last one counts, as a map of them kept it.
    for (int id = 0; id < Columns::count; ++id)
      if (name == Columns::kNames[id]) columns.index[id] = i;
  }
  if (!has_result) return at.bad("expected a \"result\" column");
  return columns;
}

std::vector<model::Params> combinations(const std::vector<std::vector<std::string>>& values,
                                        const Declared* decl) {
  std::vector<model::Params> combos(1);
  for (size_t i = 0; i < values.size(); ++i) {
    std::string pname = decl && i < decl->param_names.size() ? decl->param_names[i] : "param" + std::to_string(i + 1);
    std::vector<model::Params> next;
    next.reserve(combos.size() * values[i].size());
    for (const auto& c : combos)
      for (const auto& v : values[i]) {
        auto n = c;
        n[pname] = v;
        next.push_back(std::move(n));
      }
    combos = std::move(next);
  }
  return combos;
}

bool begin(model::Benchmark& b, const std::string& name, model::Params params, const MetricUnit& how,
           const std::string& version, const Declared* decl) {
  b.key.name = name;
  b.key.params = std::move(params);
  b.key.metric = how.metric;
  b.unit = how.unit;
  b.direction = model::direction_for_unit(b.unit);
  if (!version.empty()) b.extra["benchmark_version"] = version;
  if (decl && !decl->version.empty() && !version.empty() && decl->version != version) {
    b.status = model::BenchmarkStatus::skipped;
    b.reason = "result is for benchmark version " + version + ", benchmarks.json has " + decl->version;
    return false;
  }
  return true;
}

Value judge(model::Benchmark& b, std::optional<double> value) {
  if (!value) {
    b.status = model::BenchmarkStatus::failed;
    b.reason = "asv recorded no result (the benchmark failed)";
    return Value::failed;
  }
  if (std::isnan(*value)) {
    b.status = model::BenchmarkStatus::skipped;
    b.reason = "asv skipped this parameter combination (NaN)";
    return Value::skipped;
  }
  return std::isinf(*value) ? Value::infinite : Value::measured;
}

// In the summary's name order (ci_99_a, ci_99_b, median, q_25, q_75): each
// entry goes at the end of the flat map, none moves the others along.
void put_summary(model::Benchmark& b, double median, const std::array<double, 4>& stats, double scale) {
  b.summary.reserve(1 + stats.size());
  auto put = [&](size_t k) {
    if (std::isfinite(stats[k])) b.summary[Columns::kNames[Columns::ci_99_a + k] + 6] = stats[k] * scale;
  };
  put(0);
  put(1);
  b.summary["median"] = median * scale;
  put(2);
  put(3);
}

void samples_or_median(model::Benchmark& b, double median, double scale) {
  if (!b.samples.empty()) return;
  b.summary_only = true;
  b.samples = {median * scale};
  b.iterations.clear();
}

ParsedList add_undeclared(ParsedList out, DeclaredMap* declared, const Loc& root) {
  if (declared)
    for (const auto& [name, d] : *declared) {
      if (d.has_result) continue;
      Parsed p;
      p.place = "/results";
      p.bench.key.name = name;
      auto how = metric_for(d.type, d.unit, root);
      p.bench.key.metric = how ? how->metric : "wall_time";
      p.bench.unit = how ? how->unit : "s";
      p.bench.direction = model::direction_for_unit(p.bench.unit);
      p.bench.status = model::BenchmarkStatus::skipped;
      p.bench.reason = "listed in benchmarks.json but absent from this results file";
      out.push_back(std::move(p));
    }
  return out;
}

}  // namespace asv

namespace {

using namespace asv;

// A column of a result row, or nullptr (absent or null).
const json* column(const json& row, const Columns& columns, Columns::Id id) {
  if (row.is_object()) {  // an api version 1 row (v1_row)
    auto it = row.find(Columns::kNames[id]);
    return it == row.end() || it->is_null() ? nullptr : &*it;
  }
  const size_t i = columns.index[id];
  if (i >= row.size() || row[i].is_null()) return nullptr;
  return &row[i];
}

Status one_benchmark(const std::string& name, const json& row, const Loc& at, const Columns& columns,
                     DeclaredMap* declared, ParsedList& out) {
  if (!row.is_object())
    if (auto st = expect(row, at, Kind::array); !st) return st;
  const Declared* decl = declared_for(declared, name);
  auto how = metric_of(name, decl, at);
  if (!how) return how.error();

  auto col_loc = [&](Columns::Id c) {
    return row.is_object() ? at.child(Columns::kNames[c]) : at.child(columns.index[c]);
  };
  // The parameter combinations, in asv's order.
  std::vector<std::vector<std::string>> values;
  if (const json* params = column(row, columns, Columns::params)) {
    if (auto st = expect(*params, col_loc(Columns::params), Kind::array); !st) return st;
    for (size_t i = 0; i < params->size(); ++i) {
      if (!(*params)[i].is_array()) return expect((*params)[i], col_loc(Columns::params).child(i), Kind::array);
      std::vector<std::string> v;
      for (const auto& p : (*params)[i]) v.push_back(param_string(p));
      values.push_back(std::move(v));
    }
  }
  auto combos = combinations(values, decl);

  const json* result = column(row, columns, Columns::result);
  if (result && !result->is_array()) return col_loc(Columns::result).bad("expected an array (one value per parameter combination)");
  if (result && result->size() != combos.size())
    return col_loc(Columns::result).bad("has " + std::to_string(result->size()) + " values for " +
                                 std::to_string(combos.size()) + " parameter combinations");
  const json* samples = column(row, columns, Columns::samples);
  const json* numbers = column(row, columns, Columns::stats_number);
  std::string version;
  if (const json* v = column(row, columns, Columns::version); v && v->is_string()) version = v->get<std::string>();

  for (size_t j = 0; j < combos.size(); ++j) {
    // Built where it stays; on an error the whole list is dropped.
    model::Benchmark& b = out.emplace(at.ptr);
    if (!begin(b, name, std::move(combos[j]), *how, version, decl)) continue;
    const json* value = result ? &(*result)[j] : nullptr;
    std::optional<double> n;
    if (value && !value->is_null()) {
      n = number(*value);
      if (!n) return col_loc(Columns::result).child(j).bad("expected a number, null (failed) or NaN (skipped)");
    }
    const Value judged = judge(b, n);
    if (judged == Value::infinite)
      return col_loc(Columns::result).child(j).bad("expected a finite number, got infinity");
    if (judged != Value::measured) continue;
    std::array<double, 4> stats;
    for (size_t k = 0; k < stats.size(); ++k) {
      const json* s = column(row, columns, Columns::Id(Columns::ci_99_a + k));
      std::optional<double> v;
      if (s && s->is_array() && j < s->size()) v = number((*s)[j]);
      stats[k] = v ? *v : NAN;
    }
    put_summary(b, *n, stats, how->scale);
    double iters = 0;
    if (numbers && numbers->is_array() && j < numbers->size())
      if (auto v = number((*numbers)[j]); v && std::isfinite(*v)) iters = *v;
    const json* mine = samples && samples->is_array() && j < samples->size() ? &(*samples)[j] : nullptr;
    if (mine && !mine->is_null()) {
      // Places are made only for an error: a file holds millions of samples.
      auto sl = [&] { return col_loc(Columns::samples).child(j); };
      if (!mine->is_array()) return expect(*mine, sl(), Kind::array);
      b.samples.reserve(mine->size());
      if (iters > 0) b.iterations.reserve(mine->size());
      for (size_t k = 0; k < mine->size(); ++k) {
        auto s = finite_number((*mine)[k], [&] { return sl().child(k); });
        if (!s) return s.error();
        b.samples.push_back(*s * how->scale);
        if (iters > 0) b.iterations.push_back(iters);
      }
    }
    samples_or_median(b, *n, how->scale);
  }
  return {};
}

Result<DeclaredMap> read_benchmarks_json(std::string_view text, const std::string& source) {
  auto doc = parse_json(text, source, true);
  if (!doc) return doc.error();
  Loc root{&source, ""};
  if (auto st = expect(*doc, root, Kind::object); !st) return st.error();
  DeclaredMap out;
  for (const auto& [name, b] : doc->items()) {
    if (name == "version") continue;
    Loc at = root.child(name);
    if (auto st = expect(b, at, Kind::object); !st) return st.error();
    Declared d;
    auto type = need_string(b, at, "type");
    if (!type) return type.error();
    d.type = *type;
    if (auto u = maybe(b, at, "unit", Kind::string); !u) return u.error();
    else if (*u) d.unit = (*u)->get<std::string>();
    if (auto v = maybe(b, at, "version", Kind::string); !v) return v.error();
    else if (*v) d.version = (*v)->get<std::string>();
    auto names = maybe(b, at, "param_names", Kind::array);
    if (!names) return names.error();
    if (*names)
      for (size_t i = 0; i < (*names)->size(); ++i) {
        if (auto st = expect((**names)[i], at.child("param_names").child(i), Kind::string); !st) return st.error();
        d.param_names.push_back((**names)[i].get<std::string>());
      }
    out[name] = std::move(d);
  }
  return out;
}

// An api version 1 benchmark as a row of named columns (asv's update_to_2):
// a bare value is a one-combination result, a non-list result or stats is
// wrapped in a list, and the stats dicts are spread into asv 2's columns.
Result<json> v1_row(const json& value, const Loc& at, const json* versions, const std::string& name) {
  json row = json::object();
  if (!value.is_object()) {
    row["result"] = json::array({value});
  } else {
    if (auto r = value.find("result"); r != value.end()) row["result"] = r->is_array() ? *r : json::array({*r});
    else return at.child("result").bad("is missing, expected a number, null or a list");
    for (const char* k : {"params", "samples"})
      if (auto v = value.find(k); v != value.end()) row[k] = *v;
    if (auto st = value.find("stats"); st != value.end() && !st->is_null()) {
      const json stats = st->is_array() ? *st : json::array({*st});
      for (size_t i = 0; i < stats.size(); ++i)
        if (!stats[i].is_null() && !stats[i].is_object())
          return (st->is_array() ? at.child("stats").child(i) : at.child("stats")).bad("expected an object or null");
      auto spread = [&](const char* column, auto pick) {
        json list = json::array();
        for (const auto& z : stats) list.push_back(z.is_object() ? pick(z) : json());
        row[column] = std::move(list);
      };
      auto member = [](const json& z, const char* k) { return z.contains(k) ? z[k] : json(); };
      auto ci = [](const json& z, size_t i) {
        auto c = z.find("ci_99");
        return c != z.end() && c->is_array() && c->size() == 2 ? (*c)[i] : json();
      };
      spread("stats_ci_99_a", [&](const json& z) { return ci(z, 0); });
      spread("stats_ci_99_b", [&](const json& z) { return ci(z, 1); });
      spread("stats_q_25", [&](const json& z) { return member(z, "q_25"); });
      spread("stats_q_75", [&](const json& z) { return member(z, "q_75"); });
      spread("stats_number", [&](const json& z) { return member(z, "number"); });
    }
  }
  if (versions && versions->is_object())
    if (auto v = versions->find(name); v != versions->end() && v->is_string()) row["version"] = *v;
  return row;
}

Result<ParsedList> parse_results(const Input& in, DeclaredMap* declared) {
  if (auto fast = read_fast(in.json(), in.source, declared)) return std::move(*fast);
  auto doc = parse_json(in.json(), in.source, /*python_nan=*/true);
  if (!doc) return doc.error();
  Loc root{&in.source, ""};
  if (auto st = expect(*doc, root, Kind::object); !st) return st.error();
  if (auto v = doc->find("version");
      v != doc->end() && (!v->is_number_integer() || (v->get<int64_t>() != 2 && v->get<int64_t>() != 1)))
    return root.child("version").bad("expected asv results api version 1 or 2, got " + v->dump());
  if (auto v = doc->find("version"); v != doc->end() && v->get<int64_t>() == 1) {
    auto results = need(*doc, root, "results", Kind::object);
    if (!results) return results.error();
    const json* versions = doc->contains("benchmark_version") ? &(*doc)["benchmark_version"] : nullptr;
    const Columns none;
    ParsedList out;
    for (const auto& [name, value] : (*results)->items()) {
      const Loc at = root.child("results").child(name);
      auto row = v1_row(value, at, versions, name);
      if (!row) return row.error();
      if (auto st = one_benchmark(name, *row, at, none, declared, out); !st) return st.error();
    }
    return add_undeclared(std::move(out), declared, root);
  }
  auto names = need(*doc, root, "result_columns", Kind::array);
  if (!names) return names.error();
  auto columns = read_columns(**names, root.child("result_columns"));
  if (!columns) return columns.error();
  auto results = need(*doc, root, "results", Kind::object);
  if (!results) return results.error();
  ParsedList out;
  for (const auto& [name, row] : (*results)->items())
    if (auto st = one_benchmark(name, row, root.child("results").child(name), *columns, declared, out); !st)
      return st.error();
  return add_undeclared(std::move(out), declared, root);
}

}  // namespace

Result<ParsedList> parse_asv(const Input& in) { return parse_results(in, nullptr); }

Result<ParsedList> parse_asv_with_benchmarks(const Input& results, std::string_view benchmarks_json,
                                             const std::string& benchmarks_source) {
  auto declared = read_benchmarks_json(benchmarks_json, benchmarks_source);
  if (!declared) return declared.error();
  return parse_results(results, &*declared);
}

}  // namespace bb::formats::detail
