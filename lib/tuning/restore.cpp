// Undoing saved changes needs only the save file, never the profile: after
// a crash the profile may have changed, but the originals have not.
#include "sys/sysfs.h"
#include "tuning/file_item.h"
#include "tuning/item.h"
#include "util/cpu_list.h"
#include "util/text.h"

namespace bb::tuning {

namespace {

std::string parent_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

Status remove_cgroup(const Context& ctx, const std::string& dir) {
  if (!ctx.fs.exists(dir)) return {};
  // A cgroup can only go once it is empty: hand its tasks to the parent.
  // On a busy host its tasks fork meanwhile, and the new ones keep it busy
  // (EBUSY): hand those over too, a bounded number of times.
  Status removed;
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (auto tasks = ctx.fs.read(dir + "/tasks"); tasks)
      for (const auto& line : split(*tasks, '\n'))
        if (!trim(line).empty()) (void)ctx.fs.write(parent_of(dir) + "/tasks", trim(line));  // ESRCH: gone
    removed = ctx.fs.remove_dir(dir);
    if (removed) return removed;
  }
  return removed;
}

}  // namespace

Status restore_entry(const Context& ctx, const SaveEntry& e) {
  if (e.kind == "file") {
    // Nothing to undo when the value is still the original (a write that
    // failed during Apply, or a restore interrupted after this entry).
    if (auto now = ctx.fs.read(e.target); now && (trim(*now) == e.original || selected_word(*now) == e.original))
      return {};
    auto st = ctx.fs.write(e.target, e.original);
    if (!st && st.error().code == Errc::not_found) return {};  // the knob is gone (an IRQ freed)
    return st;
  }
  if (e.kind == "cgroup_dir") return remove_cgroup(ctx, e.target);
  if (e.kind == "allowed_cpus" || e.kind == "unit_active") {
    if (!ctx.systemd)
      return make_error(Errc::unavailable, "restoring " + e.target + " needs systemd, which is not PID 1 here");
    if (e.kind == "unit_active") return ctx.systemd->start_unit(e.target);
    auto cpus = parse_cpu_list(e.original);
    if (!cpus) return cpus.error();
    return ctx.systemd->set_allowed_cpus(e.target, *cpus);
  }
  return make_error(Errc::invalid_argument, "unknown saved entry kind '" + e.kind + "'");
}

}  // namespace bb::tuning
