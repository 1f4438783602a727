// benchbox-update: one self-update attempt, as benchbox-update.service runs
// it from benchbox-update.timer (docs/install.md, "Updates"). The decisions
// are lib/update; the box is AptHost. Every attempt ends in one journal
// line with UPDATE_FROM=, UPDATE_TO= and UPDATE_OUTCOME=, and in
// <update dir>/state.json, which benchboxctl status shows.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "apt_host.h"
#include "bus/connect.h"
#include "config/appliance.h"
#include "daemon/args.h"
#include "daemon/log.h"
#include "util/fd.h"
#include "util/file.h"
#include "util/json_text.h"

using namespace bb;

namespace {

int fail(const std::string& what) {
  daemon::log_error(what);
  return 1;
}

update::State load_state(const std::string& path) {
  if (!path_exists(path)) return {};
  auto text = read_file(path, 1 << 20);
  Result<update::State> state = text ? [&]() -> Result<update::State> {
    try {
      return update::state_from_json(nlohmann::json::parse(*text));
    } catch (const std::exception& e) {
      return make_error(Errc::parse, e.what());
    }
  }()
                                     : Result<update::State>(text.error());
  if (state) return *state;
  daemon::log_warning("the update state " + path + " is unreadable (" + state.error().message +
                      "); starting afresh");
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  daemon::log_init("benchbox-update");
  int exit_code = 0;
  const auto args = daemon::parse_args(argc, argv, "benchbox-update", {}, &exit_code);
  if (!args) return exit_code;
  auto cfg = config::load_appliance_config(args->config);
  if (!cfg) return fail(cfg.error().message);

  auto source_text = read_file(cfg->update.source, 1 << 20);
  if (!source_text)
    return fail("no benchbox apt source to update from (" + source_text.error().message +
                "; docs/install.md, step 2)");
  auto source = update::parse_sources(*source_text, cfg->update.source);
  if (!source) return fail(source.error().message);

  const std::string dir = cfg->update_dir();
  if (auto st = make_dirs(dir, 0700); !st) return fail(st.error().message);
  // One attempt at a time, whoever started it (the timer, an operator).
  UniqueFd lock(::open(path_join(dir, "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock.valid() || ::flock(lock.get(), LOCK_EX | LOCK_NB) < 0) {
    daemon::log_notice("another update attempt is running; not starting a second");
    return 0;
  }
  const std::string state_path = path_join(dir, "state.json");

  auto bus = bus::open_system_bus();
  if (!bus) return fail(bus.error().message);
  updater::HostSettings settings;
  settings.source_file = cfg->update.source;
  settings.source = *source;
  settings.packages_dir = path_join(dir, "packages");
  settings.scratch_lists = path_join(dir, "lists");
  updater::AptHost host(settings, bus->get());

  update::Options options;
  options.max_wait = std::chrono::seconds(cfg->update.max_wait_seconds);
  options.health_timeout = std::chrono::seconds(cfg->update.health_timeout_seconds);
  // The state file is the intent journal too: written (and fsynced)
  // before each step that changes the box.
  auto save = [&state_path](const update::State& s) {
    return write_file_atomic(state_path, dump_json(update::to_json(s), 2) + "\n", 0644);
  };
  update::Updater updater(host, options, load_state(state_path),
                          [](const std::string& line) { daemon::log_info(line); }, save);
  update::Attempt a = updater.run();

  if (auto st = write_file_atomic(state_path, dump_json(update::to_json(updater.state()), 2) + "\n", 0644); !st)
    daemon::log_error("cannot write the update state: " + st.error().message);
  std::string line = std::string("update ") + update::to_string(a.outcome) + ": " + a.reason;
  std::initializer_list<daemon::Field> fields = {{"UPDATE_FROM", a.from},
                                                 {"UPDATE_TO", a.to},
                                                 {"UPDATE_OUTCOME", update::to_string(a.outcome)},
                                                 {"UPDATE_CUT_JOB", a.cut_job ? "yes" : "no"}};
  switch (a.outcome) {
    case update::Outcome::up_to_date:
    case update::Outcome::skipped:
      daemon::log_info(line, fields);
      return 0;
    case update::Outcome::upgraded:
      daemon::log_notice(line, fields);
      return 0;
    case update::Outcome::refused:
    case update::Outcome::rolled_back:
      daemon::log_warning(line, fields);
      return 1;
    case update::Outcome::failed:
      daemon::log_error(line, fields);
      return 1;
  }
  return 1;
}
