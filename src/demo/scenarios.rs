//! The demo scenarios: which one a message asks for (its first word) and what each one sends.

use std::time::Duration;

use a2a::{Artifact, Message, Part, PartContent, Role, Task, TaskState, TaskStatus};
use a2a_server::ExecutorContext;

use super::DEMO_BEARER_TOKEN;
use super::auth::params_have_operator_token;
use super::content;
use super::executor::{Emitter, Env, Stop};

/// Default and maximum chunk count of `stream`.
const STREAM_DEFAULT: u32 = 40;
const STREAM_MAX: u32 = 10_000;
/// Gap between `stream` chunks: slow enough to watch, fast enough not to bore.
const STREAM_GAP: Duration = Duration::from_millis(30);
/// Default and maximum duration of `slow`, in seconds.
const SLOW_DEFAULT: u64 = 120;
const SLOW_MAX: u64 = 86_400;
/// Default and maximum size of `big`, in MiB.
const BIG_DEFAULT: u32 = 5;
const BIG_MAX: u32 = 64;
/// Default and maximum update count of `flood`.
const FLOOD_DEFAULT: u64 = 10_000;
const FLOOD_MAX: u64 = 1_000_000;
/// How long `auth` keeps its stream open in AUTH_REQUIRED, so clients see an interrupted state on a
/// live stream (§7.6.1) rather than only after the stream closed.
const AUTH_HOLD: Duration = Duration::from_secs(2);
/// The longest `auth N` works before it asks for authorization, in seconds.
const AUTH_DELAY_MAX: u64 = 600;

/// What the user asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scenario {
    Echo(String),
    Stream(u32),
    Code,
    File,
    /// Three file parts in two artifacts: a source file and a PNG, then a dotfile.
    Files,
    Ask,
    /// Working, then auth-required after this many seconds (`auth 3`: a request that arrives while the user
    /// is typing their next message).
    Auth(u64),
    Fail,
    Reject,
    Slow(u64),
    Hostile,
    Big(u32),
    Flood(u64),
    Message,
}

/// Picks the scenario from the first word of `text` (case-insensitive). A missing or unreadable
/// number falls back to the default; numbers are clamped to the scenario's limits.
pub(crate) fn parse(text: &str) -> Scenario {
    let trimmed = text.trim();
    let (word, rest) = match trimmed.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (trimmed, ""),
    };
    let first_arg = rest.split_whitespace().next();
    match word.to_ascii_lowercase().as_str() {
        "echo" => Scenario::Echo(rest.to_owned()),
        "stream" => Scenario::Stream(number(first_arg, STREAM_DEFAULT, STREAM_MAX)),
        "code" => Scenario::Code,
        "file" => Scenario::File,
        "files" => Scenario::Files,
        "ask" => Scenario::Ask,
        "auth" => Scenario::Auth(
            first_arg
                .and_then(|a| a.parse::<u64>().ok())
                .map_or(0, |n| n.min(AUTH_DELAY_MAX)),
        ),
        "fail" => Scenario::Fail,
        "reject" => Scenario::Reject,
        "slow" => Scenario::Slow(number(first_arg, SLOW_DEFAULT, SLOW_MAX)),
        "hostile" => Scenario::Hostile,
        "big" => Scenario::Big(number(first_arg, BIG_DEFAULT, BIG_MAX)),
        "flood" => Scenario::Flood(number(first_arg, FLOOD_DEFAULT, FLOOD_MAX)),
        "message" => Scenario::Message,
        _ => Scenario::Echo(trimmed.to_owned()),
    }
}

/// Parses a count argument: absent or invalid → `default`; otherwise clamped to `1..=max`.
/// Underscores are allowed as digit separators (`flood 100_000`).
fn number<T>(arg: Option<&str>, default: T, max: T) -> T
where
    T: std::str::FromStr + Ord + From<u8>,
{
    arg.and_then(|a| a.replace('_', "").parse::<T>().ok())
        .map_or(default, |n| n.clamp(T::from(1), max))
}

/// All text parts of a message, joined with newlines.
fn message_text(message: Option<&Message>) -> String {
    message
        .map(|m| {
            m.parts
                .iter()
                .filter_map(|p| match &p.content {
                    PartContent::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The task as clients should first see it on this execution's stream.
///
/// For a continuation the SDK hands the executor the stored task, with the new message appended on
/// the blocking path but not on the streaming one; it is appended here when missing, because
/// emitting the snapshot replaces the stored task and would otherwise drop the message from
/// `history`. A resumed task is WORKING again: it must not still say AUTH_REQUIRED, or the SDK's
/// blocking SendMessage returns right at this snapshot (handler.rs
/// `should_interrupt_non_streaming`), before the agent has looked at the reply.
fn snapshot(ctx: &ExecutorContext) -> Task {
    match &ctx.stored_task {
        Some(stored) => {
            let mut task = stored.clone();
            if matches!(
                task.status.state,
                TaskState::InputRequired | TaskState::AuthRequired
            ) {
                task.status = TaskStatus {
                    state: TaskState::Working,
                    message: None,
                    timestamp: Some(chrono::Utc::now()),
                };
            }
            if let Some(message) = &ctx.message {
                let history = task.history.get_or_insert_with(Vec::new);
                if history.last().map(|m| &m.message_id) != Some(&message.message_id) {
                    history.push(message.clone());
                }
            }
            task
        }
        None => Task {
            id: ctx.task_id.clone(),
            context_id: ctx.context_id.clone(),
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: Some(chrono::Utc::now()),
            },
            artifacts: None,
            history: ctx.message.clone().map(|m| vec![m]),
            metadata: None,
        },
    }
}

/// An artifact with one part.
fn artifact(id: &str, name: &str, part: Part) -> Artifact {
    Artifact {
        artifact_id: id.into(),
        name: Some(name.into()),
        description: None,
        parts: vec![part],
        metadata: None,
        extensions: None,
    }
}

/// Runs the scenario this execution asked for. A reply to an interrupted task continues that task's
/// conversation instead of starting a new scenario.
pub(crate) async fn run(mut em: Emitter, ctx: ExecutorContext, env: &Env) -> Result<(), Stop> {
    let text = message_text(ctx.message.as_ref());
    let resumed = ctx.stored_task.as_ref().map(|t| t.status.state.clone());
    match resumed {
        Some(TaskState::InputRequired) => return ask_answer(&em, &ctx, &text).await,
        Some(TaskState::AuthRequired) => return auth_answer(&mut em, &ctx, &text).await,
        _ => {}
    }
    let scenario = parse(&text);
    if scenario == Scenario::Message {
        let mut reply = Message::new(
            Role::Agent,
            vec![Part::text("direct reply from the demo agent")],
        );
        reply.context_id = Some(ctx.context_id.clone());
        return em.message(reply).await;
    }

    em.task(snapshot(&ctx)).await?;
    match scenario {
        Scenario::Echo(said) => echo(&em, &said).await,
        Scenario::Stream(chunks) => stream(&mut em, chunks).await,
        Scenario::Code => code(&em).await,
        Scenario::File => file(&em, env).await,
        Scenario::Files => files(&em).await,
        Scenario::Ask => {
            em.status(TaskState::Working, None).await?;
            em.status(TaskState::InputRequired, Some("What is your name?")).await
        }
        Scenario::Auth(delay) => {
            if delay > 0 {
                em.status(
                    TaskState::Working,
                    Some(&format!("Working; this step asks for authorization in {delay} s.")),
                )
                .await?;
                em.pause(Duration::from_secs(delay)).await?;
            }
            em.status(TaskState::Working, None).await?;
            let why = format!(
                "This step needs the operator token. Reply on this task with the token (for this demo it is \
                 '{DEMO_BEARER_TOKEN}'), or send your reply with the header 'Authorization: Bearer <token>'."
            );
            em.status(TaskState::AuthRequired, Some(&why)).await?;
            em.hold_while_watched(AUTH_HOLD).await
        }
        Scenario::Fail => {
            em.status(TaskState::Working, None).await?;
            em.status(
                TaskState::Failed,
                Some("Failed on purpose: this is the 'fail' scenario, so nothing actually went wrong."),
            )
            .await
        }
        Scenario::Reject => {
            em.status(
                TaskState::Rejected,
                Some("Rejected: the demo agent declines 'reject' requests by design. Try 'echo' instead."),
            )
            .await
        }
        Scenario::Slow(seconds) => slow(&mut em, seconds).await,
        Scenario::Hostile => hostile(&em).await,
        Scenario::Big(mib) => big(&em, mib).await,
        Scenario::Flood(updates) => flood(&em, updates).await,
        Scenario::Message => Ok(()),
    }
}

async fn echo(em: &Emitter, said: &str) -> Result<(), Stop> {
    em.status(TaskState::Working, None).await?;
    em.artifact(
        artifact("echo", "echo", Part::text(format!("echo: {said}"))),
        false,
        true,
    )
    .await?;
    em.status(TaskState::Completed, None).await
}

async fn stream(em: &mut Emitter, chunks: u32) -> Result<(), Stop> {
    em.status(
        TaskState::Working,
        Some(&format!("Writing a story in {chunks} chunks…")),
    )
    .await?;
    for i in 0..chunks {
        let part = Part::text(content::story_chunk(i, chunks)).with_media_type("text/markdown");
        em.artifact(artifact("story", "story.md", part), i > 0, i + 1 == chunks)
            .await?;
        if i + 1 < chunks {
            em.pause(STREAM_GAP).await?;
        }
    }
    em.status(TaskState::Completed, None).await
}

async fn code(em: &Emitter) -> Result<(), Stop> {
    em.status(TaskState::Working, None).await?;
    let markdown = Part::text(content::CODE_MARKDOWN).with_media_type("text/markdown");
    em.artifact(artifact("snippet", "fibonacci.md", markdown), false, true)
        .await?;
    let data = Part::data(content::code_data()).with_media_type("application/json");
    let mut timings = artifact("timings", "timings.json", data);
    timings.description = Some("Timing data for the snippet, as structured JSON.".into());
    em.artifact(timings, false, true).await?;
    em.status(TaskState::Completed, None).await
}

async fn file(em: &Emitter, env: &Env) -> Result<(), Stop> {
    em.status(TaskState::Working, None).await?;
    let raw = Part::raw(content::REPORT_CSV.as_bytes().to_vec())
        .with_filename("report.csv")
        .with_media_type("text/csv");
    let link = Part::url(format!("{}{}", env.base_url, super::REPORT_PATH))
        .with_filename("report.csv")
        .with_media_type("text/csv");
    let mut report = artifact("report", "report.csv", raw);
    report.parts.push(link);
    report.description =
        Some("The same CSV twice: inline bytes, then a link to this agent.".into());
    em.artifact(report, false, true).await?;
    em.status(TaskState::Completed, None).await
}

/// Several file parts, for the save picker: one artifact with a source file and an image, and one with a file
/// whose name is a dotfile (which the console must flag, and never write over one without asking).
async fn files(em: &Emitter) -> Result<(), Stop> {
    em.status(TaskState::Working, None).await?;
    let source = Part::raw(content::FILES_SOURCE.as_bytes().to_vec())
        .with_filename("fib.rs")
        .with_media_type("text/x-rust");
    let png = Part::raw(content::FILES_PNG.to_vec())
        .with_filename("plot.png")
        .with_media_type("image/png");
    let mut sources = artifact("sources", "sources", source);
    sources.parts.push(png);
    em.artifact(sources, false, true).await?;
    let rc = Part::raw(content::FILES_DOTFILE.as_bytes().to_vec())
        .with_filename(".bashrc")
        .with_media_type("text/plain");
    em.artifact(artifact("dotfiles", "dotfiles", rc), false, true)
        .await?;
    em.status(TaskState::Completed, None).await
}

async fn ask_answer(em: &Emitter, ctx: &ExecutorContext, answer: &str) -> Result<(), Stop> {
    em.task(snapshot(ctx)).await?;
    let name = answer.trim();
    if name.is_empty() || name == "?" {
        return em
            .status(
                TaskState::InputRequired,
                Some("What is your name? (An empty answer or '?' doesn't count — just type your name.)"),
            )
            .await;
    }
    let greeting = format!("Nice to meet you, {name}");
    em.artifact(
        artifact("greeting", "greeting", Part::text(greeting.clone())),
        false,
        true,
    )
    .await?;
    em.status(TaskState::Completed, Some(&greeting)).await
}

async fn auth_answer(em: &mut Emitter, ctx: &ExecutorContext, reply: &str) -> Result<(), Stop> {
    em.task(snapshot(ctx)).await?;
    let by_header = params_have_operator_token(&ctx.service_params);
    if !(by_header || reply.contains(DEMO_BEARER_TOKEN)) {
        em.status(
            TaskState::AuthRequired,
            Some(
                "That reply did not contain a valid operator token, so this task is still waiting. Reply with \
                 the token, or send 'Authorization: Bearer <token>' with your reply.",
            ),
        )
        .await?;
        return em.hold_while_watched(AUTH_HOLD).await;
    }
    let how = if by_header {
        "Authorization header"
    } else {
        "reply"
    };
    em.status(
        TaskState::Working,
        Some(&format!(
            "Operator token accepted (from the {how}); running the protected step."
        )),
    )
    .await?;
    em.artifact(
        artifact(
            "operator-result",
            "operator result",
            Part::text(
                "The protected step ran with operator rights. Nothing was changed: this is a demo.",
            ),
        ),
        false,
        true,
    )
    .await?;
    em.status(TaskState::Completed, None).await
}

async fn slow(em: &mut Emitter, seconds: u64) -> Result<(), Stop> {
    em.status(
        TaskState::Working,
        Some(&format!("Working for {seconds} s; cancel any time.")),
    )
    .await?;
    for elapsed in 1..=seconds {
        em.pause(Duration::from_secs(1)).await?;
        em.status(
            TaskState::Working,
            Some(&format!("Working… {elapsed}/{seconds} s")),
        )
        .await?;
    }
    em.artifact(
        artifact(
            "result",
            "result",
            Part::text(format!("Finished after {seconds} s.")),
        ),
        false,
        true,
    )
    .await?;
    em.status(TaskState::Completed, None).await
}

async fn hostile(em: &Emitter) -> Result<(), Stop> {
    let text = content::hostile_text();
    em.status(TaskState::Working, Some(&text)).await?;
    em.artifact(
        artifact("hostile", "hostile.txt", Part::text(text)),
        false,
        true,
    )
    .await?;
    em.status(TaskState::Completed, Some(&content::hostile_status()))
        .await
}

async fn big(em: &Emitter, mib: u32) -> Result<(), Stop> {
    em.status(
        TaskState::Working,
        Some(&format!("Generating {mib} MiB of text in 256 KiB chunks…")),
    )
    .await?;
    let chunks = (mib as usize) * 1024 * 1024 / content::BIG_CHUNK_BYTES;
    for i in 0..chunks {
        let part = Part::text(content::big_chunk(i)).with_media_type("text/plain");
        em.artifact(artifact("big", "big.txt", part), i > 0, i + 1 == chunks)
            .await?;
    }
    em.status(TaskState::Completed, None).await
}

async fn flood(em: &Emitter, updates: u64) -> Result<(), Stop> {
    for i in 1..=updates {
        em.status(TaskState::Working, Some(&format!("flood {i}/{updates}")))
            .await?;
        // A cooperative yield now and then keeps a flood from starving the tasks that write these
        // events to the network; the SDK drops subscribers that fall 32 events behind.
        if i % 16 == 0 {
            tokio::task::yield_now().await;
        }
    }
    em.status(
        TaskState::Completed,
        Some(&format!("Sent {updates} status updates.")),
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_word_picks_the_scenario_case_insensitively() {
        assert_eq!(parse("ECHO hi there"), Scenario::Echo("hi there".into()));
        assert_eq!(parse("  Stream 200 "), Scenario::Stream(200));
        assert_eq!(parse("stream"), Scenario::Stream(STREAM_DEFAULT));
        assert_eq!(parse("stream lots"), Scenario::Stream(STREAM_DEFAULT));
        assert_eq!(parse("stream 99999999"), Scenario::Stream(STREAM_MAX));
        assert_eq!(parse("stream 0"), Scenario::Stream(1));
        assert_eq!(parse("big 1000"), Scenario::Big(BIG_MAX));
        assert_eq!(parse("flood 100_000"), Scenario::Flood(100_000));
        assert_eq!(parse("slow 3"), Scenario::Slow(3));
        assert_eq!(parse("auth"), Scenario::Auth(0));
        assert_eq!(parse("auth 3"), Scenario::Auth(3));
        assert_eq!(parse("auth 99999"), Scenario::Auth(AUTH_DELAY_MAX));
        assert_eq!(parse("message"), Scenario::Message);
        assert_eq!(parse("hello world"), Scenario::Echo("hello world".into()));
        assert_eq!(parse(""), Scenario::Echo(String::new()));
    }

    #[test]
    fn message_text_joins_text_parts_only() {
        let message = Message::new(
            Role::User,
            vec![Part::text("a"), Part::raw(vec![1, 2]), Part::text("b")],
        );
        assert_eq!(message_text(Some(&message)), "a\nb");
        assert_eq!(message_text(None), "");
    }

    #[test]
    fn snapshot_appends_the_reply_once() {
        let first = Message::new(Role::User, vec![Part::text("ask")]);
        let reply = Message::new(Role::User, vec![Part::text("Ada")]);
        let mut ctx = ExecutorContext {
            message: Some(reply.clone()),
            task_id: "t".into(),
            stored_task: None,
            context_id: "c".into(),
            metadata: None,
            user: None,
            service_params: Default::default(),
            tenant: None,
        };
        let mut task = snapshot(&ctx);
        assert_eq!(task.history.as_ref().map(Vec::len), Some(1));
        task.history = Some(vec![first]);
        task.status.state = TaskState::InputRequired;
        ctx.stored_task = Some(task);
        let resumed = snapshot(&ctx);
        assert_eq!(resumed.history.as_ref().map(Vec::len), Some(2));
        ctx.stored_task = Some(resumed);
        assert_eq!(snapshot(&ctx).history.as_ref().map(Vec::len), Some(2));
    }
}
