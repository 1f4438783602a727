// The fast path of parse_json and stream_children: simdjson's On-Demand
// API over a padded copy of the text, building the same nlohmann values the
// SAX path builds (numbers typed as nlohmann types them, last duplicate key
// wins, the streamed container's children one at a time).
//
// One pass. Anything simdjson refuses before a child has been handed to
// the parser's callback (a syntax error, a scalar root, anything stage 1
// finds) goes back to the SAX path, which reads it the way it always did
// and words the error as before (file:line:column). When simdjson stops
// after children were handed out, the SAX path reads it again and hands
// on only the children after those. Either way the parser gets what the
// SAX path alone would give it; the fuzzers compare the two on every input.
#include "util/simdjson.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "formats/json_simd.h"
#include "formats/json_support.h"
#include "formats/parsers.h"

namespace bb::formats::detail {

namespace od = simdjson::ondemand;

namespace {

thread_local bool g_simdjson = true;

// Nothing may follow the root value.
bool at_end(od::document& doc) { return doc.current_location().error() == simdjson::OUT_OF_BOUNDS; }

class Walker {
 public:
  explicit Walker(const char* end) : end_(end) {}

  // v as nlohmann builds it; false where simdjson stops.
  bool build(od::value v, json& out, size_t depth) {
    od::json_type t;
    if (v.type().get(t)) return false;
    switch (t) {
      case od::json_type::object: {
        od::object o;
        if (depth > kMaxDepth || v.get_object().get(o)) return false;
        out = json::object();
        auto& obj = out.get_ref<json::object_t&>();
        for (auto r : o) {
          od::field f;
          std::string_view key;
          if (std::move(r).get(f) || !key_of(f, key)) return false;
          json child;
          if (!build(f.value(), child, depth + 1)) return false;
          obj.insert_or_assign(std::string(key), std::move(child));
        }
        return true;
      }
      case od::json_type::array: {
        od::array a;
        if (depth > kMaxDepth || v.get_array().get(a)) return false;
        // The elements go to a scratch vector kept for this depth, then
        // into an array of their number: one allocation, not one per
        // doubling (asv's rows are arrays of arrays of samples).
        if (scratch_.size() <= depth) scratch_.resize(depth + 1);
        std::vector<json> items = std::move(scratch_[depth]);
        items.clear();
        bool ok = true;
        for (auto r : a) {
          od::value e;
          items.emplace_back();
          if (r.get(e) || !build(e, items.back(), depth + 1)) {
            ok = false;
            break;
          }
        }
        if (ok) out = json::array_t(std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
        items.clear();
        scratch_[depth] = std::move(items);
        return ok;
      }
      case od::json_type::string: {
        std::string_view s;
        if (!string_of(v, s)) return false;
        out = std::string(s);
        return true;
      }
      case od::json_type::number: return number_of(v, out);
      case od::json_type::boolean: {
        bool b;
        if (v.get_bool().get(b)) return false;
        out = b;
        return true;
      }
      case od::json_type::null: {
        if (!null_value(v, t)) return false;
        out = nullptr;
        return true;
      }
    }
    return false;
  }

  bool key_of(od::field& f, std::string_view& key) { return detail::key_of(f, end_, key); }

  bool string_of(od::value& v, std::string_view& s) { return string_value(v, end_, s); }

 private:
  // nlohmann's types: a negative integer is signed, any other integer
  // unsigned, the rest double.
  static bool number_of(od::value& v, json& out) {
    // The text first: once the number is read, the iterator has moved on.
    const std::string_view t = trimmed_token(v);
    od::number n;
    if (v.get_number().get(n)) return big_integer(t, out);
    switch (n.get_number_type()) {
      case od::number_type::signed_integer: {
        int64_t i = n.get_int64();
        if (i < 0) out = json::number_integer_t(i);
        else out = json::number_unsigned_t(i);  // "-0" too: equal to nlohmann's 0
        return true;
      }
      case od::number_type::unsigned_integer: out = json::number_unsigned_t(n.get_uint64()); return true;
      case od::number_type::floating_point_number: {
        if (simdjson_misreads(t)) {
          double d = std::strtod(std::string(t).c_str(), nullptr);
          if (!std::isfinite(d)) return false;
          out = json::number_float_t(d);
          return true;
        }
        out = json::number_float_t(n.get_double());
        return true;
      }
    }
    return false;
  }

  // An integer beyond 64 bits, which nlohmann reads as a double.
  static bool big_integer(std::string_view t, json& out) {
    std::string_view digits = t.substr(!t.empty() && t[0] == '-' ? 1 : 0);
    if (digits.empty() || (digits[0] == '0' && digits.size() > 1)) return false;
    for (char c : digits)
      if (c < '0' || c > '9') return false;
    double d = std::strtod(std::string(t).c_str(), nullptr);
    if (!std::isfinite(d)) return false;  // 400 digits: nlohmann's "number overflow"
    out = json::number_float_t(d);
    return true;
  }

  const char* end_;
  std::vector<std::vector<json>> scratch_;  // per depth, reused
};

// One pass: the rest of the document as a DOM, the streamed container's
// children built one at a time and handed to the parser's callback.
class Streamer {
 public:
  Streamer(Walker& w, const std::string& source, const ChildFn& on_child, const StartFn* on_start)
      : w_(w), on_child_(on_child), on_start_(on_start), target_{&source, ""} {}

  // False when simdjson stopped or the callback refused a child (error).
  bool run(od::value root, od::json_type t, const std::string& key) {
    if (key.empty()) {
      out.rest = t == od::json_type::object ? json::object() : json::array();
      return start(json::object()) && deliver_all(root, t);
    }
    if (t == od::json_type::array) return w_.build(root, out.rest, 1);
    od::object o;
    if (root.get_object().get(o)) return false;
    out.rest = json::object();
    auto& rest = out.rest.get_ref<json::object_t&>();
    for (auto r : o) {
      od::field f;
      std::string_view k;
      od::json_type vt;
      if (std::move(r).get(f) || !w_.key_of(f, k) || f.value().type().get(vt)) return false;
      if (k == key && (vt == od::json_type::object || vt == od::json_type::array)) {
        target_.ptr = "/" + escape_pointer_token(k);
        if (!start(out.rest) || !deliver_all(f.value(), vt)) return false;
        continue;
      }
      json child;
      if (!w_.build(f.value(), child, 2)) return false;
      rest.insert_or_assign(std::string(k), std::move(child));
    }
    return true;
  }

  Streamed out;
  size_t out_starts = 0;       // calls of on_start
  std::optional<Error> error;  // the callback's

 private:
  bool start(const json& before) {
    if (!on_start_) return true;
    ++out_starts;
    if (auto st = (*on_start_)(before); !st) {
      error = st.error();
      return false;
    }
    return true;
  }

  bool deliver(std::string name, json&& child) {
    ++out.children;
    Loc at = target_.child(name);
    if (auto st = on_child_(name, std::move(child), at); !st) {
      error = st.error();
      return false;
    }
    return true;
  }

  bool deliver_all(od::value container, od::json_type kind) {
    out.found = true;
    out.kind = kind == od::json_type::object ? Kind::object : Kind::array;
    if (kind == od::json_type::object) {
      od::object o;
      if (container.get_object().get(o)) return false;
      for (auto r : o) {
        od::field f;
        std::string_view k;
        json child;
        if (std::move(r).get(f) || !w_.key_of(f, k)) return false;
        std::string name(k);
        if (!w_.build(f.value(), child, 2) || !deliver(std::move(name), std::move(child))) return false;
      }
      return true;
    }
    od::array a;
    if (container.get_array().get(a)) return false;
    size_t i = 0;
    for (auto r : a) {
      od::value e;
      json child;
      if (r.get(e) || !w_.build(e, child, 2) || !deliver(std::to_string(i++), std::move(child))) return false;
    }
    return true;
  }

  Walker& w_;
  const ChildFn& on_child_;
  const StartFn* on_start_;
  Loc target_;
};

}  // namespace

static_assert(kTextPadding >= simdjson::SIMDJSON_PADDING, "ParseOptions::text_padded promises too little");

SimdText::SimdText(JsonText text, bool python_nan) {
  if (text.padded && !(python_nan && may_hold_python_nan(text.text))) {
    view_ = simdjson::padded_string_view(text.text.data(), text.text.size(), text.text.size() + kTextPadding);
    return;
  }
  copy_ = simdjson::padded_string(text.text);
  if (python_nan) replace_python_nan(copy_.data(), copy_.size());
  view_ = simdjson::padded_string_view(copy_.data(), copy_.size(), copy_.size() + simdjson::SIMDJSON_PADDING);
}

std::optional<std::string_view> plain_string(const char* raw, const char* end) {
  const void* q = std::memchr(raw, '"', size_t(end - raw));
  if (!q) return std::nullopt;
  std::string_view s(raw, size_t(static_cast<const char*>(q) - raw));
  if (s.find('\\') != std::string_view::npos) return std::nullopt;
  return s;
}

bool key_of(od::field& f, const char* end, std::string_view& key) {
  if (auto p = plain_string(f.key().raw(), end)) {
    key = *p;
    return true;
  }
  return !f.unescaped_key().get(key);
}

bool check_value(od::value v, const char* end, size_t depth) {
  od::json_type t;
  if (v.type().get(t)) return false;
  switch (t) {
    case od::json_type::object: {
      od::object o;
      if (depth > kMaxDepth || v.get_object().get(o)) return false;
      for (auto member : o) {
        od::field f;
        std::string_view key;
        if (std::move(member).get(f) || !key_of(f, end, key) || !check_value(f.value(), end, depth + 1))
          return false;
      }
      return true;
    }
    case od::json_type::array: {
      od::array a;
      if (depth > kMaxDepth || v.get_array().get(a)) return false;
      for (auto element : a) {
        od::value e;
        if (element.get(e) || !check_value(e, end, depth + 1)) return false;
      }
      return true;
    }
    case od::json_type::string: {
      std::string_view s;
      return !v.get_string().get(s);
    }
    case od::json_type::number: {
      od::number n;
      return !simdjson_misreads(v.raw_json_token()) && !v.get_number().get(n);
    }
    case od::json_type::boolean: {
      bool b;
      return !v.get_bool().get(b);
    }
    case od::json_type::null: return null_value(v, t);
  }
  return false;
}

bool build_value(od::value v, json& out, const char* end, size_t depth) {
  Walker w(end);
  return w.build(v, out, depth);
}

std::string_view trimmed_token(od::value& v) {
  std::string_view t = v.raw_json_token();
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\n' || t.back() == '\r'))
    t.remove_suffix(1);
  return t;
}

bool finite_double(od::value& v, double& out) {
  // get_double reads long mantissas right; only get_number misreads them
  // (simdjson_misreads): 200,000 random numbers of 19-28 digits, with and
  // without exponents, all equal to strtod's.
  const std::string_view t = v.raw_json_token();
  if (v.get_double().get(out) || !std::isfinite(out)) return false;
  // nlohmann reads "-0" as the integer 0; simdjson as the double -0.0.
  if (out == 0 && std::signbit(out) && t.find_first_of(".eE") == std::string_view::npos) out = 0;
  return true;
}

bool python_number(od::value& v, double& out) {
  const std::string_view t = trimmed_token(v);
  if (t == "NaN") out = std::nan("");
  else if (t == "Infinity") out = INFINITY;
  else if (t == "-Infinity") out = -INFINITY;
  else return false;
  return true;
}

bool null_value(od::value& v, od::json_type t) {
  bool is = false;
  return t == od::json_type::null && !v.is_null().get(is) && is;
}

bool string_value(od::value& v, const char* end, std::string_view& s) {
  od::raw_json_string raw;
  if (v.get_raw_json_string().get(raw)) return false;
  if (auto p = plain_string(raw.raw(), end)) {
    s = *p;
    return true;
  }
  return !v.get_string().get(s);
}

bool simdjson_misreads(std::string_view number) {
  size_t digits = 0;
  for (char c : number) {
    if (c == 'e' || c == 'E') break;
    if (c >= '0' && c <= '9') ++digits;
  }
  return digits > 18;
}

void use_simdjson(bool on) { g_simdjson = on; }
bool simdjson_enabled() { return g_simdjson; }

std::optional<Result<Streamed>> simd_stream(JsonText text, const std::string& source,
                                            const std::string* key, const ChildFn* on_child,
                                            bool python_nan, const StartFn* on_start) {
  if (!g_simdjson) return std::nullopt;
  SimdText buf(text, python_nan);
  od::parser parser;
  Walker w(buf.end());
  od::document doc;
  od::value root;
  od::json_type t;
  if (parser.iterate(buf.view()).get(doc) || doc.type().get(t)) return std::nullopt;
  if (t != od::json_type::object && t != od::json_type::array) return std::nullopt;
  if (doc.get_value().get(root)) return std::nullopt;
  if (!on_child) {
    Streamed out;
    if (!w.build(root, out.rest, 1) || !at_end(doc)) return std::nullopt;
    return Result<Streamed>(std::move(out));
  }
  Streamer st(w, source, *on_child, on_start);
  bool ok = st.run(root, t, *key);
  if (st.error) return Result<Streamed>(*st.error);
  if (ok && at_end(doc)) return Result<Streamed>(std::move(st.out));
  // Nothing handed out yet: the SAX path reads it all again.
  if (st.out.children == 0 && st.out_starts == 0) return std::nullopt;
  // Children were handed out and cannot be taken back: the SAX path reads
  // the document again and hands on only the ones after them, so the
  // parser sees each child (and each start) once, and the error is the
  // one the SAX path alone would have stopped at.
  return sax_resume({buf.data(), buf.size()}, source, *key, *on_child, st.out.children, on_start,
                    st.out_starts);
}

}  // namespace bb::formats::detail
