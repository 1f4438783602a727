// benchboxctl tune check|verify|apply|restore: the tuner's checklist as a
// table (green/red on a terminal), the state and the fingerprint.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bus/names.h"
#include "bus_client.h"
#include "commands.h"

namespace bb::cli {

namespace {

struct Item {
  std::string name, wanted, actual;
  bool ok = false;
  std::string reason;
};

Result<std::pair<std::vector<Item>, std::string>> read_report(sd_bus_message* m) {
  std::vector<Item> items;
  int r = sd_bus_message_enter_container(m, 'a', "(sssbs)");
  if (r < 0) return errno_error("read the checklist", -r);
  for (;;) {
    const char *name, *wanted, *actual, *reason;
    int ok = 0;
    r = sd_bus_message_read(m, "(sssbs)", &name, &wanted, &actual, &ok, &reason);
    if (r < 0) return errno_error("read a checklist item", -r);
    if (r == 0) break;
    items.push_back({name, wanted, actual, ok != 0, reason});
  }
  sd_bus_message_exit_container(m);
  const char* fingerprint = "";
  if ((r = sd_bus_message_read(m, "s", &fingerprint)) < 0) return errno_error("read the fingerprint", -r);
  return std::pair{std::move(items), std::string(fingerprint)};
}

std::string pad(const std::string& s, size_t width) { return s + std::string(width > s.size() ? width - s.size() : 0, ' '); }

void print_table(const std::vector<Item>& items, bool color) {
  size_t w_name = 4, w_wanted = 6, w_actual = 6;
  for (const auto& i : items) {
    w_name = std::max(w_name, i.name.size());
    w_wanted = std::max(w_wanted, i.wanted.size());
    w_actual = std::max(w_actual, i.actual.size());
  }
  std::printf("%s  %s  %s  OK   REASON\n", pad("ITEM", w_name).c_str(), pad("WANTED", w_wanted).c_str(),
              pad("ACTUAL", w_actual).c_str());
  for (const auto& i : items) {
    const char* on = color ? (i.ok ? "\033[32m" : "\033[31m") : "";
    const char* off = color ? "\033[0m" : "";
    std::printf("%s  %s  %s  %s%-3s%s  %s\n", pad(i.name, w_name).c_str(), pad(i.wanted, w_wanted).c_str(),
                pad(i.actual, w_actual).c_str(), on, i.ok ? "yes" : "no", off, i.reason.c_str());
  }
}

const char* usage_text = "usage: benchboxctl tune check|verify|apply|restore [--json]";

}  // namespace

// Exit status: 0 every item as wanted, 1 some are not, 2 error (including
// "Apply is for root and group 'benchbox-admin'; ..." for apply/restore/verify).
int cmd_tune(const Args& args) {
  if (args.empty()) return fail(usage_text);
  const std::string& action = args[0];
  bool json = false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--json") json = true;
    else return fail(usage_text);
  }
  const char* member = action == "check" ? "Check" : action == "verify" ? "Verify" : action == "apply" ? "Apply"
                       : action == "restore" ? "Restore" : nullptr;
  if (!member) return fail(usage_text);

  auto client = BusClient::connect();
  if (!client) return fail(client.error().message);
  auto call = client->new_call(bus::kTunerName, bus::kTunerPath, bus::kTunerInterface, member);
  if (!call) return fail(call.error().message);
  // Apply may wait for systemd jobs (stopping irqbalance): allow it time.
  auto reply = client->call(call->get(), 120'000'000);
  if (!reply) return fail(reply.error().message);
  auto report = read_report(reply->get());
  if (!report) return fail(report.error().message);
  auto state = client->get_string_property(bus::kTunerName, bus::kTunerPath, bus::kTunerInterface, "State");
  const auto& [items, fingerprint] = *report;
  bool all_ok = std::all_of(items.begin(), items.end(), [](const Item& i) { return i.ok; });

  if (json) {
    nlohmann::json out = {{"state", state ? *state : ""}, {"fingerprint", fingerprint}, {"items", nlohmann::json::array()}};
    for (const auto& i : items)
      out["items"].push_back({{"name", i.name}, {"wanted", i.wanted}, {"actual", i.actual}, {"ok", i.ok}, {"reason", i.reason}});
    std::cout << out.dump(2) << "\n";
  } else {
    print_table(items, use_color());
    std::printf("\nstate:       %s\nfingerprint: %s\n", state ? state->c_str() : "?", fingerprint.c_str());
  }
  return all_ok ? 0 : 1;
}

}  // namespace bb::cli
