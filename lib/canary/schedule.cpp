#include "canary/schedule.h"

#include <algorithm>

namespace bb::canary {

ScheduleDecision schedule(const ScheduleInput& in) {
  ScheduleDecision d;
  if (in.interval <= 0) return d;  // off
  if (in.update_waiting) {
    if (in.last_run == 0 || in.now - in.last_run >= kFreshBeforeUpdate) {
      d.run = d.before_next_job = true;
      d.why = "before an update";
    }
    return d;  // the updater goes on; a fresh run stands for the old version
  }
  if (in.last_run != 0 && in.last_version != in.version) {
    d.run = d.before_next_job = true;
    d.why = "after an update";
    return d;
  }
  if (in.idle_since == 0) return d;  // busy: asked again once idle
  const int64_t idle_from = in.idle_since + in.idle_wait;
  const int64_t due = in.last_run == 0 ? idle_from : std::max(idle_from, in.last_run + in.interval);
  if (in.now >= due) {
    d.run = true;
    d.why = in.last_run == 0 ? "first" : "interval";
    return d;
  }
  d.next_check = due;
  return d;
}

}  // namespace bb::canary
