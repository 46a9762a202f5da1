//! `baton serve`'s command line: the options it takes (`USAGE`) and how they are read.
use super::app::valid_name;
use super::storage::sqlite;
use super::writer::callbacks;
use std::path::PathBuf;

pub const USAGE: &str =
    "usage: baton serve --db PATH|postgres://… [--addr HOST:PORT] [--sync full|normal] [--snapshot-every N]
                   [--lease-ms N] [--advertise URL] [--fixture-agent BOT]... [--a2a-default WS/AGENT]
                   [--rate-limit N] [--cors-origin ORIGIN]... [--max-db-mb N]
                   [--allow-private-callbacks] [--callback-backoff-ms N] [--callback-ca FILE]

Serves Baton over HTTP: many workspaces, kept in one SQLite file (created if missing), or
in a Postgres database that several nodes share.
  --db PATH           the SQLite file (required), or a Postgres connection string
                      (postgres://user:password@host:port/db): the tables are created if
                      missing, and every node started on the same database serves every
                      workspace — one node writes a workspace at a time (a lease in the
                      database); the others forward its commands to that node and serve its
                      log and streams themselves
  --lease-ms N        Postgres: how long a node's hold on a workspace lasts without renewal
                      (default 5000; renewed every third of it). When a node dies, another
                      takes its workspaces within about 1.3 times this
  --advertise URL     Postgres: where the other nodes reach this one (default
                      http://<the listening address>)
  --fixture-agent BOT this agent answers A2A tasks by script instead of a model (for A2A
                      clients, conformance suites and demos): a message 'fail: WHY' fails
                      the task, 'ask: QUESTION' asks for input (the next message answers and
                      completes it), anything else completes it ('complete: TEXT' → TEXT)
  --a2a-default WS/AGENT
                      the agent whose Agent Card /.well-known/agent-card.json serves (the
                      per-agent cards are always at /w/WS/a2a/AGENT/.well-known/agent-card.json)
  --addr HOST:PORT    where to listen (default 127.0.0.1:7410; port 0 picks a free one)
  --sync full|normal  full (default): a command is answered once it is on disk (fsync);
                      normal: once it is in the write-ahead log (survives a crash of the
                      process, not of the machine)
  --snapshot-every N  records between a workspace's snapshots (default 10000; opening reads
                      the latest snapshot and the records after it)
  --rate-limit N      requests per second per key (default 200, bursts of twice that); over it,
                      HTTP 429 and the JSON-RPC error rate_limited with retry_after_ms
  --max-db-mb N       the most the database file and its records files may hold together
                      (default: no limit but the disk); when it is full, commands are
                      refused with storage_failed, nothing of them is kept, and reads and
                      streams go on
  --allow-private-callbacks
                      post callback_url callbacks (G14) to loopback, private and link-local
                      addresses too (refused by default: SSRF guard)
  --callback-backoff-ms N
                      the wait before a callback's second attempt (default 500; each later
                      attempt waits twice as long, at most a minute)
  --callback-ca FILE  also trust the certificates in this PEM file for https:// callbacks
                      (a private CA); repeat for more. The Mozilla roots are always trusted
  --cors-origin O     a browser origin allowed to call (the console's, e.g. http://127.0.0.1:8080);
                      repeat for more; none by default
The admin key is read from BATON_ADMIN_KEY; when unset, one is made and printed once.
Logs go to stderr (RUST_LOG=debug for more).

Endpoints
  GET  /healthz                 200 once the database is open
  GET  /metrics                 Prometheus text
  POST /w/{workspace}/rpc       JSON-RPC 2.0 (batches allowed), Authorization: Bearer KEY
       methods: create_workspace (admin), create_key {principal, expires_in_seconds?}
       (admin; principal is host | bot:ID | teammate:HANDLE; answers the key once and its
       key_id), list_keys (admin; ids, principals, states, times — never the keys),
       revoke_key {key_id} (admin; refused from then on, on every node),
       rotate_key {key_id, grace_seconds?, expires_in_seconds?} (admin; a new key for the
       same principal; the old one revoked, or expiring after grace_seconds),
       call {tool, args, as}, host {input, args} (host keys: every input; a bot:ID key: a
       thread's own activity, for its bot's threads),
       effects {after, limit} (the effects after a number, for this key), log {after,
       limit} (host; the records after a sequence number, oldest first, at most limit,
       default 1000, up to 10000), export (host; a snapshot of the state, as lines),
       writer (host; which node writes the workspace: node, url, current).
       call and host take an optional idempotency_key (1-256 characters): a command sent
       again with the same key (by the same principal) gets the first answer and is not run
       twice; the same key with a different request is refused (invalid_params)
  GET  /w/{workspace}/events    the log as Server-Sent Events (host); each event's id is
       its record's sequence number; Last-Event-ID (header or ?last_event_id=) resumes
       after it exactly: every later record, none twice
  /w/{workspace}/mcp            MCP (Streamable HTTP; the current revision and the previous,
       session-based one): tools/list and tools/call with the key's principal as caller;
       bind the calling thread with ?as=THREAD or a Baton-As: THREAD header (tools/list
       then answers that thread's tools_for), or per request with _meta
       {\"baton\": {\"as\": {\"thread\", \"bot\"}}}. On the 2026-07-28 revision a client
       that declares io.modelcontextprotocol/tasks follows each handoff as a task
       (tasks/get, tasks/update answers the child's question, tasks/cancel)
  POST /w/{workspace}/a2a/{agent}
                                A2A 1.0 JSON-RPC (A2A-Version: 1.0; without it -32009): the
       agent is the tenant; SendMessage (a task is a handoff from the caller's context thread;
       with taskId: a follow-up, or the answer to the agent's question), GetTask, ListTasks
       (the caller's tasks, newest first, pageSize/pageToken), CancelTask, and as SSE (each
       event's id a log sequence number) SendStreamingMessage and SubscribeToTask. A bot:ID
       key calls as that bot, host and admin keys as a2a-client. Push notifications:
       CreateTaskPushNotificationConfig, GetTaskPushNotificationConfig,
       ListTaskPushNotificationConfigs, DeleteTaskPushNotificationConfig and
       configuration.taskPushNotificationConfig; a config is the task's host callback (G14);
       GetExtendedAgentCard. The A2A v1.1 draft's task generations as an extension (its
       URI in the card; named in A2A-Extensions): Task.generation, GetTask
       currentGeneration (long poll), SendMessage ifGenerationMatch (-32010 / 409)
  /w/{workspace}/a2a/{agent}/…  A2A 1.0 HTTP+JSON, the same operations at the spec's REST
       paths under the agent's URL (optionally after the tenant): POST message:send,
       POST message:stream, GET tasks, GET tasks/{id}, POST tasks/{id}:cancel,
       POST tasks/{id}:subscribe, POST|GET tasks/{id}/pushNotificationConfigs,
       GET|DELETE tasks/{id}/pushNotificationConfigs/{configId}, GET extendedAgentCard;
       query parameters in camelCase; errors as AIP-193 bodies with the spec's statuses
  POST /lf.a2a.v1.A2AService/…  A2A 1.0 gRPC (HTTP/2 on the same port), the same
       operations; the request's tenant is WORKSPACE/AGENT (empty: --a2a-default); the key
       and A2A-Version as metadata; errors as gRPC status with ErrorInfo details
  GET  /w/{workspace}/a2a/{agent}/.well-known/agent-card.json
                                the agent's Agent Card (a key of the workspace): all three bindings
  GET  /w/{workspace}/effects   the effects (what the host must do: start a child, wake a
       thread, post a callback) as Server-Sent Events, numbered, stored with the commands
       that caused them; each key gets those for its principal (host: all; bot: its bot's;
       teammate: its own); resumes like /events";

/// Where the server keeps its workspaces (`--db`).
pub enum Db {
    /// A SQLite file: one node.
    Sqlite(PathBuf),
    /// A Postgres database (`postgres://…`): one node or several.
    Postgres(String),
}

/// Parsed command line.
pub struct Options {
    pub db: Db,
    /// How long a workspace's lease lasts without renewal (Postgres).
    pub lease: std::time::Duration,
    /// Where other nodes reach this one (Postgres; default the listening address).
    pub advertise: Option<String>,
    /// Agents that answer A2A tasks by script.
    pub fixtures: Vec<String>,
    /// The agent whose card `/.well-known/agent-card.json` serves.
    pub a2a_default: Option<(String, String)>,
    pub addr: String,
    /// How the SQLite file is opened (`--sync`, `--max-db-mb`).
    pub sqlite: sqlite::Settings,
    /// Records between a workspace's snapshots (`--snapshot-every`).
    pub snapshot_every: u64,
    pub rate: u32,
    pub cors: Vec<String>,
    pub callbacks: callbacks::Policy,
}

/// Reads `serve`'s arguments (after the word `serve`).
pub fn parse_args(args: &[String]) -> Result<Options, String> {
    let (mut db, mut addr, mut sync) = (None, "127.0.0.1:7410".to_string(), sqlite::SyncMode::Full);
    let (mut snapshot_every, mut max_pages) = (sqlite::SNAPSHOT_EVERY, 0);
    let (mut rate, mut cors) = (200u32, Vec::new());
    let (mut allow_private, mut backoff, mut callback_ca) = (false, std::time::Duration::from_millis(500), Vec::new());
    let (mut lease, mut advertise) = (std::time::Duration::from_millis(5000), None);
    let (mut fixtures, mut a2a_default) = (Vec::new(), None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--db" => {
                let v = value()?;
                db = Some(if v.starts_with("postgres://") || v.starts_with("postgresql://") {
                    Db::Postgres(v)
                } else {
                    Db::Sqlite(PathBuf::from(v))
                });
            }
            "--lease-ms" => {
                let v = value()?;
                let ms = v.parse::<u64>().ok().filter(|n| *n >= 100);
                let ms = ms.ok_or_else(|| format!("--lease-ms takes a whole number of at least 100, not '{v}'"))?;
                lease = std::time::Duration::from_millis(ms);
            }
            "--fixture-agent" => fixtures.push(value()?),
            "--a2a-default" => {
                let v = value()?;
                match v.split_once('/') {
                    Some((w, a)) if valid_name(w) && !a.is_empty() => {
                        a2a_default = Some((w.to_string(), a.to_string()))
                    }
                    _ => return Err(format!("--a2a-default takes WORKSPACE/AGENT, not '{v}'")),
                }
            }
            "--advertise" => {
                let v = value()?;
                if !v.starts_with("http://") {
                    return Err(format!("--advertise takes this node's URL, like http://10.0.0.5:7410, not '{v}'"));
                }
                advertise = Some(v.trim_end_matches('/').to_string());
            }
            "--addr" => addr = value()?,
            "--sync" => {
                sync = match value()?.as_str() {
                    "full" => sqlite::SyncMode::Full,
                    "normal" => sqlite::SyncMode::Normal,
                    other => return Err(format!("--sync takes full or normal, not '{other}'")),
                }
            }
            "--snapshot-every" => {
                let v = value()?;
                let n = v.parse::<u64>().ok().filter(|n| *n > 0);
                let n = n.ok_or_else(|| format!("--snapshot-every takes a positive whole number, not '{v}'"))?;
                snapshot_every = n;
            }
            "--rate-limit" => {
                let v = value()?;
                rate = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("--rate-limit takes a positive whole number, not '{v}'"))?;
            }
            "--max-db-mb" => {
                let v = value()?;
                let mb = v.parse::<u64>().ok().filter(|n| *n > 0);
                let mb = mb.ok_or_else(|| format!("--max-db-mb takes a positive whole number, not '{v}'"))?;
                max_pages = mb * 256;
            }
            "--allow-private-callbacks" => allow_private = true,
            "--callback-ca" => callback_ca.push(PathBuf::from(value()?)),
            "--callback-backoff-ms" => {
                let v = value()?;
                let ms =
                    v.parse::<u64>().map_err(|_| format!("--callback-backoff-ms takes a whole number, not '{v}'"))?;
                backoff = std::time::Duration::from_millis(ms);
            }
            "--cors-origin" => {
                let v = value()?;
                if !(v.starts_with("http://") || v.starts_with("https://")) {
                    return Err(format!("--cors-origin takes an origin like http://127.0.0.1:8080, not '{v}'"));
                }
                cors.push(v.trim_end_matches('/').to_string());
            }
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    let callbacks = callbacks::Policy::new(allow_private, backoff, &callback_ca)?;
    let db = db.ok_or("--db PATH is required")?;
    let sqlite = sqlite::Settings { sync, max_pages, read_only: false };
    Ok(Options { db, lease, advertise, fixtures, a2a_default, addr, sqlite, snapshot_every, rate, cors, callbacks })
}
