// RAII for sd-bus and sd-event handles. Every sd_* object in benchbox is
// held by one of these; nothing calls *_unref by hand.
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include <memory>

namespace bb::bus {

struct BusUnref {
  void operator()(sd_bus* b) const { sd_bus_flush_close_unref(b); }
};
struct MessageUnref {
  void operator()(sd_bus_message* m) const { sd_bus_message_unref(m); }
};
struct SlotUnref {
  void operator()(sd_bus_slot* s) const { sd_bus_slot_unref(s); }
};
struct EventUnref {
  void operator()(sd_event* e) const { sd_event_unref(e); }
};
struct SourceUnref {
  void operator()(sd_event_source* s) const { sd_event_source_disable_unref(s); }
};

using BusPtr = std::unique_ptr<sd_bus, BusUnref>;
using MessagePtr = std::unique_ptr<sd_bus_message, MessageUnref>;
using SlotPtr = std::unique_ptr<sd_bus_slot, SlotUnref>;
using EventPtr = std::unique_ptr<sd_event, EventUnref>;
using SourcePtr = std::unique_ptr<sd_event_source, SourceUnref>;

// sd_bus_error that frees itself.
class BusError {
 public:
  BusError() = default;
  ~BusError() { sd_bus_error_free(&error_); }
  BusError(const BusError&) = delete;
  BusError& operator=(const BusError&) = delete;
  sd_bus_error* get() { return &error_; }
  const char* name() const { return error_.name; }
  const char* message() const { return error_.message ? error_.message : ""; }
  bool is_set() const { return sd_bus_error_is_set(&error_); }

 private:
  sd_bus_error error_ = SD_BUS_ERROR_NULL;
};

}  // namespace bb::bus
