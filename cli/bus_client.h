// The CLI's side of the bus: short synchronous calls to the daemons with
// errors a person can act on ("benchbox-queued is not running").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "bus/handles.h"
#include "util/result.h"

namespace bb::cli {

class BusClient {
 public:
  // Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS honoured).
  static Result<BusClient> connect();

  sd_bus* get() const { return bus_.get(); }

  // Starts a method call; append arguments to the returned message.
  Result<bus::MessagePtr> new_call(const char* service, const char* path, const char* interface,
                                   const char* member);
  // Sends it and waits up to timeout_usec for the reply.
  Result<bus::MessagePtr> call(sd_bus_message* m, uint64_t timeout_usec = 30'000'000);

  Result<std::string> get_string_property(const char* service, const char* path,
                                          const char* interface, const char* name);
  // Whether a well-known name currently has an owner (no activation).
  bool has_owner(const char* service);

 private:
  explicit BusClient(bus::BusPtr b) : bus_(std::move(b)) {}
  bus::BusPtr bus_;
};

// The daemon that owns a bus name, for messages ("org.benchbox.Queue1" ->
// "benchbox-queued").
std::string daemon_for(const char* service);

}  // namespace bb::cli
