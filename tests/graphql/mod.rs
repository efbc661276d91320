//! The GraphQL API (docs/api.md §6): HTTP and auth, the queries against the sample,
//! sessions, batching of relations, and the committed SDL.

mod dataloader;
mod http;
mod queries;
mod sdl;
mod sessions;
