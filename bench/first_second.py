#!/usr/bin/env python3
"""A fresh `roost serve`'s first second under load, against the same process warm.

    bench/first_second.py --db DATASET.db --site SITE [--bin LABEL=PATH]...
                          [--rounds 3] [--connections 16] [--duration 1]
                          [--targets home,live,file] [--port 18420]

For each binary, target and round: start `roost serve --env e2e
--graphql-rate-limit 0` on the dataset and tree, ask `GET /readyz` every 5 ms until it
answers 200 (as a load balancer would, only faster), then at once load the target
with wrk (--connections connections, 2 threads, --latency) for --duration seconds:
the first second. Then, on the same process, three more runs of the same length: the
median of their p99 is the warm p99. The process is then stopped (SIGTERM) and the
next round starts a fresh one.

Targets: `home` the web frontend's home page operation (POST /graphql/,
tests/graphql/pages/home.graphql with its variables), `live` a live REST list (a page
size the tree does not hold, with a filter: /api/v0/issues/?page_size=20&state=open),
`file` a tree file (/api/v0/chapters/).

Prints, per binary and target, the p99 of each first second, the warm p99 of the same
rounds, the ratio of the medians (goal: at most 2), the requests of a first second
and the time from the process's start to the first 200 of /readyz. Needs wrk; Python
standard library only. Run it alone: a busy machine moves every p99.
"""

import argparse
import http.client
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "tests" / "graphql" / "pages"

TARGETS = {
    "home": ("POST", "/graphql/"),
    "live": ("GET", "/api/v0/issues/?page_size=20&state=open"),
    "file": ("GET", "/api/v0/chapters/"),
}


def lua_script(target, directory):
    """A wrk script sending the target's request; its path."""
    method, path = TARGETS[target]
    lines = [f'wrk.method = "{method}"', f"wrk.path = {json.dumps(path)}"]
    if target == "home":
        variables = json.loads((PAGES / "pages.json").read_text())["home.graphql"]["variables"]
        body = json.dumps({"query": (PAGES / "home.graphql").read_text(), "variables": variables})
        lines.append(f"wrk.body = {json.dumps(body)}")
        lines.append('wrk.headers["Content-Type"] = "application/json"')
    script = Path(directory) / f"{target}.lua"
    script.write_text("\n".join(lines) + "\n")
    return script


def to_ms(value, unit):
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(port, script, connections, duration):
    """(p99 ms, p50 ms, requests, non-2xx) of one wrk run."""
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency", "-s", str(script),
         f"http://127.0.0.1:{port}"],
        capture_output=True, text=True, check=True,
    ).stdout
    p = {m.group(1): to_ms(m.group(2), m.group(3))
         for m in re.finditer(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)}
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return p["99"], p["50"], requests, int(bad.group(1)) if bad else 0


def ready(port, started, process):
    """Milliseconds from `started` to the first 200 of /readyz."""
    while True:
        if process.poll() is not None:
            raise SystemExit(f"roost serve exited with {process.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/readyz")
            response = conn.getresponse()
            response.read()
            conn.close()
            if response.status == 200:
                return (time.perf_counter() - started) * 1000
        except OSError:
            pass
        time.sleep(0.005)


def round_of(binary, args, target, script, log):
    started = time.perf_counter()
    process = subprocess.Popen(
        [binary, "serve", "--env", "e2e", "--listen", f"127.0.0.1:{args.port}", "--db", args.db,
         "--site", args.site, "--auth-db", str(Path(log.name).with_suffix(".auth.db")),
         "--graphql-rate-limit", "0", "--drain-seconds", "0"],
        stdout=subprocess.DEVNULL, stderr=log,
    )
    try:
        to_ready = ready(args.port, started, process)
        first = wrk(args.port, script, args.connections, args.duration)
        warm = [wrk(args.port, script, args.connections, args.duration) for _ in range(3)]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait()
    return to_ready, first, warm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--site", required=True)
    parser.add_argument("--bin", action="append",
                        help="LABEL=PATH of a roost binary (default: target/release/roost)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--duration", type=int, default=1)
    parser.add_argument("--targets", default="home,live,file")
    parser.add_argument("--port", type=int, default=18420)
    args = parser.parse_args()
    binaries = [b.split("=", 1) for b in (args.bin or [f"roost={ROOT}/target/release/roost"])]
    targets = args.targets.split(",")
    unknown = set(targets) - set(TARGETS)
    if unknown:
        raise SystemExit(f"no such target: {sorted(unknown)}")

    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}",
          file=sys.stderr)
    rows = []
    with tempfile.TemporaryDirectory(prefix="roost-first-second-") as tmp:
        scripts = {t: lua_script(t, tmp) for t in targets}
        log = open(Path(tmp) / "serve.log", "w")
        # Rounds alternate the binaries, so that the machine's load falls on each alike.
        results = {(label, t): [] for label, _ in binaries for t in targets}
        for r in range(args.rounds):
            for target in targets:
                for label, binary in binaries:
                    to_ready, first, warm = round_of(binary, args, target, scripts[target], log)
                    results[(label, target)].append((to_ready, first, warm))
                    print(f"round {r + 1} {label} {target}: ready {to_ready:.0f} ms, first second "
                          f"p99 {first[0]:.2f} ms ({first[2]} requests, {first[3]} not 2xx), warm p99 "
                          f"{statistics.median(w[0] for w in warm):.2f} ms", file=sys.stderr, flush=True)
        for (label, target), runs in results.items():
            firsts = [run[1][0] for run in runs]
            warms = [statistics.median(w[0] for w in run[2]) for run in runs]
            bad = sum(run[1][3] + sum(w[3] for w in run[2]) for run in runs)
            rows.append(
                f"| {label} | {target} | {' / '.join(f'{p:.2f}' for p in firsts)} "
                f"| {' / '.join(f'{p:.2f}' for p in warms)} "
                f"| **{statistics.median(firsts) / statistics.median(warms):.1f}×** "
                f"| {statistics.median(run[1][2] for run in runs):,.0f} "
                f"| {statistics.median(run[0] for run in runs):,.0f} | {bad} |"
            )
    print(f"{args.rounds} rounds, {args.connections} connections, {args.duration} s a run "
          f"(warm: the median p99 of 3 runs after the first)\n")
    print("| binary | target | first-second p99 ms, by round | warm p99 ms, by round "
          "| first / warm (medians) | requests in the first second | ready after ms | not 2xx |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
