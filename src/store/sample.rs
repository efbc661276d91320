//! The sample dataset shipped inside the binary (`data/sample/`): what `roost db init`
//! writes and what the tests compare against.

use std::path::Path;

use super::read::COMMUNITY;
use super::{ImportErrors, StoreError};
use crate::records::Dataset;

/// The sample dataset shipped in the binary (`SAMPLE`: data/sample/ as (file,
/// contents)) and parsed (`sample_dataset`), one file per kind of record.
macro_rules! embed_kinds {
    ($($field:ident: $ty:ty),* $(,)?) => {
        pub const SAMPLE: &[(&str, &str)] = &[
            $((
                concat!(stringify!($field), ".jsonl"),
                include_str!(concat!("../../data/sample/", stringify!($field), ".jsonl")),
            ),)*
            (COMMUNITY, include_str!("../../data/sample/community.json")),
        ];

        /// The embedded sample as a dataset.
        pub fn sample_dataset() -> Result<Dataset, ImportErrors> {
            let mut errors = Vec::new();
            let e = &mut errors;
            let ds = Dataset {
                $($field: super::parse_lines(
                    concat!(stringify!($field), ".jsonl"),
                    include_str!(concat!("../../data/sample/", stringify!($field), ".jsonl"))
                        .as_bytes(),
                    e,
                ),)*
                community: super::read::parse_community(
                    include_str!("../../data/sample/community.json").as_bytes(),
                    e,
                ),
            };
            if errors.is_empty() {
                Ok(ds)
            } else {
                Err(ImportErrors(errors, 0))
            }
        }
    };
}
crate::with_kinds!(embed_kinds);

/// `roost db init`: the sample dataset at `db` (refused when `db` exists, unless `force`).
/// `derive`: the tables built beside the records ([`super::Derive`]).
pub fn init_db(db: &Path, force: bool, derive: super::Derive) -> Result<(), StoreError> {
    if db.exists() && !force {
        return Err(StoreError::Exists(db.to_path_buf()));
    }
    super::build(&sample_dataset()?, db, derive)
}
