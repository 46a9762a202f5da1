//! Keys and what each may do. A key is random (32 bytes, hex, prefixed `bk_`); only its
//! SHA-256 is stored. The admin key comes from `BATON_ADMIN_KEY` and is compared in constant
//! time. Every other key belongs to one workspace and one principal: `host`, `bot:ID` or
//! `teammate:HANDLE`; it may have an expiry, and it can be revoked (kept, marked, refused from
//! then on) or rotated (a new key for the same principal; the old one revoked, or left to
//! expire after a grace period). A key is named in listings by its id, `key_` and the first 16
//! hex digits of its hash: enough to tell keys apart, nothing to act with.
use baton_core::Caller;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Who a request acts as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Principal {
    /// Everything, every workspace.
    Admin,
    /// The agent host of one workspace: host inputs, and tool calls as any caller.
    Host,
    /// One bot: tool calls as itself only.
    Bot(String),
    /// One teammate: relay tools as itself only.
    Teammate(String),
}

impl Principal {
    /// Reads `host`, `bot:ID`, `teammate:HANDLE`.
    pub fn parse(s: &str) -> Option<Principal> {
        match s.split_once(':') {
            None if s == "host" => Some(Principal::Host),
            Some(("bot", id)) if !id.is_empty() => Some(Principal::Bot(id.to_string())),
            Some(("teammate", h)) if !h.is_empty() => Some(Principal::Teammate(h.to_string())),
            _ => None,
        }
    }

    /// The stored form (`parse` reads it back).
    pub fn as_stored(&self) -> String {
        match self {
            Principal::Admin => "admin".into(),
            Principal::Host => "host".into(),
            Principal::Bot(b) => format!("bot:{b}"),
            Principal::Teammate(h) => format!("teammate:{h}"),
        }
    }

    /// Whether this principal may send host inputs and read the whole log.
    pub fn is_host(&self) -> bool {
        matches!(self, Principal::Admin | Principal::Host)
    }

    /// Whether this principal may make a tool call as `caller`: admin and host keys name any
    /// caller; a bot key only callers whose bot is itself; a teammate key only itself, with no
    /// thread or bot.
    pub fn may_call_as(&self, caller: &Caller) -> bool {
        match self {
            Principal::Admin | Principal::Host => true,
            Principal::Bot(b) => caller.bot.as_deref() == Some(b.as_str()) && caller.handle.is_none(),
            Principal::Teammate(h) => {
                caller.handle.as_deref() == Some(h.as_str()) && caller.bot.is_none() && caller.thread.is_none()
            }
        }
    }
}

impl Principal {
    /// Whether an effect is for this principal: admin and host keys get every effect; a bot key
    /// those naming its bot (`bot_id`: start this child, wake that thread, remind it); a
    /// teammate key those addressed to its handle (`to`).
    pub fn sees_effect(&self, effect: &serde_json::Value) -> bool {
        match self {
            Principal::Admin | Principal::Host => true,
            Principal::Bot(b) => effect.get("bot_id").and_then(|v| v.as_str()) == Some(b.as_str()),
            Principal::Teammate(h) => effect.get("to").and_then(|v| v.as_str()) == Some(h.as_str()),
        }
    }
}

/// A stored key: what the database holds of it (never the key itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredKey {
    /// Its SHA-256 (hex).
    pub hash: String,
    pub workspace: String,
    /// The principal, stored form.
    pub principal: String,
    /// Milliseconds since the epoch, as every time the server keeps.
    pub created_at: u64,
    pub expires_at: Option<u64>,
    pub revoked_at: Option<u64>,
}

/// Why a stored key no longer acts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    Revoked,
    Expired,
}

impl Ended {
    /// The stored time it sets.
    pub fn column(self) -> &'static str {
        match self {
            Ended::Revoked => "revoked_at",
            Ended::Expired => "expires_at",
        }
    }
}

/// A key ending: revoked, or set to expire, at `at` (ms since the epoch); a time of that kind
/// it already has, if earlier, stays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    pub hash: String,
    pub how: Ended,
    pub at: u64,
}

/// The columns of a stored key, in [`StoredKey`]'s order (both databases' tables have them).
pub const COLUMNS: &str = "hash, workspace, principal, created_at, expires_at, revoked_at";

/// The event-stream hint that a key changed (`key:HASH`; no workspace name has a `:`).
pub fn hint(hash: &str) -> String {
    format!("key:{hash}")
}

/// Why a key id names no key.
#[derive(Debug, PartialEq, Eq)]
pub enum FindError {
    /// Not of the form `key_` and 16 hex digits.
    NotAnId(String),
    /// No key of the workspace has it.
    Unknown(String),
}

impl FindError {
    pub fn message(&self) -> String {
        match self {
            FindError::NotAnId(id) => format!("key_id: '{id}' is not a key id (key_ and 16 hex digits)"),
            FindError::Unknown(id) => format!("key_id: no key '{id}' in this workspace"),
        }
    }
}

impl StoredKey {
    /// Its id in listings.
    pub fn id(&self) -> String {
        id_of(&self.hash)
    }

    /// Whether it has stopped acting at `now_ms`.
    pub fn ended(&self, now_ms: u64) -> Option<Ended> {
        if self.revoked_at.is_some_and(|at| at <= now_ms) {
            Some(Ended::Revoked)
        } else if self.expires_at.is_some_and(|at| at <= now_ms) {
            Some(Ended::Expired)
        } else {
            None
        }
    }

    /// How listings show it (times as ISO 8601; `state` active, expired or revoked).
    pub fn to_json(&self, now_ms: u64) -> serde_json::Value {
        let iso = |ms: Option<u64>| ms.map(|m| baton_core::Timestamp(m).to_iso());
        let state = match self.ended(now_ms) {
            None => "active",
            Some(Ended::Expired) => "expired",
            Some(Ended::Revoked) => "revoked",
        };
        serde_json::json!({
            "key_id": self.id(),
            "principal": self.principal,
            "state": state,
            "created_at": iso(Some(self.created_at)),
            "expires_at": iso(self.expires_at),
            "revoked_at": iso(self.revoked_at),
        })
    }
}

/// A new key for `principal` of `workspace` at `now_ms`, expiring `expires_in_s` seconds
/// later if given: the key (shown once) and what is stored of it.
pub fn issue(workspace: &str, principal: &Principal, now_ms: u64, expires_in_s: Option<u64>) -> (String, StoredKey) {
    let key = generate();
    let stored = StoredKey {
        hash: hash(&key),
        workspace: workspace.to_string(),
        principal: principal.as_stored(),
        created_at: now_ms,
        expires_at: expires_in_s.map(|s| now_ms.saturating_add(s.saturating_mul(1000))),
        revoked_at: None,
    };
    (key, stored)
}

/// The key of `keys` that `id` names.
pub fn find<'k>(keys: &'k [StoredKey], id: &str) -> Result<&'k StoredKey, FindError> {
    let prefix = id_prefix(id).ok_or_else(|| FindError::NotAnId(id.to_string()))?;
    keys.iter().find(|k| k.hash.starts_with(prefix)).ok_or_else(|| FindError::Unknown(id.to_string()))
}

/// A rotation of `old` at `now_ms`: a new key for the same principal (expiring after
/// `expires_in_s` if given), and how the old one ends — revoked at once, or expiring
/// `grace_s` seconds later. A key that no longer acts is not rotated.
pub fn rotate(
    old: &StoredKey,
    now_ms: u64,
    grace_s: u64,
    expires_in_s: Option<u64>,
) -> Result<(String, StoredKey, Ending), String> {
    if old.ended(now_ms).is_some() {
        return Err(format!("key_id: {} no longer acts (revoked or expired); make a new key instead", old.id()));
    }
    let principal = Principal::parse(&old.principal).ok_or("the stored principal does not read")?;
    let (key, new) = issue(&old.workspace, &principal, now_ms, expires_in_s);
    let (how, at) = if grace_s == 0 {
        (Ended::Revoked, now_ms)
    } else {
        (Ended::Expired, now_ms.saturating_add(grace_s.saturating_mul(1000)))
    };
    Ok((key, new, Ending { hash: old.hash.clone(), how, at }))
}

/// The id of the key with this hash.
pub fn id_of(hash: &str) -> String {
    format!("key_{}", &hash[..hash.len().min(16)])
}

/// The hash prefix a key id names (`None`: not a key id).
pub fn id_prefix(id: &str) -> Option<&str> {
    id.strip_prefix("key_")
        .filter(|p| p.len() == 16 && p.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()))
}

/// A fresh key.
pub fn generate() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system gives random bytes");
    format!("bk_{}", hex(&bytes))
}

/// What is stored of a key.
pub fn hash(key: &str) -> String {
    hex(&Sha256::digest(key.as_bytes()))
}

/// Whether `given` is the admin key, in constant time.
pub fn is_admin(given: &str, admin: &str) -> bool {
    Sha256::digest(given.as_bytes()).ct_eq(&Sha256::digest(admin.as_bytes())).into()
}

pub(super) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_acts_only_as_its_principal() {
        let as_adam = Caller::new("chat_1", "adam");
        assert!(Principal::Host.may_call_as(&as_adam));
        assert!(Principal::Bot("adam".into()).may_call_as(&as_adam));
        assert!(!Principal::Bot("eve".into()).may_call_as(&as_adam));
        assert!(!Principal::Teammate("bob@acme".into()).may_call_as(&as_adam));
        assert!(Principal::Teammate("bob@acme".into()).may_call_as(&Caller::teammate("bob@acme")));
        assert!(!Principal::Teammate("bob@acme".into()).may_call_as(&Caller::teammate("ann@acme")));
        assert!(!Principal::Bot("adam".into()).is_host());
        for p in ["host", "bot:adam", "teammate:bob@acme"] {
            assert_eq!(Principal::parse(p).unwrap().as_stored(), p);
        }
        assert_eq!(Principal::parse("bot:"), None);
        assert_eq!(Principal::parse("root"), None);
    }

    #[test]
    fn keys_are_random_and_stored_hashed() {
        let (a, b) = (generate(), generate());
        assert_ne!(a, b);
        assert!(a.starts_with("bk_") && a.len() == 67);
        assert_eq!(hash(&a).len(), 64);
        // Stored hashes stay readable: SHA-256 in lowercase hex (the FIPS 180-2 example).
        assert_eq!(hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(hex(&[0, 9, 10, 255]), "00090aff");
        assert_ne!(hash(&a), a);
        assert!(is_admin(&a, &a) && !is_admin(&a, &b));
        let id = id_of(&hash(&a));
        assert_eq!(id_prefix(&id), Some(&hash(&a)[..16]));
        assert_eq!(id_prefix("key_XYZ"), None);
    }

    #[test]
    fn a_key_ends_when_revoked_or_expired() {
        let k = StoredKey {
            hash: hash("bk_x"),
            workspace: "w".into(),
            principal: "host".into(),
            created_at: 1_000,
            expires_at: Some(5_000),
            revoked_at: None,
        };
        assert_eq!(k.ended(4_999), None);
        assert_eq!(k.ended(5_000), Some(Ended::Expired));
        let revoked = StoredKey { revoked_at: Some(2_000), ..k.clone() };
        assert_eq!(revoked.ended(2_000), Some(Ended::Revoked));
        assert_eq!(revoked.to_json(2_000)["state"], "revoked");
        assert_eq!(k.to_json(0)["expires_at"], "1970-01-01T00:00:05Z");
    }

    #[test]
    fn rotating_makes_a_key_for_the_same_principal_and_ends_the_old_one() {
        let (_, old) = issue("w", &Principal::Bot("adam".into()), 1_000, None);
        let (key, new, Ending { how, at, .. }) = rotate(&old, 2_000, 0, Some(60)).unwrap();
        assert_eq!(
            (new.principal.as_str(), new.expires_at, how, at),
            ("bot:adam", Some(62_000), Ended::Revoked, 2_000)
        );
        assert_eq!(new.hash, hash(&key));
        let (_, _, Ending { how, at, .. }) = rotate(&old, 2_000, 30, None).unwrap();
        assert_eq!((how, at), (Ended::Expired, 32_000));
        let revoked = StoredKey { revoked_at: Some(1_500), ..old.clone() };
        assert!(rotate(&revoked, 2_000, 0, None).unwrap_err().starts_with("key_id:"));
        let all = [old.clone(), new.clone()];
        assert_eq!(find(&all, &new.id()).unwrap(), &new);
        assert!(find(&all, "key_0000000000000000").unwrap_err().message().contains("no key"));
        assert!(find(&all, "nope").unwrap_err().message().contains("not a key id"));
    }
}
