// Group commit: the Enqueues that arrive together share one transaction, so
// they share one commit and its flush. Each commit's flush is most of what
// an Enqueue costs (a third of queued's CPU on SQLite, perf; on PostgreSQL
// the server's WAL flush: 0.96x SQLite with synchronous_commit=off,
// docs/fleet.md).
#include "store/queue_store.h"

namespace bb::store {

std::vector<Result<EnqueueResult>> QueueStore::enqueue_batch(const std::vector<model::JobSpec>& specs) {
  std::vector<Status> checks;
  std::vector<size_t> valid;
  for (size_t i = 0; i < specs.size(); ++i) {
    checks.push_back(check_spec(specs[i]));
    if (checks.back()) valid.push_back(i);
  }

  // The valid specs' answers, in order: in one transaction, or, when the
  // database fails in it, each alone (a failure of one statement aborts a
  // PostgreSQL transaction, and the others' answers must not depend on it).
  std::vector<Result<EnqueueResult>> stored;
  auto together = [&]() -> Status {
    auto tx = Transaction::begin(db_);
    if (!tx) return tx.error();
    BB_TRY(db_.lock_writers(kEnqueueLock));
    for (size_t i : valid) {
      auto refused = check_group_of(specs[i]);
      if (!refused) return refused.error();
      if (*refused) {
        stored.emplace_back(std::move(**refused));
        continue;
      }
      auto result = enqueue_checked(specs[i]);
      if (!result) return result.error();
      stored.emplace_back(std::move(*result));
    }
    return tx->commit();
  };
  if (valid.size() < 2 || !together()) {
    // A failed COMMIT may or may not have stored the batch (a lost
    // connection): enqueuing alone again then finds each job by its replay
    // key, delivery or work, so nothing is queued twice.
    stored.clear();
    for (size_t i : valid) stored.push_back(enqueue(specs[i]));
  }

  std::vector<Result<EnqueueResult>> answers;
  answers.reserve(specs.size());
  size_t next = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (checks[i]) answers.push_back(std::move(stored[next++]));
    else answers.emplace_back(checks[i].error());
  }
  return answers;
}

}  // namespace bb::store
