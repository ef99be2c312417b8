//! Modals: help (generated from the key table), the command palette, confirmations and one-line prompts.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

use crate::app::help::{self, HelpLine, Note};
use crate::app::scroll::viewer_area;
use crate::app::state::{App, Overlay};
use crate::config::keymap::{Action, palette_matches};

/// The most rows the agent's own message takes in the approval dialog (it scrolls inside them).
const APPROVAL_MESSAGE_ROWS: u16 = crate::app::update::APPROVAL_PAGE;

/// A box of `w` × `h` in the middle of `area` (shrunk to fit). Shared by every modal.
pub(super) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width.saturating_sub(2));
    let h = h.min(area.height.saturating_sub(2));
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// A modal's frame: focused border, title in the theme's title style.
/// A dialog that can decide something says on its lower edge that it ignores the keys typed as it opened,
/// and afterwards how many it ignored.
pub(super) fn boxed<'a>(app: &App, title: &str) -> Block<'a> {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(format!(" {title} "), app.theme.title))
        .border_style(app.theme.border_focus);
    match app.key_guard_footer() {
        Some(note) => block.title_bottom(Span::styled(format!(" {note} "), app.theme.warning)),
        None => block,
    }
}

/// An action's keys as the dialogs name them (`y / Y / Enter`), or `fallback` when the user unbound it.
pub(super) fn keys_or(app: &App, a: Action, fallback: &str) -> String {
    let keys = app.keymap.keys_for(a);
    if keys.is_empty() {
        format!("({fallback} unbound)")
    } else {
        keys.join(" / ")
    }
}

/// A choice's key in a dialog's list (`a`; `a/x` when remapped to several).
fn choice(app: &App, a: Action) -> String {
    let keys = app.keymap.keys_for(a);
    if keys.is_empty() {
        "—".into()
    } else {
        keys.join("/")
    }
}

/// ` · rows 11–40 of 120` when the text does not fit, else nothing.
fn position(start: usize, visible: usize, total: usize) -> String {
    if total <= visible {
        return String::new();
    }
    format!(
        " · rows {}–{} of {total}",
        start + 1,
        (start + visible).min(total)
    )
}

/// The help screen: the whole terminal but a margin, the page laid out at its width (see `app::help`).
fn help(f: &mut Frame, app: &App, scroll: usize, area: Rect) {
    let t = &app.theme;
    let r = viewer_area(area);
    let inner_w = r.width.saturating_sub(2) as usize;
    let visible = r.height.saturating_sub(2) as usize;
    let page = help::page(app, inner_w);
    let total = page.lines.len();
    let start = scroll.min(total.saturating_sub(visible));
    let lines: Vec<Line> = page
        .lines
        .iter()
        .skip(start)
        .take(visible)
        .map(|l| match l {
            HelpLine::Heading { title, scope } => Line::from(vec![
                Span::styled(title.to_string(), t.title),
                Span::styled(scope.clone(), t.dim),
            ]),
            HelpLine::Row { keys, name, text } => Line::from(vec![
                Span::raw("  "),
                Span::styled(keys.clone(), t.key_hint),
                Span::raw("  "),
                Span::styled(
                    if name.is_empty() {
                        String::new()
                    } else {
                        format!("{name}  ")
                    },
                    t.dim,
                ),
                Span::styled(text.clone(), t.text),
            ]),
            HelpLine::Blank => Line::default(),
            HelpLine::Note(text, kind) => Line::styled(
                text.clone(),
                match kind {
                    Note::Plain => t.dim,
                    Note::Remote => t.remote_label,
                    Note::Flag => t.flag,
                },
            ),
        })
        .collect();
    let title = format!(
        "Help{} · {} or Esc closes",
        position(start, visible, total),
        keys_or(app, Action::CloseViewer, "q")
    );
    // The whole body, margin included: a margin left as it was shows pieces of the panes' borders beside
    // the box.
    f.render_widget(Clear, area);
    let title = super::wrap::fit_words(&title, r.width.saturating_sub(4) as usize);
    f.render_widget(Paragraph::new(lines).block(boxed(app, &title)), r);
}

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let Some(overlay) = &app.overlay else {
        return;
    };
    let t = &app.theme;
    match overlay {
        Overlay::Help { scroll } => help(f, app, *scroll, area),
        Overlay::Palette { query, selected } => {
            let matches = palette_matches(query);
            // As wide as the longest description needs (a 160-column terminal shows them whole), at least 70.
            let longest = matches
                .iter()
                .map(|a| unicode_width::UnicodeWidthStr::width(a.description()))
                .max()
                .unwrap_or(0);
            let want = u16::try_from(1 + 22 + 14 + longest + 2).unwrap_or(u16::MAX);
            let r = centered(area, want.max(70), 16);
            let room = (r.width.saturating_sub(2) as usize).saturating_sub(1 + 22 + 14);
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
                    Span::styled(super::wrap::fit_words(a.description(), room), t.dim),
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
                        format!(
                            "{}: cancel it · any other key: keep it running",
                            keys_or(app, Action::Confirm, "y")
                        ),
                        t.dim,
                    ),
                ])
                .block(boxed(app, "Confirm"))
                .wrap(Wrap { trim: true }),
                r,
            );
        }
        Overlay::Approval { tab, scroll } => approval(f, app, *tab, *scroll, area),
        Overlay::CodeFlow { owner } => super::sign_in::draw(f, app, *owner, area),
        Overlay::DeviceCode {
            tab,
            user_code,
            verification_uri,
            since,
        } => {
            let agent = app
                .tab(*tab)
                .map(|x| x.agent_name.clone())
                .unwrap_or_default();
            // The URL and the code come from the authorization server the card names: remote data, shown
            // as such, with a warning when it is not on the card's own origin.
            let card_origin = app
                .tab(*tab)
                .and_then(|x| app.agent(x.agent))
                .and_then(|a| a.info())
                .and_then(|i| crate::remote::auth::origin::Origin::of_url(&i.card.url));
            let uri = crate::trust::sanitize::sanitize_line(verification_uri).0;
            let code = crate::trust::sanitize::sanitize_line(user_code).0;
            let uri_origin = crate::remote::auth::origin::Origin::of(&uri);
            let mut lines = vec![
                Line::styled(
                    format!(
                        "Signing in to approve the request of {agent} (OAuth 2.0 device flow)."
                    ),
                    t.text,
                ),
                Line::default(),
                Line::styled(
                    "▍remote · from the authorization server the agent's card names — check the address before you sign in",
                    t.remote_label,
                ),
            ];
            // Wrapped before the box is sized: a long address takes several rows, each under the address.
            let inner = centered(area, 96, 1).width.saturating_sub(2) as usize;
            for (label, value) in [("▍ open   ", uri.clone()), ("▍ enter  ", code)] {
                lines.extend(super::wrap::wrap_hanging(
                    Line::from(vec![
                        Span::styled(label, t.remote_label),
                        Span::styled(value, t.remote_text),
                    ]),
                    inner,
                    label.width(),
                ));
            }
            if let (Some(u), Some(c)) = (&uri_origin, &card_origin)
                && u != c
            {
                lines.push(Line::styled(
                    format!("⚠ this page is on {u}, another origin than the agent's card ({c})"),
                    t.warning,
                ));
            }
            lines.extend([
                Line::default(),
                Line::styled(
                    format!(
                        "{} Waiting for the authorization server{}… the token is used for this one request only.",
                        crate::app::layout::spinner(app),
                        crate::app::layout::clock_since(app, *since)
                    ),
                    t.text,
                ),
                Line::styled(
                    format!(
                        "{} copies the address · Esc stops waiting (the task keeps waiting for authorization).",
                        keys_or(app, Action::CopySignInUrl, "y")
                    ),
                    t.dim,
                ),
            ]);
            let lines = super::wrap::wrap_all(lines, inner);
            let r = centered(area, 96, u16::try_from(lines.len()).unwrap_or(8) + 2);
            f.render_widget(Clear, r);
            f.render_widget(Paragraph::new(lines).block(boxed(app, "Sign in")), r);
        }
        Overlay::RawJson {
            title,
            lines,
            scroll,
        } => super::raw_json::draw(f, app, area, title, lines, *scroll),
        Overlay::Audit {
            rows,
            scroll,
            selected,
        } => {
            let r = viewer_area(area);
            let visible = r.height.saturating_sub(2) as usize;
            let width = r.width.saturating_sub(2) as usize;
            // `scroll` is the first row shown; never past the last page.
            let start = (*scroll).min(rows.len().saturating_sub(visible));
            // One screen row per entry, cut after a whole word with `…`: Enter opens it whole.
            let shown: Vec<Line> = if rows.is_empty() {
                vec![Line::styled("The audit log is empty.", t.dim)]
            } else {
                rows.iter()
                    .enumerate()
                    .skip(start)
                    .take(visible)
                    .map(|(i, l)| {
                        let style = if *selected == Some(i) {
                            t.selection
                        } else {
                            t.text
                        };
                        Line::styled(super::wrap::fit_words(&l.line, width), style)
                    })
                    .collect()
            };
            let close = keys_or(app, Action::CloseViewer, "q");
            f.render_widget(Clear, area);
            f.render_widget(
                Paragraph::new(shown).block(boxed(
                    app,
                    &super::wrap::fit_words(
                        &format!(
                            "Audit log · {} rows{} · , . select · Enter opens · {close} or Esc closes · also `a2a-console audit`",
                            rows.len(),
                            position(start, visible, rows.len()),
                        ),
                        r.width.saturating_sub(4) as usize,
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
                    Line::styled(
                        format!("{}: remove · any other key: keep", keys_or(app, Action::Confirm, "y")),
                        t.dim,
                    ),
                ])
                .block(boxed(app, "Confirm"))
                .wrap(Wrap { trim: true }),
                r,
            );
        }
        Overlay::ConfirmPinKey {
            agent,
            thumbprint,
            kid,
            alg,
        } => {
            let r = centered(area, 72, 9);
            let name = app.agent(*agent).map(|a| a.name()).unwrap_or_default();
            let kid = kid
                .as_deref()
                .map(|k| format!(" · kid {}", crate::trust::sanitize::sanitize_line(k).0))
                .unwrap_or_default();
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(vec![
                    Line::styled(format!("Pin the key that signed {name}'s card?"), t.warning),
                    Line::styled(format!("sha256:{thumbprint}"), t.text),
                    Line::styled(format!("{alg}{kid}"), t.dim),
                    Line::styled(
                        "Compare the thumbprint with one the publisher gave you. Once pinned, a card signed by another key is an alarm.",
                        t.dim,
                    ),
                    Line::styled(
                        format!("{}: pin (written to the config file) · any other key: keep as is", keys_or(app, Action::Confirm, "y")),
                        t.dim,
                    ),
                ])
                .block(boxed(app, "Trust this key"))
                .wrap(Wrap { trim: true }),
                r,
            );
        }
        Overlay::ConfirmOrigin {
            agent,
            origin,
            home,
        } => {
            let r = centered(area, 84, 11);
            let name = app.agent(*agent).map(|a| a.name()).unwrap_or_default();
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(vec![
                    Line::styled(
                        format!("Call {name} on another origin than its card's?"),
                        t.warning,
                    ),
                    Line::from(vec![
                        Span::styled("  card, as you configured it  ", t.dim),
                        Span::styled(home.clone(), t.text),
                    ]),
                    Line::from(vec![
                        Span::styled("▍remote · where the card says to call  ", t.remote_label),
                        Span::styled(origin.clone(), t.remote_text),
                    ]),
                    Line::styled(
                        "The card chose this address, not you. Its calls, and any credential or header configured for the agent, would go there.",
                        t.dim,
                    ),
                    Line::styled(
                        format!(
                            "{}: use it for this session · any other key: keep the agent card only",
                            keys_or(app, Action::Confirm, "y")
                        ),
                        t.dim,
                    ),
                ])
                .block(boxed(app, "Another origin"))
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
                    Line::styled(
                        format!("{}: delete · any other key: keep", keys_or(app, Action::Confirm, "y")),
                        t.dim,
                    ),
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
            let title = format!("{} · Enter accepts · Esc cancels", kind.title());
            // Wide enough for the whole title (it says what Enter and an empty answer do), within the screen.
            let want = u16::try_from(unicode_width::UnicodeWidthStr::width(title.as_str()) + 4)
                .unwrap_or(u16::MAX)
                .max(70);
            let r = centered(area, want, 3);
            let mut input = (**input).clone();
            super::theme_input(&mut input, &app.theme);
            input.set_block(boxed(app, &title));
            f.render_widget(Clear, r);
            f.render_widget(&input, r);
        }
    }
}

/// The agent's own message in the approval dialog, as remote text.
fn approval_message(app: &App, tb: &crate::app::task::TaskTab) -> Vec<Line<'static>> {
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
pub fn approval_extent(app: &App, area: Rect) -> Option<crate::app::scroll::Extent> {
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

/// The auth-required approval: who asks, what they said (untrusted), what the card declares, and exactly what
/// the console would send. Nothing is sent until the user picks.
///
/// The layout is pinned so the remote message cannot spoof it: the header, the destination, the credential and
/// the choices each have their own rows; the agent's message gets a box of at most [`APPROVAL_MESSAGE_ROWS`]
/// rows that scrolls (j/k, PgUp/PgDn) and is labelled remote, and the card's declarations fill what is left.
fn approval(f: &mut Frame, app: &App, tab: crate::app::ids::TabId, scroll: u16, area: Rect) {
    let t = &app.theme;
    let Some(tb) = app.tab(tab) else {
        return;
    };
    let agent = app.agent(tb.agent);
    let header = vec![
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
    ];
    let message = approval_message(app, tb);
    let mut lines = Vec::new();
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
    let url = agent
        .and_then(|a| a.info())
        .and_then(|i| i.selected())
        .map(|s| line(&s.interface.url))
        .unwrap_or_default();
    let there = crate::remote::auth::origin::Origin::of(&url);
    let home = agent.and_then(|a| crate::remote::auth::origin::Origin::of(&a.target.url));
    let configured = agent.and_then(|a| a.target.auth.as_ref()).map(|a| {
        let source = match (&a.token_env, &a.token_cmd) {
            (Some(v), _) => format!("environment variable {v}"),
            (_, Some(_)) => "the configured token_cmd".into(),
            _ => "—".into(),
        };
        format!("{} credential from {source}", a.kind.words())
    });
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
    let inner = approval_inner(area);
    // A choice wraps under its own words, not under its key (the key column stays clear to scan).
    let hang = |l: Line<'static>| {
        let indent = l.spans.first().map_or(0, |s| s.content.width());
        super::wrap::wrap_hanging(l, inner, indent)
    };
    let choices_from = send.len();
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
    let code_flow =
        card.is_some_and(|c| !crate::remote::auth::oauth_code::code_flows_in_card(c).is_empty());
    let device_flow = card.is_some_and(|c| {
        crate::remote::auth::oauth::flows_in_card(c)
            .iter()
            .any(|(_, k, _)| matches!(k, crate::remote::auth::oauth::FlowKind::DeviceCode { .. }))
    });
    if code_flow {
        send.push(Line::from(vec![
            Span::styled(format!("  {} ", choice(app, Action::ApproveDeviceFlow)), t.accent),
            Span::styled(
                format!("sign in in a browser (the authorization code or OpenID Connect flow the card declares), then approve with that token → {origin_text}"),
                t.text,
            ),
        ]));
    } else if device_flow {
        send.push(Line::from(vec![
            Span::styled(format!("  {} ", choice(app, Action::ApproveDeviceFlow)), t.accent),
            Span::styled(
                format!("sign in with the OAuth 2.0 device flow the card declares, then approve with that token → {origin_text}"),
                t.text,
            ),
        ]));
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
    let choices: Vec<Line<'static>> = send.split_off(choices_from);
    send.extend(choices.into_iter().flat_map(hang));
    send.push(Line::styled(
        "Every decision is written to the audit log with the task and context ids.",
        t.dim,
    ));
    // Wrapped here, not by the paragraph, so every row of the agent's message keeps its bar.
    let w = area.width.saturating_sub(4).min(110);
    let wrap = |ls: Vec<Line<'static>>| super::wrap::wrap_all(ls, inner);
    let rows = |ls: &[Line<'_>]| u16::try_from(ls.len()).unwrap_or(u16::MAX);
    let (header, message, send) = (wrap(header), wrap(message), wrap(send));
    let declared = wrap(lines);
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
