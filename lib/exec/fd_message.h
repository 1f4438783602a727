// One SOCK_SEQPACKET datagram with file descriptors beside it (SCM_RIGHTS):
// how the gate hands runnerd its counters (gate.h) and runnerd hands the
// job's supervisor a command's pipes (supervisor_wire.h).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <vector>

#include "util/fd.h"

namespace bb::exec {

inline constexpr size_t kMaxPassedFds = 16;

// Sends `size` bytes and `fds` (at most kMaxPassedFds) on `socket`, never
// raising SIGPIPE; the bytes sent, or -1 with errno set.
ssize_t send_with_fds(int socket, const void* data, size_t size, const std::vector<int>& fds);

struct FdDatagram {
  ssize_t size = -1;          // bytes received, 0 at EOF, -1 with errno set
  int flags = 0;              // msghdr's msg_flags (MSG_TRUNC, MSG_CTRUNC)
  std::vector<UniqueFd> fds;  // close-on-exec
};
// Receives one datagram into `buffer` and the fds that came with it.
FdDatagram receive_with_fds(int socket, void* buffer, size_t size);

}  // namespace bb::exec
