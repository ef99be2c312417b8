//! End-to-end checks of the embedded demo agent: a real server on 127.0.0.1, driven by the official
//! A2A client crates over JSON-RPC, HTTP+JSON and gRPC.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a::{
    A2AError, AgentCard, CancelTaskRequest, GetExtendedAgentCardRequest, GetTaskRequest,
    ListTasksRequest, Message, Part, PartContent, Role, SendMessageConfiguration,
    SendMessageRequest, SendMessageResponse, StreamResponse, Task, TaskPushNotificationConfig,
    TaskState,
};
use a2a_client::agent_card::AgentCardResolver;
use a2a_client::auth::AuthInterceptor;
use a2a_client::{A2AClient, A2AClientFactory, Transport};
use a2a_console::demo::{self, DEMO_BEARER_TOKEN, DemoAgent};
use futures::StreamExt;
use tokio::sync::mpsc;

const JSONRPC: &str = "JSONRPC";
const REST: &str = "HTTP+JSON";
const GRPC: &str = "GRPC";
/// Upper bound for anything in these tests; the scenarios themselves take seconds at most.
const PATIENCE: Duration = Duration::from_secs(60);

type Client = A2AClient<Box<dyn Transport>>;

async fn card(agent: &DemoAgent) -> AgentCard {
    AgentCardResolver::new(None)
        .resolve(&agent.base_url())
        .await
        .expect("agent card")
}

/// A client for `binding`, optionally sending the operator token on every call.
async fn client(agent: &DemoAgent, binding: &str, with_token: bool) -> Client {
    let mut builder = A2AClientFactory::builder()
        .register(Arc::new(a2a_grpc::GrpcTransportFactory::new()))
        .preferred_bindings(vec![binding.to_owned()]);
    if with_token {
        builder = builder.with_interceptor(Arc::new(AuthInterceptor::bearer(DEMO_BEARER_TOKEN)));
    }
    let (client, iface) = builder
        .build()
        .create_from_card_with_interface(&card(agent).await)
        .await
        .expect("client");
    assert_eq!(iface.protocol_binding, binding);
    client
}

fn request(text: &str, task_id: Option<&str>) -> SendMessageRequest {
    let mut message = Message::new(Role::User, vec![Part::text(text)]);
    message.task_id = task_id.map(str::to_owned);
    SendMessageRequest {
        message,
        configuration: None,
        metadata: None,
        tenant: None,
    }
}

async fn send_task(client: &Client, text: &str, task_id: Option<&str>) -> Task {
    match tokio::time::timeout(PATIENCE, client.send_message(&request(text, task_id)))
        .await
        .expect("in time")
        .expect("send")
    {
        SendMessageResponse::Task(task) => task,
        SendMessageResponse::Message(m) => panic!("expected a task, got message {m:?}"),
    }
}

async fn stream_all(client: &Client, req: SendMessageRequest) -> Vec<StreamResponse> {
    let stream = client.send_streaming_message(&req).await.expect("stream");
    let events = tokio::time::timeout(PATIENCE, stream.collect::<Vec<_>>())
        .await
        .expect("stream ends in time");
    events
        .into_iter()
        .map(|e| e.expect("stream event"))
        .collect()
}

fn text_of(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|p| match &p.content {
            PartContent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn status_text(task: &Task) -> String {
    task.status
        .message
        .as_ref()
        .map(|m| text_of(&m.parts))
        .unwrap_or_default()
}

fn last_state(events: &[StreamResponse]) -> Option<TaskState> {
    events.iter().rev().find_map(|e| match e {
        StreamResponse::StatusUpdate(u) => Some(u.status.state.clone()),
        StreamResponse::Task(t) => Some(t.status.state.clone()),
        _ => None,
    })
}

#[tokio::test]
async fn card_is_served_with_cache_headers_and_revalidates_to_304() {
    let agent = demo::spawn(0).await.unwrap();
    let http = reqwest::Client::new();
    let url = format!("{}/.well-known/agent-card.json", agent.base_url());
    let first = http.get(&url).send().await.unwrap();
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["cache-control"], "max-age=60");
    let etag = first.headers()["etag"].clone();
    let body: serde_json::Value = first.json().await.unwrap();
    assert_eq!(body["name"], "a2a-console demo agent");
    assert_eq!(body["capabilities"]["extendedAgentCard"], true);
    let interfaces = body["supportedInterfaces"].as_array().unwrap();
    assert_eq!(interfaces[0]["protocolBinding"], "JSONRPC");
    assert_eq!(
        interfaces[0]["url"],
        format!("{}/jsonrpc", agent.base_url())
    );
    assert_eq!(interfaces[1]["protocolBinding"], "HTTP+JSON");
    assert_eq!(interfaces[1]["url"], format!("{}/rest", agent.base_url()));
    assert_eq!(interfaces[2]["protocolBinding"], "GRPC");
    assert!(interfaces.iter().all(|i| i["protocolVersion"] == "1.0"));

    let revalidated = http
        .get(&url)
        .header("if-none-match", etag.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(revalidated.status(), 304);
    assert_eq!(revalidated.headers()["etag"], etag);
    assert!(revalidated.bytes().await.unwrap().is_empty());

    let legacy = http
        .get(format!("{}/.well-known/agent.json", agent.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(legacy.status(), 200);
    assert_eq!(legacy.headers()["etag"], etag);

    let parsed = card(&agent).await;
    assert_eq!(parsed.skills.len(), 13);
    assert!(
        parsed
            .skills
            .iter()
            .all(|s| s.examples.as_ref().is_some_and(|e| !e.is_empty()))
    );
    agent.shutdown().await;
}

#[tokio::test]
async fn echo_completes_over_every_binding() {
    let agent = demo::spawn(0).await.unwrap();
    for binding in [JSONRPC, REST, GRPC] {
        let client = client(&agent, binding, false).await;
        let task = send_task(&client, "echo hello there", None).await;
        assert_eq!(task.status.state, TaskState::Completed, "{binding}");
        let artifacts = task.artifacts.unwrap_or_default();
        assert_eq!(
            text_of(&artifacts[0].parts),
            "echo: hello there",
            "{binding}"
        );

        let unknown = send_task(&client, "What's up?", None).await;
        let artifacts = unknown.artifacts.unwrap_or_default();
        assert_eq!(
            text_of(&artifacts[0].parts),
            "echo: What's up?",
            "{binding}"
        );
    }
    agent.shutdown().await;
}

#[tokio::test]
async fn stream_delivers_story_chunks_then_completes() {
    let agent = demo::spawn(0).await.unwrap();
    for binding in [JSONRPC, REST] {
        let client = client(&agent, binding, false).await;
        let events = stream_all(&client, request("stream 25", None)).await;
        assert!(
            matches!(events[0], StreamResponse::Task(_)),
            "{binding}: first event is the task"
        );
        let chunks: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                StreamResponse::ArtifactUpdate(u) => Some(u),
                _ => None,
            })
            .collect();
        assert_eq!(chunks.len(), 25, "{binding}");
        assert!(chunks.iter().all(|c| c.artifact.artifact_id == "story"));
        assert_eq!(chunks[0].append, None);
        assert!(chunks[1..].iter().all(|c| c.append == Some(true)));
        assert_eq!(chunks[24].last_chunk, Some(true));
        assert!(chunks[..24].iter().all(|c| c.last_chunk != Some(true)));
        assert_eq!(last_state(&events), Some(TaskState::Completed), "{binding}");
    }
    agent.shutdown().await;
}

#[tokio::test]
async fn ask_waits_for_a_name_on_the_same_task() {
    let agent = demo::spawn(0).await.unwrap();
    let client = client(&agent, JSONRPC, false).await;
    let asked = send_task(&client, "ask", None).await;
    assert_eq!(asked.status.state, TaskState::InputRequired);
    assert_eq!(status_text(&asked), "What is your name?");

    let again = send_task(&client, "?", Some(&asked.id)).await;
    assert_eq!(again.id, asked.id);
    assert_eq!(again.status.state, TaskState::InputRequired);

    // The last round over a stream, to see the resumed task snapshot first.
    let events = stream_all(&client, request("Ada", Some(&asked.id))).await;
    match &events[0] {
        StreamResponse::Task(task) => {
            assert_eq!(task.id, asked.id);
            assert_eq!(task.history.as_ref().map(Vec::len), Some(3));
        }
        other => panic!("expected the task first, got {other:?}"),
    }
    assert_eq!(last_state(&events), Some(TaskState::Completed));

    let done = client
        .get_task(&GetTaskRequest {
            id: asked.id.clone(),
            history_length: None,
            tenant: None,
        })
        .await
        .unwrap();
    assert_eq!(done.status.state, TaskState::Completed);
    assert_eq!(status_text(&done), "Nice to meet you, Ada");
    assert_eq!(done.history.map(|h| h.len()), Some(3));
    agent.shutdown().await;
}

#[tokio::test]
async fn slow_task_cancels_promptly() {
    let agent = demo::spawn(0).await.unwrap();
    for binding in [JSONRPC, REST, GRPC] {
        let client = client(&agent, binding, false).await;
        let mut stream = client
            .send_streaming_message(&request("slow 30", None))
            .await
            .unwrap();
        let task_id = match stream.next().await {
            Some(Ok(StreamResponse::Task(task))) => task.id,
            other => panic!("expected the task first, got {other:?}"),
        };
        // Wait for the first per-second progress update, so the scenario is really mid-way.
        loop {
            match tokio::time::timeout(PATIENCE, stream.next()).await.unwrap() {
                Some(Ok(StreamResponse::StatusUpdate(u)))
                    if u.status
                        .message
                        .as_ref()
                        .is_some_and(|m| text_of(&m.parts).contains("1/30")) =>
                {
                    break;
                }
                Some(Ok(_)) => {}
                other => panic!("stream ended early: {other:?}"),
            }
        }
        let started = Instant::now();
        let canceled = client
            .cancel_task(&CancelTaskRequest {
                id: task_id.clone(),
                metadata: None,
                tenant: None,
            })
            .await
            .unwrap();
        assert_eq!(canceled.status.state, TaskState::Canceled, "{binding}");
        let rest: Vec<_> = tokio::time::timeout(Duration::from_secs(5), stream.collect::<Vec<_>>())
            .await
            .expect("stream closes after cancel");
        let rest: Vec<_> = rest.into_iter().map(|e| e.unwrap()).collect();
        assert_eq!(last_state(&rest), Some(TaskState::Canceled), "{binding}");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{binding}: cancel took {:?}",
            started.elapsed()
        );
    }
    agent.shutdown().await;
}

#[tokio::test]
async fn extended_card_needs_the_operator_token() {
    let agent = demo::spawn(0).await.unwrap();
    for binding in [JSONRPC, REST, GRPC] {
        let anonymous = client(&agent, binding, false).await;
        let refused: A2AError = anonymous
            .get_extended_agent_card(&GetExtendedAgentCardRequest { tenant: None })
            .await
            .expect_err("no token, no extended card");
        assert!(
            refused.message.contains("operator token"),
            "{binding}: {refused:?}"
        );
        if binding == JSONRPC {
            assert_eq!(refused.code, -31401);
        }

        let operator = client(&agent, binding, true).await;
        let extended = operator
            .get_extended_agent_card(&GetExtendedAgentCardRequest { tenant: None })
            .await
            .unwrap();
        assert!(
            extended.skills.iter().any(|s| s.id == "operator-tools"),
            "{binding}"
        );
    }
    assert!(
        !card(&agent)
            .await
            .skills
            .iter()
            .any(|s| s.id == "operator-tools")
    );

    // The HTTP status is 401 with a challenge on both HTTP bindings.
    let http = reqwest::Client::new();
    let rest = http
        .get(format!("{}/rest/extendedAgentCard", agent.base_url()))
        .header("a2a-version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 401);
    assert!(
        rest.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer")
    );
    let rpc = http
        .post(format!("{}/jsonrpc", agent.base_url()))
        .header("a2a-version", "1.0")
        .header("authorization", "Bearer wrong")
        .json(&serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "GetExtendedAgentCard", "params": {}}))
        .send()
        .await
        .unwrap();
    assert_eq!(rpc.status(), 401);
    assert!(
        rpc.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("invalid_token")
    );
    let body: serde_json::Value = rpc.json().await.unwrap();
    assert_eq!(body["id"], 7);
    assert_eq!(body["error"]["code"], -31401);
    agent.shutdown().await;
}

#[tokio::test]
async fn message_scenario_replies_without_a_task() {
    let agent = demo::spawn(0).await.unwrap();
    for binding in [JSONRPC, REST, GRPC] {
        let client = client(&agent, binding, false).await;
        match client
            .send_message(&request("Message", None))
            .await
            .unwrap()
        {
            SendMessageResponse::Message(m) => {
                assert_eq!(m.role, Role::Agent);
                assert_eq!(text_of(&m.parts), "direct reply from the demo agent");
            }
            SendMessageResponse::Task(t) => panic!("{binding}: expected a message, got task {t:?}"),
        }
        let events = stream_all(&client, request("message", None)).await;
        assert_eq!(events.len(), 1, "{binding}");
        assert!(matches!(events[0], StreamResponse::Message(_)));
    }
    agent.shutdown().await;
}

#[tokio::test]
async fn auth_holds_the_stream_then_accepts_the_token() {
    let agent = demo::spawn(0).await.unwrap();
    let client = client(&agent, JSONRPC, false).await;
    let started = Instant::now();
    let events = stream_all(&client, request("auth", None)).await;
    assert!(
        started.elapsed() >= Duration::from_millis(1900),
        "stream held open in AUTH_REQUIRED"
    );
    assert_eq!(last_state(&events), Some(TaskState::AuthRequired));
    let StreamResponse::Task(task) = &events[0] else {
        panic!("task first")
    };

    // Blocking replies need no pause: with no streaming reader left, the agent lets go at once.
    let still = send_task(&client, "let me in", Some(&task.id)).await;
    assert_eq!(still.status.state, TaskState::AuthRequired);
    assert!(status_text(&still).contains("did not contain a valid operator token"));

    let granted = send_task(
        &client,
        &format!("token: {DEMO_BEARER_TOKEN}"),
        Some(&task.id),
    )
    .await;
    assert_eq!(granted.status.state, TaskState::Completed);

    // The token may also come as a header on the reply.
    let other = send_task(&client, "auth", None).await;
    let operator = self::client(&agent, JSONRPC, true).await;
    let by_header = send_task(&operator, "here you go", Some(&other.id)).await;
    assert_eq!(by_header.status.state, TaskState::Completed);
    agent.shutdown().await;
}

#[tokio::test]
async fn terminal_scenarios_and_rich_artifacts() {
    let agent = demo::spawn(0).await.unwrap();
    let client = client(&agent, REST, false).await;

    let failed = send_task(&client, "fail", None).await;
    assert_eq!(failed.status.state, TaskState::Failed);
    assert!(!status_text(&failed).is_empty());
    let rejected = send_task(&client, "reject", None).await;
    assert_eq!(rejected.status.state, TaskState::Rejected);
    assert!(!status_text(&rejected).is_empty());

    let code = send_task(&client, "code", None).await;
    let artifacts = code.artifacts.unwrap();
    assert!(text_of(&artifacts[0].parts).contains("```rust"));
    match &artifacts[1].parts[0].content {
        PartContent::Data(data) => assert_eq!(
            data["benchmark"]["runs"][1]["result"].as_f64(),
            Some(6765.0)
        ),
        other => panic!("expected a data part, got {other:?}"),
    }

    let file = send_task(&client, "file", None).await;
    let parts = &file.artifacts.unwrap()[0].parts;
    let PartContent::Raw(bytes) = &parts[0].content else {
        panic!("raw part first")
    };
    let PartContent::Url(url) = &parts[1].content else {
        panic!("url part second")
    };
    assert_eq!(parts[0].filename.as_deref(), Some("report.csv"));
    assert_eq!(parts[1].media_type.as_deref(), Some("text/csv"));
    assert!(url.starts_with(&agent.base_url()));
    let fetched = reqwest::get(url).await.unwrap().bytes().await.unwrap();
    assert_eq!(&fetched[..], &bytes[..]);

    let hostile = send_task(&client, "hostile", None).await;
    let text = text_of(&hostile.artifacts.unwrap()[0].parts);
    assert!(
        text.contains('\u{1b}') && text.contains('\u{202e}') && text.contains("Approve? (y/n)")
    );

    let big = send_task(&client, "big 1", None).await;
    let artifact = &big.artifacts.unwrap()[0];
    assert_eq!(artifact.parts.len(), 4);
    assert_eq!(text_of(&artifact.parts).len(), 1024 * 1024);

    // ListTasks leaves artifacts out unless asked (§3.1.4).
    let list = |include_artifacts| ListTasksRequest {
        tenant: None,
        context_id: None,
        status: None,
        page_size: None,
        page_token: None,
        history_length: Some(0),
        status_timestamp_after: None,
        include_artifacts,
    };
    let bare = client.list_tasks(&list(None)).await.unwrap();
    assert_eq!(bare.tasks.len(), 6);
    assert!(bare.tasks.iter().all(|t| t.artifacts.is_none()));
    let full = client.list_tasks(&list(Some(true))).await.unwrap();
    assert!(full.tasks.iter().any(|t| t.artifacts.is_some()));
    agent.shutdown().await;
}

#[tokio::test]
async fn flood_reaches_streaming_and_blocking_clients_intact() {
    let agent = demo::spawn(0).await.unwrap();
    let client = client(&agent, JSONRPC, false).await;
    let events = stream_all(&client, request("flood 20000", None)).await;
    let updates = events
        .iter()
        .filter(
            |e| matches!(e, StreamResponse::StatusUpdate(u) if u.status.state == TaskState::Working),
        )
        .count();
    assert_eq!(updates, 20_000);
    assert_eq!(last_state(&events), Some(TaskState::Completed));

    // A reader that dawdles is waited for, not dropped (the SDK alone would drop it at 32 behind).
    let mut stream = client
        .send_streaming_message(&request("flood 2000", None))
        .await
        .unwrap();
    let mut seen = 0;
    while let Some(event) = tokio::time::timeout(PATIENCE, stream.next()).await.unwrap() {
        event.expect("no lag error");
        seen += 1;
        if seen % 100 == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    assert_eq!(seen, 2_002);

    // Blocking SendMessage reads the same fan-out in-process and used to lag out the same way.
    let rest = self::client(&agent, REST, false).await;
    let task = send_task(&rest, "flood 20000", None).await;
    assert_eq!(task.status.state, TaskState::Completed);
    agent.shutdown().await;
}

#[tokio::test]
async fn resubscribing_mid_task_starts_with_a_snapshot() {
    let agent = demo::spawn(0).await.unwrap();
    let client = client(&agent, JSONRPC, false).await;
    let mut first = client
        .send_streaming_message(&request("slow 2", None))
        .await
        .unwrap();
    let Some(Ok(StreamResponse::Task(task))) = first.next().await else {
        panic!("task first")
    };
    drop(first);
    let again = client
        .subscribe_to_task(&a2a::SubscribeToTaskRequest {
            id: task.id.clone(),
            tenant: None,
        })
        .await
        .unwrap();
    let events: Vec<_> = tokio::time::timeout(PATIENCE, again.collect::<Vec<_>>())
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.unwrap())
        .collect();
    assert!(matches!(&events[0], StreamResponse::Task(t) if t.id == task.id));
    assert_eq!(last_state(&events), Some(TaskState::Completed));
    agent.shutdown().await;
}

#[tokio::test]
async fn push_notifications_reach_a_loopback_webhook() {
    // A minimal webhook that forwards every POST body to the test.
    let (tx, mut rx) = mpsc::unbounded_channel::<serde_json::Value>();
    let hook = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |axum::Json(body): axum::Json<serde_json::Value>| {
            let tx = tx.clone();
            async move {
                let _ = tx.send(body);
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook_url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, hook).await });

    let agent = demo::spawn(0).await.unwrap();
    let client = client(&agent, JSONRPC, false).await;
    let mut req = request("echo pushed", None);
    req.configuration = Some(SendMessageConfiguration {
        accepted_output_modes: None,
        task_push_notification_config: Some(TaskPushNotificationConfig {
            tenant: None,
            id: None,
            task_id: String::new(),
            url: hook_url,
            token: Some("hook-token".into()),
            authentication: None,
        }),
        history_length: None,
        return_immediately: None,
    });
    let task = match client.send_message(&req).await.unwrap() {
        SendMessageResponse::Task(task) => task,
        other => panic!("expected a task: {other:?}"),
    };
    assert_eq!(task.status.state, TaskState::Completed);
    let mut seen_completed = false;
    while !seen_completed {
        let body = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("push arrives")
            .unwrap();
        seen_completed = body["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED";
    }

    // A webhook off the loopback interface is refused.
    let mut remote = req.clone();
    if let Some(config) = remote
        .configuration
        .as_mut()
        .and_then(|c| c.task_push_notification_config.as_mut())
    {
        config.url = "http://192.0.2.1/hook".into();
    }
    let refused = client
        .send_message(&remote)
        .await
        .expect_err("remote webhook refused");
    assert!(refused.message.contains("loopback"), "{refused:?}");
    agent.shutdown().await;
}
