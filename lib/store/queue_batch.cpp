// Group commit: the Enqueues that arrive together share one transaction, so
// they share one commit and its flush. Each commit's flush is most of what
// an Enqueue costs (a third of queued's CPU on SQLite, perf; on PostgreSQL
// the server's WAL flush: 0.96x SQLite with synchronous_commit=off,
// docs/fleet.md).
#include <set>
#include <string_view>

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
    BB_TRY(batch_in_tx(specs, valid, stored));
    return tx->commit();
  };
  if (valid.size() < 2 || !together()) {
    // A failed COMMIT may or may not have stored the batch (a lost
    // connection): enqueuing alone again then finds each job by its replay
    // key, delivery or work, so nothing is queued twice.
    stored.clear();
    for (size_t i : valid) stored.push_back(enqueue_alone(specs[i]));
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

namespace {

// Whether two specs carry the same replay key: the second's statement would
// look the key up before the first's record of it is written (the records
// go after the answers are read), so such a batch runs one statement at a
// time.
bool replay_keys_repeat(const std::vector<model::JobSpec>& specs, const std::vector<size_t>& valid) {
  std::set<std::string_view> keys;
  for (size_t i : valid)
    if (!specs[i].replay_key.empty() && !keys.insert(specs[i].replay_key).second) return true;
  return false;
}

}  // namespace

Status QueueStore::batch_in_tx(const std::vector<model::JobSpec>& specs, const std::vector<size_t>& valid,
                               std::vector<Result<EnqueueResult>>& stored) {
  // The refusals first (a spec naming a group; webhookd's never do).
  std::vector<std::optional<Error>> refused;
  for (size_t i : valid) {
    auto r = check_group_of(specs[i]);
    if (!r) return r.error();
    refused.push_back(std::move(*r));
  }
  // Each spec's answer in order: its refusal, or what `answer_of(k)` stored.
  auto answer_each = [&](auto&& answer_of) -> Status {
    for (size_t k = 0; k < valid.size(); ++k) {
      if (refused[k]) {
        stored.emplace_back(std::move(*refused[k]));
        continue;
      }
      auto result = answer_of(k);
      if (!result) return result.error();
      stored.emplace_back(std::move(*result));
    }
    return {};
  };
  if (db_.backend() != Backend::postgresql || replay_keys_repeat(specs, valid))
    return answer_each([&](size_t k) { return enqueue_checked(specs[valid[k]]); });
  // PostgreSQL: every spec's one statement in one pipeline, one round trip
  // where each was one (the server runs them in order, so a spec finds the
  // job an earlier one of the batch made). Then the answers, in order.
  std::vector<Statement> statements;
  for (size_t k = 0; k < valid.size(); ++k) {
    if (refused[k]) continue;
    auto st = at_once_statement(specs[valid[k]]);
    if (!st) return st.error();
    statements.push_back(std::move(*st));
  }
  BB_TRY(db_.send_together(statements));
  size_t next = 0;
  return answer_each([&](size_t k) { return at_once_answer(statements[next++], specs[valid[k]]); });
}

}  // namespace bb::store
