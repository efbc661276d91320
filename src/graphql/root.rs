//! The root `Query` type: the queries of [`super::query`] and those of the mentorship
//! pages ([`super::mentorship`]), merged into one object.

use super::mentorship::MentorshipQuery;
use super::query::CoreQuery;

/// The root `Query` type.
#[derive(async_graphql::MergedObject, Default)]
pub struct Query(CoreQuery, MentorshipQuery);
