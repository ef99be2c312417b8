//! The agent list: name (cut in the middle, keeping what sets it apart from the others), reachability (loading / online / card only with the reason / error with reason),
//! binding and protocol in use, card version, and the signature verdict's place.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::app::agent::Reachability;
use crate::app::names::ellipsize;
use crate::app::state::{App, Focus};
use crate::config::keymap::actions::Action;
use crate::trust::sanitize::sanitize_line;

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let focused = app.focus == Focus::Agents;
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(" Agents ", t.title))
        .border_style(if focused { t.border_focus } else { t.border });
    let inner_w = area.width.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    if app.agents.is_empty() {
        // The first start: say how to get something to talk to, with the keys as the user has them bound.
        let keys = |a: Action| app.keymap.keys_for(a).first().cloned();
        // Short lines: the list is 20 columns wide on a small terminal.
        lines.push(Line::styled("No agent configured.", t.dim));
        if let Some(k) = keys(Action::AddDemo) {
            lines.push(Line::styled(format!("{k}  demo agent"), t.key_hint));
        }
        if let Some(k) = keys(Action::AddAgent) {
            lines.push(Line::styled(format!("{k}  add by URL"), t.key_hint));
        }
        lines.push(Line::styled("(or run --demo)", t.dim));
    }
    // Every name, so each one is cut where it keeps what sets it apart from the others.
    let names: Vec<String> = app.agents.iter().map(|a| a.name()).collect();
    let others: Vec<&str> = names.iter().map(String::as_str).collect();
    for (i, a) in app.agents.iter().enumerate() {
        let selected = i == app.selected_agent;
        let (dot, dot_style, detail, third) = match &a.state {
            Reachability::Loading => ("…", t.connecting, "loading card".to_string(), String::new()),
            Reachability::Online(info) => match (info.selected(), info.card_only()) {
                (Some(sel), _) => (
                    "●",
                    t.ok,
                    format!(
                        "{} {} · card {}",
                        sel.binding.wire_name(),
                        spoken(sel),
                        info.version
                    ),
                    signature_badge(&info.card).0.to_string(),
                ),
                // The card loaded but nothing can be called: say so where the user looks first, and why.
                (None, card_only) => (
                    "◌",
                    t.warning,
                    format!("card only · card {}", info.version),
                    card_only
                        .map(|(short, _)| short.to_string())
                        .unwrap_or_default(),
                ),
            },
            Reachability::Error(e) => ("✗", t.error, format!("error: {e}"), String::new()),
        };
        let name = crate::app::names::shorten(
            others.get(i).copied().unwrap_or_default(),
            &others,
            inner_w.saturating_sub(2),
        );
        let name_style = if selected { t.selection } else { t.text };
        lines.push(Line::from(vec![
            Span::styled(format!("{dot} "), dot_style),
            Span::styled(name, name_style),
        ]));
        // Another agent's name looks like this one's: say where each of them really is.
        if let Some(origin) = app.lookalike_origin(a.id) {
            // The origin first: a narrow list cuts the words, never where the agent is.
            let note = ellipsize(
                &format!("≈ {origin} · look-alike name"),
                inner_w.saturating_sub(2),
            );
            lines.push(Line::from(vec![
                Span::raw("  "),
                Span::styled(note, t.flag),
            ]));
        }
        let detail = ellipsize(&detail, inner_w.saturating_sub(2));
        let card_only = a.info().is_some_and(|i| i.selected().is_none());
        let detail_style = if matches!(a.state, Reachability::Error(_)) {
            t.error
        } else if card_only {
            t.warning
        } else {
            t.dim
        };
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(detail, detail_style),
        ]));
        // Where this agent's credential goes: the origin the user configured, never one a card chose.
        if let Some(dest) = a.credential_destination() {
            let dest = ellipsize(&format!("key {dest}"), inner_w.saturating_sub(2));
            lines.push(Line::from(vec![Span::raw("  "), Span::styled(dest, t.dim)]));
        }
        if let Some(need) = a.mtls_missing() {
            let need = ellipsize(need, inner_w.saturating_sub(2));
            lines.push(Line::from(vec![
                Span::raw("  "),
                Span::styled(need, t.warning),
            ]));
        }
        // The card changed since it was seen before: how much, and whether it breaks a client.
        if let Some(c) = &a.card_changes {
            let style = if c.breaking() > 0 { t.error } else { t.warning };
            lines.push(Line::from(vec![
                Span::raw("  "),
                Span::styled(ellipsize(&c.line(), inner_w.saturating_sub(2)), style),
            ]));
        }
        // The last check's verdict (`C`), or its progress while it runs.
        if let Some(verdict) = a.check.line() {
            let style = match &a.check {
                crate::app::agent::CheckState::Done {
                    must_failed: true, ..
                } => t.error,
                crate::app::agent::CheckState::Done { .. } => t.ok,
                _ => t.connecting,
            };
            lines.push(badge_line(&verdict, style, inner_w));
        }
        // The last suite run on it from the console (`U`), or its progress while it runs.
        if let Some(line) = a.suite.line() {
            let style = match &a.suite {
                crate::app::agent::SuiteState::Done(page) if page.must_failed => t.error,
                crate::app::agent::SuiteState::Done(_) => t.ok,
                _ => t.connecting,
            };
            lines.push(badge_line(&line, style, inner_w));
        }
        // The third line is the signature badge for a usable agent, the card-only reason otherwise.
        let third_style = match a.info() {
            Some(i) if i.selected().is_some() => signature_badge_style(app, &i.card),
            _ => t.dim,
        };
        let third = ellipsize(&third, inner_w.saturating_sub(2));
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(third, third_style),
        ]));
    }
    f.render_widget(Paragraph::new(lines).block(block), area);
}

/// The signature badge of a card and the state it stands for (`None`: signed, not judged yet).
pub(super) fn signature_badge(
    fc: &crate::remote::card::FetchedCard,
) -> (
    &'static str,
    Option<crate::remote::signature::SignatureState>,
) {
    let signed = fc.card.signatures.as_ref().is_some_and(|s| !s.is_empty());
    crate::remote::signature::badge_of(fc.signature.as_ref(), signed)
}

/// The badge's colour: green only for verified, red for invalid (a key change included), warning for a
/// valid signature by a key not pinned, dim for unsigned or not judged.
pub(super) fn signature_badge_style(app: &App, fc: &crate::remote::card::FetchedCard) -> Style {
    use crate::remote::signature::SignatureState as S;
    let t = &app.theme;
    match signature_badge(fc).1 {
        Some(S::Verified) => t.ok,
        Some(S::ValidUnpinned) => t.warning,
        Some(S::Invalid) => t.error,
        Some(S::Unsigned) | None => t.dim,
    }
}

/// The protocol in use, with the card's own version when it is spoken as another (0.2.9 spoken as 0.3).
fn spoken(sel: &crate::remote::connect::Selected) -> String {
    let card = sanitize_line(&sel.interface.protocol_version).0;
    let label = sel.protocol.label();
    match crate::config::protocol::major_minor(&card) {
        Some((maj, min)) if format!("{maj}.{min}") != label => format!("{card}→{label}"),
        _ => label.to_string(),
    }
}

/// An indented line under an agent's name (its check or suite verdict), cut to the list's width.
fn badge_line(text: &str, style: Style, inner_w: usize) -> Line<'static> {
    Line::from(vec![
        Span::raw("  "),
        Span::styled(ellipsize(text, inner_w.saturating_sub(2)), style),
    ])
}
