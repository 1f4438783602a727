// The items whose state lives in kernel files (FileItem) plus the two that
// only look: irqbalance without systemd, and the kernel command line.
#include <algorithm>

#include "sys/cpumask.h"
#include "sys/host.h"
#include "tuning/file_item.h"
#include "tuning/shielding.h"
#include "util/cpu_list.h"
#include "util/text.h"

namespace bb::tuning {

namespace {

const std::string kCpu = "/sys/devices/system/cpu";

std::string cpu_dir(int cpu) { return kCpu + "/cpu" + std::to_string(cpu); }

// scaling_governor of every benchmark CPU.
class GovernorItem final : public FileItem {
 public:
  std::string name() const override { return "governor"; }

 protected:
  std::vector<FileSetting> settings(const Context& ctx, std::string* unsupported) const override {
    std::vector<FileSetting> out;
    for (int c : ctx.roles.benchmark) {
      std::string path = cpu_dir(c) + "/cpufreq/scaling_governor";
      if (!ctx.fs.exists(path)) {
        *unsupported = "no cpufreq driver: " + path + " missing";
        return {};
      }
      out.push_back({"cpu" + std::to_string(c), path, ctx.profile.item("governor").value, Match::exact});
    }
    return out;
  }
};

// scaling_min_freq = cpuinfo_max_freq: the governor cannot clock down.
class MinFreqItem final : public FileItem {
 public:
  std::string name() const override { return "min_freq"; }

 protected:
  std::vector<FileSetting> settings(const Context& ctx, std::string* unsupported) const override {
    std::vector<FileSetting> out;
    for (int c : ctx.roles.benchmark) {
      std::string dir = cpu_dir(c) + "/cpufreq";
      auto max = sys::read_value(ctx.fs, dir + "/cpuinfo_max_freq");
      if (!max || !ctx.fs.exists(dir + "/scaling_min_freq")) {
        *unsupported = "no cpufreq driver: " + dir + "/scaling_min_freq or cpuinfo_max_freq missing";
        return {};
      }
      out.push_back({"cpu" + std::to_string(c), dir + "/scaling_min_freq", *max, Match::exact});
    }
    return out;
  }
  std::string wanted_text(const Context&, const std::vector<FileSetting>& s) const override {
    return s.empty() ? "cpuinfo_max_freq" : s.front().wanted + " (max)";
  }
};

// Turbo/boost off through whichever knob the driver offers.
class BoostItem final : public FileItem {
 public:
  std::string name() const override { return "boost"; }

 protected:
  std::vector<FileSetting> settings(const Context& ctx, std::string* unsupported) const override {
    const std::string no_turbo = kCpu + "/intel_pstate/no_turbo";
    const std::string boost = kCpu + "/cpufreq/boost";
    if (ctx.fs.exists(no_turbo)) return {{"intel_pstate", no_turbo, "1", Match::exact}};
    if (ctx.fs.exists(boost)) return {{"cpufreq", boost, "0", Match::exact}};
    // amd-pstate (and newer acpi-cpufreq) have a boost file per policy.
    std::vector<FileSetting> out;
    if (auto policies = ctx.fs.list(kCpu + "/cpufreq"); policies)
      for (const auto& p : *policies) {
        std::string path = kCpu + "/cpufreq/" + p + "/boost";
        if (p.rfind("policy", 0) == 0 && ctx.fs.exists(path)) out.push_back({p, path, "0", Match::exact});
      }
    if (out.empty())
      *unsupported = "no boost control: intel_pstate/no_turbo, cpufreq/boost and cpufreq/policy*/boost all missing";
    return out;
  }
  std::string wanted_text(const Context&, const std::vector<FileSetting>& s) const override {
    if (s.empty()) return "off";
    return s.front().path == kCpu + "/intel_pstate/no_turbo" ? "off (no_turbo=1)" : "off (boost=0)";
  }
};

class SmtItem final : public FileItem {
 public:
  std::string name() const override { return "smt"; }

  Row check(const Context& ctx) const override {
    auto control = sys::read_value(ctx.fs, kControl);
    if (control && (*control == "notsupported" || *control == "forceoff")) {
      // Nothing to turn off: no sibling thread can share a benchmark core.
      return Row{name(), "off", *control, true,
                 *control == "notsupported" ? "this CPU has no SMT siblings" : "forced off by the kernel", true,
                 false};
    }
    return FileItem::check(ctx);
  }

 protected:
  std::vector<FileSetting> settings(const Context& ctx, std::string* unsupported) const override {
    auto control = sys::read_value(ctx.fs, kControl);
    if (!control) {
      *unsupported = "not on this host: " + std::string(kControl) + " missing";
      return {};
    }
    if (*control != "on" && *control != "off") {
      *unsupported = "SMT cannot be switched here (smt/control=" + *control + ")";
      return {};
    }
    return {{"", kControl, "off", Match::exact}};
  }

 private:
  static constexpr const char* kControl = "/sys/devices/system/cpu/smt/control";
};

// Every IRQ, and the default for new ones, on the housekeeping CPUs.
class IrqAffinityItem final : public FileItem {
 public:
  std::string name() const override { return "irq_affinity"; }

 protected:
  std::vector<FileSetting> settings(const Context& ctx, std::string* unsupported) const override {
    std::string mask = sys::format_cpu_mask(ctx.roles.housekeeping);
    std::vector<FileSetting> out;
    if (ctx.fs.exists("/proc/irq/default_smp_affinity"))
      out.push_back({"default", "/proc/irq/default_smp_affinity", mask, Match::off_benchmark});
    auto irqs = ctx.fs.list("/proc/irq");
    if (irqs) {
      // Numeric order reads better than the directory's string order.
      std::vector<int> numbers;
      for (const auto& e : *irqs)
        if (!e.empty() && std::all_of(e.begin(), e.end(), ::isdigit)) numbers.push_back(std::stoi(e));
      std::sort(numbers.begin(), numbers.end());
      for (int n : numbers) {
        std::string path = "/proc/irq/" + std::to_string(n) + "/smp_affinity";
        if (ctx.fs.exists(path)) out.push_back({"irq" + std::to_string(n), path, mask, Match::off_benchmark});
      }
    }
    if (out.empty()) *unsupported = "not on this host: /proc/irq missing";
    return out;
  }
  std::string wanted_text(const Context& ctx, const std::vector<FileSetting>&) const override {
    return "off CPUs " + format_cpu_list(ctx.roles.benchmark) + " (mask " +
           sys::format_cpu_mask(ctx.roles.housekeeping) + ")";
  }
};

class WorkqueueItem final : public FileItem {
 public:
  std::string name() const override { return "workqueue"; }

 protected:
  std::vector<FileSetting> settings(const Context& ctx, std::string* unsupported) const override {
    const std::string path = "/sys/devices/virtual/workqueue/cpumask";
    if (!ctx.fs.exists(path)) {
      *unsupported = "not on this host: " + path + " missing";
      return {};
    }
    return {{"", path, sys::format_cpu_mask(ctx.roles.housekeeping), Match::off_benchmark}};
  }
  std::string wanted_text(const Context& ctx, const std::vector<FileSetting>&) const override {
    return "off CPUs " + format_cpu_list(ctx.roles.benchmark) + " (mask " +
           sys::format_cpu_mask(ctx.roles.housekeeping) + ")";
  }
};

// irqbalance would move IRQs back onto the benchmark CPUs. With systemd it
// is stopped (and started again on restore); without, the tuner can only
// say that it runs.
class IrqbalanceItem final : public Item {
 public:
  std::string name() const override { return "irqbalance"; }

  Row check(const Context& ctx) const override {
    Row row{name(), "stopped", "", false, "", true, false};
    if (ctx.systemd) {
      auto active = ctx.systemd->unit_active(kUnit);
      if (!active) {
        row.actual = "unknown";
        row.reason = active.error().message;
        return row;
      }
      row.actual = *active ? "running" : "stopped";
      row.ok = !*active;
      return row;
    }
    auto pids = running_pids(ctx);
    row.ok = pids.empty();
    row.actual = row.ok ? "stopped" : "running";
    if (!row.ok) {
      row.supported = false;
      row.reason = "irqbalance runs (pid " + join_capped(pids, 3) +
                   ") and systemd is not PID 1 to stop it: stop it by hand";
    }
    return row;
  }

  std::vector<SaveEntry> originals(const Context& ctx) const override {
    if (!ctx.systemd) return {};
    auto active = ctx.systemd->unit_active(kUnit);
    if (active && *active) return {{"unit_active", kUnit, "active", name()}};
    return {};
  }

  std::string apply(const Context& ctx) const override {
    if (!ctx.systemd) return "";  // check() says that it runs and why it was left alone
    auto active = ctx.systemd->unit_active(kUnit);
    if (!active) return active.error().message;
    if (!*active) return "";
    auto st = ctx.systemd->stop_unit(kUnit);
    return st ? "" : st.error().message;
  }

 private:
  static constexpr const char* kUnit = "irqbalance.service";

  static std::vector<std::string> running_pids(const Context& ctx) {
    std::vector<std::string> pids;
    auto entries = ctx.fs.list("/proc");
    if (!entries) return pids;
    for (const auto& e : *entries) {
      if (e.empty() || !std::all_of(e.begin(), e.end(), ::isdigit)) continue;
      auto comm = sys::read_value(ctx.fs, "/proc/" + e + "/comm");
      if (comm && *comm == "irqbalance") pids.push_back(e);
    }
    return pids;
  }
};

// isolcpus=, nohz_full=, rcu_nocbs= for the benchmark CPUs: advice only,
// the tuner never edits the boot loader.
class KernelCmdlineItem final : public Item {
 public:
  std::string name() const override { return "kernel_cmdline"; }

  Row check(const Context& ctx) const override {
    std::string bench = format_cpu_list(ctx.roles.benchmark);
    Row row{name(), "", "", true, "", true, true};
    std::vector<std::string> missing, present;
    auto cmdline = ctx.fs.read("/proc/cmdline");
    for (const char* key : {"isolcpus", "nohz_full", "rcu_nocbs"}) {
      row.wanted += (row.wanted.empty() ? "" : " ") + std::string(key) + "=" + bench;
      sys::CmdlineArg arg = cmdline ? sys::cmdline_arg(*cmdline, key) : sys::CmdlineArg{};
      if (arg.present) present.push_back(std::string(key) + "=" + arg.value);
      if (!arg.present || !covers(arg.value, ctx.roles.benchmark)) missing.push_back(std::string(key) + "=" + bench);
    }
    row.actual = present.empty() ? "none" : join_capped(present, 3);
    row.ok = missing.empty();
    if (!cmdline) {
      row.supported = false;
      row.reason = "cannot read /proc/cmdline";
    } else if (!row.ok) {
      std::string words;
      for (const auto& m : missing) words += (words.empty() ? "" : " ") + m;
      row.reason = "advice: add " + words + " to the kernel command line and reboot (never edited by benchbox)";
    }
    return row;
  }
  std::vector<SaveEntry> originals(const Context&) const override { return {}; }
  std::string apply(const Context&) const override { return ""; }

 private:
  // isolcpus may carry flags first ("domain,managed_irq,2-3"): keep the CPUs.
  static bool covers(const std::string& value, const std::vector<int>& cpus) {
    std::string list;
    for (const auto& piece : split(value, ','))
      if (!piece.empty() && ::isdigit(static_cast<unsigned char>(piece[0])))
        list += (list.empty() ? "" : ",") + piece;
    auto parsed = parse_cpu_list(list);
    if (!parsed) return false;
    for (int c : cpus)
      if (!std::binary_search(parsed->begin(), parsed->end(), c)) return false;
    return true;
  }
};

std::unique_ptr<Item> make_item(const std::string& name, const Profile& p) {
  if (name == "governor") return std::make_unique<GovernorItem>();
  if (name == "min_freq") return std::make_unique<MinFreqItem>();
  if (name == "boost") return std::make_unique<BoostItem>();
  if (name == "smt") return std::make_unique<SmtItem>();
  if (name == "swappiness")
    return std::make_unique<SimpleFileItem>(name, "/proc/sys/vm/swappiness", p.item(name).value);
  if (name == "aslr")
    return std::make_unique<SimpleFileItem>(name, "/proc/sys/kernel/randomize_va_space", p.item(name).value);
  if (name == "thp")
    return std::make_unique<SimpleFileItem>(name, "/sys/kernel/mm/transparent_hugepage/enabled",
                                            p.item(name).value, Match::selected);
  if (name == "perf_event_paranoid")
    return std::make_unique<SimpleFileItem>(name, "/proc/sys/kernel/perf_event_paranoid", p.item(name).value);
  if (name == "nmi_watchdog") return std::make_unique<SimpleFileItem>(name, "/proc/sys/kernel/nmi_watchdog", "0");
  if (name == "irqbalance") return std::make_unique<IrqbalanceItem>();
  if (name == "irq_affinity") return std::make_unique<IrqAffinityItem>();
  if (name == "workqueue") return std::make_unique<WorkqueueItem>();
  if (name == "shielding") return make_shielding_item();
  if (name == "kernel_cmdline") return std::make_unique<KernelCmdlineItem>();
  return nullptr;
}

}  // namespace

std::vector<std::unique_ptr<Item>> make_items(const Profile& profile) {
  std::vector<std::unique_ptr<Item>> items;
  for (const auto& name : item_names())
    if (profile.enabled(name))
      if (auto item = make_item(name, profile)) items.push_back(std::move(item));
  return items;
}

}  // namespace bb::tuning
