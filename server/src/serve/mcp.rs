//! `/w/{workspace}/mcp`: Baton's tools over MCP's Streamable HTTP transport (`rmcp`), so any MCP
//! client can list and call them. The current protocol revision is served statelessly and the
//! previous, session-based one with sessions (rmcp's legacy session mode). The key's principal
//! is the caller: a bot key calls as its bot, a teammate key as its handle; where a tool needs a
//! thread, the request's `_meta` carries `{"baton": {"as": CALLER}}` — the same shape and the
//! same rules as `as` in the JSON-RPC API. The key is checked before rmcp sees the request (a
//! middleware puts the principal into the request's extensions); rmcp checks Host and Origin.
use super::actor::Op;
use super::keys::Principal;
use super::{refuse, App};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use baton_core::Caller;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Who calls, for which workspace: what the middleware found.
#[derive(Clone)]
pub struct Authorized {
    pub workspace: String,
    pub principal: Principal,
}

/// Checks the key against the path's workspace before the MCP service runs.
pub async fn authorize(State(app): State<Arc<App>>, mut req: Request, next: Next) -> Response {
    // A browser page may call only from an allowed origin (DNS rebinding, cross-site requests);
    // clients that are not browsers send no Origin.
    if let Some(origin) = req.headers().get("origin") {
        let origin = origin.to_str().unwrap_or("").trim_end_matches('/');
        if !app.origins.iter().any(|o| o == origin) {
            let body = format!("origin '{origin}' is not allowed (--cors-origin)");
            return (axum::http::StatusCode::FORBIDDEN, body).into_response();
        }
    }
    let workspace = req.uri().path().strip_prefix("/w/").and_then(|p| p.split('/').next()).unwrap_or("").to_string();
    let principal = match app.principal(req.headers(), &workspace).await {
        Ok(p) => p,
        Err(r) => return refuse(r, &workspace),
    };
    if app.workspace(&workspace).is_none() {
        // Several nodes: MCP is served by the node that writes the workspace; a client sent
        // elsewhere is redirected there (307 keeps the method and the body).
        if let Some(pg) = app.store.cluster() {
            if let Ok(Some((_, Some(url), true))) = pg.owner(&workspace).await {
                let to = format!("{url}{}", req.uri().path_and_query().map_or("", |p| p.as_str()));
                return (axum::http::StatusCode::TEMPORARY_REDIRECT, [("location", to)]).into_response();
            }
        }
        return refuse(super::Refusal::NotFound, &workspace);
    }
    req.extensions_mut().insert(Authorized { workspace, principal });
    next.run(req).await
}

/// The MCP server: one per session (or per request, statelessly); all share the app.
#[derive(Clone)]
pub struct BatonMcp {
    pub app: Arc<App>,
}

fn authorized(ctx: &RequestContext<RoleServer>) -> Result<Authorized, McpError> {
    ctx.extensions
        .get::<axum::http::request::Parts>()
        .and_then(|p| p.extensions.get::<Authorized>())
        .cloned()
        .ok_or_else(|| McpError::invalid_request("no key was checked for this request", None))
}

/// The caller of a tool call: `_meta.baton.as` when given (checked like `as`), else the key's
/// own identity.
fn caller(principal: &Principal, meta: Option<&Map<String, Value>>) -> Result<Caller, String> {
    let given = meta.and_then(|m| m.get("baton")).and_then(|b| b.get("as"));
    let caller = match (given, principal) {
        (Some(v), _) => serde_json::from_value::<Caller>(v.clone()).map_err(|e| format!("_meta.baton.as: {e}"))?,
        (None, Principal::Bot(b)) => Caller { thread: None, bot: Some(b.clone()), handle: None },
        (None, Principal::Teammate(h)) => Caller::teammate(h),
        (None, _) => Caller { thread: None, bot: None, handle: None },
    };
    if !principal.may_call_as(&caller) {
        return Err("this key may not call as that caller (a bot or teammate key acts only as itself)".into());
    }
    Ok(caller)
}

impl ServerHandler for BatonMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("baton", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Baton: delegate work between agents (handoff, status, follow-ups, mail, teammates' inboxes). \
             Where a tool needs the calling thread, pass _meta {\"baton\": {\"as\": {\"thread\": ..., \"bot\": ...}}}.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        authorized(&ctx)?;
        let tools = baton_core::surface::TOOLS
            .iter()
            .map(|t| {
                let schema = match t.parameters() {
                    Value::Object(m) => m,
                    _ => Map::new(),
                };
                Tool::new(t.name, t.description, Arc::new(schema))
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let auth = authorized(&ctx)?;
        let ws = self
            .app
            .workspace(&auth.workspace)
            .ok_or_else(|| McpError::invalid_request(format!("no workspace '{}'", auth.workspace), None))?;
        // rmcp lifts the request's `_meta` into the context; a copy left on the params counts too.
        let meta = request
            .meta
            .as_ref()
            .and_then(|m| serde_json::to_value(m).ok())
            .filter(|m| m.get("baton").is_some())
            .or_else(|| serde_json::to_value(&ctx.meta).ok());
        let caller = match caller(&auth.principal, meta.as_ref().and_then(Value::as_object)) {
            Ok(c) => c,
            Err(e) => return Ok(CallToolResult::error(vec![ContentBlock::text(e)]).into()),
        };
        let args = Value::Object(request.arguments.unwrap_or_default());
        self.app.commands.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(match ws.run(Op::Call { tool: request.name.to_string(), args, caller }).await {
            Ok(v) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(v.to_string())]);
                r.structured_content = Some(v);
                r
            }
            Err(e) => {
                let body = e.to_json();
                let mut r = CallToolResult::error(vec![ContentBlock::text(body.to_string())]);
                r.structured_content = Some(body);
                r
            }
        }
        .into())
    }
}
