#!/usr/bin/env python3
"""Latency of the frontend's GraphQL page operations against a running `roost serve`.

    bench/graphql_pages.py --url http://127.0.0.1:18190 --db DATASET.db
                           [--runs 200] [--warmup 20] [--only home,project]
                           [--save DIR]

The 21 operations are the ones in tests/graphql/pages/*.graphql. Their variables are
picked from the dataset file (SQLite, read-only) so that they name records of that
dataset, and the busy ones where it matters: the active project, chapter and committee
with the most repositories, the affiliated organization with the most repositories and
its repository with the most issues, the completed snapshot with the most new records,
the members who lead the most entities, and the leader who authored the most issues.

Each operation runs --warmup times, then --runs times, one after the other over one
HTTP connection (keep-alive). The time of a run is from sending the request to having
read the whole response. Prints a Markdown table: operation, p50, p99 and max in
milliseconds, response bytes. Exits non-zero if an answer is not HTTP 200, carries
GraphQL `errors`, or changes between runs. --save DIR writes each operation's response
body to DIR/<operation>.json, to compare the answers of two builds byte for byte.

The server must answer without sessions (`--env local` or `e2e`) and without a rate
limit (`--graphql-rate-limit 0`). Python standard library only.
"""

import argparse
import http.client
import json
import math
import sqlite3
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "tests" / "graphql" / "pages"


def one(db, sql, *args):
    row = db.execute(sql, args).fetchone()
    if row is None:
        raise SystemExit(f"the dataset has no row for: {sql}")
    return row[0]


def name_part(key, prefix):
    return key[len(prefix):] if key.startswith(prefix) else key


def pick_variables(db_path):
    """Variables for every operation, naming records of this dataset."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    project = one(
        db,
        "SELECT p.key FROM projects p JOIN project_repositories pr ON pr.project_id = p.id "
        "WHERE p.is_active = 1 GROUP BY p.id ORDER BY COUNT(*) DESC, p.id LIMIT 1",
    )
    project_name = one(db, "SELECT name FROM projects WHERE key = ?", project)
    chapter = one(
        db,
        "SELECT c.key FROM chapters c JOIN chapter_repositories cr ON cr.chapter_id = c.id "
        "WHERE c.is_active = 1 GROUP BY c.id ORDER BY COUNT(*) DESC, c.id LIMIT 1",
    )
    committee = one(
        db,
        "SELECT c.key FROM committees c "
        "JOIN committee_repositories cr ON cr.committee_id = c.id "
        "WHERE c.is_active = 1 GROUP BY c.id ORDER BY COUNT(*) DESC, c.id LIMIT 1",
    )
    org_id, org = db.execute(
        "SELECT o.id, o.login FROM organizations o JOIN repositories r "
        "ON r.organization_id = o.id WHERE o.is_affiliated = 1 "
        "GROUP BY o.id ORDER BY COUNT(*) DESC, o.id LIMIT 1"
    ).fetchone()
    repository = one(
        db,
        "SELECT r.name FROM repositories r WHERE r.organization_id = ? "
        "ORDER BY (SELECT COUNT(*) FROM issues i WHERE i.repository_id = r.id) DESC, r.id "
        "LIMIT 1",
        org_id,
    )
    snapshot = one(
        db,
        "SELECT s.key FROM snapshots s WHERE s.status = 'completed' ORDER BY "
        "(SELECT COUNT(*) FROM snapshot_issues x WHERE x.snapshot_id = s.id) + "
        "(SELECT COUNT(*) FROM snapshot_releases x WHERE x.snapshot_id = s.id) + "
        "(SELECT COUNT(*) FROM snapshot_projects x WHERE x.snapshot_id = s.id) + "
        "(SELECT COUNT(*) FROM snapshot_chapters x WHERE x.snapshot_id = s.id) + "
        "(SELECT COUNT(*) FROM snapshot_members x WHERE x.snapshot_id = s.id) DESC, s.id "
        "LIMIT 1",
    )
    leaders = [
        row[0]
        for row in db.execute(
            "SELECT m.login FROM leaders l JOIN members m ON m.id = l.member_id "
            "GROUP BY m.id ORDER BY COUNT(*) DESC, m.id LIMIT 3"
        )
    ]
    if len(leaders) < 3:
        raise SystemExit("the dataset has fewer than 3 leaders with a member account")
    member = one(
        db,
        "SELECT m.login FROM members m WHERE m.id IN (SELECT member_id FROM leaders) "
        "ORDER BY (SELECT COUNT(*) FROM issues i WHERE i.author_id = m.id) DESC, m.id "
        "LIMIT 1",
    )
    db.close()
    project_key = name_part(project, "www-project-")
    chapter_key = name_part(chapter, "www-chapter-")
    committee_key = name_part(committee, "www-committee-")
    search = project_name.strip().lower()[:4]
    if len(search) < 3:
        search = project_key[:4]
    return {
        "about.graphql": {
            "projectKey": project_key,
            "excludedUsernames": [leaders[0]],
            "leader1": leaders[0],
            "leader2": leaders[1],
            "leader3": leaders[2],
        },
        "chapter-countries.graphql": {},
        "chapter-metadata.graphql": {"key": chapter_key},
        "chapter.graphql": {"key": chapter_key},
        "committee-metadata.graphql": {"key": committee_key},
        "committee.graphql": {"key": committee_key},
        "home.graphql": {"distinct": True},
        "organization-metadata.graphql": {"login": org},
        "organization.graphql": {"login": org},
        "project-contributors.graphql": {"key": project, "hasFullName": True, "limit": 5},
        "project-metadata.graphql": {"key": project_key},
        "project-search.graphql": {"query": search},
        "project.graphql": {"key": project_key},
        "repository-metadata.graphql": {"organizationKey": org, "repositoryKey": repository},
        "repository.graphql": {"organizationKey": org, "repositoryKey": repository},
        "snapshot-metadata.graphql": {"key": snapshot},
        "snapshot.graphql": {"key": snapshot},
        "snapshots.graphql": {},
        "user-leader.graphql": {"key": leaders[0]},
        "user-metadata.graphql": {"key": member},
        "user.graphql": {"key": member},
    }


def percentile(sorted_ms, p):
    """Nearest rank."""
    rank = max(1, math.ceil(p / 100 * len(sorted_ms)))
    return sorted_ms[rank - 1]


class Client:
    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.path = parts.path.rstrip("/") + "/graphql/"
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def post(self, body):
        self.conn.request(
            "POST",
            self.path,
            body=body,
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        response = self.conn.getresponse()
        data = response.read()
        if response.getheader("connection", "").lower() == "close":
            self.conn.close()
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        return response.status, data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:18190")
    parser.add_argument("--db", required=True, help="the dataset the server answers from")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--only", help="comma-separated operation names (file names without .graphql)")
    parser.add_argument("--save", help="write each response body to DIR/<operation>.json")
    args = parser.parse_args()
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be at least 1 and --warmup not negative")

    variables = pick_variables(args.db)
    files = sorted(p.name for p in PAGES.glob("*.graphql"))
    if set(files) != set(variables):
        raise SystemExit(f"operations and variables differ: {sorted(set(files) ^ set(variables))}")
    if args.only:
        wanted = {f"{name}.graphql" for name in args.only.split(",")}
        unknown = wanted - set(files)
        if unknown:
            raise SystemExit(f"no such operation: {sorted(unknown)}")
        files = [f for f in files if f in wanted]
    save = Path(args.save) if args.save else None
    if save:
        save.mkdir(parents=True, exist_ok=True)

    client = Client(args.url)
    failures = []
    rows = []
    for file in files:
        name = file[: -len(".graphql")]
        body = json.dumps(
            {"query": (PAGES / file).read_text(), "variables": variables[file]}
        ).encode()
        first = None
        times = []
        problem = None
        for i in range(args.warmup + args.runs):
            started = time.perf_counter()
            status, data = client.post(body)
            took = (time.perf_counter() - started) * 1000
            if first is None:
                first = data
                answer = json.loads(data) if status == 200 else None
                if status != 200:
                    problem = f"HTTP {status}: {data[:300]!r}"
                elif answer.get("errors"):
                    problem = f"errors: {json.dumps(answer['errors'])[:300]}"
                if problem:
                    break
            elif data != first:
                problem = f"run {i + 1} answered differently from the first"
                break
            if i >= args.warmup:
                times.append(took)
        if problem:
            failures.append(f"{name}: {problem}")
            rows.append(f"| {name} | failed | | | |")
            continue
        if save:
            (save / f"{name}.json").write_bytes(first)
        times.sort()
        rows.append(
            f"| {name} | {percentile(times, 50):.1f} | {percentile(times, 99):.1f} "
            f"| {times[-1]:.1f} | {len(first):,} |"
        )
        print(f"{name}: p99 {percentile(times, 99):.1f} ms", file=sys.stderr, flush=True)

    print(f"{args.runs} runs per operation after {args.warmup} warm-up runs, one connection.\n")
    print("| operation | p50 ms | p99 ms | max ms | response bytes |")
    print("|---|---:|---:|---:|---:|")
    for row in rows:
        print(row)
    print("\nvariables:")
    for file in files:
        print(f"- {file[:-len('.graphql')]}: {json.dumps(variables[file])}")
    if failures:
        print("\n" + "\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
