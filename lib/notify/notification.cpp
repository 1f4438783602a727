#include "notify/notification.h"

#include <algorithm>

#include "config/notify_config.h"
#include "util/clock.h"

namespace bb::notify {

Status validate(const Notification& n) {
  if (std::find(std::begin(config::kNotifyEvents), std::end(config::kNotifyEvents), n.event) ==
      std::end(config::kNotifyEvents))
    return make_error(Errc::invalid_argument, "unknown notification event '" + n.event + "'");
  if (n.id.empty()) return make_error(Errc::invalid_argument, "a notification needs an id");
  if (n.title.empty()) return make_error(Errc::invalid_argument, "a notification needs a title");
  if (!n.details.is_object()) return make_error(Errc::invalid_argument, "a notification's details must be an object");
  return {};
}

nlohmann::json to_json(const Notification& n, const std::string& box) {
  nlohmann::json j = {{"schema", kSchema},
                      {"id", n.id},
                      {"event", n.event},
                      {"time", format_utc(n.time)},
                      {"unix_time", n.time},
                      {"box", box},
                      {"title", n.title},
                      {"summary", n.summary},
                      {"details", n.details}};
  j["repository"] = n.repository.empty() ? nlohmann::json(nullptr) : nlohmann::json(n.repository);
  j["url"] = n.url.empty() ? nlohmann::json(nullptr) : nlohmann::json(n.url);
  return j;
}

Result<Notification> notification_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return make_error(Errc::parse, "a notification must be a JSON object");
  Notification n;
  auto text = [&](const char* key, std::string& out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return {};
    if (!it->is_string()) return make_error(Errc::parse, std::string("notification: '") + key + "' must be a string");
    out = it->get<std::string>();
    return {};
  };
  BB_TRY(text("event", n.event));
  BB_TRY(text("id", n.id));
  BB_TRY(text("repository", n.repository));
  BB_TRY(text("title", n.title));
  BB_TRY(text("summary", n.summary));
  BB_TRY(text("url", n.url));
  if (auto t = j.find("unix_time"); t != j.end()) {
    if (!t->is_number_integer()) return make_error(Errc::parse, "notification: 'unix_time' must be an integer");
    n.time = t->get<int64_t>();
  }
  if (auto d = j.find("details"); d != j.end()) n.details = *d;
  BB_TRY(validate(n));
  return n;
}

}  // namespace bb::notify
