//! The GraphQL API (docs/api.md §6): HTTP and auth, the queries against the sample,
//! sessions, batching of relations, and the committed SDL.

mod budgets;
mod contributors;
mod cost;
mod dataloader;
mod http;
mod pages;
mod queries;
mod request_errors;
mod sdl;
mod sessions;
