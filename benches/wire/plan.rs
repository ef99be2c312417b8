//! What the wire bench runs: the clients, how each is started against a replay server (command line,
//! environment, what happens to its stdout), and whether a run counts — every event seen and decoded, the
//! task completed, a clean exit — or shows as FAILED.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::record::{Recording, Recordings};
use crate::replay::{self, Server};
use crate::runner::{self, Launch, Sample, Stdout};

/// The clients, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Client {
    Raw,
    Curl,
    Sdk,
    Console,
    Python,
}

impl Client {
    pub fn label(self) -> &'static str {
        match self {
            Self::Raw => "transfer: reqwest, body drained",
            Self::Curl => "transfer: curl -o /dev/null",
            Self::Sdk => "SDK bare loop (a2a-client-lf 0.2.9)",
            Self::Console => "console CLI (send --stream --json)",
            Self::Python => "Python client (a2a-sdk 1.3.0)",
        }
    }

    /// Stdout in a timed run.
    pub fn stdout(self) -> Stdout {
        match self {
            // As a user would run it: `… --json > /dev/null`.
            Self::Console => Stdout::Null,
            Self::Raw | Self::Curl | Self::Sdk | Self::Python => Stdout::Capture,
        }
    }

    fn limit(self) -> Duration {
        match self {
            Self::Python => Duration::from_secs(300),
            _ => Duration::from_secs(120),
        }
    }
}

/// JSON-RPC ids of the requests our raw client and curl send (the others choose their own).
const RAW_ID: &str = "wire-bench-raw";
const CURL_ID: &str = "wire-bench-curl";

/// One recording and the server replaying it.
pub struct Case<'a> {
    pub rec: &'a Recording,
    pub server: Server,
}

/// One run of one client, judged.
pub struct Outcome {
    pub client: Client,
    pub sample: Sample,
    /// The events it counted (None: this run does not count them), or why the run does not count.
    pub verdict: Result<Option<u64>, String>,
}

impl Outcome {
    pub fn ok(&self) -> bool {
        self.verdict.is_ok()
    }
}

pub struct Plan<'a> {
    pub cases: Vec<Case<'a>>,
    /// The small echo stream, replayed with the recorded id in every envelope.
    pub id_case: Case<'a>,
    pub curl: bool,
    /// The Python interpreter of the py10 peer install, when it is there and wanted.
    pub python: Option<String>,
    console: String,
    py_script: PathBuf,
    /// HOME and XDG directories of the console, and its (empty) config file: nothing of the user's is read or
    /// written.
    home: PathBuf,
    config: PathBuf,
}

impl<'a> Plan<'a> {
    pub async fn new(recs: &'a Recordings, home: &Path, python_wanted: bool) -> Plan<'a> {
        let serve = |rec: &'a Recording, keep: bool| async move {
            Case {
                rec,
                server: replay::spawn(rec, &recs.card, &recs.demo_base, keep).await,
            }
        };
        let cases = vec![
            serve(&recs.flood, false).await,
            serve(&recs.big, false).await,
        ];
        let id_case = serve(&recs.echo, true).await;
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let py = repo.join("target/peers/py10/bin/python");
        let config = home.join("config.toml");
        std::fs::write(&config, "").expect("empty config");
        Plan {
            cases,
            id_case,
            curl: std::process::Command::new("curl")
                .arg("--version")
                .stdout(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success()),
            python: (python_wanted && py.exists()).then(|| py.display().to_string()),
            console: env!("CARGO_BIN_EXE_a2a-console").to_string(),
            py_script: repo.join("tests/peers/py_stream_client.py"),
            home: home.to_path_buf(),
            config,
        }
    }

    /// The clients of a round, in table order.
    pub fn clients(&self, with_python: bool) -> Vec<Client> {
        let mut v = vec![Client::Raw];
        if self.curl {
            v.push(Client::Curl);
        }
        v.extend([Client::Sdk, Client::Console]);
        if with_python && self.python.is_some() {
            v.push(Client::Python);
        }
        v
    }

    pub fn run(&self, client: Client, case: &Case<'_>, stdout: Stdout) -> Outcome {
        let sample = runner::run(&self.launch(client, case, stdout));
        let verdict = judge(client, case, stdout, &sample);
        Outcome {
            client,
            sample,
            verdict,
        }
    }

    fn launch(&self, client: Client, case: &Case<'_>, stdout: Stdout) -> Launch {
        let exe = std::env::current_exe()
            .expect("current exe")
            .display()
            .to_string();
        let s = |v: &str| v.to_string();
        let text = case.rec.text.clone();
        let (program, args) = match client {
            Client::Raw => (
                exe,
                vec![s("--raw"), case.server.rpc_url.clone(), s(RAW_ID), text],
            ),
            Client::Curl => (
                s("curl"),
                vec![
                    s("-s"),
                    s("-S"),
                    s("--noproxy"),
                    s("*"),
                    s("-o"),
                    s("/dev/null"),
                    s("-w"),
                    s("WIRE bytes=%{size_download} http=%{http_code}\n"),
                    s("-H"),
                    s("Content-Type: application/json"),
                    s("-H"),
                    s("Accept: text/event-stream"),
                    s("--data-binary"),
                    crate::clients::request_json(CURL_ID, &text).to_string(),
                    case.server.rpc_url.clone(),
                ],
            ),
            Client::Sdk => (exe, vec![s("--sdk-loop"), case.server.base.clone(), text]),
            Client::Console => (
                self.console.clone(),
                vec![
                    s("send"),
                    case.server.base.clone(),
                    text,
                    s("--stream"),
                    s("--json"),
                ],
            ),
            Client::Python => (
                self.python.clone().unwrap_or_default(),
                vec![
                    self.py_script.display().to_string(),
                    s("--url"),
                    case.server.base.clone(),
                    s("--text"),
                    text,
                ],
            ),
        };
        let home = self.home.display().to_string();
        let mut env = vec![
            (s("HOME"), home.clone()),
            (s("XDG_CONFIG_HOME"), format!("{home}/config")),
            (s("XDG_DATA_HOME"), format!("{home}/data")),
            (s("XDG_STATE_HOME"), format!("{home}/state")),
            (s("XDG_CACHE_HOME"), format!("{home}/cache")),
            (s("A2A_CONSOLE_CONFIG"), self.config.display().to_string()),
        ];
        if client == Client::Python {
            env.push((s("PYTHONDONTWRITEBYTECODE"), s("1")));
        }
        Launch {
            program,
            args,
            env,
            unset: vec![s("A2A_CONSOLE_LOG"), s("RUST_LOG")],
            stdout,
            limit: client.limit(),
        }
    }
}

/// Whether a run counts: a clean exit, and every event (or byte) the recording holds, seen by the client.
fn judge(
    client: Client,
    case: &Case<'_>,
    stdout: Stdout,
    s: &Sample,
) -> Result<Option<u64>, String> {
    let expected = case.rec.events;
    let first_err = || {
        s.stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .map(|l| format!(": {}", l.chars().take(160).collect::<String>()))
            .unwrap_or_default()
    };
    match s.code {
        0 => {}
        -2 => return Err(format!("killed after {} s", client.limit().as_secs())),
        -3 => return Err("no result from the wrapper".into()),
        c => return Err(format!("exit {c}{}", first_err())),
    }
    let field = |k: &str| s.fields.get(k).map(String::as_str);
    let number = |k: &str| field(k).and_then(|v| v.parse::<u64>().ok());
    let events_ok = |n: Option<u64>| match n {
        Some(n) if n == expected => Ok(Some(n)),
        Some(n) => Err(format!("{n} of {expected} events")),
        None => Err(format!("no event count{}", first_err())),
    };
    let bytes_ok = |id: &str| {
        let want = case.server.body_len_for(&serde_json::json!(id));
        match number("bytes") {
            Some(b) if b == want => Ok(()),
            Some(b) => Err(format!("{b} of {want} bytes")),
            None => Err(format!("no byte count{}", first_err())),
        }
    };
    let errors = || match number("errors") {
        Some(0) => Ok(()),
        Some(n) => Err(format!("{n} stream error(s){}", first_err())),
        None => Err("no error count".to_string()),
    };
    let completed = || match field("state") {
        Some("TASK_STATE_COMPLETED") => Ok(()),
        other => Err(format!(
            "last state {}, not completed",
            other.unwrap_or("unknown")
        )),
    };
    match client {
        Client::Raw => {
            errors()?;
            bytes_ok(RAW_ID)?;
            events_ok(number("events"))
        }
        Client::Curl => {
            if field("http") != Some("200") {
                return Err(format!("HTTP {}", field("http").unwrap_or("?")));
            }
            bytes_ok(CURL_ID)?;
            Ok(None)
        }
        Client::Sdk | Client::Python => {
            errors()?;
            let n = events_ok(number("events"))?;
            completed()?;
            Ok(n)
        }
        Client::Console => {
            // An event the CLI could not decode is reported on stderr and skipped ("… (continuing)").
            if let Some(l) = s.stderr.lines().find(|l| l.contains("(continuing)")) {
                return Err(l.chars().take(160).collect());
            }
            if stdout != Stdout::CountLines {
                // Exit 0 means the task completed on the stream: the CLI stops at the final event.
                return Ok(None);
            }
            let n = events_ok(Some(s.lines))?;
            if !s.last_line.contains("TASK_STATE_COMPLETED") {
                return Err("the last line is not the completed task".into());
            }
            Ok(n)
        }
    }
}
