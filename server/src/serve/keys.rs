//! Keys and what each may do. A key is random (32 bytes, hex, prefixed `bk_`); only its
//! SHA-256 is stored. The admin key comes from `BATON_ADMIN_KEY` and is compared in constant
//! time. Every other key belongs to one workspace and one principal: `host`, `bot:ID` or
//! `teammate:HANDLE`.
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
        assert_ne!(hash(&a), a);
        assert!(is_admin(&a, &a) && !is_admin(&a, &b));
    }
}
