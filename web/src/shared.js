/* benchbox dashboard: what several pages show: the page header, tables of
 * runs (RUN_SUMMARY) and of open regressions (REGRESSION). */
(function (benchbox) {
  "use strict";

  const { h, link, extLink, table, td, muted, section, repoDirFromPage, timeCell, sha, commitRange,
    refName, fmtRatio, lowerIsBetter, badge, fmtDay } = benchbox._;

  function header(crumbs, title, ...extra) {
    const nav = h("nav", { class: "crumbs" });
    crumbs.forEach((c, i) => {
      if (i) nav.appendChild(h("span", { class: "sep" }, "›"));
      nav.appendChild(c[1] ? link(c[1], c[0]) : h("span", null, c[0]));
    });
    return h("header", { class: "page-head" }, nav, h("h1", null, title), ...extra);
  }
  function brand() { return ["benchbox", "index.html"]; }

  function refOrPr(run, repoDir) {
    if (run.pr_number > 0) {
      const dir = repoDir || repoDirFromPage(run.page);
      return dir ? link(dir + "pulls/" + run.pr_number + ".html", "PR #" + run.pr_number)
        : h("span", null, "PR #" + run.pr_number);
    }
    return h("span", { title: run.ref || null }, refName(run.ref) || "–");
  }

  // RUN_SUMMARY rows: when, kind, ref/PR, commit, overall, summary, link.
  function runsTable(runs, repoDir) {
    if (!runs || !runs.length) return muted("No runs yet.");
    return table(["when", "kind", "ref / PR", "commit", "overall", "summary", ""],
      runs.map((r) => h("tr", null,
        timeCell(r.created),
        td(null, String(r.kind || "").replace("_", " ")),
        td(null, refOrPr(r, repoDir)),
        td(null, sha(r.commit), r.commit_time > 0 && Math.abs(r.commit_time - (r.created || 0)) > 86400
          ? h("div", { class: "muted small" }, "committed " + fmtDay(r.commit_time)) : null),
        td(null, badge(r.overall)),
        td({ class: "summary" }, r.summary || ""),
        td({ class: "nowrap" }, link(r.page, "run " + (r.job_id != null ? "#" + r.job_id : ""))))),
      "runs");
  }
  // A compare job measures two commits of a branch side by side to decide
  // one question about a regression: its confirmation, or a bisection step.
  // It is no run of the branch: listed apart from them, in words for what it
  // decided, never as a regression on the branch.
  function isCheck(run) { return run.kind === "compare"; }
  // A backfill measures old commits today: history, placed on the trends
  // by its commits, not a push of the branch.
  function isBackfill(run) { return !!run.backfill && !isCheck(run); }
  function isBranchRun(run) { return !isCheck(run) && !isBackfill(run); }
  const CHECK_RESULT = { regressed: "head slower", improved: "head faster", unchanged: "no change",
    inconclusive: "undecided" };
  function checksTable(runs) {
    return table(["when", "commits (base..head)", "result", "summary", ""],
      runs.map((r) => h("tr", null,
        timeCell(r.created),
        td(null, commitRange(r.base_commit, r.commit)),
        td(null, badge(r.overall, CHECK_RESULT[r.overall])),
        td({ class: "summary" }, r.summary || ""),
        td({ class: "nowrap" }, link(r.page, "run " + (r.job_id != null ? "#" + r.job_id : ""))))),
      "checks");
  }
  // The runs of branches and pull requests, then the checks of regressions
  // (when there are any) under a heading of their own.
  function runsAndChecks(title, runs, repoDir, shown) {
    runs = runs || [];
    const out = [runsSection(title, runs.filter(isBranchRun), repoDir, shown)];
    const backfills = runs.filter(isBackfill);
    if (backfills.length)
      out.push(section("Backfilled history", muted("Older commits measured later (benchboxctl backfill), placed " +
        "on the trends by their commits. Not pushes of the branch."), runsTable(backfills, repoDir)));
    const checks = runs.filter(isCheck);
    if (checks.length)
      out.push(section("Regression checks", muted("Confirmations and bisection steps: two commits measured side " +
        "by side to decide one regression. Not runs of the branch."), checksTable(checks)));
    return out;
  }
  function runsSection(title, runs, repoDir, shown) {
    shown = shown || 30;
    const s = section(title);
    if (!runs || runs.length <= shown) {
      s.appendChild(runsTable(runs, repoDir));
    } else {
      s.appendChild(runsTable(runs.slice(0, shown), repoDir));
      s.appendChild(h("details", { class: "more" },
        h("summary", null, (runs.length - shown) + " older runs"),
        runsTable(runs.slice(shown), repoDir)));
    }
    return s;
  }

  // What the box found out about a regression (REGRESSION.investigation):
  // the culprit the bisection named (commit, subject, author, pull
  // request, its effect) and the confirmation's interval; else where the
  // investigation is.
  // The reporter's words are Markdown for GitHub: shown here as text.
  function plain(md) { return String(md).replace(/`/g, ""); }
  function investigation(r) {
    const inv = r.investigation;
    // Found while the box's canary said it had shifted: confirmed once it is steady.
    if (r.confirmation === "held") return muted("held: the box was not steady; confirmed once it is");
    if (!inv) return r.confirmation === "pending" ? muted("confirming") : null;
    const out = h("div", { class: "investigation" });
    const c = inv.culprit;
    if (c) {
      out.appendChild(h("div", { class: "culprit" }, "culprit ", sha(c.commit), " ", c.subject || "",
        c.author ? h("span", { class: "muted" }, " — " + c.author.replace(/\s*<[^>]*>$/, "")) : null,
        c.pull_request > 0 ? " · PR #" + c.pull_request : null,
        c.effect ? h("span", { class: "muted" }, " · " + plain(c.effect)) : null));
    } else if (inv.state === "bisecting" || inv.state === "confirming") {
      out.appendChild(muted(inv.state + ": " + (inv.step || "")));
    } else if (inv.outcome) {
      out.appendChild(muted(inv.outcome));
    }
    if (inv.confirmation) out.appendChild(h("div", { class: "muted" }, "confirmed: " + plain(inv.confirmation)));
    return out;
  }

  // REGRESSION rows: one per benchmark; the regression's own cells span them.
  function regressionsTable(regs) {
    if (!regs || !regs.length) return muted("No open regressions.");
    const rows = [];
    for (const r of regs) {
      const bms = r.benchmarks && r.benchmarks.length ? r.benchmarks : [{}];
      bms.forEach((b, i) => {
        const tr = h("tr", { class: i === 0 ? "group-start" : null },
          td({ class: "key" }, b.key ? (b.trend ? link(b.trend, b.key) : b.key) : "–",
            b.direction === "higher_is_better" ? h("span", { class: "muted", title: "higher is better" }, " ↑") : null),
          td({ class: "nowrap" }, badge(lowerIsBetter(b.direction) ? (b.ratio > 1 ? "worse" : "better") : (b.ratio < 1 ? "worse" : "better"),
            fmtRatio(b.ratio, b.ci_low, b.ci_high))));
        if (i === 0) {
          const span = bms.length > 1 ? bms.length : null;
          tr.appendChild(td({ rowspan: span }, commitRange(r.last_good, r.first_bad), investigation(r)));
          tr.appendChild(td({ rowspan: span, class: "nowrap" }, refName(r.ref)));
          tr.appendChild(td({ rowspan: span, class: "nowrap" },
            link(r.page, "run #" + r.job_id),
            r.issue_url ? [" · ", extLink(r.issue_url, "issue")] : null));
        }
        rows.push(tr);
      });
    }
    return table(["benchmark", "effect", "commits (last good..first bad)", "ref", ""], rows, "regressions");
  }

  Object.assign(benchbox._, { header, brand, runsTable, runsSection, runsAndChecks, isCheck, isBackfill, isBranchRun, checksTable,
    regressionsTable });
})(window.benchbox = window.benchbox || {});
