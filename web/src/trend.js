/* benchbox dashboard: a trend's page (data-page "trend",
 * data/r/<o>/<n>/s/<sid>.js, then its chunks): the metric and branch
 * selectors, the chart (trend_chart.js), its change points and its
 * environments. */
(function (benchbox) {
  "use strict";

  const { site, load, h, link, table, td, muted, section, code, dirOf, isNum, sha, commitRange,
    refName, fmtRatio, fmtChange, lowerIsBetter, badge, header, brand, ENV_COLOURS, COLUMNS, joinChunks,
    loadCommits, round7, locate, pointsByEnv, drawTrendChart } = benchbox._;

  function selector(label, items, currentPage, text) {
    const sel = h("select", { "aria-label": label, disabled: items.length < 2 ? true : null });
    for (const it of items) {
      const o = h("option", { value: it.page }, text(it));
      if (it.page === currentPage) o.selected = true;
      sel.appendChild(o);
    }
    sel.addEventListener("change", () => { location.href = site.root + sel.value; });
    return h("label", { class: "select" }, h("span", null, label), sel);
  }

  // A branch's series file leaves out what changes with every push: the
  // recent file of its group holds it (docs/dashboard.md, "recent"). The
  // series as the page draws it: that entry's points count, change points
  // and newest chunk's tail in. A file without the entry (a series new
  // since it was written) leaves the series as its file says.
  async function withRecent(s) {
    if (!s.recent) return s;
    const r = await load(s.recent.src, s.recent.name);
    const e = r && r.series && r.series[s.id];
    if (!e) return s;
    const out = Object.assign({}, s, { points: e.points, change_points: e.change_points || [] });
    if (e.tail) out.chunks = (s.chunks || []).concat([e.tail]);
    return out;
  }

  async function renderTrend(app, series) {
    const s = await withRecent(series);
    const repoDir = dirOf(s.repository_page);
    const ownPage = repoDir + "t/" + s.id + ".html";
    const release = s.release_series || s.x === "release";
    const envs = s.environments || [];
    const envName = (e) => (envs[e] ? "env " + e : "env ?");

    app.appendChild(header([brand(), [s.repository, s.repository_page], [s.key]], s.key,
      h("p", { class: "sub" },
        h("span", { class: "pill" }, release ? "releases (tags)" : (s.ref_name || refName(s.ref))),
        h("span", { class: "pill" }, s.metric),
        h("span", { class: "pill" }, (s.unit || "") + (lowerIsBetter(s.direction) ? ", lower is better" : ", higher is better")),
        h("span", { class: "pill" }, (s.points != null ? s.points : "?") + " points"))));

    const sib = s.siblings || {};
    const metrics = (sib.metrics && sib.metrics.length) ? sib.metrics : [{ metric: s.metric, page: ownPage }];
    const refs = (sib.refs && sib.refs.length) ? sib.refs : [{ ref: s.ref, name: s.ref_name, page: ownPage }];
    const current = ownPage;
    const readout = h("div", { class: "readout", "aria-live": "polite" });
    const chartBox = h("div", { class: "chart" });
    const legend = h("div", { class: "legend" });
    const tools = h("div", { class: "chart-tools" });
    const card = h("section", { class: "card trend" },
      h("div", { class: "toolbar" },
        selector("metric", metrics, current, (m) => m.metric),
        selector(release ? "series" : "branch", refs, current, (r) => r.name || refName(r.ref))),
      readout, chartBox, legend, tools);
    app.appendChild(card);

    // The chunks, and beside them the commit ids the page needs at once: the
    // newest chunk's (the readout shows the latest point); every chunk's in
    // the release series, where change points are found by commit. The
    // rest load when a point is hovered or the data downloaded.
    // An entry names its chunk; the series' patterns name its files. A
    // chunk in a pack (the older chunks, several to a file) names its file
    // itself, as a series file from before named every file and its
    // commits whole. The newest chunk's tail has its points in the entry
    // (`data`: from the recent file, or the series file of a site from
    // before); an older site kept it in a file of its own.
    const chunks = (s.chunks || []).map((c) => ({
      src: c.src || s.chunk_files.src + c.chunk + (c.tail ? ".t.js" : ".js"),
      name: c.name || s.chunk_files.name + c.chunk + (c.tail ? "/tail" : ""),
      data: c.data,
      commits: c.commits && (typeof c.commits === "object" ? c.commits
        : { src: s.commit_files.src + c.chunk + ".js", name: s.commit_files.name + c.chunk }),
    }));
    const eager = release ? chunks : chunks.slice(-1);
    for (const c of eager) if (c.commits) load(c.commits.src, c.commits.name).catch(() => {});
    const P = joinChunks(await Promise.all(chunks.map((c) => c.data || load(c.src, c.name))));
    const N = P.x.length;
    const byEnv = pointsByEnv(P);
    await loadCommits(P, release ? null : [N - 1]);

    // Download: the series and its points as one JSON file, made here
    // once every commit id has loaded.
    const download = h("button", { type: "button", class: "linkish download" }, "download data (JSON)");
    download.addEventListener("click", () => {
      download.disabled = true;
      loadCommits(P, null).then(() => {
        const points = {};
        for (const c of COLUMNS) points[c] = ["median", "q1", "q3"].includes(c) ? round7(P[c]) : P[c];
        // The series as it describes itself: its points are `points`, not
        // again in its tail entry.
        const series = Object.assign({}, s, { chunks: (s.chunks || []).map(({ data, ...c }) => c) });
        const blob = new Blob([JSON.stringify({ series, points }, null, 0)], { type: "application/json" });
        const a = h("a", { href: URL.createObjectURL(blob), download: (s.id || "series") + ".json" });
        document.body.appendChild(a);
        a.click();
        a.remove();
      }, (e) => { download.textContent = "download failed: " + e.message; })
        .finally(() => { download.disabled = false; });
    });
    tools.appendChild(download);
    tools.appendChild(h("span", { class: "muted hint" },
      "Drag to zoom, double-click to reset; click a point to open its run."));

    if (!N) {
      chartBox.appendChild(muted("No points yet."));
      readout.textContent = "";
    } else {
      await drawTrendChart(s, P, { chartBox, readout, legend, repoDir, release, envs, envName, byEnv });
    }
    app.appendChild(changePointsSection(s, P, repoDir, envName));
    app.appendChild(envSection(s, P, envName, byEnv));
  }

  // The point's x (or tag) as a button that zooms the chart around it.
  function zoomButton(i, P) {
    if (i == null || i < 0 || i >= P.x.length) return h("span", { class: "muted" }, "–");
    return h("button", { type: "button", class: "linkish", title: "zoom the chart here",
      onclick: () => {
        if (!benchbox.zoomTo) return;
        const lo = P.x[Math.max(0, i - 40)], hi = P.x[Math.min(P.x.length - 1, i + 40)];
        benchbox.zoomTo(lo, hi > lo ? hi : lo + 1);
        window.scrollTo({ top: 0, behavior: "smooth" });
      } }, P.label[i] || String(P.x[i]));
  }

  function changePointsSection(s, P, repoDir, envName) {
    const cps = s.change_points || [];
    const run = (j) => (j != null ? link(repoDir + "runs/" + j + ".html", "#" + j) : "–");
    return section("Change points", cps.length ? table(["at", "commits (before..after)", "runs", "change", "", "p", "environment"],
      cps.map((c) => h("tr", null,
        td(null, zoomButton(locate(P, c.x, c.commit_after, c.job_after), P)),
        td(null, commitRange(c.commit_before, c.commit_after)),
        td({ class: "nowrap" }, run(c.job_before), "..", run(c.job_after)),
        td({ class: "nowrap" }, fmtRatio(c.ratio, c.ci_low, c.ci_high), h("span", { class: "muted" }, " (" + fmtChange(c.ratio, 1) + ")")),
        td(null, badge(c.worse ? "worse" : "better")),
        td({ class: "num" }, isNum(c.p_value) ? c.p_value.toPrecision(2) : "–"),
        td(null, c.environment != null ? envName(c.environment) : "–"))), "changes")
      : muted("No change point detected in this series."));
  }

  // `byEnv`: the points by environment (pointsByEnv), for a series file
  // that does not count them.
  function envSection(s, P, envName, byEnv) {
    const envs = s.environments || [];
    const breaks = s.env_breaks || [];
    const envCell = (e) => h("span", null, envName(e), envs[e] ? [" ", code(envs[e].key)] : null);
    return section("Environments",
      envs.length ? table(["", "environment key", "machine fingerprint", ["points", { class: "num" }]], envs.map((e, i) => h("tr", null,
        td(null, h("i", { class: "sw line", style: "background:" + ENV_COLOURS[i % ENV_COLOURS.length] }), " " + envName(i)),
        td(null, code(e.key)), td(null, code(e.machine)),
        td({ class: "num" }, isNum(e.points) ? String(e.points) : String(byEnv.get(i) || 0))))) : muted("No environment recorded."),
      h("h3", null, "Environment breaks"),
      breaks.length ? table(["at", "commit", "from", "to"], breaks.map((b) => h("tr", null,
        td(null, zoomButton(locate(P, b.x, b.commit, b.job), P)), td(null, sha(b.commit)), td(null, envCell(b.from)), td(null, envCell(b.to)))))
        : muted("The environment never changed in this series."));
  }

  Object.assign(benchbox._, { renderTrend });
})(window.benchbox = window.benchbox || {});
