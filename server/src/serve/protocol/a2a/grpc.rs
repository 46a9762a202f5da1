//! The gRPC binding (spec §10): `lf.a2a.v1.A2AService` as the A2A project's own Rust crate
//! (`a2a-pb`) generates it from the specification's `a2a.proto` — its prost messages and its
//! tonic service trait. Each RPC turns its request into ProtoJSON (the crate's pbjson types:
//! the same field names the other bindings read) and hands it to the same [`call`] as
//! JSON-RPC and HTTP+JSON; the answer comes back the same way. Served on the server's own
//! port (HTTP/2 with prior knowledge, beside HTTP/1.1).
//!
//! gRPC's path is the service's, so the route is the request's `tenant`: `WORKSPACE/AGENT`,
//! as the card's gRPC interface names it; an empty tenant is the `--a2a-default` agent (the
//! one the root card describes). The key, `A2A-Version` and `A2A-Extensions` ride in metadata.
use super::code;
use super::http::{base, call, caller, generations_asked, version, Call, Refused, Reply};
use crate::serve::app::App;
use a2a_pb::proto::a2a_service_server::{A2aService, A2aServiceServer};
use a2a_pb::{proto, protojson};
use axum::http::StatusCode;
use futures_util::Stream;
use prost::Message;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{Map, Value};
use std::pin::Pin;
use std::sync::Arc;
use tokio_stream::StreamExt;
use tonic::{Request, Response, Status};

/// The service, over the app.
pub struct Grpc {
    app: Arc<App>,
}

/// The tonic service to mount beside the HTTP routes.
pub fn service(app: Arc<App>) -> A2aServiceServer<Grpc> {
    A2aServiceServer::new(Grpc { app })
}

/// A message as another type of the same wire form (prost ↔ the pbjson twin).
fn transcode<S: Message, D: Message + Default>(source: &S) -> Result<D, Status> {
    D::decode(source.encode_to_vec().as_slice()).map_err(|e| Status::internal(format!("transcoding: {e}")))
}

/// A gRPC status for an A2A error: the spec's status for its code, the message, and the
/// ErrorInfo (reason, domain, metadata) the other bindings carry.
fn status(error: &Value) -> Status {
    let code = error["code"].as_i64().unwrap_or(code::INTERNAL);
    let message = error["message"].as_str().unwrap_or_default();
    let grpc = match code::grpc_status(code) {
        "NOT_FOUND" => tonic::Code::NotFound,
        "FAILED_PRECONDITION" => tonic::Code::FailedPrecondition,
        "UNIMPLEMENTED" => tonic::Code::Unimplemented,
        "INVALID_ARGUMENT" => tonic::Code::InvalidArgument,
        "ABORTED" => tonic::Code::Aborted,
        _ => tonic::Code::Internal,
    };
    let Some(info) = error.pointer("/data/0") else { return Status::new(grpc, message) };
    use tonic_types::{ErrorDetails, StatusExt};
    let metadata: std::collections::HashMap<String, String> = info["metadata"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect())
        .unwrap_or_default();
    let details = ErrorDetails::with_error_info(
        info["reason"].as_str().unwrap_or_default(),
        info["domain"].as_str().unwrap_or_default(),
        metadata,
    );
    Status::with_error_details(grpc, message, details)
}

fn refused(r: Refused) -> Status {
    match r {
        Refused::A2a(code, message) => status(&code::error_object(code, &message)),
        Refused::Http(response) => match response.status() {
            StatusCode::UNAUTHORIZED => {
                Status::unauthenticated("a key of the workspace is needed (authorization: Bearer KEY)")
            }
            StatusCode::FORBIDDEN => Status::permission_denied("this key may not use this workspace"),
            StatusCode::NOT_FOUND => Status::not_found("no such workspace"),
            StatusCode::TEMPORARY_REDIRECT => {
                let to = response.headers().get("location").and_then(|l| l.to_str().ok()).unwrap_or_default();
                Status::unavailable(format!("another node writes this workspace: {to}"))
            }
            other => Status::internal(format!("refused ({other})")),
        },
    }
}

/// A stream of `StreamResponse`s as tonic sends it.
type Events = Pin<Box<dyn Stream<Item = Result<proto::StreamResponse, Status>> + Send>>;

impl Grpc {
    /// Runs `method` with the request's fields (ProtoJSON) on the workspace and agent its
    /// tenant names.
    async fn run<P: Message, J: Message + Default + Serialize>(
        &self,
        method: &str,
        request: Request<P>,
    ) -> Result<Reply, Status> {
        let headers = request.metadata().clone().into_headers();
        let twin: J = transcode(request.get_ref())?;
        let Value::Object(mut params) = serde_json::to_value(twin).map_err(|e| Status::internal(e.to_string()))? else {
            return Err(Status::internal("a request that is not an object"));
        };
        let (workspace, agent) = self.route(&params)?;
        // The tenant routed it; the agent is the tenant the rest of the binding knows.
        params.insert("tenant".into(), Value::String(agent.clone()));
        if let Err((code, message)) = version(&headers) {
            return Err(status(&code::error_object(code, &message)));
        }
        let caller = caller(&self.app, &headers, &workspace).await.map_err(refused)?;
        let base = base(&headers, &workspace, &agent);
        let path = format!("/w/{workspace}/a2a/{agent}");
        let generations = generations_asked(&headers);
        call(
            &self.app,
            Call {
                workspace,
                agent,
                caller,
                method: method.to_string(),
                params,
                resume: None,
                base,
                path,
                generations,
            },
        )
        .await
        .map_err(refused)
    }

    /// The workspace and agent a request's tenant names.
    fn route(&self, params: &Map<String, Value>) -> Result<(String, String), Status> {
        route(params.get("tenant").and_then(Value::as_str), self.app.a2a_default.as_ref())
    }

    /// A unary RPC: the answer's result as the response message.
    async fn once<P, J, JOut, POut>(&self, method: &str, request: Request<P>) -> Result<Response<POut>, Status>
    where
        P: Message,
        J: Message + Default + Serialize,
        JOut: Message + DeserializeOwned,
        POut: Message + Default,
    {
        match self.run::<P, J>(method, request).await? {
            Reply::Once(v) => {
                if let Some(e) = v.get("error") {
                    return Err(status(e));
                }
                let result = v.get("result").cloned().unwrap_or(Value::Object(Map::new()));
                let twin: JOut = serde_json::from_value(result)
                    .map_err(|e| Status::internal(format!("the answer does not read as {method}'s: {e}")))?;
                Ok(Response::new(transcode(&twin)?))
            }
            Reply::Stream(_) => Err(Status::internal("a stream where one answer was expected")),
        }
    }

    /// A streaming RPC: each event as a `StreamResponse`.
    async fn stream<P, J>(&self, method: &str, request: Request<P>) -> Result<Response<Events>, Status>
    where
        P: Message,
        J: Message + Default + Serialize,
    {
        match self.run::<P, J>(method, request).await? {
            Reply::Stream(rx) => {
                let events = tokio_stream::wrappers::ReceiverStream::new(rx).map(|(_, event)| {
                    let twin: protojson::StreamResponse =
                        serde_json::from_value(event).map_err(|e| Status::internal(format!("an event: {e}")))?;
                    transcode(&twin)
                });
                Ok(Response::new(Box::pin(events) as Events))
            }
            Reply::Once(v) => match v.get("error") {
                Some(e) => Err(status(e)),
                // A message answered at once (nothing to follow): its one event.
                None => {
                    let result = v.get("result").cloned().unwrap_or_default();
                    let event = result.get("task").map_or(result.clone(), |t| serde_json::json!({"task": t}));
                    let twin: protojson::StreamResponse =
                        serde_json::from_value(event).map_err(|e| Status::internal(format!("the answer: {e}")))?;
                    let one: proto::StreamResponse = transcode(&twin)?;
                    Ok(Response::new(Box::pin(tokio_stream::once(Ok(one))) as Events))
                }
            },
        }
    }
}

/// The workspace and agent of a tenant (`WORKSPACE/AGENT`); none: the default agent.
fn route(tenant: Option<&str>, default: Option<&(String, String)>) -> Result<(String, String), Status> {
    match tenant.filter(|t| !t.is_empty()) {
        Some(t) => match t.split_once('/') {
            Some((w, a)) if !w.is_empty() && !a.is_empty() && !a.contains('/') => Ok((w.into(), a.into())),
            _ => Err(Status::invalid_argument(format!("tenant: '{t}' is not WORKSPACE/AGENT"))),
        },
        None => default.cloned().ok_or_else(|| {
            Status::invalid_argument("tenant: WORKSPACE/AGENT is needed (this server has no --a2a-default agent)")
        }),
    }
}

#[tonic::async_trait]
impl A2aService for Grpc {
    async fn send_message(
        &self,
        request: Request<proto::SendMessageRequest>,
    ) -> Result<Response<proto::SendMessageResponse>, Status> {
        self.once::<_, protojson::SendMessageRequest, protojson::SendMessageResponse, _>("SendMessage", request).await
    }

    type SendStreamingMessageStream = Events;

    async fn send_streaming_message(
        &self,
        request: Request<proto::SendMessageRequest>,
    ) -> Result<Response<Events>, Status> {
        self.stream::<_, protojson::SendMessageRequest>("SendStreamingMessage", request).await
    }

    async fn get_task(&self, request: Request<proto::GetTaskRequest>) -> Result<Response<proto::Task>, Status> {
        self.once::<_, protojson::GetTaskRequest, protojson::Task, _>("GetTask", request).await
    }

    async fn list_tasks(
        &self,
        request: Request<proto::ListTasksRequest>,
    ) -> Result<Response<proto::ListTasksResponse>, Status> {
        self.once::<_, protojson::ListTasksRequest, protojson::ListTasksResponse, _>("ListTasks", request).await
    }

    async fn cancel_task(&self, request: Request<proto::CancelTaskRequest>) -> Result<Response<proto::Task>, Status> {
        self.once::<_, protojson::CancelTaskRequest, protojson::Task, _>("CancelTask", request).await
    }

    type SubscribeToTaskStream = Events;

    async fn subscribe_to_task(
        &self,
        request: Request<proto::SubscribeToTaskRequest>,
    ) -> Result<Response<Events>, Status> {
        self.stream::<_, protojson::SubscribeToTaskRequest>("SubscribeToTask", request).await
    }

    async fn create_task_push_notification_config(
        &self,
        request: Request<proto::TaskPushNotificationConfig>,
    ) -> Result<Response<proto::TaskPushNotificationConfig>, Status> {
        self.once::<_, protojson::TaskPushNotificationConfig, protojson::TaskPushNotificationConfig, _>(
            "CreateTaskPushNotificationConfig",
            request,
        )
        .await
    }

    async fn get_task_push_notification_config(
        &self,
        request: Request<proto::GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<proto::TaskPushNotificationConfig>, Status> {
        self.once::<_, protojson::GetTaskPushNotificationConfigRequest, protojson::TaskPushNotificationConfig, _>(
            "GetTaskPushNotificationConfig",
            request,
        )
        .await
    }

    async fn list_task_push_notification_configs(
        &self,
        request: Request<proto::ListTaskPushNotificationConfigsRequest>,
    ) -> Result<Response<proto::ListTaskPushNotificationConfigsResponse>, Status> {
        self.once::<
            _,
            protojson::ListTaskPushNotificationConfigsRequest,
            protojson::ListTaskPushNotificationConfigsResponse,
            _,
        >("ListTaskPushNotificationConfigs", request)
        .await
    }

    async fn get_extended_agent_card(
        &self,
        request: Request<proto::GetExtendedAgentCardRequest>,
    ) -> Result<Response<proto::AgentCard>, Status> {
        self.once::<_, protojson::GetExtendedAgentCardRequest, protojson::AgentCard, _>("GetExtendedAgentCard", request)
            .await
    }

    async fn delete_task_push_notification_config(
        &self,
        request: Request<proto::DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<()>, Status> {
        match self
            .run::<_, protojson::DeleteTaskPushNotificationConfigRequest>("DeleteTaskPushNotificationConfig", request)
            .await?
        {
            Reply::Once(v) => match v.get("error") {
                Some(e) => Err(status(e)),
                None => Ok(Response::new(())),
            },
            Reply::Stream(_) => Err(Status::internal("a stream where one answer was expected")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::StatusExt;

    #[test]
    fn the_tenant_is_the_route_and_none_is_the_default_agent() {
        let default = ("demo".to_string(), "echo".to_string());
        assert_eq!(route(Some("w1/planner"), Some(&default)).unwrap(), ("w1".into(), "planner".into()));
        assert_eq!(route(Some(""), Some(&default)).unwrap(), default);
        assert_eq!(route(None, None).unwrap_err().code(), tonic::Code::InvalidArgument);
        for bad in ["echo", "/echo", "w1/", "w1/a/b"] {
            let e = route(Some(bad), Some(&default)).unwrap_err();
            assert_eq!(e.code(), tonic::Code::InvalidArgument, "{bad}");
            assert!(e.message().starts_with("tenant:"), "{bad}");
        }
    }

    #[test]
    fn an_a2a_error_is_the_specs_grpc_status_with_its_error_info() {
        let mut e = code::error_object(code::TASK_GENERATION_MISMATCH, "stale");
        e["data"][0]["metadata"] = serde_json::json!({"currentGeneration": "5"});
        let s = status(&e);
        assert_eq!(s.code(), tonic::Code::Aborted);
        let info = s.get_details_error_info().expect("an ErrorInfo");
        assert_eq!((info.reason.as_str(), info.domain.as_str()), ("TASK_GENERATION_MISMATCH", "a2a-protocol.org"));
        assert_eq!(info.metadata.get("currentGeneration").map(String::as_str), Some("5"));
        assert_eq!(status(&code::error_object(code::TASK_NOT_FOUND, "no")).code(), tonic::Code::NotFound);
        // JSON-RPC's own errors carry no ErrorInfo
        assert!(status(&code::error_object(code::INVALID_PARAMS, "bad")).get_details_error_info().is_none());
    }
}
