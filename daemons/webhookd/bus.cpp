#include <nlohmann/json.hpp>
#include "bus.h"

#include "bus/dict.h"
#include "bus/errors.h"
#include "bus/names.h"
#include "daemon/log.h"

namespace bb::webhookd {

namespace {

// The error a failed call stands for, message without a prefix (callers add
// the member name). Access denied is a deployment mistake (D-Bus policy),
// not bad input, so it is internal here.
Error call_error(sd_bus_message* reply) {
  const sd_bus_error* e = sd_bus_message_get_error(reply);
  if (e && e->name && sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED))
    return make_error(Errc::internal, e->message ? e->message : e->name);
  Error err = bus::from_bus_error(e, sd_bus_message_get_errno(reply), "");
  if (err.message.rfind(": ", 0) == 0) err.message.erase(0, 2);
  return err;
}

void free_reply(void* userdata) { delete static_cast<std::function<void(sd_bus_message*, const Error*)>*>(userdata); }

}  // namespace

Result<bus::MessagePtr> QueueClient::new_call(const char* member) {
  sd_bus_message* raw = nullptr;
  int r = sd_bus_message_new_method_call(bus_, &raw, bus::kQueueName, bus::kQueuePath,
                                         bus::kQueueInterface, member);
  if (r < 0) return errno_error(std::string("Queue1.") + member, -r);
  return bus::MessagePtr(raw);
}

void QueueClient::call(bus::MessagePtr m, Reply on_reply_fn) {
  auto* heap = new Reply(std::move(on_reply_fn));
  sd_bus_slot* slot = nullptr;
  int r = sd_bus_call_async(bus_, &slot, m.get(), &QueueClient::on_reply, heap,
                            static_cast<uint64_t>(timeout_ms_) * 1000);
  if (r < 0) {
    // Not even sent (bus gone): the queue is unavailable.
    Error e = errno_error("send to the queue", -r);
    e.code = Errc::unavailable;
    (*heap)(nullptr, &e);
    delete heap;
    return;
  }
  // The slot frees the callback whether it ran or the bus went away first.
  sd_bus_slot_set_destroy_callback(slot, free_reply);
  sd_bus_slot_set_floating(slot, 1);
  sd_bus_slot_unref(slot);
}

int QueueClient::on_reply(sd_bus_message* m, void* userdata, sd_bus_error*) {
  auto& fn = *static_cast<Reply*>(userdata);
  try {
    if (sd_bus_message_is_method_error(m, nullptr)) {
      Error e = call_error(m);
      fn(nullptr, &e);
    } else {
      fn(m, nullptr);
    }
  } catch (const std::exception& e) {  // a C callback: nothing may escape
    daemon::log_error(std::string("queue reply handler failed: ") + e.what());
  } catch (...) {
    daemon::log_error("queue reply handler failed");
  }
  return 0;
}

void QueueClient::enqueue(const model::JobSpec& spec, std::function<void(Result<Enqueued>)> done) {
  auto m = new_call("Enqueue");
  if (!m) return done(m.error());
  if (int r = bus::append_dict(m->get(), model::to_json(spec)); r < 0)
    return done(errno_error("Queue1.Enqueue: append spec", -r));
  call(std::move(*m), [done](sd_bus_message* reply, const Error* error) {
    if (error) return done(error->with_context("Queue1.Enqueue"));
    int64_t id = 0;
    int created = 0;
    int r = sd_bus_message_read(reply, "xb", &id, &created);
    if (r < 0) return done(errno_error("Queue1.Enqueue: read reply", -r));
    done(Enqueued{id, created != 0});
  });
}

void QueueClient::record_pull_request(const model::PullRequest& pr, std::function<void(Result<bool>)> done) {
  auto m = new_call("RecordPullRequest");
  if (!m) return done(m.error());
  if (int r = bus::append_dict(m->get(), model::to_json(pr)); r < 0)
    return done(errno_error("Queue1.RecordPullRequest: append", -r));
  call(std::move(*m), [done](sd_bus_message* reply, const Error* error) {
    if (error) return done(error->with_context("Queue1.RecordPullRequest"));
    int recorded = 0;
    if (int r = sd_bus_message_read(reply, "b", &recorded); r < 0)
      return done(errno_error("Queue1.RecordPullRequest: read reply", -r));
    done(recorded != 0);
  });
}

void QueueClient::get_pull_request(
    const std::string& repository, int64_t number,
    std::function<void(Result<std::optional<model::PullRequest>>)> done) {
  auto m = new_call("GetPullRequest");
  if (!m) return done(m.error());
  if (int r = sd_bus_message_append(m->get(), "sx", repository.c_str(), number); r < 0)
    return done(errno_error("Queue1.GetPullRequest: append", -r));
  call(std::move(*m), [done](sd_bus_message* reply, const Error* error) {
    using Found = std::optional<model::PullRequest>;
    if (error) {
      if (error->code == Errc::not_found) return done(Found());
      return done(error->with_context("Queue1.GetPullRequest"));
    }
    auto dict = bus::read_dict(reply);
    if (!dict) return done(dict.error().with_context("Queue1.GetPullRequest"));
    if (dict->empty()) return done(Found());
    auto pr = model::pull_request_from_json(*dict);
    if (!pr) return done(pr.error());
    done(Found(std::move(*pr)));
  });
}

Status QueueClient::watch_queue(std::function<void()> appeared) {
  appeared_ = std::move(appeared);
  std::string match = std::string("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                                  "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='") +
                      bus::kQueueName + "'";
  sd_bus_slot* slot = nullptr;
  int r = sd_bus_add_match_async(bus_, &slot, match.c_str(), &QueueClient::on_name_owner_changed,
                                 nullptr, this);
  if (r < 0) return errno_error("watch " + std::string(bus::kQueueName), -r);
  name_watch_.reset(slot);
  return {};
}

int QueueClient::on_name_owner_changed(sd_bus_message* m, void* userdata, sd_bus_error*) {
  auto* self = static_cast<QueueClient*>(userdata);
  const char *name = nullptr, *old_owner = nullptr, *new_owner = nullptr;
  if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0) return 0;
  if (!new_owner || !*new_owner) return 0;
  try {
    if (self->appeared_) self->appeared_();
  } catch (const std::exception& e) {  // a C callback: nothing may escape
    daemon::log_error(std::string("queue watch handler failed: ") + e.what());
  } catch (...) {
    daemon::log_error("queue watch handler failed");
  }
  return 0;
}

}  // namespace bb::webhookd
