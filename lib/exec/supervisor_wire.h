// One message of the supervisor's socket (supervisor.h): a JSON object in
// one SOCK_SEQPACKET datagram, with file descriptors beside it.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "util/fd.h"
#include "util/result.h"

namespace bb::exec::wire {

// The largest message either side sends: a command's argv and environment.
inline constexpr size_t kMaxMessage = 192 * 1024;
inline constexpr size_t kMaxFds = 3;

Status send(int socket, const nlohmann::json& message, const std::vector<int>& fds = {});

struct Received {
  bool closed = false;  // the other side is gone (EOF)
  nlohmann::json message;
  std::vector<UniqueFd> fds;  // close-on-exec
};
// Reads one message; the socket must be readable (or blocking). A message
// that is not a JSON object, or is cut short, is an error.
Result<Received> receive(int socket);

}  // namespace bb::exec::wire
