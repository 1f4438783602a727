#include "github_poster.h"

#include <cstdlib>

#include "daemon/log.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::reporterd {

using daemon::log_error;
using daemon::log_info;

const char* check_conclusion(report::Overall overall) {
  switch (overall) {
    case report::Overall::failed:
    case report::Overall::regressed: return "failure";
    case report::Overall::inconclusive: return "neutral";
    default: return "success";
  }
}

Result<std::unique_ptr<GitHubPoster>> GitHubPoster::create(const config::ApplianceConfig& config) {
  if (config.reporter.github_app_id == 0) return std::unique_ptr<GitHubPoster>();
  const char* creds = std::getenv("CREDENTIALS_DIRECTORY");
  if (!creds)
    return make_error(Errc::invalid_argument,
                      "reporter.github_app_id is set but there is no credentials directory: give the unit "
                      "LoadCredentialEncrypted=github-app-key (see credentials/README.md)");
  auto key = read_file(path_join(creds, "github-app-key"), 64 << 10);
  if (!key)
    return make_error(Errc::invalid_argument,
                      "cannot read credential github-app-key: " + key.error().message +
                          " (create it with credentials/benchbox-credentials)");
  return std::unique_ptr<GitHubPoster>(
      new GitHubPoster(config.reporter.github_api_url, config.reporter.github_app_id, std::move(*key)));
}

GitHubPoster::GitHubPoster(std::string api_url, int64_t app_id, std::string key)
    : client_(std::move(api_url), app_id, std::move(key), clock_), thread_([this] { worker(); }) {}

GitHubPoster::~GitHubPoster() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void GitHubPoster::post(PostRequest request) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(request));
  }
  wake_.notify_one();
}

void GitHubPoster::worker() {
  for (;;) {
    PostRequest next;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      // Drain what is queued before stopping: a report accepted is a report posted.
      if (queue_.empty()) return;
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      post_one(next);
    } catch (const std::exception& e) {
      log_error(std::string("posting to GitHub: ") + e.what(), {{"JOB_ID", std::to_string(next.report.job.id)}});
    }
  }
}

void GitHubPoster::post_one(const PostRequest& req) {
  const model::Job& job = req.report.job;
  std::string marker = path_join(req.report_dir, "github.json");
  if (path_exists(marker)) return;
  std::string id = std::to_string(job.id);
  std::string repo = job.spec.repository;
  const std::string& head = req.report.head_commit;
  nlohmann::json posted = {{"job_id", job.id}};
  auto fields = std::initializer_list<daemon::Field>{{"JOB_ID", id}, {"REPOSITORY", repo}};

  if (!head.empty()) {
    auto run = client_.create_check_run(repo, head, "benchbox", check_conclusion(req.report.overall),
                                        std::string("benchbox: ") + report::to_string(req.report.overall),
                                        req.report.markdown);
    if (run) posted["check_run"] = *run;
    else log_error("check run not posted: " + run.error().message, fields);
  }
  if (job.spec.kind == model::JobKind::pull_request) {
    auto comment = client_.upsert_sticky_comment(repo, job.spec.pr_number, req.report.markdown);
    if (comment) posted["comment"] = *comment;
    else log_error("PR comment not posted: " + comment.error().message, fields);
  }
  if (req.regression_issue) {
    std::string title = "Performance regression on " + job.spec.ref + " at " + short_sha(head);
    auto issue = client_.open_issue(repo, title, req.report.markdown);
    if (issue) posted["issue"] = *issue;
    else log_error("regression issue not opened: " + issue.error().message, fields);
  }
  if (auto st = write_file_atomic(marker, posted.dump(2) + "\n"); !st)
    log_error("cannot record what was posted: " + st.error().message, fields);
  log_info("posted to GitHub: " + posted.dump(), fields);
}

}  // namespace bb::reporterd
