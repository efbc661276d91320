"""The sample's records for the frontend's GraphQL pages (docs/data.md, "Records for the
frontend's GraphQL pages"), for tools/make_sample.py.

Drawn from a random stream of their own, after every other record is built, so the
records of the older files (and every REST answer) stay as they were; the fields added
to older records are new keys only. Per-repository labels are appended to labels.jsonl
(a `bug` of its own in two repositories), and a few issues of juice-shop show its own
`challenge` label.
"""

import random
from datetime import datetime, timedelta, timezone

UTC = timezone.utc
NOW = datetime(2026, 11, 20, 18, 0, 0, tzinfo=UTC)
rng = random.Random(20261123)


def ts(d):
    return d.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def between(lo, hi):
    span = int((hi - lo).total_seconds())
    return lo + timedelta(seconds=rng.randrange(span))


def dt(y, mo, d, h=0, mi=0, s=0):
    return datetime(y, mo, d, h, mi, s, tzinfo=UTC)


BADGES = [
    # name, description, css class, weight
    ("Project Leader", "Leads one of the community's projects", "fa-crown", 100),
    ("Chapter Leader", "Leads a local chapter", "fa-map-marker", 90),
    ("Committee Member", "Serves on a committee", "fa-users", 80),
    ("Staff", "Works for the foundation", "fa-id-badge", 70),
    ("Top Contributor", "Among the most active contributors of the year", "fa-star", 50),
    ("Speaker", "Spoke at a global event", "fa-microphone", 30),
]


def make_badges():
    return [{"name": n, "description": d, "css_class": c, "weight": w} for n, d, c, w in BADGES]


def add_member_fields(members, projects, chapters, committees):
    """Email on about a third of the members; badges on the leaders and a few more."""
    by_login = {m["login"].lower(): m for m in members}
    for i, m in enumerate(members):
        if i % 3 == 0:
            m["email"] = "%s@users.example.org" % m["login"].lower()
    holders = {}

    def give(login, badge):
        if login:
            lst = holders.setdefault(login.lower(), [])
            if badge not in lst:
                lst.append(badge)
    for kind, recs in (("Project Leader", projects), ("Chapter Leader", chapters),
                       ("Committee Member", committees)):
        for r in recs:
            for l in r.get("leaders", []):
                give(l.get("login"), kind)
    for m in rng.sample(members[:70], 12):
        give(m["login"], "Top Contributor")
    for m in rng.sample(members[:70], 5):
        give(m["login"], "Speaker")
    for m in members[:3]:
        give(m["login"], "Staff")
    for login, badges in holders.items():
        if login in by_login:
            by_login[login]["badges"] = badges


def add_organization_fields(organizations):
    for o in organizations:
        if o.get("is_affiliated"):
            o["collaborators_count"] = 5 + rng.randrange(400)
            if rng.random() < 0.7:
                o["email"] = "security@%s.example.org" % o["login"].lower()


ROLES = ["Leader", "Co-leader", "Founder", "Maintainer", ""]


def add_leader_roles(records):
    for r in records:
        for i, l in enumerate(r.get("leaders", [])):
            role = ROLES[0] if i == 0 else rng.choice(ROLES)
            if role:
                l["description"] = role


def slug(key, prefix):
    return key[len(prefix):]


def add_entity_links(chapters, committees, projects, repositories):
    repos = [(r["organization"], r["name"]) for r in repositories]
    for i, c in enumerate(chapters):
        part = slug(c["key"], "www-chapter-")
        if c.get("is_active", True):
            country = c.get("country", "")
            c["suggested_location"] = "%s, %s" % (c["name"], country) if country else c["name"]
        elif i % 2 == 0:
            c["suggested_location"] = None
        if i % 4 != 3:
            c["related_urls"] = ["https://www.meetup.com/community-%s/" % part]
            if i % 3 == 0:
                c["related_urls"].append("https://www.linkedin.com/groups/%d/" % (9000000 + i * 37))
        if i % 3 != 2:
            c["channels"] = [{"platform": "slack", "name": "#chapter-%s" % part,
                              "external_id": "C%08X" % (0x1A2B3C + i * 977)}]
            if i % 5 == 0:
                c["channels"].append({"platform": "discord", "name": "%s-chapter" % part})
        if i < 4:
            c["repositories"] = [{"organization": o, "name": n} for o, n in rng.sample(repos[:12], 2)]
    for i, c in enumerate(committees):
        part = slug(c["key"], "www-committee-")
        c["related_urls"] = ["https://community.example.org/%s/minutes/" % c["key"]]
        c["channels"] = [{"platform": "slack", "name": "#committee-%s" % part,
                          "external_id": "C%08X" % (0x2B3C4D + i * 613)}]
        if i < 3:
            c["repositories"] = [{"organization": o, "name": n}
                                 for o, n in rng.sample(repos[:14], 2 + i)]
    for i, p in enumerate(projects):
        part = slug(p["key"], "www-project-")
        urls = ["https://github.com/%s/%s" % (r["organization"], r["name"])
                for r in p.get("repositories", [])]
        if i % 2 == 0:
            urls.append("https://%s.example.org/docs/" % part)
        if urls:
            p["related_urls"] = urls
        if i % 4 != 3:
            p["channels"] = [{"platform": "slack", "name": "#project-%s" % part,
                              "external_id": "C%08X" % (0x3C4D5E + i * 409)}]


def add_repository_labels(labels, issues):
    """Labels of one repository: a `bug` of its own in two repositories (a second and a
    third `bug` in the dataset) and juice-shop's `challenge`."""
    labels += [
        {"organization": "juice-labs", "repository": "juice-shop", "name": "bug",
         "color": "ee0701", "description": "Something in the shop is broken",
         "created_at": "2021-04-01T09:00:00Z", "updated_at": "2023-02-11T16:20:00Z"},
        {"organization": "juice-labs", "repository": "juice-shop", "name": "challenge",
         "color": "5319e7", "description": "About one of the hacking challenges",
         "created_at": "2021-04-01T09:00:00Z", "updated_at": "2024-08-19T07:45:00Z"},
        {"organization": "appsec-tools", "repository": "zap-extensions", "name": "bug",
         "color": "B60205", "description": "A defect in an add-on",
         "created_at": "2022-01-10T12:00:00Z", "updated_at": "2022-01-10T12:00:00Z"},
    ]
    shop = [i for i in issues if (i["organization"], i["repository"]) == ("juice-labs", "juice-shop")]
    for i in rng.sample(shop, 12):
        i["labels"] = i.get("labels", []) + ["challenge"]


PR_VERBS = ["Fix", "Add", "Update", "Refactor", "Remove", "Document", "Improve", "Bump"]
PR_THINGS = ["login challenge", "score board", "CSP header handling", "Docker image",
             "translation strings", "CI workflow", "dependency versions", "API rate limiting",
             "report export", "scan policy", "SBOM output", "cheat sheet index",
             "threat model schema", "XSS payload list", "session timeout", "README"]


def make_pull_requests(repositories, issues, logins):
    """About 80 pull requests over three years (most in the last one): open, closed
    without merging, and merged."""
    last_issue = {}
    for i in issues:
        k = (i["organization"], i["repository"])
        last_issue[k] = max(last_issue.get(k, 0), i["number"])
    active = [(r["organization"], r["name"]) for r in repositories
              if r["organization"] not in ("vuln-research-collective",)]
    weights = [6 if n == "juice-shop" else 3 if o == "appsec-tools" else 1 for o, n in active]
    out, next_number = [], {}
    for k in range(80):
        org, repo = rng.choices(active, weights)[0]
        number = next_number.get((org, repo), last_issue.get((org, repo), 0) + 1)
        next_number[(org, repo)] = number + 1 + rng.randrange(3)
        lo = dt(2023, 11, 1) if k < 20 else dt(2025, 11, 20)
        created = between(lo, NOW - timedelta(days=2))
        kind = rng.random()
        r = {"organization": org, "repository": repo, "number": number,
             "title": "%s %s" % (rng.choice(PR_VERBS), rng.choice(PR_THINGS))}
        if kind < 0.3:
            r["state"] = "open"
            updated = between(created, NOW)
        else:
            r["state"] = "closed"
            closed = between(created, min(NOW, created + timedelta(days=30)))
            updated = between(closed, min(NOW, closed + timedelta(days=5)))
        if rng.random() < 0.5:
            r["body"] = "## What\n\n%s.\n\n## Why\n\nCloses #%d." % (
                r["title"], 1 + rng.randrange(max(1, last_issue.get((org, repo), 1))))
        r["author"] = None if k % 17 == 5 else rng.choice(logins[:50])
        r["url"] = "https://github.com/%s/%s/pull/%d" % (org, repo, number)
        r["created_at"] = ts(created)
        r["updated_at"] = ts(updated)
        if r["state"] == "closed":
            r["closed_at"] = ts(closed)
            if kind > 0.45:
                r["merged_at"] = ts(closed)
        out.append(r)
    out.sort(key=lambda r: r["created_at"])
    return out


POST_TOPICS = ["Chapter meetups", "Global AppSec", "Juice Shop", "Threat modeling",
               "Supply chain security", "Secure code review", "ASVS", "Mobile security",
               "Cheat sheets", "Project incubation", "Student program", "Volunteering"]
POST_KINDS = ["What's new in %s", "%s: a look back", "Getting started with %s",
              "Call for volunteers: %s", "%s in numbers", "Notes from %s"]
AUTHORS = [("Lars Eriksson", "https://avatars.example.org/lars.png"),
           ("Chen Jing", ""), ("Amara Okafor", "https://avatars.example.org/amara.png"),
           ("Sofía Martínez", "https://avatars.example.org/sofia.png"),
           ("Kwame Schmidt", "")]


def make_posts():
    """Three years of the blog, about one post a month."""
    out, seen = [], set()
    day = dt(2023, 12, 4, 9, 0, 0)
    while day < NOW - timedelta(days=3):
        title = rng.choice(POST_KINDS) % rng.choice(POST_TOPICS)
        slug_ = "".join(c if c.isalnum() else "-" for c in title.lower()).strip("-")
        while "--" in slug_:
            slug_ = slug_.replace("--", "-")
        url = "https://community.example.org/blog/%04d/%02d/%s/" % (day.year, day.month, slug_)
        if url not in seen:
            seen.add(url)
            author, image = rng.choice(AUTHORS)
            created = day - timedelta(days=rng.randrange(1, 6))
            r = {"title": title, "url": url, "author_name": author}
            if image:
                r["author_image_url"] = image
            r["published_at"] = ts(day)
            r["created_at"] = ts(created)
            r["updated_at"] = ts(day + timedelta(hours=rng.randrange(0, 48)))
            out.append(r)
        day += timedelta(days=20 + rng.randrange(20))
    return out


def make_health_metrics(projects):
    """Twelve monthly measurements of six projects (one of them inactive)."""
    chosen = [p for p in projects if p.get("is_active", True)][:5]
    chosen += [p for p in projects if not p.get("is_active", True)][:1]
    out = []
    for n, p in enumerate(chosen):
        score = 55.0 + 7 * n
        stars = 200 + 900 * (5 - n)
        for month in range(12):
            y, m = (2025, 12) if month == 0 else (2026, month)
            score = max(0.0, min(100.0, score + rng.uniform(-6, 6)))
            stars += rng.randrange(0, 60)
            r = {"project": p["key"], "created_at": ts(dt(y, m, 1, 3, 0, 0)),
                 "score": None if (n == 4 and month == 3) else round(score, 2),
                 "stars_count": stars, "forks_count": stars // 5,
                 "open_issues_count": rng.randrange(5, 120),
                 "open_pull_requests_count": rng.randrange(0, 30),
                 "unanswered_issues_count": rng.randrange(0, 15),
                 "unassigned_issues_count": rng.randrange(0, 40),
                 "last_commit_days": rng.randrange(0, 40),
                 "last_commit_days_requirement": 60,
                 "last_release_days": rng.randrange(0, 200),
                 "last_release_days_requirement": 180}
            add_health_fields(r, p, month)
            out.append(r)
    return out


def add_health_fields(r, project, month):
    """The measurement fields added later, derived from the drawn ones (no draw from
    `rng`, so every record drawn after them stays as it was)."""
    stars, at = r["stars_count"], r["created_at"]
    created = datetime.strptime(project["created_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    measured = datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    r.update({
        "contributors_count": 2 + stars // 40,
        "recent_releases_count": (1 + stars % 3) if r["last_release_days"] < 90 else 0,
        "total_issues_count": r["open_issues_count"] * 3 + stars % 50,
        "total_releases_count": month + 1 + stars % 20,
        "is_funding_requirements_compliant": stars % 7 != 0,
        "is_leader_requirements_compliant": stars % 5 != 0,
        "age_days": max(0, (measured - created).days),
        "age_days_requirement": 15,
        "last_pull_request_days": r["last_commit_days"] // 2 + stars % 9,
        "last_pull_request_days_requirement": 30,
        "owasp_page_last_update_days": (stars + month * 37) % 400,
        "owasp_page_last_update_days_requirement": 90,
    })


def make_community():
    return {"slack_workspace_members": 31842}
