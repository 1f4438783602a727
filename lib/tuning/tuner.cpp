#include "tuning/tuner.h"

#include <algorithm>

#include "sys/host.h"
#include "tuning/file_item.h"
#include "tuning/save.h"
#include "util/cpu_list.h"
#include "util/text.h"

namespace bb::tuning {

const char* state_name(State state) {
  switch (state) {
    case State::untuned: return "untuned";
    case State::tuned: return "tuned";
    case State::partial: return "partial";
    case State::drifted: return "drifted";
  }
  return "untuned";
}

std::string fingerprint(const std::vector<Row>& rows, const Roles& roles, const sys::SysFs& fs) {
  std::string text = "benchbox-tuning-fingerprint-v1\n";
  auto info = sys::read_host_info(fs);
  text += "cpu_model=" + (info ? info->cpu_model : "") + "\n";
  text += "microcode=" + (info ? info->microcode : "") + "\n";
  text += "kernel=" + (info ? info->kernel : "") + "\n";
  text += "housekeeping=" + format_cpu_list(roles.housekeeping) + "\n";
  text += "benchmark=" + format_cpu_list(roles.benchmark) + "\n";
  // Values, not verdicts: two hosts with the same effective settings match
  // whatever their profiles asked for.
  for (const auto& r : rows) text += "item " + r.name + "=" + r.actual + "\n";
  return sha256_hex(text);
}

Result<std::unique_ptr<Tuner>> Tuner::create(Options options) {
  if (!options.fs || !options.clock || options.save_path.empty())
    return make_error(Errc::invalid_argument, "tuner needs a filesystem, a clock and a save path");
  auto online = sys::online_cpus(*options.fs);
  if (!online) return online.error().with_context("online CPUs under " + options.fs->describe());
  auto roles = resolve_roles(options.profile, *online);
  if (!roles) return roles.error();
  auto save = load_save(options.save_path);
  if (!save) return save.error();
  std::unique_ptr<Tuner> t(new Tuner(std::move(options)));
  t->roles_ = std::move(*roles);
  t->items_ = make_items(t->options_.profile);
  t->save_ = std::move(*save);
  return t;
}

State Tuner::compute_state(const std::vector<Row>& rows) const {
  if (!save_) return State::untuned;
  bool partial = false;
  for (const auto& r : rows) {
    if (r.advisory || r.ok) continue;
    if (save_->applied_ok.count(r.name)) return State::drifted;
    partial = true;
  }
  return partial ? State::partial : State::tuned;
}

Result<Report> Tuner::check() {
  Report report;
  Context ctx = context();
  for (const auto& item : items_) {
    Row row = item->check(ctx);
    if (!row.ok) {
      std::string detail = row.reason;
      if (save_ && save_->applied_ok.count(row.name)) {
        row.reason = "drifted: held after Apply, changed since" + (detail.empty() ? "" : "; " + detail);
      } else if (auto e = apply_errors_.find(row.name); e != apply_errors_.end() && !e->second.empty()) {
        row.reason = "could not apply: " + e->second + (detail.empty() || detail == e->second ? "" : "; " + detail);
      } else if (row.reason.empty()) {
        row.reason = "differs from the profile";
      }
    }
    report.rows.push_back(std::move(row));
  }
  report.fingerprint = fingerprint(report.rows, roles_, *options_.fs);
  report.state = state_ = compute_state(report.rows);
  return report;
}

Result<Report> Tuner::verify(std::vector<Row>* drifted) {
  auto report = check();
  if (!report) return report;
  for (const auto& row : report->rows) {
    auto prev = last_ok_.find(row.name);
    if (drifted && save_ && !row.advisory && !row.ok && prev != last_ok_.end() && prev->second)
      drifted->push_back(row);
    last_ok_[row.name] = row.ok;
  }
  return report;
}

Result<Report> Tuner::apply() {
  Context ctx = context();
  // Every original first, durably, before the first write.
  SaveFile save = save_ ? *save_ : SaveFile{};
  if (!save_) save.saved_at = options_.clock->now_unix();
  for (const auto& item : items_) save.merge(item->originals(ctx));
  if (auto st = store_save(options_.save_path, save); !st) return st.error().with_context("save originals");
  save_ = save;

  apply_errors_.clear();
  for (const auto& item : items_)
    if (std::string err = item->apply(ctx); !err.empty()) apply_errors_[item->name()] = err;

  // What holds now is what later checks call drift when it stops holding.
  save_->applied_ok.clear();
  auto report = check();
  if (!report) return report;
  for (const auto& row : report->rows) {
    if (!row.advisory && row.ok) save_->applied_ok.insert(row.name);
    last_ok_[row.name] = row.ok;
  }
  if (auto st = store_save(options_.save_path, *save_); !st) return st.error().with_context("save originals");
  report->state = state_ = compute_state(report->rows);
  return report;
}

Result<Report> Tuner::restore() {
  if (save_) {
    Context ctx = context();
    std::vector<SaveEntry> failed;
    std::vector<std::string> errors;
    // Newest change first, so layered changes unwind in order.
    for (auto it = save_->entries.rbegin(); it != save_->entries.rend(); ++it) {
      if (auto st = restore_entry(ctx, *it); !st) {
        failed.insert(failed.begin(), *it);
        errors.push_back(st.error().message);
      }
    }
    if (!failed.empty()) {
      save_->entries = failed;
      (void)store_save(options_.save_path, *save_);
      (void)check();
      return make_error(Errc::io, "could not restore " + std::to_string(failed.size()) +
                                      " saved values (kept for the next try): " + join_capped(errors, 3));
    }
    if (auto st = remove_save(options_.save_path); !st) return st.error();
    save_.reset();
    apply_errors_.clear();
  }
  last_ok_.clear();
  return check();
}

}  // namespace bb::tuning
