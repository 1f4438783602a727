#include "tuning/profile.h"

#include <algorithm>

#include "config/yaml_read.h"
#include "util/cpu_list.h"
#include "util/file.h"

namespace bb::tuning {

namespace {

using config::check_keys;
using config::read_bool;
using config::read_string;
using config::yaml_error;

// Items that take a value, the default, and what is accepted.
struct ValueRule {
  const char* item;
  const char* default_value;
  std::vector<std::string> choices;  // empty = an integer in [lo, hi]
  long lo = 0, hi = 0;
};

const std::vector<ValueRule>& value_rules() {
  static const std::vector<ValueRule> rules = {
      {"governor", "performance", {"performance", "powersave", "schedutil", "ondemand", "conservative", "userspace"}},
      {"swappiness", "10", {}, 0, 200},
      // asv users expect 0 (no randomisation, steadier timings); pyperf
      // recommends 2 and that is a fine choice too: the point is to choose.
      {"aslr", "0", {}, 0, 2},
      {"thp", "never", {"always", "madvise", "never"}},
      // 1: user-space and kernel counting of one's own processes, enough
      // for `perf stat -e instructions` by the runner.
      {"perf_event_paranoid", "1", {}, -1, 4},
  };
  return rules;
}

const ValueRule* rule_for(const std::string& item) {
  for (const auto& r : value_rules())
    if (item == r.item) return &r;
  return nullptr;
}

Status check_value(const std::string& src, const YAML::Node& node, const std::string& path,
                   const ValueRule& rule, const std::string& value) {
  if (!rule.choices.empty()) {
    if (std::find(rule.choices.begin(), rule.choices.end(), value) != rule.choices.end()) return {};
    std::string list;
    for (const auto& c : rule.choices) list += (list.empty() ? "" : ", ") + c;
    return yaml_error(src, node, path, "'" + value + "' is not one of " + list);
  }
  char* end = nullptr;
  long v = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || v < rule.lo || v > rule.hi)
    return yaml_error(src, node, path,
                      "expected an integer " + std::to_string(rule.lo) + "-" + std::to_string(rule.hi) +
                          ", got '" + value + "'");
  return {};
}

Status parse_item(const std::string& src, const std::string& name, const YAML::Node& n, ItemConfig& item) {
  std::string path = "items." + name;
  const ValueRule* rule = rule_for(name);
  if (n.IsScalar()) {
    // Shorthand: "aslr: 2" sets the value; "smt: false" turns an item off.
    // Only the words true/false switch: "smt: off" would read as "turn SMT
    // off" to a person and as "disable the item" to YAML 1.1, so it is refused.
    if (n.Scalar() == "true" || n.Scalar() == "false") {
      item.enabled = n.Scalar() == "true";
      return {};
    }
    if (!rule)
      return yaml_error(src, n, path, "expected true, false or a mapping with 'enabled' (this item takes no value), got '" +
                                          n.Scalar() + "'");
    BB_TRY(check_value(src, n, path, *rule, n.Scalar()));
    item.value = n.Scalar();
    return {};
  }
  std::vector<std::string> keys = {"enabled"};
  if (rule) keys.push_back("value");
  BB_TRY(check_keys(src, n, path, keys));
  BB_TRY(read_bool(src, n, path, "enabled", item.enabled));
  if (rule) {
    if (YAML::Node v = n["value"]; v && !v.IsNull()) {
      if (!v.IsScalar()) return yaml_error(src, v, path + ".value", "expected a single value");
      BB_TRY(check_value(src, v, path + ".value", *rule, v.Scalar()));
      item.value = v.Scalar();
    }
  }
  return {};
}

Status parse_root(const std::string& src, const YAML::Node& root, Profile& p) {
  if (!root || root.IsNull()) return {};
  BB_TRY(check_keys(src, root, "", {"cpus", "restore_on_stop", "apply_on_start", "items"}));
  if (YAML::Node cpus = root["cpus"]; cpus && !cpus.IsNull()) {
    BB_TRY(check_keys(src, cpus, "cpus", {"housekeeping", "benchmark"}));
    BB_TRY(read_string(src, cpus, "cpus", "housekeeping", p.housekeeping_cpus));
    BB_TRY(read_string(src, cpus, "cpus", "benchmark", p.benchmark_cpus));
    for (const char* key : {"housekeeping", "benchmark"}) {
      const std::string& text = std::string(key) == "housekeeping" ? p.housekeeping_cpus : p.benchmark_cpus;
      if (auto list = parse_cpu_list(text); !list)
        return yaml_error(src, cpus[key], std::string("cpus.") + key, list.error().message);
    }
  }
  BB_TRY(read_bool(src, root, "", "restore_on_stop", p.restore_on_stop));
  BB_TRY(read_bool(src, root, "", "apply_on_start", p.apply_on_start));
  if (YAML::Node items = root["items"]; items && !items.IsNull()) {
    BB_TRY(check_keys(src, items, "items", item_names()));
    for (const auto& kv : items) {
      std::string name = kv.first.Scalar();
      if (kv.second.IsNull()) continue;
      BB_TRY(parse_item(src, name, kv.second, p.items[name]));
    }
  }
  return {};
}

#undef BB_TRY

std::string describe(const std::vector<int>& cpus) { return cpus.empty() ? "none" : format_cpu_list(cpus); }

}  // namespace

Profile default_profile() {
  Profile p;
  for (const auto& name : item_names()) {
    ItemConfig item;
    if (const ValueRule* r = rule_for(name)) item.value = r->default_value;
    p.items[name] = item;
  }
  return p;
}

Result<Profile> parse_profile(const std::string& text, const std::string& source) {
  Profile p = default_profile();
  p.source = source;
  try {
    YAML::Node root = YAML::Load(text);
    if (auto st = parse_root(source, root, p); !st) return st.error();
  } catch (const YAML::Exception& e) {
    return yaml_error(source, e.mark, e.msg);
  }
  return p;
}

Result<Profile> load_profile(const std::string& path) {
  auto text = read_file(path, 1 << 20);
  if (!text) return text.error().with_context("tuning profile");
  return parse_profile(*text, path);
}

Result<Roles> resolve_roles(const Profile& profile, const std::vector<int>& online) {
  auto bad = [&](const std::string& what) {
    return make_error(Errc::invalid_argument, profile.source + ": cpus: " + what);
  };
  Roles roles;
  roles.online = online;
  auto hk = parse_cpu_list(profile.housekeeping_cpus);
  auto bench = parse_cpu_list(profile.benchmark_cpus);
  if (!hk) return bad("housekeeping: " + hk.error().message);
  if (!bench) return bad("benchmark: " + bench.error().message);
  for (const auto& [key, list] : {std::pair{"housekeeping", *hk}, std::pair{"benchmark", *bench}})
    for (int c : list)
      if (!std::binary_search(online.begin(), online.end(), c))
        return bad(std::string(key) + ": CPU " + std::to_string(c) + " is not online (online: " +
                   describe(online) + ")");
  auto rest = [&](const std::vector<int>& taken) {
    std::vector<int> out;
    for (int c : online)
      if (!std::binary_search(taken.begin(), taken.end(), c)) out.push_back(c);
    return out;
  };
  roles.benchmark = *bench;
  if (roles.benchmark.empty()) roles.benchmark = profile.housekeeping_cpus.empty() ? std::vector<int>{online.back()} : rest(*hk);
  roles.housekeeping = profile.housekeeping_cpus.empty() ? rest(roles.benchmark) : *hk;
  for (int c : roles.benchmark)
    if (std::binary_search(roles.housekeeping.begin(), roles.housekeeping.end(), c))
      return bad("CPU " + std::to_string(c) + " is both a housekeeping and a benchmark CPU");
  if (roles.housekeeping.empty())
    return bad("no housekeeping CPU is left (online: " + describe(online) + ", benchmark: " +
               describe(roles.benchmark) + "); the system needs at least one");
  if (roles.benchmark.empty()) return bad("no benchmark CPU is left (online: " + describe(online) + ")");
  return roles;
}

}  // namespace bb::tuning
