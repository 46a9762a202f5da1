//! `baton serve`: Baton as a network service. Many workspaces in one SQLite file, each one
//! engine owned by its writer thread (`actor.rs`); JSON-RPC 2.0 over HTTP for commands
//! (`rpc.rs`), Server-Sent Events for the log with exact resume (`events.rs`), keys per
//! principal (`keys.rs`).
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

pub mod admin;
pub mod keys;
pub mod protocol;
pub mod storage;
pub mod writer;

use protocol::{a2a, jsonrpc, mcp, sse};
use storage::sqlite;
use writer::{actor, callbacks, cluster};

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
  --max-db-mb N       the most the database file may hold (default: no limit but the disk);
                      when it is full, commands are refused with storage_failed, nothing of
                      them is kept, and reads and streams go on
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
       key calls as that bot, host and admin keys as a2a-client. Push notifications: the
       four TaskPushNotificationConfig methods (Create, Get, List, Delete) and
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

/// What the handlers share.
pub struct App {
    /// The database (SQLite, or Postgres shared by several nodes).
    store: storage::Store,
    admin_key: String,
    /// The workspaces this node writes (on SQLite: every workspace).
    workspaces: Mutex<HashMap<String, actor::Workspace>>,
    /// Wake-up hints for the event streams: on Postgres, the workspaces with new commits (from
    /// `NOTIFY`, any node's); everywhere, `key:HASH` when a key was revoked or given an expiry
    /// (on Postgres from any node), so the streams opened with it look at it again.
    hint: tokio::sync::broadcast::Sender<Arc<str>>,
    shutdown: watch::Receiver<bool>,
    /// How callbacks are posted.
    callbacks: callbacks::Policy,
    /// Browser origins allowed to call (`--cors-origin`).
    origins: Vec<String>,
    /// Agents that answer A2A tasks by script (`--fixture-agent`).
    fixtures: Vec<String>,
    /// The agent whose card the root serves (`--a2a-default WORKSPACE/AGENT`).
    a2a_default: Option<(String, String)>,
    /// Each Agent Card this node served, by path: its ETag and since when (`Last-Modified`).
    cards: Mutex<HashMap<String, a2a::http::Served>>,
    /// Requests per key (by the key's hash).
    limiter: governor::DefaultKeyedRateLimiter<String>,
    requests: AtomicU64,
    commands: AtomicU64,
}

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
    pub sync: sqlite::SyncMode,
    pub rate: u32,
    pub cors: Vec<String>,
    pub callbacks: callbacks::Policy,
}

/// Reads `serve`'s arguments (after the word `serve`).
pub fn parse_args(args: &[String]) -> Result<Options, String> {
    let (mut db, mut addr, mut sync) = (None, "127.0.0.1:7410".to_string(), sqlite::SyncMode::Full);
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
                actor::SNAPSHOT_EVERY.store(n, Ordering::Relaxed);
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
                sqlite::MAX_PAGES.store(mb * 256, Ordering::Relaxed);
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
    Ok(Options { db, lease, advertise, fixtures, a2a_default, addr, sync, rate, cors, callbacks })
}

/// Runs the server until SIGTERM or Ctrl-C.
pub fn main(opts: Options) -> Result<(), String> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    let result = runtime.block_on(serve(opts));
    // Whatever is still running on the runtime (a connection or a query past the shutdown
    // deadline) does not hold the process: the exit is bounded.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    result
}

/// Opens a SQLite file (read-only when it cannot be written): the control connection.
fn open_sqlite(path: &std::path::Path, sync: sqlite::SyncMode) -> Result<rusqlite::Connection, String> {
    match sqlite::open(path, sync) {
        Ok(c) => Ok(c),
        // A database that exists but cannot be opened for writing (a read-only disk): open it
        // read-only and serve it, saying so; otherwise the error as it came.
        Err(e) if path.exists() => {
            sqlite::READ_ONLY.store(true, Ordering::Relaxed);
            sqlite::open(path, sync).map_err(|ro| {
                format!(
                    "cannot open {}: {e}; not for reading only either: {ro} (on a read-only disk, a -wal file \
                     that holds changes needs the disk writable once)",
                    path.display()
                )
            })
        }
        Err(e) => Err(format!("cannot open {}: {e}", path.display())),
    }
}

async fn serve(opts: Options) -> Result<(), String> {
    let store = match &opts.db {
        Db::Sqlite(path) => {
            let control = open_sqlite(path, opts.sync)?;
            storage::Store::Sqlite { path: path.clone(), sync: opts.sync, control: Mutex::new(control) }
        }
        Db::Postgres(url) => {
            let pg = storage::postgres::connect(url, opts.lease).await?;
            tracing::info!(node = %pg.node, db = %storage::postgres::redact(url), "joined the cluster");
            storage::Store::Postgres { pg: Arc::new(pg), known: Mutex::new(Default::default()) }
        }
    };
    let admin_key = match std::env::var("BATON_ADMIN_KEY") {
        Ok(k) if !k.is_empty() => k,
        _ => {
            let k = keys::generate();
            eprintln!("baton serve: admin key (shown once; set BATON_ADMIN_KEY to choose it): {k}");
            k
        }
    };
    let mut running = HashMap::new();
    if let storage::Store::Sqlite { path, control, .. } = &store {
        let control = control.lock().map_err(|_| "the control connection is poisoned")?;
        for (name, seed) in sqlite::workspaces(&control).map_err(|e| e.to_string())? {
            let ws = actor::start(store.backend(), name.clone(), seed, 0)
                .map_err(|e| format!("workspace '{name}' does not open: {}", e.message()))?;
            running.insert(name, ws);
        }
        tracing::info!(workspaces = running.len(), "database open");
        if sqlite::READ_ONLY.load(Ordering::Relaxed) || control.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) {
            // A read-only disk or file: SQLite opens it for reading only. Serve what is there;
            // every command is refused with storage_failed and nothing is half kept.
            tracing::warn!(db = %path.display(), "the database is read-only: reads and streams are served, every command is refused");
            eprintln!(
                "baton serve: {} is read-only: reads and streams are served, every command is refused",
                path.display()
            );
        }
    }
    // A2A's push configs are callbacks whose body A2A renders.
    let posting = opts.callbacks.clone().rendering(a2a::PUSH_RENDER);
    for ws in running.values() {
        tokio::spawn(callbacks::run(ws.clone(), posting.clone()));
    }
    let (stop, shutdown) = watch::channel(false);
    let app = Arc::new(App {
        store,
        admin_key,
        workspaces: Mutex::new(running),
        hint: tokio::sync::broadcast::channel(1024).0,
        shutdown,
        origins: opts.cors.clone(),
        fixtures: opts.fixtures.clone(),
        a2a_default: opts.a2a_default.clone(),
        cards: Mutex::new(HashMap::new()),
        callbacks: posting,
        limiter: governor::RateLimiter::keyed(
            governor::Quota::per_second(NonZeroU32::new(opts.rate).unwrap_or(NonZeroU32::MIN))
                .allow_burst(NonZeroU32::new(opts.rate.saturating_mul(2)).unwrap_or(NonZeroU32::MIN)),
        ),
        requests: AtomicU64::new(0),
        commands: AtomicU64::new(0),
    });
    let mcp_config = rmcp::transport::streamable_http_server::StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed_hosts(&opts.addr))
        .with_allowed_origins(opts.cors.clone());
    let mcp_app = app.clone();
    let mcp_service = rmcp::transport::streamable_http_server::StreamableHttpService::new(
        move || Ok(mcp::BatonMcp { app: mcp_app.clone() }),
        Arc::new(rmcp::transport::streamable_http_server::session::local::LocalSessionManager::default()),
        mcp_config,
    );
    let mcp_routes = Router::new()
        .route_service("/w/{workspace}/mcp", mcp_service)
        .layer(axum::middleware::from_fn_with_state(app.clone(), mcp::authorize));
    let router = Router::new()
        .merge(mcp_routes)
        .route("/healthz", get(|| async { "ok" }))
        .route("/metrics", get(metrics))
        .route("/w/{workspace}/rpc", post(jsonrpc::handle))
        .route("/w/{workspace}/events", get(sse::log))
        .route("/w/{workspace}/effects", get(sse::effects))
        .route("/.well-known/agent-card.json", get(a2a::http::root_card))
        .route("/w/{workspace}/a2a/{agent}", post(a2a::http::rpc))
        // the same URL with a trailing slash, as clients that join paths send it
        .route("/w/{workspace}/a2a/{agent}/", post(a2a::http::rpc))
        .route("/w/{workspace}/a2a/{agent}/.well-known/agent-card.json", get(a2a::http::card))
        .route(
            "/w/{workspace}/a2a/{agent}/{*rest}",
            get(a2a::rest::handle).post(a2a::rest::handle).delete(a2a::rest::handle),
        )
        .layer(cors(&opts.cors))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(app.clone())
        // A2A's gRPC binding, on the same port (HTTP/2): `/lf.a2a.v1.A2AService/…`
        .merge(tonic::service::Routes::new(a2a::grpc::service(app.clone())).into_axum_router());
    let listener =
        tokio::net::TcpListener::bind(&opts.addr).await.map_err(|e| format!("cannot listen on {}: {e}", opts.addr))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    if let Some(pg) = app.store.cluster() {
        let _ = pg.advertise.set(opts.advertise.clone().unwrap_or_else(|| format!("http://{local}")));
        let hint = app.hint.clone();
        tokio::spawn(storage::postgres::listen(pg.url.clone(), move |ws| {
            let _ = hint.send(Arc::from(ws));
        }));
        tokio::spawn(cluster::run(app.clone()));
    }
    let signalled = shutdown_signal()?;
    println!("baton serve: listening on http://{local}");
    tracing::info!(%local, "listening");
    let leaving = app.clone();
    let (stopping, mut stopped) = watch::channel(false);
    let server = axum::serve(listener, router).with_graceful_shutdown(async move {
        signalled.await;
        tracing::info!("shutting down: no new connections; in-flight commands finish; open streams end");
        let _ = stop.send(true);
        let _ = stopping.send(true);
    });
    // In-flight commands get a deadline: a request still running after it is cut off (its
    // command either committed or not — the log stays whole either way).
    let deadline = async move {
        let _ = stopped.wait_for(|s| *s).await;
        tokio::time::sleep(SHUTDOWN_DEADLINE).await;
    };
    let result = tokio::select! {
        r = server => r.map_err(|e| e.to_string()),
        _ = deadline => {
            tracing::warn!(seconds = SHUTDOWN_DEADLINE.as_secs(), "requests still running at the shutdown deadline were cut off");
            Ok(())
        }
    };
    // The writers stop before the process does: each closes its database connection (SQLite
    // checkpoints its WAL then), and only then are the leases given back.
    let writers: Vec<actor::Workspace> =
        leaving.workspaces.lock().map(|w| w.values().cloned().collect()).unwrap_or_default();
    for ws in &writers {
        ws.retire();
    }
    for ws in writers {
        let mut stopped = ws.stopped.clone();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), stopped.wait_for(|s| *s)).await;
    }
    cluster::release_all(&leaving).await;
    result
}

/// How long shutdown waits for requests in flight.
const SHUTDOWN_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

/// Host names the MCP endpoint answers to (rmcp refuses others: DNS rebinding): loopback's,
/// and the host the server listens on.
fn allowed_hosts(addr: &str) -> Vec<String> {
    let mut hosts = vec!["localhost".to_string(), "127.0.0.1".to_string(), "::1".to_string()];
    if let Some((host, _)) = addr.rsplit_once(':') {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if !host.is_empty() && !hosts.iter().any(|h| h == host) {
            hosts.push(host.to_string());
        }
    }
    hosts
}

/// Browsers at the given origins may call the RPC and read the event stream (with their key).
fn cors(origins: &[String]) -> tower_http::cors::CorsLayer {
    use axum::http::{header, HeaderName, HeaderValue, Method};
    let allowed: Vec<HeaderValue> = origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()).collect();
    tower_http::cors::CorsLayer::new()
        .allow_origin(allowed)
        .allow_methods([Method::GET, Method::POST, Method::DELETE])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            HeaderName::from_static("last-event-id"),
            HeaderName::from_static("a2a-version"),
        ])
}

/// Listens for SIGTERM and SIGINT from now on, and resolves at the first. Made before the
/// server says it listens: a listener made later (when the shutdown future is first polled)
/// would miss a signal sent right after "listening" — the process, its handler installed,
/// then ignores it and runs on.
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>, String> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).map_err(|e| format!("cannot listen for SIGTERM: {e}"))?;
    let mut int = signal(SignalKind::interrupt()).map_err(|e| format!("cannot listen for SIGINT: {e}"))?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {},
            _ = int.recv() => {},
        }
    })
}

async fn metrics(State(app): State<Arc<App>>) -> impl IntoResponse {
    let workspaces = app.workspaces.lock().map_or(0, |w| w.len());
    let body = format!(
        "# HELP baton_requests_total HTTP requests to the RPC and event endpoints.\n\
         # TYPE baton_requests_total counter\nbaton_requests_total {}\n\
         # HELP baton_commands_total Commands (calls and host inputs) run.\n\
         # TYPE baton_commands_total counter\nbaton_commands_total {}\n\
         # HELP baton_workspaces Workspaces open.\n# TYPE baton_workspaces gauge\nbaton_workspaces {}\n",
        app.requests.load(Ordering::Relaxed),
        app.commands.load(Ordering::Relaxed),
        workspaces
    );
    ([("content-type", "text/plain; version=0.0.4")], body)
}

/// Why a request is refused before it reaches a workspace.
pub enum Refusal {
    /// Over the key's rate; retry after this many milliseconds.
    RateLimited(u64),
    /// No key, or a key the server does not know.
    Unauthorized,
    /// A key that was revoked or has expired.
    Ended(keys::Ended),
    /// No such workspace — or a key of another workspace (the two look the same).
    NotFound,
}

impl Refusal {
    fn status(&self) -> StatusCode {
        match self {
            Refusal::Unauthorized | Refusal::Ended(_) => StatusCode::UNAUTHORIZED,
            Refusal::NotFound => StatusCode::NOT_FOUND,
            Refusal::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
        }
    }
    fn message(&self, workspace: &str) -> String {
        match self {
            Refusal::Unauthorized => "a key is required: Authorization: Bearer KEY".into(),
            Refusal::Ended(keys::Ended::Revoked) => "this key was revoked".into(),
            Refusal::Ended(keys::Ended::Expired) => "this key has expired".into(),
            Refusal::NotFound => format!("no workspace '{workspace}' for this key"),
            Refusal::RateLimited(ms) => format!("over this key's request rate; retry after {ms} ms"),
        }
    }
}

impl App {
    /// The principal of the request's key for `workspace`.
    async fn principal(&self, headers: &HeaderMap, workspace: &str) -> Result<keys::Principal, Refusal> {
        self.key(headers, workspace).await.map(|(p, _)| p)
    }

    /// The principal of the request's key for `workspace`, and the key as stored (`None` for
    /// the admin key).
    async fn key(
        &self,
        headers: &HeaderMap,
        workspace: &str,
    ) -> Result<(keys::Principal, Option<keys::StoredKey>), Refusal> {
        let given = bearer(headers).ok_or(Refusal::Unauthorized)?;
        let id = keys::hash(given);
        let (principal, stored) = if keys::is_admin(given, &self.admin_key) {
            (keys::Principal::Admin, None)
        } else {
            match self.store.key(&id).await.ok().flatten() {
                None => return Err(Refusal::Unauthorized),
                Some(k) if k.workspace != workspace => return Err(Refusal::NotFound),
                Some(k) => {
                    if let Some(ended) = k.ended(now_ms()) {
                        return Err(Refusal::Ended(ended));
                    }
                    (keys::Principal::parse(&k.principal).ok_or(Refusal::Unauthorized)?, Some(k))
                }
            }
        };
        // Only known keys are counted, so the limiter holds one entry per key, not per guess.
        if let Err(not_until) = self.limiter.check_key(&id) {
            use governor::clock::Clock;
            let wait = not_until.wait_time_from(governor::clock::DefaultClock::default().now());
            return Err(Refusal::RateLimited(wait.as_millis() as u64 + 1));
        }
        Ok((principal, stored))
    }

    /// The workspace if this node writes it.
    fn workspace(&self, name: &str) -> Option<actor::Workspace> {
        let mut map = self.workspaces.lock().ok()?;
        let ws = map.get(name)?;
        if *ws.stopped.borrow() {
            // Its writer stepped down (another node took the workspace): forget it at once.
            map.remove(name);
            return None;
        }
        Some(ws.clone())
    }

    /// Whether the workspace exists (written here, or on Postgres by any node).
    async fn exists(&self, name: &str) -> bool {
        self.workspace(name).is_some() || self.store.exists(name).await.unwrap_or(false)
    }
}

/// The key a request carries (`Authorization: Bearer KEY`).
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|k| !k.is_empty())
}

/// The wall clock, in milliseconds since the epoch (the server owns time; the core never reads it).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// A new workspace's id seed: random, and below 2^53 so it survives a JSON number in any client.
pub fn random_seed() -> u64 {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).expect("the operating system gives random bytes");
    u64::from_le_bytes(b) >> 11
}

/// A workspace name: 1–64 of `A–Z a–z 0–9 _ -`.
fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Refusals as plain responses (event streams).
fn refuse(r: Refusal, workspace: &str) -> Response {
    (r.status(), r.message(workspace)).into_response()
}
