/* benchbox dashboard: a pull request's page (data-page "pull",
 * data/r/<o>/<n>/pulls/<pr>.js): its runs, and its latest run's report
 * (loaded from that run's data file). */
(function (benchbox) {
  "use strict";

  const { load, h, link, muted, section, dirOf, repoDirFromPage, repoDirFromName, header, brand,
    runsSection, renderRunBody, renderFlames } = benchbox._;

  async function renderPull(app, d) {
    const dir = repoDirFromName(d.repository) || repoDirFromPage(((d.runs || [])[0] || {}).page);
    // The title and author as the queue recorded them (docs/dashboard.md).
    const by = [d.author ? "by " + d.author : null, d.head_ref ? "from " + d.head_ref : null,
      d.state === "closed" ? "closed" : null].filter((x) => x);
    app.appendChild(header([brand(), [d.repository, dir ? dir + "index.html" : null], ["PR #" + d.number]],
      d.title ? "#" + d.number + " " + d.title : "Pull request #" + d.number,
      by.length ? h("p", { class: "muted pr-by" }, by.join(" · ")) : null));
    const runs = (d.runs || []).slice().sort((a, b) => (b.created || 0) - (a.created || 0) || (b.job_id || 0) - (a.job_id || 0));
    app.appendChild(runsSection("Runs", runs, dir));
    const latest = d.latest_run;
    if (!latest || !latest.src) {
      app.appendChild(section("Latest run", muted("No run of this pull request has finished yet.")));
      return;
    }
    const run = await load(latest.src, latest.name);
    const holder = h("div", { class: "latest" });
    const id = run.job && run.job.id != null ? run.job.id : "";
    holder.appendChild(h("h2", { class: "latest-title" }, "Latest run ",
      link(dirOf(run.repository_page) + "runs/" + id + ".html", "#" + id)));
    const flames = renderRunBody(holder, run, 3);
    app.appendChild(holder);
    if (flames) await renderFlames(flames, run.flames);
  }

  Object.assign(benchbox._, { renderPull });
})(window.benchbox = window.benchbox || {});
