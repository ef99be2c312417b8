//! Text output of a live stream for the CLI: state changes as they happen, artifact text as it arrives
//! chunk by chunk, every remote piece sanitised and inside a block that names its source.

use a2a::{PartContent, StreamResponse};

use crate::cli::output::{self, short_id};
use crate::cli::print::{out, outln};
use crate::task::log::{ArtifactChange, Change, TaskLog, Verdict};
use crate::task::phase::state_name;
use crate::trust::sanitize::{sanitize_line, sanitize_text};

pub struct StreamPrinter {
    agent: String,
    /// The artifact whose text is being printed, and whether we are at the start of a line in it.
    open_artifact: Option<usize>,
    at_line_start: bool,
    header_done: bool,
}

impl StreamPrinter {
    pub fn new(agent: &str) -> Self {
        Self {
            agent: agent.to_string(),
            open_artifact: None,
            at_line_start: true,
            header_done: false,
        }
    }

    fn close_artifact(&mut self, out: &mut String) {
        if self.open_artifact.take().is_some() {
            if !self.at_line_start {
                out.push('\n');
            }
            out.push_str("└─\n");
            self.at_line_start = true;
        }
    }

    fn header(&mut self, out: &mut String, t: &TaskLog) {
        if self.header_done {
            return;
        }
        if let Some(id) = &t.task_id {
            out.push_str(&format!("task:    {}\n", sanitize_line(id).0));
            if let Some(c) = &t.context_id {
                out.push_str(&format!("context: {}\n", sanitize_line(c).0));
            }
            self.header_done = true;
        }
    }

    pub fn event(&mut self, t: &TaskLog, event: &StreamResponse, verdict: &Verdict) {
        let mut out = String::new();
        self.header(&mut out, t);
        let task = t.task_id.as_deref();
        let Verdict::Applied { change, .. } = verdict else {
            // Duplicates and stale data print nothing; protocol breaks go to stderr (the caller's).
            return;
        };
        match (event, change) {
            (StreamResponse::Task(_), _) => {
                self.close_artifact(&mut out);
                out.push_str(&format!("state:   {}\n", state_name(&t.state)));
            }
            (StreamResponse::Message(m), _) if task.is_some() => {
                self.close_artifact(&mut out);
                output::message_text(&mut out, &self.agent, task, "message", m);
            }
            (StreamResponse::Message(_), _) => {}
            (StreamResponse::StatusUpdate(u), _) => {
                self.close_artifact(&mut out);
                let ts = u
                    .status
                    .timestamp
                    .map(|t| format!(" ({})", t.format("%H:%M:%S")))
                    .unwrap_or_default();
                out.push_str(&format!("state → {}{ts}\n", state_name(&u.status.state)));
                if let Some(m) = &u.status.message {
                    output::message_text(&mut out, &self.agent, task, "status message", m);
                }
            }
            (StreamResponse::ArtifactUpdate(u), Change::Artifact(ArtifactChange { index, .. })) => {
                let last_chunk = &u.last_chunk.unwrap_or(false);
                if self.open_artifact != Some(*index) {
                    self.close_artifact(&mut out);
                    let name = u
                        .artifact
                        .name
                        .as_deref()
                        .map(|n| format!("{:?} ", sanitize_line(n).0))
                        .unwrap_or_default();
                    out.push_str(&format!(
                        "┌─ remote text from {} · task {} · artifact {name}({})\n",
                        sanitize_line(&self.agent).0,
                        short_id(task.unwrap_or("?")),
                        short_id(&u.artifact.artifact_id)
                    ));
                    self.open_artifact = Some(*index);
                    self.at_line_start = true;
                }
                for p in &u.artifact.parts {
                    let text = match &p.content {
                        PartContent::Text(s) => sanitize_text(s).0,
                        _ => format!(
                            "{}\n",
                            sanitize_text(&crate::task::outgoing::parts_text(
                                std::slice::from_ref(p)
                            ))
                            .0
                            .trim_end()
                        ),
                    };
                    for c in text.chars() {
                        if self.at_line_start {
                            out.push_str("│ ");
                            self.at_line_start = false;
                        }
                        out.push(c);
                        if c == '\n' {
                            self.at_line_start = true;
                        }
                    }
                }
                if *last_chunk {
                    self.close_artifact(&mut out);
                }
            }
            (StreamResponse::ArtifactUpdate(_), _) => {}
        }
        // Through `print::write`: ignoring a write error here kept a `send … big | head -1` downloading the
        // whole stream for nobody.
        crate::cli::print::write(&out);
    }

    pub fn finish(&mut self) {
        let mut out = String::new();
        self.close_artifact(&mut out);
        out!("{out}");
    }

    /// Final line: where the task stands. How to continue a waiting task goes to stderr (`report::waiting`),
    /// with the agent as it was typed, so that stdout holds only what the agent sent and where it stands.
    pub fn summary(&self, t: &TaskLog) {
        let id = t
            .task_id
            .as_deref()
            .map(|i| sanitize_line(i).0)
            .unwrap_or_default();
        match t.state {
            a2a::TaskState::InputRequired => {
                outln!("the agent is waiting for your answer (task {id})")
            }
            a2a::TaskState::AuthRequired => {
                outln!("the agent needs authorization before it continues (task {id})")
            }
            _ => outln!("final state: {}", state_name(&t.state)),
        }
    }
}
