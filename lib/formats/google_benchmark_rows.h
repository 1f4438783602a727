// Google Benchmark's rows straight from simdjson, for the plain shape its
// library writes: {"context": {...}, "benchmarks": [{...}, ...]}, each row
// an object whose members the reader uses have the types it expects, with
// and no complexity fit. Anything else, good or bad, is
// refused as a whole (nothing handed on yet is taken back: the caller
// drops what it built) and read by the DOM reader, which words every
// error as it always has. Internal to lib/formats.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/json_support.h"

namespace bb::formats::detail {

// Members Google Benchmark writes itself; any other number is a counter.
// Sorted as std::map sorts a row's keys, so one walk alongside the row's
// members tells them apart (every member of every row is looked at).
inline constexpr std::string_view kGbBuiltin[] = {
    "aggregate_name", "aggregate_unit", "big_o", "cpu_coefficient", "cpu_time", "error_message",
    "error_occurred", "family_index", "iterations", "label", "name", "per_family_instance_index",
    "real_coefficient", "real_time", "repetition_index", "repetitions", "rms", "run_name", "run_type",
    "skip_message", "skipped", "threads", "time_unit",
};

static_assert(std::is_sorted(std::begin(kGbBuiltin), std::end(kGbBuiltin)));

// One row: views into the text or simdjson's buffer, valid during the call.
struct GbRow {
  std::string_view name;
  std::optional<std::string_view> run_name, run_type, aggregate_name, aggregate_unit, label;
  std::optional<std::string_view> time_unit, error_message, skip_message;
  std::optional<double> real_time, cpu_time, iterations;
  bool error_occurred = false;
  bool skipped = false;  // true, or a number other than 0 (the library's skip enum)
  std::optional<uint64_t> repetitions;
  json threads;  // null, or the number as nlohmann would hold it
  std::vector<std::pair<std::string_view, double>> counters;  // every other finite number, in the row's order
};

// Calls `row` with each row and its index in "benchmarks". False when the
// text is not the plain shape, or `row` returned false.
bool for_each_plain_row(JsonText text, const std::function<bool(const GbRow&, size_t)>& row);

}  // namespace bb::formats::detail
