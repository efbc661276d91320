# nginx as the benches' reference for pre-rendered files, sourced (not run) by
# compare.sh and files.sh so that both measure the same configuration:
#
#   . bench/static_nginx.sh
#   static_nginx_conf "$work" "$site"   # writes $work/nginx.conf
#   nginx -c "$work/nginx.conf"         # pid in $work/nginx.pid, logs in $work/
#
# The configuration is the one its users run for a static JSON tree: two workers,
# every request logged, `gzip_static` serving the tree's `.gz` siblings (and gzip on
# the fly for anything without one), `index.json` as the folder index, on
# 127.0.0.1:18081.

static_nginx_conf() {
    local work="$1" root
    root="$(readlink -f "$2")"
    cat > "$work/nginx.conf" << CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log $work/nginx-access.log;
    default_type application/json;
    gzip on;
    gzip_static on;
    gzip_types application/json;
    gzip_min_length 256;
    server {
        listen 127.0.0.1:18081;
        root $root;
        index index.json;
    }
}
CONF
}
