#include "update/apt_text.h"

#include <ctime>

#include "util/text.h"

namespace bb::update {

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

}  // namespace

std::vector<std::string> madison_versions(std::string_view text, std::string_view uri) {
  std::vector<std::string> out;
  std::string want(uri);
  while (!want.empty() && want.back() == '/') want.pop_back();
  for (auto line : lines_of(text)) {
    auto fields = split(line, '|');
    if (fields.size() != 3) continue;
    std::string version = trim(fields[1]);
    std::string where = trim(fields[2]);
    // "file:/srv/archive stable/main amd64 Packages": the URI is the first word.
    std::string source = where.substr(0, where.find(' '));
    while (!source.empty() && source.back() == '/') source.pop_back();
    if (source == want && !version.empty()) out.push_back(version);
  }
  return out;
}

Result<int64_t> release_date(std::string_view release_text) {
  for (auto line : lines_of(release_text)) {
    if (line.substr(0, 5) != "Date:") continue;
    std::string value = trim(line.substr(5));
    std::tm tm{};
    const char* end = ::strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S", &tm);
    if (!end) return make_error(Errc::parse, "the index's Date '" + value + "' is not an RFC 2822 date");
    std::string zone = trim(end);
    if (zone != "UTC" && zone != "GMT" && zone != "+0000" && zone != "Z")
      return make_error(Errc::parse, "the index's Date '" + value + "' is not in UTC");
    return static_cast<int64_t>(::timegm(&tm));
  }
  return make_error(Errc::parse, "the index has no Date field");
}

Error apt_failure(std::string_view output, const std::string& what) {
  static const char* const kTrust[] = {
      "NO_PUBKEY", "is not signed", "BADSIG", "EXPKEYSIG", "REVKEYSIG", "signatures were invalid",
      "signatures couldn't be verified", "is expired", "is not valid yet", "Hash Sum mismatch",
      "Size mismatch", "unexpected size", "Clearsigned file isn't valid", "NOSPLIT"};
  // The most telling line: the GPG error (it names the key), then an E: or
  // W: line about trust, then any line about trust, then the first E: or
  // W:, then the first Err:.
  std::string best;
  int best_score = -1;
  bool trust = false;
  for (auto line : lines_of(output)) {
    std::string l = trim(line);
    bool gpg = l.rfind("W: GPG error", 0) == 0;
    bool e = l.rfind("E: ", 0) == 0 || l.rfind("W: ", 0) == 0;
    bool err = l.rfind("Err:", 0) == 0;
    bool this_trust = false;
    for (const char* t : kTrust) this_trust = this_trust || contains(l, t);
    if (!gpg && !e && !err && !this_trust) continue;
    int score = gpg ? 4 : (e && this_trust) ? 3 : this_trust ? 2 : e ? 1 : 0;
    if (score > best_score) {
      best = l;
      best_score = score;
    }
    trust = trust || this_trust;
  }
  if (best.empty()) best = what;
  return make_error(trust ? Errc::invalid_argument : Errc::unavailable, best);
}

Result<Source> parse_sources(std::string_view text, const std::string& name) {
  Source s;
  for (auto line : lines_of(text)) {
    std::string l = trim(line);
    if (l.empty()) {
      if (!s.uri.empty()) break;  // the first stanza only
      continue;
    }
    if (l[0] == '#') continue;
    auto take = [&](const char* key, std::string& out) {
      std::string k = std::string(key) + ":";
      if (l.rfind(k, 0) != 0) return;
      std::string v = trim(l.substr(k.size()));
      out = v.substr(0, v.find(' '));  // the first of several
    };
    take("URIs", s.uri);
    take("Suites", s.suite);
  }
  if (s.uri.empty() || s.suite.empty())
    return make_error(Errc::invalid_argument, name + ": needs URIs: and Suites: (a deb822 .sources file)");
  return s;
}

}  // namespace bb::update
