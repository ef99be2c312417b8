//! The HTTP+JSON binding: `RestEndpoint` sends one request (or opens one stream) under a base URL, for both
//! protocol versions; `RestTransport` is the v1.0 dialect (`/message:send`, `/tasks/{id}` …, ProtoJSON
//! bodies) behind the SDK's `Transport` trait. The v0.3 dialect is in `remote/wire/v03_rest.rs`.
//!
//! Ids that go into a path come from the agent (a task id is the server's); they are percent-encoded as one
//! path segment, so an id like `../admin` cannot move the request elsewhere on the host.

use a2a::*;
use a2a_client::{BoxStream, ServiceParams, Transport};
use a2a_pb::protojson_conv::ProtoJsonPayload;
use async_trait::async_trait;
use futures::StreamExt;
use reqwest::Method;
use serde_json::Value;
use tokio::time::Instant;

use super::{WireLimits, fault};
use crate::remote::wire::envelope;
use crate::remote::wire::http::{self, Reply};
use crate::remote::wire::jsonrpc::{
    Headers, RawEvents, cut_short, headers_from, push_config, push_config_list, to_protojson,
};
use crate::remote::wire::sse::{self, SseData};

/// A base URL and the limits of the calls under it.
#[derive(Clone)]
pub struct RestEndpoint {
    http: reqwest::Client,
    /// The base URL without its query, and the query (an API key may be there), kept on every request.
    base: String,
    base_query: Option<String>,
    limits: WireLimits,
}

/// One path segment, percent-encoded. "." and ".." (even encoded, URL parsers resolve them as dot segments)
/// and the empty id cannot be one, so they are refused.
pub fn segment(id: &str) -> Result<String, A2AError> {
    if matches!(id, "" | "." | "..") {
        return Err(fault(format!(
            "the id {id:?} cannot be sent in a URL path; this agent's HTTP+JSON binding cannot address it"
        )));
    }
    Ok(url::form_urlencoded::byte_serialize(id.as_bytes())
        .collect::<String>()
        // form encoding writes spaces as '+', which a path does not decode.
        .replace('+', "%20"))
}

impl RestEndpoint {
    pub fn new(http: reqwest::Client, base: &str, limits: WireLimits) -> Self {
        let (path, query) = match base.split_once('?') {
            Some((p, q)) => (p, Some(q.to_string()).filter(|q| !q.is_empty())),
            None => (base, None),
        };
        Self {
            http,
            base: path.trim_end_matches('/').to_string(),
            base_query: query,
            limits,
        }
    }

    fn request(
        &self,
        method: Method,
        path: &str,
        query: &[(String, String)],
        headers: &Headers,
        body: Option<&Value>,
    ) -> reqwest::RequestBuilder {
        let url = match &self.base_query {
            Some(q) => format!("{}{path}?{q}", self.base),
            None => format!("{}{path}", self.base),
        };
        let mut b = self.http.request(method, url);
        if !query.is_empty() {
            b = b.query(query);
        }
        for (k, v) in headers {
            b = b.header(k, v);
        }
        if let Some(body) = body {
            b = b.json(body);
        }
        b
    }

    /// One request; the body of a 2xx reply as text, or the agent's error object, or a fault that says what
    /// came back.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        query: &[(String, String)],
        headers: &Headers,
        body: Option<&Value>,
    ) -> Result<String, A2AError> {
        let reply = http::unary(
            self.request(method, path, query, headers, body),
            &self.limits,
        )
        .await?;
        if !reply.status.is_success() {
            return Err(failure(&reply));
        }
        Ok(reply.text()?.to_string())
    }

    /// Open a stream (`GET` or `POST`).
    pub async fn stream(
        &self,
        method: Method,
        path: &str,
        headers: &Headers,
        body: Option<&Value>,
    ) -> Result<RawEvents, A2AError> {
        let started = Instant::now();
        let builder = self
            .request(method, path, &[], headers, body)
            .header(reqwest::header::ACCEPT, "text/event-stream");
        let response = http::send(builder, &self.limits, started).await?;
        let status = response.status();
        if status.is_success()
            && (http::is_event_stream(response.headers())
                || !response
                    .headers()
                    .contains_key(reqwest::header::CONTENT_TYPE))
        {
            return Ok(sse::events(response.bytes_stream(), self.limits, started));
        }
        let headers = response.headers().clone();
        let body = http::read_body(response, &self.limits, started + self.limits.request).await?;
        let reply = Reply {
            status,
            headers,
            body,
        };
        if !status.is_success() {
            return Err(failure(&reply));
        }
        // A single JSON object instead of a stream: deliver it as the only event.
        if http::is_json(&reply.headers) {
            let only = SseData {
                data: reply.text()?.to_string(),
                index: 1,
                unfinished: false,
            };
            return Ok(futures::stream::iter([Ok(only)]).boxed());
        }
        Err(fault(format!(
            "a stream was asked for, but the reply is {}",
            http::content_summary(&reply.headers, reply.body.len())
        )))
    }
}

/// A non-2xx reply: the agent's error object if it sent one, else the status named.
pub fn failure(reply: &Reply) -> A2AError {
    match std::str::from_utf8(&reply.body)
        .ok()
        .and_then(|t| envelope::rest_error(reply.status, t))
    {
        Some(e) => envelope::with_status(e, reply.status),
        None => fault(reply.describe()),
    }
}

/// Decode one v1.0 REST stream event: a bare ProtoJSON `StreamResponse`, or an error object.
pub fn decode_event(ev: &SseData) -> Result<StreamResponse, A2AError> {
    envelope::stream_event(&ev.data).map_err(|e| {
        match envelope::rest_error(reqwest::StatusCode::OK, &ev.data) {
            Some(agent) if !ev.unfinished && ev.data.contains("\"error\"") => agent,
            _ => cut_short(ev, e),
        }
    })
}

/// The v1.0 HTTP+JSON transport.
pub struct RestTransport {
    endpoint: RestEndpoint,
}

impl RestTransport {
    pub fn new(endpoint: RestEndpoint) -> Self {
        Self { endpoint }
    }

    async fn get<Resp: ProtoJsonPayload>(
        &self,
        p: &ServiceParams,
        path: &str,
        query: &[(String, String)],
    ) -> Result<Resp, A2AError> {
        let raw = self
            .endpoint
            .call(Method::GET, path, query, &headers_from(p), None)
            .await?;
        envelope::protojson(&raw, &format!("the reply to GET {path}"))
    }

    async fn post<Req: ProtoJsonPayload, Resp: ProtoJsonPayload>(
        &self,
        p: &ServiceParams,
        path: &str,
        req: &Req,
    ) -> Result<Resp, A2AError> {
        let body = to_protojson(req)?;
        let raw = self
            .endpoint
            .call(Method::POST, path, &[], &headers_from(p), Some(&body))
            .await?;
        envelope::protojson(&raw, &format!("the reply to POST {path}"))
    }

    async fn stream(
        &self,
        p: &ServiceParams,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<BoxStream<'static, Result<StreamResponse, A2AError>>, A2AError> {
        let events = self
            .endpoint
            .stream(method, path, &headers_from(p), body)
            .await?;
        Ok(events
            .map(|item| item.and_then(|ev| decode_event(&ev)))
            .boxed())
    }
}

fn push(v: Option<impl ToString>, key: &str, q: &mut Vec<(String, String)>) {
    if let Some(v) = v {
        q.push((key.to_string(), v.to_string()));
    }
}

#[async_trait]
impl Transport for RestTransport {
    async fn send_message(
        &self,
        p: &ServiceParams,
        req: &SendMessageRequest,
    ) -> Result<SendMessageResponse, A2AError> {
        self.post(p, "/message:send", req).await
    }

    async fn send_streaming_message(
        &self,
        p: &ServiceParams,
        req: &SendMessageRequest,
    ) -> Result<BoxStream<'static, Result<StreamResponse, A2AError>>, A2AError> {
        let body = to_protojson(req)?;
        self.stream(p, Method::POST, "/message:stream", Some(&body))
            .await
    }

    async fn get_task(&self, p: &ServiceParams, req: &GetTaskRequest) -> Result<Task, A2AError> {
        let mut q = Vec::new();
        push(req.history_length, "historyLength", &mut q);
        self.get(p, &format!("/tasks/{}", segment(&req.id)?), &q)
            .await
    }

    async fn list_tasks(
        &self,
        p: &ServiceParams,
        req: &ListTasksRequest,
    ) -> Result<ListTasksResponse, A2AError> {
        let mut q = Vec::new();
        push(req.context_id.as_ref(), "contextId", &mut q);
        if let Some(status) = &req.status
            && let Ok(Value::String(s)) = serde_json::to_value(status)
        {
            q.push(("status".into(), s));
        }
        push(req.page_size, "pageSize", &mut q);
        push(req.page_token.as_ref(), "pageToken", &mut q);
        push(req.history_length, "historyLength", &mut q);
        push(
            req.status_timestamp_after.map(|t| t.to_rfc3339()),
            "statusTimestampAfter",
            &mut q,
        );
        push(req.include_artifacts, "includeArtifacts", &mut q);
        self.get(p, "/tasks", &q).await
    }

    async fn cancel_task(
        &self,
        p: &ServiceParams,
        req: &CancelTaskRequest,
    ) -> Result<Task, A2AError> {
        self.post(p, &format!("/tasks/{}:cancel", segment(&req.id)?), req)
            .await
    }

    async fn subscribe_to_task(
        &self,
        p: &ServiceParams,
        req: &SubscribeToTaskRequest,
    ) -> Result<BoxStream<'static, Result<StreamResponse, A2AError>>, A2AError> {
        // The spec's path; the Python and JS SDK servers answer GET and POST alike.
        self.stream(
            p,
            Method::GET,
            &format!("/tasks/{}:subscribe", segment(&req.id)?),
            None,
        )
        .await
    }

    async fn create_push_config(
        &self,
        p: &ServiceParams,
        req: &TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        let body = super::json_body(req)?;
        let path = format!("/tasks/{}/pushNotificationConfigs", segment(&req.task_id)?);
        let raw = self
            .endpoint
            .call(Method::POST, &path, &[], &headers_from(p), Some(&body))
            .await?;
        push_config(&raw)
    }

    async fn get_push_config(
        &self,
        p: &ServiceParams,
        req: &GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        let path = format!(
            "/tasks/{}/pushNotificationConfigs/{}",
            segment(&req.task_id)?,
            segment(&req.id)?
        );
        let raw = self
            .endpoint
            .call(Method::GET, &path, &[], &headers_from(p), None)
            .await?;
        push_config(&raw)
    }

    async fn list_push_configs(
        &self,
        p: &ServiceParams,
        req: &ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2AError> {
        let mut q = Vec::new();
        push(req.page_size, "pageSize", &mut q);
        push(req.page_token.as_ref(), "pageToken", &mut q);
        let path = format!("/tasks/{}/pushNotificationConfigs", segment(&req.task_id)?);
        let raw = self
            .endpoint
            .call(Method::GET, &path, &q, &headers_from(p), None)
            .await?;
        push_config_list(&raw)
    }

    async fn delete_push_config(
        &self,
        p: &ServiceParams,
        req: &DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), A2AError> {
        let path = format!(
            "/tasks/{}/pushNotificationConfigs/{}",
            segment(&req.task_id)?,
            segment(&req.id)?
        );
        self.endpoint
            .call(Method::DELETE, &path, &[], &headers_from(p), None)
            .await
            .map(|_| ())
    }

    async fn get_extended_agent_card(
        &self,
        p: &ServiceParams,
        _req: &GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2AError> {
        self.get(p, "/extendedAgentCard", &[]).await
    }

    async fn destroy(&self) -> Result<(), A2AError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_stay_one_path_segment() {
        assert_eq!(segment("abc-123").unwrap(), "abc-123");
        assert_eq!(segment("../admin").unwrap(), "..%2Fadmin");
        assert_eq!(segment("a b?c#d").unwrap(), "a%20b%3Fc%23d");
        for dots in ["", ".", ".."] {
            assert!(segment(dots).is_err(), "{dots:?}");
        }
    }
}
