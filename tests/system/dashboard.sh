# shellcheck shell=bash disable=SC2154
# (sourced by run-system-test.sh) The dashboard over HTTP: nginx in the
# container serves /var/lib/benchbox/site with the server block the docs
# give (config/nginx-benchbox.conf), and headless Chromium on the host
# (tests/browser/check_site.py) loads the index, the repository, a trend and
# a run from it: charts drawn, no console error, every link answering 200.

# A main-branch series of bench/demo, from the repository's data file.
dashboard_trend_page() {
  in_ct cat /var/lib/benchbox/site/data/r/bench/demo/repo.js | python3 -c '
import json, sys
text = sys.stdin.read()
repo = json.loads(text[text.index(", ") + 2:text.rindex(");")])
for b in repo["benchmarks"]:
    s = b["series"].get("refs/heads/main")
    if s and s["points"] > 0:
        print(s["page"]); break
'
}

check_dashboard() {
  local port conf page shots out
  port=$(free_port)
  conf=$stage/nginx
  mkdir -p "$conf"
  # The documented server block, on this test's port, inside the smallest
  # http{} that runs without /etc/nginx (the container's /etc is empty).
  cp /etc/nginx/mime.types "$conf/mime.types"
  cat >"$conf/nginx.conf" <<NGINX
user nobody nogroup;
pid /run/bb-nginx/nginx.pid;
events {}
http {
  include /mnt/bb-stage/nginx/mime.types;
  access_log /run/bb-nginx/access.log;
  client_body_temp_path /run/bb-nginx/body;
  proxy_temp_path /run/bb-nginx/proxy;
  fastcgi_temp_path /run/bb-nginx/fastcgi;
  uwsgi_temp_path /run/bb-nginx/uwsgi;
  scgi_temp_path /run/bb-nginx/scgi;
$(sed -e "s/listen 80;/listen 127.0.0.1:$port;/" -e '/listen \[::\]:80;/d' "$source_dir/config/nginx-benchbox.conf")
}
NGINX
  in_ct mkdir -p /run/bb-nginx
  in_ct systemd-run --quiet --unit=bb-dashboard-nginx /usr/sbin/nginx -c /mnt/bb-stage/nginx/nginx.conf \
    -e /run/bb-nginx/error.log -g 'daemon off;' || fail "could not start nginx in the container"
  wait_for 20 curl -sf -o /dev/null "http://127.0.0.1:$port/index.html" ||
    fail "nginx does not serve the site: $(in_ct cat /run/bb-nginx/error.log 2>&1 | tail -5)"
  page=$(dashboard_trend_page) || true
  [[ -n $page ]] || fail "no main-branch trend of bench/demo on the dashboard:
$(in_ct find /var/lib/benchbox/site -maxdepth 4 2>&1 | head -30)
$(in_ct journalctl --no-pager -o cat -u benchbox-reporterd.service 2>&1 | tail -30)"
  shots=$build_dir/meson-logs/system-dashboard-screenshots
  out=$(python3 "$source_dir/tests/browser/check_site.py" --base "http://127.0.0.1:$port/" --screenshots "$shots" \
    index.html r/bench/demo/index.html "$page" r/bench/demo/runs/1.html 2>&1) ||
    fail "the dashboard over HTTP:
$out
nginx: $(in_ct tail -5 /run/bb-nginx/error.log 2>&1)"
  while IFS= read -r line; do note "$line"; done <<<"$out"
  note "served by nginx with config/nginx-benchbox.conf; screenshots in $shots"
  echo "dashboard: $(grep -c '^ok ' <<<"$out") pages over HTTP drawn in Chromium, 0 failed"
  in_ct systemctl stop bb-dashboard-nginx.service || true
}
