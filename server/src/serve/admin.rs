//! `baton workspace …`: the same database, offline — create a workspace, make a key, export a
//! workspace (a snapshot, the text `Baton.fromLog` and the console import), import one. A
//! running server opens the workspaces that exist when it starts; a workspace created here
//! while it runs is served after its next start (create it through the RPC to serve it at once).
//! Keys made, revoked or rotated here count at once (a running server reads keys from the
//! database on every request; a stream opened with a key revoked here ends at its next look,
//! within a minute — revoke through the RPC to end it at once).
use super::app::valid_name;
use super::clock::{now_ms, random_seed};
use super::keys;
use super::storage::records::Files;
use super::storage::sqlite as db;
use baton_core::{read_export, Engine, SeededIds};
use std::path::PathBuf;

pub const USAGE: &str = "usage:
  baton workspace create NAME --db PATH [--seed N]     create an empty workspace
  baton workspace key create NAME PRINCIPAL --db PATH [--expires-in SECONDS]
                                                       make a key (PRINCIPAL: host | bot:ID | teammate:HANDLE); prints it once
  baton workspace key list NAME --db PATH              the workspace's keys: id, principal, state, times (never the keys)
  baton workspace key revoke NAME KEY_ID --db PATH     revoke a key: refused from now on, by a running server too
  baton workspace key rotate NAME KEY_ID --db PATH [--grace SECONDS] [--expires-in SECONDS]
                                                       a new key for the same principal (printed once); the old one is
                                                       revoked, or with --grace expires that many seconds later
  (`baton workspace key NAME PRINCIPAL`, the first form without `create`, still works)
  baton workspace export NAME --db PATH                print the workspace as a snapshot export
  baton workspace import NAME FILE --db PATH [--seed N] create a workspace from an export ('-' reads stdin)";

/// Runs one subcommand (the arguments after `workspace`); what it prints goes to stdout.
pub fn main(args: &[String]) -> Result<String, String> {
    let mut positional = Vec::new();
    let (mut db_path, mut seed, mut expires_in, mut grace) = (None, None, None, 0);
    let seconds = |flag: &str, v: Option<&String>, min: u64| -> Result<u64, String> {
        let v = v.ok_or_else(|| format!("{flag} needs a number of seconds"))?;
        v.parse::<u64>()
            .ok()
            .filter(|n| *n >= min)
            .ok_or_else(|| format!("{flag} takes whole seconds, {min} or more, not '{v}'"))
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--db" => {
                let v = it.next().ok_or("--db needs a path")?;
                if v.starts_with("postgres://") || v.starts_with("postgresql://") {
                    return Err("baton workspace works on a SQLite file; on Postgres, create workspaces and keys \
                                through a running server's JSON-RPC (create_workspace, create_key)"
                        .into());
                }
                db_path = Some(PathBuf::from(v));
            }
            "--seed" => {
                let v = it.next().ok_or("--seed needs a number")?;
                seed = Some(v.parse::<u64>().map_err(|_| format!("--seed takes a whole number, not '{v}'"))?);
            }
            "--expires-in" => expires_in = Some(seconds("--expires-in", it.next(), 1)?),
            "--grace" => grace = seconds("--grace", it.next(), 0)?,
            "--help" | "-h" => return Err(String::new()),
            _ => positional.push(a.as_str()),
        }
    }
    let db_path = db_path.ok_or("--db PATH is required")?;
    let conn = db::open(&db_path, db::Settings::new(db::SyncMode::Full))
        .map_err(|e| format!("cannot open {}: {e}", db_path.display()))?;
    let exists = |name: &str| -> Result<bool, String> {
        Ok(db::workspaces(&conn).map_err(|e| e.to_string())?.iter().any(|(n, _)| n == name))
    };
    match positional.as_slice() {
        ["create", name] => {
            if !valid_name(name) {
                return Err(format!("'{name}' is not a workspace name (1–64 of A–Z a–z 0–9 _ -)"));
            }
            if !db::create_workspace(&conn, name, seed.unwrap_or_else(random_seed), now_ms())
                .map_err(|e| e.to_string())?
            {
                return Err(format!("workspace '{name}' exists"));
            }
            Ok(format!("created workspace '{name}'\n"))
        }
        ["key", "list", name] => {
            if !exists(name)? {
                return Err(format!("no workspace '{name}'"));
            }
            let now = now_ms();
            let mut out = String::from("key_id                principal             state    created_at                expires_at                revoked_at\n");
            for k in db::keys(&conn, name).map_err(|e| e.to_string())? {
                let j = k.to_json(now);
                let t = |f: &str| j[f].as_str().unwrap_or("-").to_string();
                out.push_str(&format!(
                    "{:<21} {:<21} {:<8} {:<25} {:<25} {}\n",
                    k.id(),
                    k.principal,
                    t("state"),
                    t("created_at"),
                    t("expires_at"),
                    t("revoked_at")
                ));
            }
            Ok(out)
        }
        ["key", verb @ ("revoke" | "rotate"), name, id] => {
            if !exists(name)? {
                return Err(format!("no workspace '{name}'"));
            }
            let all = db::keys(&conn, name).map_err(|e| e.to_string())?;
            let old = keys::find(&all, id).map_err(|f| f.message())?;
            let now = now_ms();
            if *verb == "revoke" {
                let revoke = keys::Ending { hash: old.hash.clone(), how: keys::Ended::Revoked, at: now };
                db::end_key(&conn, &revoke).map_err(|e| e.to_string())?;
                return Ok(format!("revoked {}\n", old.id()));
            }
            let (key, new, ending) = keys::rotate(old, now, grace, expires_in)?;
            db::add_key(&conn, &new, Some(&ending)).map_err(|e| e.to_string())?;
            Ok(format!("{key}\n"))
        }
        ["key", "create", name, principal] | ["key", name, principal] => {
            if !exists(name)? {
                return Err(format!("no workspace '{name}'"));
            }
            let p = keys::Principal::parse(principal)
                .ok_or_else(|| format!("'{principal}' is not a principal (host, bot:ID, teammate:HANDLE)"))?;
            let (key, stored) = keys::issue(name, &p, now_ms(), expires_in);
            db::add_key(&conn, &stored, None).map_err(|e| e.to_string())?;
            Ok(format!("{key}\n"))
        }
        ["export", name] => {
            let seed = db::workspaces(&conn)
                .map_err(|e| e.to_string())?
                .into_iter()
                .find(|(n, _)| n == name)
                .map(|(_, s)| s)
                .ok_or_else(|| format!("no workspace '{name}'"))?;
            // Read only: a running server may be writing the workspace (its records' file is
            // read up to the last committed batch, and nothing is cut or moved).
            let reading = db::Settings { read_only: true, ..db::Settings::new(db::SyncMode::Full) };
            let conn = db::open(&db_path, reading).map_err(|e| e.to_string())?;
            let log = std::sync::Arc::new(Files::new(&db_path, reading)).open_log(conn, name)?;
            let engine = Engine::open(log, Box::new(SeededIds::new(seed)))
                .map_err(|e| format!("workspace '{name}' does not open: {e}"))?;
            let mut out = engine.snapshot().to_lines().collect::<Vec<_>>().join("\n");
            out.push('\n');
            Ok(out)
        }
        ["import", name, file] => {
            if !valid_name(name) {
                return Err(format!("'{name}' is not a workspace name (1–64 of A–Z a–z 0–9 _ -)"));
            }
            if exists(name)? {
                return Err(format!("workspace '{name}' exists; import into a new name"));
            }
            let text =
                if *file == "-" { std::io::read_to_string(std::io::stdin()) } else { std::fs::read_to_string(file) }
                    .map_err(|e| format!("cannot read {file}: {e}"))?;
            let (snapshot, records) = read_export(&text).map_err(|e| format!("{file} is not an export: {e}"))?;
            let seed = seed.unwrap_or_else(random_seed);
            // Check it opens before storing anything.
            Engine::open_from(
                snapshot.clone(),
                baton_core::MemoryStorage::from_records(records.clone()),
                Box::new(SeededIds::new(seed)),
            )
            .map_err(|e| format!("{file} does not open: {e}"))?;
            let tx = conn.unchecked_transaction().map_err(|e| e.to_string())?;
            db::create_workspace(&tx, name, seed, now_ms()).map_err(|e| e.to_string())?;
            if let Some(s) = &snapshot {
                db::put_snapshot(&tx, name, s.header.seq, &s.to_lines().collect::<Vec<_>>().join("\n"))
                    .map_err(|e| e.to_string())?;
            }
            let after = snapshot.as_ref().map_or(0, |s| s.header.seq);
            for r in records.iter().filter(|r| r.seq > after) {
                db::append(&tx, name, r.seq, &r.to_json_line()).map_err(|e| e.to_string())?;
            }
            tx.commit().map_err(|e| e.to_string())?;
            Ok(format!(
                "imported workspace '{name}' ({} records after the snapshot)\n",
                records.iter().filter(|r| r.seq > after).count()
            ))
        }
        _ => Err("unknown or incomplete subcommand".into()),
    }
}
