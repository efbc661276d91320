//! The committed SDL (`schema.graphql`) is the schema roost serves: frontend
//! developers generate their types from it. `UPDATE_SNAPSHOTS=1 cargo test --test all
//! graphql::sdl` rewrites it; review the diff like any API change.

use std::path::Path;

#[test]
fn committed_sdl_matches_the_schema() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema.graphql");
    let sdl = roost::graphql::sdl();
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &sdl).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == sdl,
        "{} differs from the schema; run `UPDATE_SNAPSHOTS=1 cargo test --test all graphql::sdl` \
         and review the diff",
        path.display()
    );
}

#[test]
fn sdl_names_every_query_of_the_contract() {
    let sdl = roost::graphql::sdl();
    for query in [
        "chapter(key: String!): Chapter",
        "chapterCountries: [String!]!",
        "recentChapters(limit: Int = 8): [Chapter!]!",
        "committee(key: String!): Committee",
        "upcomingEvents(limit: Int = 6): [Event!]!",
        "event(key: String!): Event",
        "project(key: String!): Project",
        "recentProjects(limit: Int = 8): [Project!]!",
        "searchProjects(query: String!): [Project!]!",
        "snapshot(key: String!): Snapshot",
        "snapshots(limit: Int = 12): [Snapshot!]!",
        "sponsors: [Sponsor!]!",
        "statsOverview: StatsOverview!",
        "organization(login: String!): Organization",
        "repository(organizationKey: String!, repositoryKey: String!): Repository",
        "repositories(organization: String!, limit: Int = 12): [Repository!]!",
        "recentIssues(limit: Int = 5, login: String, organization: String, distinct: Boolean = false): [Issue!]!",
        "recentMilestones(limit: Int = 5, login: String, organization: String, state: String, distinct: Boolean = false): [Milestone!]!",
        "recentReleases(limit: Int = 6, login: String, organization: String, distinct: Boolean = false): [Release!]!",
        "recentPullRequests(limit: Int = 5, login: String, organization: String, repository: String, distinct: Boolean = false): [PullRequest!]!",
        "recentPosts(limit: Int = 5): [Post!]!",
        "user(login: String!): User",
        "topContributedRepositories(login: String!): [Repository!]!",
        "topContributors(limit: Int = 24, chapter: String, committee: String, organization: String, project: String, repository: String, excludedUsernames: [String!], hasFullName: Boolean = false): [Contributor!]!",
    ] {
        assert!(sdl.contains(query), "missing `{query}` in:\n{sdl}");
    }
    assert!(sdl.contains("scalar JSON"), "{sdl}");
    // The fields of the frontend's pages on the contract's types, with their
    // arguments and nullability.
    for (kind, fields) in [
        (
            "Chapter",
            &[
                "suggestedLocation: String\n",
                "entityChannels: [EntityChannel!]!",
                "relatedUrls: [String!]!",
                "topContributors(limit: Int = 24): [Contributor!]!",
            ][..],
        ),
        (
            "Committee",
            &[
                "relatedUrls: [String!]!",
                "entityChannels: [EntityChannel!]!",
                "contributorsCount: Int!",
                "forksCount: Int!",
                "issuesCount: Int!",
                "repositoriesCount: Int!",
                "starsCount: Int!",
                "topContributors(limit: Int = 24): [Contributor!]!",
            ][..],
        ),
        (
            "Project",
            &[
                "entityChannels: [EntityChannel!]!",
                "recentPullRequests: [PullRequest!]!",
                "healthMetricsList(limit: Int = 30): [ProjectHealthMetrics!]!",
            ][..],
        ),
        ("EntityMember", &["description: String!"][..]),
        (
            "Organization",
            &["email: String!", "collaboratorsCount: Int!"][..],
        ),
        ("Repository", &["size: Int\n"][..]),
        ("User", &["email: String!", "badges: [Badge!]!"][..]),
        ("StatsOverview", &["slackWorkspaceStats: Int!"][..]),
        ("ProjectHealthMetrics", &["score: Float\n"][..]),
        ("PullRequest", &["author: User\n"][..]),
    ] {
        let start = sdl
            .find(&format!("type {kind} {{"))
            .unwrap_or_else(|| panic!("no type {kind}"));
        let body = &sdl[start..start + sdl[start..].find("\n}").unwrap() + 1];
        for field in fields {
            assert!(body.contains(field), "{kind} has no `{field}`:\n{body}");
        }
    }
    // `id: ID!` on every object type that names a record.
    for kind in [
        "Chapter",
        "Committee",
        "EntityMember",
        "Event",
        "Sponsor",
        "Project",
        "Organization",
        "Repository",
        "Contributor",
        "Issue",
        "Milestone",
        "Release",
        "User",
        "Snapshot",
        "PullRequest",
        "Post",
        "ProjectHealthMetrics",
        "Badge",
        "EntityChannel",
    ] {
        let start = sdl
            .find(&format!("type {kind} {{"))
            .unwrap_or_else(|| panic!("no type {kind}"));
        let body = &sdl[start..start + sdl[start..].find("\n}").unwrap()];
        assert!(
            body.contains("\tid: ID!\n"),
            "{kind} has no `id: ID!`:\n{body}"
        );
    }
}
