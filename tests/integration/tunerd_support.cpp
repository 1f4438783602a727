#include "tunerd_support.h"

#include <signal.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "bus/connect.h"
#include "bus/names.h"

namespace bb::test {

const TunerItem* TunerReply::find(const std::string& name) const {
  for (const auto& i : items)
    if (i.name == name) return &i;
  return nullptr;
}

TunerClient::TunerClient(const std::string& address) {
  auto b = bus::open_address(address);
  if (!b) throw std::runtime_error(b.error().message);
  bus_ = std::move(*b);
}

static void read_items(sd_bus_message* m, std::vector<TunerItem>& out) {
  if (sd_bus_message_enter_container(m, 'a', "(sssbs)") < 0) return;
  const char *n, *w, *a, *r;
  int ok = 0;
  while (sd_bus_message_read(m, "(sssbs)", &n, &w, &a, &ok, &r) > 0) out.push_back({n, w, a, ok != 0, r});
  sd_bus_message_exit_container(m);
}

TunerReply TunerClient::call(const char* member) {
  TunerReply reply;
  bus::BusError error;
  sd_bus_message* raw = nullptr;
  int r = sd_bus_call_method(bus_.get(), bus::kTunerName, bus::kTunerPath, bus::kTunerInterface, member, error.get(),
                             &raw, "");
  bus::MessagePtr m(raw);
  if (r < 0) {
    reply.error_name = error.is_set() ? error.name() : "errno";
    reply.error_message = error.message();
    return reply;
  }
  read_items(raw, reply.items);
  const char* fp = "";
  sd_bus_message_read(raw, "s", &fp);
  reply.fingerprint = fp;
  return reply;
}

std::string TunerClient::state() {
  bus::BusError error;
  char* s = nullptr;
  if (sd_bus_get_property_string(bus_.get(), bus::kTunerName, bus::kTunerPath, bus::kTunerInterface, "State",
                                 error.get(), &s) < 0)
    return "";
  std::string out = s;
  free(s);
  return out;
}

uint64_t TunerClient::last_verify() {
  bus::BusError error;
  uint64_t t = 0;
  sd_bus_get_property_trivial(bus_.get(), bus::kTunerName, bus::kTunerPath, bus::kTunerInterface, "LastVerify",
                              error.get(), 't', &t);
  return t;
}

int TunerClient::on_drifted(sd_bus_message* m, void* userdata, sd_bus_error*) {
  std::vector<TunerItem> items;
  read_items(m, items);
  std::vector<std::string> names;
  for (const auto& i : items) names.push_back(i.name);
  static_cast<TunerClient*>(userdata)->drifted_.push_back(names);
  return 0;
}

void TunerClient::watch_drifted() {
  sd_bus_slot* slot = nullptr;
  if (sd_bus_match_signal(bus_.get(), &slot, nullptr, bus::kTunerPath, bus::kTunerInterface, "Drifted", on_drifted,
                          this) < 0)
    throw std::runtime_error("cannot watch Drifted");
  match_.reset(slot);
}

std::vector<std::string> TunerClient::wait_drifted(int timeout_ms) {
  wait_until(
      [&] {
        while (sd_bus_process(bus_.get(), nullptr) > 0) {
        }
        if (!drifted_.empty()) return true;
        sd_bus_wait(bus_.get(), 50000);
        return false;
      },
      std::chrono::milliseconds(timeout_ms));
  if (drifted_.empty()) return {};
  auto first = drifted_.front();
  drifted_.erase(drifted_.begin());
  return first;
}

bool TunerClient::name_owned() { return sd_bus_get_name_creds(bus_.get(), bus::kTunerName, 0, nullptr) >= 0; }

std::string write_tunerd_config(const std::string& dir, const std::string& sysfs_root,
                                const std::string& profile_yaml, unsigned verify_interval_seconds) {
  std::string config = dir + "/benchbox.yml";
  std::ofstream out(config);
  out << "state_dir: " << dir << "/state\n"
      << "tuner:\n  sysfs_root: " << sysfs_root << "\n  verify_interval_seconds: " << verify_interval_seconds
      << "\n";
  if (!profile_yaml.empty()) {
    std::ofstream(dir + "/tuning.yml") << profile_yaml;
    out << "  profile: " << dir << "/tuning.yml\n";
  } else {
    // Never pick up a profile installed on the machine running the tests.
    std::ofstream(dir + "/tuning.yml") << "# all defaults\n";
    out << "  profile: " << dir << "/tuning.yml\n";
  }
  return config;
}

std::unique_ptr<Process> start_tunerd(const std::string& address, const std::string& config,
                                      const std::string& log_path) {
  auto env = std::map<std::string, std::string>{{"DBUS_SYSTEM_BUS_ADDRESS", address}};
  auto p = std::make_unique<Process>(
      std::vector<std::string>{build_path("daemons/tunerd/benchbox-tunerd"), "--config", config}, env, log_path);
  TunerClient probe(address);
  wait_until([&] { return probe.name_owned() || !p->running(); });
  return p;
}


}  // namespace bb::test
