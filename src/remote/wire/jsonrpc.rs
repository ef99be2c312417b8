//! The JSON-RPC 2.0 binding: `RpcEndpoint` posts one call (or opens one stream) and reads the envelope,
//! for both protocol versions; `JsonRpcTransport` is the v1.0 dialect (PascalCase methods, ProtoJSON
//! payloads) behind the SDK's `Transport` trait. The v0.3 dialect is in `remote/wire/v03.rs`.

use a2a::*;
use a2a_client::{BoxStream, ServiceParams, Transport};
use a2a_pb::protojson_conv::{self, ProtoJsonPayload};
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::{WireLimits, fault};
use crate::remote::wire::envelope::{self, RpcOutcome};
use crate::remote::wire::http::{self, content_summary};
use crate::remote::wire::sse::{self, SseData};

/// Headers for one call, already in their wire spelling.
pub type Headers = Vec<(String, String)>;

/// The headers the SDK client's `ServiceParams` ask for (version, extensions, the user's, the credential).
pub fn headers_from(params: &ServiceParams) -> Headers {
    params
        .iter()
        .flat_map(|(k, vs)| vs.iter().map(move |v| (k.clone(), v.clone())))
        .collect()
}

/// Where JSON-RPC calls go, and how long they may take.
#[derive(Clone)]
pub struct RpcEndpoint {
    http: reqwest::Client,
    url: String,
    limits: WireLimits,
}

/// An SSE stream's raw events, before the dialect decodes them.
pub type RawEvents = BoxStream<'static, Result<SseData, A2AError>>;

impl RpcEndpoint {
    pub fn new(http: reqwest::Client, url: String, limits: WireLimits) -> Self {
        Self { http, url, limits }
    }

    fn post(&self, headers: &Headers, method: &str, params: Value) -> reqwest::RequestBuilder {
        let body = json!({
            "jsonrpc": "2.0",
            "id": uuid::Uuid::new_v4().to_string(),
            "method": method,
            "params": params,
        });
        let mut builder = self.http.post(&self.url).json(&body);
        for (k, v) in headers {
            builder = builder.header(k, v);
        }
        builder
    }

    /// One call: the `result` as raw JSON text ("null" when there is none), or the agent's error, or a fault
    /// that names what came back instead.
    pub async fn call(
        &self,
        headers: &Headers,
        method: &str,
        params: Value,
    ) -> Result<String, A2AError> {
        let reply = http::unary(self.post(headers, method, params), &self.limits).await?;
        let text = reply.text()?;
        match envelope::rpc_reply(text) {
            Ok(RpcOutcome::Error(e)) => Err(e),
            Ok(RpcOutcome::Result(r)) if reply.status.is_success() => Ok(r
                .map(|r| r.get().to_string())
                .unwrap_or_else(|| "null".into())),
            Ok(RpcOutcome::Result(_)) => Err(fault(reply.describe())),
            Err(_) if !reply.status.is_success() => Err(fault(reply.describe())),
            Err(e) => Err(fault(format!(
                "the reply is not JSON-RPC ({}, HTTP {}): {e}",
                content_summary(&reply.headers, reply.body.len()),
                reply.status.as_u16()
            ))),
        }
    }

    /// Open a streaming call. A server that answers with one JSON reply instead of a stream (allowed by
    /// neither version, done by some) gets that reply delivered as the stream's only event.
    pub async fn stream(
        &self,
        headers: &Headers,
        method: &str,
        params: Value,
    ) -> Result<RawEvents, A2AError> {
        let started = Instant::now();
        let builder = self
            .post(headers, method, params)
            .header(reqwest::header::ACCEPT, "text/event-stream");
        let response = http::send(builder, &self.limits, started).await?;
        let status = response.status();
        let hdrs = response.headers().clone();
        // No content type at all is read as a stream: reading it to look would hang on a stream that has
        // not sent anything yet (the SDK decides the same way).
        let no_type = !hdrs.contains_key(reqwest::header::CONTENT_TYPE);
        if status.is_success() && (http::is_event_stream(&hdrs) || no_type) {
            return Ok(sse::events(response.bytes_stream(), self.limits, started));
        }
        let body = http::read_body(response, &self.limits, started + self.limits.request).await?;
        let reply = http::Reply {
            status,
            headers: hdrs,
            body,
        };
        let text = reply.text()?;
        match envelope::rpc_reply(text) {
            Ok(RpcOutcome::Error(e)) => Err(e),
            Ok(RpcOutcome::Result(Some(_))) if status.is_success() => {
                let only = SseData {
                    data: text.to_string(),
                    index: 1,
                    unfinished: false,
                };
                Ok(futures::stream::iter([Ok(only)]).boxed())
            }
            _ if !status.is_success() => Err(fault(reply.describe())),
            _ => Err(fault(format!(
                "a stream was asked for, but the reply is {} and not JSON-RPC",
                content_summary(&reply.headers, reply.body.len())
            ))),
        }
    }
}

/// Decode one v1.0 JSON-RPC stream event: an envelope around a ProtoJSON `StreamResponse` (or, from some
/// servers, the bare `StreamResponse`, which the SDK accepts too).
pub fn decode_event(ev: &SseData) -> Result<StreamResponse, A2AError> {
    if let Some(fast) = envelope::rpc_stream_event(&ev.data) {
        return fast;
    }
    let decoded = match envelope::rpc_reply(&ev.data) {
        Ok(RpcOutcome::Error(e)) => return Err(e),
        Ok(RpcOutcome::Result(Some(raw))) => envelope::stream_event(raw.get()),
        Ok(RpcOutcome::Result(None)) | Err(_) => envelope::stream_event(&ev.data),
    };
    decoded.map_err(|e| cut_short(ev, e))
}

/// An event that fails to decode because the body ended inside it says so, rather than blaming its JSON.
pub fn cut_short(ev: &SseData, e: A2AError) -> A2AError {
    if ev.unfinished {
        fault(format!(
            "connection closed in the middle of event {} (after {} complete)",
            ev.index,
            sse::count_label(ev.index.saturating_sub(1))
        ))
    } else {
        e
    }
}

/// The v1.0 JSON-RPC transport.
pub struct JsonRpcTransport {
    endpoint: RpcEndpoint,
}

impl JsonRpcTransport {
    pub fn new(endpoint: RpcEndpoint) -> Self {
        Self { endpoint }
    }

    async fn call<Req: ProtoJsonPayload, Resp: ProtoJsonPayload>(
        &self,
        params: &ServiceParams,
        method: &str,
        req: &Req,
    ) -> Result<Resp, A2AError> {
        let raw = self
            .endpoint
            .call(&headers_from(params), method, to_protojson(req)?)
            .await?;
        envelope::protojson(&raw, &format!("the reply to {method}"))
    }

    async fn stream<Req: ProtoJsonPayload>(
        &self,
        params: &ServiceParams,
        method: &str,
        req: &Req,
    ) -> Result<BoxStream<'static, Result<StreamResponse, A2AError>>, A2AError> {
        let events = self
            .endpoint
            .stream(&headers_from(params), method, to_protojson(req)?)
            .await?;
        Ok(events
            .map(|item| item.and_then(|ev| decode_event(&ev)))
            .boxed())
    }
}

pub fn to_protojson<T: ProtoJsonPayload>(req: &T) -> Result<Value, A2AError> {
    protojson_conv::to_value(req).map_err(|e| fault(format!("cannot encode the request: {e}")))
}

/// Push configs come back flat (`{"taskId", "url", …}`) from some servers and in ProtoJSON from others; the
/// SDK accepts both, so do we.
pub fn push_config(raw: &str) -> Result<TaskPushNotificationConfig, A2AError> {
    serde_json::from_str::<TaskPushNotificationConfig>(raw)
        .or_else(|_| envelope::protojson(raw, "the push notification config"))
}

pub fn push_config_list(raw: &str) -> Result<ListTaskPushNotificationConfigsResponse, A2AError> {
    if let Ok(list) = serde_json::from_str::<ListTaskPushNotificationConfigsResponse>(raw) {
        return Ok(list);
    }
    if let Ok(configs) = serde_json::from_str::<Vec<TaskPushNotificationConfig>>(raw) {
        return Ok(ListTaskPushNotificationConfigsResponse {
            configs,
            next_page_token: None,
        });
    }
    envelope::protojson(raw, "the push notification config list")
}

#[async_trait]
impl Transport for JsonRpcTransport {
    async fn send_message(
        &self,
        p: &ServiceParams,
        req: &SendMessageRequest,
    ) -> Result<SendMessageResponse, A2AError> {
        self.call(p, methods::SEND_MESSAGE, req).await
    }

    async fn send_streaming_message(
        &self,
        p: &ServiceParams,
        req: &SendMessageRequest,
    ) -> Result<BoxStream<'static, Result<StreamResponse, A2AError>>, A2AError> {
        self.stream(p, methods::SEND_STREAMING_MESSAGE, req).await
    }

    async fn get_task(&self, p: &ServiceParams, req: &GetTaskRequest) -> Result<Task, A2AError> {
        self.call(p, methods::GET_TASK, req).await
    }

    async fn list_tasks(
        &self,
        p: &ServiceParams,
        req: &ListTasksRequest,
    ) -> Result<ListTasksResponse, A2AError> {
        self.call(p, methods::LIST_TASKS, req).await
    }

    async fn cancel_task(
        &self,
        p: &ServiceParams,
        req: &CancelTaskRequest,
    ) -> Result<Task, A2AError> {
        self.call(p, methods::CANCEL_TASK, req).await
    }

    async fn subscribe_to_task(
        &self,
        p: &ServiceParams,
        req: &SubscribeToTaskRequest,
    ) -> Result<BoxStream<'static, Result<StreamResponse, A2AError>>, A2AError> {
        self.stream(p, methods::SUBSCRIBE_TO_TASK, req).await
    }

    async fn create_push_config(
        &self,
        p: &ServiceParams,
        req: &TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        // The flat shape, as the SDK sends it (its servers and the JS SDK's read it).
        let body = super::json_body(req)?;
        let raw = self
            .endpoint
            .call(&headers_from(p), methods::CREATE_PUSH_CONFIG, body)
            .await?;
        push_config(&raw)
    }

    async fn get_push_config(
        &self,
        p: &ServiceParams,
        req: &GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        let raw = self
            .endpoint
            .call(
                &headers_from(p),
                methods::GET_PUSH_CONFIG,
                to_protojson(req)?,
            )
            .await?;
        push_config(&raw)
    }

    async fn list_push_configs(
        &self,
        p: &ServiceParams,
        req: &ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2AError> {
        let raw = self
            .endpoint
            .call(
                &headers_from(p),
                methods::LIST_PUSH_CONFIGS,
                to_protojson(req)?,
            )
            .await?;
        push_config_list(&raw)
    }

    async fn delete_push_config(
        &self,
        p: &ServiceParams,
        req: &DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), A2AError> {
        self.endpoint
            .call(
                &headers_from(p),
                methods::DELETE_PUSH_CONFIG,
                to_protojson(req)?,
            )
            .await
            .map(|_| ())
    }

    async fn get_extended_agent_card(
        &self,
        p: &ServiceParams,
        req: &GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2AError> {
        self.call(p, methods::GET_EXTENDED_AGENT_CARD, req).await
    }

    async fn destroy(&self) -> Result<(), A2AError> {
        Ok(())
    }
}
