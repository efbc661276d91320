//! Validating issues and pull requests (docs/data.md): their keys (`organization/
//! repository#number`), the labels an issue lists, a pull request's merge state.

use super::code::label_key;
use super::{repo_key, KeyIndex, Keys};
use crate::records::{Dataset, Issue, Origin, State};

/// Reports pull requests whose key is taken by another.
pub(super) fn index_pull_requests(ds: &Dataset, e: &mut Vec<String>) {
    KeyIndex::build(
        &ds.pull_requests,
        "pull request",
        |p| issue_key(&p.organization, &p.repository, p.number),
        e,
    );
}

/// Field checks of pull requests: a merged one is closed.
pub(super) fn check_pull_requests(ds: &Dataset, e: &mut Vec<String>) {
    for (o, p) in &ds.pull_requests {
        if p.merged_at.is_some() && p.state == State::Open {
            e.push(format!(
                "{o}: merged_at is set but state is open (a merged pull request is closed)"
            ));
        }
    }
}

pub(super) fn issue_key(org: &str, repo: &str, number: u64) -> String {
    format!("{}#{number}", repo_key(org, repo))
}

/// The labels of each issue (see [`issue_label_ids`]).
pub(super) fn resolve_labels(
    ds: &Dataset,
    keys: &Keys,
    issue_repo: &[i64],
    e: &mut Vec<String>,
) -> Vec<Vec<i64>> {
    ds.issues
        .iter()
        .enumerate()
        .map(|(index, (o, i))| issue_label_ids(keys, o, i, issue_repo[index], e))
        .collect()
}

/// The label ids of issue `i` of repository `repo`, in the order listed: a name is
/// looked up among the labels of the issue's repository first, then among the shared
/// ones.
pub(super) fn issue_label_ids(
    keys: &Keys,
    o: &Origin,
    i: &Issue,
    repo: i64,
    e: &mut Vec<String>,
) -> Vec<i64> {
    let mut ids: Vec<i64> = Vec::new();
    for name in &i.labels {
        let found = keys
            .labels
            .get(&label_key(Some(repo), name))
            .or_else(|| keys.labels.get(&label_key(None, name)));
        match found {
            Some(id) if ids.contains(&id) => e.push(format!("{o}: label '{name}' is listed twice")),
            Some(id) => ids.push(id),
            None => e.push(format!(
                "{o}: label '{name}' does not exist in labels.jsonl (neither a label \
                 of repository '{}/{}' nor a shared one)",
                i.organization, i.repository
            )),
        }
    }
    ids
}
