// The parts of the simdjson path (json_simd.cpp) that a format's own
// simdjson reader uses as well: reading keys and strings without copying.
// Internal to lib/formats.
#pragma once

#include <simdjson.h>

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

// A string's content straight from the input when it has no escapes
// (stage 1 has already checked its UTF-8 and control characters), so it
// is not copied into simdjson's string buffer, which a large file would
// otherwise fill page by page; nullopt when it has escapes. `raw` points
// just past the opening quote, `end` at the end of the input.
std::optional<std::string_view> plain_string(const char* raw, const char* end);

// A member's key: plain_string, else unescaped by simdjson. False where
// simdjson stops.
bool key_of(simdjson::ondemand::field& f, const char* end, std::string_view& key);

}  // namespace bb::formats::detail
