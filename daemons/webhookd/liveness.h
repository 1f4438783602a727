// benchbox-webhookd's proof that it serves: every `interval` it connects to
// its own listening socket over loopback and asks GET /healthz, exactly as
// GitHub's deliveries come in (accept, parse, answer). The watchdog is
// petted only while these probes succeed (daemon::Service::set_liveness),
// so a webhookd that stops answering, for whatever reason, is restarted by
// systemd rather than looking healthy while every delivery is lost.
#pragma once

#include <systemd/sd-event.h>

#include <chrono>
#include <functional>
#include <string>

#include "bus/handles.h"
#include "util/fd.h"
#include "util/result.h"

namespace bb::webhookd {

class LivenessProbe {
 public:
  using Clock = std::chrono::steady_clock;
  // `listen_fd` is asked before each probe (-1: not serving on purpose,
  // e.g. draining; no probe then).
  LivenessProbe(sd_event* event, std::function<int()> listen_fd, std::chrono::microseconds interval);
  ~LivenessProbe();
  LivenessProbe(const LivenessProbe&) = delete;
  LivenessProbe& operator=(const LivenessProbe&) = delete;

  Status start();
  // "" while a probe succeeded within the last two intervals; else why not.
  std::string problem() const;

 private:
  static int on_tick(sd_event_source*, uint64_t, void* userdata);
  static int on_io(sd_event_source*, int, uint32_t revents, void* userdata);
  void begin();
  void step(uint32_t revents);
  void finish(std::string failure);

  sd_event* event_;
  std::function<int()> listen_fd_;
  std::chrono::microseconds interval_;
  bus::SourcePtr timer_;
  bus::SourcePtr io_;
  UniqueFd fd_;
  std::string target_;   // "127.0.0.1:8417", for messages
  std::string pending_;  // request bytes not yet sent
  std::string answer_;
  bool connected_ = false;
  Clock::time_point started_{};
  Clock::time_point last_success_{};
  std::string last_failure_ = "no probe has completed yet";
};

}  // namespace bb::webhookd
