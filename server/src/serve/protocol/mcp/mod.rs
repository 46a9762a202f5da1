//! `/w/{workspace}/mcp`: Baton's tools over MCP's Streamable HTTP transport (`rmcp`), so any MCP
//! client can list and call them. The current protocol revision is served statelessly and the
//! previous, session-based one with sessions (rmcp's legacy session mode). The key's principal
//! is the caller: a bot key calls as its bot, a teammate key as its handle. Where a tool needs a
//! thread, the client binds one for the whole connection — `?as=THREAD` on the URL or a
//! `Baton-As: THREAD` header, which a stock client can set — or per request with `_meta`
//! `{"baton": {"as": CALLER}}` (the same shape and rules as `as` in the JSON-RPC API; it wins
//! over the binding). `tools/list` answers what the bound caller may call now (`tools_for`).
//! The key is checked before rmcp sees the request (a middleware puts the principal and the
//! binding into the request's extensions); rmcp checks Host and Origin. A client that declares
//! the `io.modelcontextprotocol/tasks` extension follows each `handoff` it makes as a task
//! (`task.rs`).
mod task;

use crate::serve::app::{refuse, App};
use crate::serve::keys::Principal;
use crate::serve::writer::actor::{Op, Workspace};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use baton_core::{Caller, Command};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock, GetTaskParams,
    GetTaskResult, Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations, UpdateTaskParams,
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
    /// The thread the connection is bound to (`?as=` or `Baton-As`), if any.
    pub bound: Option<String>,
}

/// The header that binds a connection to a thread, as `?as=` does.
pub const AS_HEADER: &str = "baton-as";

/// The longest thread id a binding takes (characters).
const BOUND_MAX: usize = 256;

/// The thread a request binds (`?as=` first, then the header): `Err` names what is wrong.
fn binding(req: &Request) -> Result<Option<String>, String> {
    let query = axum::extract::Query::<std::collections::HashMap<String, String>>::try_from_uri(req.uri())
        .map_err(|e| format!("the query does not read: {e}"))?;
    let given = match query.0.get("as") {
        Some(t) => Some(t.clone()),
        None => match req.headers().get(AS_HEADER) {
            Some(v) => Some(v.to_str().map_err(|_| format!("{AS_HEADER}: not text"))?.to_string()),
            None => None,
        },
    };
    match given {
        Some(t) if t.trim().is_empty() || t.chars().count() > BOUND_MAX => {
            Err(format!("as: a thread id of 1 to {BOUND_MAX} characters"))
        }
        other => Ok(other.map(|t| t.trim().to_string())),
    }
}

/// Checks the key against the path's workspace before the MCP service runs.
pub async fn authorize(State(app): State<Arc<App>>, mut req: Request, next: Next) -> Response {
    // A browser page may call only from an allowed origin (DNS rebinding, cross-site requests),
    // or from the server's own (same-origin: the Origin is the request's own Host, which the
    // MCP service then checks against the hosts it answers to); clients that are not browsers
    // send no Origin.
    if let Some(origin) = req.headers().get("origin") {
        let origin = origin.to_str().unwrap_or("").trim_end_matches('/');
        let host = req.headers().get("host").and_then(|h| h.to_str().ok()).unwrap_or_default();
        let same_origin = !host.is_empty() && origin == format!("http://{host}");
        if !same_origin && !app.origins.iter().any(|o| o == origin) {
            let body = format!("origin '{origin}' is not allowed (--cors-origin)");
            return (axum::http::StatusCode::FORBIDDEN, body).into_response();
        }
    }
    let workspace = req.uri().path().strip_prefix("/w/").and_then(|p| p.split('/').next()).unwrap_or("").to_string();
    let principal = match app.principal(req.headers(), &workspace).await {
        Ok(p) => p,
        Err(r) => return refuse(r, &workspace),
    };
    // Several nodes: MCP is served by the node that writes the workspace; a client sent
    // elsewhere is redirected there (307 keeps the method and the body).
    match crate::serve::writer::cluster::place(&app.writers, &workspace).await {
        crate::serve::writer::cluster::Placement::Local(_) => {}
        crate::serve::writer::cluster::Placement::Remote(url) => {
            let to = format!("{url}{}", req.uri().path_and_query().map_or("", |p| p.as_str()));
            return (axum::http::StatusCode::TEMPORARY_REDIRECT, [("location", to)]).into_response();
        }
        crate::serve::writer::cluster::Placement::Missing => {
            return refuse(crate::serve::app::Refusal::NotFound, &workspace)
        }
    }
    let bound = match binding(&req) {
        Ok(b) => b,
        Err(e) => return (axum::http::StatusCode::BAD_REQUEST, e).into_response(),
    };
    if bound.is_some() && matches!(principal, Principal::Teammate(_)) {
        let body = "as: a teammate key acts as its handle, with no thread";
        return (axum::http::StatusCode::BAD_REQUEST, body).into_response();
    }
    req.extensions_mut().insert(Authorized { workspace, principal, bound });
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

/// Who a request acts as.
enum Acting {
    /// A caller named in full (`_meta`, or the key's own identity).
    Caller(Caller),
    /// The bound thread, as the agent that owns it (a host or admin key).
    Thread(String),
}

/// The caller of a request: `_meta.baton.as` when given (checked like `as`), else the bound
/// thread (a bot key's bot must own it: the engine checks), else the key's own identity.
fn acting(auth: &Authorized, meta: Option<&Map<String, Value>>) -> Result<Acting, String> {
    let given = meta.and_then(|m| m.get("baton")).and_then(|b| b.get("as"));
    let caller = match (given, &auth.principal, &auth.bound) {
        (Some(v), _, _) => serde_json::from_value::<Caller>(v.clone()).map_err(|e| format!("_meta.baton.as: {e}"))?,
        (None, Principal::Bot(b), t) => {
            Caller { thread: t.as_deref().map(Into::into), bot: Some(b.clone()), handle: None }
        }
        (None, Principal::Teammate(h), _) => Caller::teammate(h),
        (None, _, Some(t)) => return Ok(Acting::Thread(t.clone())),
        (None, _, None) => Caller { thread: None, bot: None, handle: None },
    };
    if !auth.principal.may_call_as(&caller) {
        return Err("this key may not call as that caller (a bot or teammate key acts only as itself)".into());
    }
    Ok(Acting::Caller(caller))
}

/// The request's `_meta` when it holds `key` (rmcp lifts `_meta` into the context; a copy left
/// on the params counts too).
fn meta_with(
    params: Option<&rmcp::model::RequestMetaObject>,
    ctx: &RequestContext<RoleServer>,
    key: &str,
) -> Option<Value> {
    params
        .and_then(|m| serde_json::to_value(m).ok())
        .filter(|m| m.get(key).is_some())
        .or_else(|| serde_json::to_value(&ctx.meta).ok())
}

/// The request's `_meta` with Baton's part.
fn meta_of(params: Option<&rmcp::model::RequestMetaObject>, ctx: &RequestContext<RoleServer>) -> Option<Value> {
    meta_with(params, ctx, "baton")
}

/// The W3C trace context in a call's `_meta` (`traceparent`, `tracestate`, as MCP carries
/// them), if it is well formed: kept on the records the call makes.
fn trace_of(
    params: Option<&rmcp::model::RequestMetaObject>,
    ctx: &RequestContext<RoleServer>,
) -> Option<baton_core::TraceContext> {
    let meta = meta_with(params, ctx, "traceparent")?;
    let traceparent = meta.get("traceparent")?.as_str()?;
    baton_core::TraceContext::parse(traceparent, meta.get("tracestate").and_then(Value::as_str))
}

/// The JSON Schema dialect of every schema Baton publishes (schemars' 2020-12 generator).
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A schema as MCP carries it: an object, its dialect stated.
fn with_dialect(schema: Value) -> Arc<Map<String, Value>> {
    let mut m = match schema {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    m.insert("$schema".into(), Value::String(DIALECT.into()));
    Arc::new(m)
}

/// A tool as MCP lists it: its parameters and its result as schemas (`structuredContent`
/// answers match the result's), its title, and its declared effect as annotations (a read is
/// read-only; what else it does only matters for the rest). Its world is the workspace.
fn tool_of(t: &baton_core::surface::ToolDef) -> Tool {
    let e = t.effect;
    let mut hints = ToolAnnotations::with_title(t.title).read_only(e.read_only).open_world(false);
    if !e.read_only {
        hints = hints.destructive(e.destructive).idempotent(e.idempotent);
    }
    Tool::new(t.name, t.description, with_dialect(t.parameters()))
        .with_title(t.title)
        .with_raw_output_schema(with_dialect(t.result_schema()))
        .with_annotations(hints)
}

impl ServerHandler for BatonMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tasks().build())
            .with_server_info(Implementation::new("baton", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Baton: delegate work between agents (handoff, status, follow-ups, mail, teammates' inboxes). \
             Where a tool needs the calling thread, bind it for the connection (?as=THREAD on the URL or a Baton-As header) \
             or pass _meta {\"baton\": {\"as\": {\"thread\": ..., \"bot\": ...}}}; tools/list then lists what that thread may call.",
            )
    }

    /// What the caller may call now: a thread's `tools_for` when one is bound (or named in
    /// `_meta`); with no thread, a teammate's or an agent's key lists the tools that act as a
    /// teammate (the others need a thread), a host's every tool (it names the caller per call).
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let auth = authorized(&ctx)?;
        let meta = meta_of(request.as_ref().and_then(|r| r.meta.as_ref()), &ctx);
        let acting =
            acting(&auth, meta.as_ref().and_then(Value::as_object)).map_err(|e| McpError::invalid_params(e, None))?;
        let thread = match &acting {
            Acting::Thread(t) => Some(t.clone()),
            Acting::Caller(c) => c.thread.as_ref().map(|t| t.to_string()),
        };
        let all = baton_core::surface::TOOLS.iter();
        let tools: Vec<Tool> = match thread {
            Some(thread) => {
                let ws = self
                    .app
                    .workspace(&auth.workspace)
                    .ok_or_else(|| McpError::invalid_request(format!("no workspace '{}'", auth.workspace), None))?;
                let agent = match &auth.principal {
                    Principal::Bot(b) => Some(b.clone()),
                    _ => None,
                };
                let args = serde_json::json!({"thread_id": thread});
                let answer = ws
                    .run(Op::Command { command: Command::Host { input: "tools_for".into(), args }, agent, text: false })
                    .await
                    .map_err(|e| McpError::invalid_params(e.message.clone(), Some(e.to_json())))?;
                let names: Vec<&str> =
                    answer["tools"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                all.filter(|t| names.contains(&t.name)).map(tool_of).collect()
            }
            None if auth.principal.is_host() => all.map(tool_of).collect(),
            None => all.filter(|t| t.acts_as_teammate()).map(tool_of).collect(),
        };
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
        let meta = meta_of(request.meta.as_ref(), &ctx);
        let acting = match acting(&auth, meta.as_ref().and_then(Value::as_object)) {
            Ok(a) => a,
            Err(e) => return Ok(CallToolResult::error(vec![ContentBlock::text(e)]).into()),
        };
        let (tool, args) = (request.name.to_string(), Value::Object(request.arguments.unwrap_or_default()));
        // A delegation made by a client that follows tasks answers its task (SEP-2663: the
        // server decides; only `handoff` makes one) — on the revision that defines the
        // extension: a client of an earlier one may list it and not follow it.
        let modern = ctx.protocol_version().is_some_and(|v| !v.has_initialize());
        let as_task = tool == "handoff" && modern && ctx.client_capabilities().is_some_and(|c| c.supports_tasks());
        let op = match acting {
            Acting::Caller(caller) => Op::call(tool, args, caller),
            Acting::Thread(thread) => Op::ThreadCall { tool, args, thread },
        };
        self.app.commands.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let trace = trace_of(request.meta.as_ref(), &ctx);
        Ok(match ws.run_traced(op, trace).await {
            Ok(v) if as_task && v["success"] == true => {
                let id = v["handoff_id"].as_str().unwrap_or_default().to_string();
                let made = ws
                    .read(move |state| state.handoffs.get(id.as_str()).map(|h| task::created(state, h)))
                    .await
                    .map_err(|e| McpError::internal_error(e.message, None))?;
                match made {
                    Some(t) => return Ok(CallToolResponse::Task(t)),
                    None => CallToolResult::error(vec![ContentBlock::text("the handoff was made but cannot be read")]),
                }
            }
            Ok(v) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(v.to_string())]);
                r.structured_content = Some(v);
                r
            }
            // A refusal is a tool error whose text is Baton's error (code, name, field, rule),
            // without structuredContent: that is the result's, and clients check it against
            // the outputSchema even on errors (the official TypeScript SDK does).
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_json().to_string())]),
        }
        .into())
    }

    /// `tasks/get`: the handoff as a task, as it stands.
    async fn get_task(
        &self,
        request: GetTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let (ws, principal) = self.tasks_of(&ctx)?;
        let id = request.task_id.clone();
        let found = ws
            .read(move |state| {
                let h = state.handoffs.get(id.as_str()).filter(|h| task::visible(h, &principal))?;
                Some(task::detailed(state, h))
            })
            .await
            .map_err(|e| McpError::internal_error(e.message, None))?;
        found.map(GetTaskResult::new).ok_or_else(|| unknown_task(&request.task_id))
    }

    /// `tasks/cancel`: `handoff_cancel` as the agent that delegated; a finished task is left
    /// as it is (the ack is the same).
    async fn cancel_task(&self, request: CancelTaskParams, ctx: RequestContext<RoleServer>) -> Result<(), McpError> {
        let (ws, principal) = self.tasks_of(&ctx)?;
        let id = request.task_id.clone();
        let found = ws
            .read(move |state| {
                let h = state.handoffs.get(id.as_str()).filter(|h| task::visible(h, &principal))?;
                Some((h.status.is_terminal(), Caller::new(h.parent_thread_id.as_str(), &h.parent_bot_id)))
            })
            .await
            .map_err(|e| McpError::internal_error(e.message, None))?;
        let Some((finished, parent)) = found else { return Err(unknown_task(&request.task_id)) };
        if finished {
            return Ok(());
        }
        let args = serde_json::json!({"handoff_id": request.task_id, "reason": "cancelled through MCP tasks/cancel"});
        cancel_as(&ws, args, parent).await
    }

    /// `tasks/update`: the answers to the child's pending questions (`answer_user`), one form
    /// per question; `cancel` in a form cancels the task.
    async fn update_task(&self, request: UpdateTaskParams, ctx: RequestContext<RoleServer>) -> Result<(), McpError> {
        let (ws, principal) = self.tasks_of(&ctx)?;
        let id = request.task_id.clone();
        let found = ws
            .read(move |state| {
                let h = state.handoffs.get(id.as_str()).filter(|h| task::visible(h, &principal))?;
                Some((task::pending(state, h), Caller::new(h.parent_thread_id.as_str(), &h.parent_bot_id)))
            })
            .await
            .map_err(|e| McpError::internal_error(e.message, None))?;
        let Some((asked, parent)) = found else { return Err(unknown_task(&request.task_id)) };
        // Every response is read before anything is answered: a bad one changes nothing.
        let mut answers = Vec::new();
        for (key, response) in &request.input_responses {
            let Some((_, questions)) = asked.iter().find(|(q, _)| q == key) else {
                return Err(McpError::invalid_params(
                    format!("inputResponses.{key}: the task has no such outstanding input request"),
                    None,
                ));
            };
            let given = task::answers(response, questions.len(), key).map_err(|e| McpError::invalid_params(e, None))?;
            answers.push((key.clone(), given));
        }
        for (key, given) in answers {
            match given {
                Some(given) => {
                    let args = serde_json::json!({"question_id": key, "answers": given});
                    ws.run(Op::host("answer_user", args))
                        .await
                        .map_err(|e| McpError::invalid_params(e.message.clone(), Some(e.to_json())))?;
                }
                None => {
                    let args = serde_json::json!({"handoff_id": request.task_id, "reason": "the person cancelled (MCP elicitation)"});
                    return cancel_as(&ws, args, parent).await;
                }
            }
        }
        Ok(())
    }
}

impl BatonMcp {
    /// The workspace and the key's principal of a `tasks/*` request.
    fn tasks_of(&self, ctx: &RequestContext<RoleServer>) -> Result<(Workspace, Principal), McpError> {
        let auth = authorized(ctx)?;
        let ws = self
            .app
            .workspace(&auth.workspace)
            .ok_or_else(|| McpError::invalid_request(format!("no workspace '{}'", auth.workspace), None))?;
        Ok((ws, auth.principal))
    }
}

/// `handoff_cancel` as the agent that delegated.
async fn cancel_as(ws: &Workspace, args: Value, parent: Caller) -> Result<(), McpError> {
    let answer = ws
        .run(Op::call("handoff_cancel", args, parent))
        .await
        .map_err(|e| McpError::invalid_params(e.message.clone(), Some(e.to_json())))?;
    if answer.get("success") == Some(&Value::Bool(false)) {
        return Err(McpError::invalid_params(
            answer["error"].as_str().unwrap_or("the cancel was refused").to_string(),
            Some(answer),
        ));
    }
    Ok(())
}

/// An unknown task id (or one the key may not follow): SEP-2663 keeps -32602 for it.
fn unknown_task(id: &str) -> McpError {
    McpError::invalid_params(format!("no task '{id}'"), None)
}
