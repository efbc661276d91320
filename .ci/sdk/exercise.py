"""Calls every list and detail operation of the Python client generated from
openapi.json (openapi-python-client) against a running `roost serve` on the sample,
and checks statuses, parsed types and some values.

Usage: PYTHONPATH=<folder holding roost_client> python exercise.py BASE_URL API_KEY
"""

import datetime
import sys
from http import HTTPStatus

from roost_client import AuthenticatedClient
from roost_client.api.chapters import get_chapter, list_chapters
from roost_client.api.committees import get_committee, list_committees
from roost_client.api.community import (
    get_member,
    get_organization,
    get_snapshot,
    list_members,
    list_organizations,
    list_snapshot_chapters,
    list_snapshot_issues,
    list_snapshot_members,
    list_snapshot_projects,
    list_snapshot_releases,
    list_snapshots,
)
from roost_client.api.events import get_event, list_events
from roost_client.api.issues import get_issue, list_issues
from roost_client.api.labels import list_labels
from roost_client.api.milestones import get_milestone, list_milestones
from roost_client.api.projects import get_project, list_projects
from roost_client.api.releases import get_release, list_releases
from roost_client.api.repositories import get_repository, list_repositories
from roost_client.api.sponsors import get_sponsor, list_sponsors
from roost_client.models import (
    ChapterDetail,
    ChapterError,
    CommitteeDetail,
    ErrorDetail,
    EventCategory,
    EventDetail,
    IssueDetail,
    IssueState,
    Leader,
    ListChaptersOrdering,
    ListMembersOrdering,
    MemberDetail,
    MilestoneDetail,
    OrganizationDetail,
    PagedChapter,
    PagedCommittee,
    PagedEvent,
    PagedIssue,
    PagedLabel,
    PagedMember,
    PagedMilestone,
    PagedOrganization,
    PagedProject,
    PagedRelease,
    PagedRepository,
    PagedSnapshot,
    PagedSnapshotIssue,
    PagedSnapshotRelease,
    PagedSponsor,
    ProjectDetail,
    ProjectError,
    ProjectLevel,
    ProjectType,
    ReleaseDetail,
    RepositoryDetail,
    SnapshotDetail,
    SnapshotError,
    SponsorDetail,
    SponsorMemberType,
    ValidationErrorSchema,
)

OPERATIONS = 30
BASE_URL, API_KEY = sys.argv[1], sys.argv[2]
client = AuthenticatedClient(
    base_url=BASE_URL,
    token=API_KEY,
    prefix="",
    auth_header_name="X-API-Key",
    raise_on_unexpected_status=True,
)
called = set()
requests = 0


def call(module, expected, *args, **kwargs):
    """One request through the generated client; asserts the status, returns the body."""
    global requests
    response = module.sync_detailed(*args, client=client, **kwargs)
    requests += 1
    name = module.__name__.rsplit(".", 1)[1]
    assert response.status_code == expected, (
        f"{name}{args}{kwargs}: {int(response.status_code)} {response.content[:300]!r}"
    )
    called.add(name)
    return response.parsed


def page(module, model, *args, **kwargs):
    """A list page: its type and envelope."""
    parsed = call(module, HTTPStatus.OK, *args, **kwargs)
    assert isinstance(parsed, model), (module.__name__, type(parsed))
    size = kwargs.get("page_size", 100)
    assert parsed.current_page == kwargs.get("page", 1)
    assert parsed.total_pages == max(1, -(-parsed.total_count // size))
    assert len(parsed.items) <= size
    assert parsed.has_previous == (parsed.current_page > 1)
    assert parsed.has_next == (parsed.current_page < parsed.total_pages)
    return parsed


def everything(module, model, *args, **kwargs):
    """All items of a list, page by page."""
    items, number = [], 1
    while True:
        p = page(module, model, *args, page=number, **kwargs)
        items.extend(p.items)
        if not p.has_next:
            assert len(items) == p.total_count
            return items
        number += 1


def detail(module, model, *ids):
    parsed = call(module, HTTPStatus.OK, *ids)
    assert isinstance(parsed, model), (module.__name__, type(parsed))
    return parsed


# -- Chapters ------------------------------------------------------------------------
chapters = page(list_chapters, PagedChapter)
assert chapters.total_count > 0
first = chapters.items[0]
assert first.key.startswith("www-chapter-")
chapter = detail(get_chapter, ChapterDetail, first.key.removeprefix("www-chapter-"))
assert (chapter.key, chapter.name) == (first.key, first.name)
assert all(isinstance(leader, Leader) for leader in chapter.leaders)
assert detail(get_chapter, ChapterDetail, first.key.upper()).key == first.key
in_country = everything(list_chapters, PagedChapter, country=chapter.country.upper())
assert first.key in [c.key for c in in_country]
north = everything(list_chapters, PagedChapter, latitude_gte=0.0)
assert north and all(c.latitude is not None and c.latitude >= 0 for c in north)
by_latitude = everything(list_chapters, PagedChapter, ordering=ListChaptersOrdering.LATITUDE)
known = [c.latitude for c in by_latitude if c.latitude is not None]
assert known == sorted(known)
assert all(c.latitude is None for c in by_latitude[len(known):])
small = page(list_chapters, PagedChapter, page_size=5, page=2)
assert small.has_previous and len(small.items) == 5
missing = call(get_chapter, HTTPStatus.NOT_FOUND, "no-such-chapter")
assert isinstance(missing, ChapterError) and missing.message == "Chapter not found"
past = call(list_chapters, HTTPStatus.NOT_FOUND, page=chapters.total_pages + 1)
assert isinstance(past, ErrorDetail) and "not found" in past.detail
invalid = call(list_chapters, HTTPStatus.BAD_REQUEST, page_size=101)
assert isinstance(invalid, ValidationErrorSchema)
assert invalid.errors[0].loc == ["query", "page_size"], invalid.errors

# -- Committees ----------------------------------------------------------------------
committees = page(list_committees, PagedCommittee)
committee = detail(
    get_committee, CommitteeDetail, committees.items[0].key.removeprefix("www-committee-")
)
assert committee.key == committees.items[0].key and isinstance(committee.description, str)

# -- Events --------------------------------------------------------------------------
events = everything(list_events, PagedEvent)
assert all(isinstance(e.start_date, datetime.date) for e in events)
event = detail(get_event, EventDetail, events[0].key)
assert event.name == events[0].name
some = everything(list_events, PagedEvent, category=[EventCategory.GLOBAL, EventCategory.PARTNER])
assert 0 < len(some) < len(events)
today = datetime.datetime.now(datetime.timezone.utc).date()
upcoming = everything(list_events, PagedEvent, is_upcoming=True)
assert all(e.start_date >= today for e in upcoming)

# -- Organizations, repositories and what is in them ---------------------------------
organizations = everything(list_organizations, PagedOrganization)
organization = detail(get_organization, OrganizationDetail, organizations[0].login)
assert organization.login == organizations[0].login
repositories = everything(list_repositories, PagedRepository)
found = {"issue": False, "milestone": False, "release": False}
for org in organizations:
    for repo in everything(list_repositories, PagedRepository, organization_id=org.login):
        repository = detail(get_repository, RepositoryDetail, org.login, repo.name)
        assert repository.name == repo.name and repository.stars_count >= 0
        issues = page(list_issues, PagedIssue, organization=org.login, repository=repo.name)
        if issues.items and not found["issue"]:
            number = int(issues.items[0].url.rstrip("/").rsplit("/", 1)[1])
            issue = detail(get_issue, IssueDetail, org.login, repo.name, number)
            assert issue.title == issues.items[0].title and isinstance(issue.state, IssueState)
            found["issue"] = True
        milestones = page(list_milestones, PagedMilestone, organization=org.login, repository=repo.name)
        if milestones.items and not found["milestone"]:
            m = milestones.items[0]
            milestone = detail(get_milestone, MilestoneDetail, org.login, repo.name, m.number)
            assert milestone.title == m.title and milestone.open_issues_count >= 0
            found["milestone"] = True
        releases = page(list_releases, PagedRelease, organization=org.login, repository=repo.name)
        if releases.items and not found["release"]:
            r = releases.items[0]
            release = detail(get_release, ReleaseDetail, org.login, repo.name, r.tag_name)
            assert release.tag_name == r.tag_name
            tagged = page(list_releases, PagedRelease, organization=org.login, repository=repo.name,
                          tag_name=r.tag_name)
            assert [x.tag_name for x in tagged.items] == [r.tag_name]
            found["release"] = True
assert all(found.values()), found
assert page(list_issues, PagedIssue).total_count > 0
open_issues = everything(list_issues, PagedIssue, state=IssueState.OPEN)
assert open_issues and all(i.state == IssueState.OPEN for i in open_issues)
assert page(list_milestones, PagedMilestone).total_count > 0
assert page(list_releases, PagedRelease).total_count > 0
labels = page(list_labels, PagedLabel)
assert labels.total_count > 0
same_color = page(list_labels, PagedLabel, color=labels.items[0].color.upper())
assert labels.items[0].name in [label.name for label in same_color.items]

# -- Members -------------------------------------------------------------------------
members = page(list_members, PagedMember, ordering=ListMembersOrdering.LOGIN)
logins = [m.login.lower() for m in members.items]
assert logins == sorted(logins)
member = detail(get_member, MemberDetail, members.items[0].login.upper())
assert member.login == members.items[0].login and member.followers_count >= 0

# -- Projects ------------------------------------------------------------------------
projects = everything(list_projects, PagedProject)
project = detail(get_project, ProjectDetail, projects[0].key.removeprefix("www-project-"))
assert project.key == projects[0].key and isinstance(project.level, ProjectLevel)
code_or_tool = everything(list_projects, PagedProject, type_=[ProjectType.CODE, ProjectType.TOOL])
assert code_or_tool and all(p.type_ in (ProjectType.CODE, ProjectType.TOOL) for p in code_or_tool)
flagship = everything(list_projects, PagedProject, level=ProjectLevel.FLAGSHIP)
assert flagship and all(p.level == ProjectLevel.FLAGSHIP for p in flagship)
word = projects[0].name.split()[0]
searched = everything(list_projects, PagedProject, q=f"name:{word} stars:>=0")
assert projects[0].key in [p.key for p in searched]
assert isinstance(call(list_projects, HTTPStatus.BAD_REQUEST, q="color:red"), ValidationErrorSchema)
assert isinstance(call(get_project, HTTPStatus.NOT_FOUND, "no-such-project"), ProjectError)

# -- Snapshots and their sub-lists ---------------------------------------------------
snapshots = everything(list_snapshots, PagedSnapshot)
assert snapshots
for s in snapshots:
    snap = detail(get_snapshot, SnapshotDetail, s.key)
    counts = {
        "chapters": page(list_snapshot_chapters, PagedChapter, s.key).total_count,
        "issues": page(list_snapshot_issues, PagedSnapshotIssue, s.key).total_count,
        "members": page(list_snapshot_members, PagedMember, s.key).total_count,
        "projects": page(list_snapshot_projects, PagedProject, s.key).total_count,
        "releases": page(list_snapshot_releases, PagedSnapshotRelease, s.key).total_count,
    }
    assert counts == {
        "chapters": snap.new_chapters_count,
        "issues": snap.new_issues_count,
        "members": snap.new_users_count,
        "projects": snap.new_projects_count,
        "releases": snap.new_releases_count,
    }, (s.key, counts)
new_issues = [
    i for s in snapshots for i in page(list_snapshot_issues, PagedSnapshotIssue, s.key).items
]
assert new_issues and all(i.organization_login for i in new_issues)
unknown = call(list_snapshot_chapters, HTTPStatus.NOT_FOUND, "1999-01")
assert isinstance(unknown, SnapshotError) and unknown.message == "Snapshot not found"

# -- Sponsors ------------------------------------------------------------------------
sponsors = everything(list_sponsors, PagedSponsor)
names = [s.name.lower() for s in sponsors]
assert names == sorted(names)
sponsor = detail(get_sponsor, SponsorDetail, sponsors[0].key)
assert sponsor.name == sponsors[0].name and isinstance(sponsor.is_member, bool)
members_only = everything(list_sponsors, PagedSponsor, is_member=True)
assert 0 < len(members_only) < len(sponsors)
gold = everything(list_sponsors, PagedSponsor, member_type=SponsorMemberType.GOLD)
for s in gold:
    assert detail(get_sponsor, SponsorDetail, s.key).member_type == "Gold"

assert len(called) == OPERATIONS, sorted(called)
print(f"Python client: all {len(called)} operations exercised in {requests} requests against {BASE_URL}")
