#include "util/result.h"

#include <cstring>

namespace bb {

const char* errc_name(Errc code) {
  switch (code) {
    case Errc::invalid_argument: return "invalid-argument";
    case Errc::not_found: return "not-found";
    case Errc::io: return "io";
    case Errc::parse: return "parse";
    case Errc::conflict: return "conflict";
    case Errc::unavailable: return "unavailable";
    case Errc::timeout: return "timeout";
    case Errc::cancelled: return "cancelled";
    case Errc::permission_denied: return "permission-denied";
    case Errc::internal: return "internal";
  }
  return "internal";
}

Error errno_error(const std::string& what, int err) {
  Errc code = Errc::io;
  if (err == ENOENT) code = Errc::not_found;
  if (err == EINVAL) code = Errc::invalid_argument;
  if (err == ETIMEDOUT) code = Errc::timeout;
  return Error{code, what + ": " + std::strerror(err)};
}

}  // namespace bb
