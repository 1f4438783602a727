/* benchbox dashboard: formatting numbers in their units, axis ticks, dates,
 * commits, refs, ratios and changes, and the badges of verdicts and
 * statuses. */
(function (benchbox) {
  "use strict";

  const { h, td } = benchbox._;

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
  // At least double or at most half reads as a ratio ("34.5×"), not as
  // "+3355.4 %"; smaller changes as percentages.
  function fmtChange(ratio, dec) {
    if (!isNum(ratio)) return "–";
    if (ratio >= 2 || (ratio > 0 && ratio <= 0.5)) return ratio.toFixed(ratio >= 10 ? 1 : 2) + "×";
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

  Object.assign(benchbox._, { isNum, fmtValue, fmtTicks, fmtDay, fmtTime, timeCell, shortSha, sha,
    commitRange, refName, fmtRatio, pctDecimals, fmtChange, fmtPct, lowerIsBetter, normVerdict,
    VERDICT_LABELS, badge, statusCell });

  benchbox.format = { value: fmtValue, ratio: fmtRatio, change: fmtChange };
})(window.benchbox = window.benchbox || {});
