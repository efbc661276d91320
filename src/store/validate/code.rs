//! Validating the code-hosting records (docs/data.md): repositories, their
//! contributors, labels (shared, or of one repository), milestones and releases.
//! Their keys are indexed with the rest (`Keys::build`); here, what only they need:
//! the labels' repositories and keys, the field checks, the contributors' references.

use std::collections::{HashMap, HashSet};

use super::{lc, non_empty, repo_key, segment, url_text, IdText, KeyIndex, Keys};
use crate::records::{Dataset, Label, Records};

/// Field checks of repositories, labels and releases.
pub(super) fn check_fields(ds: &Dataset, e: &mut Vec<String>) {
    for (o, r) in &ds.repositories {
        segment(o, "name", &r.name, e);
    }
    for (o, r) in &ds.labels {
        non_empty(o, "name", &r.name, e);
    }
    for (o, r) in &ds.releases {
        non_empty(o, "tag_name", &r.tag_name, e);
        url_text(o, "tag_name", &r.tag_name, IdText::Tag, e);
    }
}

/// A label's key: its repository's id (0 for a shared label) and its name.
pub(super) fn label_key(repo: Option<i64>, name: &str) -> String {
    format!("{}#{}", repo.unwrap_or(0), lc(name))
}

/// The repository of each label: `None` for a shared label (neither `organization`
/// nor `repository`), `Some(0)` (and an error) for one naming only one of them or a
/// repository that does not exist.
pub(super) fn label_repositories(
    labels: &Records<Label>,
    repos: &KeyIndex,
    e: &mut Vec<String>,
) -> Vec<Option<i64>> {
    labels
        .iter()
        .map(|(o, l)| match (&l.organization, &l.repository) {
            (None, None) => None,
            (Some(org), Some(name)) => Some(repos.require(
                &repo_key(org, name),
                o,
                "repository",
                format_args!("{org}/{name}"),
                "repositories.jsonl",
                e,
            )),
            _ => {
                e.push(format!(
                    "{o}: a label names both its organization and its repository, or neither \
                     (a label shared by every repository)"
                ));
                Some(0)
            }
        })
        .collect()
}

/// Labels by repository and name: a name is unique per repository (and among the
/// shared labels), not across the dataset.
pub(super) fn label_index(
    labels: &Records<Label>,
    repo: &[Option<i64>],
    e: &mut Vec<String>,
) -> KeyIndex {
    let mut ids = HashMap::with_capacity(labels.len());
    for (i, (origin, l)) in labels.iter().enumerate() {
        if repo[i] == Some(0) {
            continue;
        }
        let key = label_key(repo[i], &l.name);
        if let Some(&first) = ids.get(&key) {
            let scope = match (&l.organization, &l.repository) {
                (Some(org), Some(name)) => format!("of repository '{org}/{name}'"),
                _ => "shared by every repository".to_string(),
            };
            e.push(format!(
                "{origin}: duplicate label name '{}' {scope} (first defined by {})",
                lc(&l.name),
                crate::records::first_defined(labels, first)
            ));
        } else {
            ids.insert(key, i as i64 + 1);
        }
    }
    KeyIndex { ids }
}

pub(super) fn release_key(org: &str, repo: &str, tag: &str) -> String {
    format!("{}@{tag}", repo_key(org, repo))
}

pub(super) fn resolve_contributors(
    ds: &Dataset,
    keys: &Keys,
    e: &mut Vec<String>,
) -> Vec<(i64, i64)> {
    let mut seen = HashSet::new();
    ds.repository_contributors
        .iter()
        .map(|(o, c)| {
            let pair = (
                keys.repo(o, &c.organization, &c.repository, e),
                keys.member(o, "member", &c.member, e),
            );
            if pair.0 != 0 && pair.1 != 0 && !seen.insert(pair) {
                e.push(format!(
                    "{o}: duplicate contributor '{}' of repository '{}/{}'",
                    c.member, c.organization, c.repository
                ));
            }
            pair
        })
        .collect()
}
