#!/usr/bin/env python3
"""The crash sweep of .ci/steps/87-crash.sh (docs/architecture.md §9.1).

Drives every writer of roost on small data (the sample as dataset A, a few records
changed as dataset B) with a roost built with the `failpoints` feature:

- at each named crash point of `src/crash.rs` (POINTS) in turn, armed through
  FAILPOINTS (`name=return`: the process kills itself there with SIGKILL; points in
  loops also at a later pass, `N*off->return`);
- at random instants by SIGKILL from here, the delay drawn within the command's
  measured duration;

and after each kill checks that
- what readers see is exactly the state before the command or the one it makes (the
  tree: its manifest is A's or B's, every file listed present with its size and
  SHA-256, no other file; the dataset: `roost db check` clean and `roost db export`
  equal to one state's; the export folder: one state's files; the credential store:
  every credential as before, or with the one the command creates or revokes, and
  every known secret answered by a running `roost serve --env production` as its
  status says);
- the next run of the same command succeeds, and leaves the new state exactly;
- nothing is left behind after it (temporary files, generation folders other than
  the live one and the spare, `.part` files, swap symlinks, pending records).

While the generate and import writers are swept, a `roost serve` on the tree (or
dataset) being written is asked the same requests over and over: every answer must
be 200 with the body of one whole state (A's or B's), never a 5xx or another body.

Writers run in four lanes (threads), generate, the slowest, in two of them (its
points in one, its random kills in another, each on a tree of its own), so the
machine's cores stay busy while a lane waits for a run. Standard library only. Prints
per writer the crash points, armed runs, kills, the kills that left the old state or
the new one, and the outcome; exits 1 on any failure.
"""

import argparse
import hashlib
import http.client
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TODAY = "2026-11-22"
COMMAND_TIMEOUT = 120


class Failed(Exception):
    """A check that did not hold."""


# --- the crash points --------------------------------------------------------------


def crash_points():
    """The points of src/crash.rs's POINTS, by writer, in their order."""
    text = (ROOT / "src/crash.rs").read_text()
    body = text[text.index("pub const POINTS") :]
    body = body[: body.index("\n];")]
    by_writer = {}
    for name in re.findall(r'\(\s*"([a-z_]+::[a-z_]+)"', body):
        by_writer.setdefault(name.split("::")[0], []).append(name)
    return by_writer


# Points passed many times in one run: also armed at a later pass.
LATER_PASSES = {
    "generate::write_file": [20, 60],
    "generate::unit_record": [15],
    "mirror::fetch_file": [25],
    "export::file": [11],
}


# --- files -------------------------------------------------------------------------

_hashes = {}
_hashes_lock = threading.Lock()


def sha256_of(path):
    """A file's SHA-256 (hex), remembered by inode, size and mtime (the trees share
    inodes between generations)."""
    st = os.stat(path)
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    with _hashes_lock:
        if key in _hashes:
            return _hashes[key]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    digest = h.hexdigest()
    with _hashes_lock:
        _hashes[key] = digest
    return digest


def files_under(root):
    """Every name under `root` that is not a folder (files, symlinks), relative."""
    found = set()
    for folder, dirs, files in os.walk(root):
        for name in files:
            found.add(os.path.relpath(os.path.join(folder, name), root))
        for name in dirs:
            if os.path.islink(os.path.join(folder, name)):
                found.add(os.path.relpath(os.path.join(folder, name), root))
    return found


def folder_hashes(folder):
    """Every file of a folder (not recursive) and its SHA-256."""
    return {name: sha256_of(folder / name) for name in sorted(os.listdir(folder))}


CHANGE_LISTS = {f"changes/{n}.txt" for n in ("added", "changed", "removed", "urls")}


def check_tree(root, references, what):
    """The tree at `root` is one of `references` (name -> manifest.json bytes) whole:
    its manifest is that state's, every file it lists is there with its size and
    SHA-256, and it holds nothing else but its manifest documents and change lists.
    Returns the state's name."""
    try:
        manifest = (root / "manifest.json").read_bytes()
    except OSError as e:
        raise Failed(f"{what}: no manifest.json ({e})")
    names = [name for name, bytes_ in references.items() if bytes_ == manifest]
    if not names:
        raise Failed(f"{what}: its manifest.json is no state's ({len(manifest)} bytes)")
    entries = json.loads(manifest)["files"]
    expected = {"manifest.json", "manifest/root.json"} | CHANGE_LISTS
    try:
        chunks = json.loads((root / "manifest/root.json").read_bytes())["chunks"]
    except (OSError, ValueError, KeyError) as e:
        raise Failed(f"{what}: manifest/root.json unreadable ({e})")
    expected |= {c["path"] for c in chunks}
    for e in entries:
        path = root / e["path"]
        try:
            size = os.stat(path).st_size
        except OSError:
            raise Failed(f"{what} ({names[0]}): {e['path']} is missing")
        if size != e["size"] or sha256_of(path) != e["sha256"]:
            raise Failed(f"{what} ({names[0]}): {e['path']} differs from its manifest entry")
        expected.add(e["path"])
    present = files_under(root)
    extra = sorted(present - expected)
    if extra:
        raise Failed(f"{what} ({names[0]}): files no manifest lists: {extra[:5]}")
    missing = sorted(expected - present - CHANGE_LISTS)
    if missing:
        raise Failed(f"{what} ({names[0]}): manifest documents missing: {missing[:5]}")
    return names[0]


def only_names(folder, allowed, what):
    """`folder` holds no name but `allowed` (names, or compiled patterns)."""
    extra = []
    for name in sorted(os.listdir(folder)):
        ok = any(
            (a.fullmatch(name) if isinstance(a, re.Pattern) else a == name) for a in allowed
        )
        if not ok:
            extra.append(name)
    if extra:
        raise Failed(f"{what}: left behind in {folder}: {extra}")


# --- processes ---------------------------------------------------------------------


class Roost:
    def __init__(self, binary, work):
        self.binary = binary
        self.work = work
        self.serial = 0
        self.lock = threading.Lock()

    def _logs(self):
        with self.lock:
            self.serial += 1
            n = self.serial
        return self.work / "logs" / f"{n}.out", self.work / "logs" / f"{n}.err"

    def env(self, failpoints):
        env = dict(os.environ)
        env.pop("FAILPOINTS", None)
        env["RUST_BACKTRACE"] = "0"
        if failpoints:
            env["FAILPOINTS"] = failpoints
        return env

    def start(self, args, failpoints=None):
        out, err = self._logs()
        proc = subprocess.Popen(
            [str(self.binary), *args],
            stdout=open(out, "wb"),
            stderr=open(err, "wb"),
            stdin=subprocess.DEVNULL,
            env=self.env(failpoints),
        )
        proc.out_path, proc.err_path = out, err
        return proc

    def run(self, args, failpoints=None, ok=True):
        """Runs roost to the end; with `ok`, fails unless it exits 0."""
        proc = self.start(args, failpoints)
        rc = wait(proc)
        if ok and rc != 0:
            raise Failed(f"roost {' '.join(map(str, args))} exited {rc}: {tail(proc)}")
        return proc, rc

    def stdout(self, args):
        proc, _ = self.run(args)
        return proc.out_path.read_text()


def wait(proc):
    try:
        return proc.wait(timeout=COMMAND_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise Failed(f"roost did not finish in {COMMAND_TIMEOUT} s: {tail(proc)}")


def tail(proc):
    text = Path(proc.err_path).read_text(errors="replace").strip().splitlines()
    return " | ".join(text[-3:]) or "(nothing on stderr)"


def free_port():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Serve:
    """A `roost serve` on loopback."""

    def __init__(self, roost, args, name):
        self.port = free_port()
        self.proc = roost.start(
            ["serve", "--listen", f"127.0.0.1:{self.port}", "--rate-limit", "0",
             "--failed-auth-rate", "0", "--graphql-rate-limit", "0", *args]
        )
        self.name = name
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise Failed(f"roost serve ({name}) exited: {tail(self.proc)}")
            try:
                status, _ = self.get("/healthz")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise Failed(f"roost serve ({name}) did not answer: {tail(self.proc)}")

    def request(self, method, path, body=None, headers=None, conn=None):
        own = conn is None
        conn = conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            if own:
                conn.close()

    def get(self, path, headers=None):
        return self.request("GET", path, headers=headers)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


class Reader(threading.Thread):
    """Asks a serve the same requests over and over while a writer is swept: each
    answer must be 200 with the body of one whole state."""

    def __init__(self, serve, requests):
        super().__init__(daemon=True)
        self.serve = serve
        self.requests = requests  # name -> (method, path, body, headers)
        self.allowed = {name: {} for name in requests}  # name -> body -> state
        self.stopping = threading.Event()
        self.count = 0
        self.failures = []
        self.reported = False

    def record(self, state):
        """The answers of the serve now, as those of `state`."""
        for name, (method, path, body, headers) in self.requests.items():
            status, answer = self.serve.request(method, path, body, headers)
            if status != 200:
                raise Failed(f"{self.serve.name}: {path} answered {status} in state {state}")
            self.allowed[name][answer] = state

    def states_differ(self):
        return sum(1 for bodies in self.allowed.values() if len(bodies) > 1)

    def run(self):
        conn = None
        while not self.stopping.is_set():
            for name, (method, path, body, headers) in self.requests.items():
                if self.stopping.is_set():
                    break
                try:
                    conn = conn or http.client.HTTPConnection("127.0.0.1", self.serve.port, timeout=30)
                    status, answer = self.serve.request(method, path, body, headers, conn)
                except (OSError, http.client.HTTPException) as e:
                    self.failures.append(f"{path}: {e!r}")
                    conn = None
                    continue
                self.count += 1
                if status != 200:
                    self.failures.append(f"{path}: {status} {answer[:200]!r}")
                elif answer not in self.allowed[name]:
                    self.failures.append(f"{path}: a body of no whole state: {answer[:200]!r}")
                time.sleep(0.05)

    def finish(self):
        self.stopping.set()
        self.join()
        self.reported = True
        if self.failures:
            raise Failed(
                f"{self.serve.name}: {len(self.failures)} of {self.count} answers during the "
                f"sweep were not a whole state's: {self.failures[:3]}"
            )


# --- one writer --------------------------------------------------------------------


class Command:
    """A run of a writer: its arguments and the states before and after it."""

    def __init__(self, kind, args, before, target, **extra):
        self.kind, self.args, self.before, self.target = kind, args, before, target
        self.__dict__.update(extra)


class Writer:
    """A writer swept: subclasses say how to run it and what readers see."""

    name = ""
    points_of = ""  # the writer whose points it is armed at
    kinds = ["change", "change", "same"]  # tried in turn until an armed point is reached
    random_kinds = [("change", 0.85), ("same", 0.15)]

    def __init__(self, sweep, part=""):
        self.sweep = sweep
        self.roost = sweep.roost
        # The writer's own draws, the same for the same seed.
        self.rng = random.Random(f"{sweep.seed} {self.name} {part}")
        self.points = 0
        self.point_runs = 0
        self.kills = 0
        self.not_reached = []
        self.seen = {"before": 0, "target": 0}
        self.durations = {}
        self.check_time = 0.0
        self.mutations = 0  # runs of the writer started so far

    def setup(self):
        pass

    def finish(self):
        """The checks made once the writer has been swept."""

    def teardown(self):
        """Stops what the writer's sweep started."""

    def command(self, kind):
        raise NotImplementedError

    def observe(self, cmd):
        """What readers see now: the state's name; raises Failed unless it is whole."""
        raise NotImplementedError

    def leftovers(self, cmd):
        """Raises Failed when something is left behind after a completed run."""

    def done(self, cmd, run):
        """The command completed (`run` its process): the writer's state is the target."""

    def kinds_for(self, point):
        return self.kinds

    def prelude(self, point):
        """A point to kill a first run at before the armed one (leftovers to remove)."""
        return None

    # The cycle: a run killed (or not), what readers see, the next run, leftovers.
    def cycle(self, kind, failpoints=None, delay=None, prelude=None):
        if kind == "keep":
            # A run that changes the state, then the same command again (it keeps
            # what the first made).
            first = self.command("change")
            self.mutations += 1
            proc, _ = self.roost.run(first.args)
            self.done(first, proc)
            kind = "same"
        cmd = self.command(kind)
        self.mutations += 1
        if prelude:
            proc, rc = self.roost.run(cmd.args, f"{prelude}=return", ok=False)
            if rc != -signal.SIGKILL:
                raise Failed(f"{self.name}: the run to stop at {prelude} exited {rc}: {tail(proc)}")
        started = time.monotonic()
        proc = self.roost.start(cmd.args, failpoints)
        if delay is not None:
            try:
                proc.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
        rc = wait(proc)
        elapsed = time.monotonic() - started
        landed = rc == -signal.SIGKILL
        if rc not in (0, -signal.SIGKILL):
            raise Failed(f"{self.name} ({kind}, {failpoints or 'killed'}): exited {rc}: {tail(proc)}")
        if rc == 0:
            self.durations.setdefault(kind, []).append(elapsed)
        self.killed_output(cmd, proc)
        where = failpoints or f"SIGKILL after {delay:.3f} s"
        checking = time.monotonic()
        try:
            state = self.observe(cmd)
        except Failed as e:
            raise Failed(f"after {self.name} ({kind}) was killed ({where}): {e}")
        if landed and state == cmd.target and cmd.target != cmd.before:
            self.seen["target"] += 1
        elif landed and state == cmd.before:
            self.seen["before"] += 1
        if state not in (cmd.before, cmd.target):
            raise Failed(
                f"after {self.name} ({kind}) was killed ({where}): readers see {state}, "
                f"neither {cmd.before} nor {cmd.target}"
            )
        if rc == 0 and state != cmd.target:
            raise Failed(f"{self.name} ({kind}) completed but readers see {state}, not {cmd.target}")
        self.check_time += time.monotonic() - checking
        # The next run of the same command.
        started = time.monotonic()
        self.mutations += 1
        again, rc = self.roost.run(cmd.args, ok=False)
        if rc != 0:
            raise Failed(
                f"after {self.name} ({kind}) was killed ({where}), the next run exited {rc}: {tail(again)}"
            )
        self.durations.setdefault(kind, []).append(time.monotonic() - started)
        self.done(cmd, again)
        checking = time.monotonic()
        try:
            state = self.observe(cmd)
            if state != cmd.target:
                raise Failed(f"readers see {state}, not {cmd.target}")
            self.leftovers(cmd)
        except Failed as e:
            raise Failed(f"after {self.name} ({kind}) was killed ({where}) and run again: {e}")
        self.check_time += time.monotonic() - checking
        return landed

    def killed_output(self, cmd, proc):
        """Reads what the armed run printed, killed or not (a new secret)."""

    def duration(self, kind):
        d = self.durations.get(kind) or self.durations.get("change") or [0.5]
        return statistics.median(d[-9:])

    def sweep_points(self, names):
        for name in names:
            passes = [0] + LATER_PASSES.get(name, [])
            for n in passes:
                action = "return" if n == 0 else f"{n}*off->return"
                reached = False
                for kind in self.kinds_for(name):
                    self.point_runs += 1
                    if self.cycle(kind, f"{name}={action}", prelude=self.prelude(name) if n == 0 else None):
                        reached = True
                        break
                if n == 0 and not reached:
                    raise Failed(f"{self.name}: no run reached the crash point {name}")
                if reached:
                    self.points += 1 if n == 0 else 0
                    if n:
                        self.sweep.later_passes += 1

    def sweep_kills(self, count):
        rng = self.rng
        kinds, weights = zip(*self.random_kinds)
        tries = 0
        while self.kills < count:
            tries += 1
            if tries > count * 4 + 20:
                raise Failed(f"{self.name}: only {self.kills} of {count} kills landed before the runs ended")
            kind = rng.choices(kinds, weights)[0]
            delay = rng.uniform(0, self.duration(kind))
            if self.cycle(kind, delay=delay):
                self.kills += 1


# --- roost generate ----------------------------------------------------------------


class Generate(Writer):
    name = points_of = "generate"
    kinds = ["change", "change"]

    def __init__(self, sweep, part):
        super().__init__(sweep, part)
        self.part = part

    def kinds_for(self, point):
        if point in ("generate::keep_changes", "generate::keep_swap"):
            return ["keep"]
        if point == "generate::key_base":
            # A run writes a new base of the file keys when it has no live keys it
            # can read (lost, or of an older format) or when its patch outgrows its
            # base; A and B differ too little for the second.
            return ["lost-keys"]
        return self.kinds

    def setup(self):
        s = self.sweep
        self.dir = s.work / f"gen-{self.part}"
        self.site = self.dir / "site"
        self.dbs = {"A": s.a_db, "B": s.b_db}
        self.refs = {}
        self.state = "A"
        self.roost.run(self.args(self.dbs["A"], self.site))
        self.refs["A"] = (self.site / "manifest.json").read_bytes()
        self.serve = Serve(self.roost, ["--env", "e2e", "--db", str(s.a_db), "--site", str(self.site)],
                           f"serve on the generated tree ({self.part})")
        self.reader = Reader(self.serve, {
            "chapters": ("GET", "/api/v0/chapters/", None, None),
            "london": ("GET", "/api/v0/chapters/london", None, None),
            "sponsors": ("GET", "/api/v0/sponsors/", None, None),
            "sponsors-by-name": ("GET", "/api/v0/sponsors/?ordering=name", None, None),
            "issues": ("GET", "/api/v0/issues/?state=open", None, None),
        })
        self.reader.record("A")
        self.roost.run(self.args(self.dbs["B"], self.site))
        self.refs["B"] = (self.site / "manifest.json").read_bytes()
        self.reader.record("B")
        self.roost.run(self.args(self.dbs["A"], self.site))
        if (self.site / "manifest.json").read_bytes() != self.refs["A"]:
            raise Failed("generating A again did not give A's manifest")
        if self.reader.states_differ() < 3:
            raise Failed("the requests asked during the generate sweep do not tell A from B")
        self.reader.start()

    def finish(self):
        self.reader.finish()
        self.sweep.reads.append((f"generate ({self.part})", self.reader.count))

    def teardown(self):
        if getattr(self, "reader", None):
            self.reader.stopping.set()
        if getattr(self, "serve", None):
            self.serve.stop()

    def args(self, db, out):
        return ["generate", "--db", str(db), "--out", str(out), "--with-dataset",
                "--no-precompress", "--today", TODAY, "--jobs", "2"]

    def command(self, kind):
        if kind == "lost-keys":
            (self.dir / ".site.keys").unlink(missing_ok=True)
        target = self.state if kind == "same" else ("B" if self.state == "A" else "A")
        return Command(kind, self.args(self.dbs[target], self.site), self.state, target)

    def prelude(self, point):
        return "generate::new_generation" if point == "generate::remove_leftover" else None

    def observe(self, cmd):
        if not self.site.is_symlink():
            raise Failed(f"{self.site} is not a symlink")
        return check_tree(self.site, self.refs, "the tree")

    def done(self, cmd, run):
        self.state = cmd.target

    def leftovers(self, cmd):
        live = os.readlink(self.site)
        allowed = ["site", ".site.lock", ".site.input", ".site.digests", ".site.keys",
                   ".site.spare-keys", ".site.units", live]
        spare = None
        keys = self.dir / ".site.spare-keys"
        if keys.exists():
            spare = keys.read_bytes().split(b"\n")[1].decode()
            allowed.append(spare)
        # The base of the dataset's row digests that the digests record names (its
        # second line), and no other.
        digests = self.dir / ".site.digests"
        if digests.exists():
            base = digests.read_bytes().split(b"\n")[1].decode()
            if base:
                if not (self.dir / base).is_file():
                    raise Failed(f"the digests base {base} is named but missing")
                allowed.append(base)
        only_names(self.dir, allowed, "generate")
        # The unit records and scopes, and the bases of the file keys the live and
        # spare keys name (the third line of each keys file).
        bases = []
        for name in (".site.keys", ".site.spare-keys"):
            path = self.dir / name
            if path.exists():
                base = path.read_bytes().split(b"\n")[2].decode()
                if base:
                    bases.append(base)
        for base in bases:
            if not (self.dir / ".site.units" / base).is_file():
                raise Failed(f"the keys base {base} is named but missing")
        only_names(
            self.dir / ".site.units", [re.compile(r"[0-9a-f]{32}(\.scope)?")] + bases, "generate"
        )
        if spare:
            if not (self.dir / spare).is_dir():
                raise Failed(f"the spare {spare} is recorded but missing")
            check_tree(self.dir / spare, self.refs, "the spare generation")


# --- roost mirror ------------------------------------------------------------------


class Mirror(Writer):
    name = points_of = "mirror"

    def setup(self):
        s = self.sweep
        self.trees = {state: s.published(state) for state in ("A", "B")}
        self.refs = {state: (site / "manifest.json").read_bytes() for state, site in self.trees.items()}
        self.dataset = None
        self.dir = s.work / "mirror"
        self.site = self.dir / "site"
        self.publish("A")
        self.state = "A"
        self.roost.run(self.args())
        self.pairs_out_of_step = 0

    def publish(self, state):
        link = self.sweep.served.with_name(self.sweep.served.name + ".new")
        if link.is_symlink():
            link.unlink()
        os.symlink(self.trees[state], link)
        os.replace(link, self.sweep.served)

    def args(self):
        return ["mirror", self.sweep.mirror_url, "--out", str(self.dir), "--with-dataset", "--jobs", "4"]

    def command(self, kind):
        target = self.state if kind == "same" else ("B" if self.state == "A" else "A")
        self.publish(target)
        return Command(kind, self.args(), self.state, target)

    def prelude(self, point):
        return "mirror::documents" if point == "mirror::remove_leftover" else None

    def observe(self, cmd):
        tree = check_tree(self.site, self.refs, "the copy")
        db = self.dir / "roost.db"
        dataset = self.sweep.dataset_state(db, "the copy's dataset", ("A", "B"))
        self.dataset = dataset
        if dataset != tree:
            # The dataset is imported (renamed into place) before the tree is swapped:
            # a run killed between the two leaves them out of step until the next run.
            self.pairs_out_of_step += 1
            if {tree, dataset} != {cmd.before, cmd.target}:
                raise Failed(f"the copy's tree is {tree} and its dataset {dataset}")
        return tree

    def done(self, cmd, run):
        self.state = cmd.target

    def leftovers(self, cmd):
        if self.dataset != cmd.target:
            raise Failed(f"the copy's dataset is {self.dataset}, not {cmd.target}")
        only_names(self.dir, ["site", ".site.lock", "roost.db", "roost.db.lock", "roost.db.source",
                              os.readlink(self.site)], "mirror")


# --- roost db import ---------------------------------------------------------------


class Import(Writer):
    """`roost db import` from folders (`postgres` False) or PostgreSQL databases."""

    points_of = "import"
    kinds = ["change"]
    random_kinds = [("change", 1.0)]

    def __init__(self, sweep, postgres):
        self.name = "import (PostgreSQL)" if postgres else "import (folder)"
        super().__init__(sweep)
        self.postgres = postgres
        prefix = "pg" if postgres else "dir"
        self.states = (f"{prefix}A", f"{prefix}B")
        self.sources = {
            f"{prefix}A": sweep.pg_a if postgres else sweep.a_export,
            f"{prefix}B": sweep.pg_b if postgres else sweep.b_export,
        }

    def setup(self):
        s = self.sweep
        self.dir = s.work / ("import-pg" if self.postgres else "import-dir")
        self.dir.mkdir()
        self.db = self.dir / "data.db"
        self.state = self.states[0]
        self.roost.run(self.args(self.state))
        # The serve's own tree, newer than the dataset (an older one is generated again
        # when a serve starts).
        site = self.sweep.work / f"{self.dir.name}-site"
        subprocess.run(["cp", "-al", str(s.published("A").parent), str(site)], check=True)
        os.utime(site / "site", follow_symlinks=False)
        self.serve = Serve(self.roost, ["--env", "e2e", "--db", str(self.db), "--site", str(site / "site")],
                           f"serve on the {self.name} dataset")
        graphql = urllib.parse.quote('{ chapter(key: "london") { name } sponsors { name } }')
        self.reader = Reader(self.serve, {
            "chapters": ("GET", "/api/v0/chapters/?page_size=7", None, None),
            "sponsors": ("GET", "/api/v0/sponsors/?page_size=50", None, None),
            "london": ("GET", "/api/v0/chapters/?q=london&page_size=5", None, None),
            "idx": ("POST", "/idx/", json.dumps({"indexName": "chapters", "query": "london"}),
                    {"Content-Type": "application/json"}),
            "graphql": ("GET", f"/graphql/?query={graphql}", None, None),
        })
        self.reader.record(self.states[0])
        self.roost.run(self.args(self.states[1]))
        self.reader.record(self.states[1])
        self.roost.run(self.args(self.states[0]))
        if self.reader.states_differ() < 3:
            raise Failed(f"the requests asked during the {self.name} sweep do not tell A from B")
        self.reader.start()

    def finish(self):
        self.reader.finish()
        self.sweep.reads.append((self.name, self.reader.count))

    def teardown(self):
        if getattr(self, "reader", None):
            self.reader.stopping.set()
        if getattr(self, "serve", None):
            self.serve.stop()

    def args(self, state):
        return ["db", "import", str(self.sources[state]), "--db", str(self.db), "--allow-empty", "all"]

    def command(self, kind):
        target = self.states[1] if self.state == self.states[0] else self.states[0]
        return Command(kind, self.args(target), self.state, target)

    def observe(self, cmd):
        return self.sweep.dataset_state(self.db, "the dataset", self.states)

    def done(self, cmd, run):
        self.state = cmd.target

    def leftovers(self, cmd):
        only_names(self.dir, ["data.db", "data.db.lock"], self.name)


# --- roost db export ---------------------------------------------------------------


class Export(Writer):
    name = points_of = "export"
    kinds = ["change"]
    random_kinds = [("change", 1.0)]

    def setup(self):
        s = self.sweep
        self.dir = s.work / "exports"
        self.dir.mkdir()
        self.out = self.dir / "export"
        self.dbs = {"A": s.a_db, "B": s.b_db}
        self.refs = {"A": s.export_refs["A"], "B": s.export_refs["B"]}
        self.state = "A"
        self.roost.run(self.args("A"))

    def args(self, state):
        return ["db", "export", str(self.out), "--db", str(self.dbs[state]), "--force"]

    def command(self, kind):
        target = "B" if self.state == "A" else "A"
        return Command(kind, self.args(target), self.state, target)

    def observe(self, cmd):
        if not self.out.is_dir():
            raise Failed(f"{self.out} is missing")
        found = folder_hashes(self.out)
        for state, ref in self.refs.items():
            if found == ref:
                return state
        raise Failed(f"{self.out} holds no state's files ({len(found)} files)")

    def done(self, cmd, run):
        self.state = cmd.target

    def leftovers(self, cmd):
        only_names(self.dir, ["export", ".export.lock"], "export")


# --- roost keys|sessions create|revoke ---------------------------------------------


class Credentials(Writer):
    name = points_of = "credentials"
    kinds = ["key create", "session create", "key revoke", "session revoke"]
    random_kinds = [("key create", 0.3), ("session create", 0.2), ("key revoke", 0.25),
                    ("session revoke", 0.2), ("fresh", 0.05)]

    def setup(self):
        s = self.sweep
        self.dir = s.work / "credentials"
        self.dir.mkdir()
        self.auth = self.dir / "auth.db"
        self.secrets = {}  # (kind, id) -> secret
        self.listings = {}  # auth -> (mutations, listing)
        self.serial = 0
        self.fresh = 0
        for kind in ("key", "session", "key", "session"):
            cmd = self.command(f"{kind} create")
            self.mutations += 1
            proc, _ = self.roost.run(cmd.args)
            self.done(cmd, proc)
        self.serve = Serve(self.roost, ["--env", "production", "--db", str(s.a_db),
                                        "--site", str(s.published("A")),
                                        "--auth-db", str(self.auth)], "serve checking credentials")
        self.answers = 0
        self.checks = 0

    def finish(self):
        self.check_answers(self.listed(self.auth))

    def teardown(self):
        if getattr(self, "serve", None):
            self.serve.stop()

    def listed(self, auth):
        """Every credential of the store, as `roost keys list` and `roost sessions list`
        show them: (kind, id) -> (name, revoked_at). Listed again only after a run of
        this writer."""
        cached = self.listings.get(auth)
        if cached and cached[0] == self.mutations:
            return dict(cached[1])
        if not auth.exists():
            return {}
        out = {}
        for kind in ("key", "session"):
            rows = json.loads(self.roost.stdout([f"{kind}s", "list", "--auth-db", str(auth), "--json"]))
            for r in rows:
                out[(kind, r["id"])] = (r["name"], r["revoked_at"])
        self.listings[auth] = (self.mutations, out)
        return dict(out)

    def command(self, kind):
        if kind == "fresh":
            self.fresh += 1
            auth = self.sweep.work / "credentials-fresh" / str(self.fresh) / "auth.db"
            self.serial += 1
            name = f"fresh {self.serial}"
            return Command(kind, ["keys", "create", "--name", name, "--auth-db", str(auth)],
                           "before", "target", auth=auth, before_list={}, cred=("key", name), op="create")
        cred_kind, op = kind.split()
        before = self.listed(self.auth)
        if op == "create":
            self.serial += 1
            name = f"{cred_kind} {self.serial}"
            args = [f"{cred_kind}s", "create", "--name", name, "--auth-db", str(self.auth)]
            return Command(kind, args, "before", "target", auth=self.auth, before_list=before,
                           cred=(cred_kind, name), op=op)
        active = sorted(k for k, (_, revoked) in before.items() if k[0] == cred_kind and revoked is None)
        if not active:
            return self.command(f"{cred_kind} create")
        target = self.rng.choice(active)
        args = [f"{cred_kind}s", "revoke", str(target[1]), "--auth-db", str(self.auth)]
        return Command(kind, args, "before", "target", auth=self.auth, before_list=before,
                       cred=target, op=op)

    def kinds_for(self, point):
        if point in ("credentials::create_file", "credentials::schema"):
            return ["fresh"]
        return self.kinds

    def sweep_points(self, names):
        # Each point with each command.
        for name in names:
            for kind in self.kinds_for(name):
                self.point_runs += 1
                if not self.cycle(kind, f"{name}=return"):
                    raise Failed(f"credentials: {kind} did not reach the crash point {name}")
            self.points += 1

    def killed_output(self, cmd, proc):
        lines = proc.out_path.read_text().splitlines()
        if cmd.op == "create" and cmd.auth == self.auth and lines and re.fullmatch(r"[A-Za-z0-9_\-]{20,}", lines[-1]):
            new = self.new_ids(cmd)
            if len(new) == 1:
                self.secrets[new[0]] = lines[-1]

    def new_ids(self, cmd):
        now = self.listed(cmd.auth)
        return sorted(k for k in now if k not in cmd.before_list)

    def observe(self, cmd):
        now = self.listed(cmd.auth)
        before = cmd.before_list
        if now == before:
            state = "before"
        elif cmd.op == "create":
            new = [k for k in now if k not in before]
            same_others = all(now.get(k) == v for k, v in before.items())
            if not (same_others and len(new) >= 1 and all(
                    k[0] == cmd.cred[0] and now[k] == (cmd.cred[1], None) for k in new)):
                raise Failed(f"the store is neither as before nor with {cmd.cred} created: {now}")
            # The next run of the same command creates another: more than one new
            # credential only after it.
            state = "target"
        else:
            changed = {k for k in set(now) | set(before) if now.get(k) != before.get(k)}
            if changed != {cmd.cred} or now[cmd.cred][1] is None or now[cmd.cred][0] != before[cmd.cred][0]:
                raise Failed(f"the store is neither as before nor with {cmd.cred} revoked: {now}")
            state = "target"
        if cmd.auth == self.auth:
            self.checks += 1
            every = self.checks % 10 == 0
            self.check_answers(now, None if every else {cmd.cred} | set(self.new_ids(cmd)))
        return state

    def check_answers(self, listed, touched=None):
        """The secrets known (all of them, or those `touched` and ten others): the
        running serve accepts each while it is active, refuses it once revoked."""
        known = sorted(self.secrets.items())
        if touched is not None:
            others = [k for k in known if k[0] not in touched]
            known = [k for k in known if k[0] in touched] + self.rng.sample(others, min(10, len(others)))
        for (kind, id_), secret in known:
            if (kind, id_) not in listed:
                raise Failed(f"{kind} {id_}, created earlier, is no longer in the store")
            active = listed[(kind, id_)][1] is None
            if kind == "key":
                status, body = self.serve.get("/api/v0/chapters/", {"X-API-Key": secret})
            else:
                status, body = self.serve.get("/graphql/?query=%7B__typename%7D", {"Cookie": f"sessionid={secret}"})
            self.answers += 1
            want = 200 if active else 401
            if status != want:
                raise Failed(f"{kind} {id_} ({'active' if active else 'revoked'}) answered {status}, not {want}: {body[:200]!r}")

    def done(self, cmd, run):
        lines = run.out_path.read_text().splitlines()
        if cmd.op == "create":
            now = self.listed(cmd.auth)
            mine = sorted(k for k in now if k not in cmd.before_list and k not in self.secrets)
            if cmd.auth != self.auth:
                mine = [k for k in now if k not in cmd.before_list]
            if not lines or not mine:
                raise Failed(f"{cmd.kind}: no new credential after a run that succeeded")
            if cmd.auth == self.auth:
                self.secrets[mine[-1]] = lines[-1]

    def leftovers(self, cmd):
        only_names(cmd.auth.parent, ["auth.db", "auth.db-wal", "auth.db-shm"], "credentials")


# --- the sweep ---------------------------------------------------------------------


class Sweep:
    def __init__(self, args):
        self.work = Path(args.work)
        (self.work / "logs").mkdir(parents=True, exist_ok=True)
        self.roost = Roost(Path(args.roost), self.work)
        self.a_db, self.b_db = Path(args.a_db), Path(args.b_db)
        self.a_export, self.b_export = Path(args.a_export), Path(args.b_export)
        self.pg_a, self.pg_b = args.pg_a, args.pg_b
        self.mirror_url, self.served = args.mirror_url, Path(args.served)
        self.seed = args.seed
        self.later_passes = 0
        self.reads = []
        self.dataset_refs = {}
        self.export_refs = {}
        self.ref_lock = threading.Lock()

    def published(self, state):
        """The tree of dataset `state` as a static host publishes it (with the dataset
        and .gz siblings), made once: B by updating a hard-linked copy of A."""
        with self.ref_lock:
            site = self.work / f"published-{state}" / "site"
            if not site.exists():
                db = self.a_db if state == "A" else self.b_db
                if state == "B":
                    subprocess.run(["cp", "-al", str(self.published_locked("A").parent), str(site.parent)], check=True)
                self.roost.run(["generate", "--db", str(db), "--out", str(site), "--with-dataset",
                                "--no-precompress", "--today", TODAY, "--jobs", "2"])
            return site

    def published_locked(self, state):
        site = self.work / f"published-{state}" / "site"
        if not site.exists():
            self.roost.run(["generate", "--db", str(self.a_db), "--out", str(site), "--with-dataset",
                            "--no-precompress", "--today", TODAY, "--jobs", "2"])
        return site

    def export_of(self, db, name):
        out = self.work / "exports-checked" / name
        self.roost.run(["db", "export", str(out), "--db", str(db), "--force"])
        return folder_hashes(out)

    def dataset_state(self, db, what, states):
        """Which of `states` the dataset `db` holds: `roost db check` finds nothing and
        its export is that state's."""
        if not db.exists():
            raise Failed(f"{what}: {db} is missing")
        proc, rc = self.roost.run(["db", "check", "--db", str(db)], ok=False)
        if rc != 0:
            raise Failed(f"{what}: roost db check exited {rc}: {tail(proc)}")
        name = f"{threading.get_ident()}"
        found = self.export_of(db, name)
        for state in states:
            if self.dataset_refs.get(state) == found:
                return state
        raise Failed(f"{what}: its records are no state's")

    def reference_datasets(self):
        """The export of each dataset state, made by a whole import of its source."""
        refs = self.work / "dataset-refs"
        refs.mkdir()
        sources = {"A": self.a_export, "B": self.b_export, "dirA": self.a_export,
                   "dirB": self.b_export, "pgA": self.pg_a, "pgB": self.pg_b}
        for state, source in sources.items():
            db = refs / f"{state}.db"
            self.roost.run(["db", "import", str(source), "--db", str(db)])
            self.dataset_refs[state] = self.export_of(db, f"ref-{state}")
        self.export_refs = {"A": self.export_of(self.a_db, "A-db"), "B": self.export_of(self.b_db, "B-db")}
        if self.dataset_refs["A"] == self.dataset_refs["B"] or self.dataset_refs["pgA"] == self.dataset_refs["pgB"]:
            raise Failed("datasets A and B have the same records")


def run_lane(sweep, plan, results):
    for writer, points, kills in plan:
        started = time.monotonic()
        try:
            try:
                writer.setup()
                writer.sweep_points(points)
                writer.sweep_kills(kills)
                writer.finish()
            finally:
                writer.teardown()
            results[writer] = (None, time.monotonic() - started)
        except Failed as e:
            reader = getattr(writer, "reader", None)
            if reader and reader.failures and not reader.reported:
                e = f"{e}; meanwhile {len(reader.failures)} answers of the serve were no whole state's: {reader.failures[:2]}"
            results[writer] = (str(e), time.monotonic() - started)
        except Exception as e:  # a bug here, reported as the writer's failure
            results[writer] = (f"{type(e).__name__}: {e}", time.monotonic() - started)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--roost", required=True, help="roost built with --features failpoints")
    p.add_argument("--work", required=True)
    p.add_argument("--a-db", required=True)
    p.add_argument("--b-db", required=True)
    p.add_argument("--a-export", required=True)
    p.add_argument("--b-export", required=True)
    p.add_argument("--pg-a", required=True)
    p.add_argument("--pg-b", required=True)
    p.add_argument("--mirror-url", required=True, help="nginx serving the folder --served points to")
    p.add_argument("--served", required=True)
    p.add_argument("--kills", type=int, default=240, help="random SIGKILLs in all")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--only", default=None, help="comma-separated writers to sweep")
    p.add_argument("--verbose", action="store_true", help="also print how long each writer's runs take")
    args = p.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 32)
    print(f"seed {args.seed} (CRASH_SEED={args.seed} draws the same kinds and delays again)")
    started = time.monotonic()
    sweep = Sweep(args)
    try:
        sweep.reference_datasets()
    except Failed as e:
        print(f"FAILED: {e}")
        return 1
    points = crash_points()
    missing = set(points) - {"generate", "mirror", "import", "export", "credentials"}
    if missing:
        print(f"FAILED: crash points of writers the sweep does not drive: {sorted(missing)}")
        return 1
    # Kills: the cheap writers take more of them.
    share = {"generate": 0.07, "mirror": 0.07, "import (folder)": 0.16, "import (PostgreSQL)": 0.06,
             "export": 0.22, "credentials": 0.42}
    kills = {name: max(1, round(args.kills * part)) for name, part in share.items()}
    # generate, the slowest, is swept in two parts at once: its points, its kills.
    writers = {
        "generate": [Generate(sweep, "points"), Generate(sweep, "kills")],
        "mirror": [Mirror(sweep)], "import (folder)": [Import(sweep, False)],
        "import (PostgreSQL)": [Import(sweep, True)], "export": [Export(sweep)],
        "credentials": [Credentials(sweep)],
    }
    only = set(args.only.split(",")) if args.only else None
    gen_points, gen_kills = writers["generate"]
    def planned(*names):
        return [(writers[n][0], points[writers[n][0].points_of], kills[n]) for n in names]

    lanes = [
        [(gen_points, points["generate"], 0)],
        [(gen_kills, [], kills["generate"])] + planned("export"),
        planned("mirror", "import (PostgreSQL)"),
        planned("import (folder)", "credentials"),
    ]
    results = {}
    threads = []
    for lane in lanes:
        plan = [item for item in lane if not only or item[0].name in only]
        t = threading.Thread(target=run_lane, args=(sweep, plan, results))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    failed = False
    print(f"{'writer':<20} {'crash points':>12} {'armed runs':>10} {'kills':>6} {'old/new seen':>12} {'time':>7}  outcome")
    for name, parts in writers.items():
        ran = [w for w in parts if w in results]
        if not ran:
            continue
        errors = [results[w][0] for w in ran if results[w][0] is not None]
        seconds = max(results[w][1] for w in ran)
        outcome = "all recovered" if not errors else f"FAILED: {errors[0]}"
        failed |= bool(errors)
        total = lambda f: sum(f(w) for w in ran)
        print(f"{name:<20} {total(lambda w: w.points):>12} {total(lambda w: w.point_runs):>10} "
              f"{total(lambda w: w.kills):>6} {total(lambda w: w.seen['before']):>6}/"
              f"{total(lambda w: w.seen['target']):<5} {seconds:>6.1f}s  {outcome}")
        if args.verbose:
            for w in ran:
                runs = ", ".join(f"{k} {statistics.median(v):.2f} s" for k, v in w.durations.items() if v)
                print(f"    a run takes: {runs}; checks took {w.check_time:.1f} s in all")
    extra = []
    if sweep.later_passes:
        extra.append(f"{sweep.later_passes} points also armed at a later pass")
    for name, count in sweep.reads:
        extra.append(f"{count} answers of a serve during the {name} sweep, each a whole state's")
    mirror, credentials = writers["mirror"][0], writers["credentials"][0]
    if mirror in results and results[mirror][0] is None:
        extra.append(f"the mirror's dataset and tree out of step after {mirror.pairs_out_of_step} kills, "
                     "in step after the next run")
    if credentials in results:
        extra.append(f"{credentials.answers} answers to known credentials checked")
    for line in extra:
        print(f"  {line}")
    total_points = sum(w.points for parts in writers.values() for w in parts)
    total_kills = sum(w.kills for parts in writers.values() for w in parts)
    print(f"{'FAILED' if failed else 'ok'}: {total_points} crash points, {total_kills} random kills "
          f"in {time.monotonic() - started:.0f} s (seed {args.seed})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
