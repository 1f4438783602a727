#include "queued_fixture.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace bb::test {

QueuedFixture::QueuedFixture(const std::string& queue_yaml, const std::string& more_yaml,
                             const std::string& policy_file)
    : bus_(dir_.path(), policy_file) {
  write_config(queue_yaml, more_yaml);
}

void QueuedFixture::write_config(const std::string& queue_yaml, const std::string& more_yaml) {
  std::ofstream cfg(config_path());
  cfg << "state_dir: " << (dir_ / "state") << "\n" << more_yaml;
  if (!queue_yaml.empty()) cfg << "queue:\n" << queue_yaml;
  if (!cfg) throw std::runtime_error("cannot write the test config");
}

void QueuedFixture::start(const std::vector<std::string>& wrapper) {
  daemon_.reset();
  std::vector<std::string> argv = wrapper;
  for (const auto& a : {build_path("daemons/queued/benchbox-queued"), std::string("--config"), config_path()})
    argv.push_back(a);
  daemon_ = std::make_unique<Process>(std::move(argv), daemon_env(bus_.address()), dir_ / "queued.log");
}

bool QueuedFixture::ready(QueueClient& client) {
  std::string v;
  return !client.version(&v);
}

void QueuedFixture::start_and_wait(const std::vector<std::string>& wrapper) {
  start(wrapper);
  QueueClient client(address());
  if (!wait_until([&] { return ready(client) || !daemon_->running(); }) || !daemon_->running())
    throw std::runtime_error("benchbox-queued did not come up:\n" + log());
}

void QueuedFixture::kill_hard() {
  if (daemon_) daemon_->kill_hard();
}

int QueuedFixture::terminate() { return daemon_ ? daemon_->terminate() : -1; }

std::string fake_sha(uint64_t n) {
  char buf[41];
  std::snprintf(buf, sizeof buf, "%040llx", static_cast<unsigned long long>(n));
  return buf;
}

}  // namespace bb::test
