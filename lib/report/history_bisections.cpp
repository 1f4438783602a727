// Bisections in history.db: one row each, its record as JSON (it is read
// and written whole, a handful of times per job), indexed by group and
// state.
#include "report/history.h"

namespace bb::report {

namespace {

Result<std::optional<Bisection>> one(store::Statement& q) {
  auto row = q.step();
  if (!row) return row.error();
  if (!*row) return std::optional<Bisection>();
  auto b = bisection_from_json(nlohmann::json::parse(q.column_text(0), nullptr, false));
  if (!b) return b.error().with_context("bisection " + std::to_string(q.column_int64(1)));
  b->id = q.column_int64(1);
  return std::optional<Bisection>(std::move(*b));
}

}  // namespace

Status HistoryStore::save_bisection(Bisection& b, int64_t now) {
  if (b.created == 0) b.created = now;
  b.updated = now;
  if (b.id == 0) {
    auto ins = db_.prepare("INSERT INTO bisections (group_id, state, body, updated) VALUES (?, ?, '{}', ?) RETURNING id");
    if (!ins) return ins.error();
    ins->bind(1, b.group_id).bind(2, std::string(to_string(b.state))).bind(3, now);
    auto row = ins->step();
    if (!row) return row.error();
    b.id = ins->column_int64(0);
    BB_TRY(ins->run());
  }
  auto up = db_.prepare("UPDATE bisections SET group_id = ?, state = ?, body = ?, updated = ? WHERE id = ?");
  if (!up) return up.error();
  up->bind(1, b.group_id).bind(2, std::string(to_string(b.state))).bind(3, to_json(b).dump()).bind(4, now);
  up->bind(5, b.id);
  return up->run();
}

Result<std::optional<Bisection>> HistoryStore::bisection(int64_t id) {
  auto q = db_.prepare("SELECT body, id FROM bisections WHERE id = ?");
  if (!q) return q.error();
  q->bind(1, id);
  return one(*q);
}

Result<std::optional<Bisection>> HistoryStore::bisection_by_group(int64_t group_id) {
  if (group_id == 0) return std::optional<Bisection>();
  auto q = db_.prepare("SELECT body, id FROM bisections WHERE group_id = ? ORDER BY id DESC LIMIT 1");
  if (!q) return q.error();
  q->bind(1, group_id);
  return one(*q);
}

Result<std::optional<Bisection>> HistoryStore::bisection_of_regression(int64_t regression_id) {
  if (regression_id == 0) return std::optional<Bisection>();
  // The regression id lives in the record, not in a column: a box keeps a
  // bisection per regression it confirmed, a handful, so they are read
  // newest first until one matches.
  auto q = db_.prepare("SELECT body, id FROM bisections ORDER BY id DESC");
  if (!q) return q.error();
  for (;;) {
    auto b = one(*q);
    if (!b) return b.error();
    if (!*b || (*b)->regression_id == regression_id) return b;
  }
}

Result<std::vector<Bisection>> HistoryStore::active_bisections() {
  auto q = db_.prepare("SELECT body, id FROM bisections WHERE state IN ('confirming', 'bisecting') ORDER BY id");
  if (!q) return q.error();
  std::vector<Bisection> out;
  for (;;) {
    auto b = one(*q);
    if (!b) return b.error();
    if (!*b) return out;
    out.push_back(std::move(**b));
  }
}

}  // namespace bb::report
