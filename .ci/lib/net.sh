# Loopback helpers for CI steps and benches, sourced (not run):
#
#   free_port                     # prints a free TCP port on 127.0.0.1
#   wait_for URL WHAT LOG         # waits up to 60 s for URL to answer; else prints LOG

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

wait_for() {
  local url="$1" what="$2" log="$3" i
  for i in $(seq 1 120); do
    if curl -s -o /dev/null "$url"; then
      return 0
    fi
    sleep 0.5
  done
  echo "$what did not start; its log:" >&2
  cat "$log" >&2
  return 1
}
