// org.benchbox.Tuner1: the one vtable of benchbox-tunerd. Contract in
// docs/ARCHITECTURE.md ("Bus interfaces").
#include <grp.h>
#include <unistd.h>

#include <cstddef>
#include <exception>
#include <vector>

#include "bus/errors.h"
#include "bus/names.h"
#include "daemon/log.h"
#include "manager.h"
#include "util/version.h"

namespace bb::tunerd {

namespace {

// The group whose members may change the host besides root. The D-Bus
// policy (policy/org.benchbox.Tuner1.conf) says the same; checking here too
// means a permissive or missing policy file does not open the door.
constexpr const char* kAdminGroup = "benchbox";

bool in_admin_group(const std::vector<gid_t>& gids) {
  struct group grp {};
  struct group* found = nullptr;
  std::vector<char> buf(16384);
  if (getgrnam_r(kAdminGroup, &grp, buf.data(), buf.size(), &found) != 0 || !found) return false;
  for (gid_t g : gids)
    if (g == found->gr_gid) return true;
  return false;
}

// 1 when the caller may change state, 0 (with AccessDenied set) when not.
int check_caller(sd_bus_message* m, sd_bus_error* error) {
  sd_bus_creds* raw = nullptr;
  int r = sd_bus_query_sender_creds(
      m, SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID | SD_BUS_CREDS_GID | SD_BUS_CREDS_EGID |
             SD_BUS_CREDS_SUPPLEMENTARY_GIDS | SD_BUS_CREDS_AUGMENT, &raw);
  std::unique_ptr<sd_bus_creds, sd_bus_creds* (*)(sd_bus_creds*)> creds(raw, sd_bus_creds_unref);
  if (r < 0) return sd_bus_error_set_errnof(error, -r, "cannot tell who is calling: %m");
  uid_t uid = static_cast<uid_t>(-1);
  if (sd_bus_creds_get_euid(raw, &uid) < 0 && sd_bus_creds_get_uid(raw, &uid) < 0)
    return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED, "cannot tell the caller's user id");
  if (uid == 0) return 1;
  std::vector<gid_t> gids;
  gid_t g;
  if (sd_bus_creds_get_egid(raw, &g) >= 0) gids.push_back(g);
  if (sd_bus_creds_get_gid(raw, &g) >= 0) gids.push_back(g);
  const gid_t* sup = nullptr;
  int n = sd_bus_creds_get_supplementary_gids(raw, &sup);
  for (int i = 0; i < n; ++i) gids.push_back(sup[i]);
  if (in_admin_group(gids)) return 1;
  daemon::log_warning("refused " + std::string(sd_bus_message_get_member(m)) + " from uid " + std::to_string(uid));
  return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                           "%s changes the host: only root and members of group '%s' may call it",
                           sd_bus_message_get_member(m), kAdminGroup);
}

using Action = Result<tuning::Report> (Manager::*)();

// The four methods share one shape: (a(sssbs) items, s fingerprint).
int reply_report(sd_bus_message* m, void* userdata, sd_bus_error* error, Action action, bool privileged) {
  return bus::guarded(error, [&] {
    auto* manager = static_cast<Manager*>(userdata);
    if (privileged) {
      int r = check_caller(m, error);
      if (r <= 0) return r < 0 ? r : -EACCES;
    }
    auto report = (manager->*action)();
    if (!report) return bus::set_error(error, report.error());
    sd_bus_message* raw = nullptr;
    int r = sd_bus_message_new_method_return(m, &raw);
    bus::MessagePtr reply(raw);
    if (r < 0) return r;
    if ((r = append_report(raw, *report)) < 0) return r;
    return sd_bus_send(nullptr, raw, nullptr);
  });
}

int method_check(sd_bus_message* m, void* u, sd_bus_error* e) { return reply_report(m, u, e, &Manager::check, false); }
int method_verify(sd_bus_message* m, void* u, sd_bus_error* e) { return reply_report(m, u, e, &Manager::verify, true); }
int method_apply(sd_bus_message* m, void* u, sd_bus_error* e) { return reply_report(m, u, e, &Manager::apply, true); }
int method_restore(sd_bus_message* m, void* u, sd_bus_error* e) { return reply_report(m, u, e, &Manager::restore, true); }

int property_string(sd_bus* , const char*, const char*, const char* property, sd_bus_message* reply,
                    void* userdata, sd_bus_error* error) {
  return bus::guarded(error, [&] {
    auto* manager = static_cast<Manager*>(userdata);
    std::string p = property, value;
    if (p == "State") value = manager->state();
    else if (p == "HousekeepingCPUs") value = manager->housekeeping_cpus();
    else if (p == "BenchmarkCPUs") value = manager->benchmark_cpus();
    else if (p == "Version") value = bb::version();
    return sd_bus_message_append(reply, "s", value.c_str());
  });
}

int property_last_verify(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
                         sd_bus_error*) {
  return sd_bus_message_append(reply, "t", static_cast<Manager*>(userdata)->last_verify());
}

const sd_bus_vtable kTunerVtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD_WITH_NAMES("Check", "", , "a(sssbs)s", SD_BUS_PARAM(items) SD_BUS_PARAM(fingerprint),
                             method_check, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Verify", "", , "a(sssbs)s", SD_BUS_PARAM(items) SD_BUS_PARAM(fingerprint),
                             method_verify, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Apply", "", , "a(sssbs)s", SD_BUS_PARAM(items) SD_BUS_PARAM(fingerprint),
                             method_apply, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Restore", "", , "a(sssbs)s", SD_BUS_PARAM(items) SD_BUS_PARAM(fingerprint),
                             method_restore, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL_WITH_NAMES("Drifted", "a(sssbs)", SD_BUS_PARAM(changed), 0),
    SD_BUS_PROPERTY("State", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("HousekeepingCPUs", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("BenchmarkCPUs", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("LastVerify", "t", property_last_verify, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Version", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END};

}  // namespace

int append_rows(sd_bus_message* m, const std::vector<tuning::Row>& rows) {
  int r = sd_bus_message_open_container(m, 'a', "(sssbs)");
  if (r < 0) return r;
  for (const auto& row : rows) {
    r = sd_bus_message_append(m, "(sssbs)", row.name.c_str(), row.wanted.c_str(), row.actual.c_str(),
                              static_cast<int>(row.ok), row.reason.c_str());
    if (r < 0) return r;
  }
  return sd_bus_message_close_container(m);
}

int append_report(sd_bus_message* m, const tuning::Report& report) {
  int r = append_rows(m, report.rows);
  if (r < 0) return r;
  return sd_bus_message_append(m, "s", report.fingerprint.c_str());
}

Status register_bus(Manager& manager) {
  sd_bus_slot* slot = nullptr;
  int r = sd_bus_add_object_vtable(manager.bus(), &slot, bus::kTunerPath, bus::kTunerInterface, kTunerVtable,
                                   &manager);
  if (r < 0) return errno_error("register " + std::string(bus::kTunerInterface), -r);
  manager.vtable_slot.reset(slot);
  return {};
}

}  // namespace bb::tunerd
