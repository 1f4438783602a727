#!/usr/bin/env python3
"""Real-browser check of a benchbox dashboard site (docs/dashboard.md).

    check_site.py --base URL_OR_PATH_OF_SITE_ROOT [--screenshots DIR] [--timing N]
                  [--expect PAGE=TEXT]... [--reject PAGE=TEXT]...
                  [--flame PAGE=FUNCTION:slower|faster|unchanged]... PAGE...

Drives Debian's Chromium (headless) through Debian's chromedriver over the
W3C WebDriver HTTP protocol on 127.0.0.1; Python's standard library only.
For each PAGE (a path relative to the site root, e.g. index.html or
r/o/n/t/<sid>.html) it navigates, waits until the body has data-ready="1"
or data-error, and fails the page on data-error or a timeout, on a <canvas>
that drew (almost) nothing or a trend page with no canvas, on any SEVERE
entry in the browser's console log, and on a link (<a href>, <link href>,
<script src>) that does not resolve: for a file:// base the file must
exist (query and fragment ignored), for an http(s) base a GET of a link on
the same origin must answer 200; links to other origins, mailto:, blob:,
data: and javascript: are skipped. With --screenshots DIR it saves a
full-page PNG per page, named after the page path. --expect PAGE=TEXT fails
PAGE unless its rendered text (document.body.innerText, whitespace folded to
single spaces) contains TEXT; --reject PAGE=TEXT fails it if it does. Both
may repeat: what a page must say, and what it must never say.
--flame PAGE=FUNCTION:CHANGE fails PAGE unless its differential flame graph
(web/src/flame.js, drawn by d3-flame-graph) has a frame named FUNCTION, each
such frame drawn wider than 0 and filled with the colour of CHANGE: slower
red, faster blue, unchanged grey (read from the rect's fill: a channel at
least 40 above the other two, or all three within 10).

Prints one line per page:
    ok PAGE: N canvases drawn, M links checked
    FAIL PAGE: why; why
then "check_site: P passed, F failed", and exits 1 if any page failed
(2 when the browser could not be started or the arguments are wrong).

--timing N loads each page N more times with the browser cache disabled
and prints one JSON line per load,
    {"timing": PAGE, "run": i, "ready_ms": T, "bytes": B, "resources": R, "base": "file"|"http"}
(T: from navigation start to data-ready, the page's "benchbox-ready"
performance mark; B: what the page loaded: over http the document's and
every resource's encodedBodySize, from file:// the sizes on disk of the page
and of every loaded resource), then one summary line per page,
    {"timing": PAGE, "runs": N, "ready_ms_min": .., "ready_ms_median": .., "ready_ms_max": .., "bytes": B}.

Needs: apt-get install -y --no-install-recommends chromium chromium-driver
"""
import argparse
import base64
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

CHROME_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
    "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--window-size=1400,900",
]
MIN_CANVAS_PIXELS = 1000      # non-transparent pixels a drawn chart has at least
MAX_SCREENSHOT_HEIGHT = 12000


class Failure(Exception):
    pass


class Interrupted(Exception):
    pass


class WebDriver:
    """The few W3C WebDriver (and chromedriver) endpoints this check needs."""

    def __init__(self, chromedriver, chromium, verbose=False, network_log=False):
        self.proc = None
        self.session = None
        self.userdir = tempfile.mkdtemp(prefix="check-site-chromium-")
        self.port = free_port()
        self.log_path = os.path.join(self.userdir, "chromedriver.log") if verbose else os.devnull
        self._log = open(self.log_path, "w")
        # Its own process group, so the browser it starts goes with it.
        # Everything the browser writes (profile, crash database, caches) stays in userdir.
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(self.userdir, "config"),
                   XDG_CACHE_HOME=os.path.join(self.userdir, "cache"))
        self.proc = subprocess.Popen([chromedriver, "--port=%d" % self.port, "--allowed-ips=127.0.0.1"],
                                     stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
                                     env=env, start_new_session=True)
        deadline = time.monotonic() + 20
        while True:
            try:
                st = self.call("GET", "/status", timeout=2)
                if st.get("ready"):
                    break
            except (OSError, Failure):
                pass
            if self.proc.poll() is not None:
                raise Failure("chromedriver exited with status %s" % self.proc.returncode)
            if time.monotonic() > deadline:
                raise Failure("chromedriver did not become ready on port %d within 20 s" % self.port)
            time.sleep(0.1)
        options = {"binary": chromium, "args": CHROME_ARGS + ["--user-data-dir=" + os.path.join(self.userdir, "profile")]}
        logging = {"browser": "ALL"}
        if network_log:  # the requests a page makes, for --timing from file:// (no resource timing there)
            options["perfLoggingPrefs"] = {"enableNetwork": True, "enablePage": False}
            logging["performance"] = "ALL"
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "pageLoadStrategy": "normal",
            "goog:chromeOptions": options,
            "goog:loggingPrefs": logging,
            "timeouts": {"pageLoad": 60000, "script": 60000, "implicit": 0},
        }}}
        v = self.call("POST", "/session", caps, timeout=120)
        self.session = v["sessionId"]
        self.browser_version = v.get("capabilities", {}).get("browserVersion", "?")
        self._log_endpoint = None

    def call(self, method, path, body=None, timeout=120):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=data, method=method,
                                     headers={"Content-Type": "application/json; charset=utf-8"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                payload = json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            try:
                v = json.loads(e.read()).get("value", {})
                msg = "%s: %s" % (v.get("error", e.code), (v.get("message") or "").splitlines()[0] if v.get("message") else "")
            except Exception:
                msg = "HTTP %d" % e.code
            raise Failure("webdriver %s %s: %s" % (method, path.split("/")[-1] or path, msg)) from None
        return payload.get("value")

    def s(self, path):
        return "/session/%s%s" % (self.session, path)

    def navigate(self, url):
        self.call("POST", self.s("/url"), {"url": url})

    def execute(self, script, *args):
        return self.call("POST", self.s("/execute/sync"), {"script": script, "args": list(args)})

    def cdp(self, cmd, params=None):
        return self.call("POST", self.s("/goog/cdp/execute"), {"cmd": cmd, "params": params or {}})

    def browser_log(self, kind="browser"):
        """Drains the browser console log (or the "performance" log):
        chromedriver's legacy log endpoint (/se/log in current versions, /log
        in older ones)."""
        paths = [self._log_endpoint] if self._log_endpoint else ["/se/log", "/log"]
        last = None
        for p in paths:
            try:
                v = self.call("POST", self.s(p), {"type": kind})
                self._log_endpoint = p
                return v or []
            except Failure as e:
                last = e
        raise Failure("cannot read the browser log: %s" % last)

    def screenshot(self, path):
        png = None
        try:  # the whole page, not just the window
            m = self.cdp("Page.getLayoutMetrics")
            size = m.get("cssContentSize") or m.get("contentSize")
            w = int(min(max(size["width"], 1), 4000))
            h = int(min(max(size["height"], 1), MAX_SCREENSHOT_HEIGHT))
            r = self.cdp("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                    "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}})
            png = base64.b64decode(r["data"])
        except (Failure, KeyError, TypeError, ValueError):
            png = base64.b64decode(self.call("GET", self.s("/screenshot")))
        with open(path, "wb") as f:
            f.write(png)

    def close(self):
        if self.session:
            try:
                self.call("DELETE", self.s(""), timeout=30)
            except (OSError, Failure):
                pass
            self.session = None
        if self.proc and self.proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self.proc:
            try:  # the group may outlive its leader (the browser's helpers)
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self._log.close()
        shutil.rmtree(self.userdir, ignore_errors=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def base_url(base):
    """The site root as a URL ending in '/': an http(s) or file URL, or a path."""
    if re.match(r"^(https?|file)://", base, re.I):
        return base if base.endswith("/") else base + "/"
    p = os.path.abspath(base)
    if not os.path.isdir(p):
        raise Failure("--base %s: no such directory" % base)
    return "file://" + urllib.parse.quote(p.rstrip("/") + "/")


WAIT_JS = """
const b = document.body;
if (!b) return null;
const m = performance.getEntriesByName("benchbox-ready");
return {ready: b.dataset.ready || null, error: b.dataset.error === undefined ? null : b.dataset.error,
        page: b.dataset.page || null, mark: m.length ? m[m.length - 1].startTime : null, now: performance.now()};
"""

CANVAS_JS = """
const out = [];
for (const c of document.querySelectorAll("canvas")) {
  const r = {w: c.width, h: c.height, drawn: 0, error: null};
  try {
    if (c.width && c.height) {
      const ctx = c.getContext("2d");
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
      r.drawn = n;
    }
  } catch (e) { r.error = String(e && e.message || e); }
  out.push(r);
}
return out;
"""

LINKS_JS = """
const out = [];
for (const a of document.querySelectorAll("a[href]")) out.push(["a", a.getAttribute("href"), a.href]);
for (const l of document.querySelectorAll("link[href]")) out.push(["link", l.getAttribute("href"), l.href]);
for (const s of document.querySelectorAll("script[src]")) out.push(["script", s.getAttribute("src"), s.src]);
return out;
"""

FLAME_JS = """
const out = {};
for (const g of document.querySelectorAll("svg.d3-flame-graph g.frame")) {
  const r = g.querySelector("rect");
  const name = g.getAttribute("name");
  (out[name] = out[name] || []).push({fill: r ? r.getAttribute("fill") : null,
                                      width: r ? parseFloat(r.getAttribute("width") || "0") : 0});
}
return out;
"""


def fill_change(fill):
    """slower, faster or unchanged for an rgb(...) fill; None for anything else."""
    m = re.match(r"\s*rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)\s*$", fill or "")
    if not m:
        return None
    r, g, b = (int(x) for x in m.groups())
    if r - max(g, b) >= 40:
        return "slower"
    if b - max(r, g) >= 40:
        return "faster"
    if max(r, g, b) - min(r, g, b) <= 10:
        return "unchanged"
    return None


RESOURCES_JS = """
const nav = performance.getEntriesByType("navigation")[0];
const res = performance.getEntriesByType("resource").map(e => [e.name, e.encodedBodySize || 0, e.transferSize || 0]);
return {doc: nav ? [nav.name, nav.encodedBodySize || 0] : [location.href, 0], res: res};
"""


class Checker:
    expect = {}  # page -> [text it must show]
    reject = {}  # page -> [text it must not show]
    flame = {}   # page -> [(function, change)] its flame graph must draw

    def __init__(self, wd, base, timeout, screenshots):
        self.wd = wd
        self.base = base
        self.scheme = urllib.parse.urlsplit(base).scheme.lower()
        self.origin = urllib.parse.urlsplit(base)[:2]
        self.timeout = timeout
        self.screenshots = screenshots
        self.http_cache = {}

    def url(self, page):
        return urllib.parse.urljoin(self.base, urllib.parse.quote(page.lstrip("/"), safe="/?#&=%"))

    def load(self, page):
        """Navigates and waits for data-ready or data-error; returns the last state."""
        self.wd.navigate(self.url(page))
        deadline = time.monotonic() + self.timeout
        while True:
            st = self.wd.execute(WAIT_JS) or {}
            if st.get("error") is not None or st.get("ready") == "1":
                return st
            if time.monotonic() > deadline:
                st["timeout"] = True
                return st
            time.sleep(0.02)

    def check(self, page):
        why = []
        canvases = links = 0
        self.wd.browser_log()  # drop whatever an earlier page left
        missing = self.page_missing(page)
        if missing:
            return [missing], 0, 0
        st = self.load(page)
        if st.get("timeout"):
            why.append("no data-ready or data-error within %g s" % self.timeout)
        elif st.get("error") is not None:
            why.append("data-error: %s" % st["error"])
        else:
            c = self.wd.execute(CANVAS_JS) or []
            bad = [x for x in c if x.get("error") or x.get("drawn", 0) < MIN_CANVAS_PIXELS]
            for x in bad:
                why.append("a %dx%d canvas drew %d pixels%s" % (x["w"], x["h"], x.get("drawn", 0),
                                                                (" (%s)" % x["error"]) if x.get("error") else ""))
            if st.get("page") == "trend" and not c:
                why.append("a trend page without a chart (no <canvas>)")
            canvases = len(c) - len(bad)
            links, broken = self.check_links(page)
            why.extend(broken)
            why.extend(self.check_text(page))
            why.extend(self.check_flame(page))
        for e in self.wd.browser_log():
            if e.get("level") == "SEVERE":
                why.append("console: %s" % e.get("message", "").strip())
        if self.screenshots:
            try:
                self.wd.screenshot(os.path.join(self.screenshots, shot_name(page)))
            except (Failure, OSError) as e:
                why.append("screenshot: %s" % e)
        return why, canvases, links

    def check_text(self, page):
        if not self.expect.get(page) and not self.reject.get(page):
            return []
        text = " ".join((self.wd.execute("return document.body.innerText;") or "").split())
        why = ["does not show %r" % t for t in self.expect.get(page, []) if t not in text]
        why += ["shows %r" % t for t in self.reject.get(page, []) if t in text]
        return why

    def check_flame(self, page):
        if not self.flame.get(page):
            return []
        frames = self.wd.execute(FLAME_JS) or {}
        why = []
        for function, change in self.flame[page]:
            drawn = frames.get(function)
            if not drawn:
                why.append("no flame graph frame %r (frames: %s)" % (function, ", ".join(sorted(frames)[:12]) or "none"))
                continue
            for f in drawn:
                if not f.get("width", 0) > 0:
                    why.append("flame graph frame %r is not drawn (width %s)" % (function, f.get("width")))
                elif fill_change(f.get("fill")) != change:
                    why.append("flame graph frame %r is filled %s, not the colour of %s" % (function, f.get("fill"), change))
        return why

    def page_missing(self, page):
        """Why the page itself cannot be had, or None (so a typo fails at once)."""
        u = urllib.parse.urlsplit(self.url(page))
        if self.scheme == "file":
            path = urllib.parse.unquote(u.path)
            return None if os.path.isfile(path) else "no such page: %s" % path
        status = self.http_status(urllib.parse.urlunsplit((u.scheme, u.netloc, u.path, u.query, "")))
        return None if status == 200 else "the page answers HTTP %s" % status

    def check_links(self, page):
        broken, seen = [], set()
        for kind, raw, absolute in self.wd.execute(LINKS_JS) or []:
            if not absolute or raw is None or raw.strip() == "":
                continue
            parts = urllib.parse.urlsplit(absolute)
            scheme = parts.scheme.lower()
            if scheme in ("mailto", "blob", "data", "javascript", "about", "tel"):
                continue
            target = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
            if target in seen:
                continue
            if scheme == "file":
                if self.scheme != "file":
                    broken.append("%s %s: a file:// link on an http page" % (kind, raw))
                    seen.add(target)
                    continue
                seen.add(target)
                path = urllib.parse.unquote(parts.path)
                if not os.path.isfile(path):
                    broken.append("%s %s: no file %s" % (kind, raw, path))
            elif scheme in ("http", "https"):
                if (parts.scheme.lower(), parts.netloc.lower()) != (self.origin[0].lower(), self.origin[1].lower()):
                    continue  # another site (an issue on GitHub): not ours to check
                seen.add(target)
                status = self.http_status(target)
                if status != 200:
                    broken.append("%s %s: HTTP %s" % (kind, raw, status))
            else:
                seen.add(target)
                broken.append("%s %s: unexpected scheme %s" % (kind, raw, scheme))
        return len(seen), broken

    def http_status(self, url):
        if url not in self.http_cache:
            try:
                with urllib.request.urlopen(urllib.request.Request(url, method="GET"), timeout=30) as r:
                    while r.read(1 << 16):
                        pass
                    self.http_cache[url] = r.status
            except urllib.error.HTTPError as e:
                self.http_cache[url] = e.code
            except (OSError, ValueError) as e:
                self.http_cache[url] = "error (%s)" % e
        return self.http_cache[url]

    def timing(self, page, runs):
        self.wd.cdp("Network.enable")
        self.wd.cdp("Network.setCacheDisabled", {"cacheDisabled": True})
        results = []
        try:
            for i in range(runs):
                if self.scheme == "file":
                    self.wd.browser_log("performance")
                st = self.load(page)
                if st.get("timeout") or st.get("error") is not None or st.get("mark") is None and st.get("ready") != "1":
                    raise Failure("run %d did not get ready: %s" % (i + 1, st.get("error") or "timeout"))
                ready_ms = st["mark"] if st.get("mark") is not None else st.get("now")
                if self.scheme == "file":
                    nbytes, nres = self.file_bytes(self.wd.browser_log("performance"))
                else:
                    nbytes, nres = self.http_bytes(self.wd.execute(RESOURCES_JS))
                line = {"timing": page, "run": i + 1, "ready_ms": round(ready_ms, 1), "bytes": nbytes,
                        "resources": nres, "base": "file" if self.scheme == "file" else "http"}
                if st.get("mark") is None:
                    line["note"] = "no benchbox-ready mark: time of detection"
                print(json.dumps(line), flush=True)
                results.append(line)
        finally:
            self.wd.browser_log()
            try:
                self.wd.cdp("Network.setCacheDisabled", {"cacheDisabled": False})
            except Failure:
                pass
        t = [x["ready_ms"] for x in results]
        print(json.dumps({"timing": page, "runs": len(t), "ready_ms_min": min(t), "ready_ms_median": round(statistics.median(t), 1),
                          "ready_ms_max": max(t), "bytes": results[-1]["bytes"], "resources": results[-1]["resources"]}),
              flush=True)

    @staticmethod
    def http_bytes(r):
        """The document's and every resource's encodedBodySize (resource timing)."""
        return r["doc"][1] + sum(x[1] for x in r["res"]), len(r["res"])

    @staticmethod
    def file_bytes(perf_log):
        """file:// has no resource timing: the files behind the requests the
        page made (the network events in the performance log), sized on disk."""
        urls = []
        for e in perf_log:
            try:
                m = json.loads(e["message"])["message"]
            except (KeyError, ValueError, TypeError):
                continue
            if m.get("method") == "Network.requestWillBeSent":
                u = m.get("params", {}).get("request", {}).get("url", "")
                if u.startswith("file:") and u not in urls:
                    urls.append(u)
        total = 0
        for u in urls:
            path = urllib.parse.unquote(urllib.parse.urlsplit(u).path)
            if os.path.isfile(path):
                total += os.path.getsize(path)
        return total, max(0, len(urls) - 1)


def shot_name(page):
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", page.strip("/")) or "index"
    return re.sub(r"\.html?$", "", name) + ".png"


def main():
    ap = argparse.ArgumentParser(description="Checks benchbox dashboard pages in headless Chromium.")
    ap.add_argument("--base", required=True, help="the site root: an http(s):// or file:// URL, or a directory")
    ap.add_argument("--screenshots", metavar="DIR", help="save a full-page PNG per page here")
    ap.add_argument("--timing", type=int, default=0, metavar="N", help="also load each page N times and print timings")
    ap.add_argument("--timeout", type=float, default=20, help="seconds to wait for data-ready (default 20)")
    ap.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--expect", action="append", default=[], metavar="PAGE=TEXT",
                    help="PAGE must show TEXT (its rendered text, whitespace folded)")
    ap.add_argument("--reject", action="append", default=[], metavar="PAGE=TEXT", help="PAGE must not show TEXT")
    ap.add_argument("--flame", action="append", default=[], metavar="PAGE=FUNCTION:CHANGE",
                    help="PAGE's flame graph draws FUNCTION coloured as CHANGE (slower, faster or unchanged)")
    ap.add_argument("pages", nargs="+", metavar="PAGE", help="page paths relative to the site root")
    a = ap.parse_args()
    for item in a.flame:
        page, sep, spec = item.partition("=")
        function, colon, change = spec.rpartition(":")
        if not sep or not colon or not function or change not in ("slower", "faster", "unchanged") or page not in a.pages:
            print("check_site: --flame takes PAGE=FUNCTION:slower|faster|unchanged for a PAGE that is checked, not %r"
                  % item, file=sys.stderr)
            return 2
        Checker.flame.setdefault(page, []).append((function, change))
    for option, into in ((a.expect, Checker.expect), (a.reject, Checker.reject)):
        for item in option:
            page, sep, text = item.partition("=")
            if not sep or not text or page not in a.pages:
                print("check_site: --expect/--reject take PAGE=TEXT for a PAGE that is checked, not %r" % item,
                      file=sys.stderr)
                return 2
            into.setdefault(page, []).append(" ".join(text.split()))

    for tool, what in ((a.chromedriver, "chromedriver"), (a.chromium, "chromium")):
        if not tool or not os.access(tool, os.X_OK):
            print("check_site: no %s at %s (apt-get install -y --no-install-recommends chromium chromium-driver)"
                  % (what, tool), file=sys.stderr)
            return 2
    try:
        base = base_url(a.base)
    except Failure as e:
        print("check_site: %s" % e, file=sys.stderr)
        return 2
    if a.screenshots:
        os.makedirs(a.screenshots, exist_ok=True)

    def on_signal(signum, frame):
        raise Interrupted("signal %d" % signum)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)

    wd = None
    passed = failed = 0
    try:
        try:
            wd = WebDriver(a.chromedriver, a.chromium, network_log=a.timing > 0 and base.startswith("file:"))
        except (Failure, OSError) as e:
            print("check_site: cannot start the browser: %s" % e, file=sys.stderr)
            return 2
        ck = Checker(wd, base, a.timeout, a.screenshots)
        for page in a.pages:
            try:
                why, canvases, links = ck.check(page)
            except Failure as e:
                why, canvases, links = [str(e)], 0, 0
            if why:
                failed += 1
                print("FAIL %s: %s" % (page, "; ".join(why)), flush=True)
            else:
                passed += 1
                print("ok %s: %d canvases drawn, %d links checked" % (page, canvases, links), flush=True)
        if a.timing > 0:
            for page in a.pages:
                try:
                    ck.timing(page, a.timing)
                except Failure as e:
                    failed += 1
                    print("FAIL %s: timing: %s" % (page, e), flush=True)
    except (KeyboardInterrupt, Interrupted) as e:
        print("check_site: interrupted (%s)" % (e or "Ctrl-C"), file=sys.stderr, flush=True)
        return 130
    finally:
        if wd:
            wd.close()
    print("check_site: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
