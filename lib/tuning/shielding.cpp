#include "tuning/shielding.h"

#include "sys/sysfs.h"
#include "tuning/file_item.h"
#include "util/cpu_list.h"
#include "util/text.h"

namespace bb::tuning {

namespace {

struct UnitRole {
  std::string unit;
  bool benchmark;  // gets the benchmark CPUs, else the housekeeping ones
};

// Every top-level cgroup systemd has: init.scope and each top-level slice
// (system.slice, user.slice, machine.slice, one an admin made) get the
// housekeeping CPUs; benchbox-bench.slice, and benchbox.slice above it,
// the benchmark ones. When systemd cannot list its slices, the two every
// host has.
std::vector<UnitRole> units_of(const Context& ctx) {
  const std::string bench = kBenchSlice;
  auto listed = ctx.systemd->top_level_slices();
  const std::vector<std::string> slices = listed ? *listed : std::vector<std::string>{"system.slice", "user.slice"};
  std::vector<UnitRole> out = {{"init.scope", false}};
  for (const auto& slice : slices) {
    const std::string stem = slice.substr(0, slice.size() - 6);  // without ".slice"
    if (slice != bench && bench.rfind(stem + "-", 0) != 0) out.push_back({slice, false});
    else if (slice != bench) out.push_back({slice, true});  // an ancestor of the bench slice
  }
  out.push_back({bench, true});
  return out;
}

const std::vector<int>& cpus_for(const Context& ctx, bool benchmark) {
  return benchmark ? ctx.roles.benchmark : ctx.roles.housekeeping;
}

std::string show(const std::vector<int>& cpus) { return cpus.empty() ? "all" : format_cpu_list(cpus); }

Result<std::vector<int>> cpuset_cpus(const Context& ctx, const std::string& dir) {
  auto text = sys::read_value(ctx.fs, dir + "/cpuset.cpus");
  if (!text) return text.error();
  return parse_cpu_list(*text);
}

std::vector<std::string> tasks_of(const Context& ctx, const std::string& dir) {
  std::vector<std::string> pids;
  if (auto text = ctx.fs.read(dir + "/tasks"); text)
    for (const auto& line : split(*text, '\n'))
      if (!trim(line).empty()) pids.push_back(trim(line));
  return pids;
}

class ShieldingItem final : public Item {
 public:
  std::string name() const override { return "shielding"; }

  Row check(const Context& ctx) const override {
    Row row{name(), wanted(ctx), "", false, "", true, false};
    ShieldPlan plan = detect_shielding(ctx);
    if (plan.mode == ShieldMode::unavailable) {
      row.actual = "n/a";
      row.supported = false;
      row.reason = plan.why;
      return row;
    }
    if (plan.mode == ShieldMode::systemd_slices) {
      std::vector<std::string> parts, errors;
      row.ok = true;
      for (const auto& u : units_of(ctx)) {
        auto cpus = ctx.systemd->allowed_cpus(u.unit);
        if (!cpus) {
          errors.push_back(cpus.error().message);
          row.ok = false;
          continue;
        }
        parts.push_back(u.unit + "=" + show(*cpus));
        row.ok = row.ok && *cpus == cpus_for(ctx, u.benchmark);
      }
      row.actual = join_capped(parts, 6);
      row.reason = join_capped(errors, 2);
      if (!plan.enforced) {
        row.ok = false;
        row.supported = false;
        row.reason = plan.why;
      }
      return row;
    }
    // cgroup v1 cpusets.
    auto hk = cpuset_cpus(ctx, kCpusetHousekeeping);
    auto bench = cpuset_cpus(ctx, kCpusetBench);
    if (!hk || !bench) {
      row.actual = "no benchbox cpusets";
      return row;
    }
    row.actual = "housekeeping=" + show(*hk) + " benchmark=" + show(*bench);
    row.ok = *hk == ctx.roles.housekeeping && *bench == ctx.roles.benchmark;
    if (size_t left = tasks_of(ctx, kCpusetRoot).size())
      row.reason = std::to_string(left) + " tasks stay in the root cpuset on all CPUs "
                   "(kernel threads the kernel does not let move)";
    return row;
  }

  std::vector<SaveEntry> originals(const Context& ctx) const override {
    std::vector<SaveEntry> out;
    ShieldPlan plan = detect_shielding(ctx);
    if (plan.mode == ShieldMode::systemd_slices) {
      for (const auto& u : units_of(ctx)) {
        auto cpus = ctx.systemd->allowed_cpus(u.unit);
        if (cpus && *cpus != cpus_for(ctx, u.benchmark))
          out.push_back({"allowed_cpus", u.unit, format_cpu_list(*cpus), name()});
      }
    } else if (plan.mode == ShieldMode::cpuset_v1) {
      for (const char* dir : {kCpusetHousekeeping, kCpusetBench})
        if (!ctx.fs.exists(dir)) out.push_back({"cgroup_dir", dir, "", name()});
    }
    return out;
  }

  std::string apply(const Context& ctx) const override {
    ShieldPlan plan = detect_shielding(ctx);
    if (plan.mode == ShieldMode::unavailable) return plan.why;
    std::vector<std::string> errors;
    if (plan.mode == ShieldMode::systemd_slices) {
      for (const auto& u : units_of(ctx)) {
        auto now = ctx.systemd->allowed_cpus(u.unit);
        if (now && *now == cpus_for(ctx, u.benchmark)) continue;
        if (auto st = ctx.systemd->set_allowed_cpus(u.unit, cpus_for(ctx, u.benchmark)); !st)
          errors.push_back(st.error().message);
      }
      if (!plan.enforced) errors.push_back(plan.why);
      return join_capped(errors, 3);
    }
    return apply_cpusets(ctx);
  }

 private:
  static std::string wanted(const Context& ctx) {
    return "housekeeping=" + show(ctx.roles.housekeeping) + " benchmark=" + show(ctx.roles.benchmark);
  }

  static std::string apply_cpusets(const Context& ctx) {
    auto mems = sys::read_value(ctx.fs, std::string(kCpusetRoot) + "/cpuset.mems");
    if (!mems) return mems.error().message;
    for (auto [dir, cpus] : {std::pair{kCpusetHousekeeping, &ctx.roles.housekeeping},
                             std::pair{kCpusetBench, &ctx.roles.benchmark}}) {
      std::string d = dir;
      if (!ctx.fs.exists(d))
        if (auto st = ctx.fs.make_dir(d); !st) return st.error().message;
      // A cpuset takes no task until it has both CPUs and memory nodes.
      if (auto st = ctx.fs.write(d + "/cpuset.cpus", format_cpu_list(*cpus)); !st) return st.error().message;
      if (auto st = ctx.fs.write(d + "/cpuset.mems", *mems); !st) return st.error().message;
    }
    size_t moved = 0, refused = 0;
    std::string first_error;
    auto pids = tasks_of(ctx, kCpusetRoot);
    for (const auto& pid : pids) {
      auto st = ctx.fs.write(std::string(kCpusetHousekeeping) + "/tasks", pid);
      if (st) {
        ++moved;
      } else {
        // Per-CPU kernel threads refuse (EINVAL), exited tasks vanish (ESRCH).
        ++refused;
        if (first_error.empty()) first_error = st.error().message;
      }
    }
    if (!pids.empty() && moved == 0)
      return "could not move any task to " + std::string(kCpusetHousekeeping) + ": " + first_error;
    return "";
  }
};

}  // namespace

ShieldPlan detect_shielding(const Context& ctx) {
  ShieldPlan plan;
  if (auto controllers = ctx.fs.read("/sys/fs/cgroup/cgroup.controllers"); controllers) {
    if (!ctx.systemd) {
      plan.why = "cgroup v2: shielding uses systemd's AllowedCPUs=, and systemd is not PID 1 here";
      return plan;
    }
    plan.mode = ShieldMode::systemd_slices;
    bool has_cpuset = false;
    for (const auto& c : split(trim(*controllers), ' ')) has_cpuset = has_cpuset || c == "cpuset";
    if (!has_cpuset) {
      plan.enforced = false;
      plan.why = "AllowedCPUs= is set but not enforced: this cgroup v2 has no cpuset controller";
    }
    return plan;
  }
  if (ctx.fs.exists(std::string(kCpusetRoot) + "/cpuset.cpus")) {
    plan.mode = ShieldMode::cpuset_v1;
    return plan;
  }
  plan.why = "no cpuset controller: neither cgroup v2 nor a v1 cpuset hierarchy is mounted";
  return plan;
}

std::unique_ptr<Item> make_shielding_item() { return std::make_unique<ShieldingItem>(); }

}  // namespace bb::tuning
