//! The GraphQL API for the web frontend.
