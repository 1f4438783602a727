// The two bodies GitHub can send: application/json, or
// application/x-www-form-urlencoded with the JSON in a `payload` field
// (the hook's "content type" setting).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace bb::http {

// The media type of a Content-Type value, lowercased, parameters dropped:
// "Application/JSON; charset=utf-8" -> "application/json".
std::string media_type(std::string_view content_type);

// The value of field `name` in an x-www-form-urlencoded body, decoded
// ('+' is a space, %XX a byte; percent-decoding by libcurl). Errors: the field
// is absent, repeated, or its encoding is broken.
Result<std::string> form_field(std::string_view body, std::string_view name);

}  // namespace bb::http
