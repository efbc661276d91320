#!/usr/bin/env python3
"""Validate the sample dataset against docs/data.md and the coverage the API tests rely on.

Usage: python3 tools/check_sample.py [DIR] [--no-regen]

DIR defaults to data/sample. Unless --no-regen is given, the checker also runs
tools/make_sample.py twice into temporary folders and requires both runs to match DIR
byte for byte (the committed sample is up to date and the generator is deterministic).
Standard library only. Exit status 0 when every check passes.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from datetime import date, datetime, timedelta, timezone

UTC = timezone.utc
TODAY = date(2026, 11, 22)

FILES = ["organizations", "members", "repositories", "repository_contributors", "labels",
         "issues", "milestones", "releases", "chapters", "committees", "projects", "events",
         "sponsors", "snapshots", "pull_requests", "posts", "project_health_metrics", "badges",
         "boards", "member_snapshots", "programs", "modules"]

LEADER = ("obj", {"name": ("R", "str"), "login": ("O", "str?"), "description": ("O", "str"),
                  "email": ("O", "str")})
REPO_REF = ("obj", {"organization": ("R", "str"), "name": ("R", "str")})
CHANNEL = ("obj", {"platform": ("R", "str"), "name": ("O", "str"), "external_id": ("O", "str")})
LINKS = {"related_urls": ("O", ("list", "str")), "channels": ("O", ("list", CHANNEL))}
ISSUE_REF = ("obj", {"organization": ("R", "str"), "repository": ("R", "str"), "number": ("R", "int")})
RELEASE_REF = ("obj", {"organization": ("R", "str"), "repository": ("R", "str"), "tag_name": ("R", "str")})

LEVELS = ["beginner", "intermediate", "advanced", "expert"]

# field -> (R|O, type). Types: str int float bool ts date; "?" suffix: nullable;
# ("list", T); ("obj", {...}); ("enum", [...]).
SCHEMA = {
    "organizations": {
        "login": ("R", "str"), "name": ("O", "str"), "company": ("O", "str"),
        "location": ("O", "str"), "description": ("O", "str"), "avatar_url": ("O", "str"),
        "url": ("O", "str"), "followers_count": ("O", "int"), "is_affiliated": ("O", "bool"),
        "collaborators_count": ("O", "int"), "email": ("O", "str"),
        "created_at": ("R", "ts"), "updated_at": ("R", "ts")},
    "members": {
        "login": ("R", "str"), "name": ("O", "str"), "avatar_url": ("O", "str"), "url": ("O", "str"),
        "bio": ("O", "str"), "company": ("O", "str"), "location": ("O", "str"), "title": ("O", "str"),
        "twitter_username": ("O", "str"), "followers_count": ("O", "int"),
        "following_count": ("O", "int"), "public_repositories_count": ("O", "int"),
        "email": ("O", "str"), "badges": ("O", ("list", "str")),
        "is_owasp_board_member": ("O", "bool"), "is_former_owasp_staff": ("O", "bool"),
        "is_gsoc_mentor": ("O", "bool"), "linkedin_page_id": ("O", "str"),
        "first_owasp_contribution_at": ("O", "ts?"),
        "created_at": ("R", "ts"), "updated_at": ("R", "ts")},
    "repositories": {
        "organization": ("R", "str"), "name": ("R", "str"), "description": ("O", "str?"),
        "url": ("O", "str"), "commits_count": ("O", "int"), "contributors_count": ("O", "int"),
        "forks_count": ("O", "int"), "open_issues_count": ("O", "int"), "stars_count": ("O", "int"),
        "subscribers_count": ("O", "int"), "is_archived": ("O", "bool"), "license": ("O", "str"),
        "topics": ("O", ("list", "str")), "languages": ("O", ("list", "str")),
        "pushed_at": ("O", "ts?"), "created_at": ("R", "ts"), "updated_at": ("R", "ts"),
        "size": ("O", "int?")},
    "repository_contributors": {
        "organization": ("R", "str"), "repository": ("R", "str"), "member": ("R", "str"),
        "contributions_count": ("R", "int")},
    "labels": {
        "organization": ("O", "str"), "repository": ("O", "str"), "name": ("R", "str"), "color": ("R", "str"), "description": ("O", "str"),
        "created_at": ("R", "ts"), "updated_at": ("R", "ts")},
    "issues": {
        "organization": ("R", "str"), "repository": ("R", "str"), "number": ("R", "int"),
        "title": ("R", "str"), "state": ("R", ("enum", ["open", "closed"])), "body": ("O", "str"),
        "author": ("O", "str?"), "url": ("R", "str"), "labels": ("O", ("list", "str")),
        "created_at": ("R", "ts"), "updated_at": ("R", "ts"), "closed_at": ("O", "ts?")},
    "milestones": {
        "organization": ("R", "str"), "repository": ("R", "str"), "number": ("R", "int"),
        "title": ("R", "str"), "state": ("R", ("enum", ["open", "closed"])), "body": ("O", "str"),
        "author": ("O", "str?"), "url": ("R", "str"), "open_issues_count": ("O", "int"),
        "closed_issues_count": ("O", "int"), "due_on": ("O", "ts?"), "created_at": ("R", "ts"),
        "updated_at": ("R", "ts")},
    "releases": {
        "organization": ("R", "str"), "repository": ("R", "str"), "tag_name": ("R", "str"),
        "name": ("O", "str"), "description": ("O", "str"), "author": ("O", "str?"),
        "url": ("O", "str"), "is_draft": ("O", "bool"), "is_pre_release": ("O", "bool"),
        "published_at": ("O", "ts?"), "created_at": ("R", "ts")},
    "chapters": {
        "key": ("R", "str"), "name": ("R", "str"), "is_active": ("O", "bool"),
        "country": ("O", "str"), "region": ("O", "str"), "latitude": ("O", "float?"),
        "longitude": ("O", "float?"), "summary": ("O", "str"), "url": ("O", "str"),
        "leaders": ("O", ("list", LEADER)), "created_at": ("R", "ts"), "updated_at": ("R", "ts"),
        "suggested_location": ("O", "str?"), "repositories": ("O", ("list", REPO_REF)), **LINKS},
    "committees": {
        "key": ("R", "str"), "name": ("R", "str"), "is_active": ("O", "bool"),
        "description": ("O", "str"), "summary": ("O", "str"), "url": ("O", "str"),
        "leaders": ("O", ("list", LEADER)), "created_at": ("R", "ts"), "updated_at": ("R", "ts"),
        "repositories": ("O", ("list", REPO_REF)), **LINKS},
    "projects": {
        "key": ("R", "str"), "name": ("R", "str"), "is_active": ("O", "bool"),
        "level": ("R", ("enum", ["flagship", "production", "incubator", "lab", "demo"])),
        "type": ("R", ("enum", ["code", "documentation", "tool", "other"])),
        "description": ("O", "str"), "summary": ("O", "str"), "url": ("O", "str"),
        "leaders": ("O", ("list", LEADER)), "repositories": ("O", ("list", REPO_REF)),
        "created_at": ("R", "ts"), "updated_at": ("R", "ts"), **LINKS},
    "events": {
        "key": ("R", "str"), "name": ("R", "str"),
        "category": ("R", ("enum", ["appsec_days", "global", "partner", "other"])),
        "start_date": ("R", "date"), "end_date": ("O", "date?"), "latitude": ("O", "float?"),
        "longitude": ("O", "float?"), "url": ("O", "str?"), "description": ("O", "str?"),
        "summary": ("O", "str"), "suggested_location": ("O", "str")},
    "sponsors": {
        "key": ("R", "str"), "name": ("R", "str"),
        "sponsor_type": ("R", ("enum", ["Diamond", "Platinum", "Gold", "Silver", "Supporter",
                                        "Not a Sponsor"])),
        "is_member": ("O", "bool"), "member_type": ("O", ("enum", ["Platinum", "Gold", "Silver", ""])),
        "image_url": ("O", "str"), "url": ("O", "str"), "job_url": ("O", "str"),
        "description": ("O", "str")},
    "snapshots": {
        "key": ("R", "str"), "title": ("R", "str"),
        "status": ("R", ("enum", ["completed", "processing", "pending", "error"])),
        "start_at": ("R", "ts"), "end_at": ("R", "ts"), "created_at": ("R", "ts"),
        "updated_at": ("R", "ts"), "new_chapters": ("O", ("list", "str")),
        "new_projects": ("O", ("list", "str")), "new_members": ("O", ("list", "str")),
        "new_issues": ("O", ("list", ISSUE_REF)), "new_releases": ("O", ("list", RELEASE_REF))},
    "pull_requests": {
        "organization": ("R", "str"), "repository": ("R", "str"), "number": ("R", "int"),
        "title": ("R", "str"), "state": ("R", ("enum", ["open", "closed"])), "body": ("O", "str"),
        "author": ("O", "str?"), "url": ("R", "str"), "created_at": ("R", "ts"),
        "updated_at": ("R", "ts"), "closed_at": ("O", "ts?"), "merged_at": ("O", "ts?")},
    "posts": {
        "title": ("R", "str"), "url": ("R", "str"), "author_name": ("R", "str"),
        "author_image_url": ("O", "str"), "published_at": ("R", "ts"), "created_at": ("R", "ts"),
        "updated_at": ("R", "ts")},
    "project_health_metrics": {
        "project": ("R", "str"), "created_at": ("R", "ts"), "score": ("O", "float?"),
        **{k: ("O", "int") for k in (
            "stars_count", "forks_count", "open_issues_count", "open_pull_requests_count",
            "unanswered_issues_count", "unassigned_issues_count", "last_commit_days",
            "last_commit_days_requirement", "last_release_days",
            "last_release_days_requirement", "contributors_count", "recent_releases_count",
            "total_issues_count", "total_releases_count", "age_days", "age_days_requirement",
            "last_pull_request_days", "last_pull_request_days_requirement",
            "owasp_page_last_update_days", "owasp_page_last_update_days_requirement")},
        "is_funding_requirements_compliant": ("O", "bool"),
        "is_leader_requirements_compliant": ("O", "bool")},
    "badges": {
        "name": ("R", "str"), "description": ("O", "str"), "css_class": ("O", "str"),
        "weight": ("O", "int")},
    "boards": {
        "year": ("R", "int"), "url": ("O", "str"), "candidates": ("O", ("list", LEADER)),
        "members": ("O", ("list", LEADER)), "created_at": ("R", "ts"), "updated_at": ("R", "ts")},
    "member_snapshots": {
        "member": ("R", "str"), "start_at": ("R", "ts"), "end_at": ("R", "ts"),
        **{k: ("O", "int") for k in (
            "commits_count", "pull_requests_count", "issues_count", "messages_count")},
        **{k: ("O", ("counts",)) for k in (
            "contribution_heatmap_data", "communication_heatmap_data", "chapter_contributions",
            "project_contributions", "repository_contributions", "channel_communications")}},
    "programs": {
        "key": ("R", "str"), "name": ("R", "str"), "description": ("O", "str"),
        "status": ("R", ("enum", ["draft", "published", "completed"])),
        "mentees_limit": ("O", "int?"),
        "experience_levels": ("O", ("list", ("enum", LEVELS))),
        "started_at": ("R", "ts"), "ended_at": ("R", "ts"),
        "domains": ("O", ("list", "str")), "tags": ("O", ("list", "str")),
        "admins": ("O", ("list", "str"))},
    "modules": {
        "program": ("R", "str"), "key": ("R", "str"), "name": ("R", "str"),
        "description": ("O", "str"), "experience_level": ("R", ("enum", LEVELS)),
        "position": ("O", "int"), "started_at": ("R", "ts"), "ended_at": ("R", "ts"),
        "domains": ("O", ("list", "str")), "tags": ("O", ("list", "str")),
        "labels": ("O", ("list", "str")), "mentee_can_manage_deadlines": ("O", "bool"),
        "project": ("O", "str?"), "mentors": ("O", ("list", "str")),
        "mentees": ("O", ("list", "str"))},
}

TS_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:\d{2})")

failures = []
COMMUNITY = {}


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def parse_ts(s):
    m = TS_RE.fullmatch(s)
    if not m:
        return None
    y, mo, d, h, mi, se, frac, off = m.groups()
    micro = int((frac or "0").ljust(6, "0"))
    if off == "Z":
        tz = UTC
    else:
        sign = 1 if off[0] == "+" else -1
        tz = timezone(sign * timedelta(hours=int(off[1:3]), minutes=int(off[4:6])))
    try:
        return datetime(int(y), int(mo), int(d), int(h), int(mi), int(se), micro, tz).astimezone(UTC)
    except ValueError:
        return None


def parse_date(s):
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
        return None
    try:
        return date.fromisoformat(s)
    except ValueError:
        return None


def check_value(where, t, v):
    nullable = isinstance(t, str) and t.endswith("?")
    if nullable:
        t = t[:-1]
        if v is None:
            return
    if isinstance(t, tuple):
        kind = t[0]
        if kind == "enum":
            check(isinstance(v, str) and v in t[1], "%s: %r not in %s" % (where, v, t[1]))
        elif kind == "list":
            if check(isinstance(v, list), "%s: not a list" % where):
                for i, x in enumerate(v):
                    check_value("%s[%d]" % (where, i), t[1], x)
        elif kind == "obj":
            check_record(where, t[1], v)
        elif kind == "counts":
            check(isinstance(v, dict) and all(
                isinstance(k, str) and isinstance(n, int) and not isinstance(n, bool) and n >= 0
                for k, n in v.items()), "%s: not an object of counts" % where)
        return
    ok = {
        "str": lambda: isinstance(v, str),
        "int": lambda: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
        "float": lambda: isinstance(v, float),
        "bool": lambda: isinstance(v, bool),
        "ts": lambda: isinstance(v, str) and parse_ts(v) is not None,
        "date": lambda: isinstance(v, str) and parse_date(v) is not None,
    }[t]()
    check(ok, "%s: %r is not a valid %s" % (where, v, t))


def check_record(where, schema, rec):
    if not check(isinstance(rec, dict), "%s: not an object" % where):
        return
    for k in rec:
        check(k in schema, "%s: unknown field %r" % (where, k))
    for k, (req, t) in schema.items():
        if k not in rec:
            check(req == "O", "%s: missing required field %r" % (where, k))
            continue
        check_value("%s.%s" % (where, k), t, rec[k])


def load(d):
    data = {}
    for name in FILES:
        path = os.path.join(d, name + ".jsonl")
        recs = []
        with open(path, "rb") as f:
            raw = f.read()
        check(raw.endswith(b"\n"), "%s: no trailing newline" % name)
        text = raw.decode("utf-8")
        for lineno, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError as e:
                failures.append("%s:%d: bad JSON: %s" % (name, lineno, e))
                continue
            check_record("%s:%d" % (name, lineno), SCHEMA[name], rec)
            recs.append(rec)
        data[name] = recs
    with open(os.path.join(d, "community.json"), encoding="utf-8") as f:
        COMMUNITY.update(json.load(f))
    check(set(COMMUNITY) <= {"slack_workspace_members"}, "community.json: unknown fields")
    return data


def unique(name, recs, keyf):
    seen = {}
    for i, r in enumerate(recs, 1):
        k = keyf(r)
        check(k not in seen, "%s:%d: duplicate natural key %r (first at line %s)" % (name, i, k, seen.get(k)))
        seen.setdefault(k, i)
    return seen


def t(s):
    return parse_ts(s)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    here = os.path.dirname(os.path.abspath(__file__))
    d = args[0] if args else os.path.join(here, "..", "data", "sample")
    D = load(d)
    if failures:
        report()
    low = str.lower

    # ---- natural keys (case-insensitive except release tags)
    orgs = unique("organizations", D["organizations"], lambda r: low(r["login"]))
    members = unique("members", D["members"], lambda r: low(r["login"]))
    repos = unique("repositories", D["repositories"], lambda r: (low(r["organization"]), low(r["name"])))
    unique("repository_contributors", D["repository_contributors"],
           lambda r: (low(r["organization"]), low(r["repository"]), low(r["member"])))
    # Label names are unique per repository (a label without one is shared).
    labels = unique("labels", D["labels"], lambda r: (low(r.get("organization", "")),
                                                      low(r.get("repository", "")), low(r["name"])))
    for i, l in enumerate(D["labels"], 1):
        check(("organization" in l) == ("repository" in l), "labels:%d: organization without repository" % i)
    unique("pull_requests", D["pull_requests"], lambda r: (low(r["organization"]), low(r["repository"]), r["number"]))
    unique("posts", D["posts"], lambda r: low(r["url"]))
    unique("project_health_metrics", D["project_health_metrics"], lambda r: (low(r["project"]), t(r["created_at"])))
    badges = unique("badges", D["badges"], lambda r: low(r["name"]))
    issues = unique("issues", D["issues"], lambda r: (low(r["organization"]), low(r["repository"]), r["number"]))
    unique("milestones", D["milestones"], lambda r: (low(r["organization"]), low(r["repository"]), r["number"]))
    releases = unique("releases", D["releases"], lambda r: (low(r["organization"]), low(r["repository"]), r["tag_name"]))
    chapters = unique("chapters", D["chapters"], lambda r: low(r["key"]))
    unique("committees", D["committees"], lambda r: low(r["key"]))
    projects = unique("projects", D["projects"], lambda r: low(r["key"]))
    unique("events", D["events"], lambda r: low(r["key"]))
    unique("sponsors", D["sponsors"], lambda r: low(r["key"]))
    unique("snapshots", D["snapshots"], lambda r: low(r["key"]))

    # ---- references
    def ref_member(where, login):
        if login is not None:
            check(low(login) in members, "%s: unknown member %r" % (where, login))

    def ref_repo(where, org, name):
        check(low(org) in orgs, "%s: unknown organization %r" % (where, org))
        check((low(org), low(name)) in repos, "%s: unknown repository %s/%s" % (where, org, name))

    for r in D["repositories"]:
        check(low(r["organization"]) in orgs, "repositories: unknown organization %r" % r["organization"])
    for name in ("repository_contributors", "issues", "milestones", "releases", "pull_requests"):
        for i, r in enumerate(D[name], 1):
            w = "%s:%d" % (name, i)
            ref_repo(w, r["organization"], r["repository"])
            ref_member(w, r.get("member", r.get("author")))
    for i, r in enumerate(D["issues"], 1):
        for l in r.get("labels", []):
            own = (low(r["organization"]), low(r["repository"]), low(l))
            check(own in labels or ("", "", low(l)) in labels, "issues:%d: unknown label %r" % (i, l))
        check(r["url"] == "https://github.com/%s/%s/issues/%d" % (r["organization"], r["repository"], r["number"]),
              "issues:%d: unexpected url" % i)
    for name in ("chapters", "committees", "projects"):
        for i, r in enumerate(D[name], 1):
            for l in r.get("leaders", []):
                ref_member("%s:%d leader" % (name, i), l.get("login"))
    for name in ("chapters", "committees", "projects"):
        for i, p in enumerate(D[name], 1):
            for rr in p.get("repositories", []):
                ref_repo("%s:%d" % (name, i), rr["organization"], rr["name"])
    for i, l in enumerate(D["labels"], 1):
        if "repository" in l:
            ref_repo("labels:%d" % i, l["organization"], l["repository"])
    for i, m in enumerate(D["project_health_metrics"], 1):
        check(low(m["project"]) in projects, "project_health_metrics:%d: unknown project" % i)
        check(m.get("score") is None or 0 <= m["score"] <= 100, "project_health_metrics:%d: score" % i)
    for i, m in enumerate(D["members"], 1):
        for b in m.get("badges", []):
            check(low(b) in badges, "members:%d: unknown badge %r" % (i, b))
    for i, r in enumerate(D["pull_requests"], 1):
        check((r["state"] == "closed") == (r.get("closed_at") is not None), "pull_requests:%d: state/closed_at" % i)
        check(r.get("merged_at") is None or r["state"] == "closed", "pull_requests:%d: merged but open" % i)
    for i, s in enumerate(D["snapshots"], 1):
        w = "snapshots:%d" % i
        for k in s.get("new_chapters", []):
            check(low(k) in chapters, "%s: unknown chapter %r" % (w, k))
        for k in s.get("new_projects", []):
            check(low(k) in projects, "%s: unknown project %r" % (w, k))
        for k in s.get("new_members", []):
            ref_member(w, k)
        for x in s.get("new_issues", []):
            check((low(x["organization"]), low(x["repository"]), x["number"]) in issues,
                  "%s: unknown issue %r" % (w, x))
        for x in s.get("new_releases", []):
            check((low(x["organization"]), low(x["repository"]), x["tag_name"]) in releases,
                  "%s: unknown release %r" % (w, x))
        for k in ("new_chapters", "new_projects", "new_members"):
            lst = [low(v) for v in s.get(k, [])]
            check(len(lst) == len(set(lst)), "%s: duplicate entries in %s" % (w, k))

    # ---- formats and plausibility
    for r in D["chapters"]:
        check(re.fullmatch(r"www-chapter-[a-z0-9]+(-[a-z0-9]+)*", r["key"]) is not None, "chapter key %r" % r["key"])
        check((r.get("latitude") is None) == (r.get("longitude") is None), "chapter %s: half coordinates" % r["key"])
    for r in D["committees"]:
        check(re.fullmatch(r"www-committee-[a-z0-9]+(-[a-z0-9]+)*", r["key"]) is not None, "committee key %r" % r["key"])
    for r in D["projects"]:
        check(re.fullmatch(r"www-project-[a-z0-9]+(-[a-z0-9]+)*", r["key"]) is not None, "project key %r" % r["key"])
    for r in D["snapshots"]:
        check(re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", r["key"]) is not None, "snapshot key %r" % r["key"])
        check(t(r["start_at"]) < t(r["end_at"]) <= t(r["created_at"]) <= t(r["updated_at"]),
              "snapshot %s: timestamps out of order" % r["key"])
    for r in D["labels"]:
        check(re.fullmatch(r"[0-9A-Fa-f]{6}", r["color"]) is not None, "label color %r" % r["color"])
    for name in FILES:
        for i, r in enumerate(D[name], 1):
            if "created_at" in r and "updated_at" in r:
                check(t(r["created_at"]) <= t(r["updated_at"]), "%s:%d: updated_at before created_at" % (name, i))
            if r.get("closed_at"):
                check(t(r["created_at"]) <= t(r["closed_at"]) <= t(r["updated_at"]), "%s:%d: closed_at" % (name, i))
            if r.get("published_at"):
                check(t(r["created_at"]) <= t(r["published_at"]), "%s:%d: published_at" % (name, i))
            for k in ("created_at", "updated_at", "closed_at", "published_at", "pushed_at"):
                if r.get(k):
                    check(t(r[k]).date() <= TODAY, "%s:%d: %s in the future" % (name, i, k))
    for i, r in enumerate(D["issues"], 1):
        check((r["state"] == "closed") == (r.get("closed_at") is not None), "issues:%d: state/closed_at" % i)
    for r in D["events"]:
        if r.get("end_date"):
            check(r["end_date"] >= r["start_date"], "event %s: ends before it starts" % r["key"])
        check((r.get("latitude") is None) == (r.get("longitude") is None), "event %s: half coordinates" % r["key"])
    for r in D["sponsors"]:
        if not r.get("is_member"):
            check(r.get("member_type", "") == "", "sponsor %s: member_type without membership" % r["key"])

    # ---- coverage
    def covers(name, field, values, recs=None):
        seen = Counter(r.get(field) for r in (recs if recs is not None else D[name]))
        for v in values:
            check(seen[v] > 0, "coverage: no %s with %s=%r" % (name, field, v))

    n = {k: len(v) for k, v in D.items()}
    check(n["members"] > 100, "coverage: members <= 100 (member list must span two pages)")
    check(n["issues"] > 200, "coverage: issues <= 200 (issue list must span three pages)")
    check(900 <= sum(n.values()) <= 1200, "coverage: %d lines in all, want 900..1200" % sum(n.values()))
    covers("projects", "level", SCHEMA["projects"]["level"][1][1])
    covers("projects", "type", SCHEMA["projects"]["type"][1][1])
    active_projects = [p for p in D["projects"] if p.get("is_active", True)]
    covers("projects", "level", SCHEMA["projects"]["level"][1][1], active_projects)
    covers("projects", "type", SCHEMA["projects"]["type"][1][1], active_projects)
    covers("events", "category", SCHEMA["events"]["category"][1][1])
    covers("sponsors", "sponsor_type", SCHEMA["sponsors"]["sponsor_type"][1][1])
    covers("sponsors", "member_type", ["Platinum", "Gold", "Silver", ""])
    check(any(r.get("is_member") is True for r in D["sponsors"]) and
          any(not r.get("is_member") for r in D["sponsors"]), "coverage: sponsors is_member both ways")
    covers("snapshots", "status", SCHEMA["snapshots"]["status"][1][1])
    covers("issues", "state", ["open", "closed"])
    covers("milestones", "state", ["open", "closed"])
    check(sum(s["status"] == "completed" for s in D["snapshots"]) >= 4, "coverage: fewer than 4 completed snapshots")

    # organizations
    aff = [o for o in D["organizations"] if o.get("is_affiliated")]
    check(aff and len(aff) < n["organizations"], "coverage: affiliated and non-affiliated organizations")
    check(any(o.get("location") and o.get("company") for o in aff), "coverage: org with location and company")
    check(all(low(o["login"]) != "index" for o in D["organizations"]), "organization named index")
    nonaff = {low(o["login"]) for o in D["organizations"] if not o.get("is_affiliated")}
    check(any(low(r["organization"]) in nonaff for r in D["repositories"]), "coverage: repos of non-affiliated orgs")
    loc = Counter(low(o["location"]) for o in aff if o.get("location"))
    check(any(c > 1 for c in loc.values()), "coverage: organization location filter with 2 matches")

    # members: names, filters, timestamps
    names = [m.get("name") for m in D["members"]]
    check(names.count(None) >= 3, "coverage: members without a name")
    by_fold = defaultdict(set)
    for nm in names:
        if nm:
            by_fold[nm.lower()].add(nm)
    check(any(len(v) > 1 for v in by_fold.values()), "coverage: member names differing only by case")
    check(any(len(v) > 1 and any(ord(c) > 127 for c in k) for k, v in by_fold.items()),
          "coverage: non-ASCII member names differing only by case")
    check(any(any(ord(c) > 0x2E80 for c in nm) for nm in names if nm), "coverage: CJK member name")
    for field in ("company", "location"):
        groups = defaultdict(set)
        for m in D["members"]:
            if m.get(field):
                groups[m[field].lower()].add(m[field])
        check(any(len(v) > 1 for v in groups.values()), "coverage: %s case variants" % field)
        check(any(len(v) > 1 and any(ord(c) > 127 for c in k) for k, v in groups.items()),
              "coverage: non-ASCII %s case variants" % field)
    raw = [m["created_at"] for m in D["members"]]
    check(any("." in x for x in raw), "coverage: fractional timestamps")
    check(any(not x.endswith("Z") for x in raw), "coverage: non-Z offsets")
    check(any(re.search(r"\.0+Z$", x) for x in raw), "coverage: zero fraction timestamp")
    inst = Counter(t(x) for x in raw)
    check(any(c > 1 for c in inst.values()), "coverage: member created_at ties")
    check(len({x for x in raw if t(x) == t("2023-05-01T10:00:00Z")}) >= 3,
          "coverage: differently written timestamps for one instant")
    check(any(m["login"] != m["login"].lower() for m in D["members"]), "coverage: mixed-case logins")

    # issues
    by_repo = Counter((r["organization"], r["repository"]) for r in D["issues"])
    check(len(by_repo) >= 5, "coverage: issues in several repositories")
    ic = defaultdict(list)
    for r in D["issues"]:
        ic[t(r["created_at"])].append(t(r["updated_at"]))
    check(sum(1 for v in ic.values() if len(v) > 1 and len(set(v)) == len(v)) >= 2,
          "coverage: issues sharing created_at with different updated_at")
    check(any(len(v) > len(set(v)) for v in ic.values()), "coverage: issues sharing created_at and updated_at")
    check(any(r.get("author") is None for r in D["issues"]), "coverage: issue without author")
    check(any("```" in r.get("body", "") for r in D["issues"]), "coverage: issue bodies with code blocks")
    rn = defaultdict(set)
    for r in D["repositories"]:
        rn[low(r["name"])].add(low(r["organization"]))
    check(any(len(v) > 1 for v in rn.values()), "coverage: one repository name in two organizations")

    # milestones
    check(any(m.get("open_issues_count", 0) == 0 and m.get("closed_issues_count", 0) == 0 for m in D["milestones"]),
          "coverage: milestone with no issues")
    check(any(m.get("due_on") is None for m in D["milestones"]) and any(m.get("due_on") for m in D["milestones"]),
          "coverage: milestones due_on null and set")
    mc = Counter(t(m["created_at"]) for m in D["milestones"])
    check(any(c > 1 for c in mc.values()), "coverage: milestone created_at ties")

    # releases
    rel = D["releases"]
    check(any("/" in r["tag_name"] for r in rel), "coverage: tag with '/'")
    tags = defaultdict(set)
    for r in rel:
        tags[(low(r["organization"]), low(r["repository"]), r["tag_name"].lower())].add(r["tag_name"])
    check(any(len(v) > 1 for v in tags.values()), "coverage: tags differing only by case in one repository")
    check(any(r.get("published_at") is None for r in rel), "coverage: unpublished release")
    check(any(r.get("is_draft") for r in rel), "coverage: draft release")
    check(any(r.get("is_pre_release") and r.get("published_at") for r in rel), "coverage: published pre-release")
    check(any(c > 1 for c in Counter(t(r["created_at"]) for r in rel).values()), "coverage: release created_at ties")
    pub = defaultdict(set)
    for r in rel:
        if r.get("published_at"):
            pub[t(r["published_at"])].add(t(r["created_at"]))
    check(any(len(v) > 1 for v in pub.values()), "coverage: published_at tie with different created_at")
    check(any(r.get("author") is None for r in rel), "coverage: release without author")

    # labels
    lc = defaultdict(set)
    for l in D["labels"]:
        lc[l["color"].lower()].add(l["color"])
    check(any(len(v) > 1 for v in lc.values()), "coverage: label colors in both cases")
    check(any(len([l for l in D["labels"] if l["color"].lower() == c]) > 1 for c in lc), "coverage: shared label color")
    for f in ("created_at", "updated_at"):
        check(any(c > 1 for c in Counter(t(l[f]) for l in D["labels"]).values()), "coverage: label %s ties" % f)

    # chapters
    act = [c for c in D["chapters"] if c.get("is_active", True)]
    check(2 <= n["chapters"] - len(act) <= 3, "coverage: 2-3 inactive chapters")
    check(any(c.get("latitude") is None for c in act), "coverage: active chapter without coordinates")
    cc = Counter(c.get("country") for c in act)
    check(sum(1 for v in cc.values() if v >= 3) >= 3, "coverage: countries with several chapters")
    check(any(c.get("latitude", 0) is not None and c.get("latitude", 0) < 0 for c in act) and
          any(c.get("longitude", 0) is not None and c.get("longitude", 0) < 0 for c in act),
          "coverage: negative coordinates")
    check(any(c > 1 for c in Counter(c["created_at"] for c in act).values()), "coverage: chapter created_at ties")
    leaders = [l for c in D["chapters"] for l in c.get("leaders", [])]
    check(any(l.get("login") for l in leaders) and any(not l.get("login") for l in leaders),
          "coverage: chapter leaders with and without login")
    check(any(ord(ch) > 127 for c in act for ch in c["name"]), "coverage: non-ASCII chapter name")

    # committees
    check(any(c.get("is_active") is False for c in D["committees"]), "coverage: inactive committee")

    # projects
    check(any(p.get("is_active") is False for p in D["projects"]), "coverage: inactive project")
    check(any(any(ord(ch) > 127 for ch in p["name"]) for p in active_projects), "coverage: non-ASCII project name")
    rs = {(low(r["organization"]), low(r["name"])): r for r in D["repositories"]}
    sf = []
    for p in active_projects:
        st = sum(rs[(low(x["organization"]), low(x["name"]))].get("stars_count", 0) for x in p.get("repositories", []))
        fk = sum(rs[(low(x["organization"]), low(x["name"]))].get("forks_count", 0) for x in p.get("repositories", []))
        sf.append((p["level"], st, fk))
    full = Counter(sf)
    check(any(c > 1 and k[1] > 0 for k, c in full.items()), "coverage: projects tied on level, stars and forks")
    ls = defaultdict(set)
    for lv, st, fk in sf:
        ls[(lv, st)].add(fk)
    check(any(len(v) > 1 and k[1] > 0 for k, v in ls.items()), "coverage: projects tied on stars, not forks")
    check(any(len(p.get("repositories", [])) > 1 for p in active_projects), "coverage: project with several repositories")
    check(any("juice shop" in p["name"].lower() for p in active_projects) and
          sum("juice" in p["name"].lower() for p in active_projects) >= 2, "coverage: name search 'juice'")

    # events
    ev = D["events"]
    up = [e for e in ev if parse_date(e["start_date"]) >= TODAY]
    check(len(up) >= 5 and all(e["start_date"] >= "2027-01-01" for e in up), "coverage: upcoming events from 2027")
    check(all("2019" <= e["start_date"][:4] <= "2030" for e in ev), "coverage: event years 2019-2030")
    check(len(ev) - len(up) >= 10, "coverage: past events")
    check(any(e.get("end_date") is None for e in up) and any(e.get("end_date") is None for e in ev if e not in up),
          "coverage: null end_date past and upcoming")
    for f in ("latitude", "url", "description"):
        check(any(e.get(f) is None for e in ev), "coverage: event %s null" % f)
    sd = defaultdict(list)
    for e in ev:
        sd[e["start_date"]].append(e.get("end_date"))
    check(any(len(v) > 1 and len(set(v)) == len(v) for v in sd.values()), "coverage: shared start_date, different end_date")
    check(any(len(v) > 2 and None in v for k, v in sd.items() if k >= "2027"), "coverage: upcoming start_date tie incl. null end")
    for cat in SCHEMA["events"]["category"][1][1]:
        check(any(e["category"] == cat for e in up), "coverage: upcoming %s event" % cat)

    # sponsors
    sn = defaultdict(set)
    for s in D["sponsors"]:
        sn[s["name"].lower()].add(s["name"])
    check(any(len(v) > 1 for v in sn.values()), "coverage: sponsor names differing only by case")
    check(any(s["name"][0].islower() for s in D["sponsors"]) and any(ord(s["name"][0]) > 127 for s in D["sponsors"]),
          "coverage: sponsor names lower-case and non-ASCII first letters")

    # snapshots
    inactive_ch = {low(c["key"]) for c in D["chapters"] if not c.get("is_active", True)}
    inactive_pr = {low(p["key"]) for p in D["projects"] if not p.get("is_active", True)}
    unpub = {(low(r["organization"]), low(r["repository"]), r["tag_name"]) for r in rel if r.get("published_at") is None}
    comp = [s for s in D["snapshots"] if s["status"] == "completed"]
    check(any(any(low(k) in inactive_ch for k in s.get("new_chapters", [])) for s in comp),
          "coverage: completed snapshot referencing an inactive chapter")
    check(any(any(low(k) in inactive_pr for k in s.get("new_projects", [])) for s in comp),
          "coverage: completed snapshot referencing an inactive project")
    check(any(any((low(x["organization"]), low(x["repository"]), x["tag_name"]) in unpub for x in s.get("new_releases", []))
              for s in comp), "coverage: completed snapshot referencing an unpublished release")
    check(any(all(not s.get(k) for k in ("new_chapters", "new_projects", "new_members", "new_issues", "new_releases"))
              for s in comp), "coverage: completed snapshot with empty lists")
    for k in ("new_chapters", "new_projects", "new_members", "new_issues", "new_releases"):
        check(any(s.get(k) for s in comp), "coverage: completed snapshot with %s" % k)

    # frontend pages: every kind with the values its GraphQL fields show
    prs = D["pull_requests"]
    check(any(r["state"] == "open" for r in prs), "coverage: open pull request")
    check(any(r.get("merged_at") for r in prs), "coverage: merged pull request")
    check(any(r["state"] == "closed" and not r.get("merged_at") for r in prs), "coverage: closed unmerged pull request")
    check(len({p["published_at"][:4] for p in D["posts"]}) >= 3, "coverage: posts over three years")
    per_project = Counter(m["project"] for m in D["project_health_metrics"])
    check(sum(1 for c in per_project.values() if c >= 12) >= 3, "coverage: monthly health metrics of several projects")
    check(sum(1 for m in D["members"] if m.get("badges")) >= 5, "coverage: members with badges")
    for name in ("chapters", "committees", "projects"):
        check(any(r.get("channels") for r in D[name]), "coverage: %s with channels" % name)
        check(any(r.get("related_urls") for r in D[name]), "coverage: %s with related URLs" % name)
    check(any(l.get("description") for c in D["chapters"] for l in c.get("leaders", [])), "coverage: leader roles")
    check(sum(1 for l in D["labels"] if low(l["name"]) == "bug") >= 3, "coverage: `bug` in several repositories")
    check(COMMUNITY.get("slack_workspace_members", 0) > 0, "coverage: community.json")
    programs = unique("programs", D["programs"], lambda r: low(r["key"]))
    unique("modules", D["modules"], lambda r: low(r["program"]) + "/" + low(r["key"]))
    logins = set(low(m["login"]) for m in D["members"])
    project_keys = set(low(p["key"]) for p in D["projects"])
    for i, p in enumerate(D["programs"], 1):
        for login in p.get("admins", []):
            check(low(login) in logins, "programs:%d: unknown admin %r" % (i, login))
    for i, m in enumerate(D["modules"], 1):
        check(low(m["program"]) in programs, "modules:%d: unknown program %r" % (i, m["program"]))
        check(m.get("project") is None or low(m["project"]) in project_keys,
              "modules:%d: unknown project %r" % (i, m.get("project")))
        for login in m.get("mentors", []) + m.get("mentees", []):
            check(low(login) in logins, "modules:%d: unknown member %r" % (i, login))
    published = [p for p in D["programs"] if p["status"] == "published"]
    check(len(published) >= 3, "coverage: three published programs")
    check(any(p["status"] == "draft" for p in D["programs"]), "coverage: a draft program")
    for p in published:
        count = sum(1 for m in D["modules"] if low(m["program"]) == low(p["key"]))
        check(2 <= count <= 4, "coverage: program %s has %d modules (2 to 4)" % (p["key"], count))

    # ---- determinism / up to date
    if "--no-regen" not in sys.argv:
        gen = os.path.join(here, "make_sample.py")
        outs = []
        for _ in range(2):
            tmp = tempfile.mkdtemp(prefix="roost-sample-")
            env = dict(os.environ, PYTHONHASHSEED="random")
            subprocess.run([sys.executable, gen, tmp], check=True, env=env)
            outs.append(tmp)
        for name in FILES + ["community"]:
            ext = ".json" if name == "community" else ".jsonl"
            blobs = []
            for p in (d, outs[0], outs[1]):
                with open(os.path.join(p, name + ext), "rb") as f:
                    blobs.append(f.read())
            check(blobs[1] == blobs[2], "determinism: two runs differ on %s%s" % (name, ext))
            check(blobs[0] == blobs[1], "up to date: %s%s differs from a fresh run of make_sample.py" % (name, ext))
        for tmp in outs:
            for name in FILES:
                os.remove(os.path.join(tmp, name + ".jsonl"))
            os.remove(os.path.join(tmp, "community.json"))
            os.rmdir(tmp)

    report(n)


def report(n=None):
    if failures:
        for f in failures:
            print("FAIL", f)
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    total = sum(n.values())
    for k in FILES:
        print("%-26s %5d" % (k + ".jsonl", n[k]))
    print("%-26s %5d" % ("total", total))
    print("OK")


if __name__ == "__main__":
    main()
