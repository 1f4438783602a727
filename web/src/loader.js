/* benchbox dashboard front-end (docs/dashboard.md): the data loader.
 *
 * The front-end is the files of web/src/, each an IIFE on window.benchbox,
 * concatenated in the order lib/report/meson.build lists them, after uPlot,
 * into the one asset assets/benchbox.js that every page shell loads; a
 * module only uses modules listed before it. What modules share lives on
 * benchbox._ (internal); the public API is benchbox.receive(name, json) and
 * benchbox.start().
 *
 * benchbox.start() (start.js) reads the body's data-page / data-root /
 * data-src / data-name, loads the data file (a script that calls
 * benchbox.receive(name, json): pages opened from file:// cannot fetch()),
 * and renders into #app. When everything is drawn it sets
 * body[data-ready="1"]; on any failure it shows the message and sets
 * body[data-error]. All text goes in with textContent; every link is
 * data-root + a path from the data files. No network, and no build step
 * beyond that concatenation. */
(function (benchbox) {
  "use strict";

  // What the modules share (internal, not API); each adds to it.
  benchbox._ = benchbox._ || {};
  // The site root that every path in the data files is relative to: the
  // body's data-root, set by benchbox.start().
  const site = { root: "./" };

  const waiting = new Map();   // name -> {resolve}
  const received = new Map();  // name -> json, for a receive() nobody asked for yet
  const loads = new Map();     // src + "\n" + name -> Promise
  const scripts = new Map();   // src -> Promise, settled once the script has run

  benchbox.receive = function (name, json) {
    const w = waiting.get(name);
    if (w) {
      waiting.delete(name);
      w.resolve(json);
    } else {
      received.set(name, json);
    }
  };

  // Runs a data file's <script> once, however many of the names it hands
  // over are asked for: a pack of a trend's older chunks is one file.
  function run(src) {
    if (scripts.has(src)) return scripts.get(src);
    const p = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.async = true;
      s.src = site.root + src;
      s.addEventListener("error", () => reject(new Error("could not load the data file " + src)));
      s.addEventListener("load", () => {
        s.remove();
        resolve();
      });
      document.head.appendChild(s);
    });
    scripts.set(src, p);
    return p;
  }

  // Loads `name` from a data file: a <script> that calls
  // benchbox.receive(name, json), perhaps for other names too. One Promise
  // per (src, name); a missing file rejects naming the file.
  function load(src, name) {
    const key = src + "\n" + name;
    if (loads.has(key)) return loads.get(key);
    const p = new Promise((resolve, reject) => {
      const take = () => {
        const j = received.get(name);
        received.delete(name);
        return j;
      };
      if (received.has(name)) {
        resolve(take());
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
      const timer = setTimeout(() =>
        done(reject, new Error("timed out loading the data file " + src)), 60000);
      run(src).then(() => {
        // The script has run: if it did not hand over `name`, it never will.
        if (received.has(name)) done(resolve, take());
        else done(reject, new Error("the data file " + src + " did not call benchbox.receive(\"" + name + "\", …)"));
      }, (e) => done(reject, e));
    });
    loads.set(key, p);
    return p;
  }
  benchbox.load = load;

  Object.assign(benchbox._, { site, load });
})(window.benchbox = window.benchbox || {});
