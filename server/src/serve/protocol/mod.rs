//! The protocols a client speaks to `baton serve`: JSON-RPC ([`jsonrpc`]), the event streams
//! ([`sse`]), MCP ([`mcp`]) and A2A ([`a2a`]). Each parses its own framing and hands typed
//! commands and jobs to the workspace's writer.
pub mod a2a;
pub mod jsonrpc;
pub mod mcp;
pub mod sse;
