// benchboxctl status: is each daemon there, and what does it say.
#include <cstdio>
#include <iostream>

#include "bus/names.h"
#include "bus_client.h"
#include "commands.h"

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

}  // namespace

// Exit status 0 when every daemon answers, 1 when any does not.
int cmd_status(const Args& args) {
  if (!args.empty()) return fail("usage: benchboxctl status");
  auto client = BusClient::connect();
  if (!client) return fail(client.error().message);
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
    std::printf("%-20s up: %s\n", name.c_str(), detail.c_str());
  }
  // webhookd is a bus client only: it has no name to ask. Its socket unit
  // is what systemctl shows.
  return down ? 1 : 0;
}

}  // namespace bb::cli
