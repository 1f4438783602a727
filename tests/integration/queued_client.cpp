#include "queued_client.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "bus/connect.h"
#include "bus/dict.h"
#include "bus/names.h"

namespace bb::test {

QueueClient::QueueClient(const std::string& address) {
  auto bus = bus::open_address(address);
  if (!bus) throw std::runtime_error("cannot connect to the test bus: " + bus.error().message);
  bus_ = std::move(*bus);
}

CallError QueueClient::call(const char* member, const char*, bus::MessagePtr* reply, uint64_t timeout_usec,
                            const std::function<int(sd_bus_message*)>& append) {
  sd_bus_message* raw = nullptr;
  int r = sd_bus_message_new_method_call(bus_.get(), &raw, bus::kQueueName, bus::kQueuePath,
                                         bus::kQueueInterface, member);
  if (r < 0) return {"client", std::string("new call: ") + std::strerror(-r)};
  bus::MessagePtr m(raw);
  if ((r = append(raw)) < 0) return {"client", std::string("append: ") + std::strerror(-r)};
  bus::BusError error;
  sd_bus_message* out = nullptr;
  r = sd_bus_call(bus_.get(), raw, timeout_usec, error.get(), &out);
  if (r < 0) {
    std::string name = error.is_set() ? error.name() : "errno";
    std::string message = error.is_set() ? error.message() : std::strerror(-r);
    return {name, message};
  }
  if (reply) reply->reset(out);
  else sd_bus_message_unref(out);
  return {};
}

CallError QueueClient::enqueue(const nlohmann::json& spec, int64_t* id, bool* created, uint64_t timeout_usec) {
  bus::MessagePtr reply;
  auto e = call("Enqueue", "a{sv}", &reply, timeout_usec,
                [&](sd_bus_message* m) { return bus::append_dict(m, spec); });
  if (e) return e;
  int c = 0;
  int r = sd_bus_message_read(reply.get(), "xb", id, &c);
  if (r < 0) return {"client", "bad Enqueue reply"};
  if (created) *created = c != 0;
  return {};
}

std::vector<EnqueueAnswer> QueueClient::enqueue_together(const std::vector<nlohmann::json>& specs) {
  std::vector<EnqueueAnswer> answers(specs.size());
  std::vector<bus::SlotPtr> calls;
  size_t waiting = 0;
  struct Pending {
    EnqueueAnswer* answer;
    size_t* waiting;
  };
  std::vector<Pending> pending(specs.size());
  auto on_reply = [](sd_bus_message* m, void* userdata, sd_bus_error*) -> int {
    auto* p = static_cast<Pending*>(userdata);
    if (const sd_bus_error* e = sd_bus_message_get_error(m)) {
      p->answer->error = {e->name ? e->name : "", e->message ? e->message : ""};
    } else {
      int c = 0;
      if (sd_bus_message_read(m, "xb", &p->answer->id, &c) < 0) p->answer->error = {"client", "bad Enqueue reply"};
      p->answer->created = c != 0;
    }
    --*p->waiting;
    return 0;
  };
  for (size_t i = 0; i < specs.size(); ++i) {
    sd_bus_message* raw = nullptr;
    int r = sd_bus_message_new_method_call(bus_.get(), &raw, bus::kQueueName, bus::kQueuePath,
                                           bus::kQueueInterface, "Enqueue");
    if (r < 0) throw std::runtime_error(std::string("new call: ") + std::strerror(-r));
    bus::MessagePtr m(raw);
    if ((r = bus::append_dict(raw, specs[i])) < 0) throw std::runtime_error("append spec");
    pending[i] = {&answers[i], &waiting};
    sd_bus_slot* slot = nullptr;
    if ((r = sd_bus_call_async(bus_.get(), &slot, raw, on_reply, &pending[i], 0)) < 0)
      throw std::runtime_error(std::string("send Enqueue: ") + std::strerror(-r));
    calls.emplace_back(slot);
    ++waiting;
  }
  if (!wait_for([&] { return waiting == 0; }, 60'000'000)) throw std::runtime_error("Enqueue answers missing");
  return answers;
}

CallError QueueClient::enqueue_group(const nlohmann::json& group, const std::vector<nlohmann::json>& specs,
                                     int64_t* group_id, std::vector<int64_t>* ids) {
  bus::MessagePtr reply;
  auto e = call("EnqueueGroup", "a{sv}aa{sv}", &reply, 0, [&](sd_bus_message* m) {
    int r = bus::append_dict(m, group);
    if (r < 0) return r;
    if ((r = sd_bus_message_open_container(m, 'a', "a{sv}")) < 0) return r;
    for (const auto& spec : specs)
      if ((r = bus::append_dict(m, spec)) < 0) return r;
    return sd_bus_message_close_container(m);
  });
  if (e) return e;
  if (sd_bus_message_read(reply.get(), "x", group_id) < 0) return {"client", "bad EnqueueGroup reply"};
  if (sd_bus_message_enter_container(reply.get(), 'a', "(xb)") < 0) return {"client", "bad EnqueueGroup reply"};
  int64_t id = 0;
  int created = 0;
  while (sd_bus_message_read(reply.get(), "(xb)", &id, &created) > 0)
    if (ids) ids->push_back(id);
  return {};
}

CallError QueueClient::claim(const std::string& runner, uint32_t lease, int64_t* id, nlohmann::json* job) {
  bus::MessagePtr reply;
  auto e = call("Claim", "su", &reply, 0,
                [&](sd_bus_message* m) { return sd_bus_message_append(m, "su", runner.c_str(), lease); });
  if (e) return e;
  if (sd_bus_message_read(reply.get(), "x", id) < 0) return {"client", "bad Claim reply"};
  auto dict = bus::read_dict(reply.get());
  if (!dict) return {"client", dict.error().message};
  if (job) *job = *dict;
  return {};
}

CallError QueueClient::heartbeat(int64_t id, const std::string& runner, int64_t* lease_expires) {
  bus::MessagePtr reply;
  auto e = call("Heartbeat", "xs", &reply, 0,
                [&](sd_bus_message* m) { return sd_bus_message_append(m, "xs", id, runner.c_str()); });
  if (e) return e;
  int64_t v = 0;
  if (sd_bus_message_read(reply.get(), "x", &v) < 0) return {"client", "bad Heartbeat reply"};
  if (lease_expires) *lease_expires = v;
  return {};
}

CallError QueueClient::complete(int64_t id, const std::string& runner, const std::string& result_path) {
  return call("Complete", "xss", nullptr, 0, [&](sd_bus_message* m) {
    return sd_bus_message_append(m, "xss", id, runner.c_str(), result_path.c_str());
  });
}

CallError QueueClient::fail(int64_t id, const std::string& runner, const std::string& reason) {
  return call("Fail", "xss", nullptr, 0, [&](sd_bus_message* m) {
    return sd_bus_message_append(m, "xss", id, runner.c_str(), reason.c_str());
  });
}

CallError QueueClient::cancel(int64_t id, const std::string& reason) {
  return call("Cancel", "xs", nullptr, 0,
              [&](sd_bus_message* m) { return sd_bus_message_append(m, "xs", id, reason.c_str()); });
}

CallError QueueClient::get(int64_t id, nlohmann::json* job) {
  bus::MessagePtr reply;
  auto e = call("Get", "x", &reply, 0, [&](sd_bus_message* m) { return sd_bus_message_append(m, "x", id); });
  if (e) return e;
  auto dict = bus::read_dict(reply.get());
  if (!dict) return {"client", dict.error().message};
  if (job) *job = *dict;
  return {};
}

CallError QueueClient::list(const std::string& state, uint32_t limit, std::vector<nlohmann::json>* jobs) {
  bus::MessagePtr reply;
  auto e = call("List", "su", &reply, 0,
                [&](sd_bus_message* m) { return sd_bus_message_append(m, "su", state.c_str(), limit); });
  if (e) return e;
  if (sd_bus_message_enter_container(reply.get(), 'a', "a{sv}") < 0) return {"client", "bad List reply"};
  for (;;) {
    int r = sd_bus_message_at_end(reply.get(), 0);
    if (r < 0) return {"client", "bad List reply"};
    if (r > 0) break;
    auto dict = bus::read_dict(reply.get());
    if (!dict) return {"client", dict.error().message};
    jobs->push_back(*dict);
  }
  return {};
}

CallError QueueClient::record_pull_request(const nlohmann::json& pr) {
  return call("RecordPullRequest", "a{sv}", nullptr, 0,
              [&](sd_bus_message* m) { return bus::append_dict(m, pr); });
}

CallError QueueClient::get_pull_request(const std::string& repository, int64_t number, nlohmann::json* pr) {
  bus::MessagePtr reply;
  auto e = call("GetPullRequest", "sx", &reply, 0, [&](sd_bus_message* m) {
    return sd_bus_message_append(m, "sx", repository.c_str(), number);
  });
  if (e) return e;
  auto dict = bus::read_dict(reply.get());
  if (!dict) return {"client", dict.error().message};
  if (pr) *pr = *dict;
  return {};
}

CallError QueueClient::count(const char* property, uint32_t* value) {
  bus::BusError error;
  int r = sd_bus_get_property_trivial(bus_.get(), bus::kQueueName, bus::kQueuePath, bus::kQueueInterface,
                                      property, error.get(), 'u', value);
  if (r < 0) return {error.is_set() ? error.name() : "errno", error.message()};
  return {};
}

CallError QueueClient::version(std::string* value) {
  bus::BusError error;
  char* s = nullptr;
  int r = sd_bus_get_property_string(bus_.get(), bus::kQueueName, bus::kQueuePath, bus::kQueueInterface,
                                     "Version", error.get(), &s);
  if (r < 0) return {error.is_set() ? error.name() : "errno", error.message()};
  *value = s;
  free(s);
  return {};
}

int QueueClient::on_signal(sd_bus_message* m, void* userdata, sd_bus_error*) {
  auto* self = static_cast<QueueClient*>(userdata);
  QueueSignal s;
  s.member = sd_bus_message_get_member(m);
  if (s.member == "JobQueued" || s.member == "JobStarted") {
    const char* repo = nullptr;  // JobStarted: the runner
    if (sd_bus_message_read(m, "xs", &s.id, &repo) >= 0) s.text = repo;
  } else if (s.member == "JobFinished") {
    const char *state = nullptr, *path = nullptr;
    if (sd_bus_message_read(m, "xss", &s.id, &state, &path) >= 0) {
      s.text = state;
      s.result_path = path;
    }
  } else if (s.member == "PropertiesChanged") {
    const char* iface = nullptr;
    sd_bus_message_read(m, "s", &iface);
    // Changed values (a{sv}) and invalidated names (as): record the names.
    if (sd_bus_message_enter_container(m, 'a', "{sv}") >= 0) {
      while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
        const char* name = nullptr;
        sd_bus_message_read(m, "s", &name);
        if (!s.text.empty()) s.text += ",";
        s.text += name;
        sd_bus_message_skip(m, "v");
        sd_bus_message_exit_container(m);
      }
      sd_bus_message_exit_container(m);
    }
  }
  self->signals_.push_back(std::move(s));
  return 0;
}

void QueueClient::watch_signals() {
  for (const char* member : {"JobQueued", "JobStarted", "JobFinished"}) {
    sd_bus_slot* slot = nullptr;
    int r = sd_bus_match_signal(bus_.get(), &slot, nullptr, bus::kQueuePath, bus::kQueueInterface, member,
                                on_signal, this);
    if (r < 0) throw std::runtime_error("match signal failed");
    matches_.emplace_back(slot);
  }
  sd_bus_slot* slot = nullptr;
  int r = sd_bus_match_signal(bus_.get(), &slot, nullptr, bus::kQueuePath, "org.freedesktop.DBus.Properties",
                              "PropertiesChanged", on_signal, this);
  if (r < 0) throw std::runtime_error("match PropertiesChanged failed");
  matches_.emplace_back(slot);
}

bool QueueClient::wait_for(const std::function<bool()>& pred, uint64_t timeout_usec) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(timeout_usec);
  while (!pred()) {
    auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    int r = sd_bus_process(bus_.get(), nullptr);
    if (r < 0) return false;
    if (r == 0) sd_bus_wait(bus_.get(), static_cast<uint64_t>(left.count()));
  }
  return true;
}

size_t QueueClient::count_signals(const std::string& member, int64_t id) const {
  size_t n = 0;
  for (const auto& s : signals_)
    if (s.member == member && s.id == id) ++n;
  return n;
}

}  // namespace bb::test
