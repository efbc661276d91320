#!/usr/bin/env python3
"""A light GraphQL query's latency while heavy ones are in flight (a figure, not a test).

    bench/graphql_fairness.py [--bin [LABEL=]ROOST]... [--seconds N] [--heavy N] [--keep]

For each roost binary given (default: `cargo build --release`, then target/release/roost),
on the `nest` dataset (`roost db synth --scale nest --seed 1`, made once in
${BENCH_DIR:-/tmp/roost-bench}), `roost serve --env e2e` runs on a free loopback port and
two scenarios are measured:

- attack: N clients (default 3) send, back to back, one request of 1,000 aliases of
  `topContributors(limit: 1) { login }` (26 KB);
- heaviest accepted: N clients send the heaviest aggregate the current limits accept,
  one unfiltered `topContributors(limit: 24) { login name }` (complexity 10,048 of
  20,000; a second alias would be over), which groups every contribution;
- many aggregates: N clients send 39 aliases of `statsOverview` (complexity 19,656,
  accepted by both): 39 dataset calls per request, which the read pool's share per
  request keeps from queueing ahead of everyone else's.

Before the scenarios, the attack request is sent alone twice and its answer timed.
Meanwhile one client sends `{ chapterCountries sponsors { key } }` back to back for
--seconds (default 15); the script prints its latency percentiles and the heavy
clients' answers as a Markdown table, with the machine and the load. The per-address
rate limit is lifted where the binary has it (`--graphql-rate-limit 0`), so the figures
show the cost model and the pool share, not the rate limit. Only 127.0.0.1 is contacted;
every loop is bounded in time and count.
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import http.client
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIGHT = "{ chapterCountries sponsors { key } }"


def aliases(n):
    return "{ " + " ".join(f"a{i}: topContributors(limit: 1) {{ login }}" for i in range(n)) + " }"


SCENARIOS = [
    ("attack: 1,000 aliases of topContributors(limit: 1)", aliases(1000)),
    ("heaviest accepted: topContributors(limit: 24)",
     "{ topContributors(limit: 24) { login name } }"),
    ("many aggregates: 39 aliases of statsOverview",
     "{ " + " ".join(f"s{i}: statsOverview {{ contributorsStats }}" for i in range(39)) + " }"),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(port, query, timeout=60.0):
    """One POST /graphql/; (seconds, HTTP status, first error code or '')."""
    body = json.dumps({"query": query})
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/graphql/", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        data = response.read()
        status = response.status
    finally:
        conn.close()
    took = time.perf_counter() - started
    code = ""
    try:
        errors = json.loads(data).get("errors") or []
        if errors:
            code = (errors[0].get("extensions") or {}).get("code") or "uncoded"
    except (ValueError, AttributeError):
        code = "not JSON"
    return took, status, code


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(p / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


def run_scenario(port, heavy_query, heavy_clients, seconds):
    stop = threading.Event()
    heavy_results = []
    lock = threading.Lock()

    def heavy():
        # Bounded: stops with the light client, and after 10,000 requests at most.
        for _ in range(10_000):
            if stop.is_set():
                return
            try:
                result = post(port, heavy_query)
            except OSError as e:
                result = (0.0, 0, type(e).__name__)
            with lock:
                heavy_results.append(result)

    threads = [threading.Thread(target=heavy, daemon=True) for _ in range(heavy_clients)]
    for t in threads:
        t.start()
    time.sleep(1.0)  # the heavy requests are in flight
    light = []
    light_errors = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and len(light) < 100_000:
        took, status, code = post(port, LIGHT)
        if status != 200 or code:
            light_errors += 1
        light.append(took)
    stop.set()
    for t in threads:
        t.join(timeout=70)
    light.sort()
    heavy_by_answer = {}
    for took, status, code in heavy_results:
        key = f"{status} {code}".strip()
        heavy_by_answer.setdefault(key, []).append(took)
    return light, light_errors, heavy_by_answer


def serve(binary, db, site, port):
    help_text = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True).stdout
    extra = ["--graphql-rate-limit", "0"] if "--graphql-rate-limit" in help_text else []
    log = open(Path(site).parent / f"serve-{port}.log", "w")
    proc = subprocess.Popen(
        [binary, "serve", "--env", "e2e", "--listen", f"127.0.0.1:{port}", "--db", db,
         "--site", site, "--auth-db", str(Path(site).parent / "auth.db"), *extra],
        stdout=log, stderr=subprocess.STDOUT,
    )
    for _ in range(240):
        try:
            if post(port, "{ chapterCountries }", timeout=5)[1] == 200:
                return proc
        except OSError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"roost serve did not start; see {log.name}")


def machine():
    model = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}"


def split_label(arg):
    """`LABEL=PATH` or `PATH` (labelled by the worktree's commit)."""
    if "=" in arg:
        label, path = arg.split("=", 1)
        return label, path
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    return f"{Path(arg).name} at {commit}", arg


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", action="append", help="roost binaries to compare (repeatable)")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--heavy", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the dataset for the next run")
    args = parser.parse_args()

    binaries = args.bin
    if not binaries:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        binaries = [str(ROOT / "target" / "release" / "roost")]
    binaries = [split_label(b) for b in binaries]
    work = Path(os.environ.get("BENCH_DIR", "/tmp/roost-bench"))
    work.mkdir(parents=True, exist_ok=True)
    db = work / "nest.db"
    if not db.exists():
        started = time.monotonic()
        subprocess.run([binaries[-1][1], "db", "synth", "--scale", "nest", "--seed", "1",
                        "--db", str(db)], check=True, stdout=subprocess.DEVNULL)
        print(f"synthesised {db} in {time.monotonic() - started:.1f} s", file=sys.stderr)
    # GraphQL does not read the tree: an empty one, newer than the dataset, keeps
    # `serve` from generating it.
    site = work / "graphql-site"
    site.mkdir(exist_ok=True)
    (site / "manifest.json").write_text("{}")

    print(f"machine: {machine()}; load average before: {os.getloadavg()}")
    print()
    print("| binary | scenario | light requests | light p50 | light p99 | light max "
          "| light errors | heavy answers (count, median time) |")
    print("|---|---|---|---|---|---|---|---|")
    alone = []
    try:
        for label, binary in binaries:
            port = free_port()
            proc = serve(binary, str(db), str(site), port)
            try:
                answers = [post(port, SCENARIOS[0][1]) for _ in range(2)]
            finally:
                proc.terminate()
                proc.wait(timeout=40)
            alone.append((label, answers))
            for name, heavy_query in SCENARIOS:
                port = free_port()
                proc = serve(binary, str(db), str(site), port)
                try:
                    light, light_errors, heavy = run_scenario(
                        port, heavy_query, args.heavy, args.seconds)
                finally:
                    proc.terminate()
                    try:
                        proc.wait(timeout=40)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                heavy_text = "; ".join(
                    f"{key}: {len(v)}, {statistics.median(v) * 1000:.0f} ms"
                    for key, v in sorted(heavy.items()))
                ms = lambda s: f"{s * 1000:.1f} ms"
                print(f"| {label} | {name} | {len(light)} "
                      f"| {ms(percentile(light, 50))} | {ms(percentile(light, 99))} "
                      f"| {ms(light[-1] if light else float('nan'))} | {light_errors} "
                      f"| {heavy_text} |", flush=True)
    finally:
        print()
        for label, answers in alone:
            text = ", ".join(f"{status} {code or 'ok'} in {took * 1000:.1f} ms"
                             for took, status, code in answers)
            print(f"- {label}: the 1,000-alias request alone: {text}")
        print()
        print(f"load average after: {os.getloadavg()}")
        if not args.keep:
            for path in [db, site / "manifest.json", work / "auth.db"]:
                path.unlink(missing_ok=True)
            for log in work.glob("serve-*.log"):
                log.unlink()
            for d in [site, work]:
                try:
                    d.rmdir()
                except OSError:
                    pass


if __name__ == "__main__":
    main()
