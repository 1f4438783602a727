// Reading dotted paths ("pull_request.head.sha") out of one webhook
// payload, every absence or type mismatch an error naming the field.
// Internal to lib/github (payload.cpp).
//
// Two documents behind one interface: simdjson's DOM, which reads a
// delivery several times faster, and nlohmann's, which reads what simdjson
// refuses and words the syntax errors people see in a 400 response
// (line, column, what was expected). Both answer every path the same way;
// test_payload.cpp runs each payload through both.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "util/result.h"

namespace bb::github::detail {

// What a path leads to. Views are valid while the document is.
struct Scalar {
  enum class Kind { absent, null, string, integer, boolean, other } kind = Kind::absent;
  std::string_view text;
  int64_t integer = 0;
  bool boolean = false;
};

class Fields {
 public:
  explicit Fields(std::string event) : event_(std::move(event)) {}
  virtual ~Fields() = default;
  Fields(const Fields&) = delete;
  Fields& operator=(const Fields&) = delete;

  Result<std::string> string(std::string_view path) const;
  // A string that may be null or absent (GitHub sends null for some fields).
  Result<std::string> optional_string(std::string_view path) const;
  Result<int64_t> integer(std::string_view path) const;
  Result<bool> boolean(std::string_view path) const;
  bool optional_bool(std::string_view path) const;
  // Present and not null.
  bool has(std::string_view path) const;

  // The value at `path`; absent when a step is missing or not an object.
  // Where a key repeats, the last one counts (as nlohmann keeps it).
  virtual Scalar lookup(std::string_view path) const = 0;

 private:
  Result<Scalar> find(std::string_view path) const;
  Error wrong_type(std::string_view path, const char* expected) const;

  std::string event_;
};

// The payload as simdjson reads it; nullptr where simdjson refuses the text
// (the nlohmann document then reads it and words the error).
std::unique_ptr<Fields> simdjson_fields(std::string_view body, std::string event);
// The payload as nlohmann reads it: the fields of a root object, or the
// error parse_event returns.
Result<std::unique_ptr<Fields>> nlohmann_fields(std::string_view body, std::string event);
// Off makes parse_event read every payload with nlohmann (tests), per thread.
void use_simdjson(bool on);
bool simdjson_enabled();

}  // namespace bb::github::detail
