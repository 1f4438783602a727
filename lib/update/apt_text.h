// Reading what apt and dpkg print, for the self-updater's real Host. Pure:
// text in, values out, so every shape apt produces is tested here and not
// only on a box.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace bb::update {

// Versions in `apt-cache madison PACKAGE` output that come from the source
// whose URI is `uri` ("benchbox | 0.1.1 | file:/srv/archive stable/main amd64 Packages").
std::vector<std::string> madison_versions(std::string_view text, std::string_view uri);

// The Date: field of a Release or InRelease file as unix seconds
// ("Tue, 01 Dec 2026 12:00:00 UTC").
Result<int64_t> release_date(std::string_view release_text);

// The one line of apt's output worth logging, as an error whose code says
// what kind of failure it was: Errc::invalid_argument when apt refused to
// trust something (a signature it cannot verify, an expired or not yet valid
// index, a package that does not match the signed index), Errc::unavailable
// otherwise. `what` prefixes nothing; it is used when apt printed no line.
Error apt_failure(std::string_view output, const std::string& what);

// The URIs: and Suites: of the first stanza of a deb822 .sources file.
struct Source {
  std::string uri;
  std::string suite;
};
Result<Source> parse_sources(std::string_view text, const std::string& name);

}  // namespace bb::update
