//! OAuth sign-ins run in the background: the device flow, the authorization code flow (its redirect listener
//! and the address the user may paste instead), and stopping either.

use crate::app::ids::TabId;
use crate::app::msg::Msg;
use crate::app::state::SignInFor;
use crate::tui::runtime::Runtime;

impl Runtime {
    pub(super) fn device_flow(
        &mut self,
        tab: TabId,
        device_url: String,
        token_url: String,
        client_id: String,
        scopes: Vec<String>,
        timeout: std::time::Duration,
    ) {
        let tx = self.tx.clone();
        let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
        self.oauth_cancels
            .insert(SignInFor::Approval(tab), cancel_tx);
        tokio::spawn(async move {
            let http = match crate::remote::auth::oauth::http_client_within(timeout) {
                Ok(h) => h,
                Err(e) => {
                    let _ = tx.send(Msg::DeviceCode {
                        tab,
                        result: Err(e.to_string()),
                    });
                    return;
                }
            };
            let auth = match crate::remote::auth::oauth::start_device_flow(
                &http,
                &device_url,
                &client_id,
                &scopes,
            )
            .await
            {
                Ok(a) => a,
                Err(e) => {
                    let _ = tx.send(Msg::DeviceCode {
                        tab,
                        result: Err(e.within(timeout)),
                    });
                    return;
                }
            };
            let shown = auth
                .verification_uri_complete
                .clone()
                .unwrap_or_else(|| auth.verification_uri.clone());
            let _ = tx.send(Msg::DeviceCode {
                tab,
                result: Ok((auth.user_code.clone(), shown)),
            });
            let result = crate::remote::auth::oauth::poll_device_token(
                &http, &token_url, &client_id, &auth, cancel_rx,
            )
            .await
            .map_err(|e| e.within(timeout))
            .and_then(|t| match t.bearer() {
                Ok(crate::remote::auth::Credential::Bearer(s)) => Ok(s),
                Ok(_) => Err("the token is not a bearer token".to_string()),
                Err(e) => Err(e.to_string()),
            });
            let _ = tx.send(Msg::OAuthDone {
                owner: SignInFor::Approval(tab),
                result,
                source: "OAuth device-flow token",
            });
        });
    }

    pub(super) fn code_flow(
        &mut self,
        owner: SignInFor,
        plan: Box<crate::remote::auth::sign_in::Plan>,
        auth: Option<Box<crate::config::AuthConfig>>,
        scope: Box<crate::remote::auth::origin::CredentialScope>,
        label: String,
    ) {
        let tx = self.tx.clone();
        let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
        self.oauth_cancels.insert(owner, cancel_tx);
        let (paste_tx, paste_rx) = tokio::sync::mpsc::unbounded_channel();
        self.code_pastes.insert(owner, paste_tx);
        tokio::spawn(async move {
            let result = crate::remote::auth::sign_in::run_code_flow(
                &plan,
                auth.as_deref(),
                &scope,
                &label,
                crate::remote::auth::sign_in::DialogIo {
                    cancel: cancel_rx,
                    pastes: paste_rx,
                    open_browser: crate::remote::auth::sign_in::browser_available(false),
                },
                |url, port| {
                    let _ = tx.send(Msg::CodeFlowStarted {
                        owner,
                        result: Ok((url, port)),
                    });
                },
            )
            .await;
            let _ = tx.send(Msg::OAuthDone {
                owner,
                result,
                source: "OAuth 2.0 sign-in token",
            });
        });
    }

    pub(super) fn code_flow_paste(
        &mut self,
        owner: SignInFor,
        pasted: crate::remote::auth::Secret,
    ) {
        if let Some(s) = self.code_pastes.get(&owner) {
            let _ = s.send(pasted);
        }
    }

    pub(super) fn cancel_oauth(&mut self, owner: SignInFor) {
        if let Some(c) = self.oauth_cancels.remove(&owner) {
            let _ = c.send(true);
        }
        self.code_pastes.remove(&owner);
    }
}
