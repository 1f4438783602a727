#include "config/appliance.h"

#include "config/notify_config.h"
#include "config/yaml_read.h"
#include "util/file.h"

namespace bb::config {

namespace {

Status parse_repository(const std::string& src, const YAML::Node& n, const std::string& path,
                        RepositoryPolicy& r) {
  BB_TRY(check_keys(src, n, path, {"name", "clone_url", "branches", "tags", "blessers",
                                   "bless_command", "bless_label", "suite", "network", "notify"}));
  BB_TRY(read_string(src, n, path, "name", r.name));
  if (r.name.empty() || r.name.find('/') == std::string::npos)
    return yaml_error(src, n, path + ".name", "expected 'owner/repo'");
  BB_TRY(read_string(src, n, path, "clone_url", r.clone_url));
  if (r.clone_url.empty()) r.clone_url = "https://github.com/" + r.name + ".git";
  BB_TRY(read_string_list(src, n, path, "branches", r.branches));
  BB_TRY(read_string_list(src, n, path, "tags", r.tags));
  BB_TRY(read_string_list(src, n, path, "blessers", r.blessers));
  BB_TRY(read_string(src, n, path, "bless_command", r.bless_command));
  BB_TRY(read_string(src, n, path, "bless_label", r.bless_label));
  BB_TRY(read_string(src, n, path, "suite", r.suite));
  BB_TRY(read_string(src, n, path, "network", r.network));
  if (r.network != "none" && r.network != "loopback" && r.network != "full")
    return yaml_error(src, n["network"], path + ".network", "expected none, loopback or full, got '" + r.network + "'");
  return parse_notify(src, n["notify"], path + ".notify", r.notify);
}

Status parse_sections(const std::string& src, const YAML::Node& root, ApplianceConfig& c) {
  BB_TRY(check_keys(src, root, "", {"state_dir", "cache_dir", "repositories", "webhook", "queue",
                                    "runner", "reporter", "tuner", "update", "access"}));
  BB_TRY(read_string(src, root, "", "state_dir", c.state_dir));
  BB_TRY(read_string(src, root, "", "cache_dir", c.cache_dir));

  if (YAML::Node repos = root["repositories"]; repos && !repos.IsNull()) {
    if (!repos.IsSequence()) return yaml_error(src, repos, "repositories", "expected a list");
    for (size_t i = 0; i < repos.size(); ++i) {
      RepositoryPolicy r;
      BB_TRY(parse_repository(src, repos[i], "repositories[" + std::to_string(i) + "]", r));
      if (c.find_repository(r.name))
        return yaml_error(src, repos[i], "repositories", "repository '" + r.name + "' is listed twice");
      c.repositories.push_back(std::move(r));
    }
  }

  if (YAML::Node w = root["webhook"]; w && !w.IsNull()) {
    WebhookConfig& h = c.webhook;
    BB_TRY(check_keys(src, w, "webhook", {"max_body_bytes", "request_timeout_seconds", "header_timeout_seconds",
                                          "idle_timeout_seconds", "max_connections", "max_header_bytes",
                                          "max_body_bytes_in_flight", "queue_timeout_ms", "spool_dir"}));
    constexpr uint64_t kDay = 24 * 3600;
    BB_TRY(read_uint_in(src, w, "webhook", "max_body_bytes", h.max_body_bytes, 1, 1ull << 32));
    BB_TRY(read_uint_in(src, w, "webhook", "request_timeout_seconds", h.request_timeout_seconds, 1, kDay));
    BB_TRY(read_uint_in(src, w, "webhook", "header_timeout_seconds", h.header_timeout_seconds, 1, kDay));
    BB_TRY(read_uint_in(src, w, "webhook", "idle_timeout_seconds", h.idle_timeout_seconds, 1, kDay));
    BB_TRY(read_uint_in(src, w, "webhook", "max_connections", h.max_connections, 1, 65536));
    BB_TRY(read_uint_in(src, w, "webhook", "max_header_bytes", h.max_header_bytes, 1024, 1u << 24));
    BB_TRY(read_uint_in(src, w, "webhook", "max_body_bytes_in_flight", h.max_body_bytes_in_flight, 1, 1ull << 40));
    BB_TRY(read_uint_in(src, w, "webhook", "queue_timeout_ms", h.queue_timeout_ms, 1, 600'000));
    BB_TRY(read_string(src, w, "webhook", "spool_dir", h.spool_dir));
    if (h.max_body_bytes_in_flight < h.max_body_bytes)
      return yaml_error(src, w, "webhook.max_body_bytes_in_flight",
                        "must be at least webhook.max_body_bytes (" + std::to_string(h.max_body_bytes) +
                            "), or no delivery of the largest size could ever get in");
  }

  if (YAML::Node q = root["queue"]; q && !q.IsNull()) {
    BB_TRY(check_keys(src, q, "queue",
                      {"backend", "database", "lease_seconds", "max_attempts", "replay_window_seconds"}));
    BB_TRY(read_string(src, q, "queue", "backend", c.queue.backend));
    if (c.queue.backend != "sqlite" && c.queue.backend != "postgresql")
      return yaml_error(src, q["backend"], "queue.backend",
                        "expected sqlite or postgresql, got '" + c.queue.backend + "'");
    BB_TRY(read_uint_in(src, q, "queue", "replay_window_seconds", c.queue.replay_window_seconds, 0,
                        10ull * 365 * 24 * 3600));
    uint64_t lease = c.queue.lease_seconds, attempts = c.queue.max_attempts;
    BB_TRY(read_string(src, q, "queue", "database", c.queue.database));
    BB_TRY(read_uint(src, q, "queue", "lease_seconds", lease));
    BB_TRY(read_uint(src, q, "queue", "max_attempts", attempts));
    if (lease == 0) return yaml_error(src, q["lease_seconds"], "queue.lease_seconds", "must be > 0");
    c.queue.lease_seconds = static_cast<unsigned>(lease);
    c.queue.max_attempts = static_cast<unsigned>(attempts);
  }

  if (YAML::Node r = root["runner"]; r && !r.IsNull()) {
    BB_TRY(check_keys(src, r, "runner", {"benchmark_cpus", "work_dir", "results_dir",
                                         "heartbeat_seconds", "refuse_on_drift", "runner_id",
                                         "build_cache_bytes", "job_user", "memory_max_bytes", "tasks_max",
                                         "file_size_max_bytes", "work_tree_max_bytes", "containment",
                                         "canary_interval", "canary_idle_seconds", "canary_rounds"}));
    uint64_t hb = c.runner.heartbeat_seconds;
    BB_TRY(read_string(src, r, "runner", "benchmark_cpus", c.runner.benchmark_cpus));
    BB_TRY(read_string(src, r, "runner", "work_dir", c.runner.work_dir));
    BB_TRY(read_string(src, r, "runner", "results_dir", c.runner.results_dir));
    BB_TRY(read_uint(src, r, "runner", "heartbeat_seconds", hb));
    BB_TRY(read_bool(src, r, "runner", "refuse_on_drift", c.runner.refuse_on_drift));
    BB_TRY(read_string(src, r, "runner", "runner_id", c.runner.runner_id));
    BB_TRY(read_uint(src, r, "runner", "build_cache_bytes", c.runner.build_cache_bytes));
    BB_TRY(read_string(src, r, "runner", "job_user", c.runner.job_user));
    BB_TRY(read_uint(src, r, "runner", "memory_max_bytes", c.runner.memory_max_bytes));
    BB_TRY(read_uint(src, r, "runner", "tasks_max", c.runner.tasks_max));
    BB_TRY(read_uint(src, r, "runner", "file_size_max_bytes", c.runner.file_size_max_bytes));
    BB_TRY(read_uint(src, r, "runner", "work_tree_max_bytes", c.runner.work_tree_max_bytes));
    BB_TRY(read_string(src, r, "runner", "containment", c.runner.containment));
    if (c.runner.containment != "required" && c.runner.containment != "allow-uncontained")
      return yaml_error(src, r["containment"], "runner.containment",
                        "expected required or allow-uncontained, got '" + c.runner.containment + "'");
    c.runner.heartbeat_seconds = static_cast<unsigned>(hb);
    BB_TRY(read_uint_in(src, r, "runner", "canary_interval", c.runner.canary_interval, 0, 7 * 24 * 3600));
    BB_TRY(read_uint_in(src, r, "runner", "canary_idle_seconds", c.runner.canary_idle_seconds, 0, 24 * 3600));
    BB_TRY(read_uint_in(src, r, "runner", "canary_rounds", c.runner.canary_rounds, 2, 1000));
  }

  if (YAML::Node r = root["reporter"]; r && !r.IsNull()) {
    ReporterConfig& p = c.reporter;
    BB_TRY(check_keys(src, r, "reporter", {"backend", "database", "reports_dir", "site_dir", "outbox_database", "site_url",
                                           "github_api_url", "github_auth", "github_app_id", "pr_comment",
                                           "regression_issues", "confirm_regressions", "github_retry_seconds", "github_retry_max_seconds",
                                           "github_give_up_seconds", "pr_samples_days", "notify_outbox_database",
                                           "sendmail", "mail_from", "notify_timeout_seconds"}));
    BB_TRY(read_string(src, r, "reporter", "database", p.database));
    BB_TRY(read_string(src, r, "reporter", "backend", p.backend));
    if (p.backend != "sqlite" && p.backend != "postgresql")
      return yaml_error(src, r["backend"], "reporter.backend", "expected sqlite or postgresql, got '" + p.backend + "'");
    BB_TRY(read_string(src, r, "reporter", "reports_dir", p.reports_dir));
    BB_TRY(read_string(src, r, "reporter", "site_dir", p.site_dir));
    BB_TRY(read_string(src, r, "reporter", "outbox_database", p.outbox_database));
    BB_TRY(read_string(src, r, "reporter", "site_url", p.site_url));
    if (!p.site_url.empty() && p.site_url.rfind("http://", 0) != 0 && p.site_url.rfind("https://", 0) != 0)
      return yaml_error(src, r["site_url"], "reporter.site_url", "expected an http:// or https:// URL");
    if (!p.site_url.empty() && p.site_url.back() != '/') p.site_url += '/';
    BB_TRY(read_string(src, r, "reporter", "github_api_url", p.github_api_url));
    BB_TRY(read_string(src, r, "reporter", "github_auth", p.github_auth));
    if (!p.github_auth.empty() && p.github_auth != "off" && p.github_auth != "app" && p.github_auth != "token")
      return yaml_error(src, r["github_auth"], "reporter.github_auth",
                        "expected off, app or token, got '" + p.github_auth + "'");
    BB_TRY(read_int(src, r, "reporter", "github_app_id", p.github_app_id));
    if (p.github_auth == "app" && p.github_app_id <= 0)
      return yaml_error(src, r["github_auth"], "reporter.github_auth",
                        "'app' needs reporter.github_app_id (the App's numeric id)");
    BB_TRY(read_string(src, r, "reporter", "pr_comment", p.pr_comment));
    if (p.pr_comment != "changes" && p.pr_comment != "always" && p.pr_comment != "never")
      return yaml_error(src, r["pr_comment"], "reporter.pr_comment",
                        "expected changes, always or never, got '" + p.pr_comment + "'");
    BB_TRY(read_bool(src, r, "reporter", "regression_issues", p.regression_issues));
    BB_TRY(read_bool(src, r, "reporter", "confirm_regressions", p.confirm_regressions));
    BB_TRY(read_uint_in(src, r, "reporter", "github_retry_seconds", p.github_retry_seconds, 1, 24 * 3600));
    BB_TRY(read_uint_in(src, r, "reporter", "github_retry_max_seconds", p.github_retry_max_seconds,
                        p.github_retry_seconds, 7 * 24 * 3600));
    BB_TRY(read_uint_in(src, r, "reporter", "github_give_up_seconds", p.github_give_up_seconds, 60,
                        365ull * 24 * 3600));
    BB_TRY(read_uint(src, r, "reporter", "pr_samples_days", p.pr_samples_days));
    BB_TRY(read_string(src, r, "reporter", "notify_outbox_database", p.notify_outbox_database));
    BB_TRY(read_string(src, r, "reporter", "sendmail", p.sendmail));
    if (p.sendmail.empty() || p.sendmail[0] != '/')
      return yaml_error(src, r["sendmail"], "reporter.sendmail", "expected an absolute path (e.g. /usr/sbin/sendmail)");
    BB_TRY(read_string(src, r, "reporter", "mail_from", p.mail_from));
    if (!p.mail_from.empty() && !mail_address(p.mail_from))
      return yaml_error(src, r["mail_from"], "reporter.mail_from", "'" + p.mail_from + "' is not one mail address");
    BB_TRY(read_uint_in(src, r, "reporter", "notify_timeout_seconds", p.notify_timeout_seconds, 1, 600));
  }

  if (YAML::Node u = root["update"]; u && !u.IsNull()) {
    BB_TRY(check_keys(src, u, "update", {"source", "max_wait_seconds", "health_timeout_seconds", "state_dir"}));
    BB_TRY(read_string(src, u, "update", "source", c.update.source));
    BB_TRY(read_uint_in(src, u, "update", "max_wait_seconds", c.update.max_wait_seconds, 0, 7 * 24 * 3600));
    BB_TRY(read_uint_in(src, u, "update", "health_timeout_seconds", c.update.health_timeout_seconds, 1, 3600));
    BB_TRY(read_string(src, u, "update", "state_dir", c.update.state_dir));
  }

  if (YAML::Node a = root["access"]; a && !a.IsNull()) {
    BB_TRY(check_keys(src, a, "access", {"admin_group", "webhook_user", "runner_user", "reporter_user"}));
    BB_TRY(read_string(src, a, "access", "admin_group", c.access.admin_group));
    BB_TRY(read_string(src, a, "access", "webhook_user", c.access.webhook_user));
    BB_TRY(read_string(src, a, "access", "runner_user", c.access.runner_user));
    BB_TRY(read_string(src, a, "access", "reporter_user", c.access.reporter_user));
  }

  if (YAML::Node t = root["tuner"]; t && !t.IsNull()) {
    BB_TRY(check_keys(src, t, "tuner", {"sysfs_root", "profile", "verify_interval_seconds"}));
    uint64_t iv = c.tuner.verify_interval_seconds;
    BB_TRY(read_string(src, t, "tuner", "sysfs_root", c.tuner.sysfs_root));
    BB_TRY(read_string(src, t, "tuner", "profile", c.tuner.profile));
    BB_TRY(read_uint(src, t, "tuner", "verify_interval_seconds", iv));
    c.tuner.verify_interval_seconds = static_cast<unsigned>(iv);
  }
  return {};
}


std::string or_default(const std::string& value, const std::string& base, const char* leaf) {
  return value.empty() ? path_join(base, leaf) : value;
}

}  // namespace

const RepositoryPolicy* ApplianceConfig::find_repository(const std::string& name) const {
  for (const auto& r : repositories)
    if (r.name == name) return &r;
  return nullptr;
}

std::string ApplianceConfig::update_dir() const { return or_default(update.state_dir, state_dir, "update"); }
std::string ApplianceConfig::spool_dir() const { return or_default(webhook.spool_dir, state_dir, "spool"); }
std::string ApplianceConfig::queue_database() const { return or_default(queue.database, state_dir, "queue.db"); }
std::string ApplianceConfig::work_dir() const { return or_default(runner.work_dir, cache_dir, "work"); }
std::string ApplianceConfig::results_dir() const { return or_default(runner.results_dir, state_dir, "results"); }
std::string ApplianceConfig::history_database() const { return or_default(reporter.database, state_dir, "history.db"); }
std::string ApplianceConfig::reports_dir() const { return or_default(reporter.reports_dir, state_dir, "reports"); }
std::string ApplianceConfig::site_dir() const { return or_default(reporter.site_dir, state_dir, "site"); }
std::string ApplianceConfig::outbox_database() const {
  return or_default(reporter.outbox_database, state_dir, "outbox.db");
}

std::string ApplianceConfig::notify_outbox_database() const {
  return or_default(reporter.notify_outbox_database, state_dir, "notify-outbox.db");
}

std::string ReporterConfig::auth_mode() const {
  if (!github_auth.empty()) return github_auth;
  return github_app_id > 0 ? "app" : "off";
}

Result<ApplianceConfig> parse_appliance_config(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    return yaml_error(source, e.mark, e.msg);
  }
  ApplianceConfig c;
  if (!root || root.IsNull()) return c;  // an empty file means all defaults
  if (!root.IsMap()) return yaml_error(source, root, "", "expected a mapping at the top level");
  try {
    if (auto st = parse_sections(source, root, c); !st) return st.error();
  } catch (const YAML::Exception& e) {
    return yaml_error(source, e.mark, e.msg);
  }
  return c;
}

Result<ApplianceConfig> load_appliance_config(const std::string& path) {
  auto text = read_file(path, 4 << 20);
  if (!text) return text.error();
  return parse_appliance_config(*text, path);
}

Result<ApplianceConfig> load_appliance_config(const ConfigSource& source) {
  if (!source.given && !path_exists(source.path)) return ApplianceConfig{};
  return load_appliance_config(source.path);
}

}  // namespace bb::config
