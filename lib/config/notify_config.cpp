#include "config/notify_config.h"

#include <algorithm>

#include "config/yaml_read.h"

namespace bb::config {

namespace {

template <size_t N>
bool one_of(const std::string_view (&names)[N], std::string_view s) {
  return std::find(std::begin(names), std::end(names), s) != std::end(names);
}

template <size_t N>
std::string listed(const std::string_view (&names)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) out += (i ? ", " : "") + std::string(names[i]);
  return out;
}

// A credential's name as systemd takes it (LoadCredential=NAME:PATH): no
// slash, no path tricks.
bool credential_name(const std::string& s) {
  if (s.empty() || s.size() > 255 || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}


Status parse_one(const std::string& src, const YAML::Node& n, const std::string& path, NotifyDestination& d) {
  if (!n.IsMap()) return yaml_error(src, n, path, "expected a destination (kind, and url or to)");
  BB_TRY(check_keys(src, n, path, {"name", "kind", "url", "secret", "to", "events"}));
  BB_TRY(read_string(src, n, path, "kind", d.kind));
  if (!one_of(kNotifyKinds, d.kind))
    return yaml_error(src, n["kind"] ? n["kind"] : n, path + ".kind",
                      "expected " + listed(kNotifyKinds) + ", got '" + d.kind + "'");
  d.name = d.kind;
  BB_TRY(read_string(src, n, path, "name", d.name));
  if (d.name.empty()) return yaml_error(src, n["name"], path + ".name", "must not be empty");
  BB_TRY(read_string(src, n, path, "url", d.url));
  BB_TRY(read_string(src, n, path, "secret", d.secret_credential));
  BB_TRY(read_string_list(src, n, path, "to", d.to));
  BB_TRY(read_string_list(src, n, path, "events", d.events));
  for (const auto& e : d.events)
    if (!one_of(kNotifyEvents, e))
      return yaml_error(src, n["events"], path + ".events", "unknown event '" + e + "', expected " + listed(kNotifyEvents));

  if (d.kind == "email") {
    if (d.to.empty()) return yaml_error(src, n, path + ".to", "an email destination needs at least one address");
    for (const auto& a : d.to)
      if (!mail_address(a)) return yaml_error(src, n["to"], path + ".to", "'" + a + "' is not one mail address");
    if (!d.url.empty() || !d.secret_credential.empty())
      return yaml_error(src, n, path, "an email destination takes 'to', not 'url' or 'secret'");
    return {};
  }
  if (d.url.rfind("https://", 0) != 0 && d.url.rfind("http://", 0) != 0)
    return yaml_error(src, n["url"] ? n["url"] : n, path + ".url", "expected an http:// or https:// address");
  if (d.url.find_first_of(" \t\r\n") != std::string::npos)
    return yaml_error(src, n["url"], path + ".url", "must not hold white space");
  if (!d.to.empty()) return yaml_error(src, n["to"], path + ".to", "only an email destination takes 'to'");
  if (d.kind == "webhook") {
    // Signed as GitHub signs its deliveries: a receiver must be able to
    // tell benchbox's messages from anyone's.
    if (!credential_name(d.secret_credential))
      return yaml_error(src, n["secret"] ? n["secret"] : n, path + ".secret",
                        "a webhook destination needs 'secret': the name of a systemd credential of reporterd "
                        "(letters, digits, '-', '_', '.')");
    // Never one of benchbox's own (the GitHub webhook secret, the App key):
    // a receiver would hold a key that signs as GitHub does for us.
    if (d.secret_credential.rfind("notify-", 0) != 0 || d.secret_credential.size() == 7)
      return yaml_error(src, n["secret"], path + ".secret",
                        "'" + d.secret_credential +
                            "': a webhook's credential is named notify-<something> (benchbox-credentials set "
                            "notify-<something> KEY-FILE)");
  } else if (!d.secret_credential.empty()) {
    return yaml_error(src, n["secret"], path + ".secret",
                      "a " + d.kind + " webhook is not signed: its address is its secret");
  }
  return {};
}

}  // namespace

bool mail_address(const std::string& s) {
  const size_t at = s.find('@');
  if (at == 0 || at == std::string::npos || at + 1 == s.size() || s.size() > 254) return false;
  return std::none_of(s.begin(), s.end(), [](unsigned char c) {
    return c <= ' ' || c == ',' || c == ';' || c == '<' || c == '>' || c == '"' || c == 0x7f;
  });
}

Status parse_notify(const std::string& src, const YAML::Node& node, const std::string& path,
                    std::vector<NotifyDestination>& out) {
  if (!node || node.IsNull()) return {};
  if (!node.IsSequence()) return yaml_error(src, node, path, "expected a list of destinations");
  for (size_t i = 0; i < node.size(); ++i) {
    NotifyDestination d;
    const std::string at = path + "[" + std::to_string(i) + "]";
    BB_TRY(parse_one(src, node[i], at, d));
    for (const auto& other : out)
      if (other.name == d.name)
        return yaml_error(src, node[i], at + ".name", "destination '" + d.name + "' is listed twice (give each a name)");
    out.push_back(std::move(d));
  }
  return {};
}

bool wants_event(const NotifyDestination& d, std::string_view event) {
  return d.events.empty() || std::find(d.events.begin(), d.events.end(), event) != d.events.end();
}

}  // namespace bb::config
