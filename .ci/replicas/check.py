#!/usr/bin/env python3
"""The multi-replica checks of .ci/steps/80-replicas.sh, against nginx in front of two
`roost serve --env production --redis ... --trusted-proxy 127.0.0.1/32` replicas.

Standard library only. Exits non-zero with a message on the first failed check.
"""

import argparse
import http.client
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse

LIMIT = 10  # --rate-limit and --failed-auth-rate of the replicas (per second, burst)


def fail(message):
    print(f"FAILED: {message}", file=sys.stderr)
    sys.exit(1)


class Client:
    """Keep-alive connections to one host:port."""

    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port

    def connection(self):
        return http.client.HTTPConnection(self.host, self.port, timeout=10)

    def get(self, path, headers=None, conn=None):
        own = conn is None
        conn = conn or self.connection()
        try:
            conn.request("GET", path, headers=headers or {})
            r = conn.getresponse()
            body = r.read()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, body
        finally:
            if own:
                conn.close()


def burst(client, n, headers_for, workers=20):
    """`n` requests at once over `workers` warm connections; (statuses+headers, seconds)."""
    conns = [client.connection() for _ in range(workers)]
    for c in conns:  # warm up: connect now, not inside the measured second
        c.connect()
    results = [None] * n
    start = threading.Barrier(workers + 1)

    def work(w):
        start.wait()
        for i in range(w, n, workers):
            try:
                status, headers, _ = client.get("/api/v0/chapters/", headers_for(i), conns[w])
            except Exception as e:  # a dropped connection is a failure of the check
                status, headers = 0, {"error": repr(e)}
                conns[w] = client.connection()
            results[i] = (status, headers)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(workers)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.monotonic()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    for c in conns:
        c.close()
    return results, elapsed


def count(results):
    statuses = {}
    for status, _ in results:
        statuses[status] = statuses.get(status, 0) + 1
    return statuses


def check_no_5xx(results, what):
    bad = [(s, h) for s, h in results if s >= 500 or s == 0]
    if bad:
        fail(f"{what}: {len(bad)} answers were 5xx or failed: {bad[:3]}")


def one_key_burst(nginx, key, what, replicas_sharing):
    """100 requests with one key; checks the successes against one shared budget (or
    one per replica) plus what refills during the burst."""
    results, elapsed = burst(nginx, 100, lambda i: {"X-API-Key": key})
    check_no_5xx(results, what)
    statuses = count(results)
    ok, limited = statuses.get(200, 0), statuses.get(429, 0)
    if ok + limited != 100:
        fail(f"{what}: statuses {statuses}, expected only 200 and 429")
    # Each budget (one shared, or one per replica) refills LIMIT a second on its own.
    refill = (int(elapsed * LIMIT) + 1) * replicas_sharing
    budget = LIMIT * replicas_sharing
    print(f"   {what}: {ok} x 200, {limited} x 429 in {elapsed * 1000:.0f} ms "
          f"(budget {budget}, at most {refill} refilled meanwhile)")
    for status, headers in results:
        if status == 429:
            retry = headers.get("retry-after")
            if retry is None or not retry.isdigit() or int(retry) < 1:
                fail(f"{what}: a 429 without a valid Retry-After: {headers}")
            if headers.get("ratelimit-remaining") != "0":
                fail(f"{what}: a 429 with RateLimit-Remaining {headers.get('ratelimit-remaining')}")
        if status == 200 and headers.get("ratelimit-limit") != str(LIMIT):
            fail(f"{what}: a 200 without RateLimit-Limit {LIMIT}: {headers}")
    return ok, elapsed, budget, refill


def lockout(nginx, bad_from, good_from, good_key, what):
    """Bad keys from one forwarded address spend its budget (401 then 429); a valid key
    from another forwarded address is served meanwhile."""
    results, _ = burst(nginx, 40, lambda i: {"X-API-Key": f"rk_bad{i}", "X-Forwarded-For": bad_from}, workers=10)
    check_no_5xx(results, what)
    statuses = count(results)
    if statuses.get(429, 0) < 40 - 2 * LIMIT - 4 or statuses.get(401, 0) < 1:
        fail(f"{what}: bad keys from {bad_from}: {statuses}, expected 401s then 429s")
    # Locked out: asked again, it is refused with 429 but for the attempts its budget
    # refilled since the burst ended (LIMIT a second, one each probe may spend on a
    # slow machine); an address not locked out gets 401 every time.
    ended = time.monotonic()
    probes = []
    while True:
        locked = nginx.get("/api/v0/chapters/", {"X-API-Key": "rk_bad", "X-Forwarded-For": bad_from})
        probes.append(locked[0])
        if locked[0] == 429 or len(probes) > int((time.monotonic() - ended) * LIMIT) + 1:
            break
    if locked[0] != 429:
        fail(f"{what}: {bad_from} is not locked out (statuses {probes})")
    served = nginx.get("/api/v0/chapters/", {"X-API-Key": good_key, "X-Forwarded-For": good_from})
    if served[0] != 200:
        fail(f"{what}: a valid key from {good_from} got {served[0]}: {served[2][:200]!r}")
    print(f"   {what}: bad keys from {bad_from}: {statuses}; valid key from {good_from}: 200")
    return statuses


def log_lines(path, needle):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [l for l in f if needle in l]


def wait_until(predicate, what, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    fail(f"timed out waiting for {what}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nginx", required=True)
    p.add_argument("--replica", action="append", required=True)
    p.add_argument("--replica-log", action="append", required=True)
    p.add_argument("--metrics", required=True)
    p.add_argument("--keys", required=True, help="file with one API key per line")
    p.add_argument("--redis-server", required=True, help="redis-server command line (JSON list)")
    p.add_argument("--redis-pid", required=True, help="file holding the running redis-server's pid")
    p.add_argument("--db", required=True)
    args = p.parse_args()

    nginx = Client(args.nginx)
    replicas = [Client(u) for u in args.replica]
    keys = [k.strip() for k in open(args.keys) if k.strip()]
    key = iter(keys)

    print("-- one key, 100 requests through nginx across both replicas, Redis shared")
    for attempt in range(3):
        ok, elapsed, budget, refill = one_key_burst(nginx, next(key), "shared", 1)
        if elapsed <= 0.4:
            break
        print("   (the burst took too long to tell shared from per-replica; again)")
    if not (LIMIT <= ok <= budget + refill):
        fail(f"shared limit: {ok} successes, expected {LIMIT} to {budget + refill}")
    if ok >= 2 * LIMIT:
        fail(f"shared limit: {ok} successes, as many as two separate budgets allow")
    served_by = set()
    with open(os.path.join(os.path.dirname(args.replica_log[0]), "nginx", "access.log")) as f:
        for line in f:
            if "upstream=" in line:
                served_by.add(line.rsplit("upstream=", 1)[1].strip())
    if len(served_by) < 2:
        fail(f"nginx used only {served_by}")

    print("-- failed auth: one forwarded address locked out, another served")
    time.sleep(1.1)
    lockout(nginx, "203.0.113.7", "203.0.113.8", next(key), "shared")
    # An untrusted peer cannot choose its address: straight to a replica from
    # 127.0.0.1 (trusted) works, which is why nginx and the test share loopback;
    # what matters is that the budget followed the forwarded address above.

    print("-- Redis killed mid-run")
    with open(args.redis_pid) as f:
        redis_pid = int(f.read().strip())
    os.kill(redis_pid, 9)
    wait_until(lambda: subprocess.run(["kill", "-0", str(redis_pid)], capture_output=True).returncode != 0,
               "redis-server to exit")
    time.sleep(0.2)
    for _ in range(3):  # several bursts: the degradation is logged once per episode
        ok, elapsed, _, refill = one_key_burst(nginx, next(key), "Redis down", 2)
        if not (LIMIT <= ok <= 2 * LIMIT + refill):
            fail(f"Redis down: {ok} successes, expected per-replica budgets ({LIMIT} to {2 * LIMIT + refill})")
    time.sleep(1.1)
    lockout(nginx, "203.0.113.17", "203.0.113.18", next(key), "Redis down")
    for log in args.replica_log:
        down = log_lines(log, "redis unavailable")
        if len(down) != 1:
            fail(f"{log}: {len(down)} 'redis unavailable' lines, expected 1")
    print("   each replica logged the degradation once")

    print("-- Redis restarted: limits shared again")
    cmd = json.loads(args.redis_server)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(args.redis_pid, "w") as f:
        f.write(str(proc.pid))
    # Each replica tries Redis again at most once a second, on a request.
    def recovered():
        for r in replicas:
            r.get("/api/v0/", {"X-API-Key": keys[-1]})
        return all(log_lines(log, "redis answers again") for log in args.replica_log)
    wait_until(recovered, "both replicas to log that Redis answers again")
    ok, elapsed, budget, refill = one_key_burst(nginx, next(key), "recovered", 1)
    if not (LIMIT <= ok <= budget + refill) or ok >= 2 * LIMIT:
        fail(f"after recovery: {ok} successes, expected one shared budget")
    for log in args.replica_log:
        if len(log_lines(log, "redis unavailable")) != 1 or len(log_lines(log, "redis answers again")) != 1:
            fail(f"{log}: expected exactly one degradation and one recovery line")

    print("-- /readyz while the dataset file is missing")
    away = args.db + ".away"
    os.rename(args.db, away)
    try:
        for r in replicas:
            status, headers, body = r.get("/readyz")
            doc = json.loads(body)
            if status != 503 or doc.get("status") != "unavailable" or not doc.get("reason"):
                fail(f"/readyz without the dataset: {status} {body!r}")
        print(f"   503 {doc['reason']!r}")
    finally:
        os.rename(away, args.db)
    for r in replicas:
        status, _, body = r.get("/readyz")
        if status != 200:
            fail(f"/readyz with the dataset back: {status} {body!r}")
    print("   200 again once it is back")

    print("-- metrics of replica 1")
    status, _, body = Client(args.metrics).get("/metrics")
    text = body.decode()
    if status != 200:
        fail(f"/metrics: {status}")
    for needle in ['roost_limiter_rejections_total{kind="key"}',
                   'roost_limiter_rejections_total{kind="failed_auth"}',
                   "roost_redis_errors_total", "roost_http_requests_total{",
                   "roost_dataset_age_seconds", "roost_tree_generation"]:
        if needle not in text:
            fail(f"/metrics lacks {needle}")
    print("   rejections, Redis errors, requests, dataset and tree gauges present")
    print("replicas: all checks passed")


if __name__ == "__main__":
    main()
