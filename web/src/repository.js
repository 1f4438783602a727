/* benchbox dashboard: a repository's page (data-page "repository",
 * data/r/<o>/<n>/repo.js): its benchmarks per branch and for releases (one
 * tab each, #ref=<ref> in the URL), its open regressions, pull requests and
 * runs. */
(function (benchbox) {
  "use strict";

  const { h, link, table, td, muted, section, repoDirFromName, isNum, fmtValue, timeCell, sha,
    refName, fmtChange, badge, statusCell, header, brand, runsAndChecks,
    regressionsTable } = benchbox._;

  function renderRepository(app, d) {
    const dir = repoDirFromName(d.repository);
    app.appendChild(header([brand(), [d.repository]], d.repository));
    const refs = d.refs || [];
    const benchmarks = (d.benchmarks || []).slice().sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

    const bmCard = section("Benchmarks");
    const tabs = h("div", { class: "tabs", role: "tablist" });
    const filter = h("input", { type: "search", placeholder: "filter benchmarks", "aria-label": "filter benchmarks", class: "filter" });
    const body = h("div");
    bmCard.appendChild(h("div", { class: "toolbar" }, tabs, filter));
    bmCard.appendChild(body);

    const wanted = new URLSearchParams(location.hash.slice(1)).get("ref");
    let current = refs.some((r) => r.ref === wanted) ? wanted : (refs[0] && refs[0].ref);

    function drawTable() {
      body.textContent = "";
      const q = filter.value.trim().toLowerCase();
      const rows = [];
      for (const b of benchmarks) {
        const s = b.series && b.series[current];
        if (!s) continue;
        if (q && !String(b.key).toLowerCase().includes(q)) continue;
        const l = s.latest || {};
        let change = h("span", { class: "muted" }, "–");
        if (s.change && isNum(s.change.ratio))
          change = badge(s.change.worse ? "worse" : "better", fmtChange(s.change.ratio, 1) + (s.change.worse ? " worse" : " better"));
        rows.push(h("tr", null,
          td({ class: "key" }, link(s.page, b.key),
            b.direction === "higher_is_better" ? h("span", { class: "muted", title: "higher is better" }, " ↑") : null),
          td({ class: "num" }, fmtValue(l.value, b.unit)),
          td(null, l.job_id != null && dir ? link(dir + "runs/" + l.job_id + ".html", sha(l.commit)) : sha(l.commit)),
          td({ class: "num" }, s.points != null ? String(s.points) : "–"),
          td(null, change),
          td(null, statusCell(l.status))));
      }
      if (!current) body.appendChild(muted("No branch or release has been measured yet."));
      else if (!rows.length) body.appendChild(muted(q ? "No benchmark matches." : "No benchmarks on this ref."));
      else body.appendChild(table(["benchmark", ["latest", { class: "num" }], "commit", ["points", { class: "num" }], "recent change", "status"], rows, "benchmarks"));
    }
    function drawTabs() {
      tabs.textContent = "";
      for (const r of refs) {
        tabs.appendChild(h("button", {
          type: "button", role: "tab", class: "tab" + (r.ref === current ? " active" : ""),
          "aria-selected": r.ref === current ? "true" : "false", title: r.ref,
          onclick: () => {
            current = r.ref;
            history.replaceState(null, "", "#ref=" + encodeURIComponent(r.ref));
            drawTabs();
            drawTable();
          },
        }, r.name || refName(r.ref)));
      }
    }
    filter.addEventListener("input", drawTable);
    window.addEventListener("hashchange", () => {
      const r = new URLSearchParams(location.hash.slice(1)).get("ref");
      if (r && r !== current && refs.some((x) => x.ref === r)) {
        current = r;
        drawTabs();
        drawTable();
      }
    });
    drawTabs();
    drawTable();
    app.appendChild(bmCard);

    app.appendChild(section("Open regressions", regressionsTable(d.open_regressions)));
    const pulls = d.pulls || [];
    app.appendChild(section("Pull requests", pulls.length ? table(["pull request", "latest", "commit", "when", "summary"],
      pulls.map((p) => {
        const l = p.latest || {};
        return h("tr", null, td(null, link(p.page, "#" + p.number)), td(null, l.overall ? badge(l.overall) : "–"),
          td(null, l.page ? link(l.page, sha(l.commit)) : sha(l.commit)), timeCell(l.created), td({ class: "summary" }, l.summary || ""));
      }), "pulls") : muted("No pull request has been measured.")));
    for (const s of runsAndChecks("Recent runs", d.runs, dir)) app.appendChild(s);
  }

  Object.assign(benchbox._, { renderRepository });
})(window.benchbox = window.benchbox || {});
