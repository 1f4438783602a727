#include "store/pg_call.h"

#include <poll.h>

#include <algorithm>
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

// Sends what libpq holds for the server; false with `error` set when the
// connection failed or the deadline passed.
bool flush_all(PGconn* c, Clock::time_point until, std::chrono::milliseconds deadline, Error& error) {
  for (;;) {
    const int f = PQflush(c);
    if (f == 0) return true;
    if (f < 0) {
      error = make_error(Errc::unavailable, "cannot send to PostgreSQL: " + last_error(c));
      return false;
    }
    if (!wait_for(c, POLLOUT | POLLIN, until)) {
      error = abandon(c, deadline);
      return false;
    }
    if (!PQconsumeInput(c)) {
      error = make_error(Errc::unavailable, "PostgreSQL: " + last_error(c));
      return false;
    }
  }
}

// The next result, waiting for it with the deadline. Null is libpq's own
// "this query's results are done" (or no more at all).
Result<PGresult*> next_result(PGconn* c, Clock::time_point until, std::chrono::milliseconds deadline) {
  while (PQisBusy(c)) {
    if (!wait_for(c, POLLIN, until)) return abandon(c, deadline);
    if (!PQconsumeInput(c)) return make_error(Errc::unavailable, "PostgreSQL: " + last_error(c));
  }
  return PQgetResult(c);
}

bool failed(PGresult* r) {
  const ExecStatusType s = PQresultStatus(r);
  return s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK;
}

// Takes `r`, one of a statement's results, into `slot`, which keeps the
// one to report: the first error, else the last.
void keep(PGresult*& slot, PGresult* r) {
  if (slot && failed(slot)) {
    PQclear(r);
    return;
  }
  if (slot) PQclear(slot);
  slot = r;
}

// Owns a pipeline's results until they are handed over.
struct Results {
  std::vector<PGresult*> list;
  ~Results() {
    for (PGresult* r : list)
      if (r) PQclear(r);
  }
};

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

Result<std::vector<PGresult*>> send_pipeline(PGconn* c, const std::vector<Query>& queries,
                                             std::chrono::milliseconds deadline) {
  const auto until = Clock::now() + deadline;
  if (PQenterPipelineMode(c) != 1)
    return make_error(Errc::unavailable, "cannot enter pipeline mode: " + last_error(c));
  for (const Query& q : queries) {
    const int n = static_cast<int>(q.params.size());
    const int sent = q.name.empty()
                         ? PQsendQueryParams(c, q.sql.c_str(), n, nullptr, q.params.data(), nullptr, nullptr, 0)
                         : PQsendQueryPrepared(c, q.name.c_str(), n, q.params.data(), nullptr, nullptr, 0);
    if (!sent) return make_error(Errc::unavailable, "cannot send to PostgreSQL: " + last_error(c));
  }
  if (PQpipelineSync(c) != 1) return make_error(Errc::unavailable, "cannot send to PostgreSQL: " + last_error(c));
  Error error;
  if (!flush_all(c, until, deadline, error)) return error;
  // Each query's results end with a null; the Sync's own result ends all.
  // A connection that fails mid-way yields nulls only: counted, they end
  // the loop too.
  Results results;
  results.list.assign(queries.size(), nullptr);
  size_t at = 0;
  for (;;) {
    auto r = next_result(c, until, deadline);
    if (!r) return r.error();
    if (!*r) {
      if (++at > queries.size())
        return make_error(Errc::unavailable, "PostgreSQL: the pipeline ended without its answer: " + last_error(c));
      continue;
    }
    if (PQresultStatus(*r) == PGRES_PIPELINE_SYNC) {
      PQclear(*r);
      break;
    }
    keep(results.list[std::min(at, queries.size() - 1)], *r);
  }
  // (pipeline() drops the connection on these errors.)
  if (PQexitPipelineMode(c) != 1)
    return make_error(Errc::unavailable, "PostgreSQL: cannot leave pipeline mode: " + last_error(c));
  if (std::find(results.list.begin(), results.list.end(), nullptr) != results.list.end())
    return make_error(Errc::unavailable, "PostgreSQL: a pipelined statement got no answer: " + last_error(c));
  std::vector<PGresult*> out;
  out.swap(results.list);
  return out;
}

}  // namespace

Result<std::vector<PGresult*>> pipeline(PGconn* c, const std::vector<Query>& queries,
                                        std::chrono::milliseconds deadline) {
  if (queries.empty()) return std::vector<PGresult*>();
  auto out = send_pipeline(c, queries, deadline);
  // A pipeline broken off half-way leaves libpq expecting answers the
  // caller will never read: drop the connection, the next call connects.
  if (!out && PQpipelineStatus(c) != PQ_PIPELINE_OFF) {
    ::shutdown(PQsocket(c), SHUT_RDWR);
    (void)PQconsumeInput(c);
  }
  return out;
}

namespace {

Result<PGresult*> answer(PGconn* c, int sent, std::chrono::milliseconds deadline) {
  const auto until = Clock::now() + deadline;
  if (!sent) return make_error(Errc::unavailable, "cannot send to PostgreSQL: " + last_error(c));
  // Non-blocking, so a full socket buffer shows as "more to send".
  Error error;
  if (!flush_all(c, until, deadline, error)) return error;
  PGresult* kept = nullptr;
  for (;;) {
    auto r = next_result(c, until, deadline);
    if (!r) {
      if (kept) PQclear(kept);
      return r.error();
    }
    if (!*r) break;
    keep(kept, *r);
  }
  if (!kept) return make_error(Errc::unavailable, "PostgreSQL: no result: " + last_error(c));
  return kept;
}

}  // namespace

}  // namespace bb::store::pg
