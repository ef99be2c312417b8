//! The device-flow sign-in dialog (OAuth 2.0 device authorization): the address to open and the code to
//! enter, both remote data from the authorization server the card names, and the wait for the token.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use super::overlay::{boxed, centered, keys_or};
use crate::app::ids::TabId;
use crate::app::state::App;
use crate::config::keymap::actions::Action;

pub(super) fn draw(
    f: &mut Frame,
    app: &App,
    tab: TabId,
    user_code: &str,
    verification_uri: &str,
    since: chrono::DateTime<chrono::Utc>,
    area: Rect,
) {
    let t = &app.theme;
    let agent = app
        .tab(tab)
        .map(|x| x.agent_name.clone())
        .unwrap_or_default();
    // The URL and the code come from the authorization server the card names: remote data, shown
    // as such, with a warning when it is not on the card's own origin.
    let card_origin = app
        .tab(tab)
        .and_then(|x| app.agent(x.agent))
        .and_then(|a| a.info())
        .and_then(|i| crate::remote::auth::origin::Origin::of_url(&i.card.url));
    let uri = crate::trust::sanitize::sanitize_line(verification_uri).0;
    let code = crate::trust::sanitize::sanitize_line(user_code).0;
    let uri_origin = crate::remote::auth::origin::Origin::of(&uri);
    let mut lines = vec![
        Line::styled(
            format!("Signing in to approve the request of {agent} (OAuth 2.0 device flow)."),
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
                crate::app::layout::clock_since(app, since)
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
