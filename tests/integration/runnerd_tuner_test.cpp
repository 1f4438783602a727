// runnerd with a real benchbox-tunerd (on a copy of the fake Intel sysfs
// tree): the tuning fingerprint goes into the result, and with
// runner.refuse_on_drift a drifted host fails the job with the reason.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>

#include "runnerd_fixture.h"
#include "tunerd_support.h"
#include "util/file.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

TEST_CASE("the tuner's fingerprint is recorded, and a drifted host fails the job when refuse_on_drift is set") {
  const std::string source = source_root();
  RunnerdFixture f("  refuse_on_drift: true\n");
  const std::string root = f.dir() / "root";
  REQUIRE(run_shell("cp -a " + source + "/tests/fixtures/sysfs/intel " + root) == 0);
  {
    std::ofstream(f.dir() / "tuning.yml") << "# all defaults\n";
    std::ofstream cfg(f.config_path(), std::ios::app);
    cfg << "tuner:\n  sysfs_root: " << root << "\n  verify_interval_seconds: 1\n  profile: "
        << (f.dir() / "tuning.yml") << "\n";
  }
  auto tunerd = start_tunerd(f.address(), f.config_path(), f.dir() / "tunerd.log");
  TunerClient tuner(f.address());
  REQUIRE(tuner.name_owned());
  auto check = tuner.call("Check");
  REQUIRE(check.error_name == "");
  REQUIRE(check.fingerprint.size() == 64);

  std::string sha = f.commit(".benchbox.yml", "version: 1\nsuites:\n  - {name: s, run: \"true\", repetitions: 1}\n",
                             "config");
  json spec = f.push_spec(sha);
  f.start_runner();
  json job = f.wait_finished(f.enqueue(spec));
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json head = f.result_of(job)["head"];
  CHECK(head["machine_fingerprint"] == check.fingerprint);
  CHECK(head["host_drifted"] == false);
  // Nothing applied yet: the result says so, and its report does not read
  // "tuning held" (it did, on bidict, while tunerd said untuned).
  CHECK(head["tuning"] == "untuned");

  // Tune, then let somebody change swappiness behind tunerd's back.
  REQUIRE(tuner.call("Apply").error_name == "");
  REQUIRE(write_file_atomic(root + "/proc/sys/vm/swappiness", "60\n").ok());
  REQUIRE(wait_until([&] { return tuner.state() == "drifted"; }, std::chrono::seconds(15)));

  std::string second = f.commit("x", "x\n", "another commit");
  spec["head_sha"] = second;
  job = f.wait_finished(f.enqueue(spec));
  REQUIRE(job["state"] == "failed");
  std::string error = job["error"];
  INFO(error);
  CHECK(error.find("the host's tuning drifted (") == 0);
  CHECK(error.find("swappiness") != std::string::npos);
  CHECK(error.find("runner.refuse_on_drift is set") != std::string::npos);
}
