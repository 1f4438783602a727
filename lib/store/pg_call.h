// One round trip to PostgreSQL that cannot hang: the query is sent and its
// answer waited for with poll() and a deadline, never by libpq's blocking
// PQexec. A server that stops answering (a black-holed link, a half-open
// connection, a stopped VM) costs a daemon at most the deadline, well inside
// its watchdog; the connection is then dropped, and the next call connects
// again (postgres.cpp's ensure_connected).
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::store::pg {

// How long one statement may take, answer included: the server's own
// statement_timeout (set per connection) plus room for the network.
inline constexpr std::chrono::milliseconds kCallDeadline{10000};

// Sends `sql` with `params` (PQsendQueryParams; one statement), or, when
// `params` is null, as a plain query (PQsendQuery; several statements
// allowed), and returns the last result, or the first error result. An
// Errc::unavailable error when the connection fails or the deadline passes.
// The caller owns the result (PQclear).
Result<PGresult*> call(PGconn* conn, const std::string& sql, const std::vector<const char*>* params,
                       std::chrono::milliseconds deadline = kCallDeadline);

// The same for a statement prepared on this connection: PQsendPrepare of
// `sql` as `name` (when `sql` is given), then PQsendQueryPrepared.
Result<PGresult*> prepare(PGconn* conn, const std::string& name, const std::string& sql, int params,
                          std::chrono::milliseconds deadline = kCallDeadline);
Result<PGresult*> call_prepared(PGconn* conn, const std::string& name, const std::vector<const char*>& params,
                                std::chrono::milliseconds deadline = kCallDeadline);

// One statement of a pipeline: prepared on this connection as `name`, or,
// when `name` is empty, `sql` sent unnamed (extended protocol: one
// statement, no "BEGIN; ..." strings).
struct Query {
  std::string name;
  std::string sql;
  std::vector<const char*> params;
};

// Sends every query at once in pipeline mode with one Sync, and waits for
// all their answers: one round trip instead of one per statement. Returns
// each query's result in order (the first error result if it had several);
// once one fails, the server skips the rest (PGRES_PIPELINE_ABORTED) until
// the Sync, as one transaction would. The caller owns the results.
Result<std::vector<PGresult*>> pipeline(PGconn* conn, const std::vector<Query>& queries,
                                        std::chrono::milliseconds deadline = kCallDeadline);

}  // namespace bb::store::pg
