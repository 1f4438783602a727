#include "formats/json_support.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "formats/parsers.h"

namespace bb::formats::detail {

std::string line_col(std::string_view text, size_t offset) {
  if (offset > text.size()) offset = text.size();
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return std::to_string(line) + ":" + std::to_string(offset - line_start + 1);
}

namespace {

// Same-length stand-ins for Python's non-JSON number tokens.
constexpr std::string_view kNaN = "\"N\"", kInf = "\"Infini\"", kNegInf = "\"-Infini\"";

}  // namespace

void append_pointer_token(std::string& ptr, std::string_view key) {
  // Two memchr scans: find_first_of("~/") calls memchr once per character,
  // and every benchmark's place goes through here.
  if (key.find('~') == std::string_view::npos && key.find('/') == std::string_view::npos) {
    ptr.append(key);
    return;
  }
  for (char c : key) {
    if (c == '~') ptr += "~0";
    else if (c == '/') ptr += "~1";
    else ptr += c;
  }
}

std::string escape_pointer_token(std::string_view key) {
  std::string out;
  append_pointer_token(out, key);
  return out;
}

bool may_hold_python_nan(std::string_view text) {
  return text.find("NaN") != std::string_view::npos || text.find("Infinity") != std::string_view::npos;
}

void replace_python_nan(char* out, size_t size) {
  std::string_view text(out, size);
  // Most files hold neither token: one fast search instead of a walk.
  if (!may_hold_python_nan(text)) return;
  bool in_string = false;
  for (size_t i = 0; i < size; ++i) {
    char c = out[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c != 'N' && c != 'I' && c != '-') {
      continue;
    } else if (text.compare(i, 3, "NaN") == 0) {
      std::memcpy(out + i, kNaN.data(), 3);
      i += 2;
    } else if (text.compare(i, 8, "Infinity") == 0) {
      std::memcpy(out + i, kInf.data(), 8);
      i += 7;
    } else if (text.compare(i, 9, "-Infinity") == 0) {
      std::memcpy(out + i, kNegInf.data(), 9);
      i += 8;
    }
  }
}

namespace {

// nlohmann's message is "[json.exception.parse_error.101] parse error at line
// L, column C: what"; keep "what", the position is computed from the offset.
std::string syntax_message(const nlohmann::detail::exception& ex, std::string_view text, size_t pos) {
  std::string msg = ex.what();
  if (auto col = msg.find("column "); col != std::string::npos)
    if (auto colon = msg.find(": ", col); colon != std::string::npos) msg = msg.substr(colon + 2);
  if (auto bracket = msg.find("] "); msg.rfind("[json.exception", 0) == 0 && bracket != std::string::npos)
    msg = msg.substr(bracket + 2);
  size_t at = pos > 0 ? pos - 1 : 0;
  for (std::string_view tok : {"NaN", "Infinity", "-Infinity"})
    for (size_t back = 0; back < tok.size() && back <= at; ++back)
      if (text.substr(at - back, tok.size()) == tok)
        return msg + " (" + std::string(tok) + " is not a JSON number)";
  return msg;
}

// Builds a DOM from SAX events, except that the children of one container
// (root member `key_`, or the root when key_ is empty) are built one at a
// time and handed to a callback. With no callback it is a plain DOM builder
// with a depth limit.
class StreamingBuilder : public nlohmann::json_sax<json> {
 public:
  StreamingBuilder(std::string_view text, const std::string& source, std::string key,
                   const ChildFn* on_child, const StartFn* on_start = nullptr)
      : text_(text), source_(source), key_(std::move(key)), on_child_(on_child), on_start_(on_start) {
    target_loc_.source = &source_;
  }

  bool null() override { return value(json(nullptr)); }
  bool boolean(bool v) override { return value(json(v)); }
  bool number_integer(number_integer_t v) override { return value(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return value(json(v)); }
  bool string(string_t& v) override { return value(json(std::move(v))); }
  bool binary(binary_t& v) override { return value(json::binary(std::move(v))); }

  bool start_object(size_t) override { return open(json::object()); }
  bool start_array(size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& k) override {
    stack_.back().key = std::move(k);
    return true;
  }

  bool parse_error(size_t pos, const std::string&, const nlohmann::detail::exception& ex) override {
    if (!failed_)
      error_ = error_at(source_, line_col(text_, pos > 0 ? pos - 1 : 0),
                        syntax_message(ex, text_, pos));
    failed_ = true;
    return false;
  }

  bool failed() const { return failed_; }
  const Error& error() const { return error_; }
  Streamed take() {
    streamed_.rest = std::move(root_);
    return std::move(streamed_);
  }

 private:
  struct Frame {
    json* value;
    bool target = false;
    std::string key;
    size_t index = 0;
  };

  bool fail(const std::string& place, const std::string& what) {
    error_ = error_at(source_, place, what);
    failed_ = true;
    return false;
  }

  json& add(Frame& f, json&& v) {
    if (f.value->is_array()) {
      f.value->push_back(std::move(v));
      return f.value->back();
    }
    json& slot = (*f.value)[f.key];
    slot = std::move(v);
    return slot;
  }

  bool deliver(Frame& f, json&& v) {
    std::string k = f.value->is_object() ? f.key : std::to_string(f.index);
    ++f.index;
    ++streamed_.children;
    Loc at = target_loc_.child(k);
    auto st = (*on_child_)(k, std::move(v), at);
    if (!st) {
      error_ = st.error();
      failed_ = true;
      return false;
    }
    return true;
  }

  bool value(json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return true;
    }
    Frame& f = stack_.back();
    if (f.target) return deliver(f, std::move(v));
    add(f, std::move(v));
    return true;
  }

  bool open(json&& container) {
    if (stack_.size() >= kMaxDepth)
      return fail("", "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    bool is_object = container.is_object();
    if (stack_.empty()) {
      root_ = std::move(container);
      bool target = on_child_ && key_.empty();
      if (target && !mark_target(is_object, "", json::object())) return false;
      stack_.push_back({&root_, target, {}, 0});
      return true;
    }
    Frame& f = stack_.back();
    if (f.target) {
      child_ = std::move(container);
      stack_.push_back({&child_, false, {}, 0});
      return true;
    }
    if (on_child_ && stack_.size() == 1 && f.value->is_object() && f.key == key_) {
      placeholder_ = std::move(container);
      if (!mark_target(is_object, "/" + escape_pointer_token(key_), root_)) return false;
      stack_.push_back({&placeholder_, true, {}, 0});
      return true;
    }
    json& slot = add(f, std::move(container));
    stack_.push_back({&slot, false, {}, 0});
    return true;
  }

  bool mark_target(bool is_object, std::string ptr, const json& before) {
    streamed_.found = true;
    streamed_.kind = is_object ? Kind::object : Kind::array;
    target_loc_.ptr = std::move(ptr);
    if (!on_start_) return true;
    if (auto st = (*on_start_)(before); !st) {
      error_ = st.error();
      failed_ = true;
      return false;
    }
    return true;
  }

  bool close() {
    json* done = stack_.back().value;
    stack_.pop_back();
    if (done == &child_ && !stack_.empty() && stack_.back().target)
      return deliver(stack_.back(), std::move(child_));
    return true;
  }

  std::string_view text_;
  const std::string& source_;
  std::string key_;
  const ChildFn* on_child_;
  const StartFn* on_start_;
  json root_, child_, placeholder_;
  std::vector<Frame> stack_;
  Loc target_loc_;
  Streamed streamed_;
  Error error_;
  bool failed_ = false;
};

template <class Handler>
bool run_sax(std::string_view text, Handler& h) {
  return json::sax_parse(text.begin(), text.end(), &h, json::input_format_t::json, true);
}

}  // namespace

Result<json> parse_json(JsonText in, const std::string& source, bool python_nan) {
  if (auto fast = simd_stream(in, source, nullptr, nullptr, python_nan)) {
    if (!*fast) return fast->error();
    return std::move((*fast)->rest);
  }
  std::string_view text = in.text;
  std::string replaced;
  if (python_nan) {
    replaced = text;
    replace_python_nan(replaced.data(), replaced.size());
    text = replaced;
  }
  StreamingBuilder b(text, source, "", nullptr);
  run_sax(text, b);
  if (b.failed()) return b.error();
  return b.take().rest;
}

Result<Streamed> stream_children(JsonText in, const std::string& source, const std::string& key,
                                 const ChildFn& on_child, bool python_nan, const StartFn* on_start) {
  if (auto fast = simd_stream(in, source, &key, &on_child, python_nan, on_start)) return std::move(*fast);
  std::string_view text = in.text;
  std::string replaced;
  if (python_nan) {
    replaced = text;
    replace_python_nan(replaced.data(), replaced.size());
    text = replaced;
  }
  StreamingBuilder b(text, source, key, &on_child, on_start);
  run_sax(text, b);
  if (b.failed()) return b.error();
  return b.take();
}

Result<Streamed> sax_resume(std::string_view text, const std::string& source, const std::string& key,
                            const ChildFn& on_child, size_t skip, const StartFn* on_start,
                            size_t skip_starts) {
  size_t seen = 0, started = 0;
  const ChildFn rest = [&](const std::string& k, json&& v, const Loc& at) -> Status {
    if (seen++ < skip) return {};
    return on_child(k, std::move(v), at);
  };
  const StartFn start = [&](const json& before) -> Status {
    if (started++ < skip_starts) return {};
    return (*on_start)(before);
  };
  StreamingBuilder b(text, source, key, &rest, on_start ? &start : nullptr);
  run_sax(text, b);
  if (b.failed()) return b.error();
  return b.take();
}

static std::string type_of(const json& v) {
  if (v.is_number()) return "a number";
  if (v.is_string()) return "the string \"" + v.get_ref<const std::string&>().substr(0, 40) + "\"";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_null()) return "null";
  return std::string("an ") + v.type_name();
}

Status expect_streamed(const Streamed& s, const std::string& source, const std::string& key,
                       Kind kind, const std::string& what_root) {
  Loc root{&source, ""};
  if (!s.rest.is_object()) return root.bad("expected " + what_root + ", got " + type_of(s.rest));
  if (s.found && s.kind == kind) return {};
  if (s.found) return root.child(key).bad(std::string("expected ") + kind_name(kind) + ", got " + kind_name(s.kind));
  auto v = need(s.rest, root, key.c_str(), kind);
  if (!v) return v.error();
  return root.child(key).bad(std::string("expected ") + kind_name(kind));
}

// Called for every value a parser reads: one allocation, no temporaries.
Loc Loc::child(std::string_view key) const {
  Loc out{source, {}};
  out.ptr.reserve(ptr.size() + 1 + key.size());
  out.ptr.append(ptr).push_back('/');
  append_pointer_token(out.ptr, key);
  return out;
}
Loc Loc::child(size_t index) const {
  char digits[24];
  auto r = std::to_chars(digits, digits + sizeof digits, index);
  return child(std::string_view(digits, size_t(r.ptr - digits)));
}
Error Loc::bad(const std::string& what) const {
  return error_at(*source, ptr.empty() ? "(document root)" : ptr, what);
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::object: return "an object";
    case Kind::array: return "an array";
    case Kind::string: return "a string";
    case Kind::number: return "a number";
    case Kind::boolean: return "true or false";
    case Kind::any: return "a value";
  }
  return "a value";
}

bool is_kind(const json& v, Kind k) {
  switch (k) {
    case Kind::object: return v.is_object();
    case Kind::array: return v.is_array();
    case Kind::string: return v.is_string();
    case Kind::number: return v.is_number() || number(v).has_value();
    case Kind::boolean: return v.is_boolean();
    case Kind::any: return true;
  }
  return false;
}

Status expect(const json& v, const Loc& at, Kind kind) {
  if (is_kind(v, kind)) return {};
  return at.bad(std::string("expected ") + kind_name(kind) + ", got " + type_of(v));
}

Result<const json*> maybe(const json& obj, const Loc& at, const char* key, Kind kind) {
  if (!obj.is_object()) return at.bad(std::string("expected an object, got ") + type_of(obj));
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return static_cast<const json*>(nullptr);
  if (is_kind(*it, kind)) return &*it;  // the place is built only for an error
  return expect(*it, at.child(key), kind).error();
}

Result<const json*> need(const json& obj, const Loc& at, const char* key, Kind kind) {
  auto v = maybe(obj, at, key, kind);
  if (!v) return v.error();
  if (!*v) {
    bool present = obj.contains(key);
    return at.child(key).bad(std::string(present ? "is null, expected " : "is missing, expected ") +
                             kind_name(kind));
  }
  return *v;
}

std::optional<double> number(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == kNaN.substr(1, kNaN.size() - 2)) return std::nan("");
    if (s == kInf.substr(1, kInf.size() - 2)) return INFINITY;
    if (s == kNegInf.substr(1, kNegInf.size() - 2)) return -INFINITY;
  }
  return std::nullopt;
}

Result<double> finite_number(const json& v, const Loc& at) {
  auto n = number(v);
  if (!n) return at.bad("expected a number, got " + type_of(v));
  if (!std::isfinite(*n)) return at.bad("expected a finite number, got " + std::string(std::isnan(*n) ? "NaN" : "infinity"));
  return *n;
}

Result<double> need_number(const json& obj, const Loc& at, const char* key) {
  auto v = need(obj, at, key, Kind::number);
  if (!v) return v.error();
  return finite_number(**v, [&] { return at.child(key); });
}

Result<std::string> need_string(const json& obj, const Loc& at, const char* key) {
  auto v = need(obj, at, key, Kind::string);
  if (!v) return v.error();
  return (*v)->get<std::string>();
}

std::string param_string(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// Records top-level structure only; builds nothing, so any size is cheap.
namespace {
class ShapeSax : public nlohmann::json_sax<json> {
 public:
  ShapeSax(std::string_view text, const std::string& source) : text_(text), source_(source) {}
  bool null() override { return scalar(Kind::any); }
  bool boolean(bool) override { return scalar(Kind::boolean); }
  bool number_integer(number_integer_t) override { return scalar(Kind::number); }
  bool number_unsigned(number_unsigned_t) override { return scalar(Kind::number); }
  bool number_float(number_float_t, const string_t&) override { return scalar(Kind::number); }
  bool string(string_t& v) override {
    if (depth_ == 1 && key1_ == "schema") shape.schema = v;
    return scalar(Kind::string);
  }
  bool binary(binary_t&) override { return scalar(Kind::any); }
  bool start_object(size_t) override { return open(Kind::object); }
  bool start_array(size_t) override { return open(Kind::array); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      key1_ = k;
      children_ = 0;
    } else if (depth_ == 2) {
      auto& keys = shape.member_keys[key1_];
      if (keys.size() < 16) keys.push_back(k);
    } else if (depth_ == 3 && in_first_child_) {
      auto& keys = shape.first_child_members[key1_];
      if (keys.size() < 64) keys.push_back(k);
    }
    return true;
  }
  bool parse_error(size_t pos, const std::string&, const nlohmann::detail::exception& ex) override {
    error = error_at(source_, line_col(text_, pos > 0 ? pos - 1 : 0), syntax_message(ex, text_, pos));
    return false;
  }

  Shape shape;
  std::optional<Error> error;

 private:
  bool scalar(Kind k) {
    if (depth_ == 0) shape.root = k;
    if (depth_ == 1) shape.members[key1_] = k;
    if (depth_ == 2) ++children_;
    return true;
  }
  bool open(Kind k) {
    if (depth_ >= kMaxDepth) {
      error = error_at(source_, "", "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
      return false;
    }
    if (depth_ == 0) shape.root = k;
    if (depth_ == 1) shape.members[key1_] = k;
    if (depth_ == 2) {
      if (children_ == 0 && k == Kind::object) {
        in_first_child_ = true;
        shape.first_child_members[key1_];
      }
      ++children_;
    }
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    if (depth_ == 2) in_first_child_ = false;
    return true;
  }

  std::string_view text_;
  const std::string& source_;
  size_t depth_ = 0;
  std::string key1_;
  size_t children_ = 0;
  bool in_first_child_ = false;
};
}  // namespace

Result<Shape> json_shape(std::string_view text, const std::string& source, bool python_nan) {
  std::string replaced;
  if (python_nan) {
    replaced = text;
    replace_python_nan(replaced.data(), replaced.size());
    text = replaced;
  }
  ShapeSax sax(text, source);
  run_sax(text, sax);
  if (sax.error) return *sax.error;
  return sax.shape;
}

}  // namespace bb::formats::detail
