// EnqueueBatch over a socketpair: a server and a client sd-bus peer on one
// sd-event loop, no daemon needed. The store is the test's own, so each
// batch it is handed is seen, and it can fail as a real one cannot on
// demand. queued's integration test (integration-queued-bus) sends the
// same burst to the real daemon and store.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <systemd/sd-id128.h>

#include <chrono>
#include <string>
#include <vector>

#include "enqueue_batch.h"

using namespace bb;
using namespace bb::queued;

namespace {

struct Reply {
  bool done = false;
  int64_t id = -1;
  std::string error;  // the error's message, when the call failed
};

int on_enqueue(sd_bus_message* m, void* userdata, sd_bus_error*);
int on_reply(sd_bus_message* m, void* userdata, sd_bus_error*);
extern const sd_bus_vtable queue_vtable[];

class Peers {
 public:
  Peers() {
    int fds[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) == 0);
    sd_event* e = nullptr;
    REQUIRE(sd_event_new(&e) >= 0);
    event_.reset(e);
    sd_id128_t id;
    REQUIRE(sd_id128_randomize(&id) >= 0);
    server_ = start(fds[0], true, id);
    client_ = start(fds[1], false, id);
    sd_bus_slot* slot = nullptr;
    REQUIRE(sd_bus_add_object_vtable(server_.get(), &slot, "/test", "test.Queue", queue_vtable, this) >= 0);
    slot_.reset(slot);
    auto made = EnqueueBatch::create(event_.get(), [this](const std::vector<model::JobSpec>& specs) {
      batches.push_back(specs.size());
      return store(specs);
    });
    REQUIRE(made.ok());
    batch_ = std::move(*made);
  }

  // What the test's store does with a batch; by default each spec is a
  // new job, numbered in the order the specs came.
  std::function<std::vector<Result<store::EnqueueResult>>(const std::vector<model::JobSpec>&)> store =
      [this](const std::vector<model::JobSpec>& specs) {
        std::vector<Result<store::EnqueueResult>> out;
        for (size_t i = 0; i < specs.size(); ++i) {
          store::EnqueueResult r;
          r.job.id = next_id_++;
          r.job.spec = specs[i];
          r.created = true;
          out.emplace_back(std::move(r));
        }
        return out;
      };
  std::vector<size_t> batches;  // the size of each batch the store was handed

  // Sends an Enqueue for each name, without waiting; once connected,
  // written to the socket before the server reads any of them.
  std::vector<Reply> send(const std::vector<std::string>& names) {
    std::vector<Reply> replies(names.size());
    calls_.clear();
    for (size_t i = 0; i < names.size(); ++i) {
      sd_bus_slot* slot = nullptr;
      REQUIRE(sd_bus_call_method_async(client_.get(), &slot, nullptr, "/test", "test.Queue", "Enqueue", on_reply,
                                       &replies[i], "s", names[i].c_str()) >= 0);
      calls_.emplace_back(slot);
    }
    // Once the handshake is done, nothing needs the server to write them.
    if (connected_) REQUIRE(sd_bus_flush(client_.get()) >= 0);
    return replies;
  }

  // Runs the loop until every reply came, or 10 s.
  void answer(std::vector<Reply>& replies) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    auto all = [&] {
      for (const Reply& r : replies)
        if (!r.done) return false;
      return true;
    };
    while (!all() && std::chrono::steady_clock::now() < deadline) REQUIRE(sd_event_run(event_.get(), 100000) >= 0);
    REQUIRE(all());
  }

  // Queue1.Enqueue's handler, as queued's: the call waits in the batch.
  void take(sd_bus_message* call, model::JobSpec spec) { batch_->add(call, std::move(spec)); }

  // Connects the two ends; the first call waits for the handshake.
  void connect() {
    auto replies = send({"hello"});
    answer(replies);
    connected_ = true;
    batches.clear();
  }

 private:
  bus::BusPtr start(int fd, bool server, sd_id128_t id) {
    sd_bus* b = nullptr;
    REQUIRE(sd_bus_new(&b) >= 0);
    bus::BusPtr owned(b);
    REQUIRE(sd_bus_set_fd(b, fd, fd) >= 0);
    if (server) REQUIRE(sd_bus_set_server(b, 1, id) >= 0);
    REQUIRE(sd_bus_start(b) >= 0);
    // As daemon::Service attaches queued's bus.
    REQUIRE(sd_bus_attach_event(b, event_.get(), SD_EVENT_PRIORITY_NORMAL) >= 0);
    return owned;
  }

  bus::EventPtr event_;
  bus::BusPtr server_, client_;
  bus::SlotPtr slot_;
  std::vector<bus::SlotPtr> calls_;
  std::unique_ptr<EnqueueBatch> batch_;
  int64_t next_id_ = 1;
  bool connected_ = false;
};

int on_enqueue(sd_bus_message* m, void* userdata, sd_bus_error*) {
  const char* name = nullptr;
  if (int r = sd_bus_message_read(m, "s", &name); r < 0) return r;
  model::JobSpec spec;
  spec.repository = name;
  static_cast<Peers*>(userdata)->take(m, std::move(spec));
  return 1;  // answered by the batch
}

int on_reply(sd_bus_message* m, void* userdata, sd_bus_error*) {
  auto* r = static_cast<Reply*>(userdata);
  r->done = true;
  if (const sd_bus_error* e = sd_bus_message_get_error(m)) {
    r->error = e->message ? e->message : e->name;
    return 0;
  }
  int created = 0;
  if (sd_bus_message_read(m, "xb", &r->id, &created) < 0) r->error = "unreadable reply";
  return 0;
}

const sd_bus_vtable queue_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Enqueue", "s", "xb", on_enqueue, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

std::vector<std::string> names(size_t n, const std::string& prefix = "r") {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

}  // namespace

TEST_CASE("a lone Enqueue is stored at once, in a batch of its own") {
  Peers p;
  p.connect();
  auto replies = p.send({"alone"});
  p.answer(replies);
  CHECK(replies[0].error == "");
  CHECK(p.batches == std::vector<size_t>{1});
}

TEST_CASE("Enqueues that arrive together share a batch, at most 64 to one, and each caller gets its own job") {
  Peers p;
  p.connect();
  auto replies = p.send(names(100));
  p.answer(replies);
  // The 64th call commits at once; the other 36 once the bus has nothing more.
  CHECK(p.batches == std::vector<size_t>{64, 36});
  for (size_t i = 0; i < replies.size(); ++i) {
    INFO("call " << i);
    CHECK(replies[i].error == "");
    CHECK(replies[i].id == replies[0].id + int64_t(i));  // the store numbered them in the order they came
  }
}

TEST_CASE("a store that throws, or answers too few, still answers every caller, with an error") {
  Peers p;
  p.connect();
  p.store = [](const std::vector<model::JobSpec>& specs) -> std::vector<Result<store::EnqueueResult>> {
    for (const auto& s : specs)
      if (s.repository == "boom") throw std::runtime_error("out of memory, say");
    return {};  // a store that answered nothing
  };
  auto thrown = p.send({"a", "boom", "c"});
  p.answer(thrown);
  CHECK(p.batches == std::vector<size_t>{3});
  for (const Reply& r : thrown) CHECK(r.error == "the queue could not store the job: out of memory, say");

  auto short_answer = p.send({"d", "e"});
  p.answer(short_answer);
  for (const Reply& r : short_answer) CHECK(r.error == "the queue could not store the job: the store answered 0 of 2 specs");
  CHECK(p.batches == std::vector<size_t>{3, 2});
}
