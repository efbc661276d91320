"""nginx (deploy/nginx) in front of roost's tree and shim, checked against the shim.

For every list and detail file of the tree, several spellings of its URL from the
corpus (shuffled parameters, defaults spelled out, mixed case, percent-encoding
variants) are asked for through nginx and straight from the shim: status,
Content-Type and body bytes must be equal, and nginx must have answered them from the
tree (its access log shows no upstream). With `Accept-Encoding: gzip` (and `br` when
nginx has brotli_static) nginx answers the precompressed sibling (every file of 1 KiB or
more has them), byte for byte the shim's. Requests the tree does not answer (searches,
other page sizes, is_upcoming, invalid values, missing pages and records, the root,
openapi.json) must come back from the shim through nginx, with the same bytes.

    python3 edge/test/through_nginx.py --nginx URL --shim URL --site DIR \
        --corpus FILE --access-log FILE [--spellings 3] [--brotli]
"""

import argparse
import http.client
import json
import os
import random
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor


class RawConnection(http.client.HTTPConnection):
    """Sends the request target as given (UTF-8 where it is not ASCII)."""

    def _encode_request(self, request):
        return request.encode("utf-8")


_local = threading.local()


def request(base, target, headers=None, method="GET"):
    """(status, lower-cased headers, body) of one request on a kept-alive connection."""
    url = urllib.parse.urlsplit(base)
    conns = getattr(_local, "conns", None)
    if conns is None:
        conns = _local.conns = {}
    for attempt in range(3):
        conn = conns.get(base)
        if conn is None:
            conn = conns[base] = RawConnection(url.hostname, url.port, timeout=30)
        try:
            conn.request(method, target, headers=headers or {})
            resp = conn.getresponse()
            body = resp.read()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body
        except (http.client.HTTPException, ConnectionError, TimeoutError):
            conn.close()
            conns.pop(base, None)
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def log_lines(path, offset):
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read().decode("utf-8", "replace").splitlines(), f.tell()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nginx", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--site", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--access-log", required=True)
    ap.add_argument("--spellings", type=int, default=3)
    ap.add_argument("--brotli", action="store_true")
    ap.add_argument("--jobs", type=int, default=8)
    args = ap.parse_args()

    manifest = json.load(open(os.path.join(args.site, "manifest.json")))
    in_tree = {f["path"] for f in manifest["files"]}
    corpus = [json.loads(line) for line in open(args.corpus, encoding="utf-8") if line.strip()]

    # Tree files: every list and detail file a request can reach. The corpus gives
    # each file's canonical URL first (with and without a trailing slash), then other
    # spellings: those are taken first.
    spellings = {}
    others = []
    for entry in corpus:
        f = entry["file"]
        if f is not None and f in in_tree:
            spellings.setdefault(f, []).append(entry["url"])
        else:
            others.append(entry["url"])
    reachable = {
        p for p in in_tree
        if p.startswith("api/v0/") and p.endswith(".json") and not p.startswith("api/v0/docs/")
        and p not in ("api/v0/index.json", "api/v0/openapi.json")
        # Rendered for the day of the generation; the shim answers is_upcoming live.
        and "is_upcoming=true" not in p
    }
    if reachable - set(spellings):
        missing = sorted(reachable - set(spellings))
        print(f"nginx: {len(missing)} tree files have no spelling in the corpus: {missing[:5]}")
        return 1
    tree_cases = []
    for f in sorted(spellings):
        urls = spellings[f]
        chosen = (urls[2:] + urls[:2])[: args.spellings]
        tree_cases.extend((f, u) for u in chosen)
    # nginx itself refuses a path holding an encoded NUL (400, before any location
    # applies); the shim says 404. Such requests are left out.
    nul = [u for u in others if "%00" in u.split("?", 1)[0]]
    others = [u for u in others if "%00" not in u.split("?", 1)[0]]
    rng = random.Random(13)
    dynamic = rng.sample(others, min(len(others), 1500)) + [
        "/api/v0/",
        "/api/v0",
        "/api/v0/openapi.json",
        "/api/v0/projects/?q=juice",
        "/api/v0/projects/?q=stars:%3E5&page_size=7",
        "/api/v0/issues/?page_size=7",
        "/api/v0/issues/?page_size=7&page=2",
        "/api/v0/events/?is_upcoming=true",
        "/api/v0/events/?is_upcoming=1&ordering=-start_date",
        "/api/v0/chapters/?latitude_gte=10&longitude_lte=50",
        "/api/v0/issues/?state=OPEN",
        "/api/v0/issues/?page=999",
        "/api/v0/issues/?page=0",
        "/api/v0/members/no-such-member",
        "/api/v0/issues/o/r/123456",
        "/api/v0/nothing/",
    ]

    failures = []
    lock = threading.Lock()

    def fail(url, what):
        with lock:
            failures.append((url, what))

    def check_tree(case):
        f, url = case
        n = request(args.nginx, url)
        s = request(args.shim, url)
        if n[0] != 200 or s[0] != 200:
            return fail(url, f"status nginx {n[0]}, shim {s[0]} (file {f})")
        if n[2] != s[2]:
            return fail(url, f"body differs from the shim's (file {f})")
        if n[1].get("content-type") != s[1].get("content-type"):
            return fail(url, f"content-type {n[1].get('content-type')} != {s[1].get('content-type')}")
        if "etag" not in n[1] or "cache-control" not in n[1]:
            return fail(url, f"no ETag or Cache-Control from nginx: {n[1]}")

    def check_encoded(case, coding, suffix):
        f, url = case
        n = request(args.nginx, url, {"Accept-Encoding": coding})
        s = request(args.shim, url, {"Accept-Encoding": coding})
        sibling = open(os.path.join(args.site, f + suffix), "rb").read()
        if n[1].get("content-encoding") != coding:
            return fail(url, f"{coding}: Content-Encoding {n[1].get('content-encoding')}")
        if n[2] != sibling or s[2] != sibling:
            return fail(url, f"{coding}: body is not the {suffix} sibling (shim: {s[2] == sibling})")

    def check_dynamic(url):
        # One Host for both: the root's docs link is made from it.
        host = {"Host": "roost.test"}
        n = request(args.nginx, url, host)
        s = request(args.shim, url, host)
        if n[0] != s[0] or n[2] != s[2]:
            return fail(url, f"status nginx {n[0]}, shim {s[0]}; bodies equal: {n[2] == s[2]}")
        if n[1].get("content-type") != s[1].get("content-type"):
            return fail(url, f"content-type {n[1].get('content-type')} != {s[1].get('content-type')}")

    def run(label, fn, cases):
        start = time.monotonic()
        with ThreadPoolExecutor(args.jobs) as pool:
            for r in pool.map(fn, cases):
                pass
        print(f"nginx: {label}: {len(cases)} in {time.monotonic() - start:.1f} s")

    _, offset = log_lines(args.access_log, 0)
    run(f"{len(spellings)} tree files, {len(tree_cases)} spellings", check_tree, tree_cases)
    lines, offset = log_lines(args.access_log, offset)
    proxied = [l for l in lines if " upstream=-" not in l]
    if len(lines) != len(tree_cases) or proxied:
        fail("(access log)", f"{len(lines)} lines for {len(tree_cases)} tree requests, "
             f"{len(proxied)} proxied: {proxied[:3]}")

    first = {}
    for f, u in tree_cases:
        first.setdefault(f, (f, u))
    # `generate --precompress` gives siblings to files of 1 KiB or more; those are the
    # ones the edge must serve as they are.
    encoded = [c for c in first.values() if os.path.exists(os.path.join(args.site, c[0] + ".gz"))]
    unencoded = [c for c in first.values() if c not in encoded]
    if not encoded:
        fail("(tree)", "no file has a .gz sibling: was the tree made with --precompress?")
    for f, _ in unencoded:
        if os.path.getsize(os.path.join(args.site, f)) >= 1024:
            fail(f, "a file of 1 KiB or more has no .gz sibling")
    run("gzip siblings", lambda c: check_encoded(c, "gzip", ".gz"), encoded)
    if args.brotli:
        run("brotli siblings", lambda c: check_encoded(c, "br", ".br"), encoded[::4])
    _, offset = log_lines(args.access_log, offset)

    run(f"requests the tree does not answer (of {len(others)}; {len(nul)} with %00 in the "
        "path left out)", check_dynamic, dynamic)
    lines, offset = log_lines(args.access_log, offset)
    from_tree = [l for l in lines if " upstream=-" in l]
    if len(lines) != len(dynamic) or from_tree:
        fail("(access log)", f"{len(lines)} lines for {len(dynamic)} requests the tree does "
             f"not answer, {len(from_tree)} answered from the tree: {from_tree[:3]}")

    head = request(args.nginx, tree_cases[0][1], method="HEAD")
    if head[0] != 200 or head[2] != b"" or head[1].get("content-type") != "application/json":
        fail(tree_cases[0][1], f"HEAD: {head[0]} {head[1]}")

    for url, what in failures[:40]:
        print(f"  FAIL {url}: {what}")
    checks = len(tree_cases) + len(encoded) + (len(encoded[::4]) if args.brotli else 0)
    checks += len(dynamic) + 1
    print(f"nginx: {checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
