// The parts of the simdjson path (json_simd.cpp) that a format's own
// simdjson reader uses as well: reading keys and strings without copying.
// Internal to lib/formats.
#pragma once

#include "util/simdjson.h"

#include <optional>
#include <string_view>

#include "formats/json_support.h"

namespace bb::formats::detail {

// The text as simdjson reads it: in place when it is padded and nothing in
// it is to be replaced, else a padded copy (with Python's NaN tokens
// replaced, for python_nan).
class SimdText {
 public:
  SimdText(JsonText text, bool python_nan);
  SimdText(const SimdText&) = delete;
  SimdText& operator=(const SimdText&) = delete;

  const simdjson::padded_string_view& view() const { return view_; }
  const char* data() const { return view_.data(); }
  size_t size() const { return view_.size(); }
  const char* end() const { return view_.data() + view_.size(); }

 private:
  simdjson::padded_string copy_;
  simdjson::padded_string_view view_;
};

// A document whose root is an object, read by a format's own reader: the
// text, the parser and the document, which must live as long as anything
// read from them. open() is false where simdjson stops or the root is not
// an object; at_end() is true once nothing follows the root.
struct SimdRoot {
  SimdRoot(JsonText text, bool python_nan) : buf(text, python_nan) {}
  bool open(simdjson::ondemand::object& root) {
    return !parser.iterate(buf.view()).get(doc) && !doc.get_object().get(root);
  }
  bool at_end() { return doc.current_location().error() == simdjson::OUT_OF_BOUNDS; }

  SimdText buf;
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
};

// A string's content straight from the input when it has no escapes
// (stage 1 has already checked its UTF-8 and control characters), so it
// is not copied into simdjson's string buffer, which a large file would
// otherwise fill page by page; nullopt when it has escapes. `raw` points
// just past the opening quote, `end` at the end of the input.
std::optional<std::string_view> plain_string(const char* raw, const char* end);

// A member's key: plain_string, else unescaped by simdjson. False where
// simdjson stops.
bool key_of(simdjson::ondemand::field& f, const char* end, std::string_view& key);

// A format's own reader reads only the members it uses; the rest goes
// through one of these, so the file is checked (or built) as the DOM reader
// would check it. False where simdjson stops, also on a number it misreads:
// the caller then leaves the whole file to the DOM reader, which words the
// error. `depth` is the value's nesting, the root's 1: a container
// deeper than kMaxDepth is refused, as the DOM reader refuses it.
//
// A value that is not read, checked: On-Demand skips what it is not asked
// for without looking at its grammar (stage 1 only indexes it), so "1x" or
// a broken string there would pass unseen.
bool check_value(simdjson::ondemand::value v, const char* end, size_t depth);
// A value as the DOM reader holds it: nlohmann's types, the last of a
// repeated key.
bool build_value(simdjson::ondemand::value v, json& out, const char* end, size_t depth);
// A finite number as the DOM reader reads it (nlohmann's "-0" is +0.0);
// false for anything else.
bool finite_double(simdjson::ondemand::value& v, double& out);
// Python's NaN, Infinity or -Infinity, as the value's whole token (which
// simdjson does not type, or types as a number it cannot read), read in
// place as the DOM reader reads them after replace_python_nan; false for
// anything else.
bool python_number(simdjson::ondemand::value& v, double& out);
// A reader that takes Python's tokens where its format writes them
// (python_number), run on the text in place; only when it refuses a text
// that may hold one elsewhere, again on a copy with them replaced
// (SimdText's python_nan). Searching every file for them first was 5 % of
// a pytest-benchmark parse.
template <class Read>
auto read_python_json(JsonText text, Read&& read) -> decltype(read(text, false)) {
  if (auto out = read(text, false)) return out;
  if (!may_hold_python_nan(text.text)) return std::nullopt;
  return read(text, true);
}
// True for a value of type `t` that is really null: type() looks only at
// the first byte, so "nwll" has type null too.
bool null_value(simdjson::ondemand::value& v, simdjson::ondemand::json_type t);
// A scalar's text, without the whitespace simdjson keeps after it.
std::string_view trimmed_token(simdjson::ondemand::value& v);
// A string's content (plain_string, else unescaped by simdjson).
bool string_value(simdjson::ondemand::value& v, const char* end, std::string_view& s);

}  // namespace bb::formats::detail
