#include "exec/job_sandbox.h"

#include <errno.h>

#include <string>
#include <vector>

#include "exec/systemd_manager.h"

namespace bb::exec {

namespace {

// SystemCallFilter= and RestrictAddressFamilies= are (bas): an allow list
// (true) or a deny list (false) of names. Sent twice, the first sets the
// mode and the second edits it, as two lines of a unit file would.
int append_name_list(sd_bus_message* m, const char* name, bool allow, const std::vector<std::string>& names) {
  int r = sd_bus_message_open_container(m, 'r', "sv");
  if (r >= 0) r = sd_bus_message_append(m, "s", name);
  if (r >= 0) r = sd_bus_message_open_container(m, 'v', "(bas)");
  if (r >= 0) r = sd_bus_message_open_container(m, 'r', "bas");
  if (r >= 0) r = sd_bus_message_append(m, "b", allow ? 1 : 0);
  if (r >= 0) r = sd_bus_message_open_container(m, 'a', "s");
  for (const auto& n : names)
    if (r >= 0) r = sd_bus_message_append(m, "s", n.c_str());
  for (int i = 0; i < 4 && r >= 0; ++i) r = sd_bus_message_close_container(m);
  return r;
}

// Nothing of the box to write but the job's directory, nothing of the
// kernel to change, no privilege to gain.
int append_filesystem_and_kernel(sd_bus_message* m) {
  return sd_bus_message_append(
      m, "(sv)(sv)(sv)(sv)(sv)(sv)(sv)(sv)(sv)(sv)(sv)(sv)(sv)(sv)(sv)(sv)", "NoNewPrivileges", "b", 1, "PrivateTmp",
      "b", 1, "ProtectSystem", "s", "strict", "ProtectHome", "s", "yes", "PrivateDevices", "b", 1,
      "ProtectKernelTunables", "b", 1, "ProtectKernelModules", "b", 1, "ProtectKernelLogs", "b", 1,
      "ProtectControlGroups", "b", 1, "ProtectHostname", "b", 1, "ProtectClock", "b", 1, "ProtectProc", "s",
      "invisible", "RestrictSUIDSGID", "b", 1, "RestrictRealtime", "b", 1, "CapabilityBoundingSet", "t", uint64_t(0),
      "RemoveIPC", "b", 1);
}

// What one job could leave for the next, or see of another: System V IPC
// (its own namespace), POSIX shared memory and semaphores (/dev/shm is
// the host's under PrivateDevices=: a tmpfs of the command's own instead)
// and the kernel keyrings (shared by uid: the system calls are denied).
int append_no_sharing(sd_bus_message* m) {
  int r = sd_bus_message_append(m, "(sv)", "PrivateIPC", "b", 1);
  if (r >= 0) r = sd_bus_message_open_container(m, 'r', "sv");
  if (r >= 0) r = sd_bus_message_append(m, "s", "TemporaryFileSystem");
  if (r >= 0) r = sd_bus_message_open_container(m, 'v', "a(ss)");
  if (r >= 0) r = sd_bus_message_append(m, "a(ss)", 1, "/dev/shm", "mode=1777,nosuid,nodev");
  for (int i = 0; i < 2 && r >= 0; ++i) r = sd_bus_message_close_container(m);
  return r;
}

// No namespaces (no user namespace to gain capabilities in), and system
// calls limited to what a service needs (@system-service) plus the
// counters the gate opens on itself, without the keyrings. A denied call
// fails with EPERM: a build that probes for one goes on without it.
int append_system_calls(sd_bus_message* m, const Command& c) {
  int r = sd_bus_message_append(m, "(sv)", "RestrictNamespaces", "t", uint64_t(0));
  if (r >= 0) r = append_name_list(m, "SystemCallFilter", true, {"@system-service", "perf_event_open"});
  if (r >= 0) r = append_name_list(m, "SystemCallFilter", false, {"@keyring"});
  if (r >= 0) r = sd_bus_message_append(m, "(sv)", "SystemCallErrorNumber", "i", int32_t(EPERM));
  if (r >= 0) r = append_strv_property(m, "SystemCallArchitectures", {"native"});
  // setarch -R (callgrind mode) changes the personality: not locked there.
  if (r >= 0 && !c.no_aslr) r = sd_bus_message_append(m, "(sv)", "LockPersonality", "b", 1);
  return r;
}

// The repository's network: loopback (the default) and none get a network
// namespace of their own; none allows only AF_UNIX sockets, the others no
// packet, raw-link or other exotic family.
int append_network(sd_bus_message* m, const Command& c) {
  int r = 0;
  if (c.network != Command::Network::full) r = sd_bus_message_append(m, "(sv)", "PrivateNetwork", "b", 1);
  if (r < 0) return r;
  if (c.network == Command::Network::none) return append_name_list(m, "RestrictAddressFamilies", true, {"AF_UNIX"});
  return append_name_list(m, "RestrictAddressFamilies", true, {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"});
}

}  // namespace

int append_job_sandbox(sd_bus_message* m, const Command& c) {
  int r = append_filesystem_and_kernel(m);
  if (r >= 0) r = append_no_sharing(m);
  if (r >= 0) r = append_system_calls(m, c);
  if (r >= 0) r = append_network(m, c);
  return r;
}

}  // namespace bb::exec
