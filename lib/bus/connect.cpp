#include "bus/connect.h"

#include <cstdlib>

namespace bb::bus {

Result<BusPtr> open_system_bus() {
  sd_bus* raw = nullptr;
  int r = sd_bus_open_system(&raw);
  if (r < 0) {
    const char* addr = std::getenv("DBUS_SYSTEM_BUS_ADDRESS");
    return errno_error(std::string("connect to the system bus") + (addr ? std::string(" at ") + addr : ""), -r);
  }
  return BusPtr(raw);
}

Result<BusPtr> open_address(const std::string& address) {
  sd_bus* raw = nullptr;
  int r = sd_bus_new(&raw);
  if (r < 0) return errno_error("sd_bus_new", -r);
  BusPtr bus(raw);
  if ((r = sd_bus_set_address(raw, address.c_str())) < 0) return errno_error("bus address " + address, -r);
  sd_bus_set_bus_client(raw, 1);
  if ((r = sd_bus_start(raw)) < 0) return errno_error("connect to " + address, -r);
  return bus;
}

}  // namespace bb::bus
