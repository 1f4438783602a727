/* benchbox dashboard: the index page (data-page "index", data/index.js):
 * every repository, its latest runs and open regressions. */
(function (benchbox) {
  "use strict";

  const { h, link, muted, section, repoDirFromPage, fmtTime, header, runsTable,
    regressionsTable, isCheck, isBackfill, isBranchRun, checksTable } = benchbox._;

  function renderIndex(app, d) {
    app.appendChild(header([["benchbox"]], "Benchmarks",
      h("p", { class: "muted" }, (d.repositories || []).length + " repositories · generated " + fmtTime(d.generated) +
        (d.version ? " · benchbox " + d.version : "") + " · ", link("box.html", "box health"))));
    const repos = d.repositories || [];
    if (!repos.length) app.appendChild(section("Nothing yet", muted("No repository has been measured yet.")));
    for (const r of repos) {
      const dir = repoDirFromPage(r.page);
      const nOpen = (r.open_regressions || []).length;
      const checks = (r.latest_runs || []).filter(isCheck);
      const backfills = (r.latest_runs || []).filter(isBackfill);
      app.appendChild(h("section", { class: "card repo" },
        h("h2", null, link(r.page, r.repository),
          nOpen ? h("span", { class: "badge badge-bad" }, nOpen + " open regression" + (nOpen > 1 ? "s" : "")) : null),
        nOpen ? [h("h3", null, "Open regressions"), regressionsTable(r.open_regressions)] : null,
        h("h3", null, "Latest runs"), runsTable((r.latest_runs || []).filter(isBranchRun), dir),
        backfills.length ? [h("h3", null, "Backfilled history"), runsTable(backfills, dir)] : null,
        checks.length ? [h("h3", null, "Regression checks"), checksTable(checks)] : null));
    }
  }

  Object.assign(benchbox._, { renderIndex });
})(window.benchbox = window.benchbox || {});
