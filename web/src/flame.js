/* benchbox dashboard: differential flame graphs on a run's page, one per
 * callgrind regression (run data "flames"; each tree a data file
 * data/r/<o>/<n>/runs/<job>.flame-<i>.js from lib/report/flame.h: frames
 * {n: name, b/h: base/head instructions with callees, bs/hs: in the
 * frame's own code, c: callees}).
 *
 * Head's call tree is drawn, each frame as wide as its instructions and
 * coloured by the change in its own instructions against base: red
 * slower, blue faster, grey unchanged, full colour at ±20 %. A toggle draws
 * base's tree with the same colours, a search box marks the frames whose
 * name matches, and both sides' folded stacks are offered for
 * flamegraph.pl, speedscope or inferno. d3-flame-graph draws it (vendored
 * with d3 by scripts/refresh-flamegraph.sh); a page loads them only when it
 * has a graph to draw. */
(function (benchbox) {
  "use strict";

  const { h, link, muted, code, load, site } = benchbox._;

  const FULL_AT = 0.2;  // the change drawn in full colour

  const scripts = new Map();  // src -> Promise
  function loadScript(src) {
    if (scripts.has(src)) return scripts.get(src);
    const p = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = site.root + src;
      s.addEventListener("load", () => resolve());
      s.addEventListener("error", () => reject(new Error("could not load " + src)));
      document.head.appendChild(s);
    });
    scripts.set(src, p);
    return p;
  }

  // The change in a frame's own instructions, head over base; Infinity for
  // a frame only head has, -1 for one only base has, 0 for none on either.
  function ownChange(n) {
    const bs = n.bs || 0, hs = n.hs || 0;
    if (!bs) return hs ? Infinity : 0;
    return (hs - bs) / bs;
  }
  function frameColor(d) {
    if (d.highlight) return "rgb(230,0,230)";  // a search match
    const c = ownChange(d.data);
    if (Math.abs(c) < 0.0005) return "rgb(224,224,224)";
    const v = Math.round(235 * (1 - 0.75 * Math.min(1, Math.abs(c) / FULL_AT)));
    return c > 0 ? "rgb(235," + v + "," + v + ")" : "rgb(" + v + "," + v + ",235)";
  }
  const count = (x) => Math.round(x || 0).toLocaleString("en-US");
  function changeText(n) {
    const c = ownChange(n);
    if (c === Infinity) return "new in head";
    if (c === 0 && !n.bs) return "no own code";
    return (c >= 0 ? "+" : "−") + Math.abs(c * 100).toFixed(1) + " %";
  }

  async function drawOne(card, f) {
    const d = await load(f.data, f.name);
    const tree = d.flame;
    let side = "head";
    const details = h("p", { class: "flame-details muted" }, "");
    const graph = h("div", { class: "flame-graph" });
    const button = (which) => h("button", { type: "button", "data-side": which, "aria-pressed": String(which === side) }, which);
    const buttons = [button("head"), button("base")];
    const search = h("input", { type: "search", placeholder: "search functions", "aria-label": "search functions" });
    const folded = f.folded || {};
    card.appendChild(h("div", { class: "flame", id: f.anchor },
      h("h3", null, code(f.benchmark || d.benchmark || "")),
      h("div", { class: "flame-controls" }, "tree: ", buttons, " ", search, " ",
        folded.base ? link(folded.base, "base.folded") : null, folded.base && folded.head ? " · " : null,
        folded.head ? link(folded.head, "head.folded") : null),
      graph, details));

    const chart = window.flamegraph.default()
      .width(Math.max(320, graph.clientWidth || 960))
      .cellHeight(18)
      .transitionDuration(0)
      .minFrameSize(1)
      .sort(true)
      .title("")
      .getValue((n) => (side === "head" ? n.h : n.b) || 0)
      .setColorMapper(frameColor)
      .setLabelHandler((x) => x.data.n + ": " + count(side === "head" ? x.data.h : x.data.b) + " instructions (" + side +
        "); own " + count(x.data.bs) + " → " + count(x.data.hs) + ", " + changeText(x.data))
      .setDetailsElement(details);
    window.d3.select(graph).datum(tree).call(chart);
    for (const b of buttons) {
      b.addEventListener("click", () => {
        side = b.dataset.side;
        for (const o of buttons) o.setAttribute("aria-pressed", String(o === b));
        graph.dataset.side = side;
        chart.update(tree);
      });
    }
    graph.dataset.side = side;
    search.addEventListener("input", () => (search.value ? chart.search(search.value) : chart.clear()));
  }

  // Draws the run's flame graphs into `card` (already on the page, so the
  // graphs take its width). A graph that cannot be drawn says why; the
  // page is not failed for it.
  async function renderFlames(card, flames) {
    try {
      await loadScript("assets/d3/d3.min.js");
      await loadScript("assets/d3-flame-graph/d3-flamegraph.umd.min.js");
    } catch (e) {
      card.appendChild(muted("The flame graphs could not be drawn: " + e.message + "."));
      return;
    }
    for (const f of flames) {
      try {
        await drawOne(card, f);
      } catch (e) {
        card.appendChild(muted("The flame graph of " + (f.benchmark || "a benchmark") + " could not be drawn: " + e.message + "."));
      }
    }
    // d3-flame-graph sizes the frames and writes their labels in d3
    // transitions (250 ms, whatever its transitionDuration): wait for them
    // to end (d3 keeps a node's pending ones in __transition), so a page
    // said ready is a page drawn.
    const moving = () => Array.from(card.querySelectorAll("svg *")).some((n) => n.__transition && Object.keys(n.__transition).length);
    for (let i = 0; i < 300 && moving(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    // A link to one graph (the report's): it exists only now.
    const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && card.contains(target)) target.scrollIntoView();
  }

  function flameCard(flames) {
    return h("section", { class: "card flames" }, h("h2", null, "Differential flame graphs"),
      h("p", { class: "muted" }, "Head's call tree from callgrind; each frame as wide as its instructions, coloured by the " +
        "change in its own instructions against base: ",
        h("span", { class: "flame-key slower" }, "slower"), " ", h("span", { class: "flame-key faster" }, "faster"), " ",
        h("span", { class: "flame-key same" }, "unchanged"), " (full colour at ±" + FULL_AT * 100 + " %). " +
        "Click a frame to zoom in."));
  }

  Object.assign(benchbox._, { renderFlames, flameCard, frameColor });
})(window.benchbox = window.benchbox || {});
