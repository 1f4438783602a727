// What makes two runs comparable, written out: the inputs behind a result
// set's environment key. The key is sha256 over their canonical JSON, and
// the inputs are stored beside it, so a report that cannot compare two runs
// can say which input changed ("cc 12.2.0 -> 13.1.0", "poetry.lock
// changed") instead of two hashes: asv's stale-environment problem, named.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bb::model {

struct SuiteEnvironment {
  std::string name, build, run, format;
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> toolchain;   // command -> what it printed (trimmed)
  std::map<std::string, std::string> lock_files;  // path -> sha256 of its contents, or "absent"
};

struct Environment {
  std::string cpus;        // "2-3"
  std::string isolation;
  std::string runner;
  std::vector<SuiteEnvironment> suites;

  nlohmann::json to_json() const;
  std::string key() const;  // sha256 hex of to_json().dump()
};

// The differences between two environments' inputs (as stored in result
// sets), one readable line each, e.g. "suite micro: `cc --version`: cc
// (Debian 12.2.0-14) 12.2.0 → cc (Debian 13.1.0-1) 13.1.0",
// "suite micro: poetry.lock changed", "benchmark CPUs: 2 → 2-3". Empty when
// they agree or either is unknown (null).
std::vector<std::string> environment_changes(const nlohmann::json& before, const nlohmann::json& after);

}  // namespace bb::model
