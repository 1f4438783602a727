// Bus helpers over a socketpair: two sd-bus peers, no daemon needed.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <nlohmann/json.hpp>

#include "bus/dict.h"
#include "bus/errors.h"
#include "bus/handles.h"

using namespace bb;
using namespace bb::bus;

TEST_CASE("a{sv} dictionaries round-trip flat JSON objects") {
  sd_bus_message* raw = nullptr;
  // Messages need a started bus; one end of a socketpair is enough.
  int fds[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) == 0);
  sd_bus* bus = nullptr;
  REQUIRE(sd_bus_new(&bus) >= 0);
  BusPtr owner(bus);
  REQUIRE(sd_bus_set_fd(bus, fds[0], fds[0]) >= 0);
  REQUIRE(sd_bus_start(bus) >= 0);
  REQUIRE(sd_bus_message_new_signal(bus, &raw, "/x", "x.y", "Z") >= 0);
  MessagePtr m(raw);
  nlohmann::json in = {{"a", "text"}, {"n", -5}, {"u", 7u}, {"b", true}, {"d", 1.5},
                       {"l", {"BM_a", "", "µ"}}, {"e", nlohmann::json::array()}};
  REQUIRE(append_dict(m.get(), in) >= 0);
  REQUIRE(sd_bus_message_seal(m.get(), 1, 0) >= 0);
  REQUIRE(sd_bus_message_rewind(m.get(), 1) >= 0);
  auto out = read_dict(m.get());
  REQUIRE(out.ok());
  CHECK((*out)["a"] == "text");
  CHECK((*out)["n"] == -5);
  CHECK((*out)["u"] == 7);
  CHECK((*out)["b"] == true);
  CHECK((*out)["d"] == 1.5);
  CHECK((*out)["l"] == nlohmann::json({"BM_a", "", "µ"}));
  CHECK((*out)["e"] == nlohmann::json::array());
  // Only lists of strings: anything else nested is refused.
  sd_bus_message* other = nullptr;
  REQUIRE(sd_bus_message_new_signal(bus, &other, "/x", "x.y", "Z") >= 0);
  MessagePtr o(other);
  CHECK(append_dict(o.get(), {{"l", {1, 2}}}) == -EINVAL);
  close(fds[1]);
}

TEST_CASE("library errors map to D-Bus error names and back") {
  sd_bus_error e = SD_BUS_ERROR_NULL;
  int r = set_error(&e, make_error(Errc::not_found, "no job 4"));
  CHECK(r < 0);
  CHECK(std::string(e.name) == kErrorNotFound);
  Error back = from_bus_error(&e, r, "Get");
  CHECK(back.code == Errc::not_found);
  CHECK(back.message == "Get: no job 4");
  sd_bus_error_free(&e);
}
