#!/usr/bin/env python3
"""`roost serve` at one scale (issue 44, item 3): start time, load and memory.

    bench/serve_scale.py --bin ROOST --db DATASET.db --site SITE --label nest
                         [--duration 10] [--connections 16] [--port 18190] [--work DIR]
                         [--loads tree,live,q,idx,graphql]

What it measures, on one dataset and its generated tree:
- the start: wall time from spawning `roost serve --env production --rate-limit 0
  --graphql-rate-limit 0` until `GET /readyz` answers 200 (asked every 20 ms, for at
  most 120 s), and until the first answer of any status (the listener up);
- then, one after the other, wrk (`-t2 -cN -dS --latency`, the API key in
  `X-API-Key`) on each of:
    tree    the issue list as pre-rendered, `/api/v0/issues/`;
    live    a live issue list (compare.sh's `live_path`, not in the tree),
            `/api/v0/issues/?state=open&page_size=7&page=3`;
    q       a structured search (compare.sh's `q_path`),
            `/api/v0/projects/?q=name:a%20stars:%3E10&page_size=7`;
    idx     `POST /idx/`, the frontend's contribute page (the `issues` index, page 1,
            25 hits, as bench/idx.py's "list page 1"): an index that grows with the
            code-hosting records, as the issue lists do;
    graphql `POST /graphql/`, the frontend's home page operation
            (tests/graphql/pages/home.graphql, `{"distinct": true}`, as compare.sh's
            `graphql_home` sends it);
  each giving requests/s, p50 and p99 (ms), non-2xx answers and socket errors; then the
  same URL from one connection alone (`-t1 -c1`, same duration) for its p99;
- the server's RSS (VmRSS) right after readiness and after each load, and its peak
  (VmHWM) at the end.

Production serves GraphQL and `/idx/` to anonymous callers with the CSRF pair (a
`csrftoken` cookie from `GET /csrf/` echoed in `X-CSRFToken`; both POSTs carry it, and
the key) and limits them per client address: hence `--graphql-rate-limit 0` beside
`--rate-limit 0`. Every URL is asked once (with the key) before any load and must
answer 200 (GraphQL: without `errors`); otherwise its status and body are printed and
the script stops with exit status 1. The server's log (one line a request, as in
production) goes to `serve.log` in the work directory.

Prints a Markdown table (one row per load), the start time and the peak RSS, then one
line `JSON: {...}` holding every figure, so that two runs (nest and 10x) can be
compared by a later script. The API key is made as compare.sh makes it (`roost keys
create` into an auth db of the work directory); the work directory (--work, default a
temporary one) also holds the wrk Lua scripts and the server's log. A temporary work
directory is removed at the end; the server is stopped at the end, on error too.

At nest and at 10x (each dataset and tree made once, then this script; the 10x tree
needs about eleven times nest's on disk, see bench/compare.sh --with-10x):

    roost db synth --scale nest --db /data/nest.db
    roost generate --db /data/nest.db --out /data/nest-site
    bench/serve_scale.py --bin roost --db /data/nest.db --site /data/nest-site --label nest

    roost db synth --scale 10x --db /data/10x.db
    roost generate --db /data/10x.db --out /data/10x-site
    bench/serve_scale.py --bin roost --db /data/10x.db --site /data/10x-site --label 10x

Needs wrk (`apt-get install -y wrk`); Python standard library only. Run it alone: a
busy machine moves every p99.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOME_QUERY = ROOT / "tests" / "graphql" / "pages" / "home.graphql"

LIVE_PATH = "/api/v0/issues/?state=open&page_size=7&page=3"
Q_PATH = "/api/v0/projects/?q=name:a%20stars:%3E10&page_size=7"
IDX_BODY = {"facetFilters": [], "hitsPerPage": 25, "indexName": "issues", "page": 1, "query": ""}


def loads():
    """(name, what, method, path, body or None) of every load, in order."""
    home = {"query": HOME_QUERY.read_text(), "variables": {"distinct": True}}
    return [
        ("tree", "`/api/v0/issues/` (pre-rendered)", "GET", "/api/v0/issues/", None),
        ("live", f"`{LIVE_PATH}` (live)", "GET", LIVE_PATH, None),
        ("q", f"`{Q_PATH}`", "GET", Q_PATH, None),
        ("idx", "`POST /idx/` (issues, page 1, 25 hits)", "POST", "/idx/", json.dumps(IDX_BODY)),
        ("graphql", "`POST /graphql/` (home page)", "POST", "/graphql/", json.dumps(home)),
    ]


def lua_str(s):
    """A Lua string literal of s (bytes outside printable ASCII as decimal escapes)."""
    out = []
    for b in s.encode():
        if b in (0x22, 0x5C) or b < 0x20 or b > 0x7E:
            out.append("\\%03d" % b)
        else:
            out.append(chr(b))
    return '"' + "".join(out) + '"'


def write_lua(work, name, method, body, headers):
    script = work / f"{name}.lua"
    lines = [f"wrk.method = {lua_str(method)}"]
    for k, v in headers.items():
        lines.append(f"wrk.headers[{lua_str(k)}] = {lua_str(v)}")
    if body is not None:
        lines.append(f"wrk.body = {lua_str(body)}")
    script.write_text("\n".join(lines) + "\n")
    return script


def to_ms(value, unit):
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(url, key, connections, duration, script, log):
    """The figures of one wrk run: rps, p50, p99 (ms), requests, non2xx, socket errors."""
    threads = 2 if connections >= 2 else 1
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency",
           "-H", f"X-API-Key: {key}"]
    if script is not None:
        cmd += ["-s", str(script)]
    cmd.append(url)
    run = subprocess.run(cmd, capture_output=True, text=True)
    out = run.stdout + run.stderr
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n" + out + "\n")
    if run.returncode != 0:
        raise SystemExit(f"wrk failed ({run.returncode}):\n{out}")
    p = {m.group(1): to_ms(m.group(2), m.group(3))
         for m in re.finditer(r"^\s+(50|99)(?:\.0+)?%\s+([\d.]+)(us|ms|s|m)\s*$", out, re.M)}
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    requests = re.search(r"(\d+) requests in", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if rps is None or "50" not in p or "99" not in p:
        raise SystemExit(f"could not read wrk's output:\n{out}")
    socket_errors = dict(zip(("connect", "read", "write", "timeout"),
                             (int(x) for x in sock.groups()))) if sock else {}
    return {
        "rps": round(float(rps.group(1)), 1),
        "p50_ms": round(p["50"], 3),
        "p99_ms": round(p["99"], 3),
        "requests": int(requests.group(1)) if requests else None,
        "non2xx": int(non2xx.group(1)) if non2xx else 0,
        "socket_errors": socket_errors,
    }


def proc_status(pid):
    """VmRSS and VmHWM of pid, in MB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = round(int(v.split()[0]) / 1024, 1)
    return out


def request(port, method, path, headers, body=None, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body.encode() if body is not None else None, headers=headers)
        r = conn.getresponse()
        return r.status, r.getheaders(), r.read()
    finally:
        conn.close()


def wait_ready(proc, start, port, log_path, limit=120.0, every=0.02):
    """Seconds from start (the spawn) to the first answer and to /readyz 200."""
    listening = None
    while True:
        now = time.monotonic()
        if now - start > limit:
            raise SystemExit(f"/readyz did not answer 200 within {limit:.0f} s; log tail:\n"
                             + tail(log_path))
        if proc.poll() is not None:
            raise SystemExit(f"roost serve exited with status {proc.returncode}; log tail:\n"
                             + tail(log_path))
        try:
            status, _, _ = request(port, "GET", "/readyz", {}, timeout=2)
            if listening is None:
                listening = time.monotonic() - start
            if status == 200:
                return listening, time.monotonic() - start
        except (ConnectionError, OSError, http.client.HTTPException):
            pass
        time.sleep(every)


def tail(path, n=20):
    try:
        return "".join(Path(path).read_text(errors="replace").splitlines(True)[-n:])
    except OSError:
        return "(no log)"


def fmt_errors(r):
    s = r["socket_errors"]
    parts = []
    if r["non2xx"]:
        parts.append(f"{r['non2xx']} non-2xx")
    bad = {k: v for k, v in s.items() if v}
    if bad:
        parts.append("socket " + ", ".join(f"{k} {v}" for k, v in bad.items()))
    return "; ".join(parts) or "0"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="the roost executable")
    ap.add_argument("--db", required=True, help="the dataset")
    ap.add_argument("--site", required=True, help="the tree (`roost generate --out`'s symlink)")
    ap.add_argument("--label", required=True, help="the scale's name in the output, e.g. nest or 10x")
    ap.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--port", type=int, default=18190)
    ap.add_argument("--loads", help="only these loads, comma-separated (tree,live,q,idx,graphql)")
    ap.add_argument("--work", help="auth db, Lua scripts and logs (default: a temporary directory, removed)")
    args = ap.parse_args()

    names = [load[0] for load in loads()]
    chosen = set(args.loads.split(",")) if args.loads else None
    unknown = sorted((chosen or set()) - set(names))
    if unknown:
        sys.exit(f"--loads: no load named {', '.join(unknown)} (the loads: {', '.join(names)})")
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install -y wrk)")
    binary = str(Path(args.bin).resolve())
    db = str(Path(args.db).resolve())
    site = str(Path(args.site).absolute())
    for p in (binary, db, site):
        if not os.path.exists(p):
            sys.exit(f"{p}: not found")
    if args.work:
        work = Path(args.work).resolve()
        work.mkdir(parents=True, exist_ok=True)
        remove_work = False
    else:
        work = Path(tempfile.mkdtemp(prefix="serve-scale-"))
        remove_work = True

    proc = None
    try:
        version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
        auth = work / "auth.db"
        made = subprocess.run([binary, "keys", "create", "--name", "bench", "--auth-db", str(auth)],
                              capture_output=True, text=True)
        found = re.findall(r"rk_[A-Za-z0-9_-]*", made.stdout)
        if made.returncode != 0 or not found:
            sys.exit(f"roost keys create failed ({made.returncode}):\n{made.stdout}{made.stderr}")
        key = found[0]

        log_path = work / "serve.log"
        wrk_log = work / "wrk.txt"
        cmd = [binary, "serve", "--env", "production", "--rate-limit", "0",
               "--graphql-rate-limit", "0", "--drain-seconds", "0",
               "--db", db, "--site", site, "--auth-db", str(auth),
               "--listen", f"127.0.0.1:{args.port}"]
        log = open(log_path, "wb")
        started = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        listen_s, ready_s = wait_ready(proc, started, args.port, log_path)
        rss_ready = proc_status(proc.pid)["VmRSS"]

        # The CSRF pair of production's POSTs (GraphQL, /idx/).
        status, _, body = request(args.port, "GET", "/csrf/", {"X-API-Key": key})
        if status != 200:
            sys.exit(f"GET /csrf/: HTTP {status}\n{body.decode(errors='replace')[:2000]}")
        token = json.loads(body)["csrftoken"]
        post_headers = {"Content-Type": "application/json", "Cookie": f"csrftoken={token}",
                        "X-CSRFToken": token}

        plan = []
        for name, what, method, path, payload in loads():
            if chosen is not None and name not in chosen:
                continue
            headers = {"X-API-Key": key}
            if method == "POST":
                headers.update(post_headers)
            status, _, answer = request(args.port, method, path, headers, payload)
            text = answer.decode(errors="replace")
            bad = status != 200
            if not bad and name == "graphql":
                bad = "errors" in json.loads(answer)
            if bad:
                sys.exit(f"{method} {path}: HTTP {status}\n{text[:2000]}")
            script = None
            if method == "POST":
                script = write_lua(work, name, method, payload, post_headers)
            plan.append((name, what, method, path, script, len(answer)))

        results = {}
        for name, what, method, path, script, size in plan:
            url = f"http://127.0.0.1:{args.port}{path}"
            print(f"   {args.label} {name}: {args.connections} connections, {args.duration} s ...",
                  file=sys.stderr, flush=True)
            loaded = wrk(url, key, args.connections, args.duration, script, wrk_log)
            rss_after = proc_status(proc.pid)["VmRSS"]
            alone = wrk(url, key, 1, args.duration, script, wrk_log)
            rss_after_alone = proc_status(proc.pid)["VmRSS"]
            if proc.poll() is not None:
                sys.exit(f"roost serve exited ({proc.returncode}) during {name}; log tail:\n"
                         + tail(log_path))
            results[name] = {
                "what": what, "method": method, "path": path, "answer_bytes": size,
                "loaded": loaded, "alone": alone,
                "rss_after_mb": rss_after, "rss_after_alone_mb": rss_after_alone,
            }
        peak = proc_status(proc.pid)
        log_mb = round(log_path.stat().st_size / 1048576, 1)
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if remove_work:
            shutil.rmtree(work, ignore_errors=True)

    loadavg = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"`roost serve` at {args.label}: {version}; dataset {db} "
          f"({os.path.getsize(db) / 1048576:.0f} MB); tree {site}; wrk -t2 -c{args.connections} "
          f"-d{args.duration}s, alone -t1 -c1 -d{args.duration}s; {os.cpu_count()} cores, "
          f"load {loadavg} (1/5/15 min, at the end)")
    print()
    print(f"| load | req/s | p50 ms | p99 ms ({args.connections} conn) | p99 ms alone | errors | RSS after (MB) |")
    print("|---|---:|---:|---:|---:|---|---:|")
    for name, r in results.items():
        lo, al = r["loaded"], r["alone"]
        errors = fmt_errors(lo)
        if fmt_errors(al) != "0":
            errors += f" (alone: {fmt_errors(al)})"
        print(f"| {name}: {r['what']} | {lo['rps']:,.0f} | {lo['p50_ms']:.2f} | {lo['p99_ms']:.2f} "
              f"| {al['p99_ms']:.2f} | {errors} | {r['rss_after_mb']:.1f} |")
    print()
    print(f"Start (spawn to `/readyz` 200): {ready_s:.3f} s (listening after {listen_s:.3f} s); "
          f"RSS when ready {rss_ready:.1f} MB.")
    print(f"Peak RSS (VmHWM) at the end: {peak['VmHWM']:.1f} MB (VmRSS {peak['VmRSS']:.1f} MB); "
          f"server log {log_mb} MB.")
    summary = {
        "label": args.label, "version": version, "db": db,
        "db_mb": round(os.path.getsize(db) / 1048576, 1), "site": site,
        "duration_s": args.duration, "connections": args.connections,
        "cores": os.cpu_count(), "loadavg_end": loadavg,
        "start_s": round(ready_s, 4), "listen_s": round(listen_s, 4),
        "rss_ready_mb": rss_ready, "rss_end_mb": peak["VmRSS"], "rss_peak_mb": peak["VmHWM"],
        "loads": results,
    }
    print("JSON: " + json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main()
