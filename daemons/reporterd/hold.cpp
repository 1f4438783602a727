// Regressions found while the box is not itself (docs/canary.md, "Held
// regressions"): a regression a push opens while the canary says the box
// has shifted is held, not confirmed, filed or told. Its confirmation is
// recorded (the bisection, with the commits and where to fetch them) but
// not queued; when the canary is steady again every held regression still
// open is confirmed, measured on a box that is itself again, and filed only
// if that confirmation still finds it. One a later push already closed is
// refuted, untold.
#include "daemon/log.h"
#include "manager.h"
#include "report/regression.h"
#include "util/text.h"

namespace bb::reporterd {

using daemon::log_info;
using daemon::log_warning;

namespace {

std::string rid(const report::Regression& r) { return std::to_string(r.id); }

}  // namespace

Status Manager::hold_regression(report::Regression& r, const model::Job& job) {
  report::Bisection b = report::confirmation_of(r, job.spec.clone_url);
  BB_TRY(history_.save_bisection(b, clock_.now_unix()));
  r.confirmation = "held";
  r.investigation = "Held: when this was measured the box's canary said " + health_.describe() +
                    ". It is confirmed, measuring `" + short_sha(b.good) + "` and `" + short_sha(b.bad) +
                    "` interleaved, once the box is steady again.\n";
  BB_TRY(history_.save_regression(r));
  log_info("regression " + rid(r) + " held: the box is " + health_.describe(),
           {{"REGRESSION", rid(r)}, {"REPOSITORY", r.repository}, {"COMMIT", b.bad}});
  return {};
}

bool Manager::held(const report::Bisection& b) {
  if (b.regression_id == 0) return false;
  auto r = history_.regression(b.regression_id);
  return r && *r && (*r)->confirmation == "held";
}

void Manager::release_held() {
  auto active = history_.active_bisections();
  if (!active) {
    log_warning("held regressions not released: " + active.error().message);
    return;
  }
  for (auto& b : *active) {
    if (!held(b)) continue;
    auto found = history_.regression(b.regression_id);
    if (!found || !*found) continue;
    report::Regression& r = **found;
    if (!r.open) {
      // Gone before the box was steady (a later push measured it back):
      // nothing to confirm, and no one was told of it.
      b.state = report::BisectionState::refuted;
      b.outcome = "not confirmed: the regression was gone before the box was steady again";
      if (auto st = history_.save_bisection(b, clock_.now_unix()); !st)
        log_warning("held bisection not closed: " + st.error().message, {{"REGRESSION", rid(r)}});
      r.confirmation = "refuted";
      if (auto st = history_.save_regression(r); !st)
        log_warning("held regression " + rid(r) + " not closed: " + st.error().message, {{"REGRESSION", rid(r)}});
      continue;
    }
    r.confirmation = "pending";
    r.investigation = "Confirming: the box is steady again; measuring `" + short_sha(b.good) + "` and `" +
                      short_sha(b.bad) + "` interleaved on the same cores before filing this.\n";
    if (auto st = history_.save_regression(r); !st) {
      log_warning("held regression " + rid(r) + " not released: " + st.error().message, {{"REGRESSION", rid(r)}});
      continue;
    }
    log_info("regression " + rid(r) + " released: the box is steady again, confirming it",
             {{"REGRESSION", rid(r)}, {"REPOSITORY", r.repository}});
    queue_next(b);
  }
}

}  // namespace bb::reporterd
