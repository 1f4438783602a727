// String helpers the standard library lacks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bb {

std::vector<std::string> split(std::string_view s, char sep);
std::string trim(std::string_view s);
// & < > " ' as HTML entities: text safe in an element and in a quoted attribute.
std::string html_escape(std::string_view text);
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
// The longest prefix of UTF-8 `text` of at most max_bytes bytes that does
// not end inside a multi-byte character (a cut µ or emoji would make the
// JSON that carries it invalid).
std::string_view utf8_prefix(std::string_view text, size_t max_bytes);
// `text` when it fits in max_bytes; else its utf8_prefix followed by `note`
// ("… cut: the full report is at URL"), the two together within max_bytes.
// GitHub counts its limits in characters, which are never more than bytes.
std::string utf8_cut(std::string_view text, size_t max_bytes, std::string_view note);
// SHA-256 of bytes as lowercase hex (OpenSSL), for fingerprints and config hashes.
std::string sha256_hex(std::string_view bytes);
// Base64 (RFC 4648, with padding), as OpenSSL encodes it.
std::string base64(std::string_view bytes);
// The bytes again; nullopt when `text` is not padded base64.
std::optional<std::string> from_base64(std::string_view text);
// FNV-1a (64 bits) of bytes: a stable, quick hash where nothing is secret
// (seeds, lock keys, shard assignment); the same on every box and build.
inline uint64_t fnv1a64(std::string_view bytes, uint64_t h = 0xcbf29ce484222325ull) {
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace bb
