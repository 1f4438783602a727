// The durable job queue on SQLite or PostgreSQL: the pure logic behind org.benchbox.Queue1
// (benchbox-queued is only wiring around this). Every mutation is one
// transaction committed (SQLite: IMMEDIATE, synchronous=FULL) before the
// method returns, so whatever a caller was told survives a crash.
//
// On PostgreSQL many boxes share the tables: Claim takes the first queued
// row no other box has locked (FOR UPDATE SKIP LOCKED), a runner's
// transition locks its row, enqueues are serialised by an advisory lock so
// duplicate work is still found, and every change, once committed, NOTIFYs
// kJobsChannel with "ORIGIN JOB_ID" so each box's queued can tell its own bus. Leases are
// compared with each box's clock: the boxes must agree on the time (NTP).
//
// States: queued -> running -> done | failed | cancelled, and
// running -> queued again when a lease expires (attempts+1) until
// max_attempts, then failed. A transition from the wrong state is a
// Errc::conflict naming the state; acting on a cancelled job is
// Errc::cancelled so a runner knows to stop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/job.h"
#include "model/job_group.h"
#include "model/pull_request.h"
#include "store/database.h"
#include "util/clock.h"

namespace bb::store {

struct QueueOptions {
  unsigned default_lease_seconds = 120;  // Claim with lease 0 uses this
  unsigned max_attempts = 3;             // expired leases before a job fails (0 counts as 1)
  uint64_t replay_window_seconds = 7 * 24 * 3600;  // 0: replay keys are not remembered
  std::string origin;  // names this box in change notifications (PostgreSQL)
  // PostgreSQL: every time the queue records (leases above all) comes from
  // the server's clock, so boxes whose own clocks disagree agree on when a
  // lease runs out. queued sets it; tests that drive leases by a fake clock
  // do not.
  bool database_clock = false;
};

// The notification channel of job changes, and the advisory lock enqueues take.
inline constexpr const char* kJobsChannel = "benchbox_jobs";
inline constexpr const char* kEnqueueLock = "queue enqueue";

struct EnqueueResult {
  model::Job job;
  bool created = false;  // false: an existing job matched (replay key, delivery id or same work)
};

struct RecordResult {
  model::PullRequest pr;  // as stored now
  bool changed = true;    // false: its replay key was seen within the window; nothing written
};

struct GroupEnqueueResult {
  model::JobGroup group;              // id 0 when no new job was needed
  std::vector<EnqueueResult> jobs;    // one per spec, in order
};

struct ClaimResult {
  std::optional<model::Job> job;       // nothing queued: empty
  std::vector<model::Job> expired;     // jobs whose lease expiry this claim handled first
};

struct QueueCounts {
  uint32_t queued = 0, running = 0, done = 0, failed = 0, cancelled = 0;
  uint32_t of(model::JobState s) const;
  bool operator==(const QueueCounts&) const = default;
};

class QueueStore {
 public:
  // Opens or creates the queue database and brings its schema up to date.
  // `clock` must outlive the store.
  static Result<QueueStore> open(const Location& where, const Clock& clock, QueueOptions options);
  // A SQLite file.
  static Result<QueueStore> open(const std::string& path, const Clock& clock, QueueOptions options);

  void set_options(QueueOptions options) { options_ = options; }
  const QueueOptions& options() const { return options_; }
  Database& database() { return db_; }

  // Validates the spec (model::validate) and stores it, unless its replay
  // key was accepted for a job within the replay window, a job with the
  // same delivery id exists (any state), or a queued/running job does the
  // same work (repository, kind, head_sha, base_sha, suite; the ref when
  // head_sha is empty): then that job is returned with created=false.
  Result<EnqueueResult> enqueue(const model::JobSpec& spec);
  // Group commit (queue_batch.cpp): each spec as enqueue would store it, in
  // order, all in one transaction, so the specs share one commit's flush.
  // One answer per spec: a spec refused (invalid, an unknown group) is
  // refused alone. When the database fails inside the transaction, nothing
  // of it stays and each spec is enqueued alone, as enqueue would.
  std::vector<Result<EnqueueResult>> enqueue_batch(const std::vector<model::JobSpec>& specs);

  // Expires stale leases, then hands the highest-priority, oldest queued
  // job to `runner` with a lease of `lease_seconds` (0 = the default).
  Result<ClaimResult> claim(const std::string& runner, unsigned lease_seconds);

  // Extends the lease by the job's lease length; returns the new expiry.
  Result<int64_t> heartbeat(int64_t id, const std::string& runner);
  // `result` (the JobResult's JSON, at most model::kMaxResultBytes) is kept with
  // the job in the same transaction; "" keeps none (an older runner).
  Result<model::Job> complete(int64_t id, const std::string& runner, const std::string& result_path,
                              const std::string& result = "");
  // The result a done job was completed with; NotFound when it has none.
  Result<std::string> result(int64_t id);
  Result<model::Job> fail(int64_t id, const std::string& runner, const std::string& reason);
  // queued/running -> cancelled; the runner learns it at its next heartbeat.
  Result<model::Job> cancel(int64_t id, const std::string& reason);

  // Running jobs whose lease ran out go back to queued (attempts+1), or to
  // failed once attempts reach max_attempts. Returns the jobs it changed.
  Result<std::vector<model::Job>> expire_leases();

  Result<model::Job> get(int64_t id);
  // Newest first; state empty = all states; limit 0 = no limit.
  Result<std::vector<model::Job>> list(std::optional<model::JobState> state, uint32_t limit);
  // Jobs with an id above `after_id`, oldest first, at most `limit` (1 to
  // 1000): how a reader pages through every job without missing one.
  Result<std::vector<model::Job>> list_after(int64_t after_id, uint32_t limit);
  Result<std::vector<int64_t>> ids();
  // Jobs created, started or finished at or after `since` (unix seconds),
  // oldest first, at most 10,000: what a box that stopped listening for a
  // while tells its bus once it listens again.
  Result<std::vector<model::Job>> changed_since(int64_t since);
  // Unix seconds: the server's (database_clock on PostgreSQL), else the
  // clock the store was opened with; the latter too when the server cannot
  // be asked (the call that follows will fail on its own).
  int64_t now();
  Result<QueueCounts> counts();

  // Job groups (queue_groups.cpp). enqueue_group validates every spec
  // first (an error names the spec's index and nothing is stored), then in
  // one transaction creates the group and enqueues each spec in it as
  // enqueue does, except that a spec whose work is already queued or
  // running stays with that job (and its group), and, with
  // skip_measured, a spec whose work is already done is skipped. When no
  // spec makes a new job, no group is made (group.id is 0). Every spec
  // must name the group's repository; at most 10,000 specs.
  Result<GroupEnqueueResult> enqueue_group(const model::GroupSpec& group, std::vector<model::JobSpec> specs);
  // What enqueue_group would do, and nothing else: the same checks and
  // matches in a transaction that is then dropped. Per spec: created (its
  // job has id 0), or the job already waiting, running or done.
  Result<GroupEnqueueResult> plan_group(const model::GroupSpec& group, std::vector<model::JobSpec> specs);
  Result<model::JobGroup> get_group(int64_t id);
  // Newest first; limit 0 = no limit.
  Result<std::vector<model::JobGroup>> list_groups(uint32_t limit);
  // The group's jobs, oldest first.
  Result<std::vector<model::Job>> group_jobs(int64_t id);
  // Cancels every queued or running job of the group; returns them.
  Result<std::vector<model::Job>> cancel_group(int64_t id, const std::string& reason);
  Status set_group_step(int64_t id, const std::string& step);

  // Upsert keyed on (repository, number), unless the record's replay key was
  // seen within the replay window (then nothing changes).
  Result<RecordResult> record_pull_request(const model::PullRequest& pr);
  Result<model::PullRequest> get_pull_request(const std::string& repository, int64_t number);

  QueueStore(QueueStore&&) = default;
  QueueStore& operator=(QueueStore&&) = default;

 private:
  QueueStore(Database db, const Clock& clock, QueueOptions options)
      : db_(std::move(db)), clock_(&clock), options_(options) {}

  // The time, and whether a running job's lease had run out by then: one
  // round trip, the database's clock included (every Claim asks first, and
  // queued every second).
  struct LeaseCheck {
    int64_t now = 0;
    bool any_expired = false;
  };
  Result<LeaseCheck> lease_check();
  // PostgreSQL's Claim in one statement (queue_claim.cpp); nullopt when a
  // lease had run out first (nothing claimed).
  Result<std::optional<ClaimResult>> claim_at_once(const std::string& runner, unsigned lease);
  // The leases that ran out by `now`, ended (expire_leases() after its check).
  Result<std::vector<model::Job>> expire_stale(int64_t now);
  // lock: hold the row until the transaction ends (PostgreSQL).
  Result<std::optional<model::Job>> find(int64_t id, bool lock = false);
  Status notify_changed(int64_t id);
  // A job that already answers `spec`: by its replay key (`replayed`),
  // its delivery, or the same work queued or running.
  struct Existing {
    model::Job job;
    bool replayed = false;
  };
  Result<std::optional<Existing>> find_existing(const model::JobSpec& spec);
  // The newest done job of the same work, for skip_measured.
  Result<std::optional<model::Job>> find_measured(const model::JobSpec& spec);
  // enqueue's checks of the spec alone: model::validate, and no shard.
  Status check_spec(const model::JobSpec& spec);
  // enqueue after check_spec: its own transaction.
  Result<EnqueueResult> enqueue_alone(const model::JobSpec& spec);
  // enqueue's checks of the spec's group, inside the transaction: the
  // refusal, if any (an error of its own is the database's).
  Result<std::optional<Error>> check_group_of(const model::JobSpec& spec);
  // enqueue after its checks, inside its transaction and the writers' lock.
  Result<EnqueueResult> enqueue_checked(const model::JobSpec& spec);
  // enqueue after validation, inside the caller's transaction.
  Result<EnqueueResult> enqueue_in_tx(const model::JobSpec& spec, bool skip_measured);
  // enqueue_in_tx without skip_measured, on PostgreSQL: the questions and
  // the INSERT in one statement (queue_enqueue.cpp).
  Result<EnqueueResult> enqueue_at_once(const model::JobSpec& spec);
  // enqueue_at_once in two halves: its statement, bound; and, once sent,
  // its answer (the replay record and the notification held for COMMIT).
  Result<Statement> at_once_statement(const model::JobSpec& spec);
  Result<EnqueueResult> at_once_answer(Statement& st, const model::JobSpec& spec);
  // enqueue_batch's specs that passed their checks, inside its
  // transaction; on PostgreSQL their statements go in one pipeline.
  Status batch_in_tx(const std::vector<model::JobSpec>& specs, const std::vector<size_t>& valid,
                     std::vector<Result<EnqueueResult>>& stored);
  Result<GroupEnqueueResult> group_in_tx(const model::GroupSpec& group, std::vector<model::JobSpec> specs, bool commit);
  Result<std::optional<model::JobGroup>> find_group(int64_t id);
  // The job a replay key was accepted for within the window: nullopt when
  // unseen (or older), 0 when it only recorded a pull request.
  Result<std::optional<int64_t>> find_replay(const std::string& key);
  // The oldest acceptance still inside the replay window.
  int64_t replay_since();
  Status remember_replay(const std::string& key, int64_t job_id);
  // Loads job `id` for a runner's transition: it must be running and held by `runner`.
  Result<model::Job> load_held(int64_t id, const std::string& runner, const char* action);
  Result<model::Job> finish(int64_t id, const std::string& runner, model::JobState to,
                            const std::string& result_path, const std::string& error, const std::string& result);

  Database db_;
  const Clock* clock_;
  QueueOptions options_;
  // Within one enqueue or claim, the time asked once (on PostgreSQL with
  // database_clock each now() is a round trip); NowPin in the .cpp.
  std::optional<int64_t> pinned_now_;
};

}  // namespace bb::store
