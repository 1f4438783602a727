/* benchbox dashboard: the box health page (data-page "box", data/box.js,
 * lib/report/box_page.h): what the box's own measurements say about it.
 * The canary's level (steady, shifted or learning) with its band and its
 * runs drawn over time, each workload's spread within its latest run, the
 * tuning the newest job ran under, what each suite resolves in its newest
 * comparison, and the regressions held while the canary said the box had
 * shifted (confirmed once it is steady again). */
(function (benchbox) {
  "use strict";

  const { h, link, muted, section, table, td, code, badge, fmtTime, fmtPct, isNum, header, brand,
    regressionsTable } = benchbox._;

  const LEVEL_BADGE = { steady: "tuned", shifted: "regressed", learning: "recorded" };
  const COLOURS = ["#2563eb", "#d97706", "#059669", "#7c3aed"];

  function fmtMs(s) { return isNum(s) ? (s * 1000).toFixed(s < 0.01 ? 3 : 1) + " ms" : "–"; }

  // Each workload's runs as a ratio to its median over the runs shown, so
  // the two workloads share one axis ("1.00" is the box's usual).
  function drawRuns(holder, runs, workloads) {
    if (runs.length < 2 || typeof uPlot === "undefined") return;
    const xs = runs.map((r) => r.time);
    const cols = workloads.map((w) => {
      const vals = runs.map((r) => (r.medians || {})[w]);
      const sorted = vals.filter(isNum).slice().sort((a, b) => a - b);
      const mid = sorted.length ? sorted[Math.floor(sorted.length / 2)] : null;
      return vals.map((v) => (isNum(v) && mid ? v / mid : null));
    });
    const width = Math.max(320, holder.clientWidth || 900);
    new uPlot({
      width, height: 260,
      scales: { x: { time: true } },
      series: [{}].concat(workloads.map((w, i) => ({
        label: w, stroke: COLOURS[i % COLOURS.length], width: 1.5, points: { show: runs.length < 60 },
        value: (u, v) => (v == null ? "–" : v.toFixed(3) + "×"),
      }))),
      axes: [{}, { label: "× its usual level", values: (u, ticks) => ticks.map((t) => t.toFixed(2)) }],
    }, [xs].concat(cols), holder);
  }

  // The canary series' change points, newest first.
  function changesList(changes) {
    if (!changes.length) return null;
    return [h("h3", null, "Level changes"),
      table(["since", "level", ""], changes.slice(-20).reverse().map((c) => h("tr", null,
        td({ class: "nowrap" }, fmtTime(c.time)), td(null, badge(LEVEL_BADGE[c.level] || "recorded", c.level + (c.new_level ? " (new level)" : ""))),
        td({ class: "note" }, c.describe || ""))), "changes")];
  }

  function canarySection(d) {
    const hl = d.health;
    const runs = ((d.canary || {}).runs || []);
    if (!hl || !runs.length)
      return { card: section("Canary", muted("No canary run yet: runnerd runs it when the runner has been idle for a while, " +
        "before and after each update, and at most every runner.canary_interval.")), draw: null };
    const latest = runs[runs.length - 1];
    const workloads = Object.keys(latest.medians || {}).sort();
    const chart = h("div", { class: "box-chart" });
    const card = section("Canary",
      h("p", null, badge(LEVEL_BADGE[hl.level] || "recorded", hl.level), " ", hl.describe || ""),
      h("p", { class: "muted" }, "A run outside ±" + (isNum(hl.band) ? (hl.band * 100).toFixed(1) : "–") +
        " % of the box's own baseline shifts the box: regressions a push opens then are held, not filed, until " +
        "it is steady again. " + hl.runs + " runs judged" + (hl.since ? "; this level since " + fmtTime(hl.since) : "") + "."),
      table(["workload", ["latest median", { class: "num" }], ["CV within the run", { class: "num" }]],
        workloads.map((w) => h("tr", null, td({ class: "key" }, code(w)), td({ class: "num" }, fmtMs(latest.medians[w])),
          td({ class: "num" }, fmtPct((latest.cv || {})[w], 1, false)))), "canary"),
      chart,
      changesList(d.canary.changes || []),
      h("p", { class: "muted small" }, runs.length + " runs since " + fmtTime(runs[0].time) + " · environment " ,
        code((d.canary || {}).environment_key || "–")));
    return { card, draw: () => drawRuns(chart, runs, workloads) };
  }

  function renderBox(app, d) {
    document.title = "box health · benchbox";
    app.appendChild(header([brand(), ["box health"]], "Box health",
      h("p", { class: "muted" }, "generated " + fmtTime(d.generated) + (d.version ? " · benchbox " + d.version : ""))));
    const canary = canarySection(d);
    app.appendChild(canary.card);
    if (canary.draw) canary.draw();

    const t = d.tuning;
    app.appendChild(section("Tuning",
      t ? h("p", null, badge(t.state === "tuned" ? "tuned" : "drifted", t.state), " as the newest job ran (",
        link(t.run_page, "job " + t.job), t.repository ? " of " + t.repository : "", t.time ? ", " + fmtTime(t.time) : "", ").")
        : muted("No job has run with a known tuning state yet.")));

    const suites = d.suites || [];
    app.appendChild(section("What this box resolves",
      suites.length ? [h("p", { class: "muted" }, "Per suite, the median of its benchmarks' smallest detectable change " +
        "in its newest comparison: a change smaller than this is not told apart from noise."),
      table(["repository", "suite", ["resolves", { class: "num" }], "comparison"], suites.map((s) => h("tr", null,
        td(null, s.repository), td({ class: "key" }, code(s.suite)),
        td({ class: "num" }, isNum(s.min_detectable) ? "≥ " + (s.min_detectable * 100).toFixed(1) + " %" : "–"),
        td(null, link(s.run_page, "job " + s.job), s.time ? " · " + fmtTime(s.time) : ""))), "suites")]
        : muted("No comparison yet.")));

    const held = d.held || [];
    app.appendChild(section("Held regressions",
      held.length ? [h("p", { class: "muted" }, "Found while the canary said the box had shifted: confirmed, measuring both " +
        "commits interleaved, once it is steady again, and filed only if still found."), regressionsTable(held)]
        : muted("None held.")));
  }

  Object.assign(benchbox._, { renderBox });
})(window.benchbox = window.benchbox || {});
