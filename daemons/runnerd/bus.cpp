// The org.benchbox.Runner1 vtable, the one place the interface is spelled
// out (docs/ARCHITECTURE.md, "Bus interfaces"). Handlers catch every
// exception so none crosses into sd-bus. CancelCurrent, Pause, Hold and Resume
// are unprivileged at the sd-bus level and for operators only: the D-Bus
// policy (policy/org.benchbox.Runner1.conf) says so, and so does each
// handler, so that a benchmark running as this daemon's user cannot pause
// the box or cancel another job.
#include "bus.h"

#include <cstddef>

#include "bus/errors.h"
#include "bus/names.h"
#include "daemon/caller.h"
#include "util/version.h"

namespace bb::runnerd {

namespace {

Manager* manager_of(void* userdata) { return static_cast<Manager*>(userdata); }

int refuse_unless_operator(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return daemon::refuse_unless(m, error, daemon::operators_and(manager_of(userdata)->conf().appliance.access));
}

using bus::guarded;

int get_state(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
              sd_bus_error* error) {
  return guarded(error, [&] { return sd_bus_message_append(reply, "s", manager_of(userdata)->state()); });
}

int get_current_job(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
                    sd_bus_error* error) {
  return guarded(error, [&] { return sd_bus_message_append(reply, "x", manager_of(userdata)->current_job()); });
}

int get_jobs_run(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
                 sd_bus_error* error) {
  return guarded(error, [&] { return sd_bus_message_append(reply, "t", manager_of(userdata)->jobs_run()); });
}

int get_isolation(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
                  sd_bus_error* error) {
  return guarded(error, [&] { return sd_bus_message_append(reply, "s", manager_of(userdata)->isolation().c_str()); });
}

int get_containment(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
                    sd_bus_error* error) {
  return guarded(error,
                 [&] { return sd_bus_message_append(reply, "s", manager_of(userdata)->containment().c_str()); });
}

int get_refusal(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
                sd_bus_error* error) {
  return guarded(error, [&] { return sd_bus_message_append(reply, "s", manager_of(userdata)->refusal().c_str()); });
}

int get_cpus(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
             sd_bus_error* error) {
  return guarded(error,
                 [&] { return sd_bus_message_append(reply, "s", manager_of(userdata)->benchmark_cpus().c_str()); });
}

int get_version(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void*, sd_bus_error* error) {
  return guarded(error, [&] { return sd_bus_message_append(reply, "s", bb::version()); });
}

int method_cancel_current(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = refuse_unless_operator(m, userdata, error); r < 0) return r;
    const char* reason = nullptr;
    int r = sd_bus_message_read(m, "s", &reason);
    if (r < 0) return r;
    if (auto st = manager_of(userdata)->cancel_current(reason); !st) return bus::set_error(error, st.error());
    return sd_bus_reply_method_return(m, "");
  });
}

int get_paused(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
               sd_bus_error* error) {
  return guarded(error, [&] { return sd_bus_message_append(reply, "b", manager_of(userdata)->paused()); });
}

int get_paused_reason(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
                      sd_bus_error* error) {
  return guarded(error,
                 [&] { return sd_bus_message_append(reply, "s", manager_of(userdata)->paused_reason().c_str()); });
}

int method_pause(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = refuse_unless_operator(m, userdata, error); r < 0) return r;
    const char* reason = nullptr;
    int r = sd_bus_message_read(m, "s", &reason);
    if (r < 0) return r;
    manager_of(userdata)->pause(reason);
    return sd_bus_reply_method_return(m, "");
  });
}

int method_hold(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = refuse_unless_operator(m, userdata, error); r < 0) return r;
    const char* reason = nullptr;
    int r = sd_bus_message_read(m, "s", &reason);
    if (r < 0) return r;
    if (auto st = manager_of(userdata)->hold(m, reason); !st)
      return bus::set_error(error, st.error());
    return sd_bus_reply_method_return(m, "");
  });
}

int method_release(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = refuse_unless_operator(m, userdata, error); r < 0) return r;
    manager_of(userdata)->release_hold(m);
    return sd_bus_reply_method_return(m, "");
  });
}

int method_resume(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = refuse_unless_operator(m, userdata, error); r < 0) return r;
    manager_of(userdata)->resume();
    return sd_bus_reply_method_return(m, "");
  });
}

const sd_bus_vtable kRunnerVtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Version", "s", get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("State", "s", get_state, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CurrentJob", "x", get_current_job, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("JobsRun", "t", get_jobs_run, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Isolation", "s", get_isolation, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Containment", "s", get_containment, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Refusal", "s", get_refusal, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("BenchmarkCPUs", "s", get_cpus, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Paused", "b", get_paused, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("PausedReason", "s", get_paused_reason, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD_WITH_NAMES("CancelCurrent", "s", SD_BUS_PARAM(reason), "", , method_cancel_current,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Pause", "s", SD_BUS_PARAM(reason), "", , method_pause, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Hold", "s", SD_BUS_PARAM(reason), "", , method_hold, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Release", "", "", method_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Resume", "", "", method_resume, SD_BUS_VTABLE_UNPRIVILEGED),
    // A canary run kept (docs/canary.md): reporterd reads it at once.
    SD_BUS_SIGNAL_WITH_ARGS("CanaryFinished", SD_BUS_ARGS("s", path), 0),
    SD_BUS_VTABLE_END,
};

}  // namespace

Result<bus::SlotPtr> register_runner_object(sd_bus* bus, Manager* manager) {
  sd_bus_slot* slot = nullptr;
  int r = sd_bus_add_object_vtable(bus, &slot, bb::bus::kRunnerPath, bb::bus::kRunnerInterface, kRunnerVtable,
                                   manager);
  if (r < 0) return errno_error("register " + std::string(bb::bus::kRunnerPath), -r);
  return bus::SlotPtr(slot);
}

}  // namespace bb::runnerd
