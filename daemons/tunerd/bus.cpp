// org.benchbox.Tuner1: the one vtable of benchbox-tunerd. Contract in
// docs/ARCHITECTURE.md ("Bus interfaces").
#include <unistd.h>

#include <cstddef>
#include <exception>
#include <vector>

#include "bus/errors.h"
#include "bus/names.h"
#include "daemon/caller.h"
#include "daemon/log.h"
#include "manager.h"
#include "util/version.h"

namespace bb::tunerd {

namespace {

using Action = Result<tuning::Report> (Manager::*)();

// The four methods share one shape: (a(sssbs) items, s fingerprint).
int reply_report(sd_bus_message* m, void* userdata, sd_bus_error* error, Action action, bool privileged) {
  return bus::guarded(error, [&] {
    auto* manager = static_cast<Manager*>(userdata);
    // The D-Bus policy (policy/org.benchbox.Tuner1.conf) says the same;
    // checking here too means a permissive or missing policy file does not
    // open the door to untuning the box under other jobs.
    if (privileged)
      if (int r = daemon::refuse_unless(m, error, daemon::operators_and(manager->access())); r < 0) return r;
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

// runnerd's worker asks, with the MainPID of a command's unit whose gate
// waits; root and the operators may too.
int method_admit_to_bench(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return bus::guarded(error, [&] {
    auto* manager = static_cast<Manager*>(userdata);
    const auto& access = manager->access();
    if (int r = daemon::refuse_unless(m, error, daemon::operators_and(access, {access.runner_user})); r < 0)
      return r;
    uint32_t pid = 0;
    if (int r = sd_bus_message_read(m, "u", &pid); r < 0) return r;
    auto unit = manager->admit_to_bench(static_cast<pid_t>(pid));
    if (!unit) return bus::set_error(error, unit.error());
    return sd_bus_reply_method_return(m, "s", unit->c_str());
  });
}

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
    SD_BUS_METHOD_WITH_NAMES("AdmitToBench", "u", SD_BUS_PARAM(pid), "s", SD_BUS_PARAM(unit),
                             method_admit_to_bench, SD_BUS_VTABLE_UNPRIVILEGED),
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
