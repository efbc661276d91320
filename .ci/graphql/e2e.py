"""GraphQL end to end with a real client (gql, PyPI) against `roost serve`.

    e2e.py e2e URL DB
        local/e2e: no auth; the client reads the schema by introspection and validates
        every query against it; values are checked against the dataset (SQLite).
    e2e.py production URL DB ROOST_BIN AUTH_DB
        production: the client validates against the committed schema.graphql (no
        introspection); anonymous visitors are served with the CSRF pair, a session
        cookie marks a trusted caller.
"""

import base64
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import requests
from gql import Client, GraphQLRequest
from gql.transport.exceptions import TransportQueryError
from gql.transport.requests import RequestsHTTPTransport

ROOT = Path(__file__).resolve().parents[2]


def request(query, **variables):
    return GraphQLRequest(query, variable_values=variables or None)


def ts(micros):
    """A timestamp column as the API formats it."""
    from datetime import datetime, timezone

    dt = datetime.fromtimestamp(micros // 1_000_000, tz=timezone.utc)
    text = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if micros % 1_000_000:
        text += ".%06d" % (micros % 1_000_000)
    return text + "Z"


def column(db, sql, *args):
    return [row[0] for row in db.execute(sql, args)]


def assert_code(error, code):
    """The GraphQL errors of a refused request name `code` in `extensions.code`."""
    codes = [(err.get("extensions") or {}).get("code") for err in error.errors or []]
    assert code in codes, (code, error.errors)


def expect_error(session, query, code, **variables):
    try:
        session.execute(request(query, **variables))
    except TransportQueryError as e:
        assert_code(e, code)
        return
    raise AssertionError(f"expected {code} for {query}")


def expect_refused(client, code):
    """A request the server refuses before GraphQL runs (HTTP 401/403 with a JSON
    `errors` list, which gql reports as a query error)."""
    try:
        with client as session:
            session.execute(request("{ chapterCountries }"))
    except TransportQueryError as e:
        assert_code(e, code)
        return
    raise AssertionError(f"expected {code}")


def check_values(session, db):
    """Real queries of the frontend, values checked against the dataset."""
    stats = session.execute(request(
        "{ statsOverview { activeChaptersStats activeProjectsStats contributorsStats countriesStats } }"
    ))["statsOverview"]
    assert stats == {
        "activeChaptersStats": column(db, "SELECT COUNT(*) FROM chapters WHERE is_active = 1")[0],
        "activeProjectsStats": column(db, "SELECT COUNT(*) FROM projects WHERE is_active = 1")[0],
        "contributorsStats": column(db, "SELECT COUNT(DISTINCT member_id) FROM repository_contributors")[0],
        "countriesStats": column(db, "SELECT COUNT(DISTINCT country) FROM chapters WHERE is_active = 1 AND country != ''")[0],
    }, stats

    countries = session.execute(request("{ chapterCountries }"))["chapterCountries"]
    expected = sorted(
        set(column(db, "SELECT country FROM chapters WHERE is_active = 1 AND country != ''")),
        key=lambda c: (c.lower(), c),
    )
    assert countries == expected, countries

    chapter = session.execute(request(
        "query($k: String!) { chapter(key: $k) { key name country geoLocation { lat lng } leaders } }",
        k="LONDON",
    ))["chapter"]
    row = db.execute(
        "SELECT id, key, name, country, latitude, longitude FROM chapters WHERE key = 'www-chapter-london'"
    ).fetchone()
    # Keys without their prefix, as the original service answers them.
    assert chapter["key"] == row[1].removeprefix("www-chapter-") == "london", chapter["key"]
    assert chapter["name"] == row[2] and chapter["country"] == row[3]
    assert chapter["geoLocation"] == {"lat": row[4], "lng": row[5]}
    assert chapter["leaders"] == column(
        db, "SELECT name FROM leaders WHERE entity_kind = 'chapter' AND entity_id = ? ORDER BY position", row[0]
    )

    project = session.execute(request(
        """query($k: String!) { project(key: $k) {
            key name level type starsCount forksCount repositoriesCount
            repositories { name starsCount organization { login } }
            recentIssues { title author { login } labels }
            recentReleases { tagName publishedAt }
            recentMilestones(limit: 3) { title progress }
            entityLeaders { memberName member { login } } } }""",
        k="juice-shop",
    ))["project"]
    pid, key, stars, forks = db.execute(
        "SELECT id, key, stars, forks FROM projects WHERE key = 'www-project-juice-shop'"
    ).fetchone()
    assert project["key"] == key.removeprefix("www-project-") and project["starsCount"] == stars and project["forksCount"] == forks
    repos = column(
        db,
        "SELECT r.name FROM project_repositories pr JOIN repositories r ON r.id = pr.repository_id "
        "WHERE pr.project_id = ? ORDER BY r.stars_count DESC, r.id",
        pid,
    )
    assert [r["name"] for r in project["repositories"]] == repos
    assert project["repositoriesCount"] == len(repos)
    issues = column(
        db,
        "SELECT i.title FROM issues i JOIN project_repositories pr ON pr.repository_id = i.repository_id "
        "WHERE pr.project_id = ? ORDER BY i.created_at DESC, i.updated_at DESC, i.id DESC LIMIT 5",
        pid,
    )
    assert [i["title"] for i in project["recentIssues"]] == issues
    releases = db.execute(
        "SELECT x.tag_name, x.published_at FROM releases x JOIN project_repositories pr "
        "ON pr.repository_id = x.repository_id WHERE pr.project_id = ? AND x.published_at IS NOT NULL "
        # The original's rule for a project's releases: drafts left out (docs/api.md §6).
        "AND x.is_draft = 0 "
        "ORDER BY x.published_at DESC, x.created_at DESC, x.id DESC LIMIT 5",
        (pid,),
    ).fetchall()
    assert [(r["tagName"], r["publishedAt"]) for r in project["recentReleases"]] == [
        (tag, ts(at)) for tag, at in releases
    ]

    distinct = session.execute(request(
        "{ recentIssues(limit: 20, distinct: true) { title author { login } } }"
    ))["recentIssues"]
    authors = [i["author"]["login"] if i["author"] else None for i in distinct]
    assert len(authors) == len(set(authors)), authors
    seen, expected = set(), []
    for title, author in db.execute(
        "SELECT title, author_id FROM issues ORDER BY created_at DESC, updated_at DESC, id DESC"
    ):
        if author not in seen:
            seen.add(author)
            expected.append(title)
    assert [i["title"] for i in distinct] == expected[:20]

    found = session.execute(request(
        "query($q: String!) { searchProjects(query: $q) { name } }", q="juice"
    ))["searchProjects"]
    names = sorted(
        column(db, "SELECT name FROM projects WHERE is_active = 1 AND instr(name_lc, 'juice') > 0"),
        key=lambda n: (n.lower(), n),
    )[:3]
    assert [p["name"] for p in found] == names and names, found

    key = column(db, "SELECT key FROM snapshots WHERE status = 'completed' ORDER BY created_at DESC, id DESC LIMIT 1")[0]
    snapshot = session.execute(request(
        "query($k: String!) { snapshot(key: $k) { key newUsersCount newUsers { login } newIssues { title } } }",
        k=key,
    ))["snapshot"]
    sid = column(db, "SELECT id FROM snapshots WHERE key = ?", key)[0]
    users = column(
        db,
        "SELECT m.login FROM snapshot_members s JOIN members m ON m.id = s.member_id "
        "WHERE s.snapshot_id = ? ORDER BY m.created_at DESC, m.id DESC",
        sid,
    )
    assert [u["login"] for u in snapshot["newUsers"]] == users
    assert snapshot["newUsersCount"] == len(users)

    login, issue_count = db.execute(
        "SELECT m.login, COUNT(*) FROM issues i JOIN members m ON m.id = i.author_id "
        "GROUP BY m.id ORDER BY COUNT(*) DESC, m.id LIMIT 1"
    ).fetchone()
    user = session.execute(request(
        "query($l: String!) { user(login: $l) { login issuesCount } }", l=login.upper()
    ))["user"]
    assert user == {"login": login, "issuesCount": issue_count}, user

    top = session.execute(request(
        "{ topContributors(limit: 5, organization: \"juice-labs\") { login contributionsCount } }"
    ))["topContributors"]
    expected = db.execute(
        "SELECT m.login, SUM(rc.contributions_count) AS total FROM repository_contributors rc "
        "JOIN members m ON m.id = rc.member_id JOIN repositories r ON r.id = rc.repository_id "
        "JOIN organizations o ON o.id = r.organization_id WHERE o.login_lc = 'juice-labs' "
        "GROUP BY m.id ORDER BY total DESC, m.login_lc, m.id LIMIT 5"
    ).fetchall()
    assert [(c["login"], c["contributionsCount"]) for c in top] == expected

    sponsors = session.execute(request("{ sponsors { key } }"))["sponsors"]
    assert len(sponsors) == column(db, "SELECT COUNT(*) FROM sponsors")[0]

    # Limits: depth 6 is refused by the server (the client's validation passes it).
    expect_error(
        session,
        "{ project(key: \"juice-shop\") { repositories { project { repositories { issues { title } } } } } }",
        "QUERY_TOO_DEEP",
    )
    expect_error(
        session,
        "{ snapshots(limit: 1000) { newIssues { title author { login name } labels } } }",
        "QUERY_TOO_COMPLEX",
    )
    print("gql: statsOverview, chapterCountries, chapter, project page, recentIssues (distinct), "
          "searchProjects, snapshot, user, topContributors, sponsors and the limits check out")


PAGES = ROOT / "tests" / "graphql" / "pages"


def has_data(value):
    return value is not None and value != []


def execute_paced(session, operation):
    """Runs an operation, waiting out the per-client rate limit when it answers
    RATE_LIMITED (the pages are sent in a burst)."""
    for _ in range(5):
        try:
            return session.execute(operation)
        except TransportQueryError as error:
            if "RATE_LIMITED" not in str(error):
                raise
            time.sleep(1.1)
    raise AssertionError("still rate limited after 5 tries")


def check_pages(session, db):
    """The frontend's page operations (tests/graphql/pages): every one validates in
    the client and answers with data, checked against SQLite."""
    manifest = json.loads((PAGES / "pages.json").read_text())
    answered = {}
    for name, entry in sorted(manifest.items()):
        operation = GraphQLRequest((PAGES / name).read_text(), variable_values=entry["variables"])
        data = execute_paced(session, operation)
        for field, value in data.items():
            assert has_data(value), (name, field, value)
        answered[name] = data

    # Ids: base64 of Type:natural key.
    about = answered["about.graphql"]
    assert base64.b64decode(about["project"]["id"]).decode() == "Project:www-project-juice-shop"
    assert base64.b64decode(about["leader1"]["id"]).decode() == "User:kwame-schmidt"
    issues = column(db,
        "SELECT COUNT(*) FROM issues i JOIN project_repositories pr ON pr.repository_id = i.repository_id "
        "JOIN projects p ON p.id = pr.project_id WHERE p.key = 'www-project-juice-shop'")[0]
    assert about["project"]["issuesCount"] == issues, about["project"]
    logins = [c["login"] for c in about["topContributors"]]
    expected = [row[0] for row in db.execute(
        "SELECT m.login FROM repository_contributors rc JOIN members m ON m.id = rc.member_id "
        "JOIN project_repositories pr ON pr.repository_id = rc.repository_id "
        "JOIN projects p ON p.id = pr.project_id WHERE p.key = 'www-project-juice-shop' "
        "AND m.login_lc != 'kwame-schmidt' GROUP BY m.id "
        "ORDER BY SUM(rc.contributions_count) DESC, m.login_lc, m.id LIMIT 20")]
    assert logins == expected, (logins, expected)
    named = answered["project-contributors.graphql"]["topContributors"]
    assert all(c["name"] for c in named) and len(named) <= 5, named

    # Contribution data of the member page's member, from the records.
    stats = execute_paced(session, request(
        "query($k: String!) { user(login: $k) { contributionStats contributionData } }",
        k="sarah-suzuki"))["user"]
    newest = column(db, "SELECT MAX((SELECT MAX(created_at) FROM issues), "
                        "(SELECT MAX(created_at) FROM pull_requests), "
                        "(SELECT MAX(created_at) FROM releases WHERE published_at IS NOT NULL))")[0]
    day = 86_400_000_000
    first = (newest // day - 364) * day
    issues = column(db, "SELECT COUNT(*) FROM issues i JOIN members m ON m.id = i.author_id "
                        "WHERE m.login = 'sarah-suzuki' AND i.created_at BETWEEN ? AND ?", first, newest)[0]
    assert stats["contributionStats"]["issues"] == issues, stats
    pulls = column(db, "SELECT COUNT(*) FROM pull_requests p JOIN members m ON m.id = p.author_id "
                       "WHERE m.login = 'sarah-suzuki' AND p.created_at BETWEEN ? AND ?", first, newest)[0]
    assert stats["contributionStats"]["pullRequests"] == pulls, stats
    assert sum(stats["contributionData"].values()) == stats["contributionStats"]["total"], stats

    # The fields the pages gained with the dataset's page records, of the member page's
    # member (pages.json).
    user = answered["user.graphql"]
    login = manifest["user.graphql"]["variables"]["key"]
    badges = [row[0] for row in db.execute(
        "SELECT b.name FROM member_badges mb JOIN badges b ON b.id = mb.badge_id "
        "JOIN members m ON m.id = mb.member_id WHERE m.login = ? "
        "ORDER BY b.weight, b.name_lc, b.id", (login,))]
    assert [b["name"] for b in user["user"]["badges"]] == badges, user["user"]["badges"]
    assert user["user"]["email"] == column(
        db, "SELECT email FROM members WHERE login = ?", login)[0]
    pulls = [row[0] for row in db.execute(
        "SELECT p.title FROM pull_requests p JOIN members m ON m.id = p.author_id "
        "WHERE m.login = ? "
        "ORDER BY p.created_at DESC, p.updated_at DESC, p.id DESC LIMIT 5", (login,))]
    assert [p["title"] for p in user["recentPullRequests"]] == pulls, user["recentPullRequests"]
    home = answered["home.graphql"]
    posts = [row[0] for row in db.execute(
        "SELECT title FROM posts ORDER BY published_at DESC, id DESC LIMIT 6")]
    assert [p["title"] for p in home["recentPosts"]] == posts, home["recentPosts"]
    committee = answered["committee.graphql"]["committee"]
    repos = column(db, "SELECT COUNT(*) FROM committee_repositories cr "
                       "JOIN committees c ON c.id = cr.committee_id "
                       "WHERE c.key = 'www-committee-chapter'")[0]
    assert committee["repositoriesCount"] == repos and repos > 0, committee
    metrics = answered["project.graphql"]["project"]["healthMetricsList"]
    count = column(db, "SELECT COUNT(*) FROM project_health_metrics h "
                       "JOIN projects p ON p.id = h.project_id "
                       "WHERE p.key = 'www-project-juice-shop'")[0]
    assert len(metrics) == min(count, 30) and count > 0, metrics
    size = column(db, "SELECT size FROM repositories WHERE name = 'juice-shop'")[0]
    assert size and answered["repository.graphql"]["repository"]["size"] == size
    print(f"pages: all {len(answered)} frontend page operations answer")


def run_e2e(url, db):
    transport = RequestsHTTPTransport(url=f"{url}/graphql/", retries=0)
    client = Client(transport=transport, fetch_schema_from_transport=True)
    with client as session:
        query_fields = {f for f in client.schema.query_type.fields}
        for name in ["chapter", "project", "recentIssues", "statsOverview", "topContributors"]:
            assert name in query_fields, query_fields
        check_values(session, db)
        check_pages(session, db)
    page = requests.get(f"{url}/graphql/", headers={"Accept": "text/html"}, timeout=10)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for asset in ["/graphql/graphiql.js", "/graphql/graphiql.css", "/graphql/examples.json"]:
        assert requests.get(url + asset, timeout=10).status_code == 200, asset
    print("e2e: introspection by the client, every checked query, and the explorer page work")


def run_production(url, db, roost_bin, auth_db):
    schema = (ROOT / "schema.graphql").read_text()
    out = subprocess.run(
        [roost_bin, "sessions", "create", "--name", "ci-frontend", "--auth-db", auth_db],
        check=True, capture_output=True, text=True,
    ).stdout
    token = out.strip().splitlines()[-1]

    # The CSRF token comes from GET /csrf/, as a cookie and in the body.
    browser = requests.Session()
    reply = browser.get(f"{url}/csrf/", timeout=10)
    csrf = reply.json()["csrftoken"]
    assert browser.cookies.get("csrftoken") is None or browser.cookies.get("csrftoken") == csrf
    assert "Secure" in reply.headers["set-cookie"] and "SameSite=Lax" in reply.headers["set-cookie"]

    # An anonymous POST without the CSRF pair: 403.
    anonymous = Client(transport=RequestsHTTPTransport(url=f"{url}/graphql/", retries=0), schema=schema)
    expect_refused(anonymous, "CSRF_FAILED")
    reply = requests.post(f"{url}/graphql/", json={"query": "{ chapterCountries }"}, timeout=10)
    assert reply.status_code == 403, reply.status_code
    # An anonymous visitor with the CSRF pair is served every page (as the original
    # service serves its public queries), paced by the per-address budget.
    visitor = Client(
        transport=RequestsHTTPTransport(
            url=f"{url}/graphql/", cookies={"csrftoken": csrf}, headers={"X-CSRFToken": csrf}, retries=0
        ),
        schema=schema,
    )
    with visitor as session:
        check_pages(session, db)
    # A GET query is a read: no CSRF pair needed. (The pages above spent this address's
    # budget: a 429 is waited out as a client would.)
    for _ in range(5):
        reply = requests.get(f"{url}/graphql/", params={"query": "{ chapterCountries }"}, timeout=10)
        if reply.status_code != 429:
            break
        time.sleep(float(reply.headers.get("Retry-After", "1")) + 0.1)
    assert reply.status_code == 200 and reply.json()["data"]["chapterCountries"], reply.text

    # A session cookie that names no session: 401, not silently anonymous.
    cookies = {"sessionid": "x" * 43, "csrftoken": csrf}
    reply = requests.post(f"{url}/graphql/", json={"query": "{ chapterCountries }"},
                          cookies=cookies, headers={"X-CSRFToken": csrf}, timeout=10)
    assert reply.status_code == 401, reply.status_code
    assert reply.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED", reply.text
    cookies = {"sessionid": token, "csrftoken": csrf}

    # A session without the CSRF header: 403.
    no_header = Client(
        transport=RequestsHTTPTransport(url=f"{url}/graphql/", cookies=cookies, retries=0), schema=schema
    )
    expect_refused(no_header, "CSRF_FAILED")
    reply = requests.post(f"{url}/graphql/", json={"query": "{ chapterCountries }"}, cookies=cookies, timeout=10)
    assert reply.status_code == 403, reply.status_code

    frontend = Client(
        transport=RequestsHTTPTransport(
            url=f"{url}/graphql/", cookies=cookies, headers={"X-CSRFToken": csrf}, retries=0
        ),
        schema=schema,
    )
    with frontend as session:
        check_values(session, db)
        check_pages(session, db)
    # Introspection is refused (sent raw: the client validates against the SDL, which has
    # no introspection types to check against).
    raw = requests.post(
        f"{url}/graphql/",
        json={"query": "{ __schema { queryType { name } } }"},
        cookies=cookies,
        headers={"X-CSRFToken": csrf},
        timeout=10,
    ).json()
    assert raw["errors"][0]["extensions"]["code"] == "INTROSPECTION_DISABLED", raw
    # No explorer: a browser's GET without a query is a bad request, not a page.
    assert requests.get(f"{url}/graphql/", headers={"Accept": "text/html"}, timeout=10).status_code == 400

    # Revocation is effective on the next request.
    # `sessions list`: a header, then ID, NAME, ... per session.
    sid = next(
        cols[0]
        for cols in (
            line.split()
            for line in subprocess.run(
                [roost_bin, "sessions", "list", "--auth-db", auth_db], check=True, capture_output=True, text=True
            ).stdout.splitlines()[1:]
        )
        if cols[1:2] == ["ci-frontend"]
    )
    subprocess.run([roost_bin, "sessions", "revoke", sid, "--auth-db", auth_db], check=True, capture_output=True)
    expect_refused(frontend, "UNAUTHENTICATED")
    print("production: anonymous visitors served with the CSRF pair (403 without), a bad "
          "session 401, a session served with CSRF, introspection refused, revocation "
          "effective at once")


def main():
    mode, url, db_path = sys.argv[1:4]
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    if mode == "e2e":
        run_e2e(url, db)
    elif mode == "production":
        run_production(url, db, *sys.argv[4:6])
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
