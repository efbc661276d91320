#!/usr/bin/env python3
"""Times live REST answers of `roost serve` over every list, filter, ordering, page
size and page (deep pages included), and optionally checks that a second server
answers the same bytes.

    bench/live_sweep.py --db DATASET --url http://127.0.0.1:8000 [--key KEY]
                        [--same-as http://127.0.0.1:8001] [--repeat 15] [--top 15]

Filter values are drawn from the dataset (the busiest organization and repository,
common companies and locations...). Prints the slowest requests and the p50/p99 over
all of them (milliseconds, measured by the client, keep-alive, one at a time). With
--pid (the server's process id) it also prints the server's CPU time per request,
read from the scheduler's per-thread run time (nanoseconds): on a busy shared machine
wall times mostly measure waiting for a core, CPU time does not.
"""
import os
import argparse
import http.client
import sqlite3
import statistics
import sys
import time
import urllib.parse


def values(db):
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    one = lambda sql: (c.execute(sql).fetchone() or [None])[0]
    busiest_org = one("SELECT o.login FROM organizations o JOIN repositories r ON r.organization_id = o.id "
                      "JOIN issues t ON t.repository_id = r.id WHERE o.is_affiliated = 1 "
                      "GROUP BY o.id ORDER BY COUNT(*) DESC LIMIT 1")
    quiet_org = one("SELECT o.login FROM organizations o JOIN repositories r ON r.organization_id = o.id "
                    "JOIN issues t ON t.repository_id = r.id GROUP BY o.id ORDER BY COUNT(*) LIMIT 1")
    busiest_repo = one("SELECT r.name FROM repositories r JOIN issues t ON t.repository_id = r.id "
                       "GROUP BY r.id ORDER BY COUNT(*) DESC LIMIT 1")
    busiest_repo_org = one("SELECT o.login FROM repositories r JOIN organizations o ON o.id = r.organization_id "
                           "JOIN issues t ON t.repository_id = r.id GROUP BY r.id ORDER BY COUNT(*) DESC LIMIT 1")
    release_repo = one("SELECT r.name FROM repositories r JOIN releases t ON t.repository_id = r.id "
                       "GROUP BY r.id ORDER BY COUNT(*) DESC LIMIT 1")
    tag = one("SELECT tag_name FROM releases GROUP BY tag_name ORDER BY COUNT(*) DESC LIMIT 1")
    company = one("SELECT company FROM members WHERE company != '' GROUP BY company_lc ORDER BY COUNT(*) DESC LIMIT 1")
    location = one("SELECT location FROM members WHERE location != '' GROUP BY location_lc ORDER BY COUNT(*) DESC LIMIT 1")
    org_location = one("SELECT location FROM organizations WHERE location != '' LIMIT 1")
    country = one("SELECT country FROM chapters WHERE country != '' GROUP BY country_lc ORDER BY COUNT(*) DESC LIMIT 1")
    color = one("SELECT color FROM labels GROUP BY color_lc ORDER BY COUNT(*) DESC LIMIT 1")
    sponsor_type = one("SELECT sponsor_type FROM sponsors GROUP BY sponsor_type_lc ORDER BY COUNT(*) DESC LIMIT 1")
    snapshot = one("SELECT key FROM snapshots WHERE status = 'completed' ORDER BY id DESC LIMIT 1")
    return {
        "issues": ([("organization", busiest_org), ("organization", quiet_org), ("repository", busiest_repo),
                    ("state", "open"), ("state", "closed")],
                   [[("organization", busiest_repo_org), ("repository", busiest_repo), ("state", "open")],
                    [("organization", busiest_org), ("state", "closed")]],
                   ["created_at", "updated_at"], 2000),
        "milestones": ([("organization", busiest_org), ("repository", busiest_repo), ("state", "open")],
                       [[("organization", busiest_org), ("state", "closed")]], ["created_at", "updated_at"], 60),
        "releases": ([("organization", busiest_org), ("repository", release_repo), ("tag_name", tag)], [],
                     ["created_at", "published_at"], 250),
        "repositories": ([("organization_id", busiest_org)], [], ["created_at", "updated_at"], 80),
        "members": ([("company", company), ("location", location)], [[("company", company), ("location", location)]],
                    ["created_at", "updated_at", "name", "login"], 600),
        "organizations": ([("location", org_location)], [], ["created_at", "updated_at"], 1),
        "chapters": ([("country", country), ("latitude_gte", "10"), ("longitude_lte", "20")], [],
                     ["created_at", "updated_at", "latitude", "longitude"], 3),
        "committees": ([], [], ["created_at", "updated_at"], 1),
        "events": ([("category", "global"), ("is_upcoming", "true"), ("latitude_gte", "0")], [],
                   ["start_date", "end_date", "latitude", "longitude"], 2),
        "labels": ([("color", color)], [], ["nest_created_at", "nest_updated_at"], 20),
        "projects": ([("level", "flagship"), ("type", "tool"), ("q", "stars:>10 a")], [], ["created_at", "updated_at"], 3),
        "snapshots": ([], [], ["created_at", "updated_at", "start_at"], 1),
        "sponsors": ([("is_member", "true"), ("member_type", "Gold"), ("sponsor_type", sponsor_type)], [], ["name"], 1),
        f"snapshots/{snapshot}/issues": ([], [], ["created_at", "updated_at"], 40),
        f"snapshots/{snapshot}/members": ([], [], ["created_at", "updated_at"], 4),
        f"snapshots/{snapshot}/releases": ([], [], ["created_at", "published_at"], 5),
        f"snapshots/{snapshot}/projects": ([], [], ["created_at", "updated_at"], 1),
        f"snapshots/{snapshot}/chapters": ([], [], ["created_at", "updated_at"], 1),
    }


def urls(db):
    out = []
    for path, (singles, combos, orderings, deep) in values(db).items():
        filters = [[]] + [[f] for f in singles if f[1] is not None] + combos
        orders = [None] + [o for name in orderings for o in (name, "-" + name)]
        for f in filters:
            for o in orders:
                for size, page in ((7, 3), (100, 1), (100, deep)):
                    q = list(f) + ([("ordering", o)] if o else []) + [("page_size", size), ("page", page)]
                    out.append(f"/api/v0/{path}/?" + urllib.parse.urlencode(q))
    return out


def cpu_ns(pid):
    """Run time of every thread of `pid` so far (threads that ended are not counted)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def fetch(conn, path, key):
    headers = {"X-API-Key": key} if key else {}
    conn.request("GET", path, headers=headers)
    r = conn.getresponse()
    return r.status, r.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--url", required=True)
    ap.add_argument("--key")
    ap.add_argument("--same-as")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--pid", type=int)
    ap.add_argument("--only", help="substring the paths must contain")
    a = ap.parse_args()
    host = urllib.parse.urlparse(a.url).netloc
    conn = http.client.HTTPConnection(host)
    other = http.client.HTTPConnection(urllib.parse.urlparse(a.same_as).netloc) if a.same_as else None
    results, mismatches, all_times, all_cpu = [], [], [], []
    for path in urls(a.db):
        if a.only and a.only not in path:
            continue
        status, body = fetch(conn, path, a.key)  # warm
        if other is not None:
            s2, b2 = fetch(other, path, a.key)
            if (s2, b2) != (status, body):
                mismatches.append(path)
        times = []
        cpu0 = cpu_ns(a.pid) if a.pid else 0
        for _ in range(a.repeat):
            t = time.perf_counter()
            fetch(conn, path, a.key)
            times.append((time.perf_counter() - t) * 1000)
        cpu = (cpu_ns(a.pid) - cpu0) / a.repeat / 1e6 if a.pid else 0.0
        times.sort()
        all_times.extend(times)
        all_cpu.append(cpu)
        key = cpu if a.pid else times[len(times) // 2]
        results.append((key, times[len(times) // 2], times[-1], cpu, status, path))
    results.sort(reverse=True)
    order = "server CPU per request" if a.pid else "median"
    print(f"{len(results)} requests x {a.repeat}; slowest by {order} (ms):")
    for _, p50, worst, cpu, status, path in results[: a.top]:
        print(f"  cpu {cpu:7.2f}  p50 {p50:8.2f}  max {worst:8.2f}  {status}  {path}")
    all_times.sort()
    all_cpu.sort()
    p = lambda xs, q: xs[min(len(xs) - 1, int(q * len(xs)))]
    print(f"wall: p50 {p(all_times, 0.5):.2f} ms, p99 {p(all_times, 0.99):.2f} ms, max {all_times[-1]:.2f} ms")
    if a.pid:
        print(f"server CPU per request (per URL): p50 {p(all_cpu, 0.5):.3f} ms, "
              f"p99 {p(all_cpu, 0.99):.3f} ms, max {all_cpu[-1]:.3f} ms")
    if other is not None:
        print(f"bodies differing from {a.same_as}: {len(mismatches)}")
        for m in mismatches[:10]:
            print("  " + m)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
