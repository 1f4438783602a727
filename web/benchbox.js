/* benchbox dashboard front-end (docs/dashboard.md).
 *
 * Loaded by every page shell after uPlot. benchbox.start() reads the body's
 * data-page / data-root / data-src / data-name, loads the data file (a script
 * that calls benchbox.receive(name, json): pages opened from file:// cannot
 * fetch()), and renders into #app. When everything is drawn it sets
 * body[data-ready="1"]; on any failure it shows the message and sets
 * body[data-error]. All text goes in with textContent; every link is
 * data-root + a path from the data files. No network, no build step. */
(function () {
  "use strict";

  const benchbox = {};
  let ROOT = "./";

  /* ---------------------------------------------------------------- loader */

  const waiting = new Map();   // name -> {resolve}
  const received = new Map();  // name -> json, for a receive() nobody asked for yet
  const loads = new Map();     // src + "\n" + name -> Promise

  benchbox.receive = function (name, json) {
    const w = waiting.get(name);
    if (w) {
      waiting.delete(name);
      w.resolve(json);
    } else {
      received.set(name, json);
    }
  };

  // Loads a data file: a <script> that calls benchbox.receive(name, json).
  // One Promise per (src, name); a missing file rejects naming the file.
  function load(src, name) {
    const key = src + "\n" + name;
    if (loads.has(key)) return loads.get(key);
    const p = new Promise((resolve, reject) => {
      if (received.has(name)) {
        const j = received.get(name);
        received.delete(name);
        resolve(j);
        return;
      }
      let settled = false;
      const done = (fn, v) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        waiting.delete(name);
        fn(v);
      };
      waiting.set(name, { resolve: (j) => done(resolve, j) });
      const s = document.createElement("script");
      s.async = true;
      s.src = ROOT + src;
      s.addEventListener("error", () =>
        done(reject, new Error("could not load the data file " + src)));
      s.addEventListener("load", () => {
        // The script has run: if it did not hand over `name`, it never will.
        if (!settled)
          done(reject, new Error("the data file " + src + " did not call benchbox.receive(\"" + name + "\", …)"));
        s.remove();
      });
      const timer = setTimeout(() =>
        done(reject, new Error("timed out loading the data file " + src)), 60000);
      document.head.appendChild(s);
    });
    loads.set(key, p);
    return p;
  }
  benchbox.load = load;

  /* ------------------------------------------------------------------- DOM */

  // h("a", {href: "…", class: "x"}, "text", child, [children]) — text is
  // always a text node, never parsed as HTML.
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    if (attrs) {
      for (const k of Object.keys(attrs)) {
        const v = attrs[k];
        if (v == null || v === false) continue;
        if (k === "class") el.className = v;
        else if (k === "text") el.textContent = v;
        else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
        else if (k === "dataset") Object.assign(el.dataset, v);
        else el.setAttribute(k, v === true ? "" : String(v));
      }
    }
    append(el, children);
    return el;
  }
  function append(el, children) {
    for (const c of children) {
      if (c == null || c === false) continue;
      if (Array.isArray(c)) append(el, c);
      else if (c instanceof Node) el.appendChild(c);
      else el.appendChild(document.createTextNode(String(c)));
    }
    return el;
  }
  // A link to a path relative to the site root (from a data file).
  function link(path, ...children) {
    if (!path) return h("span", null, ...children);
    return h("a", { href: ROOT + path }, ...children);
  }
  // An absolute link (only issue_url is ever one).
  function extLink(url, ...children) {
    if (!url || !/^https?:\/\//i.test(url)) return h("span", null, ...children);
    return h("a", { href: url, rel: "noopener noreferrer", class: "ext" }, ...children);
  }
  function table(headers, rows, cls) {
    return h("div", { class: "table-wrap" },
      h("table", { class: cls || null },
        h("thead", null, h("tr", null, headers.map((x) =>
          typeof x === "string" ? h("th", null, x) : h("th", x[1], x[0])))),
        h("tbody", null, rows)));
  }
  function td(attrs, ...children) { return h("td", attrs, ...children); }
  function muted(text) { return h("p", { class: "muted" }, text); }
  function section(title, ...children) {
    return h("section", { class: "card" }, h("h2", null, title), ...children);
  }
  function code(text) { return h("code", null, text == null ? "" : String(text)); }
  function dirOf(path) { return String(path || "").replace(/[^/]*$/, ""); }
  function repoDirFromPage(page) {  // "r/o/n/runs/12.html" or "r/o/n/index.html" -> "r/o/n/"
    const m = /^(r\/[^/]+\/[^/]+\/)/.exec(String(page || ""));
    return m ? m[1] : "";
  }
  function repoDirFromName(repository) {
    const parts = String(repository || "").split("/");
    if (parts.length !== 2) return "";
    const s = (x) => x.replace(/[^A-Za-z0-9._-]/g, "_");
    return "r/" + s(parts[0]) + "/" + s(parts[1]) + "/";
  }

  /* ----------------------------------------------------------- formatting */

  function isNum(v) { return typeof v === "number" && isFinite(v); }
  function g(v, digits) { return String(Number(v.toPrecision(digits))); }

  // A value in its unit: s as ns/µs/ms/s, bytes as B/KiB/MiB/GiB, count with k/M/G.
  function fmtValue(v, unit) {
    if (!isNum(v)) return "–";
    const a = Math.abs(v);
    if (unit === "s") {
      if (a >= 1 || a === 0) return g(v, 4) + " s";
      if (a >= 1e-3) return g(v * 1e3, 4) + " ms";
      if (a >= 1e-6) return g(v * 1e6, 4) + " µs";
      return g(v * 1e9, 4) + " ns";
    }
    if (unit === "bytes") {
      const K = 1024;
      if (a >= K * K * K) return g(v / (K * K * K), 4) + " GiB";
      if (a >= K * K) return g(v / (K * K), 4) + " MiB";
      if (a >= K) return g(v / K, 4) + " KiB";
      return Math.round(v) + " B";
    }
    if (unit === "count") {
      if (a >= 1e9) return g(v / 1e9, 7) + " G";
      if (a >= 1e6) return g(v / 1e6, 7) + " M";
      if (a >= 1e3) return g(v / 1e3, 7) + " k";
      return g(v, 7);
    }
    return g(v, 4) + (unit ? " " + unit : "");
  }
  // The scale (divisor, suffix) to show values up to `a` in a unit.
  function unitScale(a, unit) {
    if (unit === "s") {
      if (a >= 1) return [1, " s"];
      if (a >= 1e-3) return [1e-3, " ms"];
      if (a >= 1e-6) return [1e-6, " µs"];
      return [1e-9, " ns"];
    }
    if (unit === "bytes") {
      const K = 1024;
      if (a >= K * K * K) return [K * K * K, " GiB"];
      if (a >= K * K) return [K * K, " MiB"];
      if (a >= K) return [K, " KiB"];
      return [1, " B"];
    }
    if (unit === "count") {
      if (a >= 1e9) return [1e9, " G"];
      if (a >= 1e6) return [1e6, " M"];
      if (a >= 1e3) return [1e3, " k"];
      return [1, ""];
    }
    return [1, unit ? " " + unit : ""];
  }
  // Axis ticks: one scale for all, as many decimals as the step needs.
  function fmtTicks(splits, incr, unit) {
    let a = 0;
    for (const s of splits) if (isNum(s)) a = Math.max(a, Math.abs(s));
    const [div, suffix] = unitScale(a, unit);
    const step = incr / div;
    const dec = step > 0 ? Math.min(9, Math.max(0, -Math.floor(Math.log10(step) + 1e-9))) : 0;
    return splits.map((s) => (isNum(s) ? (s / div).toFixed(dec) + suffix : ""));
  }
  function pad2(n) { return (n < 10 ? "0" : "") + n; }
  function fmtDay(t) {
    if (!isNum(t)) return "–";
    const d = new Date(t * 1000);
    return d.getFullYear() + "-" + pad2(d.getMonth() + 1) + "-" + pad2(d.getDate());
  }
  function fmtTime(t) {
    if (!isNum(t)) return "–";
    const d = new Date(t * 1000);
    return fmtDay(t) + " " + pad2(d.getHours()) + ":" + pad2(d.getMinutes());
  }
  function timeCell(t) {
    return td({ class: "nowrap", title: isNum(t) ? new Date(t * 1000).toISOString() : null }, fmtTime(t));
  }
  function shortSha(c) { return c ? String(c).slice(0, 12) : "–"; }
  function sha(c) { return h("code", { class: "sha", title: c || null }, shortSha(c)); }
  function commitRange(a, b) {
    return h("span", { class: "nowrap" }, sha(a), "..", sha(b));
  }
  function refName(ref) {
    ref = String(ref || "");
    if (ref.startsWith("refs/heads/")) return ref.slice(11);
    if (ref.startsWith("refs/tags/")) return ref.slice(10);
    return ref;
  }
  // Decimals enough to tell the interval's ends from the estimate.
  function ratioDecimals(r, lo, hi) {
    let d = 2;
    const vals = [r, lo, hi].filter(isNum);
    while (d < 4) {
      const s = new Set(vals.map((v) => v.toFixed(d)));
      if (s.size === vals.length) break;
      d++;
    }
    return d;
  }
  // "1.23× [1.20, 1.26]"
  function fmtRatio(r, lo, hi) {
    if (!isNum(r)) return "–";
    const d = ratioDecimals(r, lo, hi);
    let s = r.toFixed(d) + "×";
    if (isNum(lo) && isNum(hi)) s += " [" + lo.toFixed(d) + ", " + hi.toFixed(d) + "]";
    return s;
  }
  function pctDecimals(threshold) {
    if (!isNum(threshold)) return 1;
    return threshold < 0.002 ? 3 : threshold < 0.02 ? 1 : 0;
  }
  function fmtChange(ratio, dec) {
    if (!isNum(ratio)) return "–";
    const p = (ratio - 1) * 100;
    const s = p.toFixed(dec);
    return (p >= 0 && !s.startsWith("-") ? "+" : "") + s.replace("-", "−") + " %";
  }
  function fmtPct(x, dec, plusMinus) {
    if (!isNum(x)) return "–";
    return (plusMinus ? "±" : "") + (x * 100).toFixed(dec) + " %";
  }
  function lowerIsBetter(direction, higherIsBetter) {
    if (higherIsBetter === true) return false;
    return direction !== "higher_is_better";
  }

  /* ---------------------------------------------------------------- badges */

  const VERDICT_ALIASES = { "new": "added", "not comparable": "not_comparable", "not-comparable": "not_comparable" };
  function normVerdict(v) {
    v = String(v || "");
    return VERDICT_ALIASES[v] || v;
  }
  const VERDICT_LABELS = { added: "new", not_comparable: "not comparable" };
  const BAD = new Set(["regressed", "failed", "missing", "worse"]);
  const GOOD = new Set(["improved", "better", "tuned"]);
  const WARN = new Set(["inconclusive", "drifted"]);
  const INFO = new Set(["recorded", "added"]);
  function badge(word, label) {
    const w = normVerdict(word);
    const cls = BAD.has(w) ? "bad" : GOOD.has(w) ? "good" : WARN.has(w) ? "warn" : INFO.has(w) ? "info" : "neutral";
    return h("span", { class: "badge badge-" + cls, title: w }, label || VERDICT_LABELS[w] || w || "?");
  }

  // A benchmark's status: "ok" quietly, "failed" red, "skipped" grey, others amber.
  function statusCell(status) {
    if (!status || status === "ok") return h("span", { class: "muted" }, status || "");
    if (status === "failed") return badge("failed", status);
    if (status === "skipped") return badge("skipped", status);
    return badge("inconclusive", status);
  }

  /* ------------------------------------------------------------- errors */

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

  /* -------------------------------------------------------------- shared */

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
        td(null, sha(r.commit)),
        td(null, badge(r.overall)),
        td({ class: "summary" }, r.summary || ""),
        td({ class: "nowrap" }, link(r.page, "run " + (r.job_id != null ? "#" + r.job_id : ""))))),
      "runs");
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
          tr.appendChild(td({ rowspan: span }, commitRange(r.last_good, r.first_bad)));
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

  /* --------------------------------------------------------------- index */

  function renderIndex(app, d) {
    app.appendChild(header([["benchbox"]], "Benchmarks",
      h("p", { class: "muted" }, (d.repositories || []).length + " repositories · generated " + fmtTime(d.generated) +
        (d.version ? " · benchbox " + d.version : ""))));
    const repos = d.repositories || [];
    if (!repos.length) app.appendChild(section("Nothing yet", muted("No repository has been measured yet.")));
    for (const r of repos) {
      const dir = repoDirFromPage(r.page);
      const nOpen = (r.open_regressions || []).length;
      app.appendChild(h("section", { class: "card repo" },
        h("h2", null, link(r.page, r.repository),
          nOpen ? h("span", { class: "badge badge-bad" }, nOpen + " open regression" + (nOpen > 1 ? "s" : "")) : null),
        nOpen ? [h("h3", null, "Open regressions"), regressionsTable(r.open_regressions)] : null,
        h("h3", null, "Latest runs"), runsTable(r.latest_runs, dir)));
    }
  }

  /* ---------------------------------------------------------- repository */

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
    app.appendChild(runsSection("Recent runs", d.runs, dir));
  }

  /* --------------------------------------------------------------- trend */

  const ENV_COLOURS = ["#2563eb", "#0d9488", "#9333ea", "#c2410c", "#0891b2", "#4d7c0f", "#be185d", "#475569"];
  function hexAlpha(hex, a) {
    const n = parseInt(hex.slice(1), 16);
    return "rgba(" + (n >> 16) + "," + ((n >> 8) & 255) + "," + (n & 255) + "," + a + ")";
  }
  const COLUMNS = ["x", "time", "commit", "job", "label", "median", "q1", "q3", "n", "status", "env"];

  // The chunks, concatenated column-wise, sorted by x.
  function joinChunks(chunks) {
    const cols = {};
    for (const c of COLUMNS) cols[c] = [];
    for (const ch of chunks) {
      const n = (ch && ch.x || []).length;
      for (const c of COLUMNS) {
        const src = ch[c];
        for (let i = 0; i < n; i++) cols[c].push(src && i < src.length ? src[i] : null);
      }
    }
    let sorted = true;
    for (let i = 1; i < cols.x.length; i++) if (!(cols.x[i - 1] < cols.x[i])) { sorted = false; break; }
    if (!sorted) {
      const order = cols.x.map((_, i) => i).sort((a, b) => cols.x[a] - cols.x[b]);
      for (const c of COLUMNS) cols[c] = order.map((i) => cols[c][i]);
    }
    return cols;
  }
  // Index of the first point with x >= v (binary search), clamped.
  function lowerBound(xs, v) {
    let lo = 0, hi = xs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
  }
  function nearestIdx(xs, v) {
    if (!xs.length) return -1;
    const i = lowerBound(xs, v);
    if (i <= 0) return 0;
    if (i >= xs.length) return xs.length - 1;
    return v - xs[i - 1] <= xs[i] - v ? i - 1 : i;
  }
  // The point a change point or an environment break names: by x (a
  // branch), else by job or commit (the release series has no x for them).
  function locate(P, x, commit, job) {
    const N = P.x.length;
    if (!N) return -1;
    if (isNum(x)) {
      const i = lowerBound(P.x, x);
      return i < N ? i : N - 1;
    }
    if (job != null) {
      const i = P.job.indexOf(job);
      if (i >= 0) return i;
    }
    if (commit) return P.commit.indexOf(commit);
    return -1;
  }
  function valueNear(vals, i) {  // the median at i, or the nearest one before/after it
    for (let k = 0; k < vals.length; k++) {
      if (i - k >= 0 && isNum(vals[i - k])) return vals[i - k];
      if (i + k < vals.length && isNum(vals[i + k])) return vals[i + k];
    }
    return null;
  }

  function selector(label, items, currentPage, text) {
    const sel = h("select", { "aria-label": label, disabled: items.length < 2 ? true : null });
    for (const it of items) {
      const o = h("option", { value: it.page }, text(it));
      if (it.page === currentPage) o.selected = true;
      sel.appendChild(o);
    }
    sel.addEventListener("change", () => { location.href = ROOT + sel.value; });
    return h("label", { class: "select" }, h("span", null, label), sel);
  }

  async function renderTrend(app, s) {
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

    const chunkData = await Promise.all((s.chunks || []).map((c) => load(c.src, c.name)));
    const P = joinChunks(chunkData);
    const N = P.x.length;

    // Download: the series and its points as one JSON file, made here.
    try {
      const blob = new Blob([JSON.stringify({ series: s, points: P }, null, 0)], { type: "application/json" });
      tools.appendChild(h("a", { href: URL.createObjectURL(blob), download: (s.id || "series") + ".json", class: "download" }, "download data (JSON)"));
    } catch (e) { /* no Blob: no download link */ }
    tools.appendChild(h("span", { class: "muted hint" },
      "Drag to zoom, double-click to reset; click a point to open its run."));

    if (!N) {
      chartBox.appendChild(muted("No points yet."));
      readout.textContent = "";
    } else {
      await drawTrendChart(s, P, { chartBox, readout, legend, repoDir, release, envs, envName });
    }
    app.appendChild(changePointsSection(s, P, repoDir, envName));
    app.appendChild(envSection(s, P, envName));
  }

  function drawTrendChart(s, P, o) {
    const { chartBox, readout, legend, repoDir, release, envs, envName } = o;
    const N = P.x.length;
    const X = P.x;
    const nEnv = Math.max(1, envs.length, ...P.env.filter(isNum).map((e) => e + 1));
    const unit = s.unit;

    // Series: per environment a median line and its q3/q1 band edges, so an
    // environment break is also a break (and a colour change) in the line.
    const data = [X];
    const series = [{ label: release ? "release" : "commit" }];
    const bands = [];
    const medianIdx = [];
    const used = new Set(P.env.map((e) => (isNum(e) ? e : 0)));
    for (let e = 0; e < nEnv; e++) {
      if (!used.has(e)) continue;
      const med = new Array(N), q1 = new Array(N), q3 = new Array(N);
      for (let i = 0; i < N; i++) {
        const mine = (isNum(P.env[i]) ? P.env[i] : 0) === e;
        med[i] = mine && isNum(P.median[i]) ? P.median[i] : null;
        q1[i] = mine && isNum(P.q1[i]) ? P.q1[i] : null;
        q3[i] = mine && isNum(P.q3[i]) ? P.q3[i] : null;
      }
      const col = ENV_COLOURS[e % ENV_COLOURS.length];
      const base = data.length;
      data.push(med, q3, q1);
      medianIdx.push(base);
      series.push(
        { label: "median " + envName(e), stroke: col, width: 1.5, spanGaps: false,
          points: { size: 5, fill: col, stroke: col } },
        { label: "q3 " + envName(e), stroke: hexAlpha(col, 0.35), width: 0.5, points: { show: false } },
        { label: "q1 " + envName(e), stroke: hexAlpha(col, 0.35), width: 0.5, points: { show: false } });
      bands.push({ series: [base + 1, base + 2], fill: hexAlpha(col, 0.16) });
      legend.appendChild(h("span", { class: "key-item" }, h("i", { class: "sw line", style: "background:" + col }),
        "median " + (nEnv > 1 ? envName(e) : "")));
      legend.appendChild(h("span", { class: "key-item" }, h("i", { class: "sw band", style: "background:" + hexAlpha(col, 0.25) }),
        "q1–q3" + (nEnv > 1 ? " " + envName(e) : "")));
    }

    // Marks: points-only series, null everywhere but at the marked points.
    function marks(label, at, style, legendCls) {
      const col = new Array(N).fill(null);
      let any = false;
      for (const i of at) {
        if (i < 0 || i >= N) continue;
        const v = valueNear(P.median, i);
        if (v == null) continue;
        col[i] = v;
        any = true;
      }
      if (!any) return;
      data.push(col);
      series.push({ label, stroke: style.stroke, paths: () => null, spanGaps: false,
        points: { show: true, space: 0, size: style.size, width: style.width, stroke: style.stroke, fill: style.fill } });
      legend.appendChild(h("span", { class: "key-item" }, h("i", { class: "sw " + legendCls }), label));
    }
    const failedAt = [];
    for (let i = 0; i < N; i++) if ((P.status[i] && P.status[i] !== "ok") || !isNum(P.median[i])) failedAt.push(i);
    const cpIdx = (c) => locate(P, c.x, c.commit_after, c.job_after);
    const breakIdx = (b) => locate(P, b.x, b.commit, b.job);
    const cps = s.change_points || [];
    marks("failed / skipped", failedAt, { size: 7, width: 1.5, stroke: "#b91c1c", fill: "#ffffff" }, "m-failed");
    marks("environment break", (s.env_breaks || []).map(breakIdx), { size: 16, width: 2, stroke: "#111827", fill: "rgba(0,0,0,0)" }, "m-env");
    marks("change point (worse)", cps.filter((c) => c.worse).map(cpIdx), { size: 12, width: 2, stroke: "#b91c1c", fill: "#fca5a5" }, "m-worse");
    marks("change point (better)", cps.filter((c) => !c.worse).map(cpIdx), { size: 12, width: 2, stroke: "#15803d", fill: "#86efac" }, "m-better");

    // The x axis: the commit dates (or tag labels) of the points at the
    // ticks; a tick with no point within half a step stays blank, and the
    // time of day shows when two ticks fall on one day.
    const xLabels = (splits, incr) => {
      const idx = splits.map((v) => {
        const i = nearestIdx(X, v);
        return i >= 0 && Math.abs(X[i] - v) <= (release ? 0 : incr / 2) ? i : -1;
      });
      // A point labels one tick at most: the nearest.
      for (let k = 1; k < idx.length; k++) {
        if (idx[k] < 0 || idx[k] !== idx[k - 1]) continue;
        const x = X[idx[k]];
        if (Math.abs(splits[k] - x) < Math.abs(splits[k - 1] - x)) idx[k - 1] = -1; else idx[k] = -1;
      }
      if (release) return idx.map((i, k) => (i < 0 ? "" : P.label[i] || String(splits[k])));
      const days = idx.filter((i) => i >= 0).map((i) => fmtDay(P.time[i]));
      const sameDay = days.some((d, k) => k > 0 && d === days[k - 1]);
      return idx.map((i) => (i < 0 ? "" : sameDay ? fmtTime(P.time[i]).slice(5) : fmtDay(P.time[i])));
    };
    const intIncrs = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000, 25000, 50000, 100000, 200000, 500000, 1e6];

    const hoverShown = new Set(medianIdx);
    const runPage = (i) => (isNum(P.job[i]) ? repoDir + "runs/" + P.job[i] + ".html" : null);

    // The readout: one set of spans, rewritten as the cursor moves.
    const f = {};
    for (const k of ["what", "commit", "date", "median", "iqr", "n", "job", "env", "status"]) f[k] = h("span", { class: "ro-" + k });
    append(readout, [f.what, f.commit, f.date, f.median, f.iqr, f.n, f.job, f.env, f.status]);
    function showPoint(i, hovering) {
      if (i == null || i < 0 || i >= N) return;
      f.what.textContent = (hovering ? "" : "latest: ") + (release ? (P.label[i] || "release " + X[i]) : "position " + X[i]);
      f.commit.textContent = "commit " + shortSha(P.commit[i]);
      f.date.textContent = fmtTime(P.time[i]);
      f.median.textContent = "median " + fmtValue(P.median[i], unit);
      f.iqr.textContent = "q1–q3 " + fmtValue(P.q1[i], unit) + " – " + fmtValue(P.q3[i], unit);
      f.n.textContent = "n " + (P.n[i] != null ? P.n[i] : "–");
      f.job.textContent = "job " + (P.job[i] != null ? P.job[i] : "–");
      f.env.textContent = nEnv > 1 ? envName(isNum(P.env[i]) ? P.env[i] : 0) : "";
      f.status.textContent = P.status[i] && P.status[i] !== "ok" ? P.status[i] : "";
      f.status.className = "ro-status" + (P.status[i] && P.status[i] !== "ok" ? " badge badge-bad" : "");
    }
    showPoint(N - 1, false);

    let ready;
    const drawn = new Promise((res) => { ready = res; });
    const width = () => Math.max(320, chartBox.clientWidth || 800);
    const opts = {
      width: width(),
      height: 400,
      legend: { show: false },
      scales: { x: { time: false } },
      series,
      bands,
      cursor: {
        points: {
          show: (u, si) => {
            if (!hoverShown.has(si)) return null;
            const el = document.createElement("div");
            el.style.width = el.style.height = "9px";
            el.style.marginLeft = el.style.marginTop = "-4.5px";
            return el;
          },
        },
        drag: { x: true, y: false, setScale: true },
      },
      axes: [
        { space: release ? 60 : 90, incrs: intIncrs,
          values: (u, splits, ax, space, incr) => xLabels(splits, incr),
          grid: { stroke: "#eef0f3" }, ticks: { stroke: "#d0d5dd" } },
        { size: 78, values: (u, splits, ax, space, incr) => fmtTicks(splits, incr, unit),
          grid: { stroke: "#eef0f3" }, ticks: { stroke: "#d0d5dd" } },
      ],
      hooks: {
        ready: [() => ready()],
        setCursor: [(u) => {
          const i = u.cursor.idx;
          if (i == null) showPoint(N - 1, false); else showPoint(i, true);
        }],
      },
    };
    const u = new uPlot(opts, data, chartBox);
    u.over.addEventListener("click", (e) => {
      const i = u.cursor.idx;
      if (i == null) return;
      const px = u.valToPos(X[i], "x");
      if (Math.abs(px - e.offsetX) > 24) return;
      const p = runPage(i);
      if (p) location.href = ROOT + p;
    });
    let t;
    window.addEventListener("resize", () => {
      clearTimeout(t);
      t = setTimeout(() => u.setSize({ width: width(), height: 400 }), 100);
    });
    benchbox.chart = u;
    benchbox.zoomTo = (x0, x1) => u.setScale("x", { min: x0, max: x1 });
    return drawn;
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

  function envSection(s, P, envName) {
    const envs = s.environments || [];
    const breaks = s.env_breaks || [];
    const envCell = (e) => h("span", null, envName(e), envs[e] ? [" ", code(envs[e].key)] : null);
    return section("Environments",
      envs.length ? table(["", "environment key", "machine fingerprint", ["points", { class: "num" }]], envs.map((e, i) => h("tr", null,
        td(null, h("i", { class: "sw line", style: "background:" + ENV_COLOURS[i % ENV_COLOURS.length] }), " " + envName(i)),
        td(null, code(e.key)), td(null, code(e.machine)),
        td({ class: "num" }, isNum(e.points) ? String(e.points) : String(P.env.filter((v) => v === i).length))))) : muted("No environment recorded."),
      h("h3", null, "Environment breaks"),
      breaks.length ? table(["at", "commit", "from", "to"], breaks.map((b) => h("tr", null,
        td(null, zoomButton(locate(P, b.x, b.commit, b.job), P)), td(null, sha(b.commit)), td(null, envCell(b.from)), td(null, envCell(b.to)))))
        : muted("The environment never changed in this series."));
  }

  /* ----------------------------------------------------------------- run */

  const MAIN_ORDER = ["regressed", "failed", "missing", "improved", "inconclusive", "not_comparable"];

  function effectWorse(r) {  // > 1 when worse, whatever the direction
    if (!isNum(r.ratio) || r.ratio <= 0) return null;
    return lowerIsBetter(r.direction, r.higher_is_better) ? r.ratio : 1 / r.ratio;
  }
  function byKey(a, b) {
    const ka = a.id || "", kb = b.id || "";
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  }

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
      ["tuning", badge(d.tuning === "tuned" ? "tuned" : d.tuning === "drifted" ? "drifted" : "unknown", d.tuning || "unknown")],
    ];
    app.appendChild(h("section", { class: "card run-head" },
      h("div", { class: "overall" }, badge(d.overall), h("span", { class: "summary" }, d.summary || "")),
      h("dl", { class: "facts" }, facts.filter((f) => f[1] != null).map((f) => [h("dt", null, f[0]), h("dd", null, f[1])]))));

    const c = d.comparison;
    if (c && Array.isArray(c.rows)) {
      app.appendChild(comparisonSection(c, keyCell, hx));
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

  function renderRun(app, d) {
    const job = d.job || {};
    const repoName = job.repository || (d.comparison && d.comparison.repository) || dirOf(d.repository_page).replace(/^r\//, "").replace(/\/$/, "");
    const id = job.id != null ? job.id : "";
    const crumbs = [brand(), [repoName, d.repository_page]];
    if (job.pr_number > 0 && d.pull_page) crumbs.push(["PR #" + job.pr_number, d.pull_page]);
    crumbs.push(["run #" + id]);
    document.title = "run #" + id + " · " + repoName + " · benchbox";
    app.appendChild(header(crumbs, "Run #" + id));
    renderRunBody(app, d, 2);
  }

  /* ---------------------------------------------------------------- pull */

  async function renderPull(app, d) {
    const dir = repoDirFromName(d.repository) || repoDirFromPage(((d.runs || [])[0] || {}).page);
    app.appendChild(header([brand(), [d.repository, dir ? dir + "index.html" : null], ["PR #" + d.number]],
      "Pull request #" + d.number));
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
    renderRunBody(holder, run, 3);
    app.appendChild(holder);
  }

  /* --------------------------------------------------------------- start */

  const PAGES = { index: renderIndex, repository: renderRepository, trend: renderTrend, run: renderRun, pull: renderPull };

  benchbox.start = function () {
    const ds = document.body.dataset;
    ROOT = ds.root || "./";
    if (!ROOT.endsWith("/")) ROOT += "/";
    const app = document.getElementById("app");
    if (app) app.textContent = "";
    const render = PAGES[ds.page];
    Promise.resolve()
      .then(() => {
        if (!app) throw new Error("the page has no #app element");
        if (!render) throw new Error("unknown data-page \"" + (ds.page || "") + "\"");
        if (!ds.src || !ds.name) throw new Error("the page names no data file (data-src, data-name)");
        if (typeof uPlot === "undefined" && ds.page === "trend") throw new Error("uPlot did not load (assets/uplot/uPlot.iife.min.js)");
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

  benchbox.format = { value: fmtValue, ratio: fmtRatio, change: fmtChange };
  window.benchbox = benchbox;
})();
