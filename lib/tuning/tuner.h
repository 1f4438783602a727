// The tuner: a profile's items against one host (a SysFs root and, when
// systemd is PID 1, its D-Bus API). Check is read-only; Apply saves every
// original durably before the first change; Restore needs only the save.
// Single-threaded by design: the daemon calls it from its event loop.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sys/sysfs.h"
#include "tuning/item.h"
#include "tuning/profile.h"
#include "tuning/save.h"
#include "tuning/systemd.h"
#include "util/clock.h"
#include "util/result.h"

namespace bb::tuning {

enum class State {
  untuned,  // no save: the tuner has changed nothing
  tuned,    // applied, and every item holds
  partial,  // applied, but some items could not be (unsupported, refused)
  drifted,  // an item that held after Apply no longer does
};
const char* state_name(State state);

struct Report {
  std::vector<Row> rows;
  std::string fingerprint;
  State state = State::untuned;
};

class Tuner {
 public:
  struct Options {
    sys::SysFs* fs = nullptr;
    Systemd* systemd = nullptr;  // nullptr: systemd is not PID 1
    Profile profile = default_profile();
    std::string save_path;       // e.g. /var/lib/benchbox/tuner/originals.json
    const Clock* clock = nullptr;
  };

  // Resolves the CPU roles against the online CPUs and reads an existing
  // save (a broken save file is an error: never guess about originals).
  static Result<std::unique_ptr<Tuner>> create(Options options);

  const Roles& roles() const { return roles_; }
  const Profile& profile() const { return options_.profile; }
  State state() const { return state_; }
  bool has_save() const { return save_.has_value(); }

  // Reads the host; changes nothing on it.
  Result<Report> check();
  // check(), remembered: `drifted` receives the items that held at the last
  // verify (or Apply) and no longer do.
  Result<Report> verify(std::vector<Row>* drifted);
  Result<Report> apply();
  // Puts every saved original back and forgets the save. Entries that could
  // not be restored stay saved, and the error names them.
  Result<Report> restore();

 private:
  explicit Tuner(Options options) : options_(std::move(options)) {}
  Context context() const { return Context{*options_.fs, options_.systemd, options_.profile, roles_}; }
  State compute_state(const std::vector<Row>& rows) const;

  Options options_;
  Roles roles_;
  std::vector<std::unique_ptr<Item>> items_;
  std::optional<SaveFile> save_;
  std::map<std::string, std::string> apply_errors_;  // item -> why it could not be applied
  std::map<std::string, bool> last_ok_;              // item -> ok at the last verify/apply
  State state_ = State::untuned;
};

// sha256 over the CPU roles, CPU model, microcode, kernel release and every
// row's effective value: equal fingerprints mean comparable tuning.
std::string fingerprint(const std::vector<Row>& rows, const Roles& roles, const sys::SysFs& fs);

}  // namespace bb::tuning
