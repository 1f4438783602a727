/* benchbox dashboard: benchbox.start(), which each page shell calls: the
 * page kinds (data-page), loading the page's data file and rendering it, and
 * showing any failure (body[data-error]) instead of a half-drawn page. */
(function (benchbox) {
  "use strict";

  const { site, load, h, renderIndex, renderRepository, renderTrend, renderRun,
    renderPull, renderBox } = benchbox._;

  let failed = false;
  function fail(err) {
    const message = (err && err.message) || String(err || "unknown error");
    if (failed) return;
    failed = true;
    delete document.body.dataset.ready;
    document.body.dataset.error = message;
    const app = document.getElementById("app") || document.body;
    const box = h("div", { class: "bb-error", role: "alert" },
      h("strong", null, "This page could not be drawn: "), message);
    app.insertBefore(box, app.firstChild);
    if (typeof console !== "undefined" && console.warn) console.warn("benchbox: " + message);
  }
  window.addEventListener("error", (e) => {
    if (e && (e.error || e.message)) {
      fail(e.error || e.message);
      e.preventDefault();
    }
  });
  window.addEventListener("unhandledrejection", (e) => {
    fail(e.reason);
    e.preventDefault();
  });

  const PAGES = { index: renderIndex, repository: renderRepository, trend: renderTrend, run: renderRun, pull: renderPull,
    box: renderBox };

  benchbox.start = function () {
    const ds = document.body.dataset;
    site.root = ds.root || "./";
    if (!site.root.endsWith("/")) site.root += "/";
    const app = document.getElementById("app");
    if (app) app.textContent = "";
    const render = PAGES[ds.page];
    Promise.resolve()
      .then(() => {
        if (!app) throw new Error("the page has no #app element");
        if (!render) throw new Error("unknown data-page \"" + (ds.page || "") + "\"");
        if (!ds.src || !ds.name) throw new Error("the page names no data file (data-src, data-name)");
        if (typeof uPlot === "undefined" && ds.page === "trend") throw new Error("uPlot is missing from assets/benchbox.js");
        return load(ds.src, ds.name);
      })
      .then((d) => {
        if (!d || typeof d !== "object") throw new Error("the data file " + ds.src + " holds no object");
        return render(app, d);
      })
      .then(() => {
        if (failed) return;
        // The time to ready, for tests/browser/check_site.py --timing.
        try { performance.mark("benchbox-ready"); } catch (e) { /* old browser */ }
        ds.ready = "1";
      })
      .catch(fail);
  };
})(window.benchbox = window.benchbox || {});
