#include "conf.h"

#include <netdb.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "daemon/credential.h"
#include "util/file.h"

namespace bb::webhookd {

namespace {

// "127.0.0.1:8080", "[::1]:8080", ":8080" (all addresses).
Result<int> bind_listen(const std::string& spec) {
  size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon + 1 == spec.size())
    return make_error(Errc::invalid_argument, "--listen '" + spec + "': expected ADDR:PORT");
  std::string host = spec.substr(0, colon), port = spec.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0) return make_error(Errc::invalid_argument, "--listen '" + spec + "': " + gai_strerror(rc));
  Error last = make_error(Errc::io, "--listen '" + spec + "': no address");
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last = errno_error("socket", errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
      ::freeaddrinfo(res);
      return fd;
    }
    last = errno_error("listen on " + spec, errno);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  return last;
}

}  // namespace

Result<Conf> load_conf(const daemon::Args& args) {
  Conf conf;
  conf.source = args.config;
  conf.listen = args.option("listen");
  auto appliance = config::load_appliance_config(conf.source);
  if (!appliance) return appliance.error();
  conf.appliance = std::move(*appliance);
  return conf;
}

Result<std::string> read_secret() {
  return daemon::read_credential(
      kSecretCredential,
      "; provide it as a systemd credential, e.g. `benchbox-credentials generate webhook-secret` "
      "or `systemd-creds encrypt --name=webhook-secret secret.txt "
      "/etc/credstore.encrypted/webhook-secret` and LoadCredentialEncrypted=webhook-secret "
      "in benchbox-webhookd.service");
}

Result<int> listening_socket(const Conf& conf) {
  char** names = nullptr;
  int n = sd_listen_fds_with_names(1, &names);
  if (n < 0) return errno_error("sd_listen_fds", -n);
  int chosen = -1;
  for (int i = 0; i < n; ++i) {
    int fd = SD_LISTEN_FDS_START + i;
    bool named = names && names[i] && std::strcmp(names[i], kListenFdName) == 0;
    if (chosen < 0 || named) chosen = fd;
    if (named) break;
  }
  if (names) {
    for (int i = 0; i < n; ++i) std::free(names[i]);
    std::free(names);
  }
  // Fds we do not serve stay open harmlessly; systemd owns them.
  if (chosen >= 0) {
    if (sd_is_socket(chosen, AF_UNSPEC, SOCK_STREAM, 1) <= 0)
      return make_error(Errc::invalid_argument,
                        "the socket systemd passed (fd " + std::to_string(chosen) +
                            ") is not a listening stream socket");
    return chosen;
  }
  if (!conf.listen.empty()) return bind_listen(conf.listen);
  return make_error(Errc::invalid_argument,
                    "no listening socket: start under benchbox-webhookd.socket (socket activation) "
                    "or pass --listen ADDR:PORT for development");
}

}  // namespace bb::webhookd
