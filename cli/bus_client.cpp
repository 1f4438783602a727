#include "bus_client.h"

#include <cstring>

#include "bus/connect.h"
#include "bus/errors.h"
#include "bus/names.h"

namespace bb::cli {

std::string daemon_for(const char* service) {
  std::string s = service;
  if (s == bus::kQueueName) return "benchbox-queued";
  if (s == bus::kTunerName) return "benchbox-tunerd";
  if (s == bus::kRunnerName) return "benchbox-runnerd";
  if (s == bus::kReporterName) return "benchbox-reporterd";
  return s;
}

Result<BusClient> BusClient::connect() {
  auto b = bus::open_system_bus();
  if (!b) return b.error().with_context("is the D-Bus system bus running?");
  return BusClient(std::move(*b));
}

Result<bus::MessagePtr> BusClient::new_call(const char* service, const char* path,
                                            const char* interface, const char* member) {
  sd_bus_message* m = nullptr;
  int r = sd_bus_message_new_method_call(bus_.get(), &m, service, path, interface, member);
  if (r < 0) return errno_error(std::string("create call ") + member, -r);
  return bus::MessagePtr(m);
}

Result<bus::MessagePtr> BusClient::call(sd_bus_message* m, uint64_t timeout_usec) {
  bus::BusError error;
  sd_bus_message* reply = nullptr;
  int r = sd_bus_call(bus_.get(), m, timeout_usec, error.get(), &reply);
  if (r < 0) {
    const char* dest = sd_bus_message_get_destination(m);
    std::string what = std::string(sd_bus_message_get_member(m));
    if (error.is_set() && (!std::strcmp(error.name(), SD_BUS_ERROR_SERVICE_UNKNOWN) ||
                           !std::strcmp(error.name(), SD_BUS_ERROR_NAME_HAS_NO_OWNER)))
      return make_error(Errc::unavailable,
                        daemon_for(dest ? dest : "") + " is not running (" + error.message() + ")");
    return bus::from_bus_error(error.get(), r, what.c_str());
  }
  return bus::MessagePtr(reply);
}

Result<std::string> BusClient::get_string_property(const char* service, const char* path,
                                                   const char* interface, const char* name) {
  bus::BusError error;
  char* value = nullptr;
  int r = sd_bus_get_property_string(bus_.get(), service, path, interface, name, error.get(), &value);
  if (r < 0) {
    if (error.is_set() && (!std::strcmp(error.name(), SD_BUS_ERROR_SERVICE_UNKNOWN) ||
                           !std::strcmp(error.name(), SD_BUS_ERROR_NAME_HAS_NO_OWNER)))
      return make_error(Errc::unavailable, daemon_for(service) + " is not running");
    return bus::from_bus_error(error.get(), r, name);
  }
  std::string out = value;
  free(value);
  return out;
}

bool BusClient::has_owner(const char* service) {
  return sd_bus_get_name_creds(bus_.get(), service, 0, nullptr) >= 0;
}

}  // namespace bb::cli
