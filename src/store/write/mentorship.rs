//! Writing mentorship programs and modules, with their admins, mentors and mentees
//! (after the members and projects they refer to).

use rusqlite::{params, Connection, Statement};

use super::{execute, id, insert_into, prepare, StoreError};
use crate::records::{Dataset, Module, Program};
use crate::store::validate::Mentorship;

/// Inserts the programs and modules of a validated dataset.
pub(super) fn insert(conn: &Connection, ds: &Dataset, r: &Mentorship) -> Result<(), StoreError> {
    let mut st = prepare::<Program>(conn, &["id"])?;
    let mut admins = people(conn, "program_admins", "program_id")?;
    for (i, (_, x)) in ds.programs.iter().enumerate() {
        execute(&mut st, &[&id(i)], x)?;
        for (pos, member) in r.admins[i].iter().enumerate() {
            admins.execute(params![id(i), member, pos as i64])?;
        }
    }

    let mut st = prepare::<Module>(conn, &["id", "program_id", "project_id"])?;
    let mut mentors = people(conn, "module_mentors", "module_id")?;
    let mut mentees = people(conn, "module_mentees", "module_id")?;
    for (i, (_, x)) in ds.modules.iter().enumerate() {
        execute(
            &mut st,
            &[&id(i), &r.module_program[i], &r.module_project[i]],
            x,
        )?;
        for (pos, member) in r.mentors[i].iter().enumerate() {
            mentors.execute(params![id(i), member, pos as i64])?;
        }
        for (pos, member) in r.mentees[i].iter().enumerate() {
            mentees.execute(params![id(i), member, pos as i64])?;
        }
    }
    Ok(())
}

/// The `INSERT` of a list of members of a program or module (`table`, whose record
/// column is `column`).
fn people<'c>(
    conn: &'c Connection,
    table: &str,
    column: &str,
) -> Result<Statement<'c>, StoreError> {
    insert_into(conn, table, &[column, "member_id", "position"])
}
