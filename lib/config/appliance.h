// The appliance configuration (/etc/benchbox/benchbox.yml): which
// repositories are watched and who may bless a pull request, plus each
// daemon's section. Every daemon reads the same file and uses its section.
// Documented in docs/configuration.md; example in config/benchbox.yml.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::config {

// One place a repository's notifications go (docs/notifications.md).
struct NotifyDestination {
  std::string name;                  // unique per repository; default: the kind
  std::string kind;                  // webhook, slack, matrix or email
  std::string url;                   // webhook, slack, matrix: http(s) address to POST to
  // webhook: the systemd credential (LoadCredential= of reporterd) holding
  // the HMAC-SHA256 key the body is signed with, never the key itself.
  std::string secret_credential;
  std::vector<std::string> to;       // email: the recipients
  std::vector<std::string> events;   // the events it wants; empty = every one
};

struct RepositoryPolicy {
  std::string name;                    // "owner/repo"
  std::string clone_url;               // "" = https://github.com/<name>.git
  std::vector<std::string> branches = {"main"};  // glob patterns
  std::vector<std::string> tags = {"v*"};        // glob patterns
  std::vector<std::string> blessers;   // GitHub logins that may bless a PR
  std::string bless_command = "/benchbox run";
  std::string bless_label = "benchbox";  // adding this label also blesses
  std::string suite;                   // "" = all suites
  // What the repository's build and benchmark may reach: "none" (no
  // network at all), "loopback" (their own 127.0.0.1 only), "full" (the
  // host's network). Enforced where runnerd may (docs/systemd.md,
  // "Containment"). Loopback by default: nothing of the box's network, and
  // benchmarks that talk to a server they start themselves still work.
  std::string network = "loopback";
  std::vector<NotifyDestination> notify;  // where its events are also told
};

// The webhook door (docs/configuration.md, "The webhook door").
struct WebhookConfig {
  uint64_t max_body_bytes = 25ull * 1024 * 1024;  // GitHub caps payloads at 25 MiB
  unsigned request_timeout_seconds = 10;           // a whole request (headers and body); then 408
  unsigned header_timeout_seconds = 10;            // the headers alone, however they trickle; then 408
  unsigned idle_timeout_seconds = 10;              // no byte for this long: 408, or closed when idle
  unsigned max_connections = 128;                  // then the oldest unfinished request gives way
  uint32_t max_header_bytes = 32 * 1024;           // then 431
  uint64_t max_body_bytes_in_flight = 256ull * 1024 * 1024;  // all bodies being received; then 503
  unsigned queue_timeout_ms = 5000;                // Enqueue call timeout before 503/spool
  std::string spool_dir;                           // "" = <state_dir>/spool
};

struct QueueConfig {
  // "sqlite": the file `database`, this box alone. "postgresql": the fleet's
  // shared queue; the connection string is the credential "postgresql".
  std::string backend = "sqlite";
  std::string database;           // sqlite: "" = <state_dir>/queue.db
  unsigned lease_seconds = 120;   // a runner that stops heartbeating loses the job
  unsigned max_attempts = 3;      // requeues before a job fails for good
  // A signed body accepted this recently is answered with its first job,
  // whatever delivery id it carries now (replay protection).
  uint64_t replay_window_seconds = 7 * 24 * 3600;
};

struct RunnerConfig {
  std::string benchmark_cpus;     // CPU list; "" = the last online CPU
  std::string work_dir;           // "" = <cache_dir>/work
  std::string results_dir;        // "" = <state_dir>/results
  unsigned heartbeat_seconds = 30;
  bool refuse_on_drift = false;   // refuse to start jobs while tunerd says drifted
  std::string runner_id;          // "" = hostname
  // Built work trees kept between jobs (<cache_dir>/builds); 0 = no cache.
  uint64_t build_cache_bytes = 10ull << 30;
  // Containment (docs/systemd.md, "Containment"): under systemd every build
  // and benchmark runs as a transient service as this user, which owns
  // nothing and shares only the job's directory with runnerd (its group).
  std::string job_user = "benchbox-job";
  // "required": a box that cannot contain a job (no transient services as
  // job_user, and runnerd not root to give each job a uid of its own)
  // claims none, and says why; "allow-uncontained": it runs them as
  // runnerd's own user, and every report says so.
  std::string containment = "required";
  // Per-job bounds; 0 = none. Hitting one is the job's failure reason.
  uint64_t memory_max_bytes = 8ull << 30;      // MemoryMax= of each command
  uint64_t tasks_max = 4096;                   // TasksMax= (processes and threads)
  uint64_t file_size_max_bytes = 16ull << 30;  // LimitFSIZE=: the largest file it may write
  uint64_t work_tree_max_bytes = 32ull << 30;  // the job's directory, checked after every command
  // The canary (docs/canary.md): at most this often while idle (seconds;
  // 0 = never, updates included), after this long idle, this many rounds.
  unsigned canary_interval = 3600;
  unsigned canary_idle_seconds = 300;
  unsigned canary_rounds = 30;
};

// benchbox-reporterd: history, reports, the dashboard, and what it posts to
// GitHub (docs/configuration.md, "Reporting").
struct ReporterConfig {
  // Where history lives: "sqlite" (the file `database`) or "postgresql"
  // (the credential "postgresql", as queue.backend; docs/fleet.md).
  std::string backend = "sqlite";
  std::string database;           // sqlite: "" = <state_dir>/history.db
  std::string reports_dir;        // "" = <state_dir>/reports
  std::string site_dir;           // "" = <state_dir>/site
  std::string outbox_database;    // "" = <state_dir>/outbox.db: GitHub calls not yet made
  // Where the dashboard is served ("https://bench.example.org/"), for the
  // check run's details_url and the links in comments and issues; "" = no
  // links (GitHub's "Details" then goes nowhere).
  std::string site_url;
  std::string github_api_url = "https://api.github.com";
  // How reporterd authenticates to GitHub: "off" (post nothing), "app" (a
  // GitHub App: github_app_id and the credential github-app-key), "token"
  // (a plain token in the credential github-token). "" = "app" when
  // github_app_id is set, else "off".
  std::string github_auth;
  int64_t github_app_id = 0;
  // The sticky PR comment: "changes" (only when the report has something
  // to say; an existing comment is always brought up to date), "always",
  // "never".
  std::string pr_comment = "changes";
  // Open an issue for a main-branch regression (and close it when it is
  // gone).
  bool regression_issues = true;
  // Before filing it, confirm a regression with a compare job of its last
  // good and first bad commits, then bisect the range to the first bad
  // commit (docs/bisect.md). false: file it as soon as a push shows it.
  bool confirm_regressions = true;
  // Retries of GitHub calls: the first after this, doubling up to the
  // maximum; a call still failing after give_up is dropped (and logged).
  unsigned github_retry_seconds = 30;
  unsigned github_retry_max_seconds = 3600;
  uint64_t github_give_up_seconds = 3 * 24 * 3600;
  // Raw samples of pull-request runs are kept this long, then only their
  // summaries (medians, quartiles); 0 = forever. Main-branch and tag runs
  // keep their raw samples forever.
  uint64_t pr_samples_days = 90;
  // Notifications (docs/notifications.md): "" = <state_dir>/notify-outbox.db.
  // They are retried and given up on as GitHub calls are (above).
  std::string notify_outbox_database;
  std::string sendmail = "/usr/sbin/sendmail";  // email destinations: the MTA's sendmail
  std::string mail_from;                        // "" = benchbox@<host name>
  unsigned notify_timeout_seconds = 30;         // one delivery's deadline

  // github_auth with its default applied: "off", "app" or "token".
  std::string auth_mode() const;
};

struct TunerConfig {
  std::string sysfs_root = "/";   // tests point this at a fake tree
  std::string profile;            // "" = /etc/benchbox/tuning.yml
  unsigned verify_interval_seconds = 60;
};

// Who may call what on the bus besides root (docs/systemd.md, "Bus
// policy"): the operators' group may call everything; each daemon's user
// only the methods its daemon needs. The defaults are the users the package
// creates (sysusers.d/benchbox.conf); the daemons check callers against
// these names as well as the D-Bus policy does.
struct AccessConfig {
  std::string admin_group = "benchbox-admin";
  std::string webhook_user = "benchbox-webhook";  // Queue1.Enqueue, RecordPullRequest
  std::string runner_user = "benchbox-runner";    // Queue1.Claim, Heartbeat, Complete, Fail
  // Queue1.EnqueueGroup, Enqueue and SetGroupStep, for compare jobs of a
  // bisection only.
  std::string reporter_user = "benchbox-report";
};

// benchbox-update (docs/install.md, "Updates").
struct UpdateConfig {
  std::string source = "/etc/apt/sources.list.d/benchbox.sources";  // the one apt source refreshed
  unsigned max_wait_seconds = 3600;        // for runnerd to finish its job
  unsigned health_timeout_seconds = 120;   // for every daemon to come up on the new version
  std::string state_dir;                   // "" = <state_dir>/update
};

struct ApplianceConfig {
  std::string state_dir = "/var/lib/benchbox";
  std::string cache_dir = "/var/cache/benchbox";
  std::vector<RepositoryPolicy> repositories;
  WebhookConfig webhook;
  QueueConfig queue;
  RunnerConfig runner;
  ReporterConfig reporter;
  TunerConfig tuner;
  UpdateConfig update;
  AccessConfig access;

  const RepositoryPolicy* find_repository(const std::string& name) const;
  // Paths with their defaults filled in from state_dir/cache_dir.
  std::string spool_dir() const;
  std::string queue_database() const;
  std::string work_dir() const;
  std::string results_dir() const;
  std::string history_database() const;
  std::string reports_dir() const;
  std::string site_dir() const;
  std::string outbox_database() const;
  std::string notify_outbox_database() const;
  std::string update_dir() const;
};

// Parses YAML text. Errors name `source`, the line and column, and what was
// expected ("benchbox.yml:12:5: webhook.max_body_bytes: expected an integer").
Result<ApplianceConfig> parse_appliance_config(const std::string& text, const std::string& source);
Result<ApplianceConfig> load_appliance_config(const std::string& path);

inline constexpr const char* kDefaultConfigPath = "/etc/benchbox/benchbox.yml";

// Where a daemon's configuration comes from: `--config PATH`, or the default.
struct ConfigSource {
  std::string path = kDefaultConfigPath;
  bool given = false;  // named with --config
};

// The daemons' one rule: a file named with --config must exist; at the
// default path an absent file means all defaults (a fresh install works).
Result<ApplianceConfig> load_appliance_config(const ConfigSource& source);

}  // namespace bb::config
