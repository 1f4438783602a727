// pytest-benchmark --benchmark-json: {"machine_info", "commit_info",
// "benchmarks": [{"group", "name", "fullname", "params", "param",
// "extra_info", "options", "stats": {"min", "max", "mean", "stddev",
// "median", "iqr", "q1", "q3", "rounds", "iterations", "ops", "total",
// "data": [...]}}], "datetime", "version"}. Times are seconds per
// iteration; stats.data holds one per round when the run kept raw data
// (--benchmark-json does), otherwise only the summaries exist. Summary
// values are in the benchmark's unit (seconds); "ops" (rounds per second)
// is not, and goes to extra.
// Two readers: simdjson straight into benchmarks for rows of the types
// pytest-benchmark writes, the DOM reader for everything else and for
// every error.
#include "util/simdjson.h"

#include <cmath>
#include <optional>

#include "formats/json_simd.h"
#include "formats/json_support.h"
#include "formats/parsers.h"

namespace bb::formats::detail {

namespace {

// "test_sort[1000-quick]" -> "test_sort" when the brackets are the params.
std::string_view strip_param_suffix(std::string_view name, bool has_params) {
  if (!has_params || name.empty() || name.back() != ']') return name;
  return name.substr(0, name.find('['));  // npos: all of it
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
  b.key.name = strip_param_suffix(*fullname ? (*fullname)->get_ref<const std::string&>() : *name, has_params);
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

namespace od = simdjson::ondemand;

// The members the fast reader reads; the others are checked, not read.
constexpr std::string_view kPytestRowKeys[] = {"name", "fullname", "params", "stats", "group", "param", "extra_info", "options"};
constexpr std::string_view kPytestStatKeys[] = {"min", "max", "mean", "stddev", "median", "iqr", "q1", "q3",
                                          "total", "ops", "iterations", "data", "rounds"};
// Positions in kPytestStatKeys the reader acts on.
enum StatKey { kStddev = 3, kIqr = 5, kOps = 9, kIterations = 10, kData = 11, kRounds = 12 };
static_assert(kPytestStatKeys[kStddev] == "stddev" && kPytestStatKeys[kIqr] == "iqr" && kPytestStatKeys[kOps] == "ops" &&
              kPytestStatKeys[kIterations] == "iterations" && kPytestStatKeys[kData] == "data" &&
              kPytestStatKeys[kRounds] == "rounds");
template <size_t N>
int pytest_key(const std::string_view (&keys)[N], std::string_view key) {
  // Size and first letter before the bytes: a memcmp call per candidate
  // was 6 % of a parse (a dozen members a row, each against a dozen keys).
  for (size_t i = 0; i < N; ++i)
    if (keys[i].size() == key.size() && !key.empty() && keys[i][0] == key[0] && keys[i] == key) return int(i);
  return -1;
}

// One row straight into `b`, as one() reads it; false where the DOM
// reader must read the file. Depths as json_simd.h counts them: the root
// 1, a row 3, its members 4.
class PytestRow {
 public:
  explicit PytestRow(const char* end) : end_(end) {}

  bool read(od::object row, model::Benchmark& b) {
    uint32_t seen = 0;
    std::string_view name;
    std::optional<std::string_view> fullname;
    bool has_params = false;
    for (auto member : row) {
      od::field f;
      std::string_view key;
      od::json_type t;
      if (std::move(member).get(f) || !key_of(f, end_, key) || f.value().type().get(t)) return false;
      od::value& v = f.value();
      const int index = pytest_key(kPytestRowKeys, key);
      if (index < 0) {
        if (!check_value(v, end_, 4)) return false;
        continue;
      }
      if (seen & (1u << index)) return false;  // repeated: the last one wins in the DOM
      seen |= 1u << index;
      if (index == 0) {
        if (t != od::json_type::string || !string_value(v, end_, name)) return false;
      } else if (index == 3) {
        if (t != od::json_type::object || !stats(v, b)) return false;
      } else if (null_value(v, t)) {
        continue;  // as absent, for every other member
      } else if (index == 1) {
        if (t != od::json_type::string || !string_value(v, end_, fullname.emplace())) return false;
      } else if (index == 2) {
        if (t != od::json_type::object || !params(v, b, has_params)) return false;
      } else if (!build_value(v, b.extra[std::string(key)], end_, 4)) {
        return false;
      }
    }
    if (!(seen & 1u) || !(seen & (1u << 3))) return false;  // no name, or no stats
    b.key.name = strip_param_suffix(fullname ? *fullname : name, has_params);
    b.key.metric = "wall_time";
    b.unit = "s";
    return true;
  }

 private:
  bool params(od::value& v, model::Benchmark& b, bool& has_params) {
    od::object o;
    if (v.get_object().get(o)) return false;
    for (auto member : o) {
      od::field f;
      std::string_view key;
      if (std::move(member).get(f) || !key_of(f, end_, key) || !param_text(f.value(), b.key.params[std::string(key)]))
        return false;
      has_params = true;
    }
    return true;
  }

  // param_string of the value, as the DOM reader makes it. A string or a
  // plain integer (pytest's usual parameters) is its own text; the rest is
  // built and dumped as nlohmann would: that was five allocations a row.
  bool param_text(od::value& v, std::string& out) {
    od::json_type t;
    if (v.type().get(t)) return false;
    if (t == od::json_type::string) {
      std::string_view s;
      if (!string_value(v, end_, s)) return false;
      out.assign(s);
      return true;
    }
    if (t == od::json_type::number) {
      const std::string_view token = trimmed_token(v);
      if (plain_integer(token)) {
        out.assign(token);
        return true;
      }
    }
    json value;
    if (!build_value(v, value, end_, 5)) return false;
    out = param_string(value);
    return true;
  }

  // An integer nlohmann dumps as written: no sign but a minus, no leading
  // zero, no "-0" (dumped as "0"), and within 64 bits (18 digits).
  static bool plain_integer(std::string_view t) {
    const std::string_view digits = t.substr(!t.empty() && t[0] == '-' ? 1 : 0);
    if (digits.empty() || digits.size() > 18 || digits[0] == '0') return t == "0";
    for (char c : digits)
      if (c < '0' || c > '9') return false;
    return true;
  }

  // A number, or one of Python's tokens (replaced by SimdText as the DOM
  // reader's are).
  bool number(od::value& v, od::json_type t, double& n) {
    // A number that is not finite ("1e999", nlohmann's infinity) is the DOM reader's.
    if (t == od::json_type::number) return finite_double(v, n);
    std::string_view s;
    if (t != od::json_type::string || !string_value(v, end_, s)) return false;
    std::optional<double> sentinel = detail::number(json(s));
    if (!sentinel) return false;
    n = *sentinel;
    return true;
  }

  bool stats(od::value& v, model::Benchmark& b) {
    od::object o;
    if (v.get_object().get(o)) return false;
    uint32_t seen = 0;
    double iterations = 1;
    // Gathered here, then copied once at its size: a dozen names, each
    // added to the benchmark's own would grow it five times.
    summary_.clear();
    for (auto member : o) {
      od::field f;
      std::string_view key;
      od::json_type t = od::json_type::null;
      if (std::move(member).get(f) || !key_of(f, end_, key)) return false;
      od::value& value = f.value();
      // Python's NaN (a single round's stddev and iqr) and Infinity, read
      // in place: the file is not searched and copied for them first. Where
      // one is anywhere else, the reader starts again on the copy
      // (pytest_benchmark_fast).
      double python = 0;
      const bool is_python = value.type().get(t);
      if (is_python && !python_number(value, python)) return false;
      const int index = pytest_key(kPytestStatKeys, key);
      if (index < 0) {
        if (is_python || !check_value(value, end_, 5)) return false;
        continue;
      }
      if (seen & (1u << index)) return false;
      seen |= 1u << index;
      if (index == kRounds) {  // kept as it is, even null
        if (is_python || !build_value(value, b.extra["rounds"], end_, 5)) return false;
        continue;
      }
      if (!is_python && null_value(value, t)) continue;
      if (index == kData) {
        if (is_python || t != od::json_type::array || !samples(value, b)) return false;
        continue;
      }
      double n = python;
      if (!is_python && !number(value, t, n)) return false;
      if (index == kIterations) {
        if (!std::isfinite(n)) return false;
        iterations = n;
      } else if (!std::isfinite(n)) {
        // stddev of a single round is NaN in Python; it carries nothing.
        if (index != kStddev && index != kIqr) return false;
      } else if (index == kOps) {
        b.extra["ops"] = n;
      } else {
        summary_.emplace(std::string(key), n);
      }
    }
    b.summary = summary_;
    if (b.samples.empty()) {
      auto mean = b.summary.find("mean");
      if (mean == b.summary.end()) return false;
      b.summary_only = true;
      b.samples = {mean->second};
    } else {
      b.iterations.assign(b.samples.size(), iterations);
    }
    return true;
  }

  bool samples(od::value& v, model::Benchmark& b) {
    od::array a;
    if (v.get_array().get(a)) return false;
    // Read into one list kept across rows, then copied once at its size:
    // pushed one by one, 20 samples were 6 allocations and room for 32.
    samples_.clear();
    for (auto element : a) {
      od::value e;
      double n;
      if (element.get(e) || !finite_double(e, n)) return false;
      samples_.push_back(n);
    }
    b.samples.assign(samples_.begin(), samples_.end());
    return true;
  }

  const char* end_;
  model::Summary summary_;
  std::vector<double> samples_;
};

// The file read by PytestRow, with Python's tokens replaced in a copy of
// it first (python_nan), or in place.
std::optional<ParsedList> pytest_rows(JsonText text, bool python_nan) {
  SimdRoot doc(text, python_nan);
  const SimdText& buf = doc.buf;
  od::object root;
  if (!doc.open(root)) return std::nullopt;
  PytestRow reader(buf.end());
  ParsedList out;
  bool found = false;
  for (auto member : root) {
    od::field f;
    std::string_view key;
    if (std::move(member).get(f) || !key_of(f, buf.end(), key)) return std::nullopt;
    if (key != "benchmarks") {  // machine_info, commit_info and the like: checked, not read
      if (!check_value(f.value(), buf.end(), 2)) return std::nullopt;
      continue;
    }
    od::array rows;
    size_t count = 0;
    if (found || f.value().get_array().get(rows) || rows.count_elements().get(count)) return std::nullopt;
    found = true;
    // Counted first (a skim over simdjson's index; the array starts over):
    // the list is allocated once, on huge pages (ParsedList::reserve).
    out.reserve(count);
    size_t i = 0;
    std::string place;  // "/benchmarks/<i>", reused: no string per row
    for (auto element : rows) {
      od::object row;
      place.assign("/benchmarks/").append(std::to_string(i++));
      if (element.get_object().get(row) || !reader.read(row, out.emplace(place))) return std::nullopt;
    }
  }
  if (!found || !doc.at_end()) return std::nullopt;
  return out;
}

}  // namespace

std::optional<ParsedList> pytest_benchmark_fast(JsonText text) {
  if (!simdjson_enabled()) return std::nullopt;
  return read_python_json(text, pytest_rows);
}

Result<ParsedList> parse_pytest_benchmark(const Input& in) {
  if (auto fast = pytest_benchmark_fast(in.json())) return std::move(*fast);
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
