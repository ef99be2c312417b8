//! The demo's [`RequestHandler`]: the SDK's default handler, with its streaming methods metered for
//! backpressure (see `flow.rs`) and blocking SendMessage built on the metered stream. Every other
//! method is passed through untouched.

use std::sync::Arc;
use std::time::Duration;

use a2a::{
    A2AError, AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse,
    ListTasksRequest, ListTasksResponse, SendMessageRequest, SendMessageResponse, StreamResponse,
    SubscribeToTaskRequest, Task, TaskPushNotificationConfig, TaskState,
};
use a2a_server::{DefaultRequestHandler, RequestHandler, ServiceParams};
use async_trait::async_trait;
use futures::StreamExt;
use futures::stream::BoxStream;

use super::flow::{FlowControl, Registration, Subscriber};

type EventStream = BoxStream<'static, Result<StreamResponse, A2AError>>;

/// Upper bound on how long a blocking SendMessage that hit AUTH_REQUIRED waits for the scenario to
/// let go of the task (it holds on only while some other client streams the same task).
const AUTH_SETTLE: Duration = Duration::from_secs(3);

/// [`DefaultRequestHandler`] plus reader metering on SendMessage, SendStreamingMessage and
/// SubscribeToTask.
pub(crate) struct DemoHandler {
    inner: DefaultRequestHandler,
    flows: Arc<FlowControl>,
}

impl DemoHandler {
    pub(crate) fn new(inner: DefaultRequestHandler, flows: Arc<FlowControl>) -> Self {
        DemoHandler { inner, flows }
    }
}

/// Counts every event the transport takes from `stream`; the registration lives as long as the
/// stream.
fn metered(
    stream: EventStream,
    reader: Arc<Subscriber>,
    registration: Registration,
) -> EventStream {
    Box::pin(stream.inspect(move |_| {
        let _keep_registered = &registration;
        reader.took_one();
    }))
}

#[async_trait]
impl RequestHandler for DemoHandler {
    /// Blocking SendMessage, folded from the metered stream rather than delegated.
    ///
    /// The SDK's own blocking path reads the same 32-slot broadcast in-process and fails a `flood`
    /// with "Internal error" within milliseconds, because nothing paces the executor for that
    /// reader either. Going through the metered stream gives it backpressure; the folding mirrors
    /// `DefaultRequestHandler::send_message` (handler.rs): a message is the answer, AUTH_REQUIRED
    /// or `returnImmediately` return the task early, otherwise the task as stored once the
    /// execution ends, cut to `historyLength`.
    async fn send_message(
        &self,
        params: &ServiceParams,
        req: SendMessageRequest,
    ) -> Result<SendMessageResponse, A2AError> {
        let configuration = req.configuration.as_ref();
        let history_length = configuration.and_then(|c| c.history_length);
        let return_immediately = configuration
            .and_then(|c| c.return_immediately)
            .unwrap_or(false);
        let tenant = req.tenant.clone();
        let mut stream = self.send_streaming_message(params, req).await?;
        let mut task_id = None;
        while let Some(event) = stream.next().await {
            let (id, state) = match event? {
                StreamResponse::Message(message) => {
                    return Ok(SendMessageResponse::Message(message));
                }
                StreamResponse::Task(task) => (task.id, Some(task.status.state)),
                StreamResponse::StatusUpdate(update) => (update.task_id, Some(update.status.state)),
                StreamResponse::ArtifactUpdate(update) => (update.task_id, None),
            };
            let auth_required = state == Some(TaskState::AuthRequired);
            if auth_required && !return_immediately {
                // The scenario holds AUTH_REQUIRED open only for streaming readers; with this one
                // gone it ends at once. Answer after that, so the caller's reply with the token
                // does not find the execution still running.
                drop(stream);
                if let Some(flow) = self.flows.running(&id) {
                    flow.wait_finished(AUTH_SETTLE).await;
                }
                task_id = Some(id);
                break;
            }
            task_id = Some(id);
            if return_immediately {
                break;
            }
        }
        let id = task_id.ok_or_else(|| A2AError::internal("the demo agent produced no events"))?;
        let request = GetTaskRequest {
            id,
            history_length,
            tenant,
        };
        self.inner
            .get_task(params, request)
            .await
            .map(SendMessageResponse::Task)
    }

    async fn send_streaming_message(
        &self,
        params: &ServiceParams,
        req: SendMessageRequest,
    ) -> Result<EventStream, A2AError> {
        let (reader, registration) = self.flows.reader_for_message(&req.message.message_id);
        let stream = self.inner.send_streaming_message(params, req).await?;
        Ok(metered(stream, reader, registration))
    }

    async fn get_task(
        &self,
        params: &ServiceParams,
        req: GetTaskRequest,
    ) -> Result<Task, A2AError> {
        self.inner.get_task(params, req).await
    }

    /// ListTasks, minus artifacts unless the caller asked for them: §3.1.4 says they MUST be absent
    /// when `includeArtifacts` is false or unset, but the SDK's in-memory store ignores the flag
    /// (task_store/inmemory.rs `list`), and a `big` task would otherwise bloat every listing.
    async fn list_tasks(
        &self,
        params: &ServiceParams,
        req: ListTasksRequest,
    ) -> Result<ListTasksResponse, A2AError> {
        let include_artifacts = req.include_artifacts.unwrap_or(false);
        let mut response = self.inner.list_tasks(params, req).await?;
        if !include_artifacts {
            for task in &mut response.tasks {
                task.artifacts = None;
            }
        }
        Ok(response)
    }

    async fn cancel_task(
        &self,
        params: &ServiceParams,
        req: CancelTaskRequest,
    ) -> Result<Task, A2AError> {
        self.inner.cancel_task(params, req).await
    }

    async fn subscribe_to_task(
        &self,
        params: &ServiceParams,
        req: SubscribeToTaskRequest,
    ) -> Result<EventStream, A2AError> {
        let (reader, registration) = self.flows.reader_for_task(&req.id);
        let stream = self.inner.subscribe_to_task(params, req).await?;
        Ok(metered(stream, reader, registration))
    }

    async fn create_push_config(
        &self,
        params: &ServiceParams,
        req: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        self.inner.create_push_config(params, req).await
    }

    async fn get_push_config(
        &self,
        params: &ServiceParams,
        req: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        self.inner.get_push_config(params, req).await
    }

    async fn list_push_configs(
        &self,
        params: &ServiceParams,
        req: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2AError> {
        self.inner.list_push_configs(params, req).await
    }

    async fn delete_push_config(
        &self,
        params: &ServiceParams,
        req: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), A2AError> {
        self.inner.delete_push_config(params, req).await
    }

    async fn get_extended_agent_card(
        &self,
        params: &ServiceParams,
        req: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2AError> {
        self.inner.get_extended_agent_card(params, req).await
    }
}
