// String helpers the standard library lacks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bb {

std::vector<std::string> split(std::string_view s, char sep);
std::string trim(std::string_view s);
std::string to_hex(const unsigned char* data, size_t len);
std::string to_hex(std::string_view bytes);
// Shell-style glob match ("v*", "release/*"), as fnmatch(3) without flags.
bool glob_match(const std::string& pattern, const std::string& text);
// Exactly `len` hex digits (any case): commit ids, digests.
bool is_hex(std::string_view s, size_t len);
// One /bin/sh word that stands for `s` exactly: 'it'\''s'.
std::string shell_quote(std::string_view s);
// A commit id as reports and pages show it: its first 12 digits.
std::string short_sha(std::string_view sha);
// SHA-256 of bytes as lowercase hex (OpenSSL), for fingerprints and config hashes.
std::string sha256_hex(std::string_view bytes);

}  // namespace bb
