// How each kind of destination receives a notification: the generic
// webhook gets the JSON document signed as GitHub signs its deliveries,
// Slack and Matrix (hookshot-style) incoming webhooks get text they show
// as it is, and email gets a plain-text message for sendmail.
#include <ctime>

#include "config/notify_config.h"
#include "github/signature.h"
#include "notify/notification.h"
#include "util/text.h"
#include "util/version.h"

namespace bb::notify {

namespace {

// Slack's mrkdwn: only these three are special in text.
std::string slack_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

// HTML-escaped, its line breaks as <br>.
std::string html_lines(std::string_view s) {
  std::string out;
  for (char c : html_escape(s)) {
    if (c == '\n') out += "<br>";
    else out += c;
  }
  return out;
}

std::string plain_text(const Notification& n, const std::string& box) {
  std::string t = n.title;
  if (!n.summary.empty()) t += "\n" + n.summary;
  if (!n.url.empty()) t += "\n" + n.url;
  return t + "\n(benchbox on " + box + ")";
}

HttpPost json_post(const config::NotifyDestination& d, const nlohmann::json& body) {
  HttpPost p;
  p.url = d.url;
  p.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  p.headers = {{"Content-Type", "application/json"}, {"User-Agent", std::string("benchbox/") + version()}};
  return p;
}

// One header line's value: no line breaks (they would start a header of
// the sender's choosing), no control characters.
std::string header_value(std::string_view s) {
  std::string out;
  for (unsigned char c : s) out += c < ' ' || c == 0x7f ? ' ' : char(c);
  return out;
}

// RFC 2047: a subject that is not ASCII, as encoded words of at most 75
// characters, folded onto continuation lines.
std::string encode_subject(const std::string& s) {
  bool ascii = true;
  for (unsigned char c : s) ascii = ascii && c < 0x80;
  if (ascii) return s;
  std::string out;
  std::string_view rest = s;
  while (!rest.empty()) {
    std::string_view part = utf8_prefix(rest, 45);  // 45 bytes: 60 in base64, 72 with the markers
    if (part.empty()) part = rest.substr(0, 1);     // not UTF-8: one byte at a time, still encoded
    out += (out.empty() ? "" : "\n ") + std::string("=?UTF-8?B?") + base64(part) + "?=";
    rest.remove_prefix(part.size());
  }
  return out;
}

// RFC 5322's date, in English whatever the locale.
std::string mail_date(int64_t unix_seconds) {
  static const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday], tm.tm_mday,
                kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

// The text's lines, each within SMTP's 998 bytes.
std::string mail_body(std::string_view text) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out += std::string(utf8_prefix(line, 990)) + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace

Result<HttpPost> render_http(const Notification& n, const config::NotifyDestination& d, std::string_view secret,
                             const std::string& box) {
  BB_TRY(validate(n));
  if (d.kind == "webhook") {
    if (secret.empty())
      return make_error(Errc::invalid_argument,
                        "webhook destination '" + d.name + "': its secret (credential '" + d.secret_credential +
                            "') is empty");
    HttpPost p = json_post(d, to_json(n, box));
    p.headers.emplace_back(kEventHeader, n.event);
    p.headers.emplace_back(kDeliveryHeader, header_value(n.id));
    p.headers.emplace_back(kSignatureHeader, github::sign(secret, p.body));
    return p;
  }
  if (d.kind == "slack") {
    std::string text = n.url.empty() ? "*" + slack_escape(n.title) + "*"
                                     : "*<" + slack_escape(n.url) + "|" + slack_escape(n.title) + ">*";
    if (!n.summary.empty()) text += "\n" + slack_escape(n.summary);
    text += "\n_benchbox on " + slack_escape(box) + "_";
    return json_post(d, {{"text", text}});
  }
  if (d.kind == "matrix") {
    std::string html = n.url.empty() ? "<b>" + html_lines(n.title) + "</b>"
                                     : "<b><a href=\"" + html_lines(n.url) + "\">" + html_lines(n.title) + "</a></b>";
    if (!n.summary.empty()) html += "<br>" + html_lines(n.summary);
    html += "<br><i>benchbox on " + html_lines(box) + "</i>";
    return json_post(d, {{"text", plain_text(n, box)}, {"html", html}, {"username", "benchbox"}});
  }
  return make_error(Errc::invalid_argument, "destination '" + d.name + "' (" + d.kind + ") is not reached over HTTP");
}

Result<std::string> render_email(const Notification& n, const config::NotifyDestination& d, const std::string& from,
                                 const std::string& box) {
  BB_TRY(validate(n));
  if (d.kind != "email")
    return make_error(Errc::invalid_argument, "destination '" + d.name + "' (" + d.kind + ") is not an email one");
  if (!config::mail_address(from))
    return make_error(Errc::invalid_argument, "'" + from + "' is not one sender address");
  std::string to;
  for (const auto& a : d.to) to += (to.empty() ? "" : ", ") + header_value(a);
  std::string m;
  m += "From: benchbox <" + from + ">\n";
  m += "To: " + to + "\n";
  m += "Subject: " + encode_subject("[benchbox] " + header_value(n.title)) + "\n";
  m += "Date: " + mail_date(n.time) + "\n";
  // The same event to the same destination has the same id: a mail that is
  // sent again after a lost answer threads with (and is known as) the first.
  m += "Message-ID: <" + sha256_hex(n.id + "\n" + d.name).substr(0, 32) + "@" + header_value(box) + ">\n";
  m += "MIME-Version: 1.0\n";
  m += "Content-Type: text/plain; charset=utf-8\n";
  m += "Content-Transfer-Encoding: 8bit\n";
  m += std::string(kEventHeader) + ": " + n.event + "\n";
  m += std::string(kDeliveryHeader) + ": " + header_value(n.id) + "\n";
  m += "\n";
  std::string text = n.summary.empty() ? n.title : n.title + "\n\n" + n.summary;
  if (!n.url.empty()) text += "\n\n" + n.url;
  text += "\n\n-- \nbenchbox on " + box;
  m += mail_body(text);
  return m;
}

}  // namespace bb::notify
