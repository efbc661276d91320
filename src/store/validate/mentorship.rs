//! Validating mentorship programs and modules (docs/data.md): program keys unique
//! case-insensitively, module keys unique within their program, keys fit for URLs,
//! periods that end after they start, and every reference resolved: a module's
//! program and project, the members listed as admins, mentors and mentees (each once).
//! Every error as `file:line: what is wrong`.

use super::{lc, non_empty, segment, KeyIndex, Keys};
use crate::records::{Dataset, Module, Origin, Program, Records, Ts};

/// The resolved ids of the mentorship records.
pub(in crate::store) struct Mentorship {
    /// Member ids of each program's admins, in the order listed.
    pub admins: Vec<Vec<i64>>,
    /// The program of each module.
    pub module_program: Vec<i64>,
    /// The project of each module (none when it names none).
    pub module_project: Vec<Option<i64>>,
    /// Member ids of each module's mentors and mentees, in the order listed.
    pub mentors: Vec<Vec<i64>>,
    pub mentees: Vec<Vec<i64>>,
}

impl Mentorship {
    pub(super) fn resolve(ds: &Dataset, keys: &Keys, e: &mut Vec<String>) -> Mentorship {
        let programs = KeyIndex::build(&ds.programs, "program key", |p| lc(&p.key), e);
        KeyIndex::build(
            &ds.modules,
            "module",
            |m| format!("{}/{}", lc(&m.program), lc(&m.key)),
            e,
        );
        for (o, p) in &ds.programs {
            key_and_name(o, &p.key, &p.name, e);
            period(o, p.started_at, p.ended_at, e);
        }
        for (o, m) in &ds.modules {
            key_and_name(o, &m.key, &m.name, e);
            period(o, m.started_at, m.ended_at, e);
        }
        let admins = members_of(keys, &ds.programs, "admin", |x: &Program| &x.admins, e);
        let module_program = ds
            .modules
            .iter()
            .map(|(o, m)| {
                let file = "programs.jsonl";
                programs.require(&lc(&m.program), o, "program", &m.program, file, e)
            })
            .collect();
        let module_project = ds
            .modules
            .iter()
            .map(|(o, m)| m.project.as_ref().map(|key| keys.project(o, key, e)))
            .collect();
        let mentors = members_of(keys, &ds.modules, "mentor", |x: &Module| &x.mentors, e);
        let mentees = members_of(keys, &ds.modules, "mentee", |x: &Module| &x.mentees, e);
        Mentorship {
            admins,
            module_program,
            module_project,
            mentors,
            mentees,
        }
    }
}

/// A key that can go into a URL, and a name.
fn key_and_name(o: &Origin, key: &str, name: &str, e: &mut Vec<String>) {
    segment(o, "key", key, e);
    non_empty(o, "name", name, e);
}

fn period(o: &Origin, started_at: Ts, ended_at: Ts, e: &mut Vec<String>) {
    if ended_at.0 < started_at.0 {
        e.push(format!(
            "{o}: ended_at {} is before started_at {}",
            ended_at.format(),
            started_at.format()
        ));
    }
}

/// The member ids each of `records` lists as `what` (admin, mentor, mentee).
fn members_of<T>(
    keys: &Keys,
    records: &Records<T>,
    what: &str,
    logins: fn(&T) -> &Vec<String>,
    e: &mut Vec<String>,
) -> Vec<Vec<i64>> {
    records
        .iter()
        .map(|(o, x)| members(keys, o, what, logins(x), e))
        .collect()
}

/// The member ids of `logins` (`what`: admin, mentor, mentee); a login listed twice
/// or missing from members.jsonl is an error.
fn members(
    keys: &Keys,
    o: &Origin,
    what: &str,
    logins: &[String],
    e: &mut Vec<String>,
) -> Vec<i64> {
    let mut ids: Vec<i64> = Vec::new();
    for login in logins {
        let id = keys.member(o, &format!("{what} login"), login, e);
        if id == 0 {
            continue;
        }
        if ids.contains(&id) {
            e.push(format!("{o}: {what} '{login}' is listed twice"));
            continue;
        }
        ids.push(id);
    }
    ids
}
