#include <nlohmann/json.hpp>
#include "model/environment.h"

#include "util/text.h"

namespace bb::model {

namespace {

using nlohmann::json;

// The first line of a tool's output is what it calls its version; the
// rest (copyright, target triple) rarely helps a reader.
std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  if (line.size() > 120) line = line.substr(0, 117) + "...";
  return line;
}

std::string text_of(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_null()) return "(none)";
  return j.dump();
}

// Members of two objects that differ: a line per member, through `say`.
template <class Say>
void diff_members(const json& a, const json& b, Say say) {
  const json empty = json::object();
  const json& x = a.is_object() ? a : empty;
  const json& y = b.is_object() ? b : empty;
  for (const auto& [k, v] : x.items())
    if (!y.contains(k) || y.at(k) != v) say(k, &v, y.contains(k) ? &y.at(k) : nullptr);
  for (const auto& [k, v] : y.items())
    if (!x.contains(k)) say(k, nullptr, &v);
}

}  // namespace

json Environment::to_json() const {
  json s = json::array();
  for (const auto& e : suites) {
    json one = {{"name", e.name}, {"build", e.build}, {"run", e.run}, {"format", e.format}, {"env", e.env}};
    // Only when declared: a suite without them keeps the key it had before
    // benchbox knew them, so its history carries on across the upgrade.
    if (!e.toolchain.empty()) one["toolchain"] = e.toolchain;
    if (!e.lock_files.empty()) one["lock_files"] = e.lock_files;
    s.push_back(std::move(one));
  }
  json out = {{"cpus", cpus}, {"isolation", isolation}, {"runner", runner}, {"suites", s}};
  if (hardware) out["hardware"] = hardware->to_json();
  return out;
}

std::string Environment::key() const {
  json j = to_json();
  if (hardware) j.erase("runner");
  return sha256_hex(j.dump());
}

json HardwareClass::to_json() const {
  return {{"cpu_model", cpu_model}, {"cpus", cpus}, {"memory_gib", memory_gib}, {"kernel", kernel}, {"tuning", tuning}};
}

std::string HardwareClass::describe() const {
  return (cpu_model.empty() ? std::string("unknown CPU") : cpu_model) + ", " + std::to_string(cpus) + " CPUs, " +
         std::to_string(memory_gib) + " GiB, kernel " + kernel + ", tuning " + tuning.substr(0, 8);
}

std::vector<std::string> environment_changes(const json& before, const json& after) {
  std::vector<std::string> out;
  if (!before.is_object() || !after.is_object()) return out;
  const std::pair<const char*, const char*> top[] = {
      {"cpus", "benchmark CPUs"}, {"isolation", "isolation"}, {"runner", "runner"}};
  // The runner's name is a change only where it was part of the key: runs
  // of one hardware class share trends whichever box measured them.
  const bool classed = before.contains("hardware") && after.contains("hardware");
  for (const auto& [key, label] : top)
    if ((!classed || std::string(key) != "runner") && before.value(key, json()) != after.value(key, json()))
      out.push_back(std::string(label) + ": " + text_of(before.value(key, json())) + " → " +
                    text_of(after.value(key, json())));
  if (!before.contains("hardware") && after.contains("hardware"))
    out.push_back("hardware class recorded (benchbox now keys trends by it, not by the runner's name)");
  if (classed)
    diff_members(before["hardware"], after["hardware"], [&](const std::string& k, const json* a, const json* b) {
      out.push_back("hardware " + k + ": " + (a ? text_of(*a) : "(unknown)") + " → " + (b ? text_of(*b) : "(unknown)"));
    });
  std::map<std::string, json> old_suites, new_suites;
  for (const auto* side : {&before, &after})
    if (auto it = side->find("suites"); it != side->end() && it->is_array())
      for (const auto& s : *it)
        if (s.is_object() && s.contains("name") && s["name"].is_string())
          (side == &before ? old_suites : new_suites)[s["name"].get<std::string>()] = s;
  for (const auto& [name, o] : old_suites)
    if (!new_suites.count(name)) out.push_back("suite " + name + " is gone");
  for (const auto& [name, n] : new_suites) {
    auto it = old_suites.find(name);
    if (it == old_suites.end()) {
      out.push_back("suite " + name + " is new");
      continue;
    }
    const json& o = it->second;
    const std::string at = "suite " + name + ": ";
    for (const char* key : {"build", "run", "format"})
      if (o.value(key, json()) != n.value(key, json()))
        out.push_back(at + key + " `" + text_of(o.value(key, json())) + "` → `" + text_of(n.value(key, json())) + "`");
    diff_members(o.value("env", json()), n.value("env", json()), [&](const std::string& k, const json* a, const json* b) {
      out.push_back(at + "env " + k + ": " + (a ? text_of(*a) : "(unset)") + " → " + (b ? text_of(*b) : "(unset)"));
    });
    diff_members(o.value("toolchain", json()), n.value("toolchain", json()),
                 [&](const std::string& k, const json* a, const json* b) {
                   out.push_back(at + "`" + k + "`: " + (a ? first_line(text_of(*a)) : "(not asked)") + " → " +
                                 (b ? first_line(text_of(*b)) : "(not asked)"));
                 });
    diff_members(o.value("lock_files", json()), n.value("lock_files", json()),
                 [&](const std::string& k, const json* a, const json* b) {
                   const bool was = a && *a != "absent", is = b && *b != "absent";
                   out.push_back(at + k + (was && is ? " changed" : is ? " appeared" : was ? " is gone" : " changed"));
                 });
  }
  return out;
}

}  // namespace bb::model
