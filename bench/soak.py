#!/usr/bin/env python3
"""A soak: `roost serve` under mixed traffic for half an hour, a new dataset swapped in
and the tree regenerated every minute (issue 46, item 2).

    bench/soak.py [--duration 1800] [--interval 60] [--connections 48]
                  [--fraction 0.5] [--capacity-seconds 10] [--swap copy|import]
                  [--scale nest] [--work DIR] [--keep] [--bin PATH]

Environment: DURATION, INTERVAL, CONNS and SCALE set the defaults of the options of
the same meaning (DURATION=120 bench/soak.py for a short run).

Data. `roost db synth --scale SCALE` makes version A (a.db); `roost db export`, four
records edited (the chapter, project and member the GraphQL pages name, and the newest
open issue: " (soak B)" added to a name or title) and `roost db import` make version B
(b.db). The served dataset starts as a copy of A, `roost generate` renders its tree,
and `roost serve --env e2e --graphql-rate-limit 0` answers over both (no access key,
no GraphQL budget; the access log is kept, its lines dropped before they reach the
disk).

Requests, five kinds (each a wrk process, one thread, its requests in turn):
  files    tree files: lists, records, a pre-rendered filtered list, two with
           `Accept-Encoding: gzip` (the `.gz` siblings)
  live     live lists: page sizes and pages the tree does not hold, filters,
           orderings, a deep page
  q        `q` searches of the project list
  graphql  the frontend's 21 page operations (tests/graphql/pages, with the variables
           bench/graphql_pages.py picks from the dataset)
  idx      `POST /idx/` as the frontend's pages send it (bench/idx.py's requests)
Before the load, every request is sent once to A, once to B (the dataset swapped and
the tree regenerated) and once to A again: its two answers are what it may be answered
during the soak. In wrk's `response` hook every answer must be a 200 whose body is
exactly one of its kind's expected answers; a 5xx, another status, another body and a
socket error (connect, read, write, timeout) are counted.

Capacity. Each kind alone, --capacity-seconds at its connections with no pause
(wrk, two threads): its requests a second C_k are the capacity for that kind on this
machine, wrk included. The soak then sends each kind at r_k = fraction × C_k / 5, so
that the server is busy about `fraction` of the time (the sum of r_k / C_k, printed
per minute as "of capacity"). wrk's `delay` hook paces each connection; the pause is
set from a --capacity-seconds calibration run of the mixed load and corrected after
every minute for what a request's cycle adds to it (latency, wrk's timer).
--connections are split between the kinds (files a third, the rest even).

Soak. Every --interval seconds a minute starts, in two phases. "regen": the load
starts; 5 s in, the other version of the dataset is swapped in (`--swap copy`: its
file copied beside the served one and renamed over it; `--swap import`: `roost db
import` of its folder to the served path, which renames atomically) and `roost
generate` runs over the served tree; when it ends, wrk is stopped (SIGINT: it reports
at once). "after": the load again for the rest of the minute. (At `nest` on two cores
`--swap import` takes 45-52 s beside the load and `generate` about 20 s: a row then
lasts as long as those, with no "after" phase.) Every second roost's RSS
(VmRSS), open descriptors (/proc/PID/fd) and CPU time are read; after the minute's
load its RssAnon, threads and descriptors at rest. Each minute's rows: the swap and
generate times, the warm-up roost logs for the replaced dataset, RSS mean and max,
descriptors at rest and max, threads, roost's CPU, requests a second, 5xx and errors;
and per kind p50 and p99 of the regen phase and p99 of the after phase (wrk's latency,
request written to response read).

Verdict, over the first and the last W = min(10, minutes // 2) minutes:
  memory flat       mean RSS of the last W within 10% of the first W's
  descriptors flat  the last W's descriptors at rest no more than the first W's
                    highest, and their mean under load within 10%
  no 5xx, no error  zero of each over the whole run (calibration included), every
                    swap and generate exit 0, no ERROR line in roost's log
  p99 steady        per kind and phase, the median of the per-minute p99 of the last
                    W at most 1.5× that of the first W
Exits 1 when a goal is missed, 2 when the run could not be made.

Needs wrk (Debian; installed when missing and running as root). Python standard
library only. Disk: at `nest`, about 2.2 GB of datasets and 7 GB of tree (two
generations) under --work (default: a new /tmp/soak-* directory, removed at the end
unless --keep; an existing one with a.db and b.db is reused). Not part of `cargo test`.
"""

import argparse
import json
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import http.client
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import graphql_pages  # noqa: E402  (the page operations and their variables)
import idx as idx_bench  # noqa: E402  (the /idx/ requests of the frontend)

PAGES = ROOT / "tests" / "graphql" / "pages"
KINDS = ["files", "live", "q", "graphql", "idx"]
MARK = " (soak B)"


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def loadavg():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(cmd, **kw):
    """Runs a command, returns (seconds, completed process)."""
    t = time.perf_counter()
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    return time.perf_counter() - t, p


def must(cmd, what):
    took, p = run(cmd)
    if p.returncode != 0:
        raise SystemExit(f"{what} failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    log(f"{what}: {took:.1f} s")
    return took


# ---------------------------------------------------------------------------- data

def one(db, sql, *args):
    row = db.execute(sql, args).fetchone()
    if row is None:
        raise SystemExit(f"the dataset has no row for: {sql}")
    return row


def picks(db_path):
    """The records the requests name, from the dataset (A)."""
    v = graphql_pages.pick_variables(db_path)
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    org, repo, number = one(
        db,
        "SELECT o.login, r.name, i.number FROM issues i JOIN repositories r ON r.id = i.repository_id "
        "JOIN organizations o ON o.id = r.organization_id WHERE i.state = 'open' "
        "ORDER BY i.created_at DESC, i.id DESC LIMIT 1",
    )
    busy_org, busy_repo = one(
        db,
        "SELECT o.login, r.name FROM issues i JOIN repositories r ON r.id = i.repository_id "
        "JOIN organizations o ON o.id = r.organization_id GROUP BY r.id ORDER BY COUNT(*) DESC, r.id LIMIT 1",
    )
    project_name = one(db, "SELECT name FROM projects WHERE key = ?",
                       "www-project-" + v["project.graphql"]["key"])[0]
    db.close()
    return {
        "variables": v,
        "chapter": v["chapter.graphql"]["key"],
        "project": v["project.graphql"]["key"],
        "project_name": project_name,
        "member": v["user.graphql"]["key"],
        "snapshot": v["snapshot.graphql"]["key"],
        "issue": (org, repo, number),
        "busy": (busy_org, busy_repo),
    }


def edit_jsonl(src, dst, match, change):
    """Copies src to dst, `change` applied to the records `match` accepts; counts them."""
    n = 0
    tmp = dst.with_suffix(".tmp")
    with open(src, encoding="utf-8") as fi, open(tmp, "w", encoding="utf-8") as fo:
        for line in fi:
            if match(line):
                rec = json.loads(line)
                if change(rec):
                    line = json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n"
                    n += 1
            fo.write(line)
    os.replace(tmp, dst)
    return n


def make_b(export_a, export_b, p):
    """Version B's folder: A's files linked, four records edited."""
    export_b.mkdir()
    for f in export_a.iterdir():
        os.link(f, export_b / f.name)
    org, repo, number = p["issue"]

    def add_name(field):
        def change(rec):
            rec[field] = (rec.get(field) or "soak") + MARK
            return True
        return change

    chapter = f'"key":"www-chapter-{p["chapter"]}"'
    project = f'"key":"www-project-{p["project"]}"'
    member = f'"login":{json.dumps(p["member"])}'
    issue = f'{{"organization":{json.dumps(org)},"repository":{json.dumps(repo)},"number":{number},'
    edits = [
        ("chapters.jsonl", lambda l: chapter in l, add_name("name")),
        ("projects.jsonl", lambda l: project in l, add_name("name")),
        ("members.jsonl", lambda l: l.startswith("{" + member + ","), add_name("name")),
        ("issues.jsonl", lambda l: l.startswith(issue), add_name("title")),
    ]
    for name, match, change in edits:
        (export_b / name).unlink()
        n = edit_jsonl(export_a / name, export_b / name, match, change)
        if n != 1:
            raise SystemExit(f"B: {n} records edited in {name}, expected 1")


# ---------------------------------------------------------------------------- requests

def requests(p, db_path):
    """{kind: [(method, path, headers, body)]}."""
    org, repo, number = p["issue"]
    busy_org, busy_repo = p["busy"]
    q = urllib.parse.quote
    word = p["project_name"].split()[0].lower()[:4]
    get = lambda path, **h: ("GET", path, h, None)  # noqa: E731
    gz = {"Accept-Encoding": "gzip"}
    files = [
        get("/api/v0/issues/"),
        ("GET", "/api/v0/issues/", gz, None),
        get("/api/v0/issues/?state=open"),
        get(f"/api/v0/issues/?organization={q(busy_org)}&repository={q(busy_repo)}"),
        get(f"/api/v0/issues/{q(org)}/{q(repo)}/{number}"),
        get("/api/v0/chapters/"),
        get(f"/api/v0/chapters/{q(p['chapter'])}"),
        get("/api/v0/projects/"),
        get(f"/api/v0/projects/{q(p['project'])}"),
        get(f"/api/v0/members/{q(p['member'])}"),
        get(f"/api/v0/snapshots/{q(p['snapshot'])}"),
        ("GET", "/api/v0/chapters/", gz, None),
    ]
    live = [
        get("/api/v0/issues/?page_size=20&state=open"),
        get("/api/v0/issues/?state=open&page_size=7&page=3"),
        get(f"/api/v0/issues/?organization={q(busy_org)}&state=closed&page_size=30&page=2"),
        get("/api/v0/issues/?page_size=100&page=300"),
        get("/api/v0/members/?page_size=50&ordering=name"),
        get("/api/v0/releases/?page_size=13"),
        get("/api/v0/chapters/?page_size=50"),
        get("/api/v0/milestones/?page_size=25&state=open"),
        get("/api/v0/repositories/?page_size=40&ordering=-updated_at"),
        get("/api/v0/projects/?page_size=5&ordering=-updated_at"),
    ]
    qs = [
        get("/api/v0/projects/?q=" + q("name:a stars:>10") + "&page_size=7"),
        get("/api/v0/projects/?q=" + q(word)),
        get("/api/v0/projects/?q=" + q("stars:<50") + "&page_size=20"),
        get("/api/v0/projects/?q=" + q(f'"{p["project_name"].lower()}"')),
        get("/api/v0/projects/?q=" + q("name:e") + "&level=flagship"),
        get("/api/v0/projects/?q=" + q("sec stars:>=3") + "&ordering=-updated_at&page_size=25"),
    ]
    graphql = []
    json_h = {"Content-Type": "application/json"}
    for name, variables in sorted(p["variables"].items()):
        body = json.dumps({"query": (PAGES / name).read_text(), "variables": variables})
        graphql.append(("POST", "/graphql/", json_h, body))
    idx = []
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    for index in ["chapters", "committees", "events", "issues", "organizations", "programs", "projects", "users"]:
        for _, body in idx_bench.requests_for(db, index):
            idx.append(("POST", "/idx/", json_h, json.dumps(body)))
    db.close()
    return {"files": files, "live": live, "q": qs, "graphql": graphql, "idx": idx}


def fetch_all(base, reqs):
    """{kind: [body]} for every request; every answer must be a 200 (GraphQL without
    `errors`)."""
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    out = {}
    for kind, rs in reqs.items():
        out[kind] = []
        for method, path, headers, body in rs:
            h = dict(headers)
            h.setdefault("Accept-Encoding", "identity")
            conn.request(method, path, body=body, headers=h)
            r = conn.getresponse()
            data = r.read()
            if r.status != 200:
                raise SystemExit(f"{kind} {method} {path}: HTTP {r.status}: {data[:300]!r}")
            if kind == "graphql" and json.loads(data).get("errors"):
                raise SystemExit(f"graphql {body[:80]}…: errors: {data[:300]!r}")
            out[kind].append(data)
    conn.close()
    return out


def lua_str(s):
    if isinstance(s, str):
        s = s.encode()
    out = []
    for b in s:
        c = chr(b)
        if c in '"\\' or b < 32 or b > 126:
            out.append(f"\\{b:03d}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


LUA = r"""
-- bench/soak.py: one kind's requests in turn; every answer checked against the
-- bodies it may have (a 200 with one of them, nothing else).
local specs = { %(specs)s }
local expect_dir, expect_n = %(dir)s, %(n)d
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args)
  delay_ms = tonumber(args[1]) or 0
  reqs = {}
  for _, s in ipairs(specs) do table.insert(reqs, wrk.format(s[1], s[2], s[3], s[4])) end
  ok = {}
  for i = 1, expect_n do
    local f = assert(io.open(expect_dir .. "/" .. i, "rb")); ok[f:read("*a")] = true; f:close()
  end
  math.randomseed(os.time() + tonumber(tostring(reqs):match("0x(%%x+)") or "0", 16) %% 100000)
  i = math.random(#reqs) - 1
  got, s5xx, other, bad = 0, 0, 0, 0
end
function request() i = i %% #reqs + 1; return reqs[i] end
%(delay)s
function response(status, headers, body)
  got = got + 1
  if status >= 500 then s5xx = s5xx + 1
  elseif status ~= 200 then other = other + 1
  elseif not ok[body] then bad = bad + 1 end
end
function done(summary, latency, requests)
  local g, s, o, b = 0, 0, 0, 0
  for _, t in ipairs(threads) do
    g = g + t:get("got"); s = s + t:get("s5xx"); o = o + t:get("other"); b = b + t:get("bad")
  end
  local e = summary.errors
  io.write(string.format(
    "RESULT {\"requests\":%%d,\"seconds\":%%.3f,\"checked\":%%d,\"s5xx\":%%d,\"other\":%%d,\"bad\":%%d," ..
    "\"connect\":%%d,\"read\":%%d,\"write\":%%d,\"timeout\":%%d,\"p50\":%%.3f,\"p99\":%%.3f,\"max\":%%.3f,\"mean\":%%.3f}\n",
    summary.requests, summary.duration / 1e6, g, s, o, b, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000, latency.mean / 1000))
end
"""

# Paces each connection at `delay_ms` between requests on average: the integer
# milliseconds wrk takes, rounded up or down at random.
DELAY = """function delay()
  local f = math.floor(delay_ms)
  if math.random() < delay_ms - f then return f + 1 end
  return f
end"""


def write_lua(work, kind, reqs, expected, paced):
    d = work / f"expect-{kind}"
    d.mkdir(exist_ok=True)
    bodies = sorted(set(b for pair in expected for b in pair))
    for n, b in enumerate(bodies, 1):
        (d / str(n)).write_bytes(b)
    specs = []
    for method, path, headers, body in reqs:
        h = "{" + ", ".join(f"[{lua_str(k)}] = {lua_str(v)}" for k, v in headers.items()) + "}"
        specs.append(f"{{{lua_str(method)}, {lua_str(path)}, {h}, {lua_str(body) if body else 'nil'}}}")
    text = LUA % {"specs": ",\n  ".join(specs), "dir": lua_str(str(d)), "n": len(bodies),
                  "delay": DELAY if paced else ""}
    path = work / f"{kind}{'-paced' if paced else ''}.lua"
    path.write_text(text)
    return path


def wrk_cmd(base, script, threads, conns, seconds, delay_ms=None):
    cmd = ["wrk", f"-t{threads}", f"-c{conns}", f"-d{seconds}s", "--timeout", "5s", "-s", str(script), base]
    if delay_ms is not None:
        cmd += ["--", f"{delay_ms:.4f}"]
    return cmd


def parse_wrk(out):
    m = re.search(r"^RESULT (\{.*\})$", out, re.M)
    if not m:
        return None
    r = json.loads(m.group(1))
    r["errors"] = r["connect"] + r["read"] + r["write"] + r["timeout"] + r["other"] + r["bad"]
    r["rate"] = r["requests"] / r["seconds"] if r["seconds"] else 0.0
    return r


# ---------------------------------------------------------------------------- the server

class Server:
    def __init__(self, binary, work):
        self.work = work
        # stderr through grep: the access lines (one a request) are dropped, the rest kept.
        self.log = open(work / "serve.log", "w")
        self.grep = subprocess.Popen(["grep", "--line-buffered", "-v", '"target":"roost::access"'],
                                     stdin=subprocess.PIPE, stdout=self.log)
        self.proc = subprocess.Popen(
            [binary, "serve", "--env", "e2e", "--listen", "127.0.0.1:0", "--db", work / "served.db",
             "--site", work / "site", "--auth-db", work / "auth.db", "--graphql-rate-limit", "0",
             "--max-connections-per-address", "1024", "--drain-seconds", "0"],
            stdout=subprocess.DEVNULL, stderr=self.grep.stdin)
        self.pid = self.proc.pid
        self.base = None
        for _ in range(600):
            if self.proc.poll() is not None:
                raise SystemExit(f"roost serve exited with {self.proc.returncode}: {self.log_text()[-2000:]}")
            m = re.search(r'"message":"listening on http://([^ ]+) ', self.log_text())
            if m:
                self.base = f"http://{m.group(1)}"
                break
            time.sleep(0.1)
        if not self.base:
            raise SystemExit("roost serve did not start")
        u = urllib.parse.urlsplit(self.base)
        for _ in range(600):
            try:
                c = http.client.HTTPConnection(u.hostname, u.port, timeout=5)
                c.request("GET", "/readyz")
                r = c.getresponse()
                r.read()
                c.close()
                if r.status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise SystemExit("roost serve never ready")

    def log_text(self):
        self.log.flush()
        return (self.work / "serve.log").read_text(errors="replace")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.grep.stdin.close()
        self.grep.wait()
        self.log.close()
        return self.proc.returncode


def proc_sample(pid):
    s = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon", "RssFile", "Threads"):
                s[k] = int(v.split()[0])
    s["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    s["cpu"] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return s


class Sampler(threading.Thread):
    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.samples, self.stopping = pid, [], threading.Event()

    def run(self):
        while not self.stopping.wait(1.0):
            try:
                self.samples.append(proc_sample(self.pid))
            except OSError:
                return

    def take(self):
        out, self.samples = self.samples, []
        return out


# ---------------------------------------------------------------------------- the run

def swap(args, work, binary, version):
    """Swaps version `version` in; (seconds, error or None)."""
    served = work / "served.db"
    if args.swap == "copy":
        t = time.perf_counter()
        try:
            tmp = work / "served.db.next"
            shutil.copyfile(work / f"{version}.db", tmp)
            os.replace(tmp, served)
        except OSError as e:
            return time.perf_counter() - t, f"copy: {e}"
        return time.perf_counter() - t, None
    took, p = run([binary, "db", "import", work / f"export-{version}", "--db", served])
    return took, None if p.returncode == 0 else f"import: {p.stderr.strip()[-300:]}"


def generate(work, binary):
    took, p = run([binary, "generate", "--db", work / "served.db", "--out", work / "site"])
    return took, None if p.returncode == 0 else f"generate: {p.stderr.strip()[-300:]}"


def switch(args, work, binary, version):
    t1, e1 = swap(args, work, binary, version)
    if e1:
        raise SystemExit(e1)
    t2, e2 = generate(work, binary)
    if e2:
        raise SystemExit(e2)
    log(f"version {version.upper()} swapped in ({t1:.1f} s) and the tree regenerated ({t2:.1f} s)")


def prepare(args, work, binary):
    # Each step is skipped when its output is there (a --work directory reused).
    if not (work / "a.db").is_file():
        must([binary, "db", "synth", "--scale", args.scale, "--db", work / "a.db"], f"synth {args.scale} (A)")
    p = picks(work / "a.db")
    need_folders = args.swap == "import" or not (work / "b.db").is_file()
    if need_folders and not (work / "export-a").is_dir():
        must([binary, "db", "export", "--db", work / "a.db", work / "export-a"], "export A")
    if need_folders and not (work / "export-b").is_dir():
        make_b(work / "export-a", work / "export-b", p)
    if not (work / "b.db").is_file():
        must([binary, "db", "import", work / "export-b", "--db", work / "b.db"], "import B (four records edited)")
    if args.swap == "copy":
        for d in ("export-a", "export-b"):
            shutil.rmtree(work / d, ignore_errors=True)
    shutil.copyfile(work / "a.db", work / "served.db.next")
    os.replace(work / "served.db.next", work / "served.db")
    must([binary, "generate", "--db", work / "served.db", "--out", work / "site"], "generate the tree of A")
    return p


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    env = os.environ.get
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=int, default=int(env("DURATION", "1800")), help="seconds of soak")
    ap.add_argument("--interval", type=int, default=int(env("INTERVAL", "60")),
                    help="seconds between swaps (one row each)")
    ap.add_argument("--connections", type=int, default=int(env("CONNS", "48")), help="in all, 16 to 64")
    ap.add_argument("--fraction", type=float, default=0.5, help="of the measured capacity")
    ap.add_argument("--capacity-seconds", type=int, default=10)
    ap.add_argument("--swap", choices=["copy", "import"], default="copy")
    ap.add_argument("--scale", default=env("SCALE", "nest"), choices=["small", "nest", "10x"])
    ap.add_argument("--work", help="working directory (kept; its datasets reused)")
    ap.add_argument("--keep", action="store_true", help="keep the new working directory")
    ap.add_argument("--bin", default=str(Path(env("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "roost"))
    args = ap.parse_args()
    if args.connections < len(KINDS) + 1:
        ap.error("--connections too few")
    binary = str(Path(args.bin).resolve())
    if not Path(binary).is_file():
        raise SystemExit(f"no roost binary at {binary}: cargo build --release --bin roost")
    if not shutil.which("wrk"):
        if os.geteuid() == 0:
            subprocess.run(["apt-get", "update", "-qq"], check=True)
            subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True, stdout=subprocess.DEVNULL)
        else:
            raise SystemExit("wrk is missing: apt-get install wrk")

    if args.work:
        work = Path(args.work).resolve()
        work.mkdir(parents=True, exist_ok=True)
        remove = False
    else:
        work = Path(tempfile.mkdtemp(prefix="soak-", dir="/tmp"))
        remove = not args.keep
    try:
        status = soak(args, work, binary)
    except SystemExit as e:
        if not isinstance(e.code, str):
            raise
        log(f"the run could not be made: {e.code}")
        status = 2
    finally:
        if remove:
            shutil.rmtree(work, ignore_errors=True)
    sys.exit(status)


def soak(args, work, binary):
    load_before = loadavg()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    log(f"load average before: {load_before}; work in {work}; commit {commit}")
    p = prepare(args, work, binary)
    reqs = requests(p, work / "a.db")
    server = Server(binary, work)
    try:
        return soak_with(args, work, binary, p, reqs, server, load_before, commit)
    finally:
        rc = server.stop()
        log(f"roost serve stopped (exit {rc})")


def start_load(base, paced, conns, delay, seconds):
    return {k: subprocess.Popen(wrk_cmd(base, paced[k], 1, conns[k], seconds, delay[k]),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for k in KINDS}


def end_load(procs, what, interrupt=False):
    """Each kind's result; SIGINT first when `interrupt` (wrk then reports at once)."""
    if interrupt:
        for proc in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
    out = {}
    for k, proc in procs.items():
        text, _ = proc.communicate()
        out[k] = parse_wrk(text)
        if out[k] is None:
            raise SystemExit(f"wrk ({k}) failed in {what}: {text}")
    return out


def repace(delay, conns, target, results):
    """The pause that brings each kind to its target rate, given what the last one gave:
    a request's cycle is the pause plus an overhead (latency, wrk's timer) measured by it."""
    out = {}
    for k in KINDS:
        r = results[k]
        overhead = max(0.0, 1000.0 * conns[k] * r["seconds"] / max(1, r["requests"]) - delay[k])
        out[k] = max(0.0, 1000.0 * conns[k] / target[k] - overhead)
    return out


def merge(a, b):
    """Counts of two results of one kind added (percentiles are not: they stay apart)."""
    if b is None:
        return dict(a)
    m = dict(a)
    for key in ("requests", "seconds", "checked", "s5xx", "other", "bad", "connect", "read", "write",
                "timeout", "errors"):
        m[key] = a[key] + b[key]
    m["rate"] = m["requests"] / m["seconds"] if m["seconds"] else 0.0
    return m


def soak_with(args, work, binary, p, reqs, server, load_before, commit):
    base = server.base
    log(f"roost serve (pid {server.pid}) at {base}; {sum(len(r) for r in reqs.values())} requests in "
        + ", ".join(f"{k} {len(v)}" for k, v in reqs.items()))
    a1 = fetch_all(base, reqs)
    switch(args, work, binary, "b")
    b = fetch_all(base, reqs)
    switch(args, work, binary, "a")
    a2 = fetch_all(base, reqs)
    for kind in KINDS:
        if a1[kind] != a2[kind]:
            changed = [reqs[kind][i][1] for i in range(len(a1[kind])) if a1[kind][i] != a2[kind][i]]
            raise SystemExit(f"{kind}: A answered differently after B: {changed[:3]}")
    differ = {k: sum(x != y for x, y in zip(a1[k], b[k])) for k in KINDS}
    log("requests answered differently by A and B: " + ", ".join(f"{k} {differ[k]}" for k in KINDS))
    expected = {k: list(zip(a1[k], b[k])) for k in KINDS}

    conns = {}
    rest = args.connections - args.connections // 3
    conns["files"] = args.connections // 3
    for n, k in enumerate(KINDS[1:]):
        conns[k] = rest // 4 + (1 if n < rest % 4 else 0)
    scripts = {k: write_lua(work, k, reqs[k], expected[k], False) for k in KINDS}
    paced = {k: write_lua(work, k, reqs[k], expected[k], True) for k in KINDS}

    # Capacity: each kind alone, saturating.
    capacity = {}
    cap_rows = []
    for k in KINDS:
        out = subprocess.run(wrk_cmd(base, scripts[k], 2, conns[k], args.capacity_seconds),
                             capture_output=True, text=True)
        r = parse_wrk(out.stdout)
        if r is None:
            raise SystemExit(f"wrk ({k}) failed: {out.stdout}{out.stderr}")
        capacity[k] = r["rate"]
        cap_rows.append(f"| {k} | {conns[k]} | {r['rate']:,.0f} | {r['p50']:.2f} | {r['p99']:.2f} "
                        f"| {r['s5xx']} | {r['errors']} |")
        log(f"capacity {k}: {r['rate']:,.0f} req/s over {conns[k]} connections, p99 {r['p99']:.2f} ms, "
            f"5xx {r['s5xx']}, errors {r['errors']}")
    target = {k: args.fraction * capacity[k] / len(KINDS) for k in KINDS}
    delay = {k: 1000.0 * conns[k] / target[k] for k in KINDS}
    # Calibration: the mixed load for a few seconds, the pauses then corrected for
    # what a request's cycle adds to them (and again after every minute).
    cal = end_load(start_load(base, paced, conns, delay, args.capacity_seconds), "calibration")
    calibration_errors = sum(r["errors"] + r["s5xx"] for r in cal.values())
    delay = repace(delay, conns, target, cal)
    log("soak rates: " + ", ".join(f"{k} {target[k]:,.0f}/s (calibration gave {cal[k]['rate']:,.0f}; "
                                   f"pause now {delay[k]:.2f} ms)" for k in KINDS))

    sampler = Sampler(server.pid)
    sampler.start()
    minutes = max(1, args.duration // args.interval)
    rows = []
    version = "a"
    started = time.time()
    seen_warm = len(re.findall(r"warmed up the replaced dataset", server.log_text()))
    for m in range(1, minutes + 1):
        version = "b" if version == "a" else "a"
        cpu0 = proc_sample(server.pid)["cpu"]
        t0 = time.perf_counter()
        # Phase 1, "regen": from the minute's start to the end of `generate`.
        procs = start_load(base, paced, conns, delay, args.interval * 5)
        time.sleep(min(5, args.interval / 4))
        swap_s, err = swap(args, work, binary, version)
        gen_s, gerr = (0.0, None) if err else generate(work, binary)
        regen = end_load(procs, f"minute {m}", interrupt=True)
        # Phase 2, "after": the rest of the minute.
        left = int(args.interval - (time.perf_counter() - t0))
        after = end_load(start_load(base, paced, conns, delay, left), f"minute {m}") if left >= 3 else None
        wall = time.perf_counter() - t0
        samples = sampler.take()
        time.sleep(0.5)
        rest_s = proc_sample(server.pid)
        warmed = re.findall(r"warmed up the replaced dataset in (\d+) ms", server.log_text())
        warm_ms, seen_warm = warmed[seen_warm:], len(warmed)
        whole = {k: merge(regen[k], after[k] if after else None) for k in KINDS}
        delay = repace(delay, conns, target, whole)
        cpu = (rest_s["cpu"] - cpu0) / wall * 100
        rss = [s["VmRSS"] / 1024 for s in samples] or [rest_s["VmRSS"] / 1024]
        fds = [s["fds"] for s in samples] or [rest_s["fds"]]
        row = {
            "minute": m, "version": version.upper(), "swap": swap_s, "gen": gen_s,
            "failed": err or gerr, "rss_mean": statistics.mean(rss), "rss_max": max(rss),
            "anon": rest_s["RssAnon"] / 1024, "fds_rest": rest_s["fds"], "fds_mean": statistics.mean(fds),
            "fds_max": max(fds), "threads": rest_s["Threads"], "cpu": cpu,
            "rate": sum(r["rate"] for r in whole.values()),
            "util": sum(whole[k]["rate"] / capacity[k] for k in KINDS),
            "s5xx": sum(r["s5xx"] for r in whole.values()),
            "errors": sum(r["errors"] for r in whole.values()) + (1 if err or gerr else 0),
            "requests": sum(r["requests"] for r in whole.values()),
            "load": os.getloadavg()[0], "regen": regen, "after": after, "whole": whole, "warm": ", ".join(warm_ms) or "–",
        }
        rows.append(row)
        log(f"minute {m}/{minutes}: {version.upper()} in (swap {swap_s:.1f} s, generate {gen_s:.1f} s"
            f"{', FAILED: ' + (err or gerr) if err or gerr else ''}; warmed up in {row['warm']} ms); RSS {row['rss_mean']:.0f} MB "
            f"(anon {row['anon']:.0f}), fds {row['fds_rest']} at rest / {row['fds_max']} max, "
            f"{row['threads']} threads, CPU {cpu:.0f}%, {row['rate']:,.0f} req/s ({row['util']:.2f} of capacity); "
            "p50/p99 regen/p99 after: "
            + ", ".join(f"{k} {regen[k]['p50']:.2f}/{regen[k]['p99']:.1f}/"
                        f"{after[k]['p99'] if after else float('nan'):.1f}" for k in KINDS)
            + f"; 5xx {row['s5xx']}, errors {row['errors']}")
    sampler.stopping.set()
    soak_s = time.time() - started
    load_after = loadavg()
    log(f"load average after: {load_after}")
    lines = server.log_text().splitlines()
    server_errors = sum(1 for line in lines if '"level":"ERROR"' in line)
    server_warnings = sum(1 for line in lines if '"level":"WARN"' in line)
    roost_version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    return report(args, roost_version, conns, capacity, cap_rows, target, rows, load_before, load_after, commit,
                  soak_s, server_errors, server_warnings, differ, reqs, calibration_errors)


def p99s(rows, phase, kind):
    return [r[phase][kind]["p99"] for r in rows if r[phase]]


def report(args, roost_version, conns, capacity, cap_rows, target, rows, load_before, load_after, commit,
           soak_s, server_errors, server_warnings, differ, reqs, calibration_errors):
    n = len(rows)
    w = max(1, min(10, n // 2))
    first, last = rows[:w], rows[-w:]
    print(f"## soak: {n} minutes of mixed traffic at {args.fraction:.0%} of capacity, "
          f"`{args.scale}`, swap by {args.swap}\n")
    print(f"{roost_version}; script at {commit}; load average before {load_before}, after {load_after}; "
          f"{args.connections} connections; {soak_s / 60:.1f} minutes of soak\n")
    print("Requests per kind (each answer's body checked against A's and B's):\n")
    print("| kind | requests | answered differently by A and B | connections | soak rate req/s |")
    print("|---|---:|---:|---:|---:|")
    for k in KINDS:
        print(f"| {k} | {len(reqs[k])} | {differ[k]} | {conns[k]} | {target[k]:,.0f} |")
    print(f"\nCapacity, each kind alone ({args.capacity_seconds} s, wrk -t2); the soak sends each "
          f"kind at {args.fraction:.0%} / {len(KINDS)} of its own:\n")
    print("| kind | connections | req/s | p50 ms | p99 ms | 5xx | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in cap_rows:
        print(r)
    print("\nPer minute, the server (RSS and descriptors sampled every second; descriptors at "
          "rest counted after the minute's load; CPU: roost's share of one core; load: the machine's one-minute load average at the minute's end):\n")
    print("| min | in | swap s | gen s | warm-up ms | RSS MB mean / max | RssAnon MB | fds rest / max "
          "| threads | CPU % | req/s | of capacity | 5xx | errors | load |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['minute']} | {r['version']} | {r['swap']:.1f} | {r['gen']:.1f} | {r['warm']} "
              f"| {r['rss_mean']:.0f} / {r['rss_max']:.0f} | {r['anon']:.0f} | {r['fds_rest']} / {r['fds_max']} "
              f"| {r['threads']} | {r['cpu']:.0f} | {r['rate']:,.0f} | {r['util']:.2f} "
              f"| {r['s5xx']} | {r['errors']} | {r['load']:.1f} |")
    print("\nPer minute, latency in ms per kind: p50 and p99 from the minute's start to the end "
          "of `generate` (regen), p99 over the rest of the minute (after):\n")
    print("| min | " + " | ".join(f"{k} p50 · p99 regen · p99 after" for k in KINDS) + " |")
    print("|---:|" + "---:|" * len(KINDS))
    for r in rows:
        cells = []
        for k in KINDS:
            a = f"{r['after'][k]['p99']:.1f}" if r["after"] else "–"
            cells.append(f"{r['regen'][k]['p50']:.2f} · {r['regen'][k]['p99']:.1f} · {a}")
        print(f"| {r['minute']} | " + " | ".join(cells) + " |")

    verdicts = []
    rss_f = statistics.mean(r["rss_mean"] for r in first)
    rss_l = statistics.mean(r["rss_mean"] for r in last)
    verdicts.append(("memory flat: mean RSS of the last window within 10% of the first's",
                     f"{rss_f:.1f} → {rss_l:.1f} MB ({(rss_l / rss_f - 1) * 100:+.1f}%); RssAnon at the "
                     f"minutes' ends {statistics.mean(r['anon'] for r in first):.1f} → "
                     f"{statistics.mean(r['anon'] for r in last):.1f} MB",
                     abs(rss_l / rss_f - 1) <= 0.10))
    rest_f = max(r["fds_rest"] for r in first)
    rest_l = max(r["fds_rest"] for r in last)
    fd_f = statistics.mean(r["fds_mean"] for r in first)
    fd_l = statistics.mean(r["fds_mean"] for r in last)
    verdicts.append(("descriptors flat: at rest no more than the first window's highest, "
                     "mean under load within 10%",
                     f"at rest {rest_f} → {rest_l} (highest of each window); under load "
                     f"{fd_f:.1f} → {fd_l:.1f}",
                     rest_l <= rest_f and abs(fd_l / fd_f - 1) <= 0.10))
    total_5xx = sum(r["s5xx"] for r in rows)
    total_err = sum(r["errors"] for r in rows)
    total_req = sum(r["requests"] for r in rows)
    failed = [r["minute"] for r in rows if r["failed"]]
    verdicts.append(("no 5xx", f"{total_5xx} of {total_req:,} answers", total_5xx == 0))
    verdicts.append(("no error: socket errors, other statuses, bodies neither A's nor B's, "
                     "failed swaps or runs of `generate`, ERROR lines in roost's log",
                     f"{total_err} in the soak ({calibration_errors} in the calibration); failed swaps "
                     f"in minutes: {failed or 'none'}; ERROR log lines: {server_errors} (WARN: {server_warnings})",
                     total_err == 0 and calibration_errors == 0 and server_errors == 0))
    for k in KINDS:
        figs, ok = [], True
        for phase in ("regen", "after"):
            fs, ls = p99s(first, phase, k), p99s(last, phase, k)
            if not fs or not ls:
                # Swap and generate took the whole of those minutes: no "after" phase.
                figs.append(f"{phase}: none in a window")
                continue
            f, l = median(fs), median(ls)
            figs.append(f"{phase} {f:.1f} → {l:.1f} ms ({l / f:.2f}×)")
            ok = ok and l <= 1.5 * f
        verdicts.append((f"p99 steady, {k}: the median of the last window's per-minute p99 at most "
                         "1.5× the first's, in each phase", "; ".join(figs), ok))
    print(f"\nVerdict (first window: minutes 1–{w}; last: {n - w + 1}–{n}):\n")
    print("| goal | figure | verdict |")
    print("|---|---|---|")
    for goal, fig, ok in verdicts:
        print(f"| {goal} | {fig} | {'met' if ok else '**not met**'} |")
    return 0 if all(v[2] for v in verdicts) else 1


if __name__ == "__main__":
    main()
