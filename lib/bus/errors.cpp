#include "bus/errors.h"

#include <cerrno>
#include <cstring>
#include <string>

namespace bb::bus {

const char* error_name(Errc code) {
  switch (code) {
    case Errc::invalid_argument: return SD_BUS_ERROR_INVALID_ARGS;
    case Errc::not_found: return kErrorNotFound;
    case Errc::io: return kErrorIo;
    case Errc::parse: return kErrorParse;
    case Errc::conflict: return kErrorConflict;
    case Errc::unavailable: return kErrorUnavailable;
    case Errc::timeout: return kErrorTimeout;
    case Errc::cancelled: return kErrorCancelled;
    case Errc::permission_denied: return SD_BUS_ERROR_ACCESS_DENIED;
    case Errc::internal: return kErrorInternal;
  }
  return kErrorInternal;
}

int set_error(sd_bus_error* ret_error, const Error& error) {
  return sd_bus_error_set(ret_error, error_name(error.code), error.message.c_str());
}

Error from_bus_error(const sd_bus_error* error, int r, const char* what) {
  std::string msg = what;
  Errc code = Errc::unavailable;
  if (error && error->name) {
    std::string name = error->name;
    msg += ": " + std::string(error->message ? error->message : name);
    if (name == SD_BUS_ERROR_INVALID_ARGS) code = Errc::invalid_argument;
    else if (name == kErrorNotFound) code = Errc::not_found;
    else if (name == kErrorConflict) code = Errc::conflict;
    else if (name == kErrorIo) code = Errc::io;
    else if (name == kErrorParse) code = Errc::parse;
    else if (name == kErrorTimeout || name == SD_BUS_ERROR_TIMEOUT || name == SD_BUS_ERROR_NO_REPLY) code = Errc::timeout;
    else if (name == kErrorCancelled) code = Errc::cancelled;
    else if (name == SD_BUS_ERROR_ACCESS_DENIED) code = Errc::permission_denied;
  } else {
    msg += ": " + std::string(std::strerror(r < 0 ? -r : r));
  }
  return Error{code, msg};
}

}  // namespace bb::bus
