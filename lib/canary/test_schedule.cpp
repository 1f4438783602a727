// When the canary runs: idle long enough, at most every interval, and
// around an update whatever the interval.
#include <catch2/catch.hpp>

#include "canary/schedule.h"

using namespace bb::canary;

namespace {

ScheduleInput idle_box() {
  ScheduleInput in;
  in.now = 100000;
  in.interval = 3600;
  in.idle_wait = 300;
  in.idle_since = in.now - 1000;
  in.last_run = in.now - 4000;
  in.last_version = in.version = "0.9.2";
  return in;
}

}  // namespace

TEST_CASE("canary schedule: idle long enough and an interval since the last run") {
  ScheduleDecision d = schedule(idle_box());
  CHECK(d.run);
  CHECK_FALSE(d.before_next_job);
  CHECK(d.why == "interval");

  ScheduleInput recent = idle_box();
  recent.last_run = recent.now - 600;
  d = schedule(recent);
  CHECK_FALSE(d.run);
  CHECK(d.next_check == recent.last_run + 3600);

  ScheduleInput just_idle = idle_box();
  just_idle.idle_since = just_idle.now - 10;
  d = schedule(just_idle);
  CHECK_FALSE(d.run);
  CHECK(d.next_check == just_idle.now - 10 + 300);

  ScheduleInput busy = idle_box();
  busy.idle_since = 0;
  d = schedule(busy);
  CHECK_FALSE(d.run);
  CHECK(d.next_check == 0);  // asked again once idle
}

TEST_CASE("canary schedule: the first run waits only for idleness") {
  ScheduleInput first = idle_box();
  first.last_run = 0;
  first.last_version.clear();
  ScheduleDecision d = schedule(first);
  CHECK(d.run);
  CHECK(d.why == "first");
}

TEST_CASE("canary schedule: interval 0 turns it off, updates included") {
  ScheduleInput off = idle_box();
  off.interval = 0;
  CHECK_FALSE(schedule(off).run);
  off.update_waiting = true;
  CHECK_FALSE(schedule(off).run);
  off.update_waiting = false;
  off.version = "0.9.3";
  CHECK_FALSE(schedule(off).run);
  CHECK(schedule(off).next_check == 0);
}

TEST_CASE("canary schedule: before an update unless a run is fresh, after one ahead of the next job") {
  ScheduleInput before = idle_box();
  before.update_waiting = true;
  before.last_run = before.now - 100;  // 100 s old: stands for the old version
  CHECK_FALSE(schedule(before).run);
  before.last_run = before.now - kFreshBeforeUpdate;
  ScheduleDecision d = schedule(before);
  CHECK(d.run);
  CHECK(d.before_next_job);
  CHECK(d.why == "before an update");

  ScheduleInput after = idle_box();
  after.version = "0.9.3";
  after.last_run = after.now - 60;  // whatever the interval
  after.idle_since = after.now;     // just finished a job
  d = schedule(after);
  CHECK(d.run);
  CHECK(d.before_next_job);
  CHECK(d.why == "after an update");
}
