"""The sample's records for the frontend's about and board pages (docs/data.md), for
tools/make_sample.py: the project the about page shows (`nest`, its repository,
contributors and milestones, and the three leaders it names), two boards of directors
with their candidates and members, a snapshot of each candidate's activity, and the
members' board, staff and mentoring fields.

Drawn from a random stream of their own, after every other record is built, so every
record made before stays as it was; the fields added to members are new keys only.
"""

import random
from datetime import datetime, timedelta, timezone

UTC = timezone.utc
rng = random.Random(20261126)

# The about page names its project and three leaders by login.
ABOUT_LEADERS = [
    ("arkid15r", "Nest project leader"),
    ("kasya", "Nest project leader"),
    ("mamicidal", "Nest project leader"),
]

STATEMENTS = [
    "I want the community's projects to have the resources they need to thrive.",
    "Chapters are where most members meet us first; I will put them first.",
    "More transparency in how the board decides, and more voices in the room.",
    "I have led a chapter for years and want to bring that experience to the board.",
    "Security education should be free and open to everyone, everywhere.",
    "Our volunteers are our strength: I will work to keep them supported.",
]
CHANNELS = ["#general", "#chapter-leaders", "#project-leaders", "#appsec"]


def ts(d):
    return d.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def dt(y, mo, d, h=0, mi=0, s=0):
    return datetime(y, mo, d, h, mi, s, tzinfo=UTC)


def add_about(members, repositories, contributors, milestones, projects):
    """The about page's project, its repository and its three leaders."""
    for n, (login, title) in enumerate(ABOUT_LEADERS):
        members.append({
            "login": login, "name": login,
            "avatar_url": "https://avatars.githubusercontent.com/u/%d?v=4" % (2201000 + n),
            "url": "https://github.com/%s" % login,
            "bio": "Builds the community's web platform.",
            "company": "", "location": "", "title": title,
            "followers_count": 120 + 40 * n, "following_count": 15 + n,
            "public_repositories_count": 30 + 7 * n,
            "created_at": ts(dt(2014 + n, 3 + n, 11, 10, 0, 0)),
            "updated_at": ts(dt(2026, 10, 2 + n, 8, 0, 0)),
        })
    repositories.append({
        "organization": "securecodeorg", "name": "nest",
        "description": "The community's web platform: its directory, search and mentorship.",
        "url": "https://github.com/securecodeorg/nest",
        "commits_count": 4820, "contributors_count": 0, "forks_count": 310,
        "open_issues_count": 0, "stars_count": 640, "subscribers_count": 22,
        "license": "MIT", "topics": ["community", "platform", "python", "typescript"],
        "languages": ["Python", "TypeScript"],
        "pushed_at": "2026-11-18T21:04:00Z", "created_at": "2024-08-13T12:00:00Z",
        "updated_at": "2026-11-18T21:04:00Z", "size": 48200,
    })
    people = [login for login, _ in ABOUT_LEADERS]
    people += [m["login"] for m in rng.sample(members[:60], 12)]
    for n, login in enumerate(people):
        contributors.append({"organization": "securecodeorg", "repository": "nest",
                             "member": login, "contributions_count": 900 // (n + 1) + rng.randrange(5)})
    repositories[-1]["contributors_count"] = len(people)
    for n, (title, state, open_, closed) in enumerate([
            ("Search and lists", "closed", 0, 24), ("Mentorship portal", "open", 9, 17),
            ("Board elections", "open", 6, 3)]):
        created = dt(2025, 2 + 3 * n, 5)
        milestones.append({
            "organization": "securecodeorg", "repository": "nest", "number": n + 1,
            "title": title, "state": state,
            "body": "What **%s** covers.\n\n- the pages\n- their API\n" % title,
            "author": people[n % 3],
            "url": "https://github.com/securecodeorg/nest/milestone/%d" % (n + 1),
            "open_issues_count": open_, "closed_issues_count": closed,
            "due_on": ts(created + timedelta(days=120)), "created_at": ts(created),
            "updated_at": ts(created + timedelta(days=40)),
        })
    projects.append({
        "key": "www-project-nest", "name": "Nest", "level": "lab", "type": "code",
        "description": "Nest is the community's web platform: a directory of its chapters, "
                       "projects and people, with search and mentorship.",
        "summary": "Nest: the community's web platform.",
        "url": "https://community.example.org/www-project-nest/",
        "leaders": [{"name": login, "login": login, "description": "Leader"}
                    for login, _ in ABOUT_LEADERS],
        "repositories": [{"organization": "securecodeorg", "name": "nest"}],
        "created_at": "2024-08-20T09:00:00Z", "updated_at": "2026-11-12T16:30:00Z",
        "related_urls": ["https://github.com/securecodeorg/nest"],
    })


def counts(keys, n, hi):
    out = {}
    for key in rng.sample(keys, min(n, len(keys))):
        out[key] = rng.randrange(1, hi)
    return dict(sorted(out.items()))


def make_boards(members, chapters, projects, repositories):
    """Boards of 2024 and 2025, each candidate's activity over the year before, and
    the members' further fields. Returns (boards, member_snapshots)."""
    with_login = [m for m in members[:80] if m.get("name")]
    boards, snapshots = [], []
    # Only what the API shows: the page looks each key up.
    chapter_keys = [c["key"] for c in chapters if c.get("is_active", True)]
    project_keys = [p["key"] for p in projects if p.get("is_active", True)]
    repo_keys = ["%s/%s" % (r["organization"], r["name"]) for r in repositories]
    for year in (2024, 2025):
        chosen = rng.sample(with_login, 7)
        candidates = []
        for m in chosen:
            c = {"name": m["name"], "login": m["login"], "description": rng.choice(STATEMENTS)}
            if rng.random() < 0.5:
                c["email"] = "%s@candidates.example.org" % m["login"].lower()
            candidates.append(c)
        # A candidate without an account on the code host.
        candidates.append({"name": "Ingrid Halvorsen", "login": None,
                           "description": rng.choice(STATEMENTS)})
        elected = chosen[:5]
        boards.append({
            "year": year, "url": "https://community.example.org/board/elections/%d/" % year,
            "candidates": candidates,
            "members": [{"name": m["name"], "login": m["login"], "description": "Director"}
                        for m in elected],
            "created_at": ts(dt(year, 9, 1, 12)), "updated_at": ts(dt(year, 11, 2, 12)),
        })
        start, end = dt(year - 1, 1, 1), dt(year - 1, 12, 31, 23, 59, 59)
        for m in chosen:
            days, talk = {}, {}
            for _ in range(rng.randrange(20, 70)):
                day = (start + timedelta(days=rng.randrange(365))).strftime("%Y-%m-%d")
                days[day] = days.get(day, 0) + rng.randrange(1, 6)
                if rng.random() < 0.4:
                    talk[day] = talk.get(day, 0) + rng.randrange(1, 9)
            total = sum(days.values())
            prs, issues = total // 4, total // 5
            snapshots.append({
                "member": m["login"], "start_at": ts(start), "end_at": ts(end),
                "commits_count": total - prs - issues, "pull_requests_count": prs,
                "issues_count": issues, "messages_count": sum(talk.values()),
                "contribution_heatmap_data": dict(sorted(days.items())),
                "communication_heatmap_data": dict(sorted(talk.items())),
                "chapter_contributions": counts(chapter_keys, 2, 30),
                "project_contributions": counts(project_keys, 3, 60),
                "repository_contributions": counts(repo_keys, 4, 80),
                "channel_communications": counts(CHANNELS, 3, 120),
            })
        if year == 2025:
            for m in elected:
                m["is_owasp_board_member"] = True
        for m in chosen:
            m["linkedin_page_id"] = m["login"].lower()
            m["first_owasp_contribution_at"] = ts(dt(2015 + rng.randrange(8), 1 + rng.randrange(12), 1 + rng.randrange(28)))
    with_login[1]["is_former_owasp_staff"] = True
    for m in with_login[2:4]:
        m["is_gsoc_mentor"] = True
    return boards, snapshots
