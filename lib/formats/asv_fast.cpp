// asv's results straight from simdjson into benchmarks, for api version 2
// as asv writes it: "result_columns" before "results", each row an array
// of columns. A row's columns are read into plain lists first (a row's
// columns may come in any order), then each parameter combination is built
// through asv_rows.h, as the DOM reader builds it.
//
// Anything else gives nullopt and the DOM reader reads the file: api
// version 1, the columns after the rows, a root member or a row named
// twice (the DOM keeps the last), an object as a row, and every value the
// DOM reader would word an error for. It also gives up on some values the
// DOM reader takes without a word (a sample list that is not one, a result
// that is not a number, beside a combination it never reads): slower, not
// different.
#include "util/simdjson.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "formats/asv_rows.h"
#include "formats/json_simd.h"

namespace bb::formats::detail::asv {

namespace od = simdjson::ondemand;

namespace {

constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();

// One row's columns, read; reused from row to row so its lists keep their
// room. Depths as json_simd.h counts them: the root 1, "results" 2, a row
// 3, its columns 4.
class RowReader {
 public:
  RowReader(const Columns& columns, const char* end) : end_(end) {
    for (int id = 0; id < Columns::count; ++id) {
      const size_t at = columns.index[id];
      if (at == size_t(-1)) continue;
      if (id_at_.size() <= at) id_at_.resize(at + 1, -1);
      id_at_[at] = id;
    }
  }

  bool read(od::value v) {
    od::array row;
    if (v.get_array().get(row)) return false;
    clear();
    size_t at = 0;
    for (auto element : row) {
      od::value c;
      od::json_type t;
      if (element.get(c) || c.type().get(t)) return false;
      const int id = at < id_at_.size() ? id_at_[at] : -1;
      ++at;
      if (id < 0) {
        if (!check_value(c, end_, 4)) return false;
      } else if (null_value(c, t)) {
        continue;  // a null column is an absent one
      } else if (!column(Columns::Id(id), c, t)) {
        return false;
      }
    }
    return true;
  }

  // True while every row's combinations were distinct: with the rows' names
  // distinct too (by_name), every key is, and finish() need not sort the
  // list to look for a duplicate.
  bool keys_distinct() const { return distinct_; }

  // The row's benchmarks, one per parameter combination, at the end of `out`.
  bool emit(const std::string& name, const Loc& at, DeclaredMap* declared, ParsedList& out) {
    const Declared* decl = declared_for(declared, name);
    auto how = metric_of(name, decl, at);
    if (!how) return false;
    auto combos = combinations(params_, decl);
    if (has_result_ && result_.size() != combos.size()) return false;
    distinct_ = distinct_ && distinct_combinations(decl);
    for (size_t j = 0; j < combos.size(); ++j) {
      model::Benchmark& b = out.emplace(at.ptr);
      if (!begin(b, name, std::move(combos[j]), *how, version_, decl)) continue;
      const std::optional<double> value = has_result_ ? result_[j] : std::nullopt;
      const Value judged = judge(b, value);
      if (judged == Value::infinite) return false;
      if (judged != Value::measured) continue;
      put_summary(b, *value, {stat(0, j), stat(1, j), stat(2, j), stat(3, j)}, how->scale);
      if (j < samples_.size() && samples_[j]) {
        b.samples = std::move(*samples_[j]);
        for (double& s : b.samples) s *= how->scale;
        const double iters = j < number_.size() ? number_[j] : kAbsent;
        if (iters > 0) b.iterations.assign(b.samples.size(), iters);
      }
      samples_or_median(b, *value, how->scale);
    }
    return true;
  }

 private:
  void clear() {
    has_result_ = false;
    result_.clear();
    params_.clear();
    version_.clear();
    samples_.clear();
    number_.clear();
    for (auto& s : stats_) s.clear();
  }

  // The row's combinations differ when its parameters' names do and each
  // parameter's values do (asv's are their reprs: they always do).
  bool distinct_combinations(const Declared* decl) const {
    std::vector<std::string> names;
    for (size_t i = 0; i < params_.size(); ++i) {
      names.push_back(decl && i < decl->param_names.size() ? decl->param_names[i] : "param" + std::to_string(i + 1));
      std::vector<std::string_view> values(params_[i].begin(), params_[i].end());
      std::sort(values.begin(), values.end());
      if (std::adjacent_find(values.begin(), values.end()) != values.end()) return false;
    }
    std::sort(names.begin(), names.end());
    return std::adjacent_find(names.begin(), names.end()) == names.end();
  }

  double stat(size_t k, size_t j) const { return j < stats_[k].size() ? stats_[k][j] : kAbsent; }

  bool column(Columns::Id id, od::value& c, od::json_type t) {
    switch (id) {
      case Columns::result:
        has_result_ = true;
        return t == od::json_type::array && results(c);
      case Columns::params:
        return t == od::json_type::array && params(c);
      case Columns::version:
        if (t != od::json_type::string) return check_value(c, end_, 4);  // not a version: none
        {
          std::string_view s;
          if (!string_value(c, end_, s)) return false;
          version_.assign(s);
          return true;
        }
      case Columns::samples:
        if (t != od::json_type::array) return check_value(c, end_, 4);  // not a list: no samples
        return samples(c);
      case Columns::stats_number:
        return numbers(c, t, number_);
      case Columns::ci_99_a:
      case Columns::ci_99_b:
      case Columns::q_25:
      case Columns::q_75:
        return numbers(c, t, stats_[id - Columns::ci_99_a]);
      case Columns::count:
        break;
    }
    return false;
  }

  // A number, or a string that is one of Python's tokens (SimdText
  // replaced them as the DOM reader's are), as detail::number() reads
  // them. nullopt for anything else; false where simdjson stops or a
  // number is not read exactly.
  bool number_or_token(od::value& v, od::json_type t, std::optional<double>& n) {
    if (t == od::json_type::number) {
      double d;
      if (!finite_double(v, d)) return false;  // misread, or out of range: the DOM's
      n = d;
      return true;
    }
    if (t != od::json_type::string) return check_value(v, end_, 5);
    std::string_view s;
    if (!string_value(v, end_, s)) return false;
    n = detail::number(json(s));
    return true;
  }

  // Python's NaN or Infinity, which simdjson does not type, read in place:
  // the file is not searched and copied for them first (read_fast).
  static bool python_token(od::value& v, std::optional<double>& n) {
    double d;
    if (!python_number(v, d)) return false;
    n = d;
    return true;
  }

  bool results(od::value& c) {
    od::array a;
    if (c.get_array().get(a)) return false;
    for (auto element : a) {
      od::value v;
      od::json_type t;
      if (element.get(v)) return false;
      std::optional<double> n;
      if (v.type().get(t)) {
        if (!python_token(v, n)) return false;  // Python's NaN (a skipped combination), read in place
      } else if (null_value(v, t)) {
        result_.emplace_back();
        continue;
      } else if (!number_or_token(v, t, n)) {
        return false;
      }
      // Anything but a number, NaN or null is an error the DOM reader words.
      if (!n || std::isinf(*n)) return false;
      result_.push_back(n);
    }
    return true;
  }

  bool params(od::value& c) {
    od::array a;
    if (c.get_array().get(a)) return false;
    json p;
    for (auto element : a) {
      od::array values;
      if (element.get_array().get(values)) return false;
      auto& mine = params_.emplace_back();
      for (auto value : values) {
        od::value v;
        if (value.get(v) || !build_value(v, p, end_, 6)) return false;
        mine.push_back(param_string(p));
      }
    }
    return true;
  }

  bool samples(od::value& c) {
    od::array a;
    if (c.get_array().get(a)) return false;
    for (auto element : a) {
      od::value v;
      od::json_type t;
      if (element.get(v) || v.type().get(t)) return false;
      auto& mine = samples_.emplace_back();
      if (null_value(v, t)) continue;
      od::array list;
      if (v.get_array().get(list)) return false;
      // Read into one list kept across rows, then copied once at its
      // size: pushed one by one, 20 samples were 6 allocations and room
      // for 32.
      read_.clear();
      for (auto sample : list) {
        od::value s;
        double d;
        if (sample.get(s) || !finite_double(s, d)) return false;
        read_.push_back(d);
      }
      mine.emplace(read_.begin(), read_.end());
    }
    return true;
  }

  // A stats column: one finite number per combination, kAbsent for
  // anything else, as the DOM reader reads it; not a list, no values.
  bool numbers(od::value& c, od::json_type t, std::vector<double>& out) {
    if (t != od::json_type::array) return check_value(c, end_, 4);
    od::array a;
    if (c.get_array().get(a)) return false;
    for (auto element : a) {
      od::value v;
      od::json_type vt;
      std::optional<double> n;
      if (element.get(v)) return false;
      if (v.type().get(vt) ? !python_token(v, n) : !number_or_token(v, vt, n)) return false;
      out.push_back(n && std::isfinite(*n) ? *n : kAbsent);
    }
    return true;
  }

  const char* end_;
  std::vector<int> id_at_;  // the column id at each position of a row, -1 for unused ones
  bool distinct_ = true;
  bool has_result_ = false;
  std::vector<std::optional<double>> result_;
  std::vector<std::vector<std::string>> params_;
  std::string version_;
  std::vector<std::optional<std::vector<double>>> samples_;
  std::vector<double> read_;  // one combination's samples as they are read
  std::vector<double> number_;
  std::array<std::vector<double>, 4> stats_;
};

struct Row {
  std::string_view name;  // in the text or simdjson's buffer, alive as long as the parser
  size_t begin, end;      // its benchmarks in the list
};

// asv writes its rows in the order it ran them; the DOM reader goes by
// name (a map). False when a name repeats: the DOM keeps the last one.
bool by_name(std::vector<Row>& rows, ParsedList& out) {
  auto less = [](const Row& a, const Row& b) { return a.name < b.name; };
  if (!std::is_sorted(rows.begin(), rows.end(), less)) {
    std::sort(rows.begin(), rows.end(), less);
    std::vector<size_t> order;
    order.reserve(out.size());
    for (const Row& r : rows)
      for (size_t i = r.begin; i < r.end; ++i) order.push_back(i);
    out.permute(order);
  }
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i - 1].name == rows[i].name) return false;
  return true;
}

// The file read by RowReader, with Python's tokens replaced in a copy of
// it first (python_nan), or in place.
std::optional<ParsedList> read_rows(JsonText text, const std::string& source, DeclaredMap* declared,
                                    bool python_nan) {
  SimdRoot doc(text, python_nan);
  const SimdText& buf = doc.buf;
  od::object root;
  if (!doc.open(root)) return std::nullopt;
  std::optional<DeclaredMap> mine;  // marked here, kept only on success
  if (declared) mine = *declared;
  const Loc top{&source, ""};
  const Loc results_at = top.child("results");
  std::optional<RowReader> reader;
  bool seen_results = false, seen_version = false;
  ParsedList out;
  std::vector<Row> rows;
  for (auto member : root) {
    od::field f;
    std::string_view key;
    if (std::move(member).get(f) || !key_of(f, buf.end(), key)) return std::nullopt;
    if (key == "result_columns") {
      json names;
      if (reader || seen_results || !build_value(f.value(), names, buf.end(), 2)) return std::nullopt;
      auto columns = read_columns(names, top.child("result_columns"));
      if (!columns) return std::nullopt;
      reader.emplace(*columns, buf.end());
    } else if (key == "results") {
      od::object results;
      size_t count = 0;
      if (!reader || seen_results || f.value().get_object().get(results) || results.count_fields().get(count))
        return std::nullopt;
      seen_results = true;
      // A row is at least one benchmark (one per parameter combination):
      // counted first, the list mostly is allocated once, on huge pages.
      out.reserve(count);
      rows.reserve(count);
      for (auto row : results) {
        od::field rf;
        std::string_view name;
        if (std::move(row).get(rf) || !key_of(rf, buf.end(), name) || !reader->read(rf.value())) return std::nullopt;
        const std::string n(name);
        const size_t begin = out.size();
        if (!reader->emit(n, results_at.child(n), mine ? &*mine : nullptr, out)) return std::nullopt;
        rows.push_back({name, begin, out.size()});
      }
    } else if (key == "version") {
      int64_t v;
      if (seen_version || f.value().get_int64().get(v) || v != 2) return std::nullopt;
      seen_version = true;
    } else if (!check_value(f.value(), buf.end(), 2)) {
      return std::nullopt;
    }
  }
  if (!seen_results || !doc.at_end() || !by_name(rows, out))
    return std::nullopt;
  if (declared) *declared = std::move(*mine);
  const bool distinct = !reader || reader->keys_distinct();
  // The declared benchmarks without a result are named apart from every row.
  ParsedList all = add_undeclared(std::move(out), declared, top);
  all.keys_unique = distinct;
  return all;
}

}  // namespace

std::optional<ParsedList> read_fast(JsonText text, const std::string& source, DeclaredMap* declared) {
  if (!simdjson_enabled()) return std::nullopt;
  return read_python_json(text, [&](JsonText t, bool python_nan) { return read_rows(t, source, declared, python_nan); });
}

}  // namespace bb::formats::detail::asv

namespace bb::formats::detail {

std::optional<ParsedList> asv_fast(JsonText text, const std::string& source) {
  return asv::read_fast(text, source, nullptr);
}

}  // namespace bb::formats::detail
