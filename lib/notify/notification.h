// What benchbox tells people outside GitHub, and how each kind of
// destination receives it (docs/notifications.md). Pure: the reporter
// decides what happened, the sender (later, through the outbox) delivers.
//
// One Notification is one event, named for good by its id: the outbox
// keeps one row per (destination, id), so an event is told once however
// often it is put, across restarts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/appliance.h"
#include "util/result.h"

namespace bb::notify {

// The generic webhook's body schema; bumped on an incompatible change.
inline constexpr const char* kSchema = "benchbox.notification/1";
// The generic webhook's headers, named as GitHub names its own.
inline constexpr const char* kSignatureHeader = "X-Benchbox-Signature-256";
inline constexpr const char* kEventHeader = "X-Benchbox-Event";
inline constexpr const char* kDeliveryHeader = "X-Benchbox-Delivery";

struct Notification {
  std::string event;       // one of config::kNotifyEvents
  std::string id;          // unique per event, e.g. "regression_confirmed:o/r:refs/heads/main:42"
  std::string repository;  // "owner/name"; "" for the box's own events (health, update)
  int64_t time = 0;        // unix seconds
  std::string title;       // one line
  std::string summary;     // plain text, a few lines
  std::string url;         // where to look: the issue, the run page, the box health page; "" = none
  nlohmann::json details = nlohmann::json::object();  // the event's own fields (docs/notifications.md)
};

// Checks what every renderer relies on: a known event, an id, a title.
Status validate(const Notification& n);

// The generic webhook's body, and the outbox's record of a notification.
nlohmann::json to_json(const Notification& n, const std::string& box);
Result<Notification> notification_from_json(const nlohmann::json& j);

struct HttpPost {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// The request a webhook, slack or matrix destination receives. `secret` is
// the webhook's HMAC key (read from its credential); the others take none.
// `box` names the appliance (its host name) in the message.
Result<HttpPost> render_http(const Notification& n, const config::NotifyDestination& d, std::string_view secret,
                             const std::string& box);

// The message an email destination receives, as sendmail -t reads it:
// headers (From, To, Subject, Date, Message-ID, MIME), a blank line, the
// text. Header values are single lines; a non-ASCII subject is RFC 2047
// encoded.
Result<std::string> render_email(const Notification& n, const config::NotifyDestination& d, const std::string& from,
                                 const std::string& box);

}  // namespace bb::notify
