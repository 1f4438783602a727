#include <catch2/catch.hpp>

#include "model/environment.h"
#include "model/result_set.h"
#include "util/text.h"

using namespace bb::model;

namespace {

Environment sample() {
  Environment e;
  e.cpus = "2";
  e.isolation = "affinity";
  e.runner = "box-1";
  SuiteEnvironment s;
  s.name = "micro";
  s.build = "make";
  s.run = "./bench";
  s.format = "command";
  s.env = {{"MODE", "fast"}};
  s.toolchain = {{"cc --version", "cc (Debian 12.2.0-14) 12.2.0\nCopyright (C) 2022"}};
  s.lock_files = {{"poetry.lock", "aa11"}, {"Cargo.lock", "absent"}};
  e.suites.push_back(s);
  return e;
}

}  // namespace

TEST_CASE("environment key: the inputs' hash, stored beside it") {
  Environment a = sample(), b = sample();
  CHECK(a.key() == b.key());
  CHECK(a.key().size() == 64);
  b.suites[0].toolchain["cc --version"] = "cc (Debian 13.1.0-1) 13.1.0";
  CHECK(a.key() != b.key());
  ResultSet rs;
  rs.environment = a.to_json();
  auto back = result_set_from_json(to_json(rs));
  REQUIRE(back.ok());
  CHECK(back->environment == a.to_json());
  auto j = to_json(rs);
  j["environment"] = "x";
  CHECK(result_set_from_json(j).error().message == "/environment: expected an object of the environment's inputs");
}

TEST_CASE("a suite that declares no toolchain or lock files keeps its old key") {
  // The key benchbox 0.1 computed for these inputs (daemons/runnerd, before
  // toolchain: and lock_files: existed).
  nlohmann::json old;
  old["cpus"] = "2";
  old["isolation"] = "affinity";
  old["runner"] = "box-1";
  old["suites"] = nlohmann::json::array();
  old["suites"].push_back({{"name", "micro"}, {"build", "make"}, {"run", "./bench"}, {"format", "command"},
                           {"env", {{"MODE", "fast"}}}});
  Environment e = sample();
  e.suites[0].toolchain.clear();
  e.suites[0].lock_files.clear();
  CHECK(e.key() == bb::sha256_hex(old.dump()));
}

TEST_CASE("environment changes are named, one line each") {
  Environment a = sample(), b = sample();
  CHECK(environment_changes(a.to_json(), b.to_json()).empty());
  b.cpus = "2-3";
  b.suites[0].toolchain["cc --version"] = "cc (Debian 13.1.0-1) 13.1.0\nCopyright (C) 2023";
  b.suites[0].toolchain["python3 -VV"] = "Python 3.11.2";
  b.suites[0].lock_files["poetry.lock"] = "bb22";
  b.suites[0].lock_files["Cargo.lock"] = "cc33";
  b.suites[0].env["MODE"] = "slow";
  b.suites[0].run = "./bench --all";
  SuiteEnvironment extra;
  extra.name = "macro";
  b.suites.push_back(extra);
  const auto changes = environment_changes(a.to_json(), b.to_json());
  const std::vector<std::string> expected = {
      "benchmark CPUs: 2 → 2-3",
      "suite macro is new",
      "suite micro: run `./bench` → `./bench --all`",
      "suite micro: env MODE: fast → slow",
      "suite micro: `cc --version`: cc (Debian 12.2.0-14) 12.2.0 → cc (Debian 13.1.0-1) 13.1.0",
      "suite micro: `python3 -VV`: (not asked) → Python 3.11.2",
      "suite micro: Cargo.lock appeared",
      "suite micro: poetry.lock changed",
  };
  CHECK(changes == expected);
  CHECK(environment_changes(nullptr, b.to_json()).empty());  // a run from before inputs were stored
}

TEST_CASE("with a hardware class, boxes of one class share a key whatever their names") {
  Environment a = sample(), b = sample();
  HardwareClass hw{"AMD EPYC 7302P 16-Core Processor", 32, 128, "6.1.0-18-amd64", "1a2b3c4d5e6f"};
  a.hardware = hw;
  b.hardware = hw;
  a.runner = "box-1";
  b.runner = "box-2";
  CHECK(a.key() == b.key());
  CHECK(a.to_json()["runner"] == "box-1");  // still recorded
  CHECK(environment_changes(a.to_json(), b.to_json()).empty());
  b.hardware->memory_gib = 64;
  b.hardware->tuning = "ffff";
  CHECK(a.key() != b.key());
  const std::vector<std::string> expected = {"hardware memory_gib: 128 → 64", "hardware tuning: 1a2b3c4d5e6f → ffff"};
  CHECK(environment_changes(a.to_json(), b.to_json()) == expected);
  CHECK(hw.describe() == "AMD EPYC 7302P 16-Core Processor, 32 CPUs, 128 GiB, kernel 6.1.0-18-amd64, tuning 1a2b3c4d");
  // Without a class (results from before), the runner's name is in the key.
  Environment c = sample(), d = sample();
  c.runner = "box-1";
  d.runner = "box-2";
  CHECK(c.key() != d.key());
  // The first classed run after the upgrade says why its trend breaks.
  CHECK(environment_changes(c.to_json(), a.to_json()) ==
        std::vector<std::string>{"hardware class recorded (benchbox now keys trends by it, not by the runner's name)"});
}
