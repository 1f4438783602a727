#include "http/form.h"

#include <curl/curl.h>

#include <algorithm>
#include <limits>
#include <cctype>
#include <memory>

#include "util/text.h"

namespace bb::http {

std::string media_type(std::string_view content_type) {
  std::string t = trim(content_type.substr(0, content_type.find(';')));
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return t;
}

namespace {

bool hex_digit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// '+' first (a literal plus arrives as %2B), then %XX by libcurl.
Result<std::string> decode(std::string_view encoded) {
  std::string s(encoded);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') s[i] = ' ';
    if (s[i] == '%' && (i + 2 >= s.size() || !hex_digit(s[i + 1]) || !hex_digit(s[i + 2])))
      return make_error(Errc::parse, "broken percent-encoding at byte " + std::to_string(i));
  }
  int len = 0;
  std::unique_ptr<char, decltype(&curl_free)> out(
      curl_easy_unescape(nullptr, s.data(), static_cast<int>(s.size()), &len), &curl_free);
  if (!out) return make_error(Errc::internal, "percent-decoding failed");
  return std::string(out.get(), static_cast<size_t>(len));
}

}  // namespace

Result<std::string> form_field(std::string_view body, std::string_view name) {
  if (body.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return make_error(Errc::invalid_argument, "form body too large");
  std::optional<std::string> found;
  size_t start = 0;
  while (start <= body.size()) {
    size_t end = body.find('&', start);
    if (end == std::string_view::npos) end = body.size();
    std::string_view pair = body.substr(start, end - start);
    size_t eq = pair.find('=');
    auto key = decode(pair.substr(0, eq));
    if (!key) return key.error();
    if (*key == name) {
      if (found) return make_error(Errc::parse, "form field '" + std::string(name) + "' appears more than once");
      auto value = decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
      if (!value) return value.error().with_context("form field '" + std::string(name) + "'");
      found = std::move(*value);
    }
    start = end + 1;
  }
  if (!found) return make_error(Errc::parse, "form body has no '" + std::string(name) + "' field");
  return std::move(*found);
}

}  // namespace bb::http
