//! The code-flow sign-in dialog (authorization code with PKCE, or OpenID Connect): the address to
//! open, where the console waits for the browser, and the keys to paste the redirected address or to
//! stop. The address is built by the console from the card's (or the provider's discovered)
//! authorization endpoint, so its host is remote data: it is shown as such, with a warning when it is
//! not the agent's own origin.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use super::overlay::{boxed, centered, keys_or};
use crate::app::state::{App, SignInFor};
use crate::config::keymap::actions::Action;
use crate::remote::auth::origin::Origin;
use crate::trust::sanitize::sanitize_line;

pub(super) fn draw(f: &mut Frame, app: &App, owner: SignInFor, area: Rect) {
    let t = &app.theme;
    let agent_id = match owner {
        SignInFor::Approval(tab) => app.tab(tab).map(|x| x.agent),
        SignInFor::Agent(a) => Some(a),
    };
    let agent = agent_id
        .and_then(|a| app.agent(a))
        .map(|a| a.name())
        .unwrap_or_default();
    let view = app.code_flow.as_ref().filter(|v| v.owner == owner);
    let flow = match view.map(|v| v.flow) {
        Some("openid_connect") => "OpenID Connect, authorization code with PKCE",
        _ => "OAuth 2.0 authorization code with PKCE",
    };
    let mut lines = vec![
        Line::styled(
            match owner {
                SignInFor::Approval(_) => {
                    format!("Signing in to approve the request of {agent} ({flow}).")
                }
                SignInFor::Agent(_) => {
                    format!("Signing in to {agent} ({flow}): its later calls carry the token.")
                }
            },
            t.text,
        ),
        Line::default(),
    ];
    // Wrapped before the box is sized (a long address takes several rows, each under the address).
    let inner = centered(area, 96, 1).width.saturating_sub(2) as usize;
    let waited = view
        .map(|v| {
            format!(
                "{}{}",
                crate::app::layout::spinner(app),
                crate::app::layout::clock_since(app, v.since)
            )
        })
        .unwrap_or_default();
    match view.and_then(|v| v.url.as_deref().zip(v.port)) {
        None => lines.push(Line::styled(
            format!("Asking the provider where to sign in… {waited}"),
            t.text,
        )),
        Some((url, port)) => {
            let url = sanitize_line(url).0;
            lines.push(Line::styled(
                "▍remote · the sign-in page of the provider the agent's card names — check the address",
                t.remote_label,
            ));
            let label = "▍ open   ";
            lines.extend(super::wrap::wrap_hanging(
                Line::from(vec![
                    Span::styled(label, t.remote_label),
                    Span::styled(url.clone(), t.remote_text),
                ]),
                inner,
                label.width(),
            ));
            let card_origin = agent_id
                .and_then(|a| app.agent(a))
                .and_then(|a| a.info())
                .and_then(|i| Origin::of_url(&i.card.url));
            if let (Some(u), Some(c)) = (Origin::of(&url), card_origin)
                && u != c
            {
                lines.push(Line::styled(
                    format!("  the page is on {u}, not on the agent's origin ({c})"),
                    t.dim,
                ));
            }
            lines.push(Line::default());
            lines.push(Line::styled(
                format!("Waiting for the browser on 127.0.0.1:{port}… {waited}"),
                t.text,
            ));
        }
    }
    lines.extend([
        Line::default(),
        Line::styled(
            format!(
                "{} copies the address · {} pastes the address the browser was sent to (a browser on another machine) · Esc stops{}",
                keys_or(app, Action::CopySignInUrl, "y"),
                keys_or(app, Action::PasteRedirect, "p"),
                match owner {
                    SignInFor::Approval(_) => " (the task keeps waiting)",
                    SignInFor::Agent(_) => "",
                }
            ),
            t.dim,
        ),
    ]);
    // Wrapped first, so the box is as tall as what it holds.
    let lines = super::wrap::wrap_all(lines, inner);
    let r = centered(area, 96, u16::try_from(lines.len()).unwrap_or(8) + 2);
    f.render_widget(Clear, r);
    f.render_widget(Paragraph::new(lines).block(boxed(app, "Sign in")), r);
}
