// What the box says of itself, looked at when reporterd starts and once a
// minute: its canary runs (canary_watch.cpp) and its own updates, told
// (docs/notifications.md, update_applied and update_rolled_back):
// benchbox-update writes its last attempt to <update dir>/state.json; an
// upgrade or a rollback restarts reporterd, but a rollback may not, and
// the outbox tells each attempt once however often it is read.
#include <string>

#include <nlohmann/json.hpp>

#include "daemon/log.h"
#include "manager.h"
#include "report/notices.h"
#include "update/updater.h"
#include "util/file.h"

namespace bb::reporterd {

namespace {

constexpr uint64_t kBoxCheckUsec = 60ull * 1000000;

}  // namespace

Status Manager::watch_box() {
  sd_event_source* raw = nullptr;
  int r = sd_event_add_time_relative(event_, &raw, CLOCK_MONOTONIC, kBoxCheckUsec, 5ull * 1000000,
                                     on_box_timer, this);
  if (r < 0) return errno_error("add the box's timer", -r);
  box_timer_.reset(raw);
  check_canary();
  check_update();
  return {};
}

int Manager::on_box_timer(sd_event_source* source, uint64_t, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  try {
    self->check_canary();
    self->check_update();
  } catch (const std::exception& e) {
    daemon::log_error(std::string("looking at the box: ") + e.what());
  }
  // A one-shot timer, armed again for the next minute.
  sd_event_source_set_time_relative(source, kBoxCheckUsec);
  sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
  return 0;
}

void Manager::check_update() {
  if (!notifier_) return;
  const std::string path = path_join(config_.update_dir(), "state.json");
  if (!path_exists(path)) return;  // no attempt yet
  auto text = read_file(path, 1 << 20);
  Result<update::State> state = text ? Result<update::State>(make_error(Errc::parse, "not JSON"))
                                     : Result<update::State>(text.error());
  if (text) {
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_discarded()) state = update::state_from_json(j);
  }
  if (!state) {
    // Said once per kind of trouble, not every minute.
    if (state.error().message != update_trouble_)
      daemon::log_warning("the last update is not known: " + path + ": " + state.error().message);
    update_trouble_ = state.error().message;
    return;
  }
  update_trouble_.clear();
  if (!state->last) return;
  if (auto n = report::update_notice(*state->last, config_.reporter.site_url, clock_.now_unix())) tell(*n);
}

}  // namespace bb::reporterd
