/* benchbox dashboard: a run's page (data-page "run",
 * data/r/<o>/<n>/runs/<job>.js): its facts, the comparison grouped by
 * verdict (or what a first run recorded), change points, downloads,
 * profiles and how to reproduce it. A pull request's page shows its latest
 * run with the same renderRunBody. */
(function (benchbox) {
  "use strict";

  const { h, link, table, td, muted, section, code, dirOf, isNum, fmtValue, fmtTime, sha,
    commitRange, fmtRatio, pctDecimals, fmtChange, fmtPct, lowerIsBetter, normVerdict,
    VERDICT_LABELS, badge, statusCell, header, brand, load, regressionsTable, flameCard, renderFlames } = benchbox._;

  const MAIN_ORDER = ["regressed", "failed", "missing", "improved", "inconclusive", "not_comparable"];

  function effectWorse(r) {  // > 1 when worse, whatever the direction
    if (!isNum(r.ratio) || r.ratio <= 0) return null;
    return lowerIsBetter(r.direction, r.higher_is_better) ? r.ratio : 1 / r.ratio;
  }
  function byKey(a, b) {
    const ka = a.id || "", kb = b.id || "";
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  }

  // Returns the card of the run's differential flame graphs (or null),
  // placed after the comparison, for the caller to draw them into.
  function renderRunBody(app, d, level) {
    const hx = "h" + level;
    const job = d.job || {};
    const repoDir = dirOf(d.repository_page);
    const repoName = job.repository || (d.comparison && d.comparison.repository) || repoDir.replace(/^r\//, "").replace(/\/$/, "");
    const trend = d.trend_pages || {};
    const keyCell = (id, r) => h("span", null, trend[id] ? link(trend[id], id) : id,
      r && (r.higher_is_better || r.direction === "higher_is_better") ? h("span", { class: "muted", title: "higher is better" }, " ↑") : null);

    const facts = [
      ["repository", link(d.repository_page, repoName)],
      ["kind", String(job.kind || "–").replace("_", " ")],
      ["ref", job.pr_number > 0
        ? [d.pull_page ? link(d.pull_page, "PR #" + job.pr_number) : "PR #" + job.pr_number, job.ref ? [" ", code(job.ref)] : null]
        : code(job.ref || "–")],
      ["head commit", code(d.head_commit || job.head_sha || "–")],
      ["baseline", d.baseline || "–"],
      ["base commit", d.base_commit ? code(d.base_commit) : "–"],
      ["created", job.created ? fmtTime(job.created) : null],
      ["suite", job.suite || null],
      ["environment key", code(d.environment_key || "–")],
      ["machine fingerprint", code(d.machine_fingerprint || "–")],
      // Anything but tuned that tunerd said (untuned, partial, drifted) is a warning.
      ["tuning", badge(d.tuning === "tuned" ? "tuned" : !d.tuning || d.tuning === "unknown" ? "unknown" : "drifted", d.tuning || "unknown")],
      // Whose rights the repository's code had: the runner's own is a warning.
      ["containment", !d.containment ? "not recorded"
        : d.contained === false ? [badge("drifted", "not contained"), " ", d.containment] : d.containment],
    ];
    app.appendChild(h("section", { class: "card run-head" },
      h("div", { class: "overall" }, badge(d.overall), h("span", { class: "summary" }, d.summary || "")),
      h("dl", { class: "facts" }, facts.filter((f) => f[1] != null).map((f) => [h("dt", null, f[0]), h("dd", null, f[1])]))));

    // A sharded suite's page: where its shards stand (docs/benchbox-yml.md).
    const sh = d.shards;
    if (sh && sh.shards) {
      const items = (title, list) => (list || []).length
        ? [h("p", null, title), h("ul", { class: "shards" }, list.map((x) => h("li", null, x)))] : null;
      app.appendChild(section("Shards",
        h("p", null, badge(!sh.finished ? "running" : (sh.lost || []).length ? "failed" : "recorded",
          sh.done + " of " + sh.shards + " shards done")),
        items("Pending:", sh.pending),
        items("Lost (their benchmarks are missing):", sh.lost)));
    }

    // A compare job that confirmed or bisected a regression (docs/bisect.md).
    const bi = d.bisection;
    if (bi && bi.state) {
      const word = { done: "worse", refuted: "not confirmed", failed: "failed", narrowed: "inconclusive" }[bi.state] || "recorded";
      const label = bi.state === "refuted" ? "not confirmed" : bi.state === "done" ? "culprit found" : bi.state;
      app.appendChild(section("Confirmation and bisection",
        h("p", null, badge(word === "not confirmed" ? "recorded" : word, label), " ", bi.step || ""),
        bi.culprit ? h("p", null, "First bad commit: ", code(bi.culprit)) : null,
        bi.good && bi.bad ? h("p", { class: "muted" }, "last good ", sha(bi.good), " → first bad ", sha(bi.bad),
          bi.regression_id ? " · regression #" + bi.regression_id : "") : null));
    }

    const c = d.comparison;
    let flames = null;
    if (c && Array.isArray(c.rows)) {
      app.appendChild(comparisonSection(c, keyCell, hx));
      if ((d.flames || []).length) app.appendChild(flames = flameCard(d.flames));
    } else {
      const rec = d.recorded || [];
      app.appendChild(section("Recorded (first run: nothing to compare against)",
        rec.length ? table(["benchmark", ["median", { class: "num" }], ["samples", { class: "num" }], "status", "reason"],
          rec.slice().sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((r) => h("tr", null,
            td({ class: "key" }, keyCell(r.key)), td({ class: "num" }, fmtValue(r.median, r.unit)),
            td({ class: "num" }, r.samples != null ? String(r.samples) : "–"),
            td(null, statusCell(r.status)),
            td({ class: "note" }, r.reason || ""))), "recorded")
          : muted("No benchmark recorded.")));
    }

    const cps = d.change_points || [];
    if (cps.length) {
      app.appendChild(section("Change points",
        table(["benchmark", "commits (before..after)", "change", ""], cps.map((cp) => h("tr", null,
          td({ class: "key" }, (cp.key || cp.benchmark) ? keyCell(cp.key || cp.benchmark) : "–"),
          td(null, commitRange(cp.commit_before, cp.commit_after)),
          td({ class: "nowrap" }, fmtRatio(cp.ratio, cp.ci_low, cp.ci_high)),
          td(null, badge(cp.worse ? "worse" : "better")))), "changes")));
    }

    const dl = d.downloads || {};
    const rep = d.reproduce || [];
    // Callgrind profiles kept with the result (open in callgrind_annotate or KCachegrind).
    const profiles = (d.profiles || []).map((p) => h("li", null, keyCell(p.key), " (" + p.role + "): ",
      (p.files || []).map((f, i) => [i ? ", " : null, link(f, f.split("/").pop())])));
    app.appendChild(section("Data and reproduction",
      h("p", { class: "downloads" },
        dl.result ? link(dl.result, "result set (JSON, raw samples)") : null,
        dl.result && dl.report ? " · " : null,
        dl.report ? link(dl.report, "report (JSON)") : null),
      profiles.length ? [h("p", null, "Callgrind profiles:"), h("ul", { class: "profiles" }, profiles)] : null,
      rep.length ? [h("p", null, "Measure the same thing on a laptop:"), h("pre", { class: "reproduce" }, rep.join("\n"))] : null,
      d.markdown ? h("details", null, h("summary", null, "The report as posted to GitHub (Markdown)"),
        h("pre", { class: "markdown" }, d.markdown)) : null));
    return flames;
  }

  function comparisonSection(c, keyCell, hx) {
    const rows = c.rows.map((r) => Object.assign({}, r, { v: normVerdict(r.verdict) }));
    const groups = {};
    for (const r of rows) (groups[r.v] = groups[r.v] || []).push(r);
    for (const k of Object.keys(groups)) groups[k].sort(byKey);
    const bySize = (a, b) => {
      const ea = effectWorse(a), eb = effectWorse(b);
      if (ea == null || eb == null) return ea == null ? (eb == null ? byKey(a, b) : 1) : -1;
      return eb - ea || byKey(a, b);
    };
    if (groups.regressed) groups.regressed.sort(bySize);
    if (groups.improved) groups.improved.sort((a, b) => -bySize(a, b));

    const card = h("section", { class: "card comparison" });
    card.appendChild(h(hx, null, "Comparison"));
    const counts = h("p", { class: "counts" });
    const order = ["regressed", "failed", "missing", "improved", "inconclusive", "not_comparable", "unchanged", "added", "removed", "skipped"];
    for (const v of order.concat(Object.keys(groups).filter((k) => !order.includes(k)))) {
      if (groups[v]) counts.appendChild(badge(v, groups[v].length + " " + (VERDICT_LABELS[v] || v)));
    }
    if (c.base_commit || c.head_commit)
      card.appendChild(h("p", { class: "muted" }, "base ", sha(c.base_commit), " → head ", sha(c.head_commit),
        isNum(c.confidence) ? " · " + Math.round(c.confidence * 100) + " % intervals" : ""));
    card.appendChild(counts);

    const head = ["benchmark", ["base", { class: "num" }], ["head", { class: "num" }], "change", "verdict", ["noise", { class: "num" }], ["min. detectable", { class: "num" }]];
    const line = (r) => {
      const dec = pctDecimals(r.threshold);
      let change = fmtChange(r.ratio, dec);
      let interval = null;
      if (isNum(r.ci_low) && isNum(r.ci_high)) interval = " [" + fmtChange(r.ci_low, dec).replace(" %", "") + ", " + fmtChange(r.ci_high, dec).replace(" %", "") + "]";
      else if (isNum(r.ratio) && r.method) interval = " (interval unbounded)";
      const strong = r.v === "regressed" || r.v === "improved";
      return h("tr", { class: "v-" + r.v },
        td({ class: "key" }, keyCell(r.id, r), r.note ? h("div", { class: "note" }, r.note) : null),
        td({ class: "num" }, fmtValue(r.base_median, r.unit)),
        td({ class: "num" }, fmtValue(r.head_median, r.unit)),
        td({ class: "nowrap" }, strong ? h("strong", null, change) : change, interval ? h("span", { class: "muted" }, interval) : null),
        td(null, badge(r.v)),
        td({ class: "num" }, r.method ? fmtPct(r.noise, dec || 1, true) : "–"),
        td({ class: "num" }, r.method ? fmtPct(r.min_detectable, dec || 1, false) : "–"));
    };
    const main = [];
    for (const v of MAIN_ORDER) if (groups[v]) main.push(...groups[v]);
    const known = new Set(MAIN_ORDER.concat(["unchanged", "added", "removed", "skipped"]));
    for (const v of Object.keys(groups)) if (!known.has(v)) main.push(...groups[v]);
    if (main.length) card.appendChild(table(head, main.map(line), "compare"));
    else if (!groups.unchanged) card.appendChild(muted("Nothing was compared."));
    else card.appendChild(muted("No change: every benchmark measured on both sides is unchanged."));
    if (groups.unchanged)
      card.appendChild(h("details", { class: "unchanged" },
        h("summary", null, groups.unchanged.length + " unchanged"),
        table(head, groups.unchanged.map(line), "compare")));

    const sub = (title, v, cols, cells) => {
      if (!groups[v]) return;
      card.appendChild(h("h3", null, title + " (" + groups[v].length + ")"));
      card.appendChild(table(cols, groups[v].map((r) => h("tr", null, cells(r))), "sub"));
    };
    sub("New", "added", ["benchmark", ["head", { class: "num" }], "note"],
      (r) => [td({ class: "key" }, keyCell(r.id, r)), td({ class: "num" }, fmtValue(r.head_median, r.unit)), td({ class: "note" }, r.note || "")]);
    sub("Removed", "removed", ["benchmark", ["base", { class: "num" }], "note"],
      (r) => [td({ class: "key" }, keyCell(r.id, r)), td({ class: "num" }, fmtValue(r.base_median, r.unit)), td({ class: "note" }, r.note || "")]);
    sub("Skipped", "skipped", ["benchmark", "reason"],
      (r) => [td({ class: "key" }, keyCell(r.id, r)), td({ class: "note" }, r.note || "–")]);
    sub("Failed", "failed", ["benchmark", "error"],
      (r) => [td({ class: "key" }, keyCell(r.id, r)), td({ class: "note" }, r.note || "–")]);
    sub("Missing", "missing", ["benchmark", ["base", { class: "num" }], "why"],
      (r) => [td({ class: "key" }, keyCell(r.id, r)), td({ class: "num" }, fmtValue(r.base_median, r.unit)), td({ class: "note" }, r.note || "–")]);
    return card;
  }

  // A run that found a regression: what the box found out since (the
  // confirmation, the culprit its bisection named), from the repository's
  // data, whose open regressions name the runs that found them.
  async function regressionOfRun(app, d) {
    const job = d.job || {};
    if (job.id == null || !d.repository_page) return;
    let repo;
    try {
      repo = await load("data/" + dirOf(d.repository_page) + "repo.js", "repo");
    } catch (e) {
      return;  // a repository page not written yet: nothing to add
    }
    const regs = (repo.open_regressions || []).filter((r) => (r.first_bad_jobs || []).includes(job.id));
    if (regs.length) app.appendChild(section("Regression found by this run", regressionsTable(regs)));
  }

  async function renderRun(app, d) {
    const job = d.job || {};
    const repoName = job.repository || (d.comparison && d.comparison.repository) || dirOf(d.repository_page).replace(/^r\//, "").replace(/\/$/, "");
    const id = job.id != null ? job.id : "";
    const crumbs = [brand(), [repoName, d.repository_page]];
    if (job.pr_number > 0 && d.pull_page) crumbs.push(["PR #" + job.pr_number, d.pull_page]);
    crumbs.push(["run #" + id]);
    document.title = "run #" + id + " · " + repoName + " · benchbox";
    app.appendChild(header(crumbs, "Run #" + id));
    const flames = renderRunBody(app, d, 2);
    if (flames) await renderFlames(flames, d.flames);
    await regressionOfRun(app, d);
  }

  Object.assign(benchbox._, { renderRunBody, renderRun });
})(window.benchbox = window.benchbox || {});
