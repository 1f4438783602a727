// Job groups in the queue: a backfill's or a bisection's jobs, made in one
// transaction, listed with their counts and cancelled together.
#include "store/queue_schema.h"
#include "store/queue_store.h"

namespace bb::store {

using model::Job;
using model::JobGroup;

namespace {

constexpr size_t kMaxGroupSpecs = 10000;

constexpr const char* kGroupColumns =
    "g.id, g.kind, g.repository, g.description, g.requested_by, g.skip_measured, g.created, g.step,"
    " (SELECT COUNT(*) FROM jobs j WHERE j.group_id = g.id AND j.group_id != 0 AND j.state = 'queued'),"
    " (SELECT COUNT(*) FROM jobs j WHERE j.group_id = g.id AND j.group_id != 0 AND j.state = 'running'),"
    " (SELECT COUNT(*) FROM jobs j WHERE j.group_id = g.id AND j.group_id != 0 AND j.state = 'done'),"
    " (SELECT COUNT(*) FROM jobs j WHERE j.group_id = g.id AND j.group_id != 0 AND j.state = 'failed'),"
    " (SELECT COUNT(*) FROM jobs j WHERE j.group_id = g.id AND j.group_id != 0 AND j.state = 'cancelled')";

JobGroup group_from_row(const Statement& row) {
  JobGroup g;
  g.id = row.column_int64(0);
  g.spec.kind = model::group_kind_from_string(row.column_text(1)).value_or(model::GroupKind::backfill);
  g.spec.repository = row.column_text(2);
  g.spec.description = row.column_text(3);
  g.spec.requested_by = row.column_text(4);
  g.spec.skip_measured = row.column_int64(5) != 0;
  g.created = row.column_int64(6);
  g.step = row.column_text(7);
  g.queued = static_cast<uint32_t>(row.column_int64(8));
  g.running = static_cast<uint32_t>(row.column_int64(9));
  g.done = static_cast<uint32_t>(row.column_int64(10));
  g.failed = static_cast<uint32_t>(row.column_int64(11));
  g.cancelled = static_cast<uint32_t>(row.column_int64(12));
  return g;
}

Error no_group(int64_t id) { return make_error(Errc::not_found, "no job group " + std::to_string(id)); }

}  // namespace

Result<std::optional<JobGroup>> QueueStore::find_group(int64_t id) {
  auto st = db_.prepare(std::string("SELECT ") + kGroupColumns + " FROM job_groups g WHERE g.id = ?");
  if (!st) return st.error();
  st->bind(1, id);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<JobGroup>();
  return std::optional<JobGroup>(group_from_row(*st));
}

Result<JobGroup> QueueStore::get_group(int64_t id) {
  auto g = find_group(id);
  if (!g) return g.error();
  if (!*g) return no_group(id);
  return std::move(**g);
}

namespace {

// A shards group is one suite's shards 1 to N, each once, and nothing
// else; no other group holds a shard. So the group's jobs are the whole
// manifest of what the suite is to measure.
Status check_shards(const model::GroupSpec& group, const std::vector<model::JobSpec>& specs) {
  auto bad = [](std::string m) { return Status(make_error(Errc::invalid_argument, std::move(m))); };
  if (group.kind != model::GroupKind::shards) {
    for (const auto& s : specs)
      if (s.shard != 0) return bad("a shard is queued only in a group of kind shards");
    return {};
  }
  if (group.skip_measured) return bad("a shards group measures every shard: skip_measured must be off");
  const model::JobSpec& first = specs.front();
  if (first.shard == 0) return bad("a shards group holds only shards");
  if (static_cast<int64_t>(specs.size()) != first.shards)
    return bad("a shards group holds all " + std::to_string(first.shards) + " shards of its suite, got " +
               std::to_string(specs.size()));
  std::vector<bool> seen(specs.size() + 1, false);
  for (const auto& s : specs) {
    if (s.shard == 0) return bad("a shards group holds only shards");
    if (s.suite != first.suite || s.shards != first.shards || s.head_sha != first.head_sha ||
        s.base_sha != first.base_sha || s.kind != first.kind || s.ref != first.ref)
      return bad("a shards group's shards measure one suite of one job alike");
    if (seen[s.shard]) return bad("shard " + std::to_string(s.shard) + " is in the group twice");
    seen[s.shard] = true;
  }
  return {};
}

}  // namespace

Result<GroupEnqueueResult> QueueStore::enqueue_group(const model::GroupSpec& group,
                                                     std::vector<model::JobSpec> specs) {
  return group_in_tx(group, std::move(specs), true);
}

Result<GroupEnqueueResult> QueueStore::plan_group(const model::GroupSpec& group, std::vector<model::JobSpec> specs) {
  return group_in_tx(group, std::move(specs), false);
}

Result<GroupEnqueueResult> QueueStore::group_in_tx(const model::GroupSpec& group, std::vector<model::JobSpec> specs,
                                                   bool commit) {
  BB_TRY(model::validate(group));
  if (specs.empty()) return make_error(Errc::invalid_argument, "a job group needs at least one job");
  if (specs.size() > kMaxGroupSpecs)
    return make_error(Errc::invalid_argument, "a job group holds at most " + std::to_string(kMaxGroupSpecs) +
                                                  " jobs, got " + std::to_string(specs.size()));
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string which = "job " + std::to_string(i + 1) + " of " + std::to_string(specs.size());
    if (auto st = model::validate(specs[i]); !st) return st.error().with_context(which);
    if (specs[i].repository != group.repository)
      return make_error(Errc::invalid_argument,
                        which + ": measures " + specs[i].repository + ", not the group's " + group.repository);
    if (specs[i].group_id != 0)
      return make_error(Errc::invalid_argument, which + ": group_id is the queue's to set");
    if (!specs[i].delivery_id.empty() || !specs[i].replay_key.empty())
      return make_error(Errc::invalid_argument, which + ": a group's job comes from no delivery");
  }
  BB_TRY(check_shards(group, specs));

  auto tx = Transaction::begin(db_);
  if (!tx) return tx.error();
  BB_TRY(db_.lock_writers(kEnqueueLock));
  const int64_t now = this->now();
  auto ins = db_.prepare(
      "INSERT INTO job_groups (kind, repository, description, requested_by, skip_measured, created)"
      " VALUES (?, ?, ?, ?, ?, ?) RETURNING id");
  if (!ins) return ins.error();
  ins->bind(1, std::string(model::to_string(group.kind))).bind(2, group.repository).bind(3, group.description);
  ins->bind(4, group.requested_by).bind(5, int64_t{group.skip_measured}).bind(6, now);
  auto inserted = ins->step();
  if (!inserted) return inserted.error();
  const int64_t group_id = ins->column_int64(0);
  BB_TRY(ins->run());

  GroupEnqueueResult result;
  bool any_created = false;
  for (auto& spec : specs) {
    spec.group_id = group_id;
    auto r = enqueue_in_tx(spec, group.skip_measured);
    if (!r) return r.error();
    any_created = any_created || r->created;
    result.jobs.push_back(std::move(*r));
  }
  if (!any_created) {
    // Nothing new to run: the transaction is dropped with the group row.
    for (auto& j : result.jobs) j.created = false;
    return result;
  }
  if (!commit) {
    // A plan: the transaction is dropped, and with it every row (and, on
    // PostgreSQL, every NOTIFY) it made; a job that would be new has no id.
    for (auto& j : result.jobs)
      if (j.created) {
        model::Job would;
        would.spec = j.job.spec;
        j.job = std::move(would);
      }
    return result;
  }
  BB_TRY(tx->commit());
  auto g = get_group(group_id);
  if (!g) return g.error();
  result.group = std::move(*g);
  return result;
}

Result<std::vector<JobGroup>> QueueStore::list_groups(uint32_t limit) {
  std::string sql = std::string("SELECT ") + kGroupColumns + " FROM job_groups g ORDER BY g.id DESC";
  if (limit) sql += " LIMIT ?";
  auto st = db_.prepare(sql);
  if (!st) return st.error();
  if (limit) st->bind(1, int64_t{limit});
  std::vector<JobGroup> out;
  for (;;) {
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return out;
    out.push_back(group_from_row(*st));
  }
}

Result<std::vector<Job>> QueueStore::group_jobs(int64_t id) {
  auto g = find_group(id);
  if (!g) return g.error();
  if (!*g) return no_group(id);
  auto st = db_.prepare(std::string("SELECT ") + schema::kJobColumns +
                        " FROM jobs WHERE group_id = ? AND group_id != 0 ORDER BY id");
  if (!st) return st.error();
  st->bind(1, id);
  return schema::read_jobs(*st);
}

Result<std::vector<Job>> QueueStore::cancel_group(int64_t id, const std::string& reason) {
  auto tx = Transaction::begin(db_);
  if (!tx) return tx.error();
  auto g = find_group(id);
  if (!g) return g.error();
  if (!*g) return no_group(id);
  auto pick = db_.prepare(
      std::string("SELECT id FROM jobs WHERE group_id = ? AND group_id != 0 AND state IN ('queued', 'running')"
                  " ORDER BY id") +
      db_.for_update());
  if (!pick) return pick.error();
  pick->bind(1, id);
  std::vector<int64_t> ids;
  for (;;) {
    auto row = pick->step();
    if (!row) return row.error();
    if (!*row) break;
    ids.push_back(pick->column_int64(0));
  }
  // As cancel(): a running job's runner keeps its name and learns it at
  // its next heartbeat.
  auto up = db_.prepare(
      "UPDATE jobs SET state = 'cancelled', error = ?, finished = ?, lease_expires = 0"
      " WHERE group_id = ? AND group_id != 0 AND state IN ('queued', 'running')");
  if (!up) return up.error();
  up->bind(1, reason.empty() ? "cancelled with job group " + std::to_string(id) : reason);
  up->bind(2, now()).bind(3, id);
  BB_TRY(up->run());
  for (int64_t job_id : ids) BB_TRY(notify_changed(job_id));
  BB_TRY(tx->commit());
  std::vector<Job> out;
  for (int64_t job_id : ids) {
    auto job = get(job_id);
    if (!job) return job.error();
    out.push_back(std::move(*job));
  }
  return out;
}

Status QueueStore::set_group_step(int64_t id, const std::string& step) {
  auto up = db_.prepare("UPDATE job_groups SET step = ? WHERE id = ?");
  if (!up) return up.error();
  up->bind(1, step).bind(2, id);
  BB_TRY(up->run());
  if (db_.changes() == 0) return no_group(id);
  return {};
}

}  // namespace bb::store
