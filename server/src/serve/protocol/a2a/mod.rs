//! A2A v1.0 over JSON-RPC (`POST /w/{workspace}/a2a/{agent}`, Agent Card at
//! `GET /w/{workspace}/a2a/{agent}/.well-known/agent-card.json`): every Baton agent of a
//! workspace is an A2A agent, its bot id the tenant. A task is a handoff to that agent, made by
//! the caller — the key's bot (`bot:ID` keys), or `a2a-client` for host and admin keys — from a
//! thread of its own per A2A context (`a2a-<contextId>`, opened on first use). Everything a
//! method does runs inside the workspace's writer as one command of a batch (`execute`), so
//! it commits with its records and is answered after the commit.
//!
//! Served: `SendMessage` (no task id: `handoff`; with one: `handoff_send`, or the answer to
//! the child's pending `ask_user`), `GetTask`, `ListTasks` (the caller's tasks on this agent,
//! newest first, paged by an offset token), `CancelTask` (`handoff_cancel`), as SSE
//! `SendStreamingMessage` and `SubscribeToTask` (`follow.rs`: each event is one log record's,
//! its id that record's sequence number), and the push-config methods (`push.rs`: a config is
//! the task's host callback, G14). Task states follow the table in docs/DECISIONS.md
//! ("A2A v1.0"); the fixture agent (`--fixture-agent`) is `fixture.rs`.
//!
//! In layers, each file importing only those below it: `code.rs` (error codes) and `task.rs`
//! (a handoff rendered as a task), `follow.rs` and `generation.rs` (a task's stream and its
//! count, folded from the log), `request.rs` (what a method is and the lookups it shares),
//! `push.rs`, `history.rs` and `fixture.rs`, `ops.rs` (the methods), then the bindings
//! (`http.rs`, `rest.rs`, `grpc.rs`, with `protojson.rs`). This file only assembles.
pub mod code;
mod fixture;
mod follow;
mod generation;
pub mod grpc;
mod history;
pub mod http;
pub mod ops;
mod protojson;
mod push;
mod request;
pub mod rest;
mod task;

pub use push::RENDER as PUSH_RENDER;
