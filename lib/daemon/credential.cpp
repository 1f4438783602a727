#include "daemon/credential.h"

#include <cstdlib>

#include "util/file.h"

namespace bb::daemon {

Result<std::string> read_credential(const std::string& name, const std::string& how) {
  const char* dir = std::getenv("CREDENTIALS_DIRECTORY");
  if (!dir || !*dir)
    return make_error(Errc::not_found, "no credential '" + name + "': $CREDENTIALS_DIRECTORY is not set" + how);
  std::string path = path_join(dir, name);
  // 64 KiB is far above any secret or connection string.
  auto text = read_file(path, 64 * 1024);
  if (!text)
    return make_error(Errc::not_found, "cannot read credential '" + name + "' (" + text.error().message + ")" + how);
  std::string value = std::move(*text);
  if (!value.empty() && value.back() == '\n') value.pop_back();
  if (!value.empty() && value.back() == '\r') value.pop_back();
  if (value.empty())
    return make_error(Errc::invalid_argument, "credential '" + name + "' at " + path + " is empty" + how);
  return value;
}

Result<std::string> read_postgres_credential(const std::string& setting, const std::string& unit) {
  return read_credential(kPostgresCredential, "; " + setting +
                                                  " is postgresql: store the connection string with "
                                                  "`benchbox-credentials set postgresql FILE` and give " +
                                                  unit + " LoadCredentialEncrypted=postgresql (docs/fleet.md)");
}

}  // namespace bb::daemon
