// runner.containment: a runnerd that cannot contain a job's code (not root,
// so no uid of its own per job, and no systemd here for transient
// services) claims no job when containment is required, the package's
// default, and says why on the bus, in its log and in `benchboxctl
// status`; with allow-uncontained it runs the job, whose result says as
// whom. runnerd runs as nobody (setpriv) for both.
#include <catch2/catch.hpp>

#include <thread>

#include "runnerd_fixture.h"
#include "skip.h"

using namespace bb;
using namespace bb::test;
using json = nlohmann::json;

namespace {

// queued lets nobody claim, as it would benchbox-runner: what stops the
// runner is its own containment rule, not the bus.
const std::string kNobodyClaims = "access:\n  runner_user: nobody\n";

// What runnerd as nobody writes: the cache (made below the open test
// directory) and the results, below queued's state directory.
void open_results_to_nobody(RunnerdFixture& f) {
  REQUIRE(run_shell("mkdir -p " + (f.dir() / "state/results") + " && chown 65534:65534 " +
                    (f.dir() / "state/results")) == 0);
}

std::string status_of(RunnerdFixture& f, int* rc) {
  std::string out;
  *rc = run_shell("DBUS_SYSTEM_BUS_ADDRESS=" + f.address() + " " + build_path("cli/benchboxctl") + " status 2>&1", &out);
  return out;
}

}  // namespace

TEST_CASE("a runner that cannot contain a job claims none when containment is required, and says why") {
  if (::geteuid() != 0) BB_SKIP("needs root to run benchbox-runnerd as another user");
  RunnerdFixture f(kNobodyClaims);  // runner.containment: the default, required
  open_results_to_nobody(f);
  f.start_runner({{"HOME", "/nonexistent"}}, as_nobody_argv());
  INFO(f.runner_log());
  CHECK(f.runner_property("State", "s") == "refusing");
  const std::string refusal = f.runner_property("Refusal", "s");
  CHECK(refusal.find("runner.containment is required, and this box cannot contain a job's code: it would run as "
                     "runnerd's own user: no transient services as benchbox-job (systemd is not PID 1) and runnerd "
                     "is not root") == 0);
  CHECK(refusal.find("or set runner.containment: allow-uncontained") != std::string::npos);
  CHECK(f.runner_property("Containment", "s").find("runnerd's own user") == 0);
  CHECK(f.runner_log().find("claiming no job: runner.containment is required") != std::string::npos);

  std::string sha = f.commit(".benchbox.yml", "version: 1\nsuites:\n  - name: s\n    run: \"true\"\n", "a suite");
  const int64_t id = f.enqueue(f.push_spec(sha));
  // Several claim polls and a JobQueued signal later, it is still waiting.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  json queued;
  REQUIRE_FALSE(f.client().get(id, &queued));
  CHECK(queued["state"] == "queued");

  int rc = 0;
  const std::string status = status_of(f, &rc);
  INFO(status);
  CHECK(rc != 0);
  CHECK(status.find("jobs run as runnerd's own user") != std::string::npos);
  CHECK(status.find("claims no job: runner.containment is required") != std::string::npos);
}

TEST_CASE("with allow-uncontained the same runner runs the job, and its result says as whom") {
  if (::geteuid() != 0) BB_SKIP("needs root to run benchbox-runnerd as another user");
  RunnerdFixture f("  containment: allow-uncontained\n" + kNobodyClaims);
  open_results_to_nobody(f);
  f.start_runner({{"HOME", "/nonexistent"}}, as_nobody_argv());
  INFO(f.runner_log());
  CHECK(f.runner_property("Refusal", "s").empty());
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\nsuites:\n  - name: s\n    run: \"true\"\n    repetitions: 2\n    warmup: 0\n",
                             "a suite");
  // libgit2 (safe.directory) fetches only from a repository its user owns.
  REQUIRE(run_shell("chown -R 65534:65534 " + f.origin()) == 0);
  json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
  INFO(job.dump() << "\n" << f.runner_log());
  REQUIRE(job["state"] == "done");
  json result = f.result_of(job);
  if (result.contains("head")) result = result["head"];
  CHECK(result["containment"].get<std::string>().find("runner's own user: runnerd is not root") == 0);
}
