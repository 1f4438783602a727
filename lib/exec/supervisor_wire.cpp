#include "exec/supervisor_wire.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "exec/fd_message.h"

namespace bb::exec::wire {

Status send(int socket, const nlohmann::json& message, const std::vector<int>& fds) {
  const std::string text = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kMaxMessage)
    return make_error(Errc::invalid_argument, "the message for the supervisor is " + std::to_string(text.size()) +
                                                  " bytes, more than " + std::to_string(kMaxMessage));
  if (fds.size() > kMaxFds) return make_error(Errc::invalid_argument, "too many fds for one message");
  const ssize_t sent = send_with_fds(socket, text.data(), text.size(), fds);
  if (sent < 0) return errno_error("send to the supervisor's socket", errno);
  if (static_cast<size_t>(sent) != text.size()) return make_error(Errc::io, "a message to the supervisor was cut short");
  return {};
}

Result<Received> receive(int socket) {
  std::string buffer(kMaxMessage + 1, '\0');
  FdDatagram d = receive_with_fds(socket, buffer.data(), buffer.size());
  if (d.size < 0) return errno_error("read the supervisor's socket", errno);
  Received out;
  out.fds = std::move(d.fds);
  if (d.size == 0) {
    out.closed = true;
    return out;
  }
  if (d.flags & (MSG_TRUNC | MSG_CTRUNC)) return make_error(Errc::parse, "a supervisor message was cut short");
  buffer.resize(static_cast<size_t>(d.size));
  out.message = nlohmann::json::parse(buffer, nullptr, false);
  if (!out.message.is_object()) return make_error(Errc::parse, "a supervisor message is not a JSON object");
  return out;
}

}  // namespace bb::exec::wire
