//! `store::build_streaming`, the way `roost db synth` writes: records handed over one
//! at a time after the dataset's own are checked like lines of their files numbered
//! after the last, and written with the ids those lines would have; the dataset's
//! snapshots may list them. A bad one fails the build like an import error and leaves
//! the target as it was.

use std::path::Path;

use roost::records::{Dataset, IssueRef, ReleaseRef};
use roost::store::{self, Streamed};

use crate::support::{dataset, int, table_digests};

/// Valid records of each streamed type, for the sample: a new contributor of
/// `juice-labs/juice-shop`, an issue there with its own label `bug` and the shared
/// `dependencies`, a milestone, a release and a pull request.
fn valid(ds: &Dataset) -> Vec<Streamed> {
    let shop = |org: &str, repo: &str| org == "juice-labs" && repo == "juice-shop";
    let member = ds
        .members
        .iter()
        .map(|(_, m)| m.login.clone())
        .find(|login| {
            !ds.repository_contributors
                .iter()
                .any(|(_, c)| shop(&c.organization, &c.repository) && &c.member == login)
        })
        .expect("a member who does not contribute to juice-shop");
    let mut contributor = ds.repository_contributors[0].1.clone();
    assert!(shop(&contributor.organization, &contributor.repository));
    contributor.member = member;
    let mut issue = ds.issues[0].1.clone();
    assert!(shop(&issue.organization, &issue.repository));
    issue.number = 90_001;
    issue.labels = vec!["bug".into(), "dependencies".into()];
    let mut milestone = ds.milestones[0].1.clone();
    milestone.number = 90_002;
    let mut release = ds.releases[0].1.clone();
    release.tag_name = "v90.0.0".into();
    let mut pull_request = ds.pull_requests[0].1.clone();
    pull_request.number = 90_003;
    vec![
        Streamed::Contributor(contributor),
        Streamed::Issue(issue),
        Streamed::Milestone(milestone),
        Streamed::Release(release),
        Streamed::PullRequest(pull_request),
    ]
}

/// The sample with its first snapshot listing `issue` and `release` as new.
fn listing(issue: IssueRef, release: ReleaseRef) -> Dataset {
    let mut ds = dataset();
    ds.snapshots[0].1.new_issues.push(issue);
    ds.snapshots[0].1.new_releases.push(release);
    ds
}

/// Appends a record as the next line of its file.
fn append<T>(records: &mut Vec<(roost::records::Origin, T)>, file: &'static str, x: T) {
    let index = records.len();
    records.push((roost::records::synthetic_origin(file, index), x));
}

#[test]
fn handed_over_records_are_written_as_lines_after_their_files() {
    let sample = dataset();
    let records = valid(&sample);
    let (Streamed::Issue(issue), Streamed::Release(release)) = (&records[1], &records[3]) else {
        unreachable!()
    };
    let new_issue = IssueRef {
        organization: issue.organization.clone(),
        repository: issue.repository.clone(),
        number: issue.number,
    };
    let new_release = ReleaseRef {
        organization: release.organization.clone(),
        repository: release.repository.clone(),
        tag_name: release.tag_name.clone(),
    };
    let dir = tempfile::tempdir().unwrap();

    // The records handed over, the snapshot listing two of them.
    let streamed = dir.path().join("streamed.db");
    let ds = listing(new_issue.clone(), new_release.clone());
    store::build_streaming(
        &ds,
        records.clone().into_iter(),
        &streamed,
        roost::idx::build,
    )
    .unwrap();
    assert_eq!(store::check(&streamed).unwrap(), Vec::<String>::new());

    // The same records as the last lines of their files, imported at once.
    let mut whole = listing(new_issue, new_release);
    for record in records {
        match record {
            Streamed::Contributor(x) => append(
                &mut whole.repository_contributors,
                "repository_contributors.jsonl",
                x,
            ),
            Streamed::Issue(x) => append(&mut whole.issues, "issues.jsonl", x),
            Streamed::Milestone(x) => append(&mut whole.milestones, "milestones.jsonl", x),
            Streamed::Release(x) => append(&mut whole.releases, "releases.jsonl", x),
            Streamed::PullRequest(x) => append(&mut whole.pull_requests, "pull_requests.jsonl", x),
        }
    }
    let imported = dir.path().join("whole.db");
    store::build(&whole, &imported, roost::idx::build).unwrap();
    assert_eq!(table_digests(&streamed), table_digests(&imported));

    // Ids follow the dataset's own; `bug` is the repository's own label, the snapshot
    // lists the new issue and release.
    let conn = rusqlite::Connection::open(&streamed).unwrap();
    let issue_id = sample.issues.len() as i64 + 1;
    let release_id = sample.releases.len() as i64 + 1;
    assert_eq!(
        int(&conn, "SELECT id FROM issues WHERE number = 90001", []),
        issue_id
    );
    assert_eq!(
        int(
            &conn,
            "SELECT COUNT(*) FROM issue_labels il JOIN labels l ON l.id = il.label_id \
             JOIN repositories r ON r.id = l.repository_id \
             WHERE il.issue_id = ?1 AND l.name = 'bug' AND r.name = 'juice-shop' \
             AND il.position = 0",
            [issue_id]
        ),
        1
    );
    assert_eq!(
        int(
            &conn,
            "SELECT COUNT(*) FROM issue_labels il JOIN labels l ON l.id = il.label_id \
             WHERE il.issue_id = ?1 AND l.name = 'dependencies' \
             AND l.repository_id IS NULL AND il.position = 1",
            [issue_id]
        ),
        1
    );
    assert_eq!(
        int(
            &conn,
            "SELECT id FROM releases WHERE tag_name = 'v90.0.0'",
            []
        ),
        release_id
    );
    assert_eq!(
        int(
            &conn,
            "SELECT id FROM pull_requests WHERE number = 90003",
            []
        ),
        sample.pull_requests.len() as i64 + 1
    );
    assert_eq!(
        int(
            &conn,
            "SELECT COUNT(*) FROM snapshot_issues WHERE snapshot_id = 1 AND issue_id = ?1",
            [issue_id]
        ),
        1
    );
    assert_eq!(
        int(
            &conn,
            "SELECT COUNT(*) FROM snapshot_releases WHERE snapshot_id = 1 AND release_id = ?1",
            [release_id]
        ),
        1
    );
}

#[test]
fn a_bad_handed_over_record_fails_the_build_and_names_its_line() {
    let ds = dataset();
    let mut records = valid(&ds);
    let mut issue = ds.issues[0].1.clone();
    issue.repository = "no-such-repo".into();
    records.push(Streamed::Issue(issue));
    // The sample's first issue again: a duplicate key.
    records.push(Streamed::Issue(ds.issues[0].1.clone()));
    let mut issue = ds.issues[0].1.clone();
    issue.number = 90_010;
    issue.labels = vec!["no-such-label".into()];
    records.push(Streamed::Issue(issue));
    let mut milestone = ds.milestones[0].1.clone();
    milestone.number = 90_011;
    milestone.author = Some("nobody-here".into());
    records.push(Streamed::Milestone(milestone));
    let mut release = ds.releases[0].1.clone();
    release.tag_name = " ".into();
    records.push(Streamed::Release(release));
    records.push(Streamed::Contributor(
        ds.repository_contributors[0].1.clone(),
    ));
    let ds = listing(
        IssueRef {
            organization: "juice-labs".into(),
            repository: "juice-shop".into(),
            number: 424_242,
        },
        ReleaseRef {
            organization: "juice-labs".into(),
            repository: "juice-shop".into(),
            tag_name: "v90.0.0".into(),
        },
    );

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("roost.db");
    store::init_db(&db, false, roost::idx::build).unwrap();
    let before = std::fs::read(&db).unwrap();
    let err = store::build_streaming(&ds, records.into_iter(), &db, roost::idx::build)
        .unwrap_err()
        .to_string();

    let (issues, milestones, releases, contributors) = (
        ds.issues.len(),
        ds.milestones.len(),
        ds.releases.len(),
        ds.repository_contributors.len(),
    );
    let (shop, first) = ("juice-labs/juice-shop", &ds.issues[0].1);
    for expected in [
        format!(
            "issues.jsonl:{}: repository 'juice-labs/no-such-repo' does not exist in repositories.jsonl",
            issues + 2
        ),
        format!(
            "issues.jsonl:{}: duplicate issue '{shop}#{}' (first defined by record 1 of issues.jsonl)",
            issues + 3,
            first.number
        ),
        format!(
            "issues.jsonl:{}: label 'no-such-label' does not exist in labels.jsonl (neither a label \
             of repository '{shop}' nor a shared one)",
            issues + 4
        ),
        format!(
            "milestones.jsonl:{}: author 'nobody-here' does not exist in members.jsonl",
            milestones + 2
        ),
        format!(
            "releases.jsonl:{}: tag_name must not be empty",
            releases + 2
        ),
        format!(
            "repository_contributors.jsonl:{}: duplicate contributor '{}' of repository '{shop}'",
            contributors + 2,
            ds.repository_contributors[0].1.member
        ),
        format!("snapshots.jsonl:1: new issue '{shop}#424242' does not exist"),
        "7 error(s); the dataset was not changed".to_string(),
    ] {
        assert!(err.contains(&expected), "missing {expected:?} in:\n{err}");
    }
    // The release the snapshot lists came in valid: it is not among the errors.
    assert!(!err.contains("new release"), "{err}");
    assert_eq!(std::fs::read(&db).unwrap(), before, "the dataset changed");
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

/// Files beside the dataset other than the dataset itself.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "roost.db")
        .collect()
}
