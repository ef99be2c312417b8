//! A `Transport` decorator that bounds how long one request may take. The HTTP client itself has no overall
//! timeout, because an SSE stream may stay quiet for minutes between events; so unary calls, and the opening
//! of a stream, are bounded here instead.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use a2a::*;
use a2a_client::{BoxStream, ServiceParams, Transport};
use async_trait::async_trait;

use super::grpc_tls_watch::TlsWatch;

pub struct GuardedTransport {
    inner: Box<dyn Transport>,
    timeout: Duration,
    /// For gRPC over TLS: what the handshakes noted, to say why a call failed (the SDK's error does not).
    tls: Option<Arc<TlsWatch>>,
}

impl GuardedTransport {
    pub fn new(inner: Box<dyn Transport>, timeout: Duration) -> Self {
        Self {
            inner,
            timeout,
            tls: None,
        }
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
        self.bounded(
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
        self.bounded("SubscribeToTask", self.inner.subscribe_to_task(p, r))
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
