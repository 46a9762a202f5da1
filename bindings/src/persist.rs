//! A workspace persisted in IndexedDB. Each accepted command is one IndexedDB transaction, and
//! it is acknowledged only after that transaction commits: the engine prepares the command,
//! the record is added, then the engine commits it. A command that fails stores nothing.
//!
//! Two tabs (or two engines) on one workspace: records are added under their number with
//! `add`, so the second writer of a number is refused; it then reads the records it missed,
//! absorbs them, and prepares its command again (detect and reload). Nothing is lost and both
//! end with the same log. Commands on one engine run one at a time (the JS layer queues them).
use crate::idb::{self, AddError};
use baton_core::{CallError, Caller, Engine, ErrorCode, LogRecord, NoStorage, Prepared, SeededIds, Timestamp};
use serde_json::Value;
use web_sys::IdbDatabase;

/// How often a command is prepared again after other writers moved the log.
const MAX_RETRIES: usize = 8;

/// An engine over an IndexedDB workspace.
pub struct Persistent {
    /// The engine (its own storage keeps nothing: IndexedDB holds the log).
    pub engine: Engine<NoStorage>,
    db: IdbDatabase,
    /// The workspace's id seed.
    pub seed: u64,
    /// The last record committed or absorbed, as its JSON line (for live views).
    pub last_line: Option<String>,
}

fn storage_error(msg: String) -> CallError {
    CallError::new(ErrorCode::StorageFailed, msg)
}

/// One command, preparable again and again.
pub enum Op {
    /// A tool call.
    Call(String, Value, Caller, Timestamp),
    /// A host input.
    Host(String, Value, Timestamp),
    /// A tick.
    Tick(Timestamp),
}

impl Op {
    fn prepare(&self, e: &Engine<NoStorage>) -> Result<Prepared, CallError> {
        match self {
            Op::Call(tool, args, caller, now) => e.prepare_call(tool, args.clone(), caller, *now),
            Op::Host(input, args, now) => e.prepare_host(input, args.clone(), *now),
            Op::Tick(now) => e.prepare_tick(*now),
        }
    }
}

impl Persistent {
    /// Opens a workspace, creating it with `seed` if new, and replays its log.
    pub async fn open(workspace: &str, seed: u64) -> Result<Persistent, CallError> {
        let db = idb::open(workspace).await.map_err(storage_error)?;
        let seed = match idb::seed(&db).await.map_err(storage_error)? {
            Some(s) => s as u64,
            None => {
                idb::set_seed(&db, seed as f64).await.map_err(storage_error)?;
                seed
            }
        };
        let engine =
            Engine::open(NoStorage, Box::new(SeededIds::new(seed))).map_err(|e| storage_error(e.to_string()))?;
        let mut p = Persistent { engine, db, seed, last_line: None };
        p.catch_up().await?;
        Ok(p)
    }

    /// Creates a workspace from an exported log (JSON lines) with its seed: the log is checked
    /// by replaying it, then stored in one transaction. Refused when the workspace has records.
    pub async fn import(workspace: &str, log: &str, seed: u64) -> Result<Persistent, CallError> {
        let mut check =
            Engine::open(NoStorage, Box::new(SeededIds::new(seed))).map_err(|e| storage_error(e.to_string()))?;
        let mut lines = Vec::new();
        for (i, line) in log.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            let record = LogRecord::from_json_line(line, i).map_err(|e| storage_error(e.to_string()))?;
            let seq = record.seq;
            check.absorb(record)?;
            lines.push((seq, line.to_string()));
        }
        let db = idb::open(workspace).await.map_err(storage_error)?;
        if !idb::lines_after(&db, 0).await.map_err(storage_error)?.is_empty() {
            return Err(storage_error(format!(
                "workspace '{workspace}' already has records; delete it before importing"
            )));
        }
        idb::set_seed(&db, seed as f64).await.map_err(storage_error)?;
        idb::add_all(&db, &lines).await.map_err(storage_error)?;
        drop(db);
        Persistent::open(workspace, seed).await
    }

    /// Absorbs every record other writers stored since this engine's last one.
    pub async fn catch_up(&mut self) -> Result<usize, CallError> {
        let lines = idb::lines_after(&self.db, self.engine.log_seq()).await.map_err(storage_error)?;
        let n = lines.len();
        for (i, line) in lines.iter().enumerate() {
            let record = LogRecord::from_json_line(line, i).map_err(|e| storage_error(e.to_string()))?;
            self.engine.absorb(record)?;
            self.last_line = Some(line.clone());
        }
        Ok(n)
    }

    /// Runs one command: prepare, store in one IndexedDB transaction, then commit.
    pub async fn exec(&mut self, op: Op) -> Result<Value, CallError> {
        for _ in 0..MAX_RETRIES {
            let prepared = op.prepare(&self.engine)?;
            if let Some(record) = prepared.record() {
                let line = record.to_json_line();
                match idb::add(&self.db, record.seq, &line).await {
                    Ok(()) => self.last_line = Some(line),
                    Err(AddError::Taken) => {
                        self.catch_up().await?;
                        continue;
                    }
                    Err(AddError::Failed(msg)) => return Err(storage_error(msg)),
                }
            }
            return self.engine.commit(prepared);
        }
        Err(CallError::new(ErrorCode::StaleCommand, "other writers kept moving the log; try again"))
    }

    /// The log as JSON lines, as this engine has it.
    pub async fn export(&self) -> Result<String, CallError> {
        let lines = idb::lines_after(&self.db, 0).await.map_err(storage_error)?;
        Ok(lines.into_iter().map(|l| l + "\n").collect())
    }
}
