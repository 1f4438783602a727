#include "formats/google_benchmark_rows.h"

#include "util/simdjson.h"

#include <cmath>

#include "formats/json_simd.h"

namespace bb::formats::detail {

namespace {

namespace od = simdjson::ondemand;

constexpr int kCounter = -1;
constexpr int builtin(std::string_view name) {
  for (size_t i = 0; i < std::size(kGbBuiltin); ++i)
    if (kGbBuiltin[i] == name) return int(i);
  return kCounter;
}

// A member's index in kGbBuiltin, or kCounter. The library writes every
// row's members in the same order, so the member at the same position of
// the last row is tried first: one comparison, not a search.
class KeyIndex {
 public:
  int operator()(size_t position, std::string_view key) {
    if (position < last_.size()) {
      const auto& [k, index] = last_[position];
      if (k == key) return index;
    }
    const auto it = std::lower_bound(std::begin(kGbBuiltin), std::end(kGbBuiltin), key);
    const int index = it != std::end(kGbBuiltin) && *it == key ? int(it - std::begin(kGbBuiltin)) : kCounter;
    if (position < kRemembered) {
      if (last_.size() <= position) last_.resize(position + 1);
      last_[position] = {std::string(key), index};
    }
    return index;
  }

 private:
  static constexpr size_t kRemembered = 64;
  std::vector<std::pair<std::string, int>> last_;
};

class RowReader {
 public:
  explicit RowReader(const char* end) : end_(end) {}

  // The row's members into `r`; false where the DOM reader must read it.
  bool read(od::object row, GbRow& r) {
    auto counters = std::move(r.counters);  // one allocation for every row's
    counters.clear();
    r = GbRow{};
    r.counters = std::move(counters);
    uint32_t seen = 0;
    bool have_name = false;
    size_t position = 0;
    for (auto member : row) {
      od::field f;
      std::string_view key;
      if (std::move(member).get(f) || !key_of(f, end_, key)) return false;
      od::value v = f.value();
      od::json_type t;
      if (v.type().get(t)) return false;
      const int index = key_index_(position++, key);
      if (index == kCounter) {
        // Not a counter (a string a newer version added): checked, not read.
        if (t != od::json_type::number) {
          if (!check_value(v, end_, 2)) return false;
          continue;
        }
        double n;
        if (!number(v, n)) return false;
        for (const auto& [k, _] : r.counters)
          if (k == key) return false;  // repeated: the last one wins in the DOM
        r.counters.emplace_back(key, n);
        continue;
      }
      const uint32_t bit = 1u << index;
      if (seen & bit) return false;
      seen |= bit;
      switch (index) {
        case builtin("name"):
          if (t != od::json_type::string || !string(v, r.name)) return false;
          have_name = true;
          break;
        case builtin("time_unit"):
          if (t != od::json_type::string || !string(v, r.time_unit.emplace())) return false;
          break;
        case builtin("error_message"):
          if (!maybe_string(v, t, r.error_message)) return false;
          break;
        case builtin("skip_message"):
          if (!maybe_string(v, t, r.skip_message)) return false;
          break;
        case builtin("run_name"):
          if (!maybe_string(v, t, r.run_name)) return false;
          break;
        case builtin("run_type"):
          if (!maybe_string(v, t, r.run_type)) return false;
          break;
        case builtin("aggregate_name"):
          if (!maybe_string(v, t, r.aggregate_name)) return false;
          break;
        case builtin("aggregate_unit"):
          if (!maybe_string(v, t, r.aggregate_unit)) return false;
          break;
        case builtin("label"):
          if (t == od::json_type::string ? !string(v, r.label.emplace()) : !check_value(v, end_, 2)) return false;
          break;
        case builtin("real_time"):
          if (t != od::json_type::number || !number(v, r.real_time.emplace())) return false;
          break;
        case builtin("cpu_time"):
          if (t != od::json_type::number || !number(v, r.cpu_time.emplace())) return false;
          break;
        case builtin("iterations"):
          if (t != od::json_type::number || !number(v, r.iterations.emplace())) return false;
          break;
        case builtin("repetitions"): {
          // Only a count reserves room; anything else is checked, not read.
          od::number n;
          if (t != od::json_type::number) {
            if (!check_value(v, end_, 2)) return false;
          } else if (simdjson_misreads(v.raw_json_token()) || v.get_number().get(n)) {
            return false;
          } else if (n.is_uint64() || (n.is_int64() && n.get_int64() >= 0)) {
            r.repetitions = n.is_uint64() ? n.get_uint64() : uint64_t(n.get_int64());
          }
          break;
        }
        case builtin("threads"):
          if (t == od::json_type::number ? !threads(v, r.threads) : !check_value(v, end_, 2)) return false;
          break;
        case builtin("error_occurred"):
          if (!null(v, t) && (t != od::json_type::boolean || v.get_bool().get(r.error_occurred))) return false;
          break;
        case builtin("skipped"): {
          // true, or the library's skip enum; any other value is no skip.
          double n = 0;
          if (t == od::json_type::boolean) {
            if (v.get_bool().get(r.skipped)) return false;
          } else if (t == od::json_type::number) {
            if (!number(v, n)) return false;
            r.skipped = n != 0;
          } else if (!check_value(v, end_, 2)) {
            return false;
          }
          break;
        }
        case builtin("big_o"):
        case builtin("rms"):
        case builtin("real_coefficient"):
        case builtin("cpu_coefficient"): return false;  // a complexity fit
        default:  // the other builtins (indices, messages): checked, not read
          if (!check_value(v, end_, 2)) return false;
          break;
      }
    }
    return have_name;
  }

 private:
  bool string(od::value& v, std::string_view& s) { return string_value(v, end_, s); }

  // Absent and null are the same to the DOM reader; anything but a string is its error.
  bool maybe_string(od::value& v, od::json_type t, std::optional<std::string_view>& s) {
    if (null(v, t)) return true;
    return t == od::json_type::string && string(v, s.emplace());
  }

  static bool null(od::value& v, od::json_type t) { return null_value(v, t); }

  static bool number(od::value& v, double& n) { return finite_double(v, n); }

  // nlohmann's types: a negative integer is signed, any other integer
  // unsigned, the rest double; 1 is left out, as the DOM reader does.
  static bool threads(od::value& v, json& out) {
    if (simdjson_misreads(v.raw_json_token())) return false;
    od::number n;
    if (v.get_number().get(n)) return false;
    switch (n.get_number_type()) {
      case od::number_type::signed_integer:
        if (n.get_int64() < 0) out = json::number_integer_t(n.get_int64());
        else out = json::number_unsigned_t(n.get_int64());
        break;
      case od::number_type::unsigned_integer: out = json::number_unsigned_t(n.get_uint64()); break;
      case od::number_type::floating_point_number:
        if (!std::isfinite(n.get_double())) return false;
        out = n.get_double();
        break;
      default: return false;
    }
    if (out == 1) out = nullptr;
    return true;
  }

  const char* end_;
  KeyIndex key_index_;
};

}  // namespace

bool for_each_plain_row(JsonText text, const std::function<bool(const GbRow&, size_t)>& row) {
  if (!simdjson_enabled()) return false;
  SimdRoot doc(text, false);
  const SimdText& buf = doc.buf;
  od::object root;
  if (!doc.open(root)) return false;
  RowReader reader(buf.end());
  GbRow r;
  bool found = false;
  for (auto member : root) {
    od::field f;
    std::string_view key;
    if (std::move(member).get(f) || !key_of(f, buf.end(), key)) return false;
    if (key != "benchmarks") {  // "context" and the like: checked, not read
      if (!check_value(f.value(), buf.end(), 1)) return false;
      continue;
    }
    od::array rows;
    if (found || f.value().get_array().get(rows)) return false;
    found = true;
    size_t i = 0;
    for (auto element : rows) {
      od::object o;
      if (element.get_object().get(o) || !reader.read(o, r) || !row(r, i++)) return false;
    }
  }
  return found && doc.at_end();
}

}  // namespace bb::formats::detail
