"""The sample's mentorship programs and modules (docs/data.md, "Mentorship programs and
modules"), for tools/make_sample.py.

Drawn from a random stream of their own, after every other record is built, so no
record of the other files changes. Three published programs (the API shows them), one
draft and one completed program (it never does), each with two to four modules; a
module works on an active project with repositories, on the labels its issues carry,
with mentors and mentees taken from the sample's members.
"""

import random
from datetime import datetime, timedelta, timezone

UTC = timezone.utc
rng = random.Random(20261124)

LEVELS = ["beginner", "intermediate", "advanced", "expert"]

PROGRAMS = [
    # key, name, status, started, weeks, mentees limit
    ("summer-of-code-2026", "Summer of Code 2026", "published", datetime(2026, 5, 4, tzinfo=UTC), 16, 40),
    ("security-champions-2026", "Security Champions 2026", "published", datetime(2026, 2, 2, tzinfo=UTC), 30, 25),
    ("winter-of-appsec-2026", "Winter of AppSec 2026", "published", datetime(2026, 10, 5, tzinfo=UTC), 20, None),
    ("spring-sprint-2027", "Spring Sprint 2027", "draft", datetime(2027, 3, 1, tzinfo=UTC), 12, 15),
    ("summer-of-code-2025", "Summer of Code 2025", "completed", datetime(2025, 5, 5, tzinfo=UTC), 16, 30),
]

DOMAINS = ["Application Security", "Threat Modeling", "Secure Code Review", "DevSecOps",
           "Mobile Security", "Cloud Security", "Security Testing"]
TAGS = ["python", "javascript", "java", "go", "rust", "docker", "kubernetes", "react",
        "owasp-top-10", "sast", "dast", "ci"]
TOPICS = ["Triage and fix", "Test coverage for", "Documentation sprint on", "Rule pack for",
          "Hardening", "Benchmarks for", "Accessibility of"]


def ts(d):
    return d.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def slug(text):
    out = "".join(c.lower() if c.isalnum() else "-" for c in text)
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")


def project_labels(projects, issues):
    """Active projects with repositories, and the labels their issues carry (by use)."""
    by_repo = {}
    for i in issues:
        key = (i["organization"].lower(), i["repository"].lower())
        for label in i.get("labels", []):
            counts = by_repo.setdefault(key, {})
            counts[label] = counts.get(label, 0) + 1
    out = []
    for p in projects:
        if not p.get("is_active", True) or not p.get("repositories"):
            continue
        counts = {}
        for r in p["repositories"]:
            for label, n in by_repo.get((r["organization"].lower(), r["name"].lower()), {}).items():
                counts[label] = counts.get(label, 0) + n
        labels = sorted(counts, key=lambda l: (-counts[l], l))
        out.append((p, labels))
    return out


def make_mentorship(members, projects, issues):
    """The programs and modules, in file order."""
    logins = [m["login"] for m in members]
    candidates = project_labels(projects, issues)
    programs, modules = [], []
    for key, name, status, start, weeks, limit in PROGRAMS:
        end = start + timedelta(weeks=weeks)
        levels = sorted(rng.sample(LEVELS, rng.randint(1, 3)), key=LEVELS.index)
        program = {
            "key": key,
            "name": name,
            "description": "%s pairs contributors with mentors from the community's "
                           "projects for %d weeks.\n\nMentees work on real issues and "
                           "meet their mentors every week." % (name, weeks),
            "status": status,
            "experience_levels": levels,
            "started_at": ts(start),
            "ended_at": ts(end),
            "domains": rng.sample(DOMAINS, rng.randint(1, 3)),
            "tags": rng.sample(TAGS, rng.randint(2, 4)),
            "admins": rng.sample(logins[:40], rng.randint(1, 3)),
        }
        if limit is not None:
            program["mentees_limit"] = limit
        programs.append(program)
        count = rng.randint(2, 4) if status == "published" else 2
        picked = rng.sample(candidates, count)
        for position, (project, labels) in enumerate(picked, start=1):
            topic = rng.choice(TOPICS)
            module_name = "%s %s" % (topic, project["name"])
            module_start = start + timedelta(weeks=rng.randint(0, 2))
            module = {
                "program": key,
                "key": slug(module_name),
                "name": module_name,
                "description": "Mentees work on %s with its maintainers: %s." % (
                    project["name"], topic.lower()),
                "experience_level": rng.choice(levels),
                "position": position,
                "started_at": ts(module_start),
                "ended_at": ts(end - timedelta(weeks=rng.randint(0, 2))),
                "domains": rng.sample(program["domains"], 1),
                "tags": rng.sample(program["tags"], 1),
                "labels": labels[:rng.randint(1, 2)] if labels else [],
                "project": project["key"],
                "mentors": rng.sample(logins[:70], rng.randint(1, 3)),
                "mentees": rng.sample(logins[70:], rng.randint(2, 5)),
            }
            if rng.random() < 0.5:
                module["mentee_can_manage_deadlines"] = True
            modules.append(module)
    return programs, modules
