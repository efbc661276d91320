# Debian's nginx on loopback for CI steps and benches, sourced (not run):
#
#   . .ci/lib/nginx.sh
#   nginx_install                 # installs Debian's nginx when /usr/sbin/nginx is missing
#   nginx_prefix "$work/nginx"    # creates PREFIX/tmp, PREFIX/access.log, PREFIX/error.log
#   ... write "$work/nginx/nginx.conf" (pid PREFIX/nginx.pid; temp paths under PREFIX/tmp)
#   nginx_start "$work/nginx" [URL]  # checks the config, starts, waits for URL (if given)
#   nginx_errors "$work/nginx"    # fails when error.log has [error] or worse
#   nginx_stop "$work/nginx"      # for the cleanup trap; quiet when it is not running
#
# Run as root, nginx runs as `nobody` (it only writes under its prefix). The temp
# path lines every config needs are in $NGINX_TEMP_PATHS (use it inside `http {}`).

. .ci/lib/net.sh

nginx_as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

nginx_install() {
  if [ ! -x /usr/sbin/nginx ]; then
    nginx_as_root apt-get update -qq
    nginx_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
  fi
}

nginx_prefix() {
  local prefix="$1"
  mkdir -p "$prefix/tmp"
  touch "$prefix/access.log" "$prefix/error.log"
  NGINX_TEMP_PATHS="client_body_temp_path $prefix/tmp/body;
    proxy_temp_path $prefix/tmp/proxy;
    fastcgi_temp_path $prefix/tmp/fastcgi;
    uwsgi_temp_path $prefix/tmp/uwsgi;
    scgi_temp_path $prefix/tmp/scgi;"
}

nginx_start() {
  local prefix="$1" url="${2:-}"
  local run=()
  if [ "$(id -u)" = 0 ]; then
    chown -R nobody "$prefix"
    run=(runuser -u nobody --)
  fi
  "${run[@]}" nginx -p "$prefix" -e "$prefix/error.log" -c "$prefix/nginx.conf" -t -q
  "${run[@]}" nginx -p "$prefix" -e "$prefix/error.log" -c "$prefix/nginx.conf"
  [ -n "$url" ] || return 0
  wait_for "$url" nginx "$prefix/error.log"
}

nginx_errors() {
  local prefix="$1"
  if grep -E '\[(error|crit|alert|emerg)\]' "$prefix/error.log"; then
    echo "nginx logged errors" >&2
    return 1
  fi
}

nginx_stop() {
  local prefix="$1"
  if [ -f "$prefix/nginx.pid" ]; then
    kill "$(cat "$prefix/nginx.pid")" 2>/dev/null || true
  fi
}
