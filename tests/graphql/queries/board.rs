//! The board candidates page: `boardOfDirectors` with its candidates and members,
//! `boardsOfDirectors`, `memberSnapshot(s)` and the members' board fields, with
//! expectations computed from the interchange records.

use serde_json::{json, Value};

use super::app;
use crate::support::ts;

#[tokio::test]
async fn a_years_board_with_candidates_members_and_their_accounts() {
    let ds = roost::store::sample_dataset().unwrap();
    let (_, board) = ds.boards.iter().max_by_key(|(_, b)| b.year).unwrap();
    let q = "query($y: Int!) { boardOfDirectors(year: $y) { year owaspUrl createdAt
        candidates { memberName memberEmail description member { login isOwaspBoardMember
            linkedinPageId firstOwaspContributionAt } }
        members { memberName description member { login } } } }";
    let data = app().data(q, json!({"y": board.year})).await;
    let got = &data["boardOfDirectors"];
    assert_eq!(got["year"], json!(board.year));
    assert_eq!(got["owaspUrl"], json!(board.url));
    assert_eq!(got["createdAt"], json!(ts(board.created_at.0)));
    let member = |login: &Option<String>| -> Value {
        let Some(login) = login else {
            return Value::Null;
        };
        let (_, m) = ds
            .members
            .iter()
            .find(|(_, m)| m.login.eq_ignore_ascii_case(login))
            .unwrap();
        json!({"login": m.login, "isOwaspBoardMember": m.is_owasp_board_member,
            "linkedinPageId": m.linkedin_page_id,
            "firstOwaspContributionAt": m.first_owasp_contribution_at.map(|t| ts(t.0))})
    };
    let candidates: Vec<Value> = board
        .candidates
        .iter()
        .map(|c| {
            json!({"memberName": c.name, "memberEmail": c.email, "description": c.description,
                "member": member(&c.login)})
        })
        .collect();
    assert_eq!(got["candidates"], json!(candidates));
    assert!(
        board.candidates.iter().any(|c| c.login.is_none()),
        "the sample has a candidate without an account"
    );
    let members: Vec<Value> = board
        .members
        .iter()
        .map(|c| {
            json!({"memberName": c.name, "description": c.description,
                "member": c.login.as_ref().map(|l| json!({"login": l}))})
        })
        .collect();
    assert_eq!(got["members"], json!(members));
    // A year without a board is null, not an error.
    let data = app().data(q, json!({"y": 1999})).await;
    assert_eq!(data["boardOfDirectors"], Value::Null);
    // All boards, the latest year first.
    let mut years: Vec<u64> = ds.boards.iter().map(|(_, b)| b.year).collect();
    years.sort_unstable_by(|a, b| b.cmp(a));
    let data = app()
        .data("{ boardsOfDirectors { year } }", json!({}))
        .await;
    let got: Vec<Value> = data["boardsOfDirectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["year"].clone())
        .collect();
    assert_eq!(json!(got), json!(years));
}

#[tokio::test]
async fn a_members_latest_snapshot_and_one_of_a_year() {
    let ds = roost::store::sample_dataset().unwrap();
    // A member with snapshots of two years, if the sample has one; else any.
    let mut by_member: Vec<(String, Vec<&roost::records::MemberSnapshot>)> = Vec::new();
    for (_, s) in &ds.member_snapshots {
        match by_member
            .iter_mut()
            .find(|(m, _)| m.eq_ignore_ascii_case(&s.member))
        {
            Some((_, list)) => list.push(s),
            None => by_member.push((s.member.clone(), vec![s])),
        }
    }
    let (login, snapshots) = by_member.iter().max_by_key(|(_, list)| list.len()).unwrap();
    let latest = snapshots.iter().max_by_key(|s| s.start_at.0).unwrap();
    let q = "query($l: String!, $y: Int) { memberSnapshot(userLogin: $l, startYear: $y) {
        startAt endAt githubUser { login } commitsCount pullRequestsCount issuesCount
        messagesCount totalContributions contributionHeatmapData communicationHeatmapData
        chapterContributions projectContributions repositoryContributions
        channelCommunications } }";
    let expected = |s: &roost::records::MemberSnapshot| {
        json!({"startAt": ts(s.start_at.0), "endAt": ts(s.end_at.0),
            "githubUser": {"login": login},
            "commitsCount": s.commits_count, "pullRequestsCount": s.pull_requests_count,
            "issuesCount": s.issues_count, "messagesCount": s.messages_count,
            "totalContributions": s.commits_count + s.pull_requests_count + s.issues_count,
            "contributionHeatmapData": s.contribution_heatmap_data.0,
            "communicationHeatmapData": s.communication_heatmap_data.0,
            "chapterContributions": s.chapter_contributions.0,
            "projectContributions": s.project_contributions.0,
            "repositoryContributions": s.repository_contributions.0,
            "channelCommunications": s.channel_communications.0})
    };
    // The login in another case finds the member too.
    let data = app().data(q, json!({"l": login.to_uppercase()})).await;
    assert_eq!(data["memberSnapshot"], expected(latest));
    let earliest = snapshots.iter().min_by_key(|s| s.start_at.0).unwrap();
    let year = chrono::DateTime::from_timestamp_micros(earliest.start_at.0)
        .unwrap()
        .format("%Y")
        .to_string();
    let data = app()
        .data(q, json!({"l": login, "y": year.parse::<i32>().unwrap()}))
        .await;
    assert_eq!(data["memberSnapshot"], expected(earliest));
    for (l, y) in [
        (login.as_str(), json!(1990)),
        ("no-such-member", Value::Null),
    ] {
        let data = app().data(q, json!({"l": l, "y": y})).await;
        assert_eq!(data["memberSnapshot"], Value::Null, "{l}");
    }
    let data = app()
        .data(
            "query($l: String) { memberSnapshots(userLogin: $l) { startAt } }",
            json!({"l": login}),
        )
        .await;
    assert_eq!(
        data["memberSnapshots"].as_array().unwrap().len(),
        snapshots.len()
    );
}

/// The about page's query: the project and the three leaders it names are in the
/// sample, and the project's contributors are its repository's.
#[tokio::test]
async fn the_about_pages_project_and_leaders() {
    let q = "query { project(key: \"nest\") { name contributorsCount
        recentMilestones(limit: 25) { title } }
        topContributors(project: \"nest\", excludedUsernames: [\"arkid15r\"], limit: 20) { login }
        leader1: user(login: \"arkid15r\") { login }
        leader2: user(login: \"kasya\") { login }
        leader3: user(login: \"mamicidal\") { login } }";
    let data = app().data(q, json!({})).await;
    assert_eq!(data["project"]["name"], json!("Nest"));
    assert!(!data["project"]["recentMilestones"]
        .as_array()
        .unwrap()
        .is_empty());
    let contributors = data["topContributors"].as_array().unwrap();
    assert!(contributors.len() > 3, "{data}");
    assert!(!contributors.contains(&json!({"login": "arkid15r"})));
    for (field, login) in [
        ("leader1", "arkid15r"),
        ("leader2", "kasya"),
        ("leader3", "mamicidal"),
    ] {
        assert_eq!(data[field]["login"], json!(login));
    }
}
