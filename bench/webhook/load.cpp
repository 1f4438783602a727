#include "load.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness.h"

namespace bb::bench {

namespace {

size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

}  // namespace

std::string sha_of(size_t n) {
  char buf[41];
  std::snprintf(buf, sizeof buf, "%040zx", n + 1);
  return buf;
}

// Bodies and signatures are made before the clock starts, so the client's
// HMAC does not count against the server.
std::vector<Request> make_requests(const nlohmann::json& push, size_t count, const std::string& run,
                                   bool good_signature, const std::string& secret, size_t sha_offset, size_t padding) {
  std::vector<Request> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    nlohmann::json p = push;
    p["after"] = sha_of(sha_offset + i);  // a new commit each: a new job, not "same work"
    if (padding) p["head_commit"]["message"] = std::string(padding, 'x');
    Request r;
    r.body = p.dump();
    std::string sig = good_signature ? test::github_signature(secret, r.body) : test::github_signature("wrong", r.body);
    r.headers = {"Content-Type: application/json", "X-GitHub-Event: push",
                 "X-GitHub-Delivery: " + run + "-" + std::to_string(i), "X-Hub-Signature-256: " + sig,
                 "Expect:"};
    out.push_back(std::move(r));
  }
  return out;
}

PhaseResult run_http(const std::string& name, const std::string& url, const std::vector<Request>& requests,
                     size_t concurrency, double seconds) {
  PhaseResult res;
  res.name = name;
  CURLM* multi = curl_multi_init();
  struct Slot {
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    Clock::time_point start;
  };
  std::vector<Slot> slots(concurrency);
  size_t next = 0, active = 0;
  auto launch = [&](Slot& s) {
    if (next >= requests.size()) return false;
    const Request& r = requests[next++];
    if (s.headers) curl_slist_free_all(s.headers);
    s.headers = nullptr;
    for (const auto& h : r.headers) s.headers = curl_slist_append(s.headers, h.c_str());
    if (!s.easy) s.easy = curl_easy_init();
    curl_easy_setopt(s.easy, CURLOPT_URL, url.c_str());
    curl_easy_setopt(s.easy, CURLOPT_POST, 1L);
    curl_easy_setopt(s.easy, CURLOPT_POSTFIELDS, r.body.data());
    curl_easy_setopt(s.easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    curl_easy_setopt(s.easy, CURLOPT_HTTPHEADER, s.headers);
    curl_easy_setopt(s.easy, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(s.easy, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(s.easy, CURLOPT_FORBID_REUSE, 1L);  // a new connection per delivery, like GitHub
    curl_easy_setopt(s.easy, CURLOPT_TIMEOUT_MS, 30000L);
    curl_easy_setopt(s.easy, CURLOPT_PRIVATE, &s);
    s.start = Clock::now();
    curl_multi_add_handle(multi, s.easy);
    ++active;
    return true;
  };
  auto t0 = Clock::now();
  auto deadline = t0 + std::chrono::duration<double>(seconds);
  for (auto& s : slots) launch(s);
  while (active > 0) {
    int running = 0;
    curl_multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Slot* s = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&s));
      long status = 0;
      if (msg->data.result == CURLE_OK) curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &status);
      res.statuses[status]++;
      res.latencies_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s->start).count());
      ++res.done;
      curl_multi_remove_handle(multi, msg->easy_handle);
      --active;
      if (Clock::now() < deadline) launch(*s);
    }
    if (active > 0) curl_multi_poll(multi, nullptr, 0, 50, nullptr);
  }
  res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (auto& s : slots) {
    if (s.easy) curl_easy_cleanup(s.easy);
    if (s.headers) curl_slist_free_all(s.headers);
  }
  curl_multi_cleanup(multi);
  return res;
}

void print(const PhaseResult& r) {
  std::printf("  %-44s %6zu in %6.2f s  %8.1f /s   p50 %7.2f ms   p99 %7.2f ms   [", r.name.c_str(), r.done,
              r.seconds, r.rate(), r.percentile(0.50), r.percentile(0.99));
  bool first = true;
  for (const auto& [status, n] : r.statuses) {
    std::printf("%s%ld:%zu", first ? "" : " ", status, n);
    first = false;
  }
  std::printf("]\n");
}

}  // namespace bb::bench
