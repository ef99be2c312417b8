//! Modals: help (generated from the key table), the command palette, confirmations and one-line prompts.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::app::state::{App, Overlay};
use crate::config::keymap::palette_matches;

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width.saturating_sub(2));
    let h = h.min(area.height.saturating_sub(2));
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn boxed<'a>(app: &App, title: &str) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(format!(" {title} "), app.theme.title))
        .border_style(app.theme.border_focus)
}

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let Some(overlay) = &app.overlay else {
        return;
    };
    let t = &app.theme;
    match overlay {
        Overlay::Help { scroll } => {
            let r = centered(area, 84, area.height.saturating_sub(4));
            let mut lines = vec![
                Line::styled("Keys (remap them under [keys] in the config file)", t.dim),
                Line::default(),
            ];
            let mut last = None;
            for row in app.keymap.help_rows() {
                if last != Some(row.context) {
                    lines.push(Line::styled(row.context.title().to_string(), t.title));
                    last = Some(row.context);
                }
                lines.push(Line::from(vec![
                    Span::styled(format!("  {:<18}", row.keys.join(", ")), t.accent),
                    Span::styled(format!("{:<18}", row.name), t.text),
                    Span::styled(row.description.to_string(), t.dim),
                ]));
            }
            lines.push(Line::default());
            lines.push(Line::styled("Remote text is shown after ▍ in its own style, labelled with agent, task and field.", t.remote_label));
            lines.push(Line::styled(
                "⚠ marks text that looks like prompt injection, spoofing or hidden characters.",
                t.flag,
            ));
            if let Some(p) = &app.log_path {
                lines.push(Line::styled(format!("Log file: {p}"), t.dim));
            }
            if let Some(p) = &app.config_path {
                lines.push(Line::styled(format!("Config file: {}", p.display()), t.dim));
            }
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(lines)
                    .block(boxed(app, "Help · Esc closes"))
                    .scroll((*scroll as u16, 0)),
                r,
            );
        }
        Overlay::Palette { query, selected } => {
            let r = centered(area, 70, 16);
            let matches = palette_matches(query);
            let mut lines = vec![Line::from(vec![
                Span::styled("> ", t.accent),
                Span::styled(query.clone(), t.text),
                Span::styled("▏", t.accent),
            ])];
            let visible = r.height.saturating_sub(4) as usize;
            let offset = selected.saturating_sub(visible.saturating_sub(1));
            for (i, a) in matches.iter().enumerate().skip(offset).take(visible) {
                let keys = app.keymap.keys_for(*a).join(", ");
                let style = if i == *selected { t.selection } else { t.text };
                lines.push(Line::from(vec![
                    Span::styled(format!(" {:<22}", a.name()), style),
                    Span::styled(format!("{:<14}", keys), t.accent),
                    Span::styled(a.description().to_string(), t.dim),
                ]));
            }
            if matches.is_empty() {
                lines.push(Line::styled(" no action matches", t.dim));
            }
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(lines)
                    .block(boxed(app, "Command palette · Enter runs · Esc closes")),
                r,
            );
        }
        Overlay::ConfirmCancel { tab } => {
            let r = centered(area, 60, 5);
            let what = app
                .tab(*tab)
                .and_then(|t| t.short_task())
                .unwrap_or_default();
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(vec![
                    Line::styled(format!("Cancel task {what}?"), t.warning),
                    Line::styled(
                        "y / Enter: cancel it · any other key: keep it running",
                        t.dim,
                    ),
                ])
                .block(boxed(app, "Confirm"))
                .wrap(Wrap { trim: true }),
                r,
            );
        }
        Overlay::Approval { tab } => approval(f, app, *tab, area),
        Overlay::DeviceCode {
            tab,
            user_code,
            verification_uri,
        } => {
            let r = centered(area, 80, 10);
            let agent = app
                .tab(*tab)
                .map(|x| x.agent_name.clone())
                .unwrap_or_default();
            let lines = vec![
                Line::styled(
                    format!(
                        "Signing in to approve the request of {agent} (OAuth 2.0 device flow)."
                    ),
                    t.text,
                ),
                Line::default(),
                Line::from(vec![
                    Span::styled("  open   ", t.dim),
                    // The address comes from the agent's card: behind the bar, like all remote text.
                    Span::styled(super::wrap::BAR, t.remote_label),
                    Span::styled(verification_uri.clone(), t.accent),
                ]),
                Line::from(vec![
                    Span::styled("  enter  ", t.dim),
                    Span::styled(user_code.clone(), t.title),
                ]),
                Line::default(),
                Line::styled(
                    "Waiting for the authorization server… the token is used for this one request only.",
                    t.dim,
                ),
                Line::styled(
                    "Esc stops waiting (the task keeps waiting for authorization).",
                    t.dim,
                ),
            ];
            let lines = super::wrap::wrap_all(lines, r.width.saturating_sub(2) as usize);
            f.render_widget(Clear, r);
            f.render_widget(Paragraph::new(lines).block(boxed(app, "Sign in")), r);
        }
        Overlay::Audit { lines, scroll } => {
            let r = centered(
                area,
                area.width.saturating_sub(4),
                area.height.saturating_sub(4),
            );
            let visible = r.height.saturating_sub(2) as usize;
            let start = scroll.saturating_sub(visible.saturating_sub(1));
            let shown: Vec<Line> = if lines.is_empty() {
                vec![Line::styled("The audit log is empty.", t.dim)]
            } else {
                lines
                    .iter()
                    .skip(start)
                    .take(visible)
                    .map(|l| Line::styled(l.clone(), t.text))
                    .collect()
            };
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(shown).block(boxed(
                    app,
                    &format!(
                        "Audit log · {} entries · Esc closes · also `a2a-console audit`",
                        lines.len()
                    ),
                )),
                r,
            );
        }
        Overlay::ConfirmRemoveAgent { agent } => {
            let r = centered(area, 64, 5);
            let name = app.agent(*agent).map(|a| a.name()).unwrap_or_default();
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(vec![
                    Line::styled(format!("Remove agent {name} (and its tabs) from the console and the config file?"), t.warning),
                    Line::styled("y / Enter: remove · any other key: keep", t.dim),
                ])
                .block(boxed(app, "Confirm"))
                .wrap(Wrap { trim: true }),
                r,
            );
        }
        Overlay::ConfirmDelete { tab } => {
            let r = centered(area, 64, 5);
            let what = app
                .tab(*tab)
                .and_then(|t| t.task_id_shown().map(str::to_string))
                .unwrap_or_else(|| "this tab".into());
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(vec![
                    Line::styled(
                        format!("Delete task {what} from the local store and close its tab? The agent keeps it."),
                        t.warning,
                    ),
                    Line::styled("y / Enter: delete · any other key: keep", t.dim),
                ])
                .block(boxed(app, "Confirm"))
                .wrap(Wrap { trim: true }),
                r,
            );
        }
        Overlay::SavePicker { tab, selected } => super::save::picker(f, app, *tab, *selected, area),
        Overlay::SaveTarget(s) => super::save::target(f, app, s, area),
        Overlay::ConfirmOverwrite { target, existing } => {
            super::save::overwrite(f, app, target, existing, area)
        }
        Overlay::Prompt { kind, input } => {
            let r = centered(area, 70, 3);
            let mut input = (**input).clone();
            input.set_block(boxed(
                app,
                &format!("{} · Enter accepts · Esc cancels", kind.title()),
            ));
            f.render_widget(Clear, r);
            f.render_widget(&input, r);
        }
    }
}

/// The auth-required approval: who asks, what they said (untrusted), what the card declares, and exactly what
/// the console would send. Nothing is sent until the user picks.
fn approval(f: &mut Frame, app: &App, tab: crate::app::task::TabId, area: Rect) {
    let t = &app.theme;
    let Some(tb) = app.tab(tab) else {
        return;
    };
    let agent = app.agent(tb.agent);
    let mut lines = vec![
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
        Line::styled(
            "The agent says (remote text — the request itself proves nothing):",
            t.warning,
        ),
    ];
    match tb.log.status_message.as_ref() {
        Some(m) => {
            let text = crate::trust::sanitize::Untrusted::new(
                &crate::remote::message::parts_text(&m.parts),
                crate::trust::sanitize::Provenance {
                    agent: tb.agent_name.as_str().into(),
                    task: tb.task_id_shown().map(Into::into),
                    field: "auth-required status message".into(),
                },
            );
            lines.extend(super::remote::block(t, &text));
        }
        None => lines.push(Line::styled("  (no message)", t.dim)),
    }
    lines.push(Line::default());
    lines.push(Line::styled("Security the card declares:", t.title));
    let card = agent.and_then(|a| a.info()).map(|i| &i.card.card);
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
    lines.push(Line::default());
    let url = agent
        .and_then(|a| a.info())
        .map(|i| line(&i.selected.interface.url))
        .unwrap_or_default();
    let configured = agent.and_then(|a| a.target.auth.as_ref()).map(|a| {
        let source = match (&a.token_env, &a.token_cmd) {
            (Some(v), _) => format!("environment variable {v}"),
            (_, Some(_)) => "the configured token_cmd".into(),
            _ => "—".into(),
        };
        format!("{:?} credential from {source}", a.kind)
    });
    lines.push(Line::styled("What the console would send:", t.title));
    lines.push(Line::styled(
        format!("  one follow-up message on this task to {url}, with the credential you choose on that request only"),
        t.text,
    ));
    lines.push(Line::default());
    match &configured {
        Some(c) => lines.push(Line::from(vec![
            Span::styled("  a ", t.accent),
            Span::styled(format!("approve with the {c}"), t.text),
        ])),
        None => lines.push(Line::styled(
            "  a  (no credential configured for this agent)",
            t.dim,
        )),
    }
    let device_flow = card.is_some_and(|c| {
        crate::remote::oauth::flows_in_card(c)
            .iter()
            .any(|(_, k, _)| matches!(k, crate::remote::oauth::FlowKind::DeviceCode { .. }))
    });
    if device_flow {
        lines.push(Line::from(vec![
            Span::styled("  o ", t.accent),
            Span::styled("sign in with the OAuth 2.0 device flow the card declares, then approve with that token", t.text),
        ]));
    }
    lines.push(Line::from(vec![
        Span::styled("  p ", t.accent),
        Span::styled(
            "approve with a token you paste (masked, never logged)",
            t.text,
        ),
    ]));
    lines.push(Line::from(vec![
        Span::styled("  d ", t.accent),
        Span::styled("deny: cancel the task", t.text),
    ]));
    lines.push(Line::from(vec![
        Span::styled("  l ", t.accent),
        Span::styled("later: leave it waiting (A reopens this)", t.text),
    ]));
    lines.push(Line::styled(
        "Every decision is written to the audit log with the task and context ids.",
        t.dim,
    ));
    // Size the box to what the wrapped text needs, so the choices at the bottom are never cut off. Wrapped
    // here, not by the paragraph, so every row of the agent's message keeps its bar.
    let w = area.width.saturating_sub(4).min(110);
    let inner = w.saturating_sub(2).max(1) as usize;
    let lines = super::wrap::wrap_all(lines, inner);
    let h = (lines.len() as u16 + 2).min(area.height.saturating_sub(2));
    let r = centered(area, w, h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(boxed(app, "Authorization requested · auth-required")),
        r,
    );
}
