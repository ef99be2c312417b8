//! The card page (identity, provider, interfaces, capabilities, security, extensions, modes, warnings — a
//! readable page, with a raw-JSON toggle) and the skills browser (list + detail, examples to start a task).

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::remote;
use super::wrap::{BAR, wrap_all};
use crate::app::agent::{AgentEntry, AgentInfo, Reachability};
use crate::app::state::{App, Focus};
use crate::config::keymap::actions::Action;
use crate::trust::sanitize::sanitize_line;

fn frame_block<'a>(app: &App, title: String) -> Block<'a> {
    let focused = app.focus == Focus::Main;
    Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, app.theme.title))
        .border_style(if focused {
            app.theme.border_focus
        } else {
            app.theme.border
        })
}

fn kv(app: &App, k: &str, v: String) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{k:<16}"), app.theme.dim),
        Span::styled(v, app.theme.text),
    ])
}

/// A field whose value the agent wrote: the value sits behind the untrusted bar, so it stays marked on every
/// row it wraps to.
fn rkv(app: &App, k: &str, v: String) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{k:<16}"), app.theme.dim),
        Span::styled(BAR, app.theme.remote_label),
        Span::styled(v, app.theme.remote_text),
    ])
}

/// Who signed the card: the verdict in its colour with the reason, then which key, algorithm and canonical
/// form, and whether the key is pinned (with the key that pins it, when it is not).
fn signature_lines(
    app: &App,
    fc: &crate::remote::card::FetchedCard,
    lines: &mut Vec<Line<'static>>,
) {
    use crate::remote::signature::SignatureState as S;
    let t = &app.theme;
    let (badge, _) = super::agents::signature_badge(fc);
    let style = super::agents::signature_badge_style(app, fc);
    let Some(v) = &fc.signature else {
        lines.push(Line::from(vec![
            Span::styled(format!("{:<16}", "signature"), t.dim),
            Span::styled(badge.to_string(), style),
        ]));
        return;
    };
    lines.push(Line::from(vec![
        Span::styled(format!("{:<16}", "signature"), t.dim),
        Span::styled(badge.to_string(), style),
        Span::styled(format!(" — {}", v.reason), style),
    ]));
    if !v.is_signed() {
        return;
    }
    let d = &v.detail;
    if let Some(thumb) = &d.thumbprint {
        // The kid is the agent's words (its JWS header); the thumbprint is ours, computed from the key.
        let mut spans = vec![Span::styled(format!("{:<16}", "  key"), t.dim)];
        if let Some(kid) = &d.kid {
            spans.push(Span::styled("kid ", t.text));
            spans.push(Span::styled(BAR, t.remote_label));
            spans.push(Span::styled(
                crate::remote::signature::jws_quote(kid),
                t.remote_text,
            ));
            spans.push(Span::styled(" · ", t.text));
        }
        spans.push(Span::styled(format!("sha256:{thumb}"), t.text));
        lines.push(Line::from(spans));
    }
    if let Some(alg) = &d.alg {
        lines.push(kv(app, "  algorithm", alg.clone()));
    }
    if let Some(form) = d.form {
        lines.push(kv(app, "  canonical", form.label().to_string()));
    }
    if matches!(v.state, S::Verified | S::ValidUnpinned) {
        lines.push(kv(
            app,
            "  pinned",
            if d.pinned { "yes" } else { "no" }.into(),
        ));
    }
    if v.state == S::ValidUnpinned && d.offer.is_some() {
        let key = app
            .keymap
            .keys_for(crate::config::keymap::actions::Action::PinCardKey)
            .first()
            .cloned()
            .unwrap_or_default();
        lines.push(Line::styled(
            format!("  {key} pins this key for the agent (or run: a2a-console trust AGENT)"),
            t.key_hint,
        ));
    }
}

/// The card page's lines (also used by tests and screenshots).
pub fn card_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let Some(entry) = app.selected() else {
        return welcome(app);
    };
    let info = match &entry.state {
        Reachability::Loading => {
            return vec![Line::styled(
                format!("Loading the card of {}…", entry.name()),
                t.connecting,
            )];
        }
        Reachability::Error(e) => {
            return vec![
                Line::styled(
                    format!("The card of {} could not be loaded:", entry.name()),
                    t.error,
                ),
                Line::styled(e.clone(), t.error),
                Line::default(),
                Line::styled("r retries · d removes the agent", t.dim),
            ];
        }
        Reachability::Online(info) => info,
    };
    if app.raw_card {
        return raw_lines(app, info);
    }
    let mut lines = identity_lines(app, info);
    change_lines(app, entry, &mut lines);
    signature_lines(app, &info.card, &mut lines);
    card_only_lines(app, info, &mut lines);
    lines.push(Line::default());
    lines.extend(remote::block(t, &info.description));
    interface_lines(app, entry, info, &mut lines);
    capability_lines(app, &info.card.card, &mut lines);
    security_lines(app, entry, &info.card.card, &mut lines);
    validation_lines(app, &info.card, &mut lines);
    lines
}

/// What changed since the card seen before, when it did: breaking changes first and in red. The values are
/// the agent's (quoted, sanitised), behind the remote bar.
fn change_lines(app: &App, entry: &crate::app::agent::AgentEntry, lines: &mut Vec<Line<'static>>) {
    let t = &app.theme;
    let Some(c) = &entry.card_changes else {
        return;
    };
    lines.push(Line::default());
    lines.push(Line::styled(
        format!(
            "The card changed ({}, {}): {} change(s), {} breaking a client",
            c.at.format("%H:%M:%S UTC"),
            "against the card seen before",
            c.changes.len(),
            c.breaking()
        ),
        if c.breaking() > 0 { t.error } else { t.warning },
    ));
    for ch in &c.changes {
        lines.push(Line::from(vec![
            Span::styled(BAR, t.remote_label),
            Span::styled(
                ch.line(),
                if ch.breaking.is_some() {
                    t.error
                } else {
                    t.remote_text
                },
            ),
        ]));
    }
}

/// The card as the agent sent it, pretty-printed, every row behind the remote bar (`J` toggles).
fn raw_lines(app: &App, info: &AgentInfo) -> Vec<Line<'static>> {
    let t = &app.theme;
    let fc = &info.card;
    let mut lines = vec![Line::styled(
        format!("raw card JSON from {} (J for the readable page)", fc.url),
        t.dim,
    )];
    lines.extend(info.raw_pretty.lines().map(|l| {
        Line::from(vec![
            Span::styled(BAR, t.remote_label),
            Span::styled(l.to_string(), t.remote_text),
        ])
    }));
    lines
}

/// The heading: the agent's name, its version, where the card came from, its provider and documentation.
fn identity_lines(app: &App, info: &AgentInfo) -> Vec<Line<'static>> {
    let t = &app.theme;
    let fc = &info.card;
    let c = &fc.card;
    let line = |s: &str| sanitize_line(s).0;
    let mut lines = vec![
        Line::from(Span::styled(info.name.clone(), t.title)),
        rkv(app, "version", line(&c.version)),
        kv(
            app,
            "card",
            format!(
                "{} ({} shape{})",
                fc.url,
                fc.shape.label(),
                if fc.revalidated { ", revalidated" } else { "" }
            ),
        ),
    ];
    if let Some(p) = &c.provider {
        lines.push(rkv(
            app,
            "provider",
            format!("{} <{}>", line(&p.organization), line(&p.url)),
        ));
    }
    if let Some(d) = &c.documentation_url {
        lines.push(rkv(app, "docs", line(d)));
    }
    lines
}

/// Why the console cannot call an agent it can show, said before anything else the card says.
fn card_only_lines(app: &App, info: &AgentInfo, lines: &mut Vec<Line<'static>>) {
    let t = &app.theme;
    if let Some((_, reason)) = info.card_only() {
        // Before anything else the card says: a user must not compose a message to find this out.
        lines.push(Line::default());
        lines.push(Line::styled(
            "Card only: the console can show this card but cannot call the agent.",
            t.warning,
        ));
        // The reason quotes the card (its URLs, bindings, versions): remote text, barred on every row.
        lines.push(Line::from(vec![
            Span::styled("  why: ", t.warning),
            Span::styled(BAR, t.remote_label),
            Span::styled(reason.to_string(), t.warning),
        ]));
        lines.push(Line::styled(
            "  see the interfaces and the warnings below · r re-reads the card",
            t.dim,
        ));
    }
}

/// Every interface the card lists: which one is in use, which ones the console cannot use, which ones are on
/// another origin, and the key that reviews an origin the agent is held back for.
fn interface_lines(
    app: &App,
    entry: &AgentEntry,
    info: &AgentInfo,
    lines: &mut Vec<Line<'static>>,
) {
    let t = &app.theme;
    let c = &info.card.card;
    let line = |s: &str| sanitize_line(s).0;
    lines.push(Line::default());
    lines.push(Line::styled("Interfaces", t.title));
    if c.supported_interfaces.is_empty() {
        lines.push(Line::styled("  none listed", t.warning));
    }
    let scope = entry.target.scope().ok();
    for i in &c.supported_interfaces {
        let chosen = info.selected().is_some_and(|s| s.interface == *i);
        let verdict =
            crate::remote::card::rules::interface_use(&i.protocol_binding, &i.protocol_version);
        // A card may list interfaces anywhere; the configured credential never follows it there.
        let elsewhere = scope.as_ref().is_some_and(|s| !s.permits_url(&i.url));
        let elsewhere = if elsewhere && entry.target.sends_secrets() {
            "  · another origin: no credentials sent"
        } else if elsewhere {
            "  · another origin"
        } else {
            ""
        };
        let mark = if chosen { "▶ in use" } else { "        " };
        let unusable = match verdict {
            crate::remote::card::rules::InterfaceUse::Unusable { short, .. } => {
                format!("  ✗ {short}")
            }
            crate::remote::card::rules::InterfaceUse::Usable { .. } => String::new(),
        };
        let tenant = i
            .tenant
            .as_deref()
            .map(|x| format!(" tenant {}", line(x)))
            .unwrap_or_default();
        lines.push(Line::from(vec![
            Span::styled(format!("  {mark} "), if chosen { t.accent } else { t.dim }),
            Span::styled(BAR, t.remote_label),
            Span::styled(
                format!(
                    "{:<9} {:<6} {}{tenant}",
                    line(&i.protocol_binding),
                    line(&i.protocol_version),
                    line(&i.url)
                ),
                t.text,
            ),
            Span::styled(elsewhere, t.warning),
            Span::styled(unusable, t.warning),
        ]));
    }
    // The card names its interface on another origin: nothing goes there until the user says yes. (Checked
    // only for an agent held back for that reason: choosing an interface is not work for every frame.)
    let held_back = info
        .card_only()
        .is_some_and(|(short, _)| short == crate::remote::connect::agent::ELSEWHERE_SHORT);
    if let Some(o) = held_back
        .then(|| crate::remote::connect::agent::elsewhere(c, &entry.target))
        .flatten()
    {
        let key = app
            .keymap
            .keys_for(crate::config::keymap::actions::Action::AllowOrigin)
            .first()
            .cloned()
            .unwrap_or_default();
        lines.push(Line::styled(
            format!("  {key} reviews {o} (asks first; nothing is sent there until you say yes)"),
            t.key_hint,
        ));
    }
}

/// What the agent says it can do: streaming, push, the extended card, its extensions and its media types.
fn capability_lines(app: &App, c: &a2a::AgentCard, lines: &mut Vec<Line<'static>>) {
    let t = &app.theme;
    let line = |s: &str| sanitize_line(s).0;
    let caps = &c.capabilities;
    let yn = |b: Option<bool>| if b == Some(true) { "yes" } else { "no" };
    lines.push(Line::default());
    lines.push(Line::styled("Capabilities", t.title));
    lines.push(kv(app, "  streaming", yn(caps.streaming).into()));
    lines.push(kv(app, "  push", yn(caps.push_notifications).into()));
    lines.push(kv(
        app,
        "  extended card",
        yn(caps.extended_agent_card).into(),
    ));
    for e in caps.extensions.iter().flatten() {
        let req = if e.required == Some(true) {
            " (required)"
        } else {
            ""
        };
        lines.push(rkv(app, "  extension", format!("{}{req}", line(&e.uri))));
    }
    lines.push(rkv(
        app,
        "modes in",
        line(&c.default_input_modes.join(", ")),
    ));
    lines.push(rkv(
        app,
        "modes out",
        line(&c.default_output_modes.join(", ")),
    ));
}

/// The credential the user configured, the schemes the card declares and the combinations it requires.
fn security_lines(
    app: &App,
    entry: &AgentEntry,
    c: &a2a::AgentCard,
    lines: &mut Vec<Line<'static>>,
) {
    let t = &app.theme;
    let line = |s: &str| sanitize_line(s).0;
    lines.push(Line::default());
    lines.push(Line::styled("Security", t.title));
    lines.push(kv(
        app,
        "  yours",
        entry.credential_destination().map_or_else(
            || "no credential or header configured".to_string(),
            |d| format!("{d} (sent nowhere else)"),
        ),
    ));
    match &c.security_schemes {
        Some(s) if !s.is_empty() => {
            let mut names: Vec<&String> = s.keys().collect();
            names.sort();
            for n in names {
                let desc = match &s[n] {
                    a2a::SecurityScheme::ApiKey(k) => {
                        format!("API key in {} {:?}", line(&k.location), line(&k.name))
                    }
                    a2a::SecurityScheme::HttpAuth(h) => format!("HTTP {}", line(&h.scheme)),
                    a2a::SecurityScheme::OAuth2(o) => {
                        format!("OAuth 2.0 ({})", oauth_flow(&o.flows))
                    }
                    a2a::SecurityScheme::OpenIdConnect(o) => {
                        format!("OpenID Connect {}", line(&o.open_id_connect_url))
                    }
                    a2a::SecurityScheme::MutualTls(_) => "mutual TLS".into(),
                };
                // The scheme's name is the agent's too: it goes behind the bar, not in the label column.
                lines.push(rkv(app, "  scheme", format!("{}: {desc}", line(n))));
                // Ours, not the agent's: whether the certificate it asks for is configured.
                if matches!(&s[n], a2a::SecurityScheme::MutualTls(_)) {
                    lines.push(
                        match entry.target.tls.as_ref().and_then(|t| t.cert_name()) {
                            Some(cert) => kv(
                                app,
                                "  client cert",
                                format!("{} configured", sanitize_line(&cert).0),
                            ),
                            None => Line::from(vec![
                                Span::styled(format!("{:<16}", "  client cert"), t.dim),
                                Span::styled(
                                    "none: needs a client certificate (tls.client_cert)",
                                    t.warning,
                                ),
                            ]),
                        },
                    );
                }
            }
        }
        _ => lines.push(Line::styled("  no schemes declared", t.dim)),
    }
    if let Some(reqs) = &c.security_requirements {
        let alts: Vec<String> = reqs
            .iter()
            .map(|r| {
                let mut v: Vec<String> = r
                    .iter()
                    .map(|(n, s)| {
                        if s.is_empty() {
                            line(n)
                        } else {
                            format!("{} [{}]", line(n), line(&s.join(" ")))
                        }
                    })
                    .collect();
                v.sort();
                if v.is_empty() {
                    "nothing".into()
                } else {
                    v.join(" + ")
                }
            })
            .collect();
        lines.push(rkv(app, "  requires", alts.join("  or  ")));
    }
}

/// The skill count and what validating the card found.
fn validation_lines(
    app: &App,
    fc: &crate::remote::card::FetchedCard,
    lines: &mut Vec<Line<'static>>,
) {
    let t = &app.theme;
    let c = &fc.card;
    let line = |s: &str| sanitize_line(s).0;
    lines.push(Line::default());
    lines.push(Line::styled(
        format!("Skills: {} (s to browse)", c.skills.len()),
        t.title,
    ));
    lines.push(Line::default());
    if fc.warnings.is_empty() {
        lines.push(Line::styled("Validation: no warnings", t.ok));
    } else {
        lines.push(Line::styled(
            format!("Validation: {} warning(s)", fc.warnings.len()),
            t.warning,
        ));
        for w in &fc.warnings {
            lines.push(Line::styled(
                format!("  ! {}", line(&w.to_string())),
                t.warning,
            ));
        }
    }
}

fn oauth_flow(f: &a2a::OAuthFlows) -> &'static str {
    match f {
        a2a::OAuthFlows::AuthorizationCode(_) => "authorization code",
        a2a::OAuthFlows::ClientCredentials(_) => "client credentials",
        a2a::OAuthFlows::DeviceCode(_) => "device code",
        a2a::OAuthFlows::Implicit(_) => "implicit, deprecated",
        a2a::OAuthFlows::Password(_) => "password, deprecated",
    }
}

/// The card page with no agent at all: what the console is and the two ways to get an agent.
fn welcome(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let key = |a: Action| {
        app.keymap
            .keys_for(a)
            .first()
            .cloned()
            .unwrap_or_else(|| format!("Ctrl-P {}", a.name()))
    };
    vec![
        Line::styled("Welcome to a2a-console.", t.title),
        Line::default(),
        Line::styled(
            "No agent is configured yet. To try the console without one, add the embedded demo agent:",
            t.text,
        ),
        Line::styled(
            format!(
                "  {}  starts it on 127.0.0.1 and adds it to the list",
                key(Action::AddDemo)
            ),
            t.key_hint,
        ),
        Line::styled("  (or quit and run: a2a-console --demo)", t.dim),
        Line::default(),
        Line::styled("To talk to a real agent:", t.text),
        Line::styled(
            format!(
                "  {}  add one by its base URL or card URL",
                key(Action::AddAgent)
            ),
            t.key_hint,
        ),
        Line::styled(
            "  or list it under [[agents]] in the config file (see config.example.toml)",
            t.dim,
        ),
        Line::default(),
        Line::styled(
            format!(
                "{} shows every key · {} runs any action by name",
                key(Action::Help),
                key(Action::Palette)
            ),
            t.dim,
        ),
    ]
}

pub fn draw_card(f: &mut Frame, app: &App, area: Rect) {
    let name = app
        .selected()
        .map(|a| a.name())
        .unwrap_or_else(|| "no agent".into());
    let title = if app.raw_card {
        format!(" Card · {name} · raw JSON ")
    } else {
        format!(" Card · {name} ")
    };
    let block = frame_block(app, title);
    let inner = block.inner(area);
    // Wrapped here rather than by the paragraph, so every row of a remote field keeps its bar.
    let lines = wrap_all(card_lines(app), inner.width as usize);
    // Never past the last page: the end of the card stays at the bottom of the pane.
    let max = lines.len().saturating_sub(inner.height as usize);
    let top = u16::try_from(app.card_scroll.min(max)).unwrap_or(u16::MAX);
    let p = Paragraph::new(lines).block(block).scroll((top, 0));
    f.render_widget(p, area);
}

/// Rows the card page takes at the pane's width and rows the pane shows (for `update` to clamp its scroll).
pub fn card_extent(app: &App, area: Rect) -> crate::app::scroll::Extent {
    let inner = Block::default().borders(Borders::ALL).inner(area);
    crate::app::scroll::Extent {
        content: wrap_all(card_lines(app), inner.width as usize).len(),
        height: inner.height.max(1) as usize,
    }
}

pub fn draw_skills(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let Some(entry) = app.selected() else {
        f.render_widget(
            Paragraph::new(welcome(app))
                .wrap(ratatui::widgets::Wrap { trim: false })
                .block(frame_block(app, " Skills · no agent ".into())),
            area,
        );
        return;
    };
    let name = entry.name();
    let Some(info) = entry.info() else {
        // Say which of the card's states keeps the skills away, as the card page does.
        let why = match &entry.state {
            Reachability::Loading => {
                Line::styled(format!("Loading the card of {name}…"), t.connecting)
            }
            Reachability::Error(e) => Line::styled(
                format!("The card of {name} could not be loaded, so its skills are unknown: {e}"),
                t.error,
            ),
            Reachability::Online(_) => Line::default(),
        };
        f.render_widget(
            Paragraph::new(why)
                .wrap(ratatui::widgets::Wrap { trim: false })
                .block(frame_block(app, format!(" Skills · {name} "))),
            area,
        );
        return;
    };
    let cols = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Percentage(40), Constraint::Percentage(60)])
        .split(area);
    // The list: skills with their examples; the cursor moves over examples (Enter starts a task with one).
    let mut list = Vec::new();
    let mut n = 0usize;
    let mut current = None;
    for (si, s) in info.skills.iter().enumerate() {
        list.push(Line::from(vec![
            Span::styled(BAR, t.remote_label),
            Span::styled(format!("{} ({})", s.name, s.id), t.title),
        ]));
        if s.examples.is_empty() {
            list.push(Line::styled("   no examples", t.dim));
        }
        for ex in &s.examples {
            let sel = n == app.selected_skill;
            if sel {
                current = Some(si);
            }
            list.push(Line::from(vec![
                Span::styled(if sel { " ▶ " } else { "   " }, t.accent),
                Span::styled(BAR, t.remote_label),
                Span::styled(ex.clone(), if sel { t.selection } else { t.text }),
            ]));
            n += 1;
        }
    }
    let selected_row = list
        .iter()
        .position(|l| l.spans.first().is_some_and(|s| s.content == " ▶ "))
        .unwrap_or(0);
    let visible = cols[0].height.saturating_sub(2) as usize;
    let offset = selected_row.saturating_sub(visible.saturating_sub(2));
    f.render_widget(
        Paragraph::new(list)
            .block(frame_block(
                app,
                format!(" Skills · {name} · Enter starts a task "),
            ))
            .scroll((offset as u16, 0)),
        cols[0],
    );
    let skill = current
        .and_then(|i| info.skills.get(i))
        .or(info.skills.first());
    let mut detail = Vec::new();
    if let Some(s) = skill {
        detail.push(Line::from(vec![
            Span::styled(BAR, t.remote_label),
            Span::styled(s.name.clone(), t.title),
        ]));
        detail.push(rkv(app, "id", s.id.clone()));
        detail.push(rkv(app, "tags", s.tags.join(", ")));
        if !s.input_modes.is_empty() {
            detail.push(rkv(app, "input", s.input_modes.join(", ")));
        }
        if !s.output_modes.is_empty() {
            detail.push(rkv(app, "output", s.output_modes.join(", ")));
        }
        if !s.security.is_empty() {
            detail.push(rkv(app, "security", s.security.join("  or  ")));
        }
        detail.push(Line::default());
        detail.extend(remote::block(t, &s.description));
        detail.push(Line::default());
        detail.push(Line::styled("Examples", t.title));
        for ex in &s.examples {
            detail.push(Line::from(vec![
                Span::styled("  • ", t.dim),
                Span::styled(BAR, t.remote_label),
                Span::styled(ex.clone(), t.remote_text),
            ]));
        }
    }
    let block = frame_block(app, " Skill ".into());
    let detail = wrap_all(detail, block.inner(cols[1]).width as usize);
    f.render_widget(Paragraph::new(detail).block(block), cols[1]);
}
