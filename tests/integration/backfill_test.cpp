// benchboxctl backfill against a real benchbox-queued on a private bus and
// a real git repository made here: which commits become jobs, as one
// group, followed and cancelled together, with clear errors.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "harness.h"
#include "queued_client.h"
#include "queued_fixture.h"

using namespace bb::test;
using nlohmann::json;

namespace {

// A work repository with a first-parent history, a merged topic branch and
// release tags, and the bare origin it is pushed to. Its .benchbox.yml came
// with c2: c1 has nothing to measure.
struct Upstream {
  TempDir dir;
  std::string work = dir / "work", origin = dir / "origin.git";
  std::string git(const std::string& args) {
    return sh("git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main -C " + work + " " + args);
  }
  std::string commit(const std::string& name) {
    sh("echo " + name + " > " + work + "/" + name);
    git("add -A");
    git("commit -q -m " + name);
    return git("rev-parse HEAD");
  }
  Upstream() {
    sh("git init -q -b main " + work);
    for (int i = 1; i <= 6; ++i) {
      if (i == 2) sh("printf 'version: 1\\nsuites:\\n  - name: micro\\n    run: \"true\"\\n' > " + work + "/.benchbox.yml");
      commit("c" + std::to_string(i));
    }
    git("tag v1.0 HEAD~4");
    git("tag -a -m r v1.10 HEAD");
    git("tag v1.2 HEAD~2");
    git("checkout -q -b topic");
    commit("t1");
    git("checkout -q main");
    git("merge -q --no-ff -m merge topic");
    commit("c7");
    sh("git clone -q --bare " + work + " " + origin);
  }
};

struct Ctl {
  std::string out;
  int status = 0;
};

Ctl ctl(const std::string& args) {
  Ctl r;
  r.status = run_shell(build_path("cli/benchboxctl") + " " + args + " 2>&1", &r.out);
  return r;
}

std::vector<json> group_jobs(QueueClient& client, int64_t group) {
  std::vector<json> all, out;
  REQUIRE_FALSE(client.list("", 0, &all));
  for (const auto& j : all)
    if (j.value("group_id", int64_t{0}) == group) out.push_back(j);
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return a["id"] < b["id"]; });
  return out;
}

}  // namespace

TEST_CASE("backfill queues a branch's first-parent history, every n-th, as one low-priority group", "[backfill]") {
  Upstream up;
  QueuedFixture q;
  q.start_and_wait();
  ::setenv("DBUS_SYSTEM_BUS_ADDRESS", q.address().c_str(), 1);
  QueueClient client(q.address());

  auto r = ctl("backfill acme/widget --clone-url " + up.origin + " --first-parent --every 2");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("group 1: 4 jobs queued, 0 already measured or waiting (of 4 commits)") != std::string::npos);
  // c1..c6, merge, c7 on the first-parent chain (not t1): every 2nd from the tip.
  std::string chain = up.git("rev-list --first-parent --reverse main");
  std::vector<std::string> commits;
  for (size_t at = 0; at < chain.size();) {
    size_t nl = chain.find('\n', at);
    commits.push_back(chain.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    at = nl == std::string::npos ? chain.size() : nl + 1;
  }
  REQUIRE(commits.size() == 8);
  auto jobs = group_jobs(client, 1);
  REQUIRE(jobs.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(jobs[i]["head_sha"] == commits[1 + 2 * i]);  // oldest first, the tip last
    CHECK(jobs[i]["kind"] == "push");
    CHECK(jobs[i]["ref"] == "refs/heads/main");
    CHECK(jobs[i]["priority"] == -10);
    CHECK(jobs[i]["clone_url"] == up.origin);
  }

  // Again: everything is waiting already, so nothing new and no group.
  r = ctl("backfill acme/widget --first-parent --every 2");  // the clone URL from the queue's jobs
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("nothing queued: all 4 commits are measured or waiting already") != std::string::npos);

  // A push that arrives now runs before the backfill.
  int64_t push = 0;
  bool created = false;
  REQUIRE_FALSE(client.enqueue({{"kind", "push"}, {"repository", "acme/widget"}, {"clone_url", up.origin},
                                {"ref", "refs/heads/main"}, {"head_sha", fake_sha(1)}},
                               &push, &created));
  int64_t claimed = 0;
  json job;
  REQUIRE_FALSE(client.claim("r1", 60, &claimed, &job));
  CHECK(claimed == push);

  // The group on the bus and in the CLI, then cancelled as one.
  r = ctl("jobs groups");
  INFO(r.out);
  CHECK(r.out.find("backfill --first-parent main --every 2") != std::string::npos);
  r = ctl("jobs group 1");
  CHECK(r.status == 0);
  CHECK(r.out.find(commits[7].substr(0, 12)) != std::string::npos);
  REQUIRE_FALSE(client.claim("r1", 60, &claimed, &job));
  CHECK(job["group_id"] == 1);
  r = ctl("cancel --group 1 'wrong branch'");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("group 1: 4 jobs cancelled") != std::string::npos);  // the running one too
  for (const auto& j : group_jobs(client, 1)) {
    CHECK(j["state"] == "cancelled");
    CHECK(j["error"] == "wrong branch");
  }
  json pushed;
  REQUIRE_FALSE(client.get(push, &pushed));
  CHECK(pushed["state"] == "running");  // not in the group
}

TEST_CASE("backfill of tags, of a range, and a dry run", "[backfill]") {
  Upstream up;
  QueuedFixture q;
  q.start_and_wait();
  ::setenv("DBUS_SYSTEM_BUS_ADDRESS", q.address().c_str(), 1);
  QueueClient client(q.address());

  auto r = ctl("backfill acme/widget --clone-url " + up.origin + " --tags 'v*'");
  INFO(r.out);
  REQUIRE(r.status == 0);
  auto tags = group_jobs(client, 1);
  REQUIRE(tags.size() == 3);
  CHECK(tags[0]["ref"] == "refs/tags/v1.0");  // version order, not name order
  CHECK(tags[1]["ref"] == "refs/tags/v1.2");
  CHECK(tags[2]["ref"] == "refs/tags/v1.10");
  CHECK(tags[2]["kind"] == "tag");
  CHECK(tags[2]["head_sha"] == up.git("rev-parse v1.10^{commit}"));

  // A range from the operator's own clone, no fetch.
  r = ctl("backfill acme/widget --clone-url " + up.origin + " --git-dir " + up.work + " --range v1.2..main --dry-run");
  INFO(r.out);
  REQUIRE(r.status == 0);
  // c5, c6, merge, c7
  CHECK(r.out.find("4 commits: 4 to measure, 0 already measured, 0 waiting, 0 without .benchbox.yml "
                   "(dry run: nothing queued)") != std::string::npos);
  CHECK(group_jobs(client, 2).empty());
  r = ctl("backfill acme/widget --clone-url " + up.origin + " --git-dir " + up.work + " --range v1.2..main");
  REQUIRE(r.status == 0);
  auto range = group_jobs(client, 2);
  REQUIRE(range.size() == 4);
  CHECK(range[0]["head_sha"] == up.git("rev-list --first-parent --reverse v1.2..main | head -n 1"));
  CHECK(range[3]["head_sha"] == up.git("rev-parse main"));
  CHECK(range[3]["ref"] == "refs/heads/main");
}

TEST_CASE("backfill leaves out commits without .benchbox.yml; a dry run says what happens to each", "[backfill]") {
  Upstream up;
  QueuedFixture q;
  q.start_and_wait();
  ::setenv("DBUS_SYSTEM_BUS_ADDRESS", q.address().c_str(), 1);
  QueueClient client(q.address());
  auto line_of = [&](const std::string& out, const std::string& sha) {
    const size_t at = out.find(sha.substr(0, 12) + "  ");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  auto nth = [&](int i) { return up.git("rev-list --first-parent --reverse main | sed -n " + std::to_string(i + 1) + "p"); };

  // Every other commit queued; one of them measured, one running.
  auto r = ctl("backfill acme/widget --clone-url " + up.origin + " --first-parent --every 2");
  REQUIRE(r.status == 0);
  auto jobs = group_jobs(client, 1);
  REQUIRE(jobs.size() == 4);  // c2, c4, c6, c7
  int64_t id = 0;
  json job;
  REQUIRE_FALSE(client.claim("r1", 60, &id, &job));
  REQUIRE_FALSE(client.complete(id, "r1", "/results/x.json"));
  const std::string done_sha = job["head_sha"];
  REQUIRE_FALSE(client.claim("r1", 60, &id, &job));
  const std::string running_sha = job["head_sha"];

  r = ctl("backfill acme/widget --first-parent --dry-run");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(line_of(r.out, nth(0)).find("skipped: no .benchbox.yml") != std::string::npos);  // c1
  CHECK(line_of(r.out, nth(2)).find("measure") != std::string::npos);                   // c3
  CHECK(line_of(r.out, done_sha).find("already measured (job ") != std::string::npos);
  CHECK(line_of(r.out, running_sha).find(", running)") != std::string::npos);
  CHECK(r.out.find("8 commits: 3 to measure, 1 already measured, 3 waiting, 1 without .benchbox.yml "
                   "(dry run: nothing queued)") != std::string::npos);
  CHECK(group_jobs(client, 2).empty());

  // For real: c1 is left out, not queued to fail; the measured and the
  // waiting stay as they are.
  r = ctl("backfill acme/widget --first-parent");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("skipped 1 of 8 commits: no .benchbox.yml in them") != std::string::npos);
  CHECK(r.out.find("group 2: 3 jobs queued, 4 already measured or waiting (of 7 commits)") != std::string::npos);
  for (const auto& j : group_jobs(client, 2)) CHECK(j["head_sha"] != nth(0));
}

TEST_CASE("backfill says what is wrong and queues nothing", "[backfill]") {
  Upstream up;
  QueuedFixture q;
  q.start_and_wait();
  ::setenv("DBUS_SYSTEM_BUS_ADDRESS", q.address().c_str(), 1);
  QueueClient client(q.address());
  const std::string url = " --clone-url " + up.origin;

  struct Case {
    std::string args, says;
  } cases[] = {
      {"backfill acme/widget" + url, "exactly one of --tags, --range and --first-parent"},
      {"backfill acme/widget" + url + " --tags 'v*' --first-parent", "exactly one of"},
      {"backfill acme/widget --first-parent", "pass --clone-url"},  // the queue knows no job of it
      {"backfill acme/widget" + url + " --first-parent --max-jobs 3", "more than --max-jobs 3"},
      {"backfill acme/widget" + url + " --range main", "--range wants A..B"},
      {"backfill acme/widget" + url + " --range nope..main", "nope"},
      {"backfill acme/widget" + url + " --tags 'release-*'", "no commit matches"},
      {"backfill acme/widget" + url + " --first-parent --every 0", "usage"},
      {"backfill acme/widget" + url + " --tags 'v*' --every 2", "--every goes with"},
      {"backfill acme/widget --clone-url " + (up.dir / "missing.git") + " --first-parent", "--git-dir"},
      {"backfill widget" + url + " --first-parent", "OWNER/NAME"},
  };
  for (const auto& c : cases) {
    auto r = ctl(c.args);
    INFO(c.args << "\n" << r.out);
    CHECK(r.status == 2);
    CHECK(r.out.find(c.says) != std::string::npos);
  }
  std::vector<json> all;
  REQUIRE_FALSE(client.list("", 0, &all));
  CHECK(all.empty());
}
