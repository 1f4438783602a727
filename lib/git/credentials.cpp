#include "git/credentials.h"

#include <string.h>

namespace bb::git {

void FetchCredential::wipe() noexcept {
  // explicit_bzero, not std::fill: the compiler may drop stores to memory
  // that is freed right after (the destructor's case).
  if (!secret.empty()) ::explicit_bzero(secret.data(), secret.size());
  secret.clear();
}

std::string scrub_secret(std::string message, const std::string& secret) {
  if (secret.empty()) return message;
  for (size_t at = message.find(secret); at != std::string::npos; at = message.find(secret, at + 3))
    message.replace(at, secret.size(), "***");
  return message;
}

void CredentialCallback::install(git_remote_callbacks& callbacks) {
  callbacks.credentials = &CredentialCallback::on_credentials;
  callbacks.payload = this;
}

std::string CredentialCallback::failure() const {
  switch (outcome_) {
    case Outcome::needed:
      return "the server needs credentials (a private repository: configure the GitHub App "
             "installation for it, so runnerd can fetch with an installation token)";
    case Outcome::refused:
      return "the server refused the credential (HTTP 401)";
    case Outcome::unsupported:
      return "the server asks for an authentication method other than HTTP basic auth";
    case Outcome::none:
    case Outcome::offered:
      break;
  }
  return {};
}

// A C callback: no exception may reach libgit2's frames.
int CredentialCallback::on_credentials(git_credential** out, const char*, const char*,
                                       unsigned int allowed_types, void* payload) noexcept {
  try {
    return static_cast<CredentialCallback*>(payload)->handle(out, allowed_types);
  } catch (...) {
    git_error_set_str(GIT_ERROR_CALLBACK, "credentials callback failed");
    return GIT_EUSER;
  }
}

int CredentialCallback::handle(git_credential** out, unsigned int allowed_types) {
  ++calls_;
  if (!credential_) {
    // libgit2 turns the passthrough into GIT_EAUTH; fetch reports failure().
    outcome_ = Outcome::needed;
    return GIT_PASSTHROUGH;
  }
  if (!(allowed_types & GIT_CREDENTIAL_USERPASS_PLAINTEXT)) {
    // SSH keys, Negotiate, NTLM: nothing we can offer; let libgit2 decide.
    if (outcome_ == Outcome::none) outcome_ = Outcome::unsupported;
    return GIT_PASSTHROUGH;
  }
  if (outcome_ == Outcome::offered || outcome_ == Outcome::refused) {
    // Asked again within this fetch: the server said 401 to our token.
    // Offering it again would only loop until libgit2's replay limit.
    outcome_ = Outcome::refused;
    git_error_set_str(GIT_ERROR_NET, "the server refused the credential (HTTP 401)");
    return GIT_EUSER;
  }
  outcome_ = Outcome::offered;
  return git_credential_userpass_plaintext_new(out, credential_->username.c_str(),
                                               credential_->secret.c_str());
}

}  // namespace bb::git
