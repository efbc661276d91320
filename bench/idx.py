#!/usr/bin/env python3
"""Latency of `POST /idx/` per index against a running `roost serve`.

    bench/idx.py --url http://127.0.0.1:18190 --db DATASET.db [--runs 200] [--warmup 20]

For every index the frontend asks (chapters, committees, events, issues,
organizations, programs, projects, users, and the sort variants of chapters and
projects) it sends the requests its pages send: the list page (page 1, then the last
reachable page), the chapters map (1000 hits), the header's search (3 hits) for a
one-letter prefix, a word taken from the dataset, that word with two letters swapped
(the typo pass), and two words. Words come from the dataset file (SQLite, read-only):
the longest word of the first names of the index's records.

Each request runs --warmup times, then --runs times, one after the other over one HTTP
connection (keep-alive); the time of a run is from sending the request to having read
the whole response. Prints a Markdown table per index: requests, p50, p99 and max in
milliseconds over all of the index's runs, and the slowest request. Exits non-zero if
an answer is not HTTP 200 or changes between runs.

The server must answer without the CSRF pair (`--env local` or `e2e`) and without a
rate limit (`--graphql-rate-limit 0`). Python standard library only.
"""

import argparse
import http.client
import json
import math
import re
import sqlite3
import sys
import time
import urllib.parse

NAMES = {
    "chapters": "SELECT name FROM chapters WHERE is_active = 1 ORDER BY id LIMIT 50",
    "committees": "SELECT name FROM committees WHERE is_active = 1 ORDER BY id LIMIT 50",
    "events": "SELECT name FROM events ORDER BY id LIMIT 50",
    "issues": "SELECT title FROM issues WHERE state = 'open' ORDER BY id LIMIT 50",
    "organizations": "SELECT name FROM organizations WHERE is_affiliated = 1 ORDER BY id LIMIT 50",
    "projects": "SELECT name FROM projects WHERE is_active = 1 ORDER BY id LIMIT 50",
    "users": "SELECT name FROM members ORDER BY id LIMIT 50",
}
SORTS = {
    "chapters": ["created_at", "updated_at"],
    "projects": ["contributors_count", "forks_count", "level_raw", "name", "stars_count", "updated_at"],
}


def words(db, index):
    sql = NAMES.get(index)
    if sql is None:
        return ["security", "scanner"]
    found = []
    for (text,) in db.execute(sql):
        found.extend(w for w in re.findall(r"\w+", text or "") if len(w) >= 5)
    if not found:
        return ["security", "scanner"]
    found.sort(key=lambda w: (-len(w), w))
    return found


def requests_for(db, index):
    """(label, body) of every request the bench sends for `index`."""
    out = []
    ws = words(db, index)
    word = ws[0]
    typo = word[0] + word[2] + word[1] + word[3:] if len(word) > 3 else word
    two = f"{ws[0]} {ws[1] if len(ws) > 1 else ws[0]}"
    per_page = 24 if index in ("users", "organizations", "programs") else 25
    facets = ["idx_is_active:true"] if index in ("chapters", "projects") else []

    def body(name, query="", page=1, hits=per_page, fs=None):
        return {
            "facetFilters": list(facets if fs is None else fs),
            "hitsPerPage": hits,
            "indexName": name,
            "page": page,
            "query": query,
        }

    out.append(("list page 1", body(index)))
    out.append(("search: prefix 'a'", body(index, "a", hits=3, fs=[])))
    out.append((f"search: '{word}'", body(index, word)))
    out.append((f"typo: '{typo}'", body(index, typo)))
    out.append((f"two words: '{two}'", body(index, two)))
    if index == "chapters":
        out.append(("map: 1000 hits", body(index, hits=1000, fs=[])))
    for field in SORTS.get(index, []):
        for d in ("asc", "desc"):
            out.append((f"{field}_{d}", body(f"{index}_{field}_{d}", fs=[])))
    return out


def send(conn, path, body):
    data = json.dumps(body).encode()
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    payload = response.read()
    return response.status, payload


def percentile(sorted_values, p):
    k = max(0, math.ceil(p / 100 * len(sorted_values)) - 1)
    return sorted_values[k]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    url = urllib.parse.urlparse(args.url)
    path = (url.path.rstrip("/") or "") + "/idx/"
    db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    conn = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=30)
    indexes = ["chapters", "committees", "events", "issues", "organizations", "programs", "projects", "users"]
    print("| index | requests | p50 ms | p99 ms | max ms | slowest request (p99 ms) |")
    print("|---|---|---|---|---|---|")
    worst = 0.0
    for index in indexes:
        times = []
        slowest = ("", 0.0)
        reqs = requests_for(db, index)
        for label, body in reqs:
            # The last reachable page of a list (deep paging).
            status, payload = send(conn, path, body)
            if status != 200:
                sys.exit(f"{index} {label}: HTTP {status}: {payload[:300]!r}")
            first = payload
            own = []
            for i in range(args.warmup + args.runs):
                start = time.perf_counter()
                status, payload = send(conn, path, body)
                elapsed = (time.perf_counter() - start) * 1000
                if status != 200 or payload != first:
                    sys.exit(f"{index} {label}: HTTP {status}, or the answer changed")
                if i >= args.warmup:
                    own.append(elapsed)
            own.sort()
            times.extend(own)
            p99 = percentile(own, 99)
            if p99 > slowest[1]:
                slowest = (label, p99)
            if label == "list page 1":
                pages = json.loads(first)["nbPages"]
                if pages > 1:
                    deep = dict(body, page=pages)
                    reqs.append((f"list page {pages}", deep))
        times.sort()
        p99 = percentile(times, 99)
        worst = max(worst, p99)
        print(
            f"| {index} | {len(reqs)} | {percentile(times, 50):.2f} | {p99:.2f} | "
            f"{times[-1]:.2f} | {slowest[0]} ({slowest[1]:.2f}) |"
        )
    print(f"\nslowest index p99: {worst:.2f} ms")


if __name__ == "__main__":
    main()
