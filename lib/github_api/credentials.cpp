#include "github_api/credentials.h"

#include <cstdlib>

#include "util/file.h"
#include "util/text.h"

namespace bb::github_api {

namespace {

std::string how_to_create(const std::string& name) {
  return name == kTokenCredential ? "benchbox-credentials set github-token < TOKEN-FILE"
                                  : "benchbox-credentials set github-app-key FILE.pem";
}

}  // namespace

const char* credential_name(const std::string& mode) {
  return mode == "token" ? kTokenCredential : kAppKeyCredential;
}

Result<Credentials> load_credentials(const std::string& mode, int64_t app_id, const std::string& credentials_dir) {
  if (mode != "app" && mode != "token")
    return make_error(Errc::invalid_argument, "GitHub authentication is '" + mode + "': nothing to load");
  const std::string name = credential_name(mode);
  if (mode == "app" && app_id <= 0)
    return make_error(Errc::invalid_argument, "reporter.github_auth is 'app' but reporter.github_app_id is not set");
  if (credentials_dir.empty())
    return make_error(Errc::invalid_argument,
                      "GitHub authentication is '" + mode + "' but there is no credentials directory " +
                          "($CREDENTIALS_DIRECTORY): give the unit LoadCredentialEncrypted=" + name +
                          " and create the credential with: " + how_to_create(name));
  // 64 KiB is far above any PEM key or token: a larger file is not one.
  auto text = read_file(path_join(credentials_dir, name), 64 << 10);
  if (!text)
    return make_error(Errc::invalid_argument, "cannot read credential " + name + ": " + text.error().message +
                                                  " (create it with: " + how_to_create(name) + ")");
  Credentials c;
  if (mode == "app") {
    if (text->find("PRIVATE KEY-----") == std::string::npos)
      return make_error(Errc::invalid_argument, "credential " + name + " is not a PEM private key (create it with: " +
                                                    how_to_create(name) + ")");
    c.mode = Credentials::Mode::app;
    c.app_id = app_id;
    c.app_key_pem = std::move(*text);
  } else {
    c.mode = Credentials::Mode::token;
    c.token = trim(*text);
    // A token travels in an HTTP header: whitespace or control bytes inside
    // would break the request (or smuggle a header).
    bool clean = !c.token.empty();
    for (unsigned char ch : c.token) clean = clean && ch > 0x20 && ch < 0x7f;
    if (!clean)
      return make_error(Errc::invalid_argument, "credential " + name +
                                                    " is empty or not one token (printable ASCII, no spaces); "
                                                    "create it with: " + how_to_create(name));
  }
  return c;
}

Result<Credentials> load_credentials_from_env(const std::string& mode, int64_t app_id) {
  const char* dir = std::getenv("CREDENTIALS_DIRECTORY");
  return load_credentials(mode, app_id, dir ? dir : "");
}

}  // namespace bb::github_api
