// One tuning item (swappiness, IRQ affinity, shielding, ...): it can say how
// the host stands (check), which original values it would change
// (originals, read before anything is written), and apply itself. Restoring
// is generic over the saved entries (save.h), so a restore after a crash
// needs no item code, only the save file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sys/sysfs.h"
#include "tuning/profile.h"
#include "tuning/systemd.h"

namespace bb::tuning {

// One line of the checklist; the first five fields travel on the bus as
// (sssbs).
struct Row {
  std::string name;
  std::string wanted;
  std::string actual;
  bool ok = false;
  std::string reason;     // why not ok, or a note worth reading when ok
  bool supported = true;  // false: this host cannot have it (missing knob, no systemd ...)
  bool advisory = false;  // reported, never applied, does not count for State
};

// What Restore() must do to undo one change.
struct SaveEntry {
  // "file": write `original` back to the file `target`.
  // "cgroup_dir": the tuner created cgroup `target`: move its tasks to the
  //   parent and remove it (`original` is unused).
  // "allowed_cpus": set AllowedCPUs= of unit `target` back to `original`
  //   (a CPU list; "" = all CPUs).
  // "unit_active": unit `target` was running: start it again.
  std::string kind;
  std::string target;
  std::string original;
  std::string item;  // which item saved it, for messages
};

struct Context {
  sys::SysFs& fs;
  Systemd* systemd;  // nullptr when systemd is not PID 1
  const Profile& profile;
  const Roles& roles;
};

class Item {
 public:
  virtual ~Item() = default;
  virtual std::string name() const = 0;
  // Read-only.
  virtual Row check(const Context& ctx) const = 0;
  // Everything apply() would change, with today's values. Read-only.
  virtual std::vector<SaveEntry> originals(const Context& ctx) const = 0;
  // Changes the host; returns "" or why a part could not be applied. The
  // other parts are still applied.
  virtual std::string apply(const Context& ctx) const = 0;
};

// The enabled items of a profile, in item_names() order.
std::vector<std::unique_ptr<Item>> make_items(const Profile& profile);

// Undoes one saved change. A file or cgroup that no longer exists counts as
// restored (an IRQ that went away has nothing to restore).
Status restore_entry(const Context& ctx, const SaveEntry& entry);

}  // namespace bb::tuning
