// What makes two runs comparable, written out: the inputs behind a result
// set's environment key. The key is sha256 over their canonical JSON, and
// the inputs are stored beside it, so a report that cannot compare two runs
// can say which input changed ("cc 12.2.0 -> 13.1.0", "poetry.lock
// changed") instead of two hashes: asv's stale-environment problem, named.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace bb::model {

struct SuiteEnvironment {
  std::string name, build, run, format;
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> toolchain;   // command -> what it printed (trimmed)
  std::map<std::string, std::string> lock_files;  // path -> sha256 of its contents, or "absent"
};

// A box's hardware class: what two boxes of a fleet share when their runs
// may share a trend. It stands in the environment key where the runner's
// name stood, so trends are per class, not per box.
struct HardwareClass {
  std::string cpu_model;
  int cpus = 0;              // online CPUs
  uint64_t memory_gib = 0;   // MemTotal, to the nearest GiB (identical boxes differ by a few MiB)
  std::string kernel;
  std::string tuning;        // tunerd's fingerprint ("unavailable" without tunerd)

  nlohmann::json to_json() const;
  // "AMD EPYC 7302P, 32 CPUs, 128 GiB, kernel 6.1.0-18-amd64, tuning 1a2b3c4d"
  std::string describe() const;
};

struct Environment {
  std::string cpus;        // "2-3"
  std::string isolation;
  std::string runner;      // recorded; in the key only without `hardware` (results before 0.x)
  std::optional<HardwareClass> hardware;
  std::vector<SuiteEnvironment> suites;

  nlohmann::json to_json() const;
  // sha256 hex of to_json().dump(), without the runner's name when the
  // hardware class is known.
  std::string key() const;
};

// The differences between two environments' inputs (as stored in result
// sets), one readable line each, e.g. "suite micro: `cc --version`: cc
// (Debian 12.2.0-14) 12.2.0 → cc (Debian 13.1.0-1) 13.1.0",
// "suite micro: poetry.lock changed", "benchmark CPUs: 2 → 2-3". Empty when
// they agree or either is unknown (null).
std::vector<std::string> environment_changes(const nlohmann::json& before, const nlohmann::json& after);

}  // namespace bb::model
