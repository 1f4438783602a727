// benchboxctl report JOB: the report benchbox-reporterd wrote for a job.
#include <cstdio>
#include <iostream>

#include "bus/names.h"
#include "bus_client.h"
#include "commands.h"

namespace bb::cli {

int cmd_report(const Args& args) {
  if (args.empty() || args.size() > 2 || (args.size() == 2 && args[1] != "--json"))
    return fail("usage: benchboxctl report JOB_ID [--json]");
  int64_t id = 0;
  try {
    id = std::stoll(args[0]);
  } catch (...) {
    return fail("not a job id: '" + args[0] + "'");
  }
  auto client = BusClient::connect();
  if (!client) return fail(client.error().message);
  auto m = client->new_call(bus::kReporterName, bus::kReporterPath, bus::kReporterInterface, "Report");
  if (!m) return fail(m.error().message);
  sd_bus_message_append(m->get(), "x", id);
  auto reply = client->call(m->get());
  if (!reply) return fail(reply.error().message);
  const char* markdown = nullptr;
  const char* json_path = nullptr;
  if (sd_bus_message_read(reply->get(), "ss", &markdown, &json_path) < 0) return fail("bad Report reply");
  if (args.size() == 2) {
    std::printf("%s\n", json_path);
    return 0;
  }
  std::fputs(markdown, stdout);
  return 0;
}

}  // namespace bb::cli
