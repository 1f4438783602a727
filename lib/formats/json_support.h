// JSON plumbing shared by the JSON formats: syntax errors as line:column,
// typed member access whose errors name the JSON pointer, Python's NaN
// tokens, and a streaming reader for the one big array a result file holds.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>
#include <cmath>

#include <nlohmann/json.hpp>

#include "util/result.h"

namespace bb::formats::detail {

using json = nlohmann::json;

// JSON text as the readers take it. `padded`: at least kTextPadding
// readable bytes follow it (ParseOptions::text_padded), so simdjson reads
// it in place rather than from a padded copy of a file that may be 100s of MB.
struct JsonText {
  // Any text converts, unpadded.
  JsonText(std::string_view t) : text(t) {}         // NOLINT(google-explicit-constructor)
  JsonText(const std::string& t) : text(t) {}       // NOLINT(google-explicit-constructor)
  JsonText(const char* t) : text(t) {}              // NOLINT(google-explicit-constructor)
  JsonText(std::string_view t, bool p) : text(t), padded(p) {}
  std::string_view text;
  bool padded = false;
};

// 1-based "line:column" of a byte offset (column counts bytes).
std::string line_col(std::string_view text, size_t offset);

// Python's json module writes NaN, Infinity and -Infinity. With
// python_nan, those tokens (outside strings) are read as the same-length
// strings "N", "Infini" and "-Infini", which number() turns back into
// NaN/inf, so the caller can say what a NaN means in its format.
Result<json> parse_json(JsonText text, const std::string& source, bool python_nan = false);

// Where a value sits: the file and the JSON pointer inside it.
struct Loc {
  const std::string* source;
  std::string ptr;

  Loc child(std::string_view key) const;
  Loc child(size_t index) const;
  Error bad(const std::string& what) const;  // "source:/ptr: what"
};

enum class Kind { object, array, string, number, boolean, any };
const char* kind_name(Kind k);
bool is_kind(const json& v, Kind k);

// The member `key` of object `obj` (at `at`), of the given kind. Missing or
// the wrong kind is an error naming the member's pointer.
Result<const json*> need(const json& obj, const Loc& at, const char* key, Kind kind);
// As need(), but absent or null gives nullptr.
Result<const json*> maybe(const json& obj, const Loc& at, const char* key, Kind kind);
Status expect(const json& v, const Loc& at, Kind kind);

// A number, also accepting the Python NaN sentinels; nullopt if v is not one.
std::optional<double> number(const json& v);
// A finite number at `at`; NaN/inf and non-numbers are errors.
Result<double> finite_number(const json& v, const Loc& at);
// The same, with the place made only when there is an error: for loops over
// many values, where building every pointer would cost more than the read.
template <class LocFn>
  requires std::is_invocable_r_v<Loc, LocFn>
Result<double> finite_number(const json& v, LocFn&& at) {
  if (v.is_number_integer()) return v.get<double>();
  if (v.is_number_float())
    if (double d = v.get<double>(); std::isfinite(d)) return d;
  return finite_number(v, at());
}
Result<double> need_number(const json& obj, const Loc& at, const char* key);
Result<std::string> need_string(const json& obj, const Loc& at, const char* key);

// A JSON value as a parameter string: strings as they are, others dumped.
std::string param_string(const json& v);

// Parses a document whose bulk is one container: the value of root member
// `key` (or the root itself when key is empty). Each child of that container
// is built alone and handed to on_child(child key or index, value, its
// pointer), then dropped, so memory stays near the size of one child. The
// rest of the document is returned as a DOM without that member. Returns
// the error on_child returned, or a syntax error as source:line:column.
using ChildFn = std::function<Status(const std::string& key, json&& value, const Loc& at)>;
struct Streamed {
  json rest;                 // the document without the streamed container
  bool found = false;        // the container was there (and was an array or object)
  Kind kind = Kind::any;     // Kind::array or Kind::object when found
  size_t children = 0;
};
// on_start, when given, is called once as the container opens, with the
// members of the root before it: what a reader needs to know before the
// first child (asv's column names); its error stops the read.
using StartFn = std::function<Status(const json& before)>;
Result<Streamed> stream_children(JsonText text, const std::string& source,
                                 const std::string& key, const ChildFn& on_child,
                                 bool python_nan = false, const StartFn* on_start = nullptr);

// After stream_children: the root must be an object whose member `key` was
// a container of `kind`; otherwise an error saying what was there instead.
Status expect_streamed(const Streamed& s, const std::string& source, const std::string& key,
                       Kind kind, const std::string& what_root);

// The simdjson fast path behind parse_json and stream_children (json_simd.cpp):
// the same result, or nullopt when simdjson refuses the text and the SAX
// path must read it (and word the error). `key` and `on_child` as for
// stream_children; both null for a plain DOM.
std::optional<Result<Streamed>> simd_stream(JsonText text, const std::string& source,
                                            const std::string* key, const ChildFn* on_child,
                                            bool python_nan, const StartFn* on_start = nullptr);
// stream_children's SAX path, handing on_child only the children after the
// first `skip` (and on_start only the calls after the first skip_starts):
// where the simdjson path stopped after handing those out.
// `text` has had its Python tokens replaced already.
Result<Streamed> sax_resume(std::string_view text, const std::string& source, const std::string& key,
                            const ChildFn& on_child, size_t skip, const StartFn* on_start = nullptr,
                            size_t skip_starts = 0);
// simdjson 3.0.1 (Debian 12) misreads decimals of more than 18 mantissa
// digits (get_number gives 0 for about half of those with 19 or more, as a
// test of 200,000 random numbers showed; found by the fuzzers). Such a
// number is read with strtod, as nlohmann reads every number. get_double
// reads them right (finite_double in json_simd.h needs no such check).
bool simdjson_misreads(std::string_view number);
// On by default, per thread; off makes every read take the SAX path (the
// tests and fuzzers compare the two).
void use_simdjson(bool on);
bool simdjson_enabled();

// Python's NaN, Infinity and -Infinity outside strings, replaced in place by
// the same-length strings parse_json describes.
void replace_python_nan(char* text, size_t size);
// False when text cannot hold one of those tokens (one fast search), so
// nothing would be replaced.
bool may_hold_python_nan(std::string_view text);
// A JSON pointer token: "~" and "/" escaped.
std::string escape_pointer_token(std::string_view key);
// The same, appended to `ptr` (no string of its own).
void append_pointer_token(std::string& ptr, std::string_view key);

// Deepest nesting any reader accepts; deeper input is refused, not recursed.
inline constexpr size_t kMaxDepth = 256;

// Top-level member names, their kinds and, for the first child of each
// container, its member names: enough to tell formats apart without a DOM.
struct Shape {
  Kind root = Kind::any;
  std::map<std::string, Kind> members;                          // root member -> kind
  std::map<std::string, std::vector<std::string>> member_keys;  // first keys of object members
  // keys of the first child of each container member, when that child is an object
  std::map<std::string, std::vector<std::string>> first_child_members;
  std::string schema;  // the root "schema" string, if any
};
// python_nan as for parse_json.
Result<Shape> json_shape(std::string_view text, const std::string& source, bool python_nan = false);

}  // namespace bb::formats::detail
