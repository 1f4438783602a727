// benchboxctl status: is each daemon there, and what does it say.
#include <cstdio>
#include <iterator>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bus/names.h"
#include "bus_client.h"
#include "commands.h"
#include "config/appliance.h"
#include "update/updater.h"
#include "util/file.h"
#include "util/version.h"

namespace bb::cli {

namespace {

struct Daemon {
  const char* service;
  const char* path;
  const char* interface;
  const char* detail_property;  // a string property worth showing, or nullptr
};

const Daemon kDaemons[] = {
    {bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, nullptr},
    {bus::kTunerName, bus::kTunerPath, bus::kTunerInterface, "State"},
    {bus::kRunnerName, bus::kRunnerPath, bus::kRunnerInterface, "State"},
    {bus::kReporterName, bus::kReporterPath, bus::kReporterInterface, nullptr},
};

std::string queue_counts(BusClient& client) {
  std::string out;
  for (const char* p : {"Queued", "Running", "Done", "Failed", "Cancelled"}) {
    bus::BusError error;
    uint32_t n = 0;
    if (sd_bus_get_property_trivial(client.get(), bus::kQueueName, bus::kQueuePath,
                                    bus::kQueueInterface, p, error.get(), 'u', &n) < 0)
      continue;
    out += (out.empty() ? "" : " ") + std::string(p) + "=" + std::to_string(n);
  }
  return out;
}

// "12.3 MiB": what people read in a status line.
std::string human_bytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

// What reporterd keeps: history.db, the site, and what GitHub is still to be told.
std::string reporter_sizes(BusClient& client) {
  std::string out;
  for (const char* p : {"HistoryBytes", "SiteBytes"}) {
    bus::BusError error;
    uint64_t n = 0;
    if (sd_bus_get_property_trivial(client.get(), bus::kReporterName, bus::kReporterPath, bus::kReporterInterface, p,
                                    error.get(), 't', &n) < 0)
      continue;
    out += std::string(out.empty() ? "" : ", ") + (std::string(p) == "HistoryBytes" ? "history " : "site ") +
           human_bytes(n);
  }
  bus::BusError error;
  uint32_t pending = 0;
  if (sd_bus_get_property_trivial(client.get(), bus::kReporterName, bus::kReporterPath, bus::kReporterInterface,
                                  "OutboxPending", error.get(), 'u', &pending) >= 0)
    out += ", " + std::to_string(pending) + " GitHub call(s) pending";
  return out;
}

// benchbox-webhookd as systemd sees it. Where systemd is not PID 1 (the
// demo) there is nothing to ask: said so, and not counted as down.
bool webhookd_status(BusClient& client) {
  constexpr const char* kSystemd = "org.freedesktop.systemd1";
  constexpr const char* kUnitPath = "/org/freedesktop/systemd1/unit/benchbox_2dwebhookd_2eservice";
  const char* name = "benchbox-webhookd";
  if (!client.has_owner(kSystemd)) {
    std::printf("%-20s not under systemd here (a bus client: see its log)\n", name);
    return true;
  }
  auto state = client.get_string_property(kSystemd, kUnitPath, "org.freedesktop.systemd1.Unit", "ActiveState");
  if (!state) {
    std::printf("%-20s down: %s\n", name, state.error().message.c_str());
    return false;
  }
  auto text = client.get_string_property(kSystemd, kUnitPath, "org.freedesktop.systemd1.Service", "StatusText");
  std::string detail = text && !text->empty() ? *text : "no status";
  if (*state != "active") {
    std::printf("%-20s down: %s (%s)\n", name, state->c_str(), detail.c_str());
    return false;
  }
  std::printf("%-20s up: %s\n", name, detail.c_str());
  return true;
}

// The last self-update attempt (benchbox-update's state.json). Not counted
// as down: an update that failed leaves the box on a working version.
void update_status() {
  auto cfg = config::load_appliance_config(config::ConfigSource{});
  if (!cfg) return;
  std::string path = path_join(cfg->update_dir(), "state.json");
  if (!path_exists(path)) {
    std::printf("%-20s no attempt yet\n", "update");
    return;
  }
  auto text = read_file(path, 1 << 20);
  Result<update::State> state = make_error(Errc::parse, "unreadable");
  if (text) {
    try {
      state = update::state_from_json(nlohmann::json::parse(*text));
    } catch (const std::exception& e) {
      state = make_error(Errc::parse, e.what());
    }
  }
  if (!state || !state->last) {
    std::printf("%-20s %s: %s\n", "update", path.c_str(), state ? "no attempt yet" : state.error().message.c_str());
    return;
  }
  const update::Attempt& a = *state->last;
  char when[32] = "";
  std::time_t t = static_cast<std::time_t>(a.finished);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::localtime(&t));
  std::printf("%-20s last attempt %s: %s: %s%s\n", "update", when, update::to_string(a.outcome), a.reason.c_str(),
              a.cut_job ? " (a running job was cut and re-queued)" : "");
}

// What a job's code runs as, and why the runner claims nothing when it
// cannot contain it (runner.containment: required). False then.
bool runner_containment(BusClient& client, const std::string& name) {
  auto containment = client.get_string_property(bus::kRunnerName, bus::kRunnerPath, bus::kRunnerInterface, "Containment");
  if (!containment) return true;  // an older runnerd
  std::printf("%-20s jobs run as %s\n", "", containment->c_str());
  auto refusal = client.get_string_property(bus::kRunnerName, bus::kRunnerPath, bus::kRunnerInterface, "Refusal");
  if (!refusal || refusal->empty()) return true;
  std::printf("%-20s claims no job: %s\n", name.c_str(), refusal->c_str());
  return false;
}

}  // namespace

// Exit status 0 when every daemon answers (and the runner claims jobs), 1
// when any does not.
int cmd_status(const Args& args) {
  if (!args.empty()) return fail("usage: benchboxctl status");
  auto client = BusClient::connect();
  if (!client) return fail(client.error().message);
  std::printf("%-20s %s\n", "benchboxctl", bb::version());
  int down = 0;
  for (const auto& d : kDaemons) {
    auto version = client->get_string_property(d.service, d.path, d.interface, "Version");
    std::string name = daemon_for(d.service);
    if (!version) {
      ++down;
      std::printf("%-20s %s\n", name.c_str(), ("down: " + version.error().message).c_str());
      continue;
    }
    std::string detail = "version " + *version;
    if (d.detail_property) {
      auto v = client->get_string_property(d.service, d.path, d.interface, d.detail_property);
      if (v) detail += ", " + std::string(d.detail_property) + "=" + *v;
    }
    if (std::string(d.service) == bus::kQueueName) detail += ", " + queue_counts(*client);
    if (std::string(d.service) == bus::kReporterName) detail += ", " + reporter_sizes(*client);
    std::printf("%-20s up: %s\n", name.c_str(), detail.c_str());
    if (std::string(d.service) == bus::kRunnerName && !runner_containment(*client, name)) ++down;
    // The canary's verdict on the box (docs/canary.md); an older reporterd has none.
    if (std::string(d.service) == bus::kReporterName)
      if (auto health = client->get_string_property(d.service, d.path, d.interface, "BoxHealth"))
        std::printf("%-20s %s\n", "box health", health->c_str());
  }
  // webhookd is a bus client only: it has no name to ask, so ask systemd
  // for its unit (its STATUS= line starts with its version).
  if (!webhookd_status(*client)) ++down;
  update_status();
  return down ? 1 : 0;
}

}  // namespace bb::cli
