//! A `Transport` decorator that bounds how long one request may take, for the SDK's gRPC transport (which has
//! no deadline of its own; our HTTP transports bound themselves in `wire/`). Unary calls and the opening of a
//! stream end within the request timeout; an open stream ends when it stays silent past the idle timeout or
//! outlives the overall deadline — the same bounds, and the same messages, as an SSE stream's (`wire::sse`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use a2a::*;
use a2a_client::{BoxStream, ServiceParams, Transport};
use async_trait::async_trait;
use futures::StreamExt;
use tokio::time::Instant;

use crate::remote::connect::grpc_tls_watch::TlsWatch;
use crate::remote::wire::http::seconds;
use crate::remote::wire::{WireLimits, fault, idle_fault};

pub struct GuardedTransport {
    inner: Box<dyn Transport>,
    timeout: Duration,
    /// The idle bound and overall deadline of streams (and the request timeout, as `timeout`).
    limits: WireLimits,
    /// For gRPC over TLS: what the handshakes noted, to say why a call failed (the SDK's error does not).
    tls: Option<Arc<TlsWatch>>,
}

impl GuardedTransport {
    pub fn new(inner: Box<dyn Transport>, limits: WireLimits) -> Self {
        Self {
            inner,
            timeout: limits.request,
            limits,
            tls: None,
        }
    }

    /// Open a stream within the request timeout (or the overall deadline, when that falls first), then keep
    /// it within the idle and overall bounds.
    async fn bounded_stream(
        &self,
        what: &str,
        fut: impl Future<Output = Result<EventStream, A2AError>>,
    ) -> Result<EventStream, A2AError> {
        let started = Instant::now();
        let opened = match self.limits.overall {
            Some(overall) if overall < self.timeout => {
                match tokio::time::timeout(overall, self.bounded(what, fut)).await {
                    Ok(r) => r,
                    Err(_) => Err(fault(format!(
                        "the stream's deadline of {} passed before {what} answered",
                        seconds(overall)
                    ))),
                }
            }
            _ => self.bounded(what, fut).await,
        }?;
        Ok(bound_stream(opened, self.limits, started))
    }

    /// Failures are explained by what this watch saw of the TLS handshakes.
    pub fn with_tls_watch(mut self, watch: Arc<TlsWatch>) -> Self {
        self.tls = Some(watch);
        self
    }

    async fn bounded<T>(
        &self,
        what: &str,
        fut: impl Future<Output = Result<T, A2AError>>,
    ) -> Result<T, A2AError> {
        match tokio::time::timeout(self.timeout, fut).await {
            Ok(Err(e)) => match self.tls.as_ref().and_then(|w| w.hint()) {
                // A transport prefix (see `error::SDK_TRANSPORT_PREFIXES`): a TLS failure is not the agent's answer.
                Some(hint) => Err(A2AError::internal(format!("gRPC TLS: {hint}"))),
                None => Err(e),
            },
            Ok(r) => r,
            // Phrased with the SDK's transport prefix so `error::classify` files it as a transport failure.
            Err(_) => Err(A2AError::internal(format!(
                "HTTP request failed: {what} got no reply within {} s",
                self.timeout.as_secs_f32()
            ))),
        }
    }
}

type EventStream = BoxStream<'static, Result<StreamResponse, A2AError>>;

#[async_trait]
impl Transport for GuardedTransport {
    async fn send_message(
        &self,
        p: &ServiceParams,
        r: &SendMessageRequest,
    ) -> Result<SendMessageResponse, A2AError> {
        self.bounded("SendMessage", self.inner.send_message(p, r))
            .await
    }
    async fn send_streaming_message(
        &self,
        p: &ServiceParams,
        r: &SendMessageRequest,
    ) -> Result<EventStream, A2AError> {
        self.bounded_stream(
            "SendStreamingMessage",
            self.inner.send_streaming_message(p, r),
        )
        .await
    }
    async fn get_task(&self, p: &ServiceParams, r: &GetTaskRequest) -> Result<Task, A2AError> {
        self.bounded("GetTask", self.inner.get_task(p, r)).await
    }
    async fn list_tasks(
        &self,
        p: &ServiceParams,
        r: &ListTasksRequest,
    ) -> Result<ListTasksResponse, A2AError> {
        self.bounded("ListTasks", self.inner.list_tasks(p, r)).await
    }
    async fn cancel_task(
        &self,
        p: &ServiceParams,
        r: &CancelTaskRequest,
    ) -> Result<Task, A2AError> {
        self.bounded("CancelTask", self.inner.cancel_task(p, r))
            .await
    }
    async fn subscribe_to_task(
        &self,
        p: &ServiceParams,
        r: &SubscribeToTaskRequest,
    ) -> Result<EventStream, A2AError> {
        self.bounded_stream("SubscribeToTask", self.inner.subscribe_to_task(p, r))
            .await
    }
    async fn create_push_config(
        &self,
        p: &ServiceParams,
        r: &TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        self.bounded(
            "CreateTaskPushNotificationConfig",
            self.inner.create_push_config(p, r),
        )
        .await
    }
    async fn get_push_config(
        &self,
        p: &ServiceParams,
        r: &GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        self.bounded(
            "GetTaskPushNotificationConfig",
            self.inner.get_push_config(p, r),
        )
        .await
    }
    async fn list_push_configs(
        &self,
        p: &ServiceParams,
        r: &ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2AError> {
        self.bounded(
            "ListTaskPushNotificationConfigs",
            self.inner.list_push_configs(p, r),
        )
        .await
    }
    async fn delete_push_config(
        &self,
        p: &ServiceParams,
        r: &DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), A2AError> {
        self.bounded(
            "DeleteTaskPushNotificationConfig",
            self.inner.delete_push_config(p, r),
        )
        .await
    }
    async fn get_extended_agent_card(
        &self,
        p: &ServiceParams,
        r: &GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2AError> {
        self.bounded(
            "GetExtendedAgentCard",
            self.inner.get_extended_agent_card(p, r),
        )
        .await
    }
    async fn destroy(&self) -> Result<(), A2AError> {
        self.inner.destroy().await
    }
}

/// What `bound_stream` carries from one item to the next.
struct Bounded {
    inner: EventStream,
    limits: WireLimits,
    deadline: Option<Instant>,
    events: usize,
    done: bool,
}

/// The events of an open stream, ended (with a fault item saying why) when nothing arrives for
/// `limits.idle` or when `limits.overall` has passed since `started`. Dropping the inner stream cancels the
/// call (tonic resets the HTTP/2 stream), so the agent sees the client go.
pub fn bound_stream(inner: EventStream, limits: WireLimits, started: Instant) -> EventStream {
    let state = Bounded {
        inner,
        limits,
        deadline: limits.overall.map(|d| started + d),
        events: 0,
        done: false,
    };
    futures::stream::unfold(state, |mut s| async move {
        if s.done {
            return None;
        }
        let idle_until = Instant::now() + s.limits.idle;
        let until = match s.deadline {
            Some(d) if d < idle_until => d,
            _ => idle_until,
        };
        let after = format!("after {}", crate::remote::wire::sse::count_label(s.events));
        match tokio::time::timeout_at(until, s.inner.next()).await {
            Ok(Some(item)) => {
                s.events += 1;
                Some((item, s))
            }
            Ok(None) => None,
            Err(_) => {
                s.done = true;
                let err = if s.deadline.is_some_and(|d| Instant::now() >= d) {
                    fault(format!(
                        "the stream's deadline of {} has passed {after}; it was closed",
                        seconds(s.limits.overall.unwrap_or_default()),
                    ))
                } else {
                    idle_fault(format!(
                        "no event for {} (idle timeout) {after}; the stream was closed",
                        seconds(s.limits.idle),
                    ))
                };
                // The SDK's stream is dropped here, which cancels the call.
                s.inner = futures::stream::empty().boxed();
                Some((Err(err), s))
            }
        }
    })
    .boxed()
}
