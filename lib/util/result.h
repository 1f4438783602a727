// Error values for library code. Library code never logs and never throws
// across its API: it returns a Result, and the daemon decides what to log.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace bb {

// Broad categories, so daemons can map an error to an HTTP status or a
// D-Bus error name without parsing messages.
enum class Errc {
  invalid_argument,  // the caller's input is wrong (bad config, bad payload)
  not_found,
  io,                // the OS said no (open, write, fsync, ...)
  parse,             // a file or payload could not be parsed
  conflict,          // state does not allow it (job not running, already done)
  unavailable,       // a peer or resource is not there right now
  timeout,
  cancelled,
  permission_denied,  // the caller may not do this (a bus caller's identity)
  internal,
};

const char* errc_name(Errc code);

struct Error {
  Errc code = Errc::internal;
  std::string message;

  // "context: message", so callers can add where without losing what.
  Error with_context(const std::string& context) const {
    return Error{code, context + ": " + message};
  }
};

inline Error make_error(Errc code, std::string message) { return Error{code, std::move(message)}; }

// Error from errno, e.g. errno_error("open /x", errno) -> "open /x: No such file".
Error errno_error(const std::string& what, int err);

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

// Inside a function returning a Result: returns the error of `expr` (a
// Status or a Result) if it failed.
#define BB_TRY(expr)             \
  do {                           \
    if (auto st_ = (expr); !st_) \
      return st_.error();        \
  } while (0)


}  // namespace bb
