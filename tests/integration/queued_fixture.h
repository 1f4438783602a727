// A private bus plus a benchbox-queued under test, restartable, with its
// state in a temp dir. Shared by the queued_* integration tests.
//
// Under tests/postgres/with-postgres.sh (BENCHBOX_TEST_POSTGRES set) the
// queue lives in a PostgreSQL database of the fixture's own, given to
// queued as the credential "postgresql" like the package does; several
// fixtures ("boxes") can share one with use_postgresql().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness.h"
#include "queued_client.h"

namespace bb::test {

class QueuedFixture {
 public:
  // `queue_yaml` is the body of the config's `queue:` section ("" = defaults);
  // `more_yaml` goes at the top level (e.g. an `access:` section). The bus
  // lets any user connect (a test may call as "nobody") and do anything,
  // unless `policy_file` is included, as the system bus includes it.
  explicit QueuedFixture(const std::string& queue_yaml = "", const std::string& more_yaml = "",
                         const std::string& policy_file = "");
  // Rewrites the config (for a SIGHUP reload).
  void write_config(const std::string& queue_yaml, const std::string& more_yaml = "");
  // Moves the queue to this PostgreSQL database (before start).
  void use_postgresql(const std::string& conninfo);
  bool on_postgresql() const { return !conninfo_.empty(); }
  const std::string& conninfo() const { return conninfo_; }

  // Starts the daemon (again); does not wait. `wrapper` goes before the
  // daemon's argv (e.g. prlimit to cap file sizes).
  void start(const std::vector<std::string>& wrapper = {});
  // Starts and waits until the Version property answers (ready on the bus).
  void start_and_wait(const std::vector<std::string>& wrapper = {});
  bool ready(QueueClient& client);
  void kill_hard();
  int terminate();
  Process& process() { return *daemon_; }

  const std::string& address() const { return bus_.address(); }
  std::string database() const { return dir_ / "state/queue.db"; }
  std::string config_path() const { return dir_ / "benchbox.yml"; }
  std::string log() const { return daemon_ ? daemon_->log() : ""; }
  TempDir& dir() { return dir_; }

 private:
  TempDir dir_;
  OpenBus bus_;
  std::string queue_yaml_, more_yaml_, conninfo_;
  std::unique_ptr<Process> daemon_;
};

// A 40-hex commit id made from a number (unique per n).
std::string fake_sha(uint64_t n);

// Under with-postgres.sh: a new database named `name` on the test server
// (created with psql), as a connection string; "" otherwise.
std::string test_postgres_database(const std::string& name);

}  // namespace bb::test
