//! `check`: judging a live agent from a client's seat. Each requirement of the catalogue
//! (`requirement.rs`) gets a verdict with the spec section it comes from and, for anything but a PASS, the
//! requests and responses that show it (`exchange.rs`).
//!
//! The probes are read-only: they ask about a task id no agent has, send malformed requests, or read the card.
//! Before anything else is sent, the check reads the card, plans which probes each declared interface gets
//! (`plan.rs`) and says how many requests that is at most; the prober refuses to send more. Credentials follow
//! the console's origin rules.
//!
//! - `discovery`: the well-known path, content type, caching headers, conditional GET (§8.2, §8.6);
//! - `card_rules`: the card as served against the v1.0 data model (§4.4, §4.5);
//! - `jsonrpc`, `rest`, `grpc`: per-interface errors, capability gates, versions, content types (§3.3, §3.6,
//!   §9, §10, §11);
//! - `answer`: reading JSON-RPC and google.rpc.Status answers; `report`: the result, `--json` and JUnit.

pub mod active;
mod active_task;
pub mod answer;
pub mod call;
pub mod card_rules;
pub mod compare;
pub mod discovery;
pub mod exchange;
pub mod grpc;
pub mod jsonrpc;
pub mod plan;
pub mod report;
pub mod requirement;
pub mod rest;

use std::time::Instant;

use crate::remote::auth::Secret;
use crate::remote::connect::agent::AgentTarget;
use crate::remote::error::RemoteError;
use crate::remote::signature::SignatureState;
use exchange::Prober;
use plan::Step;
use report::{Finding, Outcome, Report, SCHEMA, Summary};

/// What a check may do beyond reading.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Send this message and follow the task it makes (active probes: they create tasks on the agent).
    pub send: Option<String>,
    /// Send each skill's first example (up to [`MAX_EXAMPLES`]) the same way.
    pub examples: bool,
}

/// Skills' examples sent at most with `--examples`.
pub const MAX_EXAMPLES: usize = 3;

/// The messages the active probes send: `--send`'s, then the skills' first examples.
fn messages(opts: &Options, card: &serde_json::Map<String, serde_json::Value>) -> Vec<String> {
    let mut out: Vec<String> = opts.send.iter().cloned().collect();
    if opts.examples {
        let skills = card.get("skills").and_then(serde_json::Value::as_array);
        out.extend(
            skills
                .into_iter()
                .flatten()
                .filter_map(|s| {
                    s.get("examples")?
                        .as_array()?
                        .first()?
                        .as_str()
                        .map(str::to_string)
                })
                .take(MAX_EXAMPLES),
        );
    }
    out
}

/// How far a running check has got, for a progress line or bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Requests sent so far, and the most the check will send.
    pub sent: usize,
    pub budget: usize,
    /// What it is doing now ("card", "JSONRPC 1.0 http://…").
    pub step: String,
}

/// Tell `progress` where the check is.
fn tell(prober: &Prober, step: &str, progress: &(dyn Fn(Progress) + Send + Sync)) {
    let (sent, budget) = prober.used();
    progress(Progress {
        sent,
        budget,
        step: step.to_string(),
    });
}

/// Requests for the plan of a card: discovery's, and each probed interface's.
pub fn budget(steps: &[Step]) -> usize {
    discovery::REQUESTS + steps.iter().map(Step::requests).sum::<usize>()
}

/// The configured headers and the credential's header (or query key) for this agent. A credential that
/// needs a person to sign in is not used by a check: the extended card's probe then says so.
async fn credentials(
    target: &AgentTarget,
) -> (
    Vec<(String, Secret)>,
    Option<(String, Secret)>,
    Option<String>,
) {
    let mut note = None;
    let credential = match &target.auth {
        Some(auth) if auth.signs_in_a_person() => {
            note = Some(
                "the agent's credential needs a sign-in; the check runs without it".to_string(),
            );
            None
        }
        Some(auth) => {
            let scope = target.scope().ok();
            let label = crate::remote::error::one_line(&target.label);
            match crate::remote::auth::resolve_scoped(
                auth,
                None,
                scope.as_ref().map(|s| (s, label.as_str())),
                target.timeout,
            )
            .await
            {
                Ok(c) => Some(c),
                Err(e) => {
                    note = Some(format!(
                        "the agent's credential could not be read ({}); the check runs without it",
                        e.message
                    ));
                    None
                }
            }
        }
        None => None,
    };
    let interceptor =
        crate::remote::auth::HeaderInterceptor::new(&target.headers, credential.as_ref());
    let headers = interceptor.headers();
    let query = credential
        .as_ref()
        .and_then(crate::remote::auth::Credential::query);
    (headers, query, note)
}

/// Run the check of `target` (read-only unless `opts` asks for the active probes). `progress` hears about every step; `plan` is told the number of
/// requests before the first probe of an interface is sent. Fails only when the check cannot start (a bad
/// URL, an HTTP client that cannot be built); an agent that does not answer is a finding.
pub async fn run(
    target: &AgentTarget,
    opts: &Options,
    progress: &(dyn Fn(Progress) + Send + Sync),
    notes: &mut Vec<String>,
) -> Result<Report, RemoteError> {
    let started = Instant::now();
    let started_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let scope = target.scope()?;
    let http = match target.own_http()? {
        Some(h) => h.http,
        None => crate::remote::http::http_client(target.timeout)?,
    };
    let (headers, query, note) = credentials(target).await;
    notes.extend(note);
    // The budget grows once the card says which interfaces there are; discovery's share is known now.
    let mut prober = Prober::new(
        http,
        scope,
        headers,
        query,
        target.timeout,
        discovery::REQUESTS,
    );
    let mut findings: Vec<Finding> = Vec::new();
    tell(&prober, "card", progress);
    let doc = discovery::discover(&prober, &target.url, &mut findings).await;
    let mut card_name = None;
    let mut messages_sent: Vec<String> = Vec::new();
    if let Some(doc) = &doc {
        card_name = doc
            .value
            .get("name")
            .and_then(serde_json::Value::as_str)
            .map(|n| crate::trust::sanitize::sanitize_line(n).0);
        if card_rules::is_v03_only(&doc.value) {
            for r in requirement::CATALOGUE
                .iter()
                .filter(|r| r.area == requirement::Area::Card)
            {
                findings.push(Finding::new(
                    r.id,
                    None,
                    Outcome::skip(
                        "a v0.3 card (no supportedInterfaces): the v1.0 card model does not apply",
                    ),
                ));
            }
        } else {
            findings.extend(card_rules::judge(&doc.value));
        }
        findings.push(signature(doc, target).await);
        let caps = plan::Caps::of(doc.read.as_ref());
        let steps = plan::steps(&plan::interfaces(doc.read.as_ref()), &prober);
        // The active probes speak v1.0: they go to v1.0 interfaces only.
        let http_ifaces: Vec<&plan::Interface> = steps
            .iter()
            .filter_map(|s| match s {
                Step::JsonRpc(i) | Step::Rest(i) if i.version.starts_with("1.") => Some(i),
                _ => None,
            })
            .collect();
        let texts = messages(opts, &doc.value);
        if !http_ifaces.is_empty() {
            messages_sent = texts.clone();
        }
        let active_requests = if http_ifaces.is_empty() {
            0
        } else {
            active::requests(texts.len(), http_ifaces.len() - 1)
        };
        prober.set_limit(budget(&steps) + active_requests);
        let origin = crate::remote::auth::origin::Origin::of(&target.url)
            .map_or_else(|| target.url.clone(), |o| o.to_string());
        notes.push(if texts.is_empty() {
            format!(
                "check: at most {} requests to {origin} (read-only: nothing is created on the agent)",
                budget(&steps)
            )
        } else {
            format!(
                "check: at most {} requests to {origin}; the active probes create tasks on the agent ({} message(s), \
                 each sent streamed and blocking, plus one follow-up in the same context{})",
                budget(&steps) + active_requests,
                texts.len(),
                if http_ifaces.len() > 1 { " and one per other binding" } else { "" }
            )
        });
        for step in &steps {
            match step {
                Step::JsonRpc(i) => {
                    tell(&prober, &i.label, progress);
                    jsonrpc::probe(&prober, i, &caps, &mut findings).await;
                }
                Step::Rest(i) => {
                    tell(&prober, &i.label, progress);
                    rest::probe(&prober, i, &caps, &mut findings).await;
                }
                Step::Grpc(i) => {
                    tell(&prober, &i.label, progress);
                    grpc::probe(&prober, i, &caps, target.tls.as_ref(), &mut findings).await;
                }
                Step::Skip(i, area, why) => plan::skipped(i, *area, why, &mut findings),
            }
        }
        run_active(
            &prober,
            &http_ifaces,
            &caps,
            &texts,
            opts,
            progress,
            &mut findings,
        )
        .await;
    } else {
        skip_without_card(&mut findings);
    }
    tell(&prober, "done", progress);
    order_for_report(&mut findings);
    let (sent, budget) = prober.used();
    Ok(Report {
        schema: SCHEMA,
        agent: crate::trust::sanitize::sanitize_line(&target.label).0,
        url: crate::trust::sanitize::sanitize_line(&target.url).0,
        card_name,
        started_at,
        elapsed_ms: started.elapsed().as_millis() as u64,
        active: !messages_sent.is_empty(),
        requests_sent: sent.min(budget),
        request_budget: budget,
        summary: Summary::of(&findings),
        findings,
    })
}

/// The report reads interface by interface, each grouped by area (the probes interleave versions, errors and
/// the extended card as they go); the active probes' findings close it (they are about tasks, not one
/// interface's answers).
fn order_for_report(findings: &mut [Finding]) {
    let mut order: Vec<Option<String>> = Vec::new();
    for f in findings.iter() {
        if !order.contains(&f.on) {
            order.push(f.on.clone());
        }
    }
    findings.sort_by_key(|f| {
        (
            matches!(
                f.area,
                requirement::Area::Tasks | requirement::Area::Equivalence
            ),
            order.iter().position(|o| *o == f.on),
            f.area,
        )
    });
}

/// Without a card nothing but discovery can be judged.
fn skip_without_card(findings: &mut Vec<Finding>) {
    for r in requirement::CATALOGUE.iter().filter(|r| {
        !matches!(
            r.area,
            requirement::Area::Discovery
                | requirement::Area::Tasks
                | requirement::Area::Equivalence
        )
    }) {
        findings.push(Finding::new(
            r.id,
            None,
            Outcome::skip("no card: nothing to judge it by"),
        ));
    }
}

/// The active probes on the first probed HTTP interface (the others for equivalence), or their SKIPs.
async fn run_active(
    prober: &Prober,
    http_ifaces: &[&plan::Interface],
    caps: &plan::Caps,
    texts: &[String],
    opts: &Options,
    progress: &(dyn Fn(Progress) + Send + Sync),
    findings: &mut Vec<Finding>,
) {
    match http_ifaces.split_first() {
        Some((primary, others)) if !texts.is_empty() => {
            tell(prober, &format!("active · {}", primary.label), progress);
            let others: Vec<plan::Interface> = others.iter().map(|i| (*i).clone()).collect();
            active::probe(prober, primary, &others, caps, texts, findings).await;
        }
        _ => {
            let why = if texts.is_empty() {
                if opts.examples {
                    "--examples: no skill has an example"
                } else {
                    "active probes run with --send TEXT or --examples (they create tasks on the agent)"
                }
            } else {
                "no JSON-RPC or HTTP+JSON v1.0 interface to send to"
            };
            for r in requirement::CATALOGUE.iter().filter(|r| {
                matches!(
                    r.area,
                    requirement::Area::Tasks | requirement::Area::Equivalence
                )
            }) {
                findings.push(Finding::new(r.id, None, Outcome::skip(why)));
            }
        }
    }
}

/// The signature finding: verified (or valid with a key only the card names) passes; an invalid one is a
/// WARN (SHOULD, §8.4.3); an unsigned card is not judged (signing is optional).
async fn signature(doc: &discovery::CardDoc, target: &AgentTarget) -> Finding {
    let Ok(url) = url::Url::parse(&doc.url) else {
        return Finding::new(
            "signature.verifies",
            None,
            Outcome::skip("the card's URL cannot be parsed"),
        );
    };
    let jku = crate::remote::signature::JkuFetcher::within(target.timeout);
    let verdict = crate::remote::signature::keys::judge(&doc.raw, &url, &target.trust, &jku).await;
    let outcome = match verdict.state {
        SignatureState::Verified => Outcome::pass(format!("verified: {}", verdict.reason)),
        SignatureState::ValidUnpinned => {
            Outcome::pass(format!("valid (key not pinned): {}", verdict.reason))
        }
        SignatureState::Invalid => Outcome::fail(verdict.reason),
        SignatureState::Unsigned => Outcome::skip("the card is not signed (signing is optional)"),
    };
    Finding::new("signature.verifies", None, outcome)
}
