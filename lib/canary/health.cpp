#include "canary/health.h"

#include <cmath>
#include <cstdio>
#include <deque>

#include "stats/describe.h"
#include "stats/distributions.h"

namespace bb::canary {

namespace {

// How far a run is from a baseline: per workload, the largest |log ratio|.
struct Distance {
  std::string workload;
  double ratio = 1;
  double band = 0;
  bool outside = false;
};

// How much wider than a full baseline's the band is while fewer runs are
// known: the ratio of Student's t quantiles with n-1 and N-1 degrees of
// freedom, at the level spread_k stands for (spread_k × the MAD is
// spread_k / 1.4826 standard deviations of a normal). With 20 as the full
// baseline: 3 runs ×3.9, 5 ×1.7, 10 ×1.15. Without it, three runs close by
// chance gave a box that moves ±9 % the 3 % floor; only runs inside that
// joined the baseline, so it never learned otherwise, and the box stayed
// "shifted" for good.
double small_baseline_factor(size_t n, const HealthOptions& o) {
  if (n >= o.baseline_runs || n < 2 || o.baseline_runs < 2) return 1;
  const double q = stats::normal_cdf(o.spread_k / 1.4826);
  const double f =
      stats::student_t_quantile(q, double(n - 1)) / stats::student_t_quantile(q, double(o.baseline_runs - 1));
  return std::isfinite(f) && f > 1 ? f : 1;
}

class Baseline {
 public:
  explicit Baseline(const HealthOptions& o) : o_(o) {}

  bool ready() const { return runs_.size() >= o_.min_baseline; }
  void add(const Run& r) {
    runs_.push_back(&r);
    if (runs_.size() > o_.baseline_runs) runs_.pop_front();
  }
  void restart() { runs_.clear(); }

  // `r` against the baseline; workloads the baseline does not know are
  // not judged (a new workload starts its own history).
  Distance distance(const Run& r) const {
    Distance worst;
    double worst_excess = -INFINITY;
    for (const auto& [name, value] : r.medians) {
      std::vector<double> logs;
      for (const Run* b : runs_)
        if (auto it = b->medians.find(name); it != b->medians.end() && it->second > 0)
          logs.push_back(std::log(it->second));
      if (logs.size() < o_.min_baseline || !(value > 0)) continue;
      const double level = stats::median(logs);
      const double band = small_baseline_factor(logs.size(), o_) *
                          std::max(std::log1p(o_.min_band), o_.spread_k * stats::mad(logs));
      const double off = std::log(value) - level;
      const double excess = std::fabs(off) - band;
      if (excess > worst_excess) {
        worst_excess = excess;
        worst = {name, std::exp(off), std::expm1(band), excess > 0};
      }
    }
    return worst;
  }

 private:
  const HealthOptions& o_;
  std::deque<const Run*> runs_;
};

// Whether the runs agree with each other: each inside the band of their
// own baseline.
bool agree(const std::vector<const Run*>& runs, const HealthOptions& o) {
  Baseline own(o);
  for (const Run* r : runs) own.add(*r);
  for (const Run* r : runs)
    if (own.distance(*r).outside) return false;
  return true;
}

}  // namespace

const char* to_string(Level l) {
  switch (l) {
    case Level::learning: return "learning";
    case Level::steady: return "steady";
    case Level::shifted: return "shifted";
  }
  return "learning";
}

Health judge(const std::vector<Run>& runs, const HealthOptions& o, const std::function<void(const Health&)>& each) {
  Health h;
  h.shift_runs = std::max<size_t>(o.shift_runs, 1);
  Baseline base(o);
  std::vector<const Run*> outside;  // the shift's runs, in order
  std::vector<const Run*> suspect;  // steady, runs outside in a row, fewer than shift_runs
  size_t back = 0;                  // runs back inside since the last one outside
  // One run judged: h as it stands after `r`.
  auto step = [&](const Run& r) {
    ++h.runs;
    if (h.since == 0) h.since = r.time;
    if (!base.ready()) {
      base.add(r);
      if (base.ready()) {
        h.level = Level::steady;
        h.since = r.time;
        const Distance d = base.distance(r);  // the band it learned, and where this run sits in it
        h.workload = d.workload;
        h.ratio = d.ratio;
        h.band = d.band;
      }
      return;
    }
    const Distance d = base.distance(r);
    h.workload = d.workload;
    h.ratio = d.ratio;
    h.band = d.band;
    if (h.level == Level::steady) {
      if (!d.outside) {
        // A lone run outside was the box's own noise: it joins the
        // baseline too, or the band would only ever learn the runs
        // inside it and never widen to the box's real spread.
        for (const Run* s : suspect) base.add(*s);
        suspect.clear();
        base.add(r);
        return;
      }
      suspect.push_back(&r);
      if (suspect.size() < h.shift_runs) return;
      h.level = Level::shifted;
      h.since = suspect.front()->time;
      h.new_level = false;
      outside = suspect;
      suspect.clear();
      back = 0;
      return;
    }
    // Shifted.
    if (!d.outside) {
      if (++back >= o.back_runs) {
        h.level = Level::steady;
        h.since = r.time;
        base.add(r);
      }
      return;
    }
    back = 0;
    outside.push_back(&r);
    if (outside.size() > o.new_level_runs) outside.erase(outside.begin());
    if (outside.size() == o.new_level_runs && r.time - outside.front()->time >= o.new_level_seconds &&
        agree(outside, o)) {
      // It stays where it went: the new level is the box's.
      base.restart();
      for (const Run* n : outside) base.add(*n);
      h.level = Level::steady;
      h.new_level = true;
      h.since = r.time;
      h.ratio = 1;
      outside.clear();
    }
  };
  for (const Run& r : runs) {
    step(r);
    h.outside = h.level == Level::steady ? suspect.size() : 0;
    if (each) each(h);
  }
  return h;
}

std::string Health::describe() const {
  char buf[256];
  switch (level) {
    case Level::learning:
      std::snprintf(buf, sizeof buf, "learning (%zu canary run%s so far)", runs, runs == 1 ? "" : "s");
      break;
    case Level::steady:
      if (outside > 0)
        std::snprintf(buf, sizeof buf,
                      "steady%s, but the last run is outside: %s ×%.3f, band ±%.1f%% (%zu of %zu in a row shift it)",
                      new_level ? " at a new level" : "", workload.c_str(), ratio, band * 100, outside, shift_runs);
      else
        std::snprintf(buf, sizeof buf, "steady%s (last run ×%.3f, band ±%.1f%%)", new_level ? " at a new level" : "",
                      ratio, band * 100);
      break;
    case Level::shifted:
      std::snprintf(buf, sizeof buf, "shifted: %s ×%.3f, outside its band of ±%.1f%%", workload.c_str(), ratio,
                    band * 100);
      break;
  }
  return buf;
}

}  // namespace bb::canary
