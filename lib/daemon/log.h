// Structured logging for daemons (library code never logs). Under systemd,
// entries go to the journal with PRIORITY, SYSLOG_IDENTIFIER, MESSAGE and the
// caller's fields (JOB_ID=, REPOSITORY=, COMMIT=). Without a journal (a
// development shell, the README demo) the same entry is one line on stderr.
#pragma once

#include <initializer_list>
#include <string>
#include <syslog.h>
#include <utility>

namespace bb::daemon {

using Field = std::pair<std::string, std::string>;

// Sets SYSLOG_IDENTIFIER for this process ("benchbox-queued").
void log_init(const std::string& identifier);

void log(int priority, const std::string& message, std::initializer_list<Field> fields = {});

inline void log_info(const std::string& m, std::initializer_list<Field> f = {}) { log(LOG_INFO, m, f); }
inline void log_notice(const std::string& m, std::initializer_list<Field> f = {}) { log(LOG_NOTICE, m, f); }
inline void log_warning(const std::string& m, std::initializer_list<Field> f = {}) { log(LOG_WARNING, m, f); }
inline void log_error(const std::string& m, std::initializer_list<Field> f = {}) { log(LOG_ERR, m, f); }
inline void log_debug(const std::string& m, std::initializer_list<Field> f = {}) { log(LOG_DEBUG, m, f); }

}  // namespace bb::daemon
