// A systemd credential: the file `name` in $CREDENTIALS_DIRECTORY (the unit's
// LoadCredential= / LoadCredentialEncrypted=). One trailing newline (an
// editor's) is dropped. Errors name the credential and end with `how`, the
// sentence that tells the operator how to provide it.
#pragma once

#include <string>

#include "util/result.h"

namespace bb::daemon {

Result<std::string> read_credential(const std::string& name, const std::string& how);

// The fleet's PostgreSQL connection string: the credential "postgresql",
// for `setting` (queue.backend or reporter.backend) in `unit`.
inline constexpr const char* kPostgresCredential = "postgresql";
Result<std::string> read_postgres_credential(const std::string& setting, const std::string& unit);

}  // namespace bb::daemon
