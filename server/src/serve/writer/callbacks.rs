//! Posting `callback` effects (rule G14): the server owns delivery. For each callback a
//! workspace commits, the JSON payload is POSTed to the handoff's `callback_url` and the outcome
//! reported back as the `callback_result` host input — the engine then counts failures, emits
//! the next attempt, and after five makes the handoff `undeliverable`. Attempts after the first
//! wait (base × 2^(attempt−2), at most a minute).
//!
//! A callback a host attached (`set_callback`) carries its extra headers; one whose tag a
//! protocol claims ([`Render`]: A2A's push configs, tag `a2a:…`) posts the body that protocol
//! renders from the engine when it is posted (A2A: the task as a `StreamResponse`,
//! `application/a2a+json`).
//!
//! SSRF guard: the target's host is resolved once, every address it resolves to must be
//! public (not loopback, private, link-local, shared, unspecified, multicast or documentation
//! ranges) unless `--allow-private-callbacks`, and the connection goes to the address that was
//! checked (Host header kept), so a second DNS answer cannot redirect it. `https://` targets
//! are verified against the URL's host name (rustls with the Mozilla roots of `webpki-roots`,
//! plus any `--callback-ca` certificates) over that same checked address.
//!
//! A callback posted but not answered when the server stopped (its handoff still
//! `callback_pending`) is posted again when the workspace starts: delivery is at least once.
use crate::serve::writer::actor::{Job, Log, Op, Workspace};
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::rt::TokioIo;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;
use tokio_rustls::rustls;

/// How callbacks are posted.
#[derive(Clone)]
pub struct Policy {
    /// Allow loopback and private targets (a callback receiver on the same machine or network).
    pub allow_private: bool,
    /// The wait before the second attempt; each later one waits twice the one before.
    pub backoff: Duration,
    /// TLS for `https://` targets.
    pub tls: tokio_rustls::TlsConnector,
    /// The bodies protocols render for the callbacks they claim by tag.
    pub renders: Vec<Render>,
}

/// A protocol's body for the callbacks whose tag starts with `prefix`: made by `body` from the
/// engine when the callback is posted (from its handoff id; `None`: the handoff is gone, and the
/// effect's own payload is posted), sent as `content_type`.
#[derive(Clone, Copy)]
pub struct Render {
    pub prefix: &'static str,
    pub content_type: &'static str,
    pub body: fn(&baton_core::Engine<Log>, &str) -> Option<Value>,
}

impl Policy {
    /// The defaults: public targets only, 500 ms backoff, the Mozilla roots plus the
    /// certificates in `extra_ca` (PEM files).
    pub fn new(allow_private: bool, backoff: Duration, extra_ca: &[std::path::PathBuf]) -> Result<Policy, String> {
        Ok(Policy { allow_private, backoff, tls: tls(extra_ca)?, renders: Vec::new() })
    }

    /// Claims the callbacks tagged `render.prefix…` for a protocol's body.
    pub fn rendering(mut self, render: Render) -> Policy {
        self.renders.push(render);
        self
    }
}

fn tls(extra_ca: &[std::path::PathBuf]) -> Result<tokio_rustls::TlsConnector, String> {
    let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    for file in extra_ca {
        let certs = CertificateDer::pem_file_iter(file)
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| format!("--callback-ca {}: {e}", file.display()))?;
        if certs.is_empty() {
            return Err(format!("--callback-ca {}: no certificate in the file", file.display()));
        }
        for c in certs {
            roots.add(c).map_err(|e| format!("--callback-ca {}: {e}", file.display()))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
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

/// A `callback` effect (G14) as the writer stored and broadcast it, read once into its type.
#[derive(Clone, Debug, Deserialize)]
struct Callback {
    /// The effect's tag: `callback`.
    effect: String,
    handoff_id: String,
    url: String,
    #[serde(default = "first")]
    attempt: u64,
    #[serde(default)]
    payload: Value,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    tag: Option<String>,
}

fn first() -> u64 {
    1
}

/// A callback effect's JSON, read once into its type (`None`: not a callback after all).
fn callback_of(effect: &str) -> Option<Callback> {
    serde_json::from_str::<Callback>(effect).ok().filter(|c| c.effect == "callback")
}

/// Follows a workspace's effects and posts its callbacks until the workspace stops; first
/// posts again the callbacks that were in flight when the server last stopped.
pub async fn run(ws: Workspace, policy: Policy) {
    let mut effects = ws.callbacks.subscribe();
    // The callbacks in flight at start, posted again now: one committed between the
    // subscription and this read also comes on the stream, and is not posted twice.
    let mut reposted = HashSet::new();
    match ws.run(Op::PendingCallbacks).await {
        Ok(Value::Array(pending)) => {
            // the writer answers the stored `callback` effects themselves
            for effect in pending.into_iter().filter_map(|e| serde_json::from_value::<Callback>(e).ok()) {
                tracing::info!(handoff_id = %effect.handoff_id, "posting a callback again: it was in flight at the last stop");
                reposted.insert((effect.handoff_id.clone(), effect.attempt));
                spawn_post(&ws, &policy, effect);
            }
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e.message, "could not read the callbacks in flight"),
    }
    let mut stopped = ws.stopped.clone();
    loop {
        let next = tokio::select! {
            e = effects.recv() => e,
            _ = stopped.wait_for(|s| *s) => return,
        };
        match next {
            Ok((_, body)) => {
                let Some(effect) = callback_of(&body) else { continue };
                if !reposted.remove(&(effect.handoff_id.clone(), effect.attempt)) {
                    spawn_post(&ws, &policy, effect);
                }
            }
            Err(broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!(missed = n, "callback follower fell behind; those callbacks were not posted");
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

fn spawn_post(ws: &Workspace, policy: &Policy, effect: Callback) {
    let attempt = effect.attempt;
    let (ws, policy) = (ws.clone(), policy.clone());
    tokio::spawn(async move {
        if attempt > 1 {
            let wait = policy.backoff.saturating_mul(1 << (attempt - 2).min(16));
            tokio::time::sleep(wait.min(Duration::from_secs(60))).await;
        }
        let url = effect.url.as_str();
        let headers: Vec<(String, String)> = effect.headers.clone().into_iter().collect();
        // A callback a protocol claims posts its body, rendered now.
        let tag = effect.tag.as_deref().unwrap_or_default();
        let render = policy.renders.iter().find(|r| tag.starts_with(r.prefix)).copied();
        let (body, content_type) = match render {
            Some(render) => {
                let id = effect.handoff_id.clone();
                let job: Job = Box::new(move |engine, _| Ok((render.body)(engine, &id).unwrap_or(Value::Null)));
                match ws.run(Op::Run(job)).await {
                    Ok(v) if !v.is_null() => (v, render.content_type),
                    _ => (effect.payload.clone(), "application/json"),
                }
            }
            None => (effect.payload.clone(), "application/json"),
        };
        let outcome = tokio::time::timeout(TIMEOUT, post(&policy, url, &body, content_type, &headers))
            .await
            .unwrap_or_else(|_| Err(format!("no answer within {} s", TIMEOUT.as_secs())));
        let (ok, error) = match &outcome {
            Ok(()) => (true, Value::Null),
            Err(e) => (false, json!(e)),
        };
        tracing::info!(url, attempt, ok, error = ?outcome.as_ref().err(), "callback");
        let args = json!({"handoff_id": effect.handoff_id, "ok": ok, "error": error});
        if let Err(e) = ws.run(Op::host("callback_result", args)).await {
            tracing::warn!(error = %e.message, "callback_result refused");
        }
    });
}

/// One POST, with the guard; the error says why it failed.
async fn post(
    policy: &Policy,
    url: &str,
    payload: &Value,
    content_type: &str,
    headers: &[(String, String)],
) -> Result<(), String> {
    let uri: hyper::Uri = url.parse().map_err(|e| format!("callback_url does not parse: {e}"))?;
    let https = match uri.scheme_str() {
        Some("http") => false,
        Some("https") => true,
        _ => return Err("callback_url must be an http:// or https:// URL".into()),
    };
    let host = uri.host().ok_or("callback_url has no host")?.trim_start_matches('[').trim_end_matches(']').to_string();
    let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
    let addrs: Vec<_> = tokio::net::lookup_host((host.as_str(), port))
        .await
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("{host} resolves to no address"));
    }
    if !policy.allow_private {
        if let Some(bad) = addrs.iter().find(|a| !public(a.ip())) {
            return Err(format!(
                "{host} resolves to {} (loopback, private or link-local), refused; --allow-private-callbacks allows it",
                bad.ip()
            ));
        }
    }
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let authority = uri.authority().map(|a| a.as_str().to_string()).unwrap_or_else(|| host.clone());
    let mut req = hyper::Request::post(path)
        .header("host", authority)
        .header("content-type", content_type)
        .header("user-agent", concat!("baton/", env!("CARGO_PKG_VERSION")));
    // The host's extra headers (`set_callback`: names and values checked by the engine).
    for (name, value) in headers {
        req = req.header(name.as_str(), value.as_str());
    }
    let req = req.body(Full::new(Bytes::from(payload.to_string()))).map_err(|e| e.to_string())?;
    let tcp = connect(&addrs).await?;
    let status = if https {
        let name = ServerName::try_from(host.clone()).map_err(|e| format!("{host} is not a TLS server name: {e}"))?;
        let stream = policy.tls.connect(name, tcp).await.map_err(|e| format!("TLS with {host}: {e}"))?;
        send(TokioIo::new(stream), req).await?
    } else {
        send(TokioIo::new(tcp), req).await?
    };
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("HTTP {}", status.as_u16()))
    }
}

/// Connects to the first of the checked addresses that answers, in the resolver's order.
async fn connect(addrs: &[std::net::SocketAddr]) -> Result<tokio::net::TcpStream, String> {
    let mut last = String::new();
    for a in addrs {
        match tokio::net::TcpStream::connect(a).await {
            Ok(tcp) => return Ok(tcp),
            Err(e) => last = format!("cannot connect to {a}: {e}"),
        }
    }
    Err(last)
}

/// Sends one request over a fresh HTTP/1.1 connection.
async fn send<IO>(io: IO, req: hyper::Request<Full<Bytes>>) -> Result<hyper::StatusCode, String>
where
    IO: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(io).await.map_err(|e| format!("HTTP handshake: {e}"))?;
    tokio::spawn(conn);
    let resp = sender.send_request(req).await.map_err(|e| format!("POST failed: {e}"))?;
    Ok(resp.status())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g14_a_callback_effect_is_read_into_its_type_and_other_effects_are_not() {
        let c = callback_of(r#"{"effect":"callback","handoff_id":"h1","url":"https://example.test/hook","attempt":2,"payload":{"status":"completed"},"headers":{"x-tag":"t"}}"#)
            .expect("a callback");
        assert_eq!((c.handoff_id.as_str(), c.url.as_str(), c.attempt), ("h1", "https://example.test/hook", 2));
        assert_eq!(c.payload["status"], "completed");
        assert_eq!(c.headers.get("x-tag").map(String::as_str), Some("t"));
        assert_eq!(c.tag, None);
        assert_eq!(
            callback_of(r#"{"effect":"callback","handoff_id":"h1","url":"u","payload":null}"#).unwrap().attempt,
            1
        );
        assert!(callback_of(r#"{"effect":"wake","thread_id":"t","bot_id":"b"}"#).is_none());
        assert!(callback_of("not json").is_none());
    }

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
