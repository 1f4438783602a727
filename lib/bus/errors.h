// D-Bus error names for benchbox (org.benchbox.Error.*) and the mapping from
// library errors. Bad arguments use the standard InvalidArgs name.
#pragma once

#include <systemd/sd-bus.h>

#include <exception>

#include "util/result.h"

namespace bb::bus {

inline constexpr const char* kErrorNotFound = "org.benchbox.Error.NotFound";
inline constexpr const char* kErrorConflict = "org.benchbox.Error.Conflict";
inline constexpr const char* kErrorIo = "org.benchbox.Error.IO";
inline constexpr const char* kErrorParse = "org.benchbox.Error.Parse";
inline constexpr const char* kErrorUnavailable = "org.benchbox.Error.Unavailable";
inline constexpr const char* kErrorTimeout = "org.benchbox.Error.Timeout";
inline constexpr const char* kErrorCancelled = "org.benchbox.Error.Cancelled";
inline constexpr const char* kErrorInternal = "org.benchbox.Error.Internal";

const char* error_name(Errc code);

// Sets `ret_error` from a library error and returns the negative errno that
// an sd-bus method handler should return.
int set_error(sd_bus_error* ret_error, const Error& error);

// Runs a method or property handler's body so that no exception crosses
// into sd-bus (a C library): an escaped exception becomes an
// org.benchbox.Error.Internal reply instead of a crashed daemon.
template <class F>
int guarded(sd_bus_error* error, F&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    return sd_bus_error_setf(error, kErrorInternal, "internal error: %s", e.what());
  } catch (...) {
    return sd_bus_error_set(error, kErrorInternal, "internal error");
  }
}

// The reverse, for clients: a failed call's sd_bus_error as a library error.
Error from_bus_error(const sd_bus_error* error, int r, const char* what);

}  // namespace bb::bus
