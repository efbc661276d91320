#!/usr/bin/env python3
"""Write the committed sample dataset (data/sample/*.jsonl) in the docs/data.md interchange format.

Usage: python3 tools/make_sample.py [OUT_DIR]      (default: data/sample next to tools/)

Standard library only and deterministic: every random choice comes from one
random.Random(SEED), nothing depends on the clock, the locale or hash ordering, so two
runs write identical bytes. tools/check_sample.py validates the result.

The data is invented but realistic in shape, and it is built to exercise every filter,
ordering and tie-breaker of docs/api.md (see the comments marked "exercises").
"""

import json
import os
import random
import re
import sys
import unicodedata
from datetime import date, datetime, timedelta, timezone

SEED = 20261122
UTC = timezone.utc
# The sample's "now": nothing is created after it. Upcoming events start in 2027 or later.
NOW = datetime(2026, 11, 20, 18, 0, 0, tzinfo=UTC)

rng = random.Random(SEED)

FILES = [
    "organizations", "members", "repositories", "repository_contributors", "labels",
    "issues", "milestones", "releases", "chapters", "committees", "projects", "events",
    "sponsors", "snapshots", "pull_requests", "posts", "project_health_metrics", "badges",
    "boards", "member_snapshots",
    "programs", "modules",
]


# --------------------------------------------------------------------------- helpers

def ts(d):
    """RFC 3339 UTC, whole seconds, Z designator."""
    return d.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_ts(s):
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?"
                     r"(Z|[+-]\d{2}:\d{2})", s)
    assert m, s
    y, mo, d, h, mi, se, frac, off = m.groups()
    micro = int((frac or "0").ljust(6, "0"))
    if off == "Z":
        tz = UTC
    else:
        sign = 1 if off[0] == "+" else -1
        tz = timezone(sign * timedelta(hours=int(off[1:3]), minutes=int(off[4:6])))
    return datetime(int(y), int(mo), int(d), int(h), int(mi), int(se), micro, tz).astimezone(UTC)


def dt(y, mo, d, h=0, mi=0, s=0):
    return datetime(y, mo, d, h, mi, s, tzinfo=UTC)


def rand_dt(lo, hi):
    """Uniform whole-second instant in [lo, hi)."""
    span = int((hi - lo).total_seconds())
    return lo + timedelta(seconds=rng.randrange(max(span, 1)))


def later(d, max_days, min_seconds=60):
    """An instant min_seconds to max_days after d, never after NOW (unless d is)."""
    room = int((NOW - d).total_seconds())
    hi = min(int(max_days * 86400), room)
    lo = min(min_seconds, max(hi, 0))
    return d + timedelta(seconds=rng.randint(lo, max(lo, hi)))


def slug(text):
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.lower().replace("ø", "o").replace("ł", "l").replace("æ", "ae").replace("ß", "ss")
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def pareto(scale, alpha=1.3, cap=None):
    v = int(rng.paretovariate(alpha) * scale) - scale
    return min(v, cap) if cap is not None else v


def write(out_dir, name, records):
    path = os.path.join(out_dir, name + ".jsonl")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, separators=(", ", ": ")) + "\n")


# --------------------------------------------------------------------------- organizations

ORGS = [
    # login, name, company, location, description, affiliated, followers, created
    ("securecodeorg", "Secure Code Foundation", "Secure Code Foundation",
     "Wilmington, DE, United States",
     "Open-source application security standards, cheat sheets and guides.", True, 4210,
     dt(2012, 3, 14, 9, 26, 53)),
    ("juice-labs", "Juice Labs", "", "Hamburg, Germany",
     "Home of Juice Shop, the deliberately insecure web shop.", True, 1876,
     dt(2014, 9, 1, 12, 0, 0)),
    ("threatmodel-hub", "Threat Modeling Hub", "", "London, United Kingdom",
     "Tools and documentation for threat modeling.", True, 532,
     dt(2017, 6, 12, 8, 15, 0)),
    ("appsec-tools", "AppSec Tools", "AppSec Tools e.V.", "london, united kingdom",
     "Scanners and analysers maintained by the community.", True, 2950,
     dt(2014, 9, 1, 12, 0, 0)),  # exercises: created_at tie with juice-labs
    ("SecDocs-Community", "SecDocs Community", "", "",
     "Testing guides for web and mobile applications.", True, 1203,
     dt(2016, 2, 29, 17, 45, 10)),
    ("cryptoguard-dev", "CryptoGuard", "CryptoGuard GmbH", "Zürich, Switzerland",
     "Static analysis for cryptographic API misuse.", False, 87,
     dt(2019, 11, 5, 10, 0, 0)),
    ("vuln-research-collective", "Vulnerability Research Collective", "", "",
     "", False, 140, dt(2020, 4, 1, 0, 0, 0)),
]


def make_organizations():
    out = []
    for i, (login, name, company, location, desc, aff, fol, created) in enumerate(ORGS):
        r = {"login": login, "name": name}
        if company:
            r["company"] = company
        if location:
            r["location"] = location
        if desc:
            r["description"] = desc
        r["avatar_url"] = "https://avatars.githubusercontent.com/u/%d?v=4" % (1100000 + 7919 * i)
        if i % 2 == 0:  # the others derive https://github.com/<login>
            r["url"] = "https://github.com/" + login
        r["followers_count"] = fol
        if aff or i == len(ORGS) - 1:  # the last one omits is_affiliated (default false)
            r["is_affiliated"] = aff
        r["created_at"] = ts(created)
        r["updated_at"] = ts(later(created, 3000))
        out.append(r)
    return out


# --------------------------------------------------------------------------- members

FIRST = ["Aarav", "Priya", "Rahul", "Ananya", "Wei", "Mei", "Hiroshi", "Yuki", "Kwame", "Amara",
         "Chinedu", "Ngozi", "Lucas", "Mariana", "Gabriel", "Sofia", "Mateo", "Valentina",
         "Liam", "Olivia", "Noah", "Emma", "Lukas", "Lena", "Jan", "Eva", "Pierre", "Camille",
         "Giulia", "Marco", "Ahmed", "Fatima", "Omar", "Leila", "Dmitri", "Olga", "Sven",
         "Ingrid", "Mehmet", "Ayşe", "Tomás", "Inés", "Kofi", "Ama", "Daniel", "Sarah",
         "David", "Rachel", "Jonas", "Freya", "Kenji", "Sakura", "Arjun", "Kavya", "Thiago",
         "Beatriz", "Nikolai", "Chloé", "Björn", "Renée"]
LAST = ["Sharma", "Patel", "Iyer", "Chen", "Wang", "Li", "Sato", "Suzuki", "Mensah", "Okafor",
        "Adeyemi", "Silva", "Santos", "Oliveira", "García", "Rodríguez", "Müller", "Schmidt",
        "Novák", "Dubois", "Rossi", "Hassan", "Khan", "Ivanov", "Andersson", "Nilsson",
        "Kaya", "Fernández", "Smith", "Johnson", "Brown", "Cohen", "Levi", "Park", "Nguyen",
        "Tran", "O'Brien", "MacLeod", "van der Berg", "Dvořák", "Jensen", "Costa"]

# exercises: company filter (case variants of one value, Unicode case), location filter
COMPANIES = ["Acme", "Acme", "ACME", "acme", "Globex", "Globex", "Initech", "Hooli",
             "Umbrella Security", "Ünsal Bilişim", "ÜNSAL BILIŞIM", "Independent", "@juice-labs"]
LOCATIONS = ["London, United Kingdom", "London, United Kingdom", "london, united kingdom",
             "Bangalore, India", "Bangalore, India", "São Paulo, Brazil", "SÃO PAULO, BRAZIL",
             "Berlin, Germany", "San Francisco, CA", "Tokyo, Japan", "Remote", "Remote",
             "Zürich, Switzerland", "Lagos, Nigeria"]
BIOS = ["AppSec engineer. Breaking things so you don't have to.",
        "Security researcher | CTF player | coffee.",
        "Maintainer of open-source security tools.",
        "Pentester by day, open-source contributor by night.",
        "Threat modeling enthusiast. Opinions are my own.",
        "DevSecOps, supply-chain security, SBOMs.",
        "Mobile security & reverse engineering 📱",
        "Writing docs nobody reads (until they need them)."]
TITLES = ["Security Engineer", "Senior Application Security Engineer", "Penetration Tester",
          "Software Engineer", "CISO", "Security Architect", "Student", "Developer Advocate"]

# login, name (None: omitted), company, location, created_at (raw string or None)
SPECIAL_MEMBERS = [
    # exercises: name ordering compares case-insensitively, then by exact value
    ("alice-smith", "Alice Smith", "Acme", "London, United Kingdom", None),
    ("asmith", "alice Smith", "ACME", "london, united kingdom", None),
    ("ALICE-S", "ALICE SMITH", "acme", None, None),
    ("emile-d", "Émile Durand", "Umbrella Security", "Paris, France",
     "2022-12-31T22:30:00-05:00"),  # exercises: negative offset crossing a year boundary
    ("emiledurand", "émile durand", None, "Paris, France", None),
    # exercises: Unicode names; normalised timestamps that tie at 2023-05-01T10:00:00Z
    ("jose-nunez", "José Núñez", "Globex", "São Paulo, Brazil", "2023-05-01T10:00:00.250000Z"),
    ("zoe-k", "Zoë", None, "Zürich, Switzerland", "2023-05-01T12:00:00+02:00"),
    ("unal-yilmaz", "Ünal Yılmaz", "Ünsal Bilişim", "İstanbul, Türkiye", "2023-05-01T10:00:00Z"),
    ("li-lei", "李雷", "Hooli", "Shanghai, China", "2023-05-01T10:00:00.000000Z"),
    ("tanaka-taro", "田中太郎", None, "Tokyo, Japan", "2022-11-30T23:59:59.999999Z"),
    ("minjun-kim", "김민준", "Initech", "Seoul, South Korea", "2021-03-04T05:06:07.123Z"),
    ("lukasz-k", "Łukasz Kowalski", None, "Kraków, Poland", None),
    ("soren-s", "Søren Sørensen", "Independent", "Remote", None),
    ("asa-lindqvist", "Åsa Lindqvist", None, "Stockholm, Sweden", None),
    ("ahmed-ali", "أحمد علي", None, "Cairo, Egypt", None),
    ("ivan-petrov", "Иван Петров", "Globex", None, None),
    ("zoe-adams", "Zoe Adams", "acme", "Remote", None),
    ("UNSAL-SEC", None, "ÜNSAL BILIŞIM", "İstanbul, Türkiye", None),
    ("bkimminich-fan", None, None, None, None),
    ("0xdeadbeef", None, None, "Remote", None),
    ("ZAPbot", None, "@juice-labs", None, None),
]
N_MEMBERS = 170


def make_members():
    members = []
    used = set()

    def add(login, name, company, location, created_raw):
        assert login.lower() not in used, login
        used.add(login.lower())
        members.append({"login": login, "name": name, "company": company,
                        "location": location, "created_raw": created_raw})

    for m in SPECIAL_MEMBERS:
        add(*m)
    while len(members) < N_MEMBERS:
        f, l = rng.choice(FIRST), rng.choice(LAST)
        fa, la = slug(f), slug(l).replace("-", "")
        pattern = rng.randrange(7)
        login = [fa + la, fa + "-" + la, fa[0] + la, fa + str(rng.randint(1, 99)),
                 la + "-" + fa[0], fa + la + "-sec",
                 fa[0].upper() + "".join(w.capitalize() for w in slug(l).split("-"))
                 ][pattern]  # the last pattern gives mixed-case logins such as "PSharma"
        if not login or login.lower() in used:
            continue
        u = rng.random()
        name = f + " " + l
        if u < 0.06:
            name = None
        elif u < 0.12:
            name = name.lower()
        company = rng.choice(COMPANIES) if rng.random() < 0.55 else None
        location = rng.choice(LOCATIONS) if rng.random() < 0.6 else None
        add(login, name, company, location, None)

    # exercises: created_at ties, same created_at with different / identical updated_at
    generic = members[len(SPECIAL_MEMBERS):]
    tie_a = generic[3:6]
    tie_b = generic[10:12]
    for m in tie_a:
        m["created_raw"] = "2020-01-15T08:30:00Z"
    for m in tie_b:
        m["created_raw"] = "2021-06-01T00:00:00Z"

    avatar_ids = rng.sample(range(100000, 99999999), len(members))
    out = []
    for i, m in enumerate(members):
        if m["created_raw"]:
            created = parse_ts(m["created_raw"])
            created_s = m["created_raw"]
        else:
            created = rand_dt(dt(2009, 1, 1), dt(2026, 10, 31))
            created_s = ts(created)
        if m in tie_b:
            updated_s = "2024-02-02T02:02:02Z"
        else:
            updated_s = ts(later(created, 4000))
        r = {"login": m["login"]}
        if m["name"] is not None:
            r["name"] = m["name"]
        r["avatar_url"] = "https://avatars.githubusercontent.com/u/%d?v=4" % avatar_ids[i]
        if rng.random() < 0.7:
            r["url"] = "https://github.com/" + m["login"]
        if rng.random() < 0.5:
            r["bio"] = rng.choice(BIOS)
        if m["company"]:
            r["company"] = m["company"]
        if m["location"]:
            r["location"] = m["location"]
        if rng.random() < 0.4:
            r["title"] = rng.choice(TITLES)
        if rng.random() < 0.3:
            r["twitter_username"] = re.sub(r"[^A-Za-z0-9_]", "_", m["login"])[:15]
        r["followers_count"] = pareto(20, 1.1, 25000)
        r["following_count"] = pareto(10, 1.5, 900)
        r["public_repositories_count"] = pareto(8, 1.4, 600)
        r["created_at"] = created_s
        r["updated_at"] = updated_s
        r["_created"] = created
        out.append(r)
    # Mix the special members into the file (stable ids are file positions).
    rng.shuffle(out)
    return out


# --------------------------------------------------------------------------- repositories

# org, name, description (None: null, "": omitted), stars, forks, license, topics, languages,
# created, archived, pushed_at ("null": explicit null, None: omitted, else a datetime)
REPOS = [
    ("securecodeorg", "cheatsheets", "Concise, actionable application security guidance.",
     27400, 3900, "CC-BY-SA-4.0", ["security", "cheatsheet", "appsec"], ["Python", "Shell"],
     dt(2018, 12, 17, 10, 2, 11), False),
    ("securecodeorg", "asvs", "Application Security Verification Standard.",
     2500, 600, "CC-BY-SA-4.0", ["standard", "verification"], ["Python", "TeX"],
     dt(2015, 7, 2, 8, 0, 0), False),
    ("securecodeorg", "top-ten", "The Top 10 web application security risks.",
     2500, 600, "CC-BY-SA-4.0", ["top10", "awareness"], ["HTML", "JavaScript"],
     dt(2015, 7, 2, 8, 0, 0), False),  # exercises: created_at tie with asvs
    ("securecodeorg", "docs", None, 12, 9, "CC-BY-4.0", [], ["Markdown"],
     dt(2021, 1, 4, 9, 0, 0), False),
    ("juice-labs", "juice-shop", "Probably the most modern and sophisticated insecure web application",
     10000, 2500, "MIT", ["ctf", "hacking", "vulnerable", "owasp-like", "training"],
     ["TypeScript", "JavaScript", "HTML", "SCSS", "Dockerfile"],
     dt(2014, 9, 1, 20, 6, 41), False),
    ("juice-labs", "juice-shop-ctf", "Capture-the-flag environment setup tool for Juice Shop.",
     500, 100, "MIT", ["ctf", "cli"], ["TypeScript"], dt(2016, 10, 5, 9, 30, 0), False),
    ("juice-labs", "pwning-juice-shop", "Official companion guide to Juice Shop.",
     180, 95, "CC-BY-NC-ND-4.0", ["book", "guide"], ["Markdown"], dt(2017, 1, 20, 14, 0, 0),
     True),
    ("threatmodel-hub", "threat-dragon", "A threat modeling tool for diagrams and reports.",
     1050, 280, "Apache-2.0", ["threat-modeling", "diagram", "electron"],
     ["JavaScript", "Vue", "CSS"], dt(2017, 6, 20, 10, 11, 12), False),
    ("threatmodel-hub", "Docs", "", 40, 22, "CC-BY-4.0", ["documentation"], [],
     dt(2021, 1, 4, 9, 0, 0), False),  # exercises: repository name "docs" in two orgs
    ("appsec-tools", "zap-extensions", "Add-ons for the Zed Attack Proxy.",
     10500, 2900, "Apache-2.0", ["dast", "proxy", "scanner"], ["Java", "Kotlin", "JavaScript"],
     dt(2015, 3, 3, 3, 3, 3), False),
    ("appsec-tools", "dependency-check", "Software composition analysis for known vulnerable dependencies.",
     6900, 1300, "Apache-2.0", ["sca", "sbom", "cve"], ["Java", "Shell"],
     dt(2013, 6, 1, 18, 40, 2), False),
    ("appsec-tools", "amass", "In-depth attack surface mapping and asset discovery.",
     11800, 1900, "Apache-2.0", ["recon", "osint", "dns"], ["Go"],
     dt(2018, 7, 9, 22, 13, 54), False),
    ("SecDocs-Community", "wstg", "Web Security Testing Guide.",
     2500, 450, "CC-BY-SA-4.0", ["testing", "guide"], ["Markdown", "Python"],
     dt(2019, 1, 22, 16, 0, 0), False),
    ("SecDocs-Community", "mastg", "Mobile Application Security Testing Guide.",
     11400, 2300, "CC-BY-SA-4.0", ["mobile", "android", "ios"], ["Python", "Kotlin", "Swift"],
     dt(2016, 8, 30, 7, 50, 0), False),
    ("cryptoguard-dev", "cryptoguard", "Detects misuse of cryptographic APIs in Java and Android.",
     210, 35, "GPL-3.0", ["static-analysis", "crypto"], ["Java"],
     dt(2019, 11, 6, 11, 0, 0), False),
    ("vuln-research-collective", "advisories", None, 0, 0, "", [], [],
     dt(2020, 4, 2, 0, 0, 0), False),
    ("vuln-research-collective", "scratch", "Empty repository kept for experiments.", 3, 0, "",
     [], [], dt(2020, 4, 2, 0, 0, 0), False),
]


def make_repositories(issues_by_repo, contributors_by_repo):
    out = []
    for (org, name, desc, stars, forks, lic, topics, langs, created, archived) in REPOS:
        key = (org, name)
        r = {"organization": org, "name": name}
        if desc is None:
            r["description"] = None
        elif desc:
            r["description"] = desc
        r["url"] = "https://github.com/%s/%s" % (org, name)
        r["commits_count"] = 0 if name == "scratch" else max(20, stars // 3 + rng.randint(0, 4000))
        r["contributors_count"] = contributors_by_repo.get(key, 0) + (rng.randint(0, 120) if stars > 100 else 0)
        r["forks_count"] = forks
        r["open_issues_count"] = sum(1 for i in issues_by_repo.get(key, []) if i["state"] == "open")
        r["stars_count"] = stars
        r["subscribers_count"] = stars // 40 + rng.randint(0, 9)
        if archived:
            r["is_archived"] = True
        if lic:
            r["license"] = lic
        if topics:
            r["topics"] = topics
        if langs:
            r["languages"] = langs
        if name == "scratch":
            r["pushed_at"] = None  # exercises: nullable pushed_at (empty repository)
        elif name != "advisories":
            r["pushed_at"] = ts(later(max(created, dt(2025, 1, 1)), 600))
        r["created_at"] = ts(created)
        if (org, name) == ("securecodeorg", "top-ten"):
            r["updated_at"] = "2026-10-01T00:00:00Z"
        elif (org, name) == ("securecodeorg", "asvs"):
            r["updated_at"] = "2026-09-01T00:00:00Z"  # tie on created_at, -updated_at decides
        elif name == "scratch":
            r["updated_at"] = ts(created)
        else:
            r["updated_at"] = ts(later(max(created, dt(2025, 6, 1)), 500))
        if name != "scratch":  # exercises: no size (an empty repository)
            r["size"] = r["commits_count"] * 3 // 2 + 24
        out.append(r)
    return out


# --------------------------------------------------------------------------- contributors

CONTRIB_PLAN = {
    ("juice-labs", "juice-shop"): 25, ("appsec-tools", "zap-extensions"): 18,
    ("securecodeorg", "cheatsheets"): 15, ("appsec-tools", "dependency-check"): 10,
    ("threatmodel-hub", "threat-dragon"): 10, ("appsec-tools", "amass"): 8,
    ("securecodeorg", "asvs"): 8, ("securecodeorg", "top-ten"): 7,
    ("SecDocs-Community", "wstg"): 7, ("SecDocs-Community", "mastg"): 5,
    ("juice-labs", "pwning-juice-shop"): 4, ("juice-labs", "juice-shop-ctf"): 3,
    ("cryptoguard-dev", "cryptoguard"): 4, ("vuln-research-collective", "advisories"): 3,
    ("threatmodel-hub", "Docs"): 2, ("securecodeorg", "docs"): 1,
}


def make_contributors(core_logins):
    out = []
    for (org, repo), n in CONTRIB_PLAN.items():
        chosen = rng.sample(core_logins, n)
        counts = sorted((pareto(6, 0.9, 9000) + 1 for _ in chosen), reverse=True)
        for login, c in zip(chosen, counts):
            out.append({"organization": org, "repository": repo, "member": login,
                        "contributions_count": c})
    return out


# --------------------------------------------------------------------------- labels

LABELS = [
    # name, color, description, created, updated
    ("bug", "d73a4a", "Something isn't working", "2020-01-01T00:00:00Z", "2020-01-01T00:05:00Z"),
    ("enhancement", "a2eeef", "New feature or request", "2020-01-01T00:00:00Z", "2021-03-03T10:00:00Z"),
    ("documentation", "0075ca", "Improvements or additions to documentation", "2020-01-01T00:00:00Z", "2021-03-03T10:00:00Z"),
    ("good first issue", "7057ff", "Good for newcomers", "2020-02-14T12:00:00Z", "2022-05-05T05:05:05Z"),
    ("help wanted", "008672", "Extra attention is needed", "2020-02-14T12:00:00Z", "2020-02-14T12:30:00Z"),
    ("question", "D876E3", "Further information is requested", "2020-03-01T09:00:00Z", "2023-01-10T08:00:00Z"),
    ("security", "D73A4A", "Security-relevant change", "2020-06-30T18:20:00Z", "2024-04-04T04:04:04Z"),
    ("wontfix", "ffffff", "This will not be worked on", "2020-03-01T09:00:00Z", "2020-03-02T09:00:00Z"),
    ("duplicate", "cfd3d7", "This issue or pull request already exists", "2020-03-01T09:00:00Z", "2023-01-10T08:00:00Z"),
    ("dependencies", "0366d6", "Pull requests that update a dependency file", "2021-07-19T07:19:00Z", "2024-11-11T11:11:11Z"),
    ("needs triage", "FBCA04", "Not yet reviewed by a maintainer", "2021-09-09T09:09:09Z", "2025-01-15T15:00:00Z"),
    ("Priority: High", "b60205", "Fix before the next release", "2022-01-10T10:00:00Z", "2025-02-20T20:20:20Z"),
    ("priority: low", "c2e0c6", "Nice to have", "2022-01-10T10:00:00Z", "2022-01-10T10:10:00Z"),
    ("UI/UX", "fbca04", "User interface and experience", "2022-08-08T08:08:08.500000Z", "2025-06-01T12:00:00Z"),
    ("performance", "0E8A16", "Speed and resource usage", "2023-04-20T16:45:00Z", "2025-06-01T12:00:00Z"),
    ("translation", "0e8a16", "Localisation of texts", "2023-04-20T16:45:00Z", "2024-12-24T18:00:00Z"),
]


def make_labels():
    out = []
    for name, color, desc, c, u in LABELS:
        r = {"name": name, "color": color}
        if desc:
            r["description"] = desc
        r["created_at"] = c
        r["updated_at"] = u
        out.append(r)
    return out


# --------------------------------------------------------------------------- issues

ISSUE_PLAN = [
    (("juice-labs", "juice-shop"), 80), (("appsec-tools", "zap-extensions"), 45),
    (("securecodeorg", "cheatsheets"), 30), (("threatmodel-hub", "threat-dragon"), 25),
    (("appsec-tools", "dependency-check"), 22), (("SecDocs-Community", "wstg"), 15),
    (("cryptoguard-dev", "cryptoguard"), 12), (("threatmodel-hub", "Docs"), 10),
    (("securecodeorg", "docs"), 8), (("appsec-tools", "amass"), 3),
]
COMPONENTS = {
    "juice-shop": ["scoreboard", "login page", "basket API", "product search", "challenge tracker",
                   "Docker image", "i18n loader", "chatbot", "B2B order endpoint"],
    "zap-extensions": ["active scanner", "spider", "HUD", "OpenAPI add-on", "passive scan rules",
                       "report generator", "GraphQL add-on", "automation framework"],
    "cheatsheets": ["XSS Prevention cheat sheet", "Password Storage cheat sheet",
                    "JWT cheat sheet", "index page", "SSRF cheat sheet"],
    "threat-dragon": ["diagram editor", "PDF report", "desktop app", "GitHub integration",
                      "STRIDE rules engine"],
    "dependency-check": ["NVD updater", "Maven plugin", "Gradle plugin", "HTML report",
                         "Node audit analyzer", "CLI"],
    "wstg": ["WSTG-INPV-05", "checklist", "PDF build", "WSTG-ATHN-01"],
    "cryptoguard": ["rule engine", "Android analyzer", "CLI", "SARIF output"],
    "Docs": ["STRIDE page", "getting started", "navigation"],
    "docs": ["landing page", "style guide"],
    "amass": ["enum subcommand", "config parser", "graph database"],
}
FEATURES = ["SARIF export", "dark mode", "OAuth 2.0 login", "SBOM import", "HTTP/3",
            "WebSocket scanning", "Kubernetes manifests", "Arabic translation", "CSV export",
            "rate limiting", "offline mode"]
ACTIONS = ["the basket is empty", "the locale is set to tr-TR", "uploading a 0-byte file",
           "running behind a reverse proxy", "the session expires", "using Node 22",
           "clicking twice on submit", "the target returns HTTP 304"]
VULNS = ["Stored XSS", "SQL injection", "Path traversal", "Prototype pollution", "SSRF",
         "Open redirect", "XXE"]
DEPS = ["express", "jsonwebtoken", "log4j-core", "jackson-databind", "sanitize-html",
        "lodash", "angular", "commons-text"]

SPECIAL_TITLES = [
    'XSS via <script>alert("1")</script> in the search field',
    "Support “smart quotes” & ampersands in product names",
    "日本語のドキュメントを追加する",
    "Emoji in challenge names 🍹 break the scoreboard",
    "Crash on path C:\\Users\\zoë\\juice-shop with backslashes",
]


def issue_context():
    """The random details one issue's title and body share."""
    return {"action": rng.choice(ACTIONS), "feature": rng.choice(FEATURES),
            "vuln": rng.choice(VULNS), "dep": rng.choice(DEPS),
            "old": "%d.%d.%d" % (rng.randint(1, 5), rng.randint(0, 20), rng.randint(0, 9)),
            "new": "%d.%d.%d" % (rng.randint(6, 9), rng.randint(0, 20), rng.randint(0, 9))}


def issue_body(repo, comp, kind, slugged, ctx):
    if kind == 0:
        return ("### Describe the bug\n%s misbehaves when %s.\n\n"
                "### Steps to reproduce\n1. Start the app with `npm start`\n"
                "2. Open `/#/search?q=apple`\n3. See the stack trace below\n\n"
                "### Expected behavior\nNo error.\n\n"
                "```text\nTypeError: Cannot read properties of undefined (reading 'id')\n"
                "    at BasketService.add (basket.service.ts:42:17)\n```\n\n"
                "See [the troubleshooting guide](https://example.org/docs/%s) for details.\n"
                % (comp[0].upper() + comp[1:], ctx["action"], slugged))
    if kind == 1:
        return ("## Summary\nIt would be great if the %s supported **%s**.\n\n"
                "## Why\n- users ask for it regularly\n- other tools already do it\n"
                "- it makes CI integration easier\n\n"
                "## Proposal\n```yaml\nreport:\n  format: sarif\n  output: ./reports\n```\n\n"
                "> Happy to open a PR if a maintainer agrees on the approach.\n"
                % (comp, ctx["feature"]))
    if kind == 2:
        return ("**Type:** %s\n\n**Severity:** %s\n\n| Field | Value |\n|---|---|\n| Component | %s |\n"
                "| Version | %d.%d.%d |\n| CWE | [CWE-%d](https://cwe.mitre.org/data/definitions/%d.html) |\n\n"
                "<details>\n<summary>Proof of concept</summary>\n\n"
                "```http\nGET /rest/products/search?q=%%27))--%%20 HTTP/1.1\nHost: localhost:3000\n```\n\n"
                "</details>\n"
                % (ctx["vuln"], rng.choice(["low", "medium", "high", "critical"]), comp,
                   rng.randint(1, 17), rng.randint(0, 9), rng.randint(0, 20),
                   rng.choice([79, 89, 22, 918, 611]), rng.choice([79, 89, 22, 918, 611])))
    if kind == 3:
        return ("Bumps `%s` from %s to %s.\n\n- [x] changelog reviewed\n"
                "- [x] tests pass\n- [ ] release notes updated\n\n"
                "_This issue was opened automatically._\n" % (ctx["dep"], ctx["old"], ctx["new"]))
    if kind == 4:
        return "Same as the title. Reproducible on `main` (%s).\n" % repo
    return ("# Question\n\nHow do I configure the %s?\n\n1. I read the README\n"
            "2. I searched the issues\n\nThanks! 🙏\n" % comp)


def issue_title(repo, comp, kind, ctx):
    if kind == 0:
        return "%s crashes when %s" % (comp[0].upper() + comp[1:], ctx["action"])
    if kind == 1:
        return "Add support for %s in the %s" % (ctx["feature"], comp)
    if kind == 2:
        return "[Security] %s in %s" % (ctx["vuln"], comp)
    if kind == 3:
        return "Update dependency %s to v%s" % (ctx["dep"], ctx["new"])
    if kind == 4:
        return rng.choice(["Fix typo in %s", "Broken link in %s", "Improve wording of %s",
                           "Flaky test in %s"]) % comp
    return "Question: how to configure the %s?" % comp


def make_issues(member_logins, label_names):
    issues = []
    for (org, repo), n in ISSUE_PLAN:
        created_list = sorted(rand_dt(dt(2021, 1, 1), dt(2026, 11, 15)) for _ in range(n))
        number = rng.randint(1, 40)
        for created in created_list:
            number += rng.randint(1, 9)
            issues.append({"organization": org, "repository": repo, "number": number,
                           "_created": created})
    # exercises: created_at ties between issues of different repositories; the first
    # pairs differ in updated_at (tie-breaker -updated_at), the last two share both.
    picks = rng.sample(range(len(issues)), 16)
    tie_pairs = [(picks[2 * k], picks[2 * k + 1]) for k in range(8)]
    for a, b in tie_pairs:
        issues[b]["_created"] = issues[a]["_created"]

    special_titles = list(SPECIAL_TITLES)
    for idx, iss in enumerate(issues):
        org, repo, number = iss["organization"], iss["repository"], iss["number"]
        created = iss["_created"]
        age_days = (NOW - created).days
        closed = rng.random() < (0.25 + min(age_days, 1500) / 2500)
        updated = later(created, 240)
        closed_at = None
        if closed:
            closed_at = later(created, 200)
            if closed_at > updated:
                updated = later(closed_at, 3, 1)
        comp = rng.choice(COMPONENTS[repo])
        kind = rng.randrange(6)
        ctx = issue_context()
        title = issue_title(repo, comp, kind, ctx)
        if repo == "juice-shop" and special_titles and rng.random() < 0.2:
            title = special_titles.pop(0)
            kind = 4
        iss.update({"_updated": updated, "_closed": closed_at, "title": title,
                    "state": "closed" if closed else "open", "_kind": kind, "_comp": comp,
                    "_ctx": ctx})
    # identical created_at and updated_at for the last two tie pairs
    for a, b in tie_pairs[-2:]:
        ia, ib = issues[a], issues[b]
        ib["_updated"] = ia["_updated"]
        if ib["_closed"] is not None and ib["_closed"] > ib["_updated"]:
            ib["_closed"] = ib["_updated"]
    for a, b in tie_pairs[:-2]:
        ia, ib = issues[a], issues[b]
        if ib["_updated"] == ia["_updated"]:
            ib["_updated"] += timedelta(seconds=1)

    out = []
    for iss in issues:
        org, repo, number = iss["organization"], iss["repository"], iss["number"]
        r = {"organization": org, "repository": repo, "number": number, "title": iss["title"],
             "state": iss["state"]}
        u = rng.random()
        if u < 0.9:
            r["body"] = issue_body(repo, iss["_comp"], iss["_kind"], slug(iss["_comp"]), iss["_ctx"])
        u = rng.random()
        if u < 0.04:
            r["author"] = None  # deleted account
        elif u >= 0.07:
            r["author"] = rng.choice(member_logins)
        # else: author omitted (same as null)
        r["url"] = "https://github.com/%s/%s/issues/%d" % (org, repo, number)
        k = rng.choice([0, 0, 1, 1, 1, 2, 2, 3])
        if iss["_kind"] == 2:
            labs = ["security"] + rng.sample(label_names, k)
        elif iss["_kind"] == 3:
            labs = ["dependencies"]
        else:
            labs = rng.sample(label_names, k)
        labs = list(dict.fromkeys(labs))
        if labs:
            r["labels"] = labs
        r["created_at"] = ts(iss["_created"])
        r["updated_at"] = ts(iss["_updated"])
        if iss["_closed"] is not None:
            r["closed_at"] = ts(iss["_closed"])
        elif rng.random() < 0.5:
            r["closed_at"] = None
        r["_created"] = iss["_created"]
        out.append(r)
    return out


# --------------------------------------------------------------------------- milestones

MILESTONE_PLAN = [
    (("juice-labs", "juice-shop"), ["v15.0.0", "v16.0.0", "v16.1.0", "v17.0.0", "Backlog", "Hacktoberfest 2026"]),
    (("appsec-tools", "zap-extensions"), ["2.14.0", "2.15.0", "2.16.0", "2.17.0", "Triage"]),
    (("securecodeorg", "cheatsheets"), ["Q1 2025", "Q2 2025", "Q1 2027"]),
    (("appsec-tools", "dependency-check"), ["9.0.0", "10.0.0", "11.0.0"]),
    (("threatmodel-hub", "threat-dragon"), ["v2.2", "v2.3", "v3.0"]),
    (("SecDocs-Community", "wstg"), ["v5.0", "v5.1"]),
    (("securecodeorg", "asvs"), ["5.0 release", "5.1 backlog"]),
    (("cryptoguard-dev", "cryptoguard"), ["0.2.0", "1.0.0"]),
    (("appsec-tools", "amass"), ["v4.3", "v5.0"]),
]


def make_milestones(member_logins):
    out = []
    tie_created = dt(2024, 1, 8, 9, 0, 0)
    tie_repos = {("juice-labs", "juice-shop"), ("appsec-tools", "zap-extensions"),
                 ("securecodeorg", "cheatsheets")}
    for (org, repo), titles in MILESTONE_PLAN:
        created_list = [rand_dt(dt(2021, 6, 1), dt(2026, 9, 1)) for _ in titles]
        if (org, repo) in tie_repos:
            # exercises: created_at ties across repositories, -updated_at breaks them
            created_list[rng.randrange(len(created_list))] = tie_created
        created_list.sort()
        for i, (title, created) in enumerate(zip(titles, created_list)):
            number = i + 1 + (1 if i >= 3 else 0)  # a gap: milestone 4 was deleted
            is_open = i >= len(titles) - 2 or title in ("Backlog", "Triage")
            r = {"organization": org, "repository": repo, "number": number, "title": title,
                 "state": "open" if is_open else "closed"}
            if rng.random() < 0.8:
                r["body"] = rng.choice([
                    "Everything planned for **%s**.\n\n- bug fixes\n- dependency updates\n" % title,
                    "Tracking milestone. See the [roadmap](https://example.org/roadmap).\n",
                    "Issues we want to close before %s.\n" % title,
                    "### Goals\n1. Stabilise the API\n2. Improve docs\n",
                ])
            u = rng.random()
            if u < 0.1:
                r["author"] = None
            elif u < 0.95:
                r["author"] = rng.choice(member_logins)
            r["url"] = "https://github.com/%s/%s/milestone/%d" % (org, repo, number)
            if title == "Hacktoberfest 2026":
                r["open_issues_count"] = 0  # exercises: no issues at all (progress 0)
                r["closed_issues_count"] = 0
            elif title == "Triage":
                pass  # both counts omitted: 0
            elif is_open:
                r["open_issues_count"] = rng.randint(1, 40)
                r["closed_issues_count"] = rng.randint(0, 60)
            else:
                r["open_issues_count"] = 0
                r["closed_issues_count"] = rng.randint(3, 120)
            if title in ("Backlog", "Triage", "5.1 backlog"):
                if rng.random() < 0.5:
                    r["due_on"] = None
            else:
                due = (created + timedelta(days=rng.randint(30, 200))).replace(hour=7, minute=0, second=0)
                r["due_on"] = ts(due)
            r["created_at"] = ts(created)
            r["updated_at"] = ts(later(created, 300))
            out.append(r)
    return out


# --------------------------------------------------------------------------- releases

# tag, kind ("" published, "pre", "draft" (unpublished), "unpub" (not a draft, unpublished))
RELEASE_PLAN = [
    (("juice-labs", "juice-shop"), [("v1.0.0", ""), ("V1.0.0", ""), ("v14.5.1", ""),
                                    ("v15.0.0", ""), ("v15.1.0", ""), ("v16.0.0-rc.1", "pre"),
                                    ("v16.0.0", ""), ("v16.0.1", ""), ("v16.1.0", ""),
                                    ("v17.0.0", "draft")]),
    (("appsec-tools", "zap-extensions"), [("release/2.0", ""), ("release/2.1", ""),
                                          ("v2.14.0", ""), ("v2.15.0", ""),
                                          ("w2025-01-06", "pre")]),
    (("appsec-tools", "dependency-check"), [("v9.0.0", ""), ("v9.0.9", ""), ("v10.0.0", ""),
                                            ("v10.0.1", ""), ("v10.0.2+hotfix.1", ""),
                                            ("v11.0.0-beta", "pre")]),
    (("threatmodel-hub", "threat-dragon"), [("v1.0/rc1", "pre"), ("v1.0", ""), ("v2.0.0", ""),
                                            ("v2.1.0", ""), ("v2.2.0", ""), ("v2.3.0", ""),
                                            ("v2.4.0-draft", "draft")]),
    (("appsec-tools", "amass"), [("v3.23.0", ""), ("v4.0.0", ""), ("v4.1.0", ""), ("v4.2.0", "")]),
    (("securecodeorg", "asvs"), [("v4.0.3", ""), ("v5.0.0-rc1", "pre"), ("v5.0.0", "")]),
    (("securecodeorg", "top-ten"), [("2021", ""), ("2025", "")]),
    (("SecDocs-Community", "wstg"), [("v4.2", ""), ("v5.0-preview", "unpub")]),
    (("SecDocs-Community", "mastg"), [("v1.7.0", ""), ("v2.0.0", "")]),
    (("juice-labs", "juice-shop-ctf"), [("v10.0.0", ""), ("v11.0.0", "")]),
    (("cryptoguard-dev", "cryptoguard"), [("0.1.0", ""), ("0.2.0", "")]),
    (("juice-labs", "pwning-juice-shop"), [("v16.0.0", "")]),
]


RELEASE_PRODUCT = {
    "juice-shop": "Juice Shop", "zap-extensions": "ZAP Add-ons",
    "dependency-check": "Dependency Check", "threat-dragon": "Threat Dragon", "amass": "Amass",
    "asvs": "ASVS", "top-ten": "Top 10", "wstg": "WSTG", "mastg": "MASTG",
    "juice-shop-ctf": "Juice Shop CTF", "cryptoguard": "CryptoGuard",
    "pwning-juice-shop": "Pwning Juice Shop",
}


def make_releases(member_logins):
    out = []
    repo_created = {(r[0], r[1]): r[8] for r in REPOS}
    for (org, repo), tags in RELEASE_PLAN:
        lo = max(repo_created[(org, repo)], dt(2016, 1, 1))
        created_list = sorted(rand_dt(lo, dt(2026, 11, 1)) for _ in tags)
        for (tag, kind), created in zip(tags, created_list):
            if tag in ("v1.0.0", "V1.0.0"):
                created = dt(2015, 2, 1, 12, 0, 0)  # exercises: created_at tie, case-only tags
            r = {"organization": org, "repository": repo, "tag_name": tag}
            if rng.random() < 0.85:
                r["name"] = rng.choice([tag, "%s %s" % (RELEASE_PRODUCT[repo], tag.lstrip("vV")),
                                        "Release %s" % tag])
            if rng.random() < 0.8:
                r["description"] = rng.choice([
                    "## What's changed\n\n- Fixed %d bugs\n- Updated dependencies\n\n"
                    "**Full changelog**: https://github.com/%s/%s/commits/%s\n"
                    % (rng.randint(2, 40), org, repo, tag),
                    "### Breaking changes\n\n* Node.js 18 is no longer supported\n\n"
                    "### Features\n\n* New `--format sarif` option\n",
                    "Maintenance release. See `CHANGELOG.md`.\n",
                ])
            u = rng.random()
            if u < 0.08:
                r["author"] = None
            elif u < 0.95:
                r["author"] = rng.choice(member_logins)
            r["url"] = "https://github.com/%s/%s/releases/tag/%s" % (org, repo, tag)
            if kind == "draft":
                r["is_draft"] = True
            elif rng.random() < 0.5:
                r["is_draft"] = False
            if kind == "pre":
                r["is_pre_release"] = True
            if kind == "unpub":
                r["published_at"] = None  # drafts omit it instead (same meaning)
            else:
                r["published_at"] = ts(later(created, 2, 30))
            r["created_at"] = ts(created)
            r["_created"] = created
            out.append(r)
    # exercises: identical published_at with different created_at (-created_at breaks it)
    by_tag = {(r["repository"], r["tag_name"]): r for r in out}
    a, b = by_tag[("amass", "v4.2.0")], by_tag[("zap-extensions", "v2.15.0")]
    shared = max(parse_ts(a["created_at"]), parse_ts(b["created_at"])) + timedelta(hours=6)
    a["published_at"] = b["published_at"] = ts(min(shared, NOW))
    # exercises: identical created_at across repositories
    c, d = by_tag[("mastg", "v2.0.0")], by_tag[("juice-shop-ctf", "v11.0.0")]
    d["created_at"] = c["created_at"]
    d["_created"] = c["_created"]
    d["published_at"] = ts(later(c["_created"], 1, 30))
    return out


# --------------------------------------------------------------------------- chapters

CHAPTERS = [
    # name, country, region, lat, lon
    ("London", "United Kingdom", "Europe", 51.5074, -0.1278),
    ("Manchester", "United Kingdom", "Europe", 53.4808, -2.2426),
    ("Edinburgh", "United Kingdom", "Europe", 55.9533, -3.1883),
    ("Bangalore", "India", "Asia", 12.9716, 77.5946),
    ("Delhi", "India", "Asia", 28.6139, 77.209),
    ("Mumbai", "India", "Asia", 19.076, 72.8777),
    ("Pune", "India", "Asia", 18.5204, 73.8567),
    ("Hyderabad", "India", "Asia", 17.385, 78.4867),
    ("São Paulo", "Brazil", "South America", -23.5505, -46.6333),
    ("Rio de Janeiro", "Brazil", "South America", -22.9068, -43.1729),
    ("Brasília", "Brazil", "South America", -15.7939, -47.8828),
    ("New York City", "United States", "North America", 40.7128, -74.006),
    ("San Francisco", "United States", "North America", 37.7749, -122.4194),
    ("Austin", "United States", "North America", 30.2672, -97.7431),
    ("Boston", "United States", "North America", 42.3601, -71.0589),
    ("Seattle", "United States", "North America", 47.6062, -122.3321),
    ("Zürich", "Switzerland", "Europe", 47.3769, 8.5417),
    ("Geneva", "Switzerland", "Europe", 46.2044, 6.1432),
    ("Tokyo", "Japan", "Asia", 35.6762, 139.6503),
    ("Osaka", "Japan", "Asia", 34.6937, 135.5023),
    ("Lagos", "Nigeria", "Africa", 6.5244, 3.3792),
    ("Abuja", "Nigeria", "Africa", 9.0765, 7.3986),
    ("Nairobi", "Kenya", "Africa", -1.2921, 36.8219),
    ("Cape Town", "South Africa", "Africa", -33.9249, 18.4241),
    ("Johannesburg", "South Africa", "Africa", -26.2041, 28.0473),
    ("Sydney", "Australia", "Oceania", -33.8688, 151.2093),
    ("Melbourne", "Australia", "Oceania", -37.8136, 144.9631),
    ("Auckland", "New Zealand", "Oceania", -36.8485, 174.7633),
    ("Berlin", "Germany", "Europe", 52.52, 13.405),
    ("Munich", "Germany", "Europe", 48.1351, 11.582),
    ("Paris", "France", "Europe", 48.8566, 2.3522),
    ("Madrid", "Spain", "Europe", 40.4168, -3.7038),
    ("Barcelona", "Spain", "Europe", 41.3874, 2.1686),
    ("Stockholm", "Sweden", "Europe", 59.3293, 18.0686),
    ("Kraków", "Poland", "Europe", 50.0647, 19.945),
    ("Toronto", "Canada", "North America", 43.6532, -79.3832),
    ("Montréal", "Canada", "North America", 45.5019, -73.5674),
    ("Mexico City", "Mexico", "North America", 19.4326, -99.1332),
    ("Buenos Aires", "Argentina", "South America", -34.6037, -58.3816),
    ("Quito", "Ecuador", "South America", -0.1807, -78.4678),
    ("Singapore", "Singapore", "Asia", 1.3521, 103.8198),
    ("Tel Aviv", "Israel", "Asia", 32.0853, 34.7818),
    ("İstanbul", "Türkiye", "Europe", 41.0082, 28.9784),
]
INACTIVE_CHAPTERS = {"Montréal", "Brasília", "Osaka"}
NO_COORD_CHAPTERS = {"Hyderabad", "Austin", "Abuja", "Quito"}
EXTERNAL_LEADERS = ["Maria Gonçalves", "John O'Neil", "Chen Jing", "Fatou Diallo", "Rafael Ortiz",
                    "Hannah Becker", "Arnav Mehta", "Sophie Martin", "Kenta Watanabe",
                    "Olumide Bakare", "Grace Mwangi", "Lars Eriksson"]


def make_leaders(members_by_login, logins, n):
    leaders = []
    for _ in range(n):
        if rng.random() < 0.65:
            login = rng.choice(logins)
            m = members_by_login[login]
            leaders.append({"name": m.get("name") or login, "login": login})
        else:
            name = rng.choice(EXTERNAL_LEADERS)
            if any(l["name"] == name for l in leaders):
                continue
            leaders.append({"name": name, "login": None} if rng.random() < 0.5 else {"name": name})
    # no member twice
    seen, out = set(), []
    for l in leaders:
        k = (l.get("login") or "").lower() or "name:" + l["name"]
        if k not in seen:
            seen.add(k)
            out.append(l)
    return out


def make_chapters(members_by_login, leader_logins):
    out = []
    tie = dt(2019, 4, 1, 0, 0, 0)
    for i, (name, country, region, lat, lon) in enumerate(CHAPTERS):
        key = "www-chapter-" + slug(name)
        if name in ("Pune", "Lagos", "Kraków", "Quito"):
            created = tie  # exercises: created_at ties (the migration day)
        else:
            created = rand_dt(dt(2010, 1, 1), dt(2025, 6, 1))
        r = {"key": key, "name": name}
        if name in INACTIVE_CHAPTERS:
            r["is_active"] = False
        elif i % 3 == 0:
            r["is_active"] = True
        r["country"] = country
        r["region"] = region
        if name in NO_COORD_CHAPTERS:
            if name != "Quito":
                r["latitude"] = None
                r["longitude"] = None
            # Quito: both omitted (null)
        else:
            r["latitude"] = lat
            r["longitude"] = lon
        r["summary"] = rng.choice([
            "The %s chapter meets monthly to talk about application security." % name,
            "Local community of developers, testers and defenders in %s." % name,
            "Free and open meetups, workshops and CTF nights in %s, %s." % (name, country),
        ])
        r["url"] = "https://community.example.org/%s/" % key
        leaders = make_leaders(members_by_login, leader_logins, rng.choice([0, 1, 2, 2, 3]))
        if leaders:
            r["leaders"] = leaders
        r["created_at"] = ts(created)
        r["updated_at"] = ts(later(created, 700))
        out.append(r)
    return out


# --------------------------------------------------------------------------- committees

COMMITTEES = [
    ("Chapter Committee", "Supports chapter leaders and approves new chapters.", True),
    ("Project Committee", "Reviews project applications and level promotions.", True),
    ("Education and Training Committee", "Curates training material for the community.", True),
    ("Events Committee", "Plans the global conferences and regional AppSec Days.", True),
    ("Membership Committee", "Represents members and improves member benefits.", True),
    ("Compliance Committee", "Merged into the Governance Committee in 2023.", False),
    ("Diversity and Inclusion Committee", "Makes the community welcoming for everyone.", True),
    ("Governance Committee", "Keeps the bylaws and policies up to date.", True),
]


def make_committees(members_by_login, leader_logins):
    out = []
    for i, (name, desc, active) in enumerate(COMMITTEES):
        created = dt(2016, 1, 1) if i in (0, 1) else rand_dt(dt(2016, 1, 1), dt(2024, 1, 1))
        r = {"key": "www-committee-" + slug(name.replace(" Committee", "")), "name": name}
        if not active:
            r["is_active"] = False
        r["description"] = desc + "\n\nMeetings are public; minutes are published on the wiki."
        r["summary"] = desc
        r["url"] = "https://community.example.org/%s/" % r["key"]
        r["leaders"] = make_leaders(members_by_login, leader_logins, rng.choice([1, 2, 3]))
        r["created_at"] = ts(created)
        r["updated_at"] = ts(later(created, 900))
        out.append(r)
    return out


# --------------------------------------------------------------------------- projects

PROJECTS = [
    # name, level, type, repositories, active
    ("Juice Shop", "flagship", "tool", [("juice-labs", "juice-shop"), ("juice-labs", "juice-shop-ctf")], True),
    ("ZAP", "flagship", "tool", [("appsec-tools", "zap-extensions")], True),
    ("Dependency Check", "flagship", "tool", [("appsec-tools", "dependency-check")], True),
    ("Cheat Sheet Series", "flagship", "documentation", [("securecodeorg", "cheatsheets")], True),
    ("Application Security Verification Standard", "flagship", "documentation", [("securecodeorg", "asvs")], True),
    ("Top 10", "flagship", "documentation", [("securecodeorg", "top-ten")], True),
    ("Web Security Testing Guide", "flagship", "documentation", [("SecDocs-Community", "wstg")], True),
    ("Mobile Application Security", "flagship", "documentation", [("SecDocs-Community", "mastg")], True),
    ("Amass", "flagship", "tool", [("appsec-tools", "amass")], True),
    ("DefectDojo", "flagship", "tool", [], True),
    ("SAMM", "flagship", "documentation", [], True),
    ("Dependency Track", "flagship", "tool", [], True),
    ("Threat Dragon", "production", "tool", [("threatmodel-hub", "threat-dragon")], True),
    ("Pwning Juice Shop", "production", "documentation", [("juice-labs", "pwning-juice-shop")], True),
    ("CycloneDX", "production", "code", [], True),
    ("WebGoat", "production", "code", [], True),
    ("Security Shepherd", "production", "tool", [], True),
    ("ModSecurity Core Rule Set", "production", "code", [], True),
    ("Java HTML Sanitizer", "production", "code", [], True),
    ("Cornucopia", "production", "other", [], True),
    ("Enterprise Security API", "production", "code", [], False),
    ("Vulnerability Advisories Archive", "lab", "other", [("vuln-research-collective", "advisories"),
                                                          ("vuln-research-collective", "scratch")], True),
    ("Threat Modeling Docs", "lab", "documentation", [("threatmodel-hub", "Docs")], True),
    ("Security Knowledge Framework", "lab", "documentation", [], True),
    ("API Security Top 10", "lab", "documentation", [], True),
    ("Threat Model Cookbook", "lab", "other", [], True),
    ("Mobile Top 10", "lab", "documentation", [], True),
    ("Guía de Seguridad Móvil", "lab", "documentation", [], True),
    ("WebScarab", "lab", "tool", [], False),
    ("CryptoGuard", "incubator", "code", [("cryptoguard-dev", "cryptoguard")], True),
    ("Secure Coding Docs", "incubator", "documentation", [("securecodeorg", "docs")], True),
    ("Nettacker", "incubator", "tool", [], True),
    ("Honeypot", "incubator", "code", [], True),
    ("SecureTea", "incubator", "tool", [], True),
    ("AppSec Podcast", "incubator", "other", [], True),
    ("Software Component Verification Standard", "incubator", "documentation", [], True),
    ("Serverless Goat", "demo", "code", [], True),
    ("Damn Vulnerable Web Sockets", "demo", "code", [], True),
    ("Bug Logging Tool", "demo", "tool", [], True),
    ("Snakes and Ladders", "demo", "other", [], True),
]


def make_projects(members_by_login, leader_logins):
    out = []
    for i, (name, level, typ, repos, active) in enumerate(PROJECTS):
        if name in ("Top 10", "SAMM", "Nettacker"):
            created = dt(2020, 2, 2, 20, 20, 20)  # exercises: created_at ties
        else:
            created = rand_dt(dt(2012, 1, 1), dt(2025, 9, 1))
        r = {"key": "www-project-" + slug(name), "name": name}
        if not active:
            r["is_active"] = False
        r["level"] = level
        r["type"] = typ
        r["description"] = ("%s is a %s-level %s project of the community.\n\n"
                            "It is maintained by volunteers; contributions are welcome."
                            % (name, level, typ))
        r["summary"] = "%s: a %s project." % (name, typ)
        r["url"] = "https://community.example.org/%s/" % r["key"]
        leaders = make_leaders(members_by_login, leader_logins, rng.choice([1, 1, 2, 3]))
        if leaders:
            r["leaders"] = leaders
        if repos:
            r["repositories"] = [{"organization": o, "name": n} for o, n in repos]
        r["created_at"] = ts(created)
        r["updated_at"] = ts(later(created, 800))
        out.append(r)
    return out


# --------------------------------------------------------------------------- events

EVENTS = [
    # name, category, start, end ("null" / None omitted), lat, lon, url?, description?
    ("Global AppSec EU 2019 Tel Aviv", "global", "2019-05-27", "2019-05-31", 32.0853, 34.7818, True, True),
    ("Global AppSec US 2019 Washington DC", "global", "2019-09-09", "2019-09-13", 38.9072, -77.0369, True, True),
    ("AppSec Days Pune 2019", "appsec_days", "2019-11-15", "2019-11-16", 18.5204, 73.8567, True, True),
    ("Global AppSec 2020 Virtual", "global", "2020-06-15", "2020-06-19", None, None, True, True),
    ("AppSec Days LatAm 2020 Online", "appsec_days", "2020-10-05", None, None, None, True, False),
    ("BSides London 2021", "partner", "2021-12-10", "2021-12-10", 51.5074, -0.1278, True, True),
    ("Global AppSec US 2021 Virtual", "global", "2021-10-25", "2021-10-29", None, None, True, True),
    ("AppSec Days Tokyo 2022", "appsec_days", "2022-03-10", "2022-03-11", 35.6762, 139.6503, True, True),
    ("Global AppSec EU 2022 Copenhagen", "global", "2022-06-06", "2022-06-10", 55.6761, 12.5683, True, True),
    ("Chapter Leaders Summit 2022", "other", "2022-06-06", "2022-06-07", 55.6761, 12.5683, False, True),
    ("DevSecCon Singapore 2023", "partner", "2023-02-20", "2023-02-21", 1.3521, 103.8198, True, False),
    ("Global AppSec Lisbon 2024", "global", "2024-06-24", "2024-06-28", 38.7223, -9.1393, True, True),
    ("AppSec Days Nairobi 2024", "appsec_days", "2024-08-15", "2024-08-16", -1.2921, 36.8219, True, True),
    ("Global AppSec San Francisco 2024", "global", "2024-09-23", "2024-09-27", 37.7749, -122.4194, True, True),
    ("Nullcon Goa 2025", "partner", "2025-03-01", "2025-03-02", 15.2993, 74.124, True, True),
    ("Global AppSec EU 2025 Barcelona", "global", "2025-05-26", "2025-05-30", 41.3874, 2.1686, True, True),
    ("Community Hackathon 2025", "other", "2025-07-12", "null", None, None, False, False),
    ("AppSec Days Buenos Aires 2026", "appsec_days", "2026-04-20", "2026-04-21", -34.6037, -58.3816, True, True),
    ("Global AppSec US 2026 Washington DC", "global", "2026-11-02", "2026-11-06", 38.9072, -77.0369, True, True),
    ("AppSec Days Lagos 2027", "appsec_days", "2027-03-18", "2027-03-19", 6.5244, 3.3792, True, True),
    ("Global AppSec EU 2027 Vienna", "global", "2027-05-24", "2027-05-28", 48.2082, 16.3738, True, True),
    ("BSides Zürich 2027", "partner", "2027-09-10", "2027-09-10", 47.3769, 8.5417, True, True),
    ("Chapter Leaders Summit 2027", "other", "2027-09-10", "2027-09-12", 47.3769, 8.5417, True, True),
    ("Community Hackathon 2027", "other", "2027-09-10", "null", None, None, False, True),
    ("Global AppSec US 2027 Austin", "global", "2027-11-01", "2027-11-05", 30.2672, -97.7431, False, False),
    ("AppSec Days São Paulo 2028", "appsec_days", "2028-04-05", "2028-04-06", -23.5505, -46.6333, True, True),
    ("Global AppSec APAC 2028 Sydney", "global", "2028-08-14", "2028-08-18", -33.8688, 151.2093, True, True),
    ("AppSec Village at DEF CON 2029", "partner", "2029-08-09", "2029-08-12", 36.1147, -115.1728, True, True),
    ("Virtual Training Week 2030", "other", "2030-01-14", None, None, None, True, True),
    ("Global AppSec EU 2030", "global", "2030-06-03", "2030-06-07", None, None, True, False),
]


EVENT_CITIES = ["Tel Aviv", "Washington DC", "Pune", "London", "Tokyo", "Copenhagen",
                "Singapore", "Lisbon", "Nairobi", "San Francisco", "Goa", "Barcelona",
                "Buenos Aires", "Lagos", "Vienna", "Zürich", "Austin", "São Paulo", "Sydney",
                "DEF CON"]


def make_events():
    out = []
    for name, cat, start, end, lat, lon, has_url, has_desc in EVENTS:
        key = slug(name)
        r = {"key": key, "name": name, "category": cat, "start_date": start}
        if end == "null":
            r["end_date"] = None
        elif end is not None:
            r["end_date"] = end
        if lat is None:
            if rng.random() < 0.5:
                r["latitude"] = None
                r["longitude"] = None
        else:
            r["latitude"] = lat
            r["longitude"] = lon
        r["url"] = "https://events.example.org/%s" % key if has_url else None
        r["description"] = ("%s brings together developers, defenders and researchers for "
                            "talks, trainings and a capture-the-flag.\n\nCall for papers and "
                            "sponsorship details are on the event page." % name) if has_desc else None
        r["summary"] = "%s (%s)" % (name, cat.replace("_", " "))
        for city in EVENT_CITIES:
            if city in name:
                r["suggested_location"] = city
                break
        out.append(r)
    return out


# --------------------------------------------------------------------------- sponsors

SPONSORS = [
    # name, key, sponsor_type, is_member (None omitted), member_type (None omitted)
    ("acme", "acme", "Diamond", True, "Platinum"),
    ("Beta", "beta", "Platinum", True, "Gold"),
    ("Árvore Segurança", "arvore", "Gold", False, ""),
    ("Zeta Security", "zeta-security", "Silver", True, "Silver"),
    ("zeta security", "zeta-security-labs", "Supporter", False, None),
    ("Globex", "globex", "Diamond", True, "Platinum"),
    ("Initech", "initech", "Platinum", False, ""),
    ("Hooli", "hooli", "Gold", True, "Gold"),
    ("Umbrella Security", "umbrella-security", "Silver", True, "Silver"),
    ("Stark Industries", "stark-industries", "Supporter", True, "Gold"),
    ("Wayne Enterprises", "wayne-enterprises", "Not a Sponsor", True, "Platinum"),
    ("Cyberdyne Systems", "cyberdyne", "Not a Sponsor", None, None),
    ("Ørsted Cloud", "orsted-cloud", "Gold", False, ""),
    ("Éclair Networks", "eclair-networks", "Silver", True, "Silver"),
    ("delta ray", "delta-ray", "Supporter", False, ""),
    ("Massive Dynamic", "massive-dynamic", "Platinum", True, "Platinum"),
    ("Soylent", "soylent", "Not a Sponsor", True, "Silver"),
    ("Tyrell Corporation", "tyrell", "Gold", True, "Gold"),
    ("10X Security", "10x-security", "Supporter", None, None),
    ("Nakatomi Trading", "nakatomi", "Diamond", False, ""),
]


def make_sponsors():
    out = []
    for name, key, stype, is_member, mtype in SPONSORS:
        r = {"key": key, "name": name, "sponsor_type": stype}
        if is_member is not None:
            r["is_member"] = is_member
        if mtype is not None:
            r["member_type"] = mtype
        r["image_url"] = "https://community.example.org/assets/sponsors/%s.png" % key
        r["url"] = "https://%s.example.com/" % key
        if rng.random() < 0.4:
            r["job_url"] = "https://%s.example.com/careers" % key
        if rng.random() < 0.85:
            r["description"] = "%s supports the community's open-source security work." % name
        out.append(r)
    return out


# --------------------------------------------------------------------------- snapshots

SNAPSHOTS = [
    # key, status, mode
    ("2026-03", "completed", "normal"),
    ("2026-04", "completed", "normal"),
    ("2026-05", "completed", "hidden"),  # references inactive / unpublished records too
    ("2026-06", "completed", "empty"),
    ("2026-07", "completed", "normal"),
    ("2026-08", "error", "normal"),
    ("2026-09", "processing", "normal"),
    ("2026-10", "pending", "none"),
]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def make_snapshots(chapters, projects, members, issues, releases):
    out = []
    for key, status, mode in SNAPSHOTS:
        y, m = int(key[:4]), int(key[5:])
        start = dt(y, m, 1)
        nxt = dt(y + (m == 12), m % 12 + 1, 1)
        end = nxt - timedelta(seconds=1)
        r = {"key": key, "title": "Snapshot %s %d" % (MONTHS[m - 1], y), "status": status,
             "start_at": ts(start), "end_at": ts(end)}
        if status == "pending":
            created = nxt + timedelta(hours=2)
            updated = created
        else:
            created = nxt + timedelta(hours=2, minutes=rng.randint(0, 59))
            updated = later(created, 3)
        if key in ("2026-03", "2026-04"):
            created = dt(2026, 5, 3, 4, 0, 0)  # backfilled together: created_at tie
            updated = later(created, 3)
        r["created_at"] = ts(created)
        r["updated_at"] = ts(updated)
        if mode == "none":
            out.append(r)
            continue
        if mode == "empty":
            r["new_chapters"] = []
            r["new_projects"] = []
            r["new_members"] = []
            r["new_issues"] = []
            r["new_releases"] = []  # (all present and empty)
            out.append(r)
            continue

        def in_window(recs):
            return [x for x in recs if start <= x["_created"] < nxt]

        act_ch = [c for c in chapters if c.get("is_active", True)]
        act_pr = [p for p in projects if p.get("is_active", True)]
        r["new_chapters"] = [c["key"] for c in rng.sample(act_ch, rng.randint(1, 3))]
        r["new_projects"] = [p["key"] for p in rng.sample(act_pr, rng.randint(1, 3))]
        ms = in_window(members) or rng.sample(members, 2)
        r["new_members"] = [x["login"] for x in ms[:12]]
        iss = in_window(issues)
        r["new_issues"] = [{"organization": x["organization"], "repository": x["repository"],
                            "number": x["number"]} for x in iss]
        rel = [x for x in in_window(releases) if x.get("published_at")]
        if not rel:
            rel = rng.sample([x for x in releases if x.get("published_at")], 2)
        r["new_releases"] = [{"organization": x["organization"], "repository": x["repository"],
                              "tag_name": x["tag_name"]} for x in rel]
        if mode == "hidden":
            r["new_chapters"] += [c["key"] for c in chapters if not c.get("is_active", True)][:2]
            r["new_projects"] += [p["key"] for p in projects if not p.get("is_active", True)]
            r["new_releases"] += [{"organization": x["organization"], "repository": x["repository"],
                                   "tag_name": x["tag_name"]}
                                  for x in releases if x.get("published_at") is None]
            # a tag with "/" and the case-only pair
            for x in releases:
                if x["tag_name"] in ("release/2.1", "V1.0.0", "v1.0.0"):
                    ref = {"organization": x["organization"], "repository": x["repository"],
                           "tag_name": x["tag_name"]}
                    if ref not in r["new_releases"]:
                        r["new_releases"].append(ref)
        for k in ("new_chapters", "new_projects"):
            r[k] = list(dict.fromkeys(r[k]))
        out.append(r)
    return out


# --------------------------------------------------------------------------- main

def strip_private(records):
    return [{k: v for k, v in r.items() if not k.startswith("_")} for r in records]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "data", "sample")
    os.makedirs(out_dir, exist_ok=True)

    organizations = make_organizations()
    members = make_members()
    members_by_login = {m["login"]: m for m in members}
    logins = [m["login"] for m in members]  # file order (deterministic)
    core = logins[:70]  # the people who show up in repositories, issues and leadership
    labels = make_labels()
    label_names = [l["name"] for l in labels]
    contributors = make_contributors(core)
    issues = make_issues(core + logins[:20], label_names)
    issues_by_repo = {}
    for i in issues:
        issues_by_repo.setdefault((i["organization"], i["repository"]), []).append(i)
    contrib_counts = {}
    for c in contributors:
        k = (c["organization"], c["repository"])
        contrib_counts[k] = contrib_counts.get(k, 0) + 1
    repositories = make_repositories(issues_by_repo, contrib_counts)
    milestones = make_milestones(core)
    releases = make_releases(core[:40])
    chapters = make_chapters(members_by_login, logins)
    committees = make_committees(members_by_login, core)
    projects = make_projects(members_by_login, core)
    events = make_events()
    sponsors = make_sponsors()
    snapshots = make_snapshots(chapters, projects, members, issues, releases)

    # The records of the frontend's pages, from a random stream of their own.
    sys.path.insert(0, here)
    import sample_pages as pages
    pages.add_organization_fields(organizations)
    pages.add_member_fields(members, projects, chapters, committees)
    for recs in (chapters, committees, projects):
        pages.add_leader_roles(recs)
    pages.add_entity_links(chapters, committees, projects, repositories)
    pages.add_repository_labels(labels, issues)
    pull_requests = pages.make_pull_requests(repositories, issues, logins)
    posts = pages.make_posts()
    health = pages.make_health_metrics(projects)

    # The about and board pages' records, from a random stream of their own too.
    import sample_frontend as front
    front.add_about(members, repositories, contributors, milestones, projects)
    boards, member_snapshots = front.make_boards(members, chapters, projects, repositories)

    data = {
        "organizations": organizations, "members": members, "repositories": repositories,
        "repository_contributors": contributors, "labels": labels, "issues": issues,
        "milestones": milestones, "releases": releases, "chapters": chapters,
        "committees": committees, "projects": projects, "events": events,
        "sponsors": sponsors, "snapshots": snapshots,
        "pull_requests": pull_requests,
        "posts": posts,
        "project_health_metrics": health,
        "badges": pages.make_badges(),
        "boards": boards, "member_snapshots": member_snapshots,
    }
    # Mentorship programs and modules, from a random stream of their own.
    import sample_mentorship as mentorship
    data["programs"], data["modules"] = mentorship.make_mentorship(members, projects, issues)
    for name in FILES:
        write(out_dir, name, strip_private(data[name]))
    with open(os.path.join(out_dir, "community.json"), "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(pages.make_community(), separators=(", ", ": ")) + "\n")


if __name__ == "__main__":
    main()
