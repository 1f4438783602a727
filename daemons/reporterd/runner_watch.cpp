// What this box's runner says about claiming (Runner1.Refusal): while it
// claims no job (runner.containment: required on a box that cannot contain
// one), a queued job's check run says why it waits, and says it again
// when the runner changes its mind. Asked when reporterd starts, when
// runnerd (re)appears on the bus and when its properties change.
#include <string>

#include "bus/names.h"
#include "daemon/log.h"
#include "manager.h"

namespace bb::reporterd {

using daemon::log_error;
using daemon::log_info;

void Manager::ask_runner_refusal() {
  sd_bus_slot* slot = nullptr;
  // A newer question replaces one still on its way (its slot is dropped).
  int r = sd_bus_call_method_async(bus_, &slot, bus::kRunnerName, bus::kRunnerPath, "org.freedesktop.DBus.Properties",
                                   "Get", on_refusal_reply, this, "ss", bus::kRunnerInterface, "Refusal");
  if (r < 0) return;  // no bus to ask: the next change asks again
  refusal_call_.reset(slot);
}

int Manager::on_refusal_reply(sd_bus_message* m, void* userdata, sd_bus_error*) {
  auto* self = static_cast<Manager*>(userdata);
  // No runner on this box (yet), or one that predates the property: it
  // refuses nothing that we know of.
  const char* refusal = "";
  if (!sd_bus_message_is_method_error(m, nullptr)) {
    if (sd_bus_message_enter_container(m, 'v', "s") < 0 || sd_bus_message_read(m, "s", &refusal) < 0) refusal = "";
  }
  try {
    if (self->runner_refusal_ == refusal) return 0;
    self->runner_refusal_ = refusal;
    log_info(self->runner_refusal_.empty() ? "the runner claims jobs: queued check runs say so no more"
                                           : "the runner claims no job: queued check runs say why",
             {{"RUNNER_REFUSAL", self->runner_refusal_}});
    self->catch_up();  // every job not finished posts its state again
  } catch (const std::exception& e) {
    log_error(std::string("telling queued check runs about the runner: ") + e.what());
  }
  return 0;
}

int Manager::on_runner_changed(sd_bus_message* m, void* userdata, sd_bus_error*) {
  if (sd_bus_message_is_signal(m, "org.freedesktop.DBus", "NameOwnerChanged")) {
    const char* name = nullptr;
    if (sd_bus_message_read(m, "s", &name) < 0 || !name || std::string(name) != bus::kRunnerName) return 0;
  }
  static_cast<Manager*>(userdata)->ask_runner_refusal();
  return 0;
}

}  // namespace bb::reporterd
