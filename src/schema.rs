//! How records are declared once and read from SQL. A response type (a REST body, a
//! GraphQL record) is declared with [`selected!`]: each field names the SQL
//! expression it is read from and how, so the select list and the reader are made
//! from the same lines and cannot fall out of step. An interchange record is declared
//! with [`stored!`]: each field says where the dataset keeps it, and the writer's
//! `INSERT` and the export's select list come from that (docs/architecture.md §3).

pub mod code;
pub mod community;
pub mod exposure;
mod groups;
pub mod issues;
mod keys;
pub mod mentorship;
pub mod original;
mod row;
mod stored;
mod values;

pub use const_format::concatcp;
pub use keys::{
    lc, lc_node_id, node_id, repo_key, repo_node_id, scoped_lc_node_id, short_key,
    write_lc_node_id, write_lc_node_id_of, write_repo_node_id, NodeIdPrefix,
};
pub use row::{after_separator, select_width, Cols, ColumnsOf, Selected};
pub use stored::{insert_sql, json_column, Keep, Kind, Shadow, Stored, StoredRecord};
pub use values::{Color, Counts, Date, Ts};
