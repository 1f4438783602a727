/* benchbox dashboard: a trend's points (the series' chunks, joined
 * column-wise) and their uPlot chart: per environment the median and its
 * q1-q3 band, marks for failures, environment breaks and change points, a
 * readout of the point under the cursor, click-through to its run. */
(function (benchbox) {
  "use strict";

  const { site, h, append, isNum, fmtValue, fmtTicks, fmtDay, fmtTime, shortSha } = benchbox._;

  const ENV_COLOURS = ["#2563eb", "#0d9488", "#9333ea", "#c2410c", "#0891b2", "#4d7c0f", "#be185d", "#475569"];
  function hexAlpha(hex, a) {
    const n = parseInt(hex.slice(1), 16);
    return "rgba(" + (n >> 16) + "," + ((n >> 8) & 255) + "," + (n & 255) + "," + a + ")";
  }
  const COLUMNS = ["x", "time", "commit", "job", "label", "median", "q1", "q3", "n", "status", "env"];

  // A float column of a chunk: little-endian float32 (or float64) in
  // base64, NaN for a point not measured. Values stay as float32 gave them
  // (0.1 is 0.10000000149...): the chart and the readout round anyway, and
  // the download rounds them back to 7 significant digits (round7).
  //
  // A page runs this once, cold (interpreted): a loop over every byte in
  // JavaScript was most of a 10,000-point page's decoding. The browser's
  // own base64 decoder and typed-array copy do it where they exist; the
  // column then holds plain doubles unless a point was not measured.
  const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  function base64Bytes(text) {
    if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
    const bin = atob(text);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }
  function floats(col, n) {
    const wide = !!(col && col.f64 != null);
    const bytes = base64Bytes((col && (wide ? col.f64 : col.f32)) || "");
    const width = wide ? 8 : 4;
    const m = Math.min(n, Math.floor(bytes.length / width));
    let out;
    if (LITTLE_ENDIAN) {
      const buf = bytes.byteOffset % width === 0 ? bytes.buffer : bytes.slice().buffer;
      const off = bytes.byteOffset % width === 0 ? bytes.byteOffset : 0;
      const vals = wide ? new Float64Array(buf, off, m) : new Float32Array(buf, off, m);
      out = Array.from(vals);
      if (vals.includes(NaN)) for (let i = 0; i < m; i++) if (out[i] !== out[i]) out[i] = null;
    } else {
      const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      out = new Array(m);
      for (let i = 0; i < m; i++) {
        const v = wide ? dv.getFloat64(8 * i, true) : dv.getFloat32(4 * i, true);
        out[i] = v !== v ? null : v;
      }
    }
    // A column shorter than its chunk: the points it lacks were not measured.
    while (out.length < n) out.push(null);
    return out;
  }
  function round7(vals) { return vals.map((v) => (v == null ? null : +v.toPrecision(7))); }
  function undelta(d, n) {
    const out = new Array(n);
    const m = d ? Math.min(n, d.length) : 0;
    let v = 0;
    for (let i = 0; i < m; i++) { v += d[i] || 0; out[i] = v; }
    if (m < n) out.fill(v, m);  // deltas missing at the end: 0
    return out;
  }
  // A chunk's columns (docs/dashboard.md, "chunk"): benchbox.site.chunk/2
  // decoded, its commits not yet loaded (null); the plain columns of a
  // chunk written before it (a site still being rendered again after an
  // upgrade) as they are.
  function decodeChunk(ch) {
    if (!ch || ch.schema !== "benchbox.site.chunk/2") return ch || {};
    const n = ch.points | 0;
    const st = ch.status || {};
    const values = st.values || [], index = st.index || [];
    let status;
    if (values.length === 1 && index.length === n && (n === 0 || (index[0] === 0 && new Set(index).size === 1))) {
      status = new Array(n).fill(values[0] != null ? values[0] : null);  // all one status (as a rule, "ok")
    } else {
      status = new Array(n);
      for (let i = 0; i < n; i++) status[i] = values[index[i]] != null ? values[index[i]] : null;
    }
    const label = new Array(n).fill(null);
    for (const l of ch.labels || []) if (l && l[0] < n) label[l[0]] = l[1];
    return { x: undelta(ch.x, n), time: undelta(ch.time, n), job: undelta(ch.job, n), label,
      median: floats(ch.median, n), q1: floats(ch.q1, n), q3: floats(ch.q3, n),
      n: ch.n || [], status, env: ch.env || [], commit: null, commits: ch.commits || null };
  }

  // The chunks, concatenated column-wise, sorted by x. Each point keeps
  // where it came from, for its commit id when that chunk's commits load.
  // Chunks come in x order (the unplaced, negative x first), so a column
  // is one native concat; a sort is only for a site that breaks that.
  function joinChunks(raw) {
    const chunks = raw.map(decodeChunk);
    const sizes = chunks.map((ch) => (ch.x || []).length);
    const N = sizes.reduce((a, b) => a + b, 0);
    const P = {};
    for (const c of COLUMNS) {
      P[c] = [].concat(...chunks.map((ch, k) => {
        const src = ch[c];
        if (src && src.length === sizes[k]) return src;
        const out = new Array(sizes[k]).fill(null);
        for (let i = 0; src && i < Math.min(src.length, sizes[k]); i++) out[i] = src[i];
        return out;
      }));
    }
    // Native fills and slices, not a loop over every point (see floats).
    P.fromChunk = new Array(N);
    const iota = [];
    for (let i = 0, top = Math.max(0, ...sizes); i < top; i++) iota.push(i);
    for (let k = 0, at = 0; k < chunks.length; at += sizes[k], k++) P.fromChunk.fill(k, at, at + sizes[k]);
    P.fromIndex = [].concat(...sizes.map((size) => iota.slice(0, size)));
    let sorted = true;
    for (let i = 1; i < N; i++) if (!(P.x[i - 1] < P.x[i])) { sorted = false; break; }
    if (!sorted) {
      // A point in two files (a page loaded while a push folded a tail
      // into its chunk) is drawn once.
      const order = P.x.map((_, i) => i).sort((a, b) => P.x[a] - P.x[b] || P.job[a] - P.job[b])
        .filter((i, k, o) => k === 0 || P.job[i] == null || P.x[o[k - 1]] !== P.x[i] || P.job[o[k - 1]] !== P.job[i]);
      for (const c of COLUMNS.concat(["fromChunk", "fromIndex"])) P[c] = order.map((i) => P[c][i]);
    }
    P.commitFiles = chunks.map((ch) => ch.commits);
    P.commitsLoaded = chunks.map((ch) => !ch.commits);
    return P;
  }

  // A ref chunk's commits (benchbox.site.commits/1: its runs' jobs,
  // delta-encoded, and their commit ids) as a map from job to commit; null
  // for the array of ids by point that a series chunk had before.
  function commitsByJob(c) {
    if (!c || c.schema !== "benchbox.site.commits/1") return null;
    const n = c.points | 0, jobs = undelta(c.job, n), ids = c.commit || [];
    const out = new Map();
    for (let i = 0; i < n; i++) out.set(jobs[i], ids[i]);
    return out;
  }

  // Loads the commit ids of the chunks that hold points `idx` (every chunk
  // when idx is null) into P.commit.
  function loadCommits(P, idx) {
    const want = new Set();
    const from = idx == null ? P.commitFiles.map((_, k) => k) : idx.filter((i) => i >= 0 && i < P.x.length).map((i) => P.fromChunk[i]);
    for (const k of from) if (!P.commitsLoaded[k] && P.commitFiles[k]) want.add(k);
    return Promise.all([...want].map((k) => benchbox._.load(P.commitFiles[k].src, P.commitFiles[k].name).then((ids) => {
      if (P.commitsLoaded[k]) return;
      P.commitsLoaded[k] = true;
      const byJob = commitsByJob(ids);
      for (let i = 0; i < P.x.length; i++) {
        if (P.fromChunk[i] !== k) continue;
        P.commit[i] = (byJob ? byJob.get(P.job[i]) : ids && ids[P.fromIndex[i]]) || null;
      }
    })));
  }
  function commitsLoaded(P, i) { return P.commitsLoaded[P.fromChunk[i]]; }

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

  // The points by environment, a point without one counted as environment
  // 0 (as the chart draws it): from a native Set when there is one, not a
  // callback per point.
  function pointsByEnv(P) {
    const kinds = new Set(P.env);
    if (kinds.size === 1) {
      const [e] = kinds;
      return new Map([[isNum(e) ? e : 0, P.env.length]]);
    }
    const out = new Map();
    for (const v of P.env) {
      const e = isNum(v) ? v : 0;
      out.set(e, (out.get(e) || 0) + 1);
    }
    return out;
  }

  // `o.byEnv`: pointsByEnv(P), which the page's environments table uses too.
  function drawTrendChart(s, P, o) {
    const { chartBox, readout, legend, repoDir, release, envs, envName, byEnv } = o;
    const N = P.x.length;
    const X = P.x;
    const used = new Set(byEnv.keys());  // the environments the points ran in
    const nEnv = Math.max(1, envs.length, ...[...used].map((e) => e + 1));
    const unit = s.unit;

    // Series: per environment a median line and its q3/q1 band edges, so an
    // environment break is also a break (and a colour change) in the line.
    const data = [X];
    const series = [{ label: release ? "release" : "commit" }];
    const bands = [];
    const medianIdx = [];
    // A column as uPlot draws it: finite numbers, null for a gap. The
    // joined columns hold numbers or null (decoded, or a JSON column, or
    // padding), so only a value that is not finite needs the copy.
    const drawable = (col) => !col.includes(undefined) && !col.includes(NaN) && !col.includes(Infinity) &&
      !col.includes(-Infinity);
    for (let e = 0; e < nEnv; e++) {
      if (!used.has(e)) continue;
      let med, q1, q3;
      if (used.size === 1 && [P.median, P.q1, P.q3].every(drawable)) {
        // One environment (the rule): every point is its, as decoded.
        med = P.median; q1 = P.q1; q3 = P.q3;
      } else {
        med = new Array(N); q1 = new Array(N); q3 = new Array(N);
        for (let i = 0; i < N; i++) {
          const mine = (isNum(P.env[i]) ? P.env[i] : 0) === e;
          med[i] = mine && isNum(P.median[i]) ? P.median[i] : null;
          q1[i] = mine && isNum(P.q1[i]) ? P.q1[i] : null;
          q3[i] = mine && isNum(P.q3[i]) ? P.q3[i] : null;
        }
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
    const statuses = new Set(P.status);
    const allOk = statuses.size === 1 && statuses.has("ok") && drawable(P.median) && !P.median.includes(null);
    if (!allOk)
      for (let i = 0; i < N; i++) if ((P.status[i] && P.status[i] !== "ok") || !isNum(P.median[i])) failedAt.push(i);
    const cpIdx = (c) => locate(P, c.x, c.commit_after, c.job_after);
    const breakIdx = (b) => locate(P, b.x, b.commit, b.job);
    const cps = s.change_points || [];
    marks("failed / skipped", failedAt, { size: 7, width: 1.5, stroke: "#b91c1c", fill: "#ffffff" }, "m-failed");
    marks("environment break", (s.env_breaks || []).map(breakIdx), { size: 16, width: 2, stroke: "#111827", fill: "rgba(0,0,0,0)" }, "m-env");
    marks("change point (worse)", cps.filter((c) => c.worse).map(cpIdx), { size: 12, width: 2, stroke: "#b91c1c", fill: "#fca5a5" }, "m-worse");
    marks("change point (better)", cps.filter((c) => !c.worse).map(cpIdx), { size: 12, width: 2, stroke: "#15803d", fill: "#86efac" }, "m-better");
    // The culprit a bisection named: a dashed line at its first-parent
    // position (usually between two measured pushes), named in the legend.
    const culprits = (s.culprits || []).filter((c) => isNum(c.x));
    for (const c of culprits)
      legend.appendChild(h("span", { class: "key-item" }, h("i", { class: "sw m-culprit" }),
        "culprit #" + c.x + " " + shortSha(c.commit) + (c.subject ? " " + c.subject : "") +
        (c.effect ? " · " + String(c.effect).replace(/`/g, "") : "")));
    const drawCulprits = (u) => {
      const ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = "#b91c1c";
      ctx.lineWidth = 1.5 * devicePixelRatio;
      ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
      for (const c of culprits) {
        const px = u.valToPos(c.x, "x", true);
        if (px < u.bbox.left || px > u.bbox.left + u.bbox.width) continue;
        ctx.beginPath();
        ctx.moveTo(px, u.bbox.top);
        ctx.lineTo(px, u.bbox.top + u.bbox.height);
        ctx.stroke();
      }
      ctx.restore();
    };

    // The x axis: the first-parent position of the point at each tick (or
    // its tag label), with the commit's date under it where the date
    // differs from the previous label's. Commits cherry-picked or rebased
    // at once share one date, so a date on every tick would read the same
    // minute across the whole chart. A tick with no point within half a
    // step stays blank.
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
      let shownDay = null;
      return idx.map((i) => {
        if (i < 0) return "";
        const day = P.time[i] > 0 ? fmtDay(P.time[i]) : null;
        const label = "#" + X[i] + (day && day !== shownDay ? "\n" + day : "");
        if (day) shownDay = day;
        return label;
      });
    };
    const intIncrs = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000, 25000, 50000, 100000, 200000, 500000, 1e6];

    const hoverShown = new Set(medianIdx);
    const runPage = (i) => (isNum(P.job[i]) ? repoDir + "runs/" + P.job[i] + ".html" : null);

    // The readout: one set of spans, rewritten as the cursor moves.
    const f = {};
    for (const k of ["what", "commit", "date", "median", "iqr", "n", "job", "env", "status"]) f[k] = h("span", { class: "ro-" + k });
    append(readout, [f.what, f.commit, f.date, f.median, f.iqr, f.n, f.job, f.env, f.status]);
    let shown = -1;
    function showPoint(i, hovering) {
      if (i == null || i < 0 || i >= N) return;
      f.what.textContent = (hovering ? "" : "latest: ") + (release ? (P.label[i] || "release " + X[i]) : "position " + X[i]);
      shown = i;
      if (commitsLoaded(P, i)) f.commit.textContent = "commit " + shortSha(P.commit[i]);
      else {
        f.commit.textContent = "commit …";
        loadCommits(P, [i]).then(() => {
          if (shown === i) f.commit.textContent = "commit " + shortSha(P.commit[i]);
        }, () => { if (shown === i) f.commit.textContent = "commit ?"; });
      }
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
        { space: release ? 60 : 90, incrs: intIncrs, size: release ? 50 : 56,
          values: (u, splits, ax, space, incr) => xLabels(splits, incr),
          grid: { stroke: "#eef0f3" }, ticks: { stroke: "#d0d5dd" } },
        { size: 78, values: (u, splits, ax, space, incr) => fmtTicks(splits, incr, unit),
          grid: { stroke: "#eef0f3" }, ticks: { stroke: "#d0d5dd" } },
      ],
      hooks: {
        ready: [() => ready()],
        draw: [drawCulprits],
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
      if (p) location.href = site.root + p;
    });
    let t;
    window.addEventListener("resize", () => {
      clearTimeout(t);
      t = setTimeout(() => u.setSize({ width: width(), height: 400 }), 100);
    });
    // On window.benchbox: the zoom buttons (trend.js) and browser tests use them.
    benchbox.chart = u;
    benchbox.zoomTo = (x0, x1) => u.setScale("x", { min: x0, max: x1 });
    return drawn;
  }

  Object.assign(benchbox._, { ENV_COLOURS, COLUMNS, joinChunks, loadCommits, round7, locate, pointsByEnv,
    drawTrendChart });
})(window.benchbox = window.benchbox || {});
