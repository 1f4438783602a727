/* benchbox dashboard: building the DOM (elements, links, tables, cards) and
 * the site's paths. Text always goes in as text nodes, never as HTML. */
(function (benchbox) {
  "use strict";

  const { site } = benchbox._;

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
    return h("a", { href: site.root + path }, ...children);
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

  Object.assign(benchbox._, { h, append, link, extLink, table, td, muted, section, code, dirOf,
    repoDirFromPage, repoDirFromName });
})(window.benchbox = window.benchbox || {});
