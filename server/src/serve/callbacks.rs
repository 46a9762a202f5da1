//! Posting `callback` effects (rule G14): the server owns delivery. For each callback a
//! workspace commits, the JSON payload is POSTed to the handoff's `callback_url` and the outcome
//! reported back as the `callback_result` host input — the engine then counts failures, emits
//! the next attempt, and after five makes the handoff `undeliverable`. Attempts after the first
//! wait (base × 2^(attempt−2), at most a minute).
//!
//! SSRF guard: the target's host is resolved once, every address it resolves to must be
//! public (not loopback, private, link-local, shared, unspecified, multicast or documentation
//! ranges) unless `--allow-private-callbacks`, and the request goes to the address that was
//! checked (Host header kept), so a second DNS answer cannot redirect it. Plain `http://`
//! only for now: an `https://` callback is reported failed with that reason (no TLS stack is
//! linked yet).
use super::actor::{Op, Workspace};
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};
use std::net::IpAddr;
use std::time::Duration;
use tokio::sync::broadcast;

/// How callbacks are posted.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// Allow loopback and private targets (a callback receiver on the same machine or network).
    pub allow_private: bool,
    /// The wait before the second attempt; each later one waits twice the one before.
    pub backoff: Duration,
}

/// How long one POST may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Whether an address may be a callback target without `--allow-private-callbacks`.
pub fn public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
                || (a == 198 && (b == 18 || b == 19)) // benchmarking
                || a >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local
                || (first & 0xffc0) == 0xfe80 // link-local
                || first == 0x2001 && v6.segments()[1] == 0x0db8) // documentation
        }
    }
}

/// Follows a workspace's effects and posts its callbacks until the workspace stops.
pub async fn run(ws: Workspace, policy: Policy) {
    let mut effects = ws.effects.subscribe();
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    loop {
        match effects.recv().await {
            Ok((_, body)) => {
                let Ok(effect) = serde_json::from_str::<Value>(&body) else { continue };
                if effect.get("effect").and_then(Value::as_str) != Some("callback") {
                    continue;
                }
                let (ws, client) = (ws.clone(), client.clone());
                tokio::spawn(async move {
                    let attempt = effect.get("attempt").and_then(Value::as_u64).unwrap_or(1);
                    if attempt > 1 {
                        let wait = policy.backoff.saturating_mul(1 << (attempt - 2).min(16));
                        tokio::time::sleep(wait.min(Duration::from_secs(60))).await;
                    }
                    let url = effect.get("url").and_then(Value::as_str).unwrap_or_default();
                    let outcome = post(&client, url, &effect["payload"], policy.allow_private).await;
                    let (ok, error) = match &outcome {
                        Ok(()) => (true, Value::Null),
                        Err(e) => (false, json!(e)),
                    };
                    tracing::info!(url, attempt, ok, error = ?outcome.as_ref().err(), "callback");
                    let args = json!({"handoff_id": effect["handoff_id"], "ok": ok, "error": error});
                    if let Err(e) = ws.run(Op::Host { input: "callback_result".into(), args }).await {
                        tracing::warn!(error = %e.message, "callback_result refused");
                    }
                });
            }
            Err(broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!(missed = n, "callback follower fell behind; those callbacks were not posted");
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

type HttpClient = Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

/// One POST, with the guard; the error says why it failed.
async fn post(client: &HttpClient, url: &str, payload: &Value, allow_private: bool) -> Result<(), String> {
    let uri: hyper::Uri = url.parse().map_err(|e| format!("callback_url does not parse: {e}"))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some("https") => return Err("https callbacks are not supported by this server yet (no TLS)".into()),
        _ => return Err("callback_url must be an http:// URL".into()),
    }
    let host = uri.host().ok_or("callback_url has no host")?.trim_start_matches('[').trim_end_matches(']').to_string();
    let port = uri.port_u16().unwrap_or(80);
    let addrs: Vec<_> = tokio::net::lookup_host((host.as_str(), port))
        .await
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .collect();
    let first = *addrs.first().ok_or_else(|| format!("{host} resolves to no address"))?;
    if !allow_private {
        if let Some(bad) = addrs.iter().find(|a| !public(a.ip())) {
            return Err(format!(
                "{host} resolves to {} (loopback, private or link-local), refused; --allow-private-callbacks allows it",
                bad.ip()
            ));
        }
    }
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let target = format!("http://{first}{path}");
    let authority = uri.authority().map(|a| a.as_str().to_string()).unwrap_or(host);
    let req = hyper::Request::post(target)
        .header("host", authority)
        .header("content-type", "application/json")
        .header("user-agent", concat!("baton/", env!("CARGO_PKG_VERSION")))
        .body(Full::new(Bytes::from(payload.to_string())))
        .map_err(|e| e.to_string())?;
    let resp = tokio::time::timeout(TIMEOUT, client.request(req))
        .await
        .map_err(|_| format!("no answer within {} s", TIMEOUT.as_secs()))?
        .map_err(|e| format!("POST failed: {e}"))?;
    if resp.status().is_success() {
        Ok(())
    } else {
        Err(format!("HTTP {}", resp.status().as_u16()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_refuses_every_non_public_range() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
        ] {
            assert!(!public(ip.parse().unwrap()), "{ip} is refused");
        }
        for ip in ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"] {
            assert!(public(ip.parse().unwrap()), "{ip} is allowed");
        }
    }
}
