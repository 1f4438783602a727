// The updater's real box (update::Host): apt-get, apt-cache and dpkg for the
// package, systemd and the benchbox daemons over the system bus for the
// services. Apt does the verifying (the source's Signed-By keyring, the
// hashes of the signed index); this reads what it says (update/apt_text.h).
//
// Only the benchbox source is refreshed: apt-get update runs with
// Dir::Etc::SourceList set to that one file, so an hourly check never
// touches, or waits on, the box's other archives. It first fetches into a
// lists directory of its own, emptied each time: that is what the archive
// serves now, verified by apt against the source's keyring, and its Date is
// what the replay check compares (apt itself quietly keeps a newer index it
// already has, so a replay would never show in its own lists). Only then
// are apt's lists refreshed and the package installed, with apt's whole
// configuration, so a new dependency from Debian still resolves.
#pragma once

#include <string>

#include "bus/handles.h"
#include "exec/pinned_runner.h"
#include "update/apt_text.h"
#include "update/updater.h"

namespace bb::updater {

struct HostSettings {
  std::string package = "benchbox";
  std::string source_file;        // the deb822 .sources of the benchbox archive
  update::Source source;          // its URI and suite
  std::string packages_dir;       // kept .debs for rollbacks
  std::string scratch_lists;      // the updater's own view of the archive
  std::string apt_archives = "/var/cache/apt/archives";
  std::string lists_dir = "/var/lib/apt/lists";
};

class AptHost final : public update::Host {
 public:
  AptHost(HostSettings settings, sd_bus* bus) : s_(std::move(settings)), bus_(bus) {}

  Result<std::string> installed_version() override;
  Status refresh() override;
  Result<int64_t> index_date() override;
  Result<std::vector<std::string>> offered_versions() override;
  Result<int> compare_versions(const std::string& a, const std::string& b) override;
  Result<update::RunnerState> runner() override;
  Status pause_runner(const std::string& reason) override;
  Status resume_runner() override;
  Result<std::string> keep_package(const std::string& version) override;
  Result<std::vector<std::string>> running_services() override;
  Status install(const std::string& version) override;
  Status install_file(const std::string& path) override;
  Status configure_pending() override;
  Status wait_healthy(const std::string& version, const std::vector<std::string>& services,
                      std::chrono::seconds timeout) override;
  int64_t now() override;
  void sleep(std::chrono::milliseconds d) override;

 private:
  // Runs `argv` (no shell: nothing is quoted by hand) to completion.
  Result<exec::Outcome> run(std::vector<std::string> argv, std::chrono::seconds timeout,
                            const std::string& cwd = "/");
  std::vector<std::string> only_our_source() const;  // apt options that restrict it to the benchbox source
  std::vector<std::string> scratch() const;          // ... and read the updater's own lists
  // What is not yet right about `service` for `version`; "" when it is.
  std::string service_problem(const std::string& service, const std::string& version);
  Result<std::string> unit_property(const std::string& unit, const char* interface, const char* property);

  HostSettings s_;
  sd_bus* bus_;
  exec::PinnedChildRunner runner_;
};

// The five daemons' units, in the order they are checked.
extern const char* const kServices[5];

}  // namespace bb::updater
