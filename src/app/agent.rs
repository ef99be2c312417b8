//! One configured agent as the console knows it: where it is, whether its card loaded, and the card's text
//! sanitised once for display. The agent list is a list of these; `App` keeps it.

use crate::remote::card::FetchedCard;
use crate::remote::connect::Selected;
use crate::remote::connect::agent::AgentTarget;
use crate::trust::sanitize::{Provenance, Untrusted, sanitize_line};

use super::ids::AgentId;

/// Is an agent reachable, and what do we know of it.
#[derive(Debug)]
pub enum Reachability {
    Loading,
    Online(Box<AgentInfo>),
    Error(String),
}

/// Whether a loaded agent can be called.
#[derive(Debug, Clone)]
pub enum Usability {
    /// An interface was chosen and the client built.
    Ready(Selected),
    /// Only the card loaded: a few words for the agent list and the whole reason (both sanitised, one line).
    CardOnly { short: String, reason: String },
}

/// A loaded agent: its card, the interface in use (or why there is none), and the card's text already
/// sanitised for display.
#[derive(Debug, Clone)]
pub struct AgentInfo {
    pub card: FetchedCard,
    pub usability: Usability,
    /// The card's name (sanitised, one line).
    pub name: String,
    /// The card's version (sanitised, one line).
    pub version: String,
    /// The raw card, pretty-printed and sanitised once, for the raw-JSON view (never re-parsed per frame).
    pub raw_pretty: String,
    pub description: Untrusted,
    pub skills: Vec<SkillView>,
}

#[derive(Debug, Clone)]
pub struct SkillView {
    pub id: String,
    pub name: String,
    pub description: Untrusted,
    pub tags: Vec<String>,
    pub examples: Vec<String>,
    pub input_modes: Vec<String>,
    pub output_modes: Vec<String>,
    pub security: Vec<String>,
}

impl AgentInfo {
    /// Sanitise everything the UI will show, once.
    pub fn new(label: &str, card: FetchedCard, usability: Usability) -> Self {
        let c = &card.card;
        let agent: std::sync::Arc<str> = label.into();
        let prov = |field: String| Provenance {
            agent: agent.clone(),
            task: None,
            field: field.into(),
        };
        let line = |s: &str| sanitize_line(s).0;
        let skills = c
            .skills
            .iter()
            .map(|s| SkillView {
                id: line(&s.id),
                name: line(&s.name),
                description: Untrusted::new(
                    &s.description,
                    prov(format!("skill {} description", line(&s.id))),
                ),
                tags: s.tags.iter().map(|t| line(t)).collect(),
                examples: s.examples.iter().flatten().map(|e| line(e)).collect(),
                input_modes: s.input_modes.iter().flatten().map(|m| line(m)).collect(),
                output_modes: s.output_modes.iter().flatten().map(|m| line(m)).collect(),
                security: s
                    .security_requirements
                    .iter()
                    .flatten()
                    .map(|r| {
                        let mut v: Vec<String> = r.keys().map(|k| line(k)).collect();
                        v.sort();
                        v.join(" + ")
                    })
                    .collect(),
            })
            .collect();
        let pretty = serde_json::from_str::<serde_json::Value>(&card.raw)
            .and_then(|v| serde_json::to_string_pretty(&v))
            .unwrap_or_else(|_| card.raw.clone());
        Self {
            name: line(&c.name),
            version: line(&c.version),
            raw_pretty: crate::trust::sanitize::sanitize_text(&pretty).0,
            description: Untrusted::new(&c.description, prov("card description".into())),
            skills,
            card,
            usability: match usability {
                Usability::Ready(s) => Usability::Ready(s),
                Usability::CardOnly { short, reason } => Usability::CardOnly {
                    short: line(&short),
                    reason: line(&reason),
                },
            },
        }
    }

    /// The interface in use, when the agent can be called.
    pub fn selected(&self) -> Option<&Selected> {
        match &self.usability {
            Usability::Ready(s) => Some(s),
            Usability::CardOnly { .. } => None,
        }
    }

    /// Why the agent cannot be called (short, full), when it cannot.
    pub fn card_only(&self) -> Option<(&str, &str)> {
        match &self.usability {
            Usability::Ready(_) => None,
            Usability::CardOnly { short, reason } => Some((short, reason)),
        }
    }
}

/// One configured (or added) agent.
#[derive(Debug)]
pub struct AgentEntry {
    pub id: AgentId,
    /// Stable across restarts: what the store files this agent's tabs under.
    pub key: String,
    pub target: AgentTarget,
    pub state: Reachability,
    /// Added from inside the console (vs. the config file / --demo).
    pub origin: AgentOrigin,
    /// Where its last `check` stands (`C`), and that check's report page.
    pub check: CheckState,
    /// Where the last suite run from the console on this agent stands (`U`), and its results page.
    pub suite: SuiteState,
    /// The card as last seen (the store's copy at start, then each one fetched): a new one is compared with it.
    pub known_card: Option<String>,
    /// How the card changed the last time it did (this session), field by field.
    pub card_changes: Option<CardChanges>,
}

/// A card that came back different from the one seen before it.
#[derive(Debug, Clone, PartialEq)]
pub struct CardChanges {
    pub at: chrono::DateTime<chrono::Utc>,
    pub changes: Vec<crate::remote::card::diff::CardChange>,
}

impl CardChanges {
    pub fn breaking(&self) -> usize {
        self.changes.iter().filter(|c| c.breaking.is_some()).count()
    }

    /// The agent list's line: `card changed · 2 breaking ✗`, or `card changed · 3 fields`.
    pub fn line(&self) -> String {
        match self.breaking() {
            0 => format!(
                "card changed · {} field{}",
                self.changes.len(),
                if self.changes.len() == 1 { "" } else { "s" }
            ),
            n => format!("card changed · {n} breaking ✗"),
        }
    }
}

/// An agent's `check` in the console: running (with its progress), or done with the agent list's verdict and
/// the report page to reopen.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum CheckState {
    #[default]
    None,
    Running {
        sent: usize,
        budget: usize,
    },
    Done {
        /// `check 41/44 ✓` or `check 2 MUST ✗`.
        badge: String,
        /// Whether a MUST failed (the badge's colour).
        must_failed: bool,
        /// The page, when it ran in this session (a verdict restored from the store has none).
        page: Option<Box<crate::app::msg::CheckPage>>,
    },
}

impl CheckState {
    /// The agent list's line: the verdict, or the progress.
    pub fn line(&self) -> Option<String> {
        match self {
            CheckState::None => None,
            CheckState::Running { sent, budget } if *budget > 0 => {
                Some(format!("checking… {sent}/{budget}"))
            }
            CheckState::Running { .. } => Some("checking…".into()),
            CheckState::Done { badge, .. } => Some(badge.clone()),
        }
    }
}

/// A suite run on this agent from the console: running (its file and how far it is), or done with the agent
/// list's line and the results page to reopen.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum SuiteState {
    #[default]
    None,
    Running {
        file: String,
        done: usize,
        total: usize,
        failed: usize,
        /// `App::keys_pressed` when it started.
        keys_at_start: u64,
    },
    /// Its page: the agent list's line is the page's badge (`suite 5/6 ✗ peers.toml`), coloured by whether a
    /// case failed.
    Done(Box<crate::app::msg::CheckPage>),
}

impl SuiteState {
    /// The agent list's line: the run's progress, or its outcome.
    pub fn line(&self) -> Option<String> {
        match self {
            SuiteState::None => None,
            // Short: the agent list is narrow, and what matters (how far, how many failed) comes first.
            SuiteState::Running { file, total: 0, .. } => Some(format!("suite running… {file}")),
            SuiteState::Running {
                done,
                total,
                failed,
                ..
            } => Some(format!(
                "suite {done}/{total}{}",
                if *failed > 0 {
                    format!(" · {failed} failed")
                } else {
                    " running…".to_string()
                }
            )),
            SuiteState::Done(page) => Some(page.badge.clone()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentOrigin {
    Config,
    Demo,
    CommandLine,
}

impl AgentEntry {
    /// What this agent's calls carry and where it may go, for the agent list and the card page:
    /// `bearer token → http://127.0.0.1:9000` (`+ 1 allowed origin`), or `None` when nothing secret is configured.
    pub fn credential_destination(&self) -> Option<String> {
        if !self.target.sends_secrets() {
            return None;
        }
        let cert = self
            .target
            .tls
            .as_ref()
            .and_then(|t| t.cert_name())
            .map(|n| format!("client cert {}", sanitize_line(&n).0));
        let what = match (&self.target.auth, cert) {
            (Some(a), Some(c)) => format!("{} + {c}", a.kind.words()),
            (Some(a), None) => a.kind.words().to_string(),
            (None, Some(c)) => c,
            (None, None) => "headers".to_string(),
        };
        let home = crate::remote::auth::origin::Origin::of(&self.target.url)
            .map_or_else(|| sanitize_line(&self.target.url).0, |o| o.to_string());
        let more = match self.target.allowed_origins.len() {
            0 => String::new(),
            1 => " + 1 allowed origin".to_string(),
            n => format!(" + {n} allowed origins"),
        };
        Some(format!("{what} → {home}{more}"))
    }

    /// When the card declares mutual TLS (`mtlsSecurityScheme`) and no client certificate is configured: what
    /// the user must set, short enough for the agent list (the card page says it in full).
    pub fn mtls_missing(&self) -> Option<&'static str> {
        let declares = self
            .info()?
            .card
            .card
            .security_schemes
            .as_ref()?
            .values()
            .any(|s| matches!(s, a2a::SecurityScheme::MutualTls(_)));
        (declares && self.target.client_cert().is_none()).then_some("needs a client cert")
    }

    /// What to call it: the config's name, else the card's, else the URL.
    pub fn name(&self) -> String {
        match (&self.state, self.target.label == self.target.url) {
            (Reachability::Online(info), true) if !info.name.is_empty() => info.name.clone(),
            _ => sanitize_line(&self.target.label).0,
        }
    }

    pub fn info(&self) -> Option<&AgentInfo> {
        match &self.state {
            Reachability::Online(i) => Some(i),
            _ => None,
        }
    }

    /// The loaded card when the agent can also be called (it is not card only).
    pub fn callable(&self) -> Option<&AgentInfo> {
        self.info().filter(|i| i.selected().is_some())
    }

    /// Why nothing can be sent to this agent now, as a note for the user; `None` when something can.
    pub fn why_not_callable(&self) -> Option<String> {
        match &self.state {
            Reachability::Loading => Some(format!("{}: the card is still loading", self.name())),
            Reachability::Error(e) => Some(format!("{}: the card did not load ({e})", self.name())),
            Reachability::Online(info) => info.card_only().map(|(_, reason)| {
                format!(
                    "{} is card only: the console can show its card but not call it ({reason}); nothing was sent",
                    self.name()
                )
            }),
        }
    }
}
