//! Postgres storage for `baton serve --db postgres://…`: the same tables as the SQLite file
//! (prefixed `baton_`, as they live in a database other programs share), plus what several
//! nodes on one database need — a lease per workspace (`baton_leases`: the node that may write
//! it, an epoch that grows at every change of hands, and an expiry on the database's clock)
//! and the nodes' addresses (`baton_nodes`), so a node that does not hold a workspace's lease
//! forwards its commands to the one that does.
//!
//! A writer's commit is fenced twice: its transaction first renews its lease *by epoch* (no row
//! renewed: another node took the workspace, the transaction is rolled back and the writer
//! steps down), and the log's primary key `(workspace, seq)` refuses a record number written
//! already. Every commit ends with `NOTIFY baton_log, '<workspace>'`, a wake-up hint to the
//! event streams of every node (they read the log itself, and poll too: a notification is not
//! replayed to a listener that was not connected).
use crate::serve::keys::{Ending, StoredKey, COLUMNS as KEY_COLUMNS};
use crate::serve::storage::log::{AnswerRow, LogSource, Pending, SnapshotPart, Store, Stream, WriteError, WriterLog};
use baton_core::{LogRecord, Snapshot, Storage, StorageError};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres::NoTls;

/// This node's place in the cluster.
pub struct Pg {
    pub pool: Pool,
    /// The connection string (the event-hint listener opens its own connection).
    pub url: String,
    /// This node's id (random at every start: a restarted node is a new node).
    pub node: String,
    /// Where other nodes reach this one (`--advertise`, default the listening address).
    pub advertise: std::sync::OnceLock<String>,
    /// How long a lease lasts without renewal (`--lease-ms`).
    pub lease: Duration,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The options every session of a node starts with: the URL's own, and an end to a session
/// left idle inside a transaction for a lease. A node paused or cut off mid-transaction (a
/// writer mid-commit holds its lease's row) must not keep the workspace past its lease: the
/// database ends the session, its locks go, and the node taking the lease over does not wait.
fn session_options(given: Option<&str>, lease: Duration) -> String {
    let timeout = format!("-c idle_in_transaction_session_timeout={}", lease.as_millis().max(1));
    match given {
        Some(given) if !given.trim().is_empty() => format!("{given} {timeout}"),
        _ => timeout,
    }
}

/// Opens a pool on `url` and creates the tables (once, under an advisory lock, so nodes that
/// start together do not race).
pub async fn connect(url: &str, lease: Duration) -> Result<Pg, String> {
    let mut config: tokio_postgres::Config = url.parse().map_err(|e| format!("--db {url}: {e}"))?;
    let options = session_options(config.get_options(), lease);
    config.options(&options);
    let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
    let pool = Pool::builder(manager)
        .max_size(32)
        .runtime(deadpool_postgres::Runtime::Tokio1)
        .wait_timeout(Some(Duration::from_secs(10)))
        .create_timeout(Some(Duration::from_secs(5)))
        .build()
        .map_err(err)?;
    let mut client = pool.get().await.map_err(|e| format!("cannot connect to {}: {e}", redact(url)))?;
    let tx = client.transaction().await.map_err(err)?;
    tx.batch_execute(
        "SELECT pg_advisory_xact_lock(7410);
         CREATE TABLE IF NOT EXISTS baton_workspaces (
            name TEXT PRIMARY KEY, seed BIGINT NOT NULL, created_at BIGINT NOT NULL);
         CREATE TABLE IF NOT EXISTS baton_log (
            workspace TEXT NOT NULL, seq BIGINT NOT NULL, line TEXT NOT NULL, PRIMARY KEY (workspace, seq));
         CREATE TABLE IF NOT EXISTS baton_effects (
            workspace TEXT NOT NULL, seq BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (workspace, seq));
         CREATE TABLE IF NOT EXISTS baton_snapshots (
            workspace TEXT PRIMARY KEY, seq BIGINT NOT NULL, body TEXT NOT NULL);
         CREATE TABLE IF NOT EXISTS baton_snapshot_parts (
            workspace TEXT NOT NULL, seq BIGINT NOT NULL, part INT NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (workspace, seq, part));
         CREATE TABLE IF NOT EXISTS baton_keys (
            hash TEXT PRIMARY KEY, workspace TEXT NOT NULL, principal TEXT NOT NULL, created_at BIGINT NOT NULL);
         ALTER TABLE baton_keys ADD COLUMN IF NOT EXISTS expires_at BIGINT;
         ALTER TABLE baton_keys ADD COLUMN IF NOT EXISTS revoked_at BIGINT;
         CREATE TABLE IF NOT EXISTS baton_answers (
            workspace TEXT NOT NULL, scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
            answer TEXT NOT NULL, PRIMARY KEY (workspace, scope, key));
         CREATE TABLE IF NOT EXISTS baton_leases (
            workspace TEXT PRIMARY KEY, node TEXT NOT NULL, epoch BIGINT NOT NULL, expires_at TIMESTAMPTZ NOT NULL);
         CREATE TABLE IF NOT EXISTS baton_nodes (
            node TEXT PRIMARY KEY, url TEXT NOT NULL, seen_at TIMESTAMPTZ NOT NULL);",
    )
    .await
    .map_err(err)?;
    tx.commit().await.map_err(err)?;
    let mut id = [0u8; 6];
    getrandom::fill(&mut id).expect("the operating system gives random bytes");
    let node = format!("n_{}", id.iter().map(|b| format!("{b:02x}")).collect::<String>());
    Ok(Pg { pool, url: url.to_string(), node, advertise: std::sync::OnceLock::new(), lease })
}

/// The read every request makes (a prepared statement per connection).
static KEY_BY_HASH: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| format!("SELECT {KEY_COLUMNS} FROM baton_keys WHERE hash = $1"));

fn stored_key(r: &tokio_postgres::Row) -> StoredKey {
    StoredKey {
        hash: r.get(0),
        workspace: r.get(1),
        principal: r.get(2),
        created_at: r.get::<_, i64>(3) as u64,
        expires_at: r.get::<_, Option<i64>>(4).map(|t| t as u64),
        revoked_at: r.get::<_, Option<i64>>(5).map(|t| t as u64),
    }
}

/// Ends a key in a transaction, and tells every node's event-hint listener (`key:HASH`, which
/// no workspace name can be) so streams opened with it end.
async fn end_key_in(tx: &deadpool_postgres::Transaction<'_>, e: &Ending) -> Result<(), String> {
    let column = e.how.column();
    tx.execute(
        &format!("UPDATE baton_keys SET {column} = LEAST(COALESCE({column}, $2), $2) WHERE hash = $1"),
        &[&e.hash, &(e.at as i64)],
    )
    .await
    .map_err(err)?;
    tx.execute("SELECT pg_notify('baton_log', $1)", &[&crate::serve::keys::hint(&e.hash)]).await.map_err(err)?;
    Ok(())
}

/// A connection string with its password replaced (for messages).
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let user = &url[s + 3..at];
            let user = user.split(':').next().unwrap_or_default();
            format!("{}{user}@{}", &url[..s + 3], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

impl Pg {
    async fn client(&self) -> Result<deadpool_postgres::Client, String> {
        self.pool.get().await.map_err(|e| format!("no database connection: {e}"))
    }

    fn lease_ms(&self) -> f64 {
        self.lease.as_millis() as f64
    }

    /// Whether a workspace exists.
    pub async fn exists(&self, name: &str) -> Result<bool, String> {
        let c = self.client().await?;
        let row = c.query_opt("SELECT 1 FROM baton_workspaces WHERE name = $1", &[&name]).await.map_err(err)?;
        Ok(row.is_some())
    }

    /// Creates a workspace with this node holding its lease: its epoch, or `None` when one of
    /// that name exists.
    pub async fn create_workspace(&self, name: &str, seed: u64, now_ms: u64) -> Result<Option<i64>, String> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(err)?;
        let n = tx
            .execute(
                "INSERT INTO baton_workspaces (name, seed, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                &[&name, &(seed as i64), &(now_ms as i64)],
            )
            .await
            .map_err(err)?;
        if n == 0 {
            return Ok(None);
        }
        tx.execute(
            "INSERT INTO baton_leases (workspace, node, epoch, expires_at)
             VALUES ($1, $2, 1, clock_timestamp() + $3::float8 * interval '1 millisecond')",
            &[&name, &self.node, &self.lease_ms()],
        )
        .await
        .map_err(err)?;
        tx.commit().await.map_err(err)?;
        Ok(Some(1))
    }

    /// Stores a key; with `ending`, ends another in the same transaction (a rotation).
    pub async fn add_key(&self, k: &StoredKey, ending: Option<&Ending>) -> Result<(), String> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(err)?;
        tx.execute(
            "INSERT INTO baton_keys (hash, workspace, principal, created_at, expires_at, revoked_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &k.hash,
                &k.workspace,
                &k.principal,
                &(k.created_at as i64),
                &k.expires_at.map(|t| t as i64),
                &k.revoked_at.map(|t| t as i64),
            ],
        )
        .await
        .map_err(err)?;
        if let Some(e) = ending {
            end_key_in(&tx, e).await?;
        }
        tx.commit().await.map_err(err)
    }

    /// The stored key with this hash (read every time: a revocation counts at once on every node).
    pub async fn key(&self, hash: &str) -> Result<Option<StoredKey>, String> {
        let c = self.client().await?;
        // Read on every request: prepared once per connection, so each read is one round trip
        // and no planning.
        let st = c.prepare_cached(&KEY_BY_HASH).await.map_err(err)?;
        let row = c.query_opt(&st, &[&hash]).await.map_err(err)?;
        Ok(row.map(|r| stored_key(&r)))
    }

    /// A workspace's keys, oldest first.
    pub async fn keys(&self, workspace: &str) -> Result<Vec<StoredKey>, String> {
        let c = self.client().await?;
        let rows = c
            .query(
                &format!("SELECT {KEY_COLUMNS} FROM baton_keys WHERE workspace = $1 ORDER BY created_at, hash"),
                &[&workspace],
            )
            .await
            .map_err(err)?;
        Ok(rows.iter().map(stored_key).collect())
    }

    /// Ends a key (see `sqlite::end_key`); every node's open streams of it are told.
    pub async fn end_key(&self, e: &Ending) -> Result<(), String> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(err)?;
        end_key_in(&tx, e).await?;
        tx.commit().await.map_err(err)
    }

    /// Rows of a workspace's log or effects after `seq`, in order, at most `limit`.
    pub async fn rows_after(
        &self,
        stream: Stream,
        workspace: &str,
        seq: u64,
        limit: usize,
    ) -> Result<Vec<(u64, String)>, String> {
        let sql = match stream {
            Stream::Log => "SELECT seq, line FROM baton_log WHERE workspace = $1 AND seq > $2 ORDER BY seq LIMIT $3",
            Stream::Effects => {
                "SELECT seq, body FROM baton_effects WHERE workspace = $1 AND seq > $2 ORDER BY seq LIMIT $3"
            }
        };
        let c = self.client().await?;
        let rows = c.query(sql, &[&workspace, &(seq as i64), &(limit as i64)]).await.map_err(err)?;
        Ok(rows.iter().map(|r| (r.get::<_, i64>(0) as u64, r.get::<_, String>(1))).collect())
    }

    /// Says this node is alive and where it is reached.
    pub async fn heartbeat(&self) -> Result<(), String> {
        let Some(url) = self.advertise.get() else { return Ok(()) };
        let c = self.client().await?;
        c.execute(
            "INSERT INTO baton_nodes (node, url, seen_at) VALUES ($1, $2, clock_timestamp())
             ON CONFLICT (node) DO UPDATE SET url = excluded.url, seen_at = excluded.seen_at",
            &[&self.node, url],
        )
        .await
        .map_err(err)?;
        Ok(())
    }

    /// Extends this node's lease on `workspace` at `epoch`; false when it is no longer this
    /// node's (another node took it).
    pub async fn renew(&self, workspace: &str, epoch: i64) -> Result<bool, String> {
        let c = self.client().await?;
        let n = c
            .execute(
                "UPDATE baton_leases SET expires_at = clock_timestamp() + $4::float8 * interval '1 millisecond'
                 WHERE workspace = $1 AND node = $2 AND epoch = $3",
                &[&workspace, &self.node, &epoch, &self.lease_ms()],
            )
            .await
            .map_err(err)?;
        Ok(n == 1)
    }

    /// Takes the workspaces whose lease ran out (their writer node died or stopped): name, id
    /// seed and the new epoch of each.
    pub async fn take_expired(&self) -> Result<Vec<(String, u64, i64)>, String> {
        let c = self.client().await?;
        let rows = c
            .query(
                "UPDATE baton_leases l SET node = $1, epoch = l.epoch + 1,
                        expires_at = clock_timestamp() + $2::float8 * interval '1 millisecond'
                 FROM baton_workspaces w
                 WHERE w.name = l.workspace AND l.expires_at < clock_timestamp()
                 RETURNING l.workspace, w.seed, l.epoch",
                &[&self.node, &self.lease_ms()],
            )
            .await
            .map_err(err)?;
        Ok(rows.iter().map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1) as u64, r.get::<_, i64>(2))).collect())
    }

    /// Gives a lease back at once (a clean stop, or a writer that did not open): another node
    /// takes the workspace at its next look instead of after the lease runs out.
    pub async fn release(&self, workspace: &str, epoch: i64) -> Result<(), String> {
        let c = self.client().await?;
        c.execute(
            "UPDATE baton_leases SET expires_at = clock_timestamp() - interval '1 millisecond'
             WHERE workspace = $1 AND node = $2 AND epoch = $3",
            &[&workspace, &self.node, &epoch],
        )
        .await
        .map_err(err)?;
        Ok(())
    }

    /// The node holding a workspace's lease: its id, its address, and whether the lease is
    /// current.
    pub async fn owner(&self, workspace: &str) -> Result<Option<(String, Option<String>, bool)>, String> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT l.node, n.url, l.expires_at > clock_timestamp()
                 FROM baton_leases l LEFT JOIN baton_nodes n ON n.node = l.node WHERE l.workspace = $1",
                &[&workspace],
            )
            .await
            .map_err(err)?;
        Ok(row.map(|r| (r.get(0), r.get(1), r.get(2))))
    }
}

/// One workspace's log in Postgres, for its writer thread (which is not a runtime thread: it
/// runs each query to completion on the server's runtime). A batch's records, effects and
/// answers are kept in memory and written at commit, in one transaction that first renews the
/// lease by epoch; a snapshot's parts go in transactions of their own, between batches.
pub struct PgLog {
    /// Connections are taken for a query or a commit and given back: a node writes many
    /// workspaces over a pool of a few connections.
    pool: Pool,
    rt: tokio::runtime::Handle,
    workspace: String,
    node: String,
    epoch: i64,
    lease_ms: f64,
    lines: (Vec<i64>, Vec<String>),
    effects: (Vec<i64>, Vec<String>),
    answers: Vec<AnswerRow>,
    /// The record the snapshot `load_snapshot` read is after (0: none): `load` reads the
    /// records after that one, whatever snapshot was stored in between.
    loaded: std::cell::Cell<Option<i64>>,
}

impl PgLog {
    /// The log of `workspace`, written under this node's lease at `epoch`; refuses (fenced)
    /// when that lease is not this node's any more.
    pub fn open(pg: &Pg, rt: &tokio::runtime::Handle, workspace: &str, epoch: i64) -> Result<PgLog, WriteError> {
        let log = PgLog {
            pool: pg.pool.clone(),
            rt: rt.clone(),
            workspace: workspace.to_string(),
            node: pg.node.clone(),
            epoch,
            lease_ms: pg.lease_ms(),
            lines: (Vec::new(), Vec::new()),
            effects: (Vec::new(), Vec::new()),
            answers: Vec::new(),
            loaded: std::cell::Cell::new(None),
        };
        let c = log.conn().map_err(WriteError::Failed)?;
        let held = log.rt.block_on(c.query_opt(
            "SELECT 1 FROM baton_leases WHERE workspace = $1 AND node = $2 AND epoch = $3",
            &[&log.workspace, &log.node, &log.epoch],
        ));
        match held {
            Ok(Some(_)) => Ok(log),
            Ok(None) => Err(WriteError::Fenced(format!("workspace '{workspace}' is held by another node"))),
            Err(e) => Err(WriteError::Failed(e.to_string())),
        }
    }

    /// A connection from the pool (waiting at most the pool's timeout).
    fn conn(&self) -> Result<deadpool_postgres::Client, String> {
        self.rt.block_on(self.pool.get()).map_err(|e| format!("no database connection: {e}"))
    }

    fn unavailable(e: impl std::fmt::Display) -> StorageError {
        StorageError::Unavailable(e.to_string())
    }

    async fn write(&mut self) -> Result<(), WriteError> {
        let failed = |e: tokio_postgres::Error| {
            if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) {
                WriteError::Fenced(format!("a record number was written by another node: {e}"))
            } else {
                WriteError::Failed(e.to_string())
            }
        };
        let mut c = self.pool.get().await.map_err(|e| WriteError::Failed(format!("no database connection: {e}")))?;
        let tx = c.transaction().await.map_err(failed)?;
        let held = tx
            .execute(
                "UPDATE baton_leases SET expires_at = clock_timestamp() + $4::float8 * interval '1 millisecond'
                 WHERE workspace = $1 AND node = $2 AND epoch = $3",
                &[&self.workspace, &self.node, &self.epoch, &self.lease_ms],
            )
            .await
            .map_err(failed)?;
        if held != 1 {
            return Err(WriteError::Fenced(format!("workspace '{}' was taken by another node", self.workspace)));
        }
        let rows = [
            (
                "INSERT INTO baton_log (workspace, seq, line) SELECT $1, * FROM unnest($2::int8[], $3::text[])",
                &self.lines,
            ),
            (
                "INSERT INTO baton_effects (workspace, seq, body) SELECT $1, * FROM unnest($2::int8[], $3::text[])",
                &self.effects,
            ),
        ];
        for (sql, (seqs, texts)) in rows {
            if !seqs.is_empty() {
                tx.execute(sql, &[&self.workspace, seqs, texts]).await.map_err(failed)?;
            }
        }
        for a in &self.answers {
            tx.execute(
                "INSERT INTO baton_answers (workspace, scope, key, fingerprint, answer) VALUES ($1, $2, $3, $4, $5)",
                &[&self.workspace, &a.scope, &a.key, &a.fingerprint, &a.answer],
            )
            .await
            .map_err(failed)?;
        }
        if !self.lines.0.is_empty() || !self.effects.0.is_empty() {
            tx.execute("SELECT pg_notify('baton_log', $1)", &[&self.workspace]).await.map_err(failed)?;
        }
        tx.commit().await.map_err(failed)
    }

    /// A snapshot's part in a transaction of its own. No lease check: a part is the state
    /// after records already committed, whichever node stores it, and the snapshot row never
    /// moves back to an earlier record.
    async fn write_part(&self, part: &SnapshotPart) -> Result<(), String> {
        let mut c = self.pool.get().await.map_err(|e| format!("no database connection: {e}"))?;
        let tx = c.transaction().await.map_err(err)?;
        let (seq, index) = (part.seq as i64, part.index as i32);
        tx.execute(
            "INSERT INTO baton_snapshot_parts (workspace, seq, part, body) VALUES ($1, $2, $3, $4)
             ON CONFLICT (workspace, seq, part) DO UPDATE SET body = excluded.body",
            &[&self.workspace, &seq, &index, &part.body],
        )
        .await
        .map_err(err)?;
        if part.last {
            tx.execute(
                "INSERT INTO baton_snapshots (workspace, seq, body) VALUES ($1, $2, '')
                 ON CONFLICT (workspace) DO UPDATE SET seq = excluded.seq, body = excluded.body
                 WHERE baton_snapshots.seq < excluded.seq",
                &[&self.workspace, &seq],
            )
            .await
            .map_err(err)?;
            tx.execute(
                "DELETE FROM baton_snapshot_parts WHERE workspace = $1 AND seq <> coalesce(
                   (SELECT seq FROM baton_snapshots WHERE workspace = $1 AND body = ''), -1)",
                &[&self.workspace],
            )
            .await
            .map_err(err)?;
        }
        tx.commit().await.map_err(err)
    }

    fn clear(&mut self) {
        self.lines.0.clear();
        self.lines.1.clear();
        self.effects.0.clear();
        self.effects.1.clear();
        self.answers.clear();
    }
}

impl WriterLog for PgLog {
    fn begin(&mut self) -> Result<(), WriteError> {
        self.clear();
        Ok(())
    }

    fn append_line(&mut self, seq: u64, line: &str) -> Result<(), StorageError> {
        self.lines.0.push(seq as i64);
        self.lines.1.push(line.to_string());
        Ok(())
    }

    fn append_effect(&mut self, seq: u64, body: &str) -> Result<(), WriteError> {
        self.effects.0.push(seq as i64);
        self.effects.1.push(body.to_string());
        Ok(())
    }

    fn store_snapshot_part(&mut self, part: &SnapshotPart) -> Result<(), WriteError> {
        let rt = self.rt.clone();
        rt.block_on(self.write_part(part)).map_err(WriteError::Failed)
    }

    fn put_answer(&mut self, row: AnswerRow) -> Result<(), WriteError> {
        self.answers.push(row);
        Ok(())
    }

    fn answer(&mut self, scope: &str, key: &str) -> Result<Option<(String, String)>, WriteError> {
        let c = self.conn().map_err(WriteError::Failed)?;
        let row = self
            .rt
            .block_on(c.query_opt(
                "SELECT fingerprint, answer FROM baton_answers WHERE workspace = $1 AND scope = $2 AND key = $3",
                &[&self.workspace, &scope, &key],
            ))
            .map_err(|e| WriteError::Failed(e.to_string()))?;
        Ok(row.map(|r| (r.get(0), r.get(1))))
    }

    fn commit(&mut self) -> Result<(), WriteError> {
        let rt = self.rt.clone();
        let r = rt.block_on(self.write());
        self.clear();
        r
    }

    fn rollback(&mut self) {
        self.clear();
    }

    fn last_effect(&mut self) -> Result<u64, String> {
        let c = self.conn()?;
        let row = self
            .rt
            .block_on(
                c.query_one("SELECT COALESCE(MAX(seq), 0) FROM baton_effects WHERE workspace = $1", &[&self.workspace]),
            )
            .map_err(err)?;
        Ok(row.get::<_, i64>(0) as u64)
    }

    fn last_callback(&mut self, handoff_id: &str) -> Result<Option<String>, String> {
        let c = self.conn()?;
        let row = self
            .rt
            .block_on(c.query_opt(
                "SELECT body FROM baton_effects WHERE workspace = $1 AND body::jsonb ->> 'effect' = 'callback'
                   AND body::jsonb ->> 'handoff_id' = $2 ORDER BY seq DESC LIMIT 1",
                &[&self.workspace, &handoff_id],
            ))
            .map_err(err)?;
        Ok(row.map(|r| r.get(0)))
    }

    fn lines_after(&self, seq: u64, limit: usize) -> Result<Vec<(u64, String)>, String> {
        let c = self.conn()?;
        let rows = self
            .rt
            .block_on(c.query(
                "SELECT seq, line FROM baton_log WHERE workspace = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                &[&self.workspace, &(seq as i64), &(limit as i64)],
            ))
            .map_err(err)?;
        Ok(rows.iter().map(|r| (r.get::<_, i64>(0) as u64, r.get::<_, String>(1))).collect())
    }
}

impl Storage for PgLog {
    fn append(&mut self, record: &LogRecord) -> Result<(), StorageError> {
        self.append_line(record.seq, &record.to_json_line())
    }

    fn load(&self) -> Result<Vec<LogRecord>, StorageError> {
        let c = self.conn().map_err(StorageError::Unavailable)?;
        let after = match self.loaded.get() {
            Some(seq) => seq,
            None => self
                .rt
                .block_on(c.query_opt("SELECT seq FROM baton_snapshots WHERE workspace = $1", &[&self.workspace]))
                .map_err(Self::unavailable)?
                .map_or(0, |r| r.get::<_, i64>(0)),
        };
        let rows = self
            .rt
            .block_on(c.query(
                "SELECT line FROM baton_log WHERE workspace = $1 AND seq > $2 ORDER BY seq",
                &[&self.workspace, &after],
            ))
            .map_err(Self::unavailable)?;
        rows.iter().enumerate().map(|(i, r)| LogRecord::from_json_line(r.get::<_, &str>(0), i)).collect()
    }

    fn load_snapshot(&self) -> Result<Option<Snapshot>, StorageError> {
        let c = self.conn().map_err(StorageError::Unavailable)?;
        // One statement: the row and its parts as of one moment. A row with an empty body is
        // stored in parts (see `SnapshotPart`); one written whole holds its lines.
        let row = self
            .rt
            .block_on(c.query_opt(
                "SELECT s.seq, CASE WHEN s.body <> '' THEN s.body ELSE (
                   SELECT string_agg(p.body, E'\\n' ORDER BY p.part) FROM baton_snapshot_parts p
                   WHERE p.workspace = s.workspace AND p.seq = s.seq) END
                 FROM baton_snapshots s WHERE s.workspace = $1",
                &[&self.workspace],
            ))
            .map_err(Self::unavailable)?;
        let seq = row.as_ref().map_or(0, |r| r.get::<_, i64>(0));
        self.loaded.set(Some(seq));
        match row {
            None => Ok(None),
            Some(r) => Snapshot::from_lines(r.get::<_, Option<&str>>(1).unwrap_or("").split('\n')).map(Some),
        }
    }
}

/// Follows `NOTIFY baton_log` on a connection of its own and calls `wake` with each
/// workspace named; reconnects after a drop (streams poll meanwhile).
pub async fn listen(url: String, wake: impl Fn(&str) + Send + 'static) {
    use futures_util::StreamExt;
    loop {
        match tokio_postgres::connect(&url, NoTls).await {
            Ok((client, mut conn)) => {
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
                let driver = tokio::spawn(async move {
                    let mut messages = futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
                    while let Some(Ok(m)) = messages.next().await {
                        if let tokio_postgres::AsyncMessage::Notification(n) = m {
                            let _ = tx.send(n.payload().to_string());
                        }
                    }
                });
                if client.batch_execute("LISTEN baton_log").await.is_ok() {
                    while let Some(ws) = rx.recv().await {
                        wake(&ws);
                    }
                }
                driver.abort();
            }
            Err(e) => tracing::warn!(error = %e, "the event-hint listener cannot connect; streams poll"),
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// The handlers' side of Postgres: the node's pool, and the workspaces it has seen exist (a
/// workspace is never removed, so the answer is kept).
pub struct PgStore {
    pg: Arc<Pg>,
    known: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl PgStore {
    pub fn new(pg: Arc<Pg>) -> PgStore {
        PgStore { pg, known: std::sync::Mutex::new(Default::default()) }
    }
}

impl Store for PgStore {
    fn logs(&self) -> Arc<dyn LogSource> {
        Arc::new(PgLogs { pg: self.pg.clone(), rt: tokio::runtime::Handle::current() })
    }

    fn key<'a>(&'a self, hash: &'a str) -> Pending<'a, Option<StoredKey>> {
        Box::pin(self.pg.key(hash))
    }

    fn keys<'a>(&'a self, workspace: &'a str) -> Pending<'a, Vec<StoredKey>> {
        Box::pin(self.pg.keys(workspace))
    }

    fn add_key<'a>(&'a self, k: &'a StoredKey, ending: Option<&'a Ending>) -> Pending<'a, ()> {
        Box::pin(self.pg.add_key(k, ending))
    }

    fn end_key<'a>(&'a self, e: &'a Ending) -> Pending<'a, ()> {
        Box::pin(self.pg.end_key(e))
    }

    fn create_workspace<'a>(&'a self, name: &'a str, seed: u64, now_ms: u64) -> Pending<'a, Option<i64>> {
        Box::pin(self.pg.create_workspace(name, seed, now_ms))
    }

    fn exists<'a>(&'a self, name: &'a str) -> Pending<'a, bool> {
        Box::pin(async move {
            if self.known.lock().map_err(|_| "the workspace cache is poisoned")?.contains(name) {
                return Ok(true);
            }
            let found = self.pg.exists(name).await?;
            if found {
                self.known.lock().map_err(|_| "the workspace cache is poisoned")?.insert(name.to_string());
            }
            Ok(found)
        })
    }

    fn rows_after<'a>(
        &'a self,
        stream: Stream,
        workspace: &'a str,
        after: u64,
        limit: usize,
    ) -> Pending<'a, Vec<(u64, String)>> {
        Box::pin(self.pg.rows_after(stream, workspace, after, limit))
    }
}

/// Where a writer opens a workspace's log on Postgres: under this node's lease, over the pool.
struct PgLogs {
    pg: Arc<Pg>,
    rt: tokio::runtime::Handle,
}

impl LogSource for PgLogs {
    fn open_log(&self, name: &str, epoch: i64) -> Result<Box<dyn WriterLog>, WriteError> {
        Ok(Box::new(PgLog::open(&self.pg, &self.rt, name, epoch)?))
    }

    fn shared(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn messages_never_show_the_password() {
        assert_eq!(super::redact("postgres://baton:s3cret@db:5432/x"), "postgres://baton@db:5432/x");
        assert_eq!(super::redact("postgres://baton@127.0.0.1:5/x"), "postgres://baton@127.0.0.1:5/x");
        assert_eq!(super::redact("postgres://db/x"), "postgres://db/x");
    }

    #[test]
    fn a_session_idle_inside_a_transaction_for_a_lease_is_ended_and_the_urls_options_are_kept() {
        use std::time::Duration;
        let lease = Duration::from_millis(1500);
        assert_eq!(super::session_options(None, lease), "-c idle_in_transaction_session_timeout=1500");
        assert_eq!(
            super::session_options(Some("-c search_path=baton"), lease),
            "-c search_path=baton -c idle_in_transaction_session_timeout=1500"
        );
        // The URL's form of it parses to the same.
        let config: tokio_postgres::Config = "postgres://db/x?options=-c%20search_path%3Dbaton".parse().unwrap();
        assert_eq!(config.get_options(), Some("-c search_path=baton"));
    }
}
