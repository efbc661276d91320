//! A month's new releases written as JSON straight from their rows.
//!
//! A plain list ([`super::plain`]) is written from records: each row is first read
//! into a [`super::records::Release`] (a `String` allocated and copied per text
//! column, the author's card another record), then written, then freed. For the
//! snapshot page's hundreds of releases that reading and freeing cost several times
//! the writing. Here a selection of releases that asks only for what a
//! [`super::records::SummaryRelease`] reads, under the fields' own names, becomes a
//! [`ReleasePlan`]: the fields in the selection's order, packed into one integer so
//! that it can travel in the dataloader's key ([`SnapshotReleaseRows`]). The loader
//! reads the releases' rows ([`super::records::ReleaseRow`], the statements of
//! [`SnapshotReleaseRowsOf`]) and writes each row's object with the plan, each text
//! escaped from where SQLite holds it, into one buffer; no record is made. A
//! release's `organizationName`, `repositoryName` and `projectName`, and the
//! repository's part of its `id`, are its repository's in the dataset file's kept
//! facts ([`super::totals`]), kept as JSON, not two joins and a subquery per release;
//! a release the joins would leave out (its repository or organization is missing)
//! the loader leaves out. Its author's card is likewise kept, written as it is. An alias (a key the integer cannot hold), or anything a
//! plain list refuses, leaves the list to [`super::plain`] as before, and a test
//! compares the bytes of the two paths (`release_rows_answer_the_bytes_records_do`).

use std::str::Utf8Error;

use async_graphql::parser::types::{Field, Selection, SelectionSet};
use rusqlite::types::{Type, ValueRef};
use rusqlite::Row;

use super::escape::{string, text};
use super::records::relations::{ListKey, SnapshotReleaseRowsOf};
use super::totals::{CardBytes, Totals};
use crate::schema::{write_lc_node_id_of, Ts};

/// The fields of a release a [`ReleasePlan`] writes, by their GraphQL names, in the
/// order of their codes (1 to 9).
const RELEASE_FIELDS: [&str; 9] = [
    "id",
    "tagName",
    "name",
    "isPreRelease",
    "organizationName",
    "repositoryName",
    "projectName",
    "publishedAt",
    "author",
];

/// The keys of [`RELEASE_FIELDS`] as JSON, with their colons.
const RELEASE_KEYS: [Key; 9] = [
    Key::of(b"\"id\":"),
    Key::of(b"\"tagName\":"),
    Key::of(b"\"name\":"),
    Key::of(b"\"isPreRelease\":"),
    Key::of(b"\"organizationName\":"),
    Key::of(b"\"repositoryName\":"),
    Key::of(b"\"projectName\":"),
    Key::of(b"\"publishedAt\":"),
    Key::of(b"\"author\":"),
];

/// The width of a [`Key`]: the longest key, with its comma and colon, fits.
const KEY_WIDTH: usize = 24;

/// An object's key as it is written after another: a comma, the key as JSON with its
/// colon, padded with spaces to [`KEY_WIDTH`] bytes, and the length without them.
struct Key {
    padded: [u8; KEY_WIDTH],
    len: usize,
}

impl Key {
    const fn of(json: &[u8]) -> Key {
        assert!(json.len() < KEY_WIDTH, "a key longer than KEY_WIDTH");
        let mut padded = [b' '; KEY_WIDTH];
        padded[0] = b',';
        let mut i = 0;
        while i < json.len() {
            padded[1 + i] = json[i];
            i += 1;
        }
        Key {
            padded,
            len: 1 + json.len(),
        }
    }

    /// The key as JSON with its colon.
    #[cfg(test)]
    fn json(&self) -> &[u8] {
        &self.padded[1..self.len]
    }
}

/// The codes of `id`, `organizationName`, `repositoryName`, `projectName` and
/// `author` in [`RELEASE_FIELDS`].
const ID: u64 = 1;
const ORGANIZATION_NAME: u64 = 5;
const REPOSITORY_NAME: u64 = 6;
const PROJECT_NAME: u64 = 7;
const AUTHOR: u64 = 9;

/// The fields of an author's card, by their GraphQL names, in the order of their
/// codes (1 to 4).
const CARD_FIELDS: [&str; 4] = ["id", "login", "name", "avatarUrl"];

/// The keys of [`CARD_FIELDS`] as JSON, with their colons.
const CARD_KEYS: [Key; 4] = [
    Key::of(b"\"id\":"),
    Key::of(b"\"login\":"),
    Key::of(b"\"name\":"),
    Key::of(b"\"avatarUrl\":"),
];

/// Bits of a release field's code, and where the author's fields start.
const FIELD_BITS: u32 = 4;
const CARD_SHIFT: u32 = FIELD_BITS * RELEASE_FIELDS.len() as u32;
/// Bits of a card field's code.
const CARD_BITS: u32 = 3;

/// The columns a row is read by here, from its first item column: the positions of
/// [`ReleaseRow`]'s fields.
mod col {
    use super::super::records::ReleaseRow;
    use crate::schema::ColumnsOf;

    type Row = ColumnsOf<ReleaseRow>;
    pub const TAG_NAME: usize = Row::tag_name;
    pub const NAME: usize = Row::name;
    pub const IS_PRE_RELEASE: usize = Row::is_pre_release;
    pub const REPOSITORY_ID: usize = Row::repository_id;
    pub const PUBLISHED_AT: usize = Row::published_at;
    pub const AUTHOR_ID: usize = Row::author_id;
}

/// How to write a release of a selection: the codes of its fields in the selection's
/// order, four bits each from the lowest (0 ends the list), then from bit
/// [`CARD_SHIFT`] the codes of the author's fields, three bits each. Each field
/// appears once, so the list fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReleasePlan(u64);

impl ReleasePlan {
    /// The plan of `set`, or `None` when it asks for anything but the fields of
    /// [`RELEASE_FIELDS`] and an author's [`CARD_FIELDS`], each once, unaliased,
    /// without arguments or directives.
    pub fn of(set: &SelectionSet) -> Option<ReleasePlan> {
        let mut code = 0;
        let mut at = 0;
        for field in fields(set, RELEASE_FIELDS.len())? {
            let index = RELEASE_FIELDS
                .iter()
                .position(|f| *f == field.name.node.as_str())?;
            let field_code = index as u64 + 1;
            if field_code == AUTHOR {
                let mut card = 0;
                let mut card_at = 0;
                for field in fields(&field.selection_set.node, CARD_FIELDS.len())? {
                    let index = CARD_FIELDS
                        .iter()
                        .position(|f| *f == field.name.node.as_str())?;
                    card |= (index as u64 + 1) << card_at;
                    card_at += CARD_BITS;
                }
                code |= card << CARD_SHIFT;
            }
            code |= field_code << at;
            at += FIELD_BITS;
        }
        Some(ReleasePlan(code))
    }

    /// The release fields' codes in order.
    fn steps(self) -> impl Iterator<Item = u64> {
        codes(self.0 & ((1 << CARD_SHIFT) - 1), FIELD_BITS)
    }

    /// The author's fields' codes in order.
    fn card_steps(self) -> impl Iterator<Item = u64> {
        codes(self.0 >> CARD_SHIFT, CARD_BITS)
    }

    /// Writes the release of `row` (its item columns from `at`) as a JSON object of
    /// the plan's fields, as async-graphql writes a [`super::records::Release`] read
    /// from it, with its repository's texts and its author's card from the dataset
    /// file's kept facts ([`Totals::repositories`], [`Totals::authors`]). Returns
    /// `false`, writing nothing, for a release that the records' joins leave out:
    /// its repository or organization is missing.
    pub fn write(
        self,
        row: &Row<'_>,
        at: usize,
        kept: &Totals,
        out: &mut Vec<u8>,
    ) -> rusqlite::Result<bool> {
        let release = ReleaseRow::read(row, at)?;
        let Some(facts) = kept.repositories.get(release.repository_id) else {
            return Ok(false);
        };
        // As the records' `LEFT JOIN`: an author whose row is missing is none. Reading
        // an author's card fails for a value that is not text or not UTF-8, whatever
        // the plan.
        let author = match release.author_id.and_then(|id| kept.authors.get(id)) {
            Some(Ok(card)) => Some(card),
            Some(Err(unreadable)) => return Err(unreadable.error(at + col::AUTHOR_ID)),
            None => None,
        };
        // Reading the organization's login or the repository's name as a `String`
        // fails for a value that is not text or not UTF-8, whatever the plan.
        let repository = match &facts.texts {
            Ok(texts) => texts,
            Err(unreadable) => return Err(unreadable.error(at + col::REPOSITORY_ID)),
        };
        let check = |written: Result<(), Utf8Error>, column: usize| {
            written.map_err(|e| not_utf8(at + column, e))
        };
        for (i, step) in self.steps().enumerate() {
            key(i, &RELEASE_KEYS[step as usize - 1], out);
            match step {
                ID => {
                    let tag = release.tag_name;
                    if !tag.is_ascii() {
                        check(std::str::from_utf8(tag).map(drop), col::TAG_NAME)?;
                    }
                    out.push(b'"');
                    repository.release_id.write(out, tag);
                    out.push(b'"');
                }
                2 => check(text(release.tag_name, out), col::TAG_NAME)?,
                3 => check(text(release.name, out), col::NAME)?,
                4 => out.extend_from_slice(if release.is_pre_release {
                    b"true"
                } else {
                    b"false"
                }),
                ORGANIZATION_NAME => out.extend_from_slice(repository.organization),
                REPOSITORY_NAME => out.extend_from_slice(repository.name),
                PROJECT_NAME => out.extend_from_slice(facts.project),
                8 => match release.published_at {
                    Some(t) => timestamp(t, out),
                    None => out.extend_from_slice(b"null"),
                },
                _ => match author {
                    Some(card) => self.write_card(card, at, out)?,
                    None => out.extend_from_slice(b"null"),
                },
            }
        }
        out.push(b'}');
        Ok(true)
    }

    /// Writes the author's `card` (UTF-8 texts) as a JSON object of the plan's card
    /// fields.
    fn write_card(self, card: CardBytes<'_>, at: usize, out: &mut Vec<u8>) -> rusqlite::Result<()> {
        // The texts were checked when they were kept: nothing fails here.
        let fail = |e| not_utf8(at + col::AUTHOR_ID, e);
        for (i, step) in self.card_steps().enumerate() {
            key(i, &CARD_KEYS[step as usize - 1], out);
            match step {
                1 => {
                    out.push(b'"');
                    write_lc_node_id_of(out, "User", card.login).map_err(fail)?;
                    out.push(b'"');
                }
                2 => text(card.login, out).map_err(fail)?,
                3 => text(card.name, out).map_err(fail)?,
                _ => text(card.avatar_url, out).map_err(fail)?,
            }
        }
        out.push(b'}');
        Ok(())
    }
}

/// The columns of a release's row, each read once, its text borrowed from the row
/// (checked to be UTF-8 where it is written), with the types (and the errors for any
/// other type) of the record's fields.
struct ReleaseRow<'r> {
    tag_name: &'r [u8],
    name: &'r [u8],
    is_pre_release: bool,
    repository_id: i64,
    published_at: Option<i64>,
    author_id: Option<i64>,
}

impl<'r> ReleaseRow<'r> {
    fn read(row: &'r Row<'_>, at: usize) -> rusqlite::Result<ReleaseRow<'r>> {
        Ok(ReleaseRow {
            tag_name: bytes(row, at + col::TAG_NAME)?,
            name: bytes(row, at + col::NAME)?,
            is_pre_release: integer(row, at + col::IS_PRE_RELEASE)? != 0,
            repository_id: integer(row, at + col::REPOSITORY_ID)?,
            published_at: optional_integer(row, at + col::PUBLISHED_AT)?,
            author_id: optional_integer(row, at + col::AUTHOR_ID)?,
        })
    }
}

/// The fields of `set`, at most `most` of them, each once and plain: unaliased (its
/// key is its name), without arguments or directives; `None` for anything else.
fn fields(set: &SelectionSet, most: usize) -> Option<Vec<&Field>> {
    if set.items.is_empty() || set.items.len() > most {
        return None;
    }
    let mut out: Vec<&Field> = Vec::with_capacity(set.items.len());
    for selection in &set.items {
        let Selection::Field(field) = &selection.node else {
            return None;
        };
        let field = &field.node;
        if field.alias.is_some()
            || !field.arguments.is_empty()
            || !field.directives.is_empty()
            || out.iter().any(|f| f.name.node == field.name.node)
        {
            return None;
        }
        out.push(field);
    }
    Some(out)
}

/// The codes packed in `bits`-bit fields of `packed`, up to the first 0.
fn codes(mut packed: u64, bits: u32) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        let code = packed & ((1 << bits) - 1);
        packed >>= bits;
        (code != 0).then_some(code)
    })
}

/// An object's key: the comma before every key but the first (the `{` before the
/// first), then the key.
/// The key is copied as its whole [`Key`] block (a copy of fixed size, made in place,
/// where a copy of the key's own length calls `memcpy`) and the padding cut off; the
/// first key's comma becomes the object's `{`.
fn key(i: usize, key: &Key, out: &mut Vec<u8>) {
    let at = out.len();
    out.extend_from_slice(&key.padded);
    out.truncate(at + key.len);
    if i == 0 {
        out[at] = b'{';
    }
}

/// The error of column `i`'s text not being UTF-8.
fn not_utf8(i: usize, e: Utf8Error) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(i, Type::Text, Box::new(e))
}

/// `t` (microseconds since 1970) as [`Ts::format`] writes it, as a JSON string:
/// `YYYY-MM-DDTHH:MM:SSZ`, with six fraction digits when the fraction is not zero.
/// The calendar date is computed here for the years 1970 to 9999 (days to civil
/// date, Howard Hinnant's algorithm); other times go through [`Ts::format`].
fn timestamp(t: i64, out: &mut Vec<u8>) {
    /// 10000-01-01T00:00:00Z in microseconds.
    const END: i64 = 253_402_300_800_000_000;
    if !(0..END).contains(&t) {
        string(&Ts(t).format(), out);
        return;
    }
    // In range, every quantity is whole and small: unsigned arithmetic, without
    // the sign corrections of signed division.
    let t = t as u64;
    let (seconds, micros) = (t / 1_000_000, (t % 1_000_000) as u32);
    let (days, second) = ((seconds / 86_400) as u32, (seconds % 86_400) as u32);
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy + 1 - (153 * mp + 2) / 5;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u32::from(month <= 2);
    let mut text = *b"\"0000-00-00T00:00:00.000000Z\"";
    // Two digits at a time.
    let mut put = |at: usize, n: u32| {
        let i = 2 * n as usize;
        text[at..at + 2].copy_from_slice(&DIGIT_PAIRS[i..i + 2]);
    };
    put(1, year / 100);
    put(3, year % 100);
    put(6, month);
    put(9, day);
    put(12, second / 3_600);
    put(15, second / 60 % 60);
    put(18, second % 60);
    if micros == 0 {
        out.extend_from_slice(&text[..20]);
        out.extend_from_slice(b"Z\"");
    } else {
        put(21, micros / 10_000);
        put(23, micros / 100 % 100);
        put(25, micros % 100);
        out.extend_from_slice(&text);
    }
}

/// The numbers 00 to 99 as two digits each.
const DIGIT_PAIRS: [u8; 200] = {
    let mut pairs = [0; 200];
    let mut n = 0;
    while n < 100 {
        pairs[2 * n] = b'0' + (n / 10) as u8;
        pairs[2 * n + 1] = b'0' + (n % 10) as u8;
        n += 1;
    }
    pairs
};

/// Column `i` as the bytes of its text (an error for any other type, as reading a
/// `String` is).
fn bytes<'r>(row: &'r Row<'_>, i: usize) -> rusqlite::Result<&'r [u8]> {
    match row.get_ref(i)? {
        ValueRef::Text(text) => Ok(text),
        value => Err(mismatch(i, value)),
    }
}

/// Column `i` as an integer (an error for any other type, as reading an `i64` is).
fn integer(row: &Row<'_>, i: usize) -> rusqlite::Result<i64> {
    let value = row.get_ref(i)?;
    value.as_i64().map_err(|_| mismatch(i, value))
}

/// Column `i` as an integer, or `None` when it is null.
fn optional_integer(row: &Row<'_>, i: usize) -> rusqlite::Result<Option<i64>> {
    match row.get_ref(i)? {
        ValueRef::Null => Ok(None),
        value => value.as_i64().map(Some).map_err(|_| mismatch(i, value)),
    }
}

/// The error of reading column `i`, holding `value`, as a type it is not.
fn mismatch(i: usize, value: ValueRef<'_>) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnType(i, String::new(), value.data_type())
}

/// A snapshot's new releases written with a plan: the loader reads them with the
/// statements of [`SnapshotReleaseRowsOf`] (whole, or numbered for a snapshot with
/// more than its limit) and answers each key with the JSON array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SnapshotReleaseRows(pub i64, pub ReleasePlan);

impl SnapshotReleaseRows {
    /// The relation whose statements and limit read the rows.
    pub fn relation(self) -> SnapshotReleaseRowsOf {
        SnapshotReleaseRowsOf(self.0)
    }

    pub fn limit(self) -> i64 {
        self.relation().limit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::parser::parse_query;
    use async_graphql::parser::types::{DocumentOperations, Selection};

    /// The selection set of `newReleases` in `{ newReleases { ... } }`.
    fn plan(fields: &str) -> Option<ReleasePlan> {
        let doc = parse_query(format!("{{ newReleases {{ {fields} }} }}")).unwrap();
        let DocumentOperations::Single(op) = &doc.operations else {
            unreachable!()
        };
        let Selection::Field(field) = &op.node.selection_set.node.items[0].node else {
            unreachable!()
        };
        ReleasePlan::of(&field.node.selection_set.node)
    }

    #[test]
    fn plans_keep_the_selection_order_and_refuse_the_rest() {
        let page = plan(
            "id name organizationName projectName publishedAt repositoryName tagName \
             isPreRelease author { avatarUrl id login name }",
        )
        .unwrap();
        assert_eq!(
            page.steps().collect::<Vec<_>>(),
            [1, 3, 5, 7, 8, 6, 2, 4, 9]
        );
        assert_eq!(page.card_steps().collect::<Vec<_>>(), [4, 1, 2, 3]);
        let short = plan("publishedAt").unwrap();
        assert_eq!(short.steps().collect::<Vec<_>>(), [8]);
        assert_eq!(short.card_steps().count(), 0);
        for refused in [
            "tag: tagName",
            "tagName author { handle: login }",
            "tagName tagName",
            "author { login login }",
            "description",
            "createdAt",
            "url",
            "__typename",
            "author { bio }",
            "name @include(if: true)",
            "... on Release { name }",
            "author { ... on User { login } }",
        ] {
            assert_eq!(plan(refused), None, "{refused}");
        }
    }

    #[test]
    fn keys_are_the_fields_as_json() {
        for (key, field) in RELEASE_KEYS.iter().zip(RELEASE_FIELDS) {
            assert_eq!(key.json(), format!("\"{field}\":").as_bytes());
        }
        for (key, field) in CARD_KEYS.iter().zip(CARD_FIELDS) {
            assert_eq!(key.json(), format!("\"{field}\":").as_bytes());
        }
    }

    /// Timestamps as [`Ts::format`] writes them: either side of every field's
    /// rollover, leap days, with and without a fraction, and outside 1970 to 9999.
    #[test]
    fn timestamps_are_written_as_ts_formats_them() {
        let mut times = vec![
            0,
            1,
            999_999,
            1_000_000,
            951_782_400_000_000,
            951_868_799_999_999,
            4_107_542_400_000_000,
            253_402_300_799_999_999,
            253_402_300_800_000_000,
            -1,
            -86_400_000_000,
            i64::MAX,
            i64::MIN,
        ];
        let mut t: i64 = 12_345;
        for _ in 0..20_000 {
            t = t
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            times.push((t >> 8).rem_euclid(253_402_300_800_000_000));
            times.push((t >> 8).rem_euclid(253_402_300_800) * 1_000_000);
        }
        for t in times {
            let mut out = Vec::new();
            timestamp(t, &mut out);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(&Ts(t).format()).unwrap(),
                "{t}"
            );
        }
    }
}
