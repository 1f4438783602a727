#include "store/pg_call.h"

#include <poll.h>
#include <cerrno>
#include <sys/socket.h>

namespace bb::store::pg {

namespace {

using Clock = std::chrono::steady_clock;

std::string last_error(PGconn* c) {
  std::string s = PQerrorMessage(c);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Waits until the socket is ready for `events`; false at the deadline.
bool wait_for(PGconn* c, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{PQsocket(c), events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return true;  // let libpq find and report the socket's error
  }
}

// No answer in time: the connection's state is unknown, so it is closed.
// libpq sees the end of the stream and marks it bad; the next call
// reconnects.
Error abandon(PGconn* c, std::chrono::milliseconds deadline) {
  ::shutdown(PQsocket(c), SHUT_RDWR);
  (void)PQconsumeInput(c);
  return make_error(Errc::unavailable, "no answer from PostgreSQL within " +
                                           std::to_string(deadline.count() / 1000) +
                                           " s: the connection is dropped (the next call connects again)");
}

// Waits for what `sent` (a PQsend* call's result) put on the wire.
Result<PGresult*> answer(PGconn* c, int sent, std::chrono::milliseconds deadline);

}  // namespace

Result<PGresult*> call(PGconn* c, const std::string& sql, const std::vector<const char*>* params,
                       std::chrono::milliseconds deadline) {
  const int sent = params ? PQsendQueryParams(c, sql.c_str(), static_cast<int>(params->size()), nullptr,
                                              params->data(), nullptr, nullptr, 0)
                          : PQsendQuery(c, sql.c_str());
  return answer(c, sent, deadline);
}

Result<PGresult*> prepare(PGconn* c, const std::string& name, const std::string& sql, int params,
                          std::chrono::milliseconds deadline) {
  return answer(c, PQsendPrepare(c, name.c_str(), sql.c_str(), params, nullptr), deadline);
}

Result<PGresult*> call_prepared(PGconn* c, const std::string& name, const std::vector<const char*>& params,
                                std::chrono::milliseconds deadline) {
  return answer(c,
                PQsendQueryPrepared(c, name.c_str(), static_cast<int>(params.size()), params.data(), nullptr, nullptr, 0),
                deadline);
}

namespace {

Result<PGresult*> answer(PGconn* c, int sent, std::chrono::milliseconds deadline) {
  const auto until = Clock::now() + deadline;
  if (!sent) return make_error(Errc::unavailable, "cannot send to PostgreSQL: " + last_error(c));
  // Non-blocking, so a full socket buffer shows as "more to send".
  for (;;) {
    const int f = PQflush(c);
    if (f == 0) break;
    if (f < 0) return make_error(Errc::unavailable, "cannot send to PostgreSQL: " + last_error(c));
    if (!wait_for(c, POLLOUT | POLLIN, until)) return abandon(c, deadline);
    if (!PQconsumeInput(c)) return make_error(Errc::unavailable, "PostgreSQL: " + last_error(c));
  }
  PGresult* kept = nullptr;
  for (;;) {
    while (PQisBusy(c)) {
      if (!wait_for(c, POLLIN, until)) {
        if (kept) PQclear(kept);
        return abandon(c, deadline);
      }
      if (!PQconsumeInput(c)) {
        if (kept) PQclear(kept);
        return make_error(Errc::unavailable, "PostgreSQL: " + last_error(c));
      }
    }
    PGresult* r = PQgetResult(c);
    if (!r) break;
    // The first error is the one to report; later results are dropped.
    const bool kept_failed = kept && PQresultStatus(kept) != PGRES_COMMAND_OK && PQresultStatus(kept) != PGRES_TUPLES_OK;
    if (kept_failed) {
      PQclear(r);
      continue;
    }
    if (kept) PQclear(kept);
    kept = r;
  }
  if (!kept) return make_error(Errc::unavailable, "PostgreSQL: no result: " + last_error(c));
  return kept;
}

}  // namespace

}  // namespace bb::store::pg
