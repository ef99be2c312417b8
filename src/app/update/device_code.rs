//! The device-flow sign-in dialog: the code and address the server sent, shown as they arrive, and its keys
//! (copy the address, or abandon the sign-in while the task keeps waiting).

use crossterm::event::KeyEvent;

use crate::app::ids::TabId;
use crate::app::msg::Effect;
use crate::app::state::{App, Overlay, SignInFor};
use crate::config::keymap::actions::{Action, Context};

/// The server answered the device authorization request: the code and address replace the placeholders of
/// the tab's dialog, if it is still the one open; a failure closes it.
pub(super) fn code(
    app: &mut App,
    tab: TabId,
    result: Result<(String, String), String>,
) -> Vec<Effect> {
    match result {
        Ok((user_code, verification_uri)) => {
            if let Some(Overlay::DeviceCode { tab: t, since, .. }) = app.overlay
                && t == tab
            {
                app.overlay = Some(Overlay::DeviceCode {
                    tab,
                    user_code,
                    verification_uri,
                    since,
                });
            }
        }
        Err(e) => {
            app.overlay = None;
            if let Some(t) = app.tab_mut(tab) {
                t.note(format!("sign-in failed: {e}"), true);
            }
        }
    }
    vec![]
}

pub(super) fn device_code_key(
    app: &mut App,
    tab: TabId,
    user_code: String,
    verification_uri: String,
    since: chrono::DateTime<chrono::Utc>,
    k: KeyEvent,
) -> Vec<Effect> {
    if app.keymap.bound(Context::Approval, &k) == Some(Action::CopySignInUrl) {
        // "…" and the "asking…" text stand in until the server answers: nothing to copy yet.
        let ready = user_code != "…";
        let fx = super::approval::copy_sign_in_url(app, ready.then(|| verification_uri.clone()));
        app.overlay = Some(Overlay::DeviceCode {
            tab,
            user_code,
            verification_uri,
            since,
        });
        return fx;
    }
    if app.keymap.modal_action(Context::Dialog, false, &k) == Some(Action::Back) {
        if let Some(t) = app.tab_mut(tab) {
            t.note(
                "sign-in abandoned; the task keeps waiting (A to review)",
                false,
            );
        }
        return vec![
            Effect::CancelOAuth {
                owner: SignInFor::Approval(tab),
            },
            Effect::Audit {
                tab,
                line: "decision=later (device-flow sign-in abandoned)".into(),
            },
        ];
    }
    app.overlay = Some(Overlay::DeviceCode {
        tab,
        user_code,
        verification_uri,
        since,
    });
    vec![]
}
