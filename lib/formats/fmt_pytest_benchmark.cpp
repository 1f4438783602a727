// pytest-benchmark --benchmark-json: {"machine_info", "commit_info",
// "benchmarks": [{"group", "name", "fullname", "params", "param",
// "extra_info", "options", "stats": {"min", "max", "mean", "stddev",
// "median", "iqr", "q1", "q3", "rounds", "iterations", "ops", "total",
// "data": [...]}}], "datetime", "version"}. Times are seconds per
// iteration; stats.data holds one per round when the run kept raw data
// (--benchmark-json does), otherwise only the summaries exist. Summary
// values are in the benchmark's unit (seconds); "ops" (rounds per second)
// is not, and goes to extra.
#include <cmath>

#include "formats/json_support.h"
#include "formats/parsers.h"

namespace bb::formats::detail {

namespace {

// "test_sort[1000-quick]" -> "test_sort" when the brackets are the params.
std::string strip_param_suffix(const std::string& name, bool has_params) {
  if (!has_params || name.empty() || name.back() != ']') return name;
  auto open = name.find('[');
  return open == std::string::npos ? name : name.substr(0, open);
}

Result<Parsed> one(const json& r, const Loc& at) {
  Parsed p;
  p.place = at.ptr;
  auto& b = p.bench;
  auto fullname = maybe(r, at, "fullname", Kind::string);
  if (!fullname) return fullname.error();
  auto name = need_string(r, at, "name");
  if (!name) return name.error();
  auto params = maybe(r, at, "params", Kind::object);
  if (!params) return params.error();
  bool has_params = *params && !(*params)->empty();
  b.key.name = strip_param_suffix(*fullname ? (*fullname)->get<std::string>() : *name, has_params);
  if (has_params)
    for (const auto& [k, v] : (*params)->items()) b.key.params[k] = param_string(v);
  b.key.metric = "wall_time";
  b.unit = "s";

  auto stats = need(r, at, "stats", Kind::object);
  if (!stats) return stats.error();
  Loc sat = at.child("stats");
  for (const char* s : {"min", "max", "mean", "stddev", "median", "iqr", "q1", "q3", "total", "ops"}) {
    auto v = maybe(**stats, sat, s, Kind::number);
    if (!v) return v.error();
    if (!*v) continue;
    auto n = number(**v);
    if (!n || !std::isfinite(*n)) {
      // stddev of a single round is NaN in Python; it carries nothing.
      if (std::string(s) == "stddev" || std::string(s) == "iqr") continue;
      return finite_number(**v, sat.child(s)).error();
    }
    if (std::string(s) == "ops") b.extra["ops"] = *n;
    else b.summary[s] = *n;
  }
  double iterations = 1;
  if (auto it = maybe(**stats, sat, "iterations", Kind::number); !it) return it.error();
  else if (*it) {
    auto n = finite_number(**it, sat.child("iterations"));
    if (!n) return n.error();
    iterations = *n;
  }
  auto data = maybe(**stats, sat, "data", Kind::array);
  if (!data) return data.error();
  if (*data && !(*data)->empty()) {
    for (size_t i = 0; i < (*data)->size(); ++i) {
      auto n = finite_number((**data)[i], [&] { return sat.child("data").child(i); });
      if (!n) return n.error();
      b.samples.push_back(*n);
      b.iterations.push_back(iterations);
    }
  } else {
    auto mean = need_number(**stats, sat, "mean");
    if (!mean) return mean.error();
    b.summary_only = true;
    b.samples = {*mean};
  }
  for (const char* k : {"group", "param", "extra_info", "options"})
    if (auto it = r.find(k); it != r.end() && !it->is_null()) b.extra[k] = *it;
  if (auto rounds = (*stats)->find("rounds"); rounds != (*stats)->end()) b.extra["rounds"] = *rounds;
  return p;
}

}  // namespace

Result<ParsedList> parse_pytest_benchmark(const Input& in) {
  ParsedList out;
  auto streamed = stream_children(
      in.json(), in.source, "benchmarks",
      [&](const std::string&, json&& r, const Loc& at) -> Status {
        auto p = one(r, at);
        if (!p) return p.error();
        out.push_back(std::move(*p));
        return {};
      },
      /*python_nan=*/true);
  if (!streamed) return streamed.error();
  if (auto st = expect_streamed(*streamed, in.source, "benchmarks", Kind::array,
                                "an object with a \"benchmarks\" array (pytest-benchmark JSON)");
      !st)
    return st.error();
  return out;
}

}  // namespace bb::formats::detail
