// Posts finished reports to GitHub on a thread of its own, so a slow or
// unreachable GitHub never stalls the reporter's bus interface. What was
// posted for a job is recorded in <reports>/<job>/github.json; a job that
// has that file is not posted again (re-ingesting is safe).
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "config/appliance.h"
#include "github_api/client.h"
#include "report/job_report.h"
#include "util/clock.h"

namespace bb::reporterd {

struct PostRequest {
  report::JobReport report;
  std::string report_dir;
  bool regression_issue = false;  // a push to a watched branch regressed
};

class GitHubPoster {
 public:
  // Returns nullptr (and no error) when posting is off (github_app_id 0).
  // Fails when it is on but the github-app-key credential is missing.
  static Result<std::unique_ptr<GitHubPoster>> create(const config::ApplianceConfig& config);
  ~GitHubPoster();

  void post(PostRequest request);

 private:
  GitHubPoster(std::string api_url, int64_t app_id, std::string key);
  void worker();
  void post_one(const PostRequest& request);

  SystemClock clock_;
  github_api::Client client_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<PostRequest> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

// The check-run conclusion for an overall outcome.
const char* check_conclusion(report::Overall overall);

}  // namespace bb::reporterd
