//! `baton serve`: Baton as a network service. Many workspaces in one SQLite file (or one
//! Postgres database shared by several nodes), each one engine owned by its writer thread.
//! In layers, each importing only those below: `keys`, `storage/`, `writer/`, `app`,
//! `protocol/` (JSON-RPC, SSE, MCP, A2A); this file assembles them ([`open`], [`router`]).
use axum::extract::State;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Router;
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

pub mod admin;
pub mod app;
pub mod clock;
mod config;
pub mod keys;
pub mod protocol;
pub mod storage;
pub mod writer;

use protocol::{a2a, jsonrpc, mcp, sse};
use storage::sqlite;
use writer::registry::Writers;
use writer::{actor, cluster};

use app::App;
pub use config::{parse_args, Db, Options, USAGE};

#[cfg(test)]
mod tests;

/// Runs the server until SIGTERM or Ctrl-C.
pub fn main(opts: Options) -> Result<(), String> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    // Each workspace's writer is a thread of its own, outside the runtime: the runtime's
    // workers leave it a core (all cores but one, at least one; `TOKIO_WORKER_THREADS` still
    // decides when set). On two cores one worker and the writer each have a core, and one
    // client's delegation cycle is not handed between two workers and the writer.
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if std::env::var_os("TOKIO_WORKER_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        runtime.worker_threads(cores.saturating_sub(1).max(1));
    }
    let runtime = runtime.enable_all().build().map_err(|e| e.to_string())?;
    let result = runtime.block_on(serve(opts));
    // Whatever is still running on the runtime (a connection or a query past the shutdown
    // deadline) does not hold the process: the exit is bounded.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    result
}

/// Opens a SQLite file (read-only when it cannot be written): the control connection, and
/// the settings every later connection to it is opened with.
fn open_sqlite(
    path: &std::path::Path,
    settings: sqlite::Settings,
) -> Result<(rusqlite::Connection, sqlite::Settings), String> {
    match sqlite::open(path, settings) {
        Ok(c) => Ok((c, settings)),
        // A database that exists but cannot be opened for writing (a read-only disk): open it
        // read-only and serve it, saying so; otherwise the error as it came.
        Err(e) if path.exists() => {
            let settings = sqlite::Settings { read_only: true, ..settings };
            let c = sqlite::open(path, settings).map_err(|ro| {
                format!(
                    "cannot open {}: {e}; not for reading only either: {ro} (on a read-only disk, a -wal file \
                     that holds changes needs the disk writable once)",
                    path.display()
                )
            })?;
            Ok((c, settings))
        }
        Err(e) => Err(format!("cannot open {}: {e}", path.display())),
    }
}

/// Opens the database (`--db`) and starts the writers of the workspaces this node writes:
/// the app every route shares, and the sender that tells its streams the server stops.
pub async fn open(opts: &Options, admin_key: String) -> Result<(Arc<App>, watch::Sender<bool>), String> {
    let (store, cluster): (Arc<dyn storage::log::Store>, _) = match &opts.db {
        Db::Sqlite(path) => {
            let (control, settings) = open_sqlite(path, opts.sqlite)?;
            (Arc::new(storage::local::SqliteStore::new(path.clone(), settings, control)), None)
        }
        Db::Postgres(url) => {
            let pg = Arc::new(storage::postgres::connect(url, opts.lease).await?);
            tracing::info!(node = %pg.node, db = %storage::postgres::redact(url), "joined the cluster");
            (Arc::new(storage::postgres::PgStore::new(pg.clone())), Some(pg))
        }
    };
    let (stop, shutdown) = watch::channel(false);
    // A2A's push configs are callbacks whose body A2A renders.
    let posting = opts.callbacks.clone().rendering(a2a::PUSH_RENDER);
    let writers =
        Arc::new(Writers::new(store.clone(), cluster.clone(), opts.snapshot_every, posting, shutdown.clone()));
    let at_start = store.opened_at_start()?;
    for (name, seed) in &at_start {
        writers.start_now(name, *seed, 0).map_err(|e| format!("workspace '{name}' does not open: {e}"))?;
    }
    if cluster.is_none() {
        tracing::info!(workspaces = at_start.len(), "database open");
    }
    if let Some(db) = store.read_only() {
        // A read-only disk or file: SQLite opens it for reading only. Serve what is there;
        // every command is refused with storage_failed and nothing is half kept.
        tracing::warn!(db, "the database is read-only: reads and streams are served, every command is refused");
        eprintln!("baton serve: {db} is read-only: reads and streams are served, every command is refused");
    }
    let app = Arc::new(App {
        store,
        cluster,
        writers,
        admin_key,
        hint: tokio::sync::broadcast::channel(1024).0,
        shutdown,
        origins: opts.cors.clone(),
        fixtures: opts.fixtures.clone(),
        a2a_default: opts.a2a_default.clone(),
        cards: Mutex::new(HashMap::new()),
        limiter: governor::RateLimiter::keyed(
            governor::Quota::per_second(NonZeroU32::new(opts.rate).unwrap_or(NonZeroU32::MIN))
                .allow_burst(NonZeroU32::new(opts.rate.saturating_mul(2)).unwrap_or(NonZeroU32::MIN)),
        ),
        requests: AtomicU64::new(0),
        commands: AtomicU64::new(0),
        forwarded: AtomicU64::new(0),
    });
    Ok((app, stop))
}

/// Every route of `baton serve` over `app`: JSON-RPC, the event streams, MCP, A2A's three
/// bindings, the cards, health and metrics (`opts`: the listening address MCP answers to, and
/// the browser origins allowed).
pub fn router(app: Arc<App>, opts: &Options) -> Router {
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
    Router::new()
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
        .merge(tonic::service::Routes::new(a2a::grpc::service(app.clone())).into_axum_router())
}

async fn serve(opts: Options) -> Result<(), String> {
    let admin_key = match std::env::var("BATON_ADMIN_KEY") {
        Ok(k) if !k.is_empty() => k,
        _ => {
            let k = keys::generate();
            eprintln!("baton serve: admin key (shown once; set BATON_ADMIN_KEY to choose it): {k}");
            k
        }
    };
    let (app, stop) = open(&opts, admin_key).await?;
    let router = router(app.clone(), &opts);
    let listener =
        tokio::net::TcpListener::bind(&opts.addr).await.map_err(|e| format!("cannot listen on {}: {e}", opts.addr))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    if let Some(pg) = app.cluster() {
        let _ = pg.advertise.set(opts.advertise.clone().unwrap_or_else(|| format!("http://{local}")));
        let hint = app.hint.clone();
        tokio::spawn(storage::postgres::listen(pg.url.clone(), move |ws| {
            let _ = hint.send(Arc::from(ws));
        }));
        tokio::spawn(cluster::run(app.writers.clone()));
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
    let writers: Vec<actor::Workspace> = leaving.writers.all().into_iter().map(|(_, w)| w).collect();
    for ws in &writers {
        ws.retire();
    }
    for ws in writers {
        let mut stopped = ws.stopped.clone();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), stopped.wait_for(|s| *s)).await;
    }
    cluster::release_all(&leaving.writers).await;
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
    let workspaces = app.writers.all().len();
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
