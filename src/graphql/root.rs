//! The root `Query` type: the queries of [`super::query`] (with the health dashboard's
//! and the board page's) and those of the mentorship pages ([`super::mentorship`]),
//! merged into one object.

use super::mentorship::MentorshipQuery;
use super::query::board::BoardQuery;
use super::query::health::HealthQuery;
use super::query::CoreQuery;

// The root `Query` type (a plain comment: a doc comment would become its SDL description).
#[derive(async_graphql::MergedObject, Default)]
pub struct Query(CoreQuery, HealthQuery, BoardQuery, MentorshipQuery);
