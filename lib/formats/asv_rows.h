// asv results: what its two readers share. fmt_asv.cpp holds the DOM
// reader, which reads every shape asv has written (api versions 1 and 2)
// and words every error; asv_fast.cpp holds the simdjson reader, which
// reads api version 2 as asv writes it straight into benchmarks and leaves
// anything else to the DOM reader. Both build each benchmark through the
// helpers here, so a file reads the same either way. Internal to
// lib/formats.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/json_support.h"
#include "formats/parsers.h"

namespace bb::formats::detail::asv {

// A benchmark as results/benchmarks.json declares it.
struct Declared {
  std::string type, unit, version;
  std::vector<std::string> param_names;
  bool has_result = false;
};
using DeclaredMap = std::map<std::string, Declared>;

// benchmarks.json's entry for `name`, marked as having a result; nullptr
// when there is no benchmarks.json or it does not list the name.
Declared* declared_for(DeclaredMap* declared, const std::string& name);

struct MetricUnit {
  std::string metric, unit;
  double scale = 1;  // to the canonical unit
};
// The metric of benchmark `name`: its type from benchmarks.json, else from
// its name's prefix (time_, timeraw_, mem_, peakmem_, track_).
Result<MetricUnit> metric_of(const std::string& name, const Declared* decl, const Loc& at);
Result<MetricUnit> metric_for(const std::string& type, const std::string& declared_unit, const Loc& at);

// Where each column the readers use sits in a row (npos: absent), resolved
// once per file from "result_columns", so a row's columns are found by
// index, not looked up by name for every parameter combination.
struct Columns {
  enum Id { result, params, version, samples, stats_number, ci_99_a, ci_99_b, q_25, q_75, count };
  static constexpr const char* kNames[count] = {"result",       "params",        "version",
                                                "samples",      "stats_number",  "stats_ci_99_a",
                                                "stats_ci_99_b", "stats_q_25",   "stats_q_75"};
  size_t index[count] = {size_t(-1), size_t(-1), size_t(-1), size_t(-1), size_t(-1),
                         size_t(-1), size_t(-1), size_t(-1), size_t(-1)};
};
// The columns from "result_columns" (at `at`); a name listed twice: the
// last one counts.
Result<Columns> read_columns(const json& names, const Loc& at);

// The parameter combinations of a row, in asv's order (the cartesian
// product of the values, last parameter fastest), named as benchmarks.json
// names them or param1, param2, ...
std::vector<model::Params> combinations(const std::vector<std::vector<std::string>>& values,
                                        const Declared* decl);

// Benchmark b's key, unit and version for one parameter combination. False
// when its result is for another benchmark version than benchmarks.json's:
// b is then skipped and says why, and nothing more of it is read.
bool begin(model::Benchmark& b, const std::string& name, model::Params params, const MetricUnit& how,
           const std::string& version, const Declared* decl);

// A combination's "result" value: null (nullopt) is a failed benchmark, NaN
// a skipped combination, infinity an error the caller words. True for a
// finite value, to be read on.
enum class Value { measured, failed, skipped, infinite };
Value judge(model::Benchmark& b, std::optional<double> value);

// The median and whichever of stats_ci_99_a, stats_ci_99_b, stats_q_25 and
// stats_q_75 are finite (in that order; NaN: absent), in b's unit.
void put_summary(model::Benchmark& b, double median, const std::array<double, 4>& stats, double scale);
// A benchmark that got no samples is its median alone.
void samples_or_median(model::Benchmark& b, double median, double scale);

// The benchmarks benchmarks.json lists that have no result: skipped, named.
ParsedList add_undeclared(ParsedList out, DeclaredMap* declared, const Loc& root);

// The simdjson reader (asv_fast.cpp): the benchmarks, or nullopt where the
// DOM reader must read the file. `declared` is marked only on success.
std::optional<ParsedList> read_fast(JsonText text, const std::string& source, DeclaredMap* declared);

}  // namespace bb::formats::detail::asv
