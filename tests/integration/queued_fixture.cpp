#include "queued_fixture.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace bb::test {

QueuedFixture::QueuedFixture(const std::string& queue_yaml, const std::string& more_yaml,
                             const std::string& policy_file)
    : bus_(dir_.path(), policy_file) {
  std::string name = dir_.path();
  name = "bbq_" + name.substr(name.rfind('-') + 1);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  conninfo_ = test_postgres_database(name);
  write_config(queue_yaml, more_yaml);
}

void QueuedFixture::use_postgresql(const std::string& conninfo) {
  conninfo_ = conninfo;
  write_config(queue_yaml_, more_yaml_);
}

void QueuedFixture::write_config(const std::string& queue_yaml, const std::string& more_yaml) {
  queue_yaml_ = queue_yaml;
  more_yaml_ = more_yaml;
  std::ofstream cfg(config_path());
  cfg << "state_dir: " << (dir_ / "state") << "\n" << more_yaml;
  if (!queue_yaml.empty() || !conninfo_.empty()) cfg << "queue:\n" << queue_yaml;
  if (!conninfo_.empty()) cfg << "  backend: postgresql\n";
  if (!cfg) throw std::runtime_error("cannot write the test config");
  if (!conninfo_.empty()) {
    std::filesystem::create_directories(dir_ / "credentials");
    std::ofstream cred(dir_ / "credentials/postgresql");
    cred << conninfo_ << "\n";
    if (!cred) throw std::runtime_error("cannot write the postgresql credential");
  }
}

void QueuedFixture::start(const std::vector<std::string>& wrapper) {
  daemon_.reset();
  std::vector<std::string> argv = wrapper;
  for (const auto& a : {build_path("daemons/queued/benchbox-queued"), std::string("--config"), config_path()})
    argv.push_back(a);
  auto env = daemon_env(bus_.address());
  if (!conninfo_.empty()) env["CREDENTIALS_DIRECTORY"] = dir_ / "credentials";
  daemon_ = std::make_unique<Process>(std::move(argv), std::move(env), dir_ / "queued.log");
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

std::string test_postgres_database(const std::string& name) {
  const char* admin = std::getenv("BENCHBOX_TEST_POSTGRES");
  if (!admin || !*admin) return "";
  std::string out;
  // name is ours: lowercase letters, digits and underscores.
  if (run_shell("psql -v ON_ERROR_STOP=1 -q '" + std::string(admin) + "' -c 'CREATE DATABASE " + name + "'", &out) != 0)
    throw std::runtime_error("cannot create database " + name + ": " + out);
  return std::string(admin) + " dbname=" + name;
}

std::string fake_sha(uint64_t n) {
  char buf[41];
  std::snprintf(buf, sizeof buf, "%040llx", static_cast<unsigned long long>(n));
  return buf;
}

}  // namespace bb::test
