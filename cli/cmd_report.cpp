// benchboxctl report JOB | --group GROUP: the report benchbox-reporterd wrote
// for a job, or for a sharded suite's job group of shards.
#include <cstdio>
#include <iostream>

#include "bus/names.h"
#include "bus_client.h"
#include "commands.h"

namespace bb::cli {

int cmd_report(const Args& args) {
  Args rest = args;
  const bool group = !rest.empty() && rest[0] == "--group";
  if (group) rest.erase(rest.begin());
  if (rest.empty() || rest.size() > 2 || (rest.size() == 2 && rest[1] != "--json"))
    return fail("usage: benchboxctl report JOB_ID [--json]\n       benchboxctl report --group GROUP_ID [--json]");
  int64_t id = 0;
  try {
    size_t used = 0;
    id = std::stoll(rest[0], &used);
    if (used != rest[0].size()) throw std::invalid_argument(rest[0]);
  } catch (...) {
    return fail(std::string("not a ") + (group ? "job group" : "job") + " id: '" + rest[0] + "'");
  }
  auto client = BusClient::connect();
  if (!client) return fail(client.error().message);
  auto m = client->new_call(bus::kReporterName, bus::kReporterPath, bus::kReporterInterface,
                            group ? "GroupReport" : "Report");
  if (!m) return fail(m.error().message);
  sd_bus_message_append(m->get(), "x", id);
  auto reply = client->call(m->get());
  if (!reply) return fail(reply.error().message);
  const char* markdown = nullptr;
  const char* json_path = nullptr;
  if (sd_bus_message_read(reply->get(), "ss", &markdown, &json_path) < 0) return fail("bad Report reply");
  if (rest.size() == 2) {
    std::printf("%s\n", json_path);
    return 0;
  }
  std::fputs(markdown, stdout);
  return 0;
}

}  // namespace bb::cli
