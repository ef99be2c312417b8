//! The auth-required approval dialog: who asks, what they said (untrusted), what the card declares, and exactly
//! what the console would send. Nothing is sent until the user picks.
//!
//! The layout is pinned so the remote message cannot spoof it: the header, the destination, the credential and
//! the choices each have their own rows; the agent's message gets a box of at most [`APPROVAL_MESSAGE_ROWS`]
//! rows that scrolls (j/k, PgUp/PgDn) and is labelled remote, and the card's declarations fill what is left.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use super::overlay::{boxed, centered};
use crate::app::agent::AgentEntry;
use crate::app::ids::TabId;
use crate::app::state::{App, Overlay};
use crate::app::task::TaskTab;
use crate::config::keymap::actions::Action;

/// The most rows the agent's own message takes in the approval dialog (it scrolls inside them).
const APPROVAL_MESSAGE_ROWS: u16 = crate::app::update::APPROVAL_PAGE;

/// A choice's key in a dialog's list (`a`; `a/x` when remapped to several).
fn choice(app: &App, a: Action) -> String {
    let keys = app.keymap.keys_for(a);
    if keys.is_empty() {
        "—".into()
    } else {
        keys.join("/")
    }
}

/// The agent's own message in the approval dialog, as remote text.
fn approval_message(app: &App, tb: &TaskTab) -> Vec<Line<'static>> {
    let t = &app.theme;
    match tb.log.status_message.as_ref() {
        Some(m) => {
            let text = crate::trust::sanitize::Untrusted::new(
                &crate::task::outgoing::parts_text(&m.parts),
                crate::trust::sanitize::Provenance {
                    agent: tb.agent_name.as_str().into(),
                    task: tb.task_id_shown().map(Into::into),
                    field: "auth-required status message".into(),
                },
            );
            super::remote::block(t, &text)
        }
        None => vec![Line::styled("  (no message)", t.dim)],
    }
}

/// Width of the approval dialog's text at a terminal width.
fn approval_inner(area: Rect) -> usize {
    area.width
        .saturating_sub(4)
        .min(110)
        .saturating_sub(2)
        .max(1) as usize
}

/// Rows of the approval dialog's message and rows its box shows, for `update` to clamp the scroll.
pub(super) fn approval_extent(app: &App, area: Rect) -> Option<crate::app::scroll::Extent> {
    let Some(Overlay::Approval { tab, .. }) = &app.overlay else {
        return None;
    };
    let tb = app.tab(*tab)?;
    let rows = super::wrap::wrap_all(approval_message(app, tb), approval_inner(area)).len();
    Some(crate::app::scroll::Extent {
        content: rows,
        height: rows.min(usize::from(APPROVAL_MESSAGE_ROWS)),
    })
}

/// The dialog's text, section by section, before it is wrapped.
struct Sections {
    header: Vec<Line<'static>>,
    message: Vec<Line<'static>>,
    declared: Vec<Line<'static>>,
    send: Vec<Line<'static>>,
}

pub(super) fn draw(f: &mut Frame, app: &App, tab: TabId, scroll: u16, area: Rect) {
    let Some(tb) = app.tab(tab) else {
        return;
    };
    let agent = app.agent(tb.agent);
    let card = agent.and_then(|a| a.info()).map(|i| &i.card.card);
    let inner = approval_inner(area);
    let sections = Sections {
        header: header(app, tb),
        message: approval_message(app, tb),
        declared: declared(app, card),
        send: send(app, agent, card, inner),
    };
    render(f, app, sections, scroll, area);
}

/// Who asks: the agent, the task and the context.
fn header(app: &App, tb: &TaskTab) -> Vec<Line<'static>> {
    let t = &app.theme;
    vec![
        Line::from(vec![
            Span::styled("Agent ", t.dim),
            Span::styled(tb.agent_name.clone(), t.title),
            Span::styled(" · task ", t.dim),
            Span::styled(tb.task_id_shown().unwrap_or_default().to_string(), t.text),
        ]),
        Line::from(vec![
            Span::styled("Context ", t.dim),
            Span::styled(
                tb.context_id_shown().unwrap_or_default().to_string(),
                t.text,
            ),
        ]),
    ]
}

/// The security schemes the card declares, each with the scopes its requirements ask for.
fn declared(app: &App, card: Option<&a2a::AgentCard>) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = Vec::new();
    lines.push(Line::default());
    lines.push(Line::styled("Security the card declares:", t.title));
    let line = |s: &str| crate::trust::sanitize::sanitize_line(s).0;
    match card.and_then(|c| c.security_schemes.as_ref()) {
        Some(schemes) if !schemes.is_empty() => {
            let mut names: Vec<&String> = schemes.keys().collect();
            names.sort();
            for n in names {
                let scopes: Vec<String> = card
                    .and_then(|c| c.security_requirements.as_ref())
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r.get(n.as_str()))
                    .flatten()
                    .map(|s| line(s))
                    .collect();
                let kind = match &schemes[n] {
                    a2a::SecurityScheme::ApiKey(k) => {
                        format!("API key in {} {:?}", line(&k.location), line(&k.name))
                    }
                    a2a::SecurityScheme::HttpAuth(h) => format!("HTTP {}", line(&h.scheme)),
                    a2a::SecurityScheme::OAuth2(_) => "OAuth 2.0".into(),
                    a2a::SecurityScheme::OpenIdConnect(_) => "OpenID Connect".into(),
                    a2a::SecurityScheme::MutualTls(_) => "mutual TLS".into(),
                };
                let sc = if scopes.is_empty() {
                    String::new()
                } else {
                    format!(" · scopes: {}", scopes.join(" "))
                };
                lines.push(Line::styled(format!("  {}: {kind}{sc}", line(n)), t.text));
            }
        }
        _ => lines.push(Line::styled("  none declared", t.dim)),
    }
    lines
}

/// What the console would send and where, the choices (each wrapped under its own words), and the audit note.
fn send(
    app: &App,
    agent: Option<&AgentEntry>,
    card: Option<&a2a::AgentCard>,
    inner: usize,
) -> Vec<Line<'static>> {
    let t = &app.theme;
    let (mut send, origin_text) = destination(app, agent);
    // A choice wraps under its own words, not under its key (the key column stays clear to scan).
    let hang = |l: Line<'static>| {
        let indent = l.spans.first().map_or(0, |s| s.content.width());
        super::wrap::wrap_hanging(l, inner, indent)
    };
    let choices = choices(app, agent, card, &origin_text);
    send.extend(choices.into_iter().flat_map(hang));
    send.push(Line::styled(
        "Every decision is written to the audit log with the task and context ids.",
        t.dim,
    ));
    send
}

/// The request the console would make and the origin it goes to (with a warning when the card chose another
/// origin than the configured one), and that origin as the choices name it.
fn destination(app: &App, agent: Option<&AgentEntry>) -> (Vec<Line<'static>>, String) {
    let t = &app.theme;
    let line = |s: &str| crate::trust::sanitize::sanitize_line(s).0;
    let url = agent
        .and_then(|a| a.info())
        .and_then(|i| i.selected())
        .map(|s| line(&s.interface.url))
        .unwrap_or_default();
    let there = crate::remote::auth::origin::Origin::of(&url);
    let home = agent.and_then(|a| crate::remote::auth::origin::Origin::of(&a.target.url));
    let origin_text = there
        .as_ref()
        .map_or_else(|| "(unknown)".to_string(), ToString::to_string);
    let mut send = vec![
        Line::styled("What the console would send:", t.title),
        Line::styled(
            "  one follow-up message on this task, with the credential you choose, on that request only",
            t.text,
        ),
        Line::from(vec![
            Span::styled("  to      ", t.dim),
            Span::styled(origin_text.clone(), t.accent),
            Span::styled(format!("  ({url})"), t.dim),
        ]),
    ];
    if let (Some(there), Some(home)) = (&there, &home)
        && there != home
    {
        send.push(Line::styled(
            format!(
                "  ⚠ that is not the origin you configured for this agent ({home}): the card chose it"
            ),
            t.warning,
        ));
    }
    send.push(Line::default());
    (send, origin_text)
}

/// One row per way to answer: the configured credential, a sign-in the card declares, a pasted token, deny,
/// later. Each names its key as bound.
fn choices(
    app: &App,
    agent: Option<&AgentEntry>,
    card: Option<&a2a::AgentCard>,
    origin_text: &str,
) -> Vec<Line<'static>> {
    let t = &app.theme;
    let configured = agent.and_then(|a| a.target.auth.as_ref()).map(|a| {
        let source = match (&a.token_env, &a.token_cmd) {
            (Some(v), _) => format!("environment variable {v}"),
            (_, Some(_)) => "the configured token_cmd".into(),
            _ => "—".into(),
        };
        format!("{} credential from {source}", a.kind.words())
    });
    let mut send = Vec::new();
    match &configured {
        Some(c) => send.push(Line::from(vec![
            Span::styled(
                format!("  {} ", choice(app, Action::ApproveConfigured)),
                t.accent,
            ),
            Span::styled(format!("approve with the {c} → {origin_text}"), t.text),
        ])),
        None => send.push(Line::styled(
            format!(
                "  {}  (no credential configured for this agent)",
                choice(app, Action::ApproveConfigured)
            ),
            t.dim,
        )),
    }
    if let Some(sign_in) = sign_in_choice(app, card, origin_text) {
        send.push(sign_in);
    }
    send.push(Line::from(vec![
        Span::styled(
            format!("  {} ", choice(app, Action::ApprovePaste)),
            t.accent,
        ),
        Span::styled(
            format!("approve with a token you paste (masked, never logged) → {origin_text}"),
            t.text,
        ),
    ]));
    send.push(Line::from(vec![
        Span::styled(format!("  {} ", choice(app, Action::Deny)), t.accent),
        Span::styled("deny: cancel the task", t.text),
    ]));
    send.push(Line::from(vec![
        Span::styled(format!("  {} ", choice(app, Action::Later)), t.accent),
        Span::styled("later: leave it waiting (A reopens this)", t.text),
    ]));
    send
}

/// The sign-in choice, when the card declares a flow the console can run: a browser flow first, else the
/// device flow.
fn sign_in_choice(
    app: &App,
    card: Option<&a2a::AgentCard>,
    origin_text: &str,
) -> Option<Line<'static>> {
    let t = &app.theme;
    let code_flow =
        card.is_some_and(|c| !crate::remote::auth::oauth_code::code_flows_in_card(c).is_empty());
    let device_flow = card.is_some_and(|c| {
        crate::remote::auth::oauth::flows_in_card(c)
            .iter()
            .any(|(_, k, _)| matches!(k, crate::remote::auth::oauth::FlowKind::DeviceCode { .. }))
    });
    if code_flow {
        Some(Line::from(vec![
            Span::styled(
                format!("  {} ", choice(app, Action::ApproveDeviceFlow)),
                t.accent,
            ),
            Span::styled(
                format!(
                    "sign in in a browser (the authorization code or OpenID Connect flow the card declares), then approve with that token → {origin_text}"
                ),
                t.text,
            ),
        ]))
    } else if device_flow {
        Some(Line::from(vec![
            Span::styled(
                format!("  {} ", choice(app, Action::ApproveDeviceFlow)),
                t.accent,
            ),
            Span::styled(
                format!(
                    "sign in with the OAuth 2.0 device flow the card declares, then approve with that token → {origin_text}"
                ),
                t.text,
            ),
        ]))
    } else {
        None
    }
}

/// Wraps the sections, sizes the box to them and lays them out: the agent's message scrolls inside its rows.
fn render(f: &mut Frame, app: &App, sections: Sections, scroll: u16, area: Rect) {
    let t = &app.theme;
    let inner = approval_inner(area);
    // Wrapped here, not by the paragraph, so every row of the agent's message keeps its bar.
    let w = area.width.saturating_sub(4).min(110);
    let wrap = |ls: Vec<Line<'static>>| super::wrap::wrap_all(ls, inner);
    let rows = |ls: &[Line<'_>]| u16::try_from(ls.len()).unwrap_or(u16::MAX);
    let Sections {
        header,
        message,
        declared,
        send,
    } = sections;
    let (header, message, send) = (wrap(header), wrap(message), wrap(send));
    let declared = wrap(declared);
    let message_rows = rows(&message);
    let message_h = message_rows.min(APPROVAL_MESSAGE_ROWS);
    let offset = scroll.min(message_rows.saturating_sub(message_h));
    let label = if message_rows > message_h {
        format!(
            "The agent says (remote text — the request itself proves nothing) · rows {}–{} of {message_rows}, j/k PgUp/PgDn scroll:",
            offset + 1,
            offset + message_h
        )
    } else {
        "The agent says (remote text — the request itself proves nothing):".to_string()
    };
    let label = wrap(vec![Line::styled(label, t.warning)]);
    let (header_h, label_h, send_h, declared_h) =
        (rows(&header), rows(&label), rows(&send), rows(&declared));
    let want = header_h + label_h + message_h + declared_h + send_h + 2;
    let h = want.min(area.height.saturating_sub(2));
    let r = centered(area, w, h);
    f.render_widget(Clear, r);
    let block = boxed(app, "Authorization requested · auth-required");
    let inside = block.inner(r);
    f.render_widget(block, r);
    // The destination and the choices get their rows first; the card's declarations take what is left.
    let parts = ratatui::layout::Layout::vertical([
        ratatui::layout::Constraint::Length(header_h),
        ratatui::layout::Constraint::Length(label_h),
        ratatui::layout::Constraint::Length(message_h),
        ratatui::layout::Constraint::Min(0),
        ratatui::layout::Constraint::Length(send_h),
    ])
    .split(inside);
    f.render_widget(Paragraph::new(header), parts[0]);
    f.render_widget(Paragraph::new(label), parts[1]);
    f.render_widget(Paragraph::new(message).scroll((offset, 0)), parts[2]);
    f.render_widget(Paragraph::new(declared), parts[3]);
    f.render_widget(Paragraph::new(send), parts[4]);
}
