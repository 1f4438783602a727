// Credentials for fetching private repositories: a GitHub App installation
// token, handed to libgit2 only through its credentials callback
// (git_remote_callbacks.credentials -> git_credential_userpass_plaintext_new).
//
// Why only through the callback: the token then never appears on a command
// line (no `git` child process, so nothing in /proc/<pid>/cmdline or ps),
// in a URL (no https://x-access-token:TOKEN@github.com/..., which libgit2
// and every log line would repeat), in a git config (the remote stays
// anonymous, nothing is written to the cache's config), in a log, or in an
// error message (every message leaving fetch is scrubbed of it). libgit2
// asks for it only when the server answers 401, so a public repository
// never sees it.
#pragma once

#include <git2.h>

#include <string>

namespace bb::git {

// HTTP basic auth for one fetch. GitHub expects the installation token as
// the password with the fixed username "x-access-token".
struct FetchCredential {
  std::string username = "x-access-token";
  std::string secret;

  // Overwrites the secret's bytes, then empties it. Best effort: copies the
  // caller made, moved-from buffers, reallocations and libcurl/OpenSSL
  // buffers are out of reach. (libgit2 zeroes its own copy when it frees
  // the git_credential.)
  void wipe() noexcept;
  ~FetchCredential() { wipe(); }
};

// `message` with every occurrence of `secret` replaced by "***"; an empty
// secret changes nothing. Applied to every error fetch returns, because
// libgit2 messages quote URLs and server replies we do not control.
std::string scrub_secret(std::string message, const std::string& secret);

// The state of libgit2's credentials callback for one fetch. libgit2 calls
// the callback again each time the server rejects what it got (up to its
// replay limit of 15), so the second call means "refused": it fails the
// fetch instead of offering the same token again.
class CredentialCallback {
 public:
  // `credential` may be null (anonymous fetch); it must outlive the fetch.
  // No copy of the secret is kept here, so there is none to wipe.
  explicit CredentialCallback(const FetchCredential* credential) : credential_(credential) {}

  // Points callbacks.credentials/payload at this object.
  void install(git_remote_callbacks& callbacks);

  int calls() const { return calls_; }
  // Why authentication failed, for the error message; empty when libgit2
  // never asked or the credential was accepted.
  std::string failure() const;

 private:
  static int on_credentials(git_credential** out, const char* url, const char* username_from_url,
                            unsigned int allowed_types, void* payload) noexcept;
  int handle(git_credential** out, unsigned int allowed_types);

  enum class Outcome { none, offered, needed, refused, unsupported };
  const FetchCredential* credential_;
  int calls_ = 0;
  Outcome outcome_ = Outcome::none;
};

}  // namespace bb::git
