//! `check` from the console: the last report is read on the store's thread while the check runs in the
//! background (its progress goes to the agent list), then the report becomes a page, with what changed since
//! the last one, and goes back to the app, which keeps it (`Record::Check`).

use crate::app::ids::AgentId;
use crate::app::msg::Msg;
use crate::remote::connect::agent::AgentTarget;
use crate::tui::check_page::page;
use crate::tui::runtime::Runtime;

impl Runtime {
    pub(super) fn run_check(&mut self, agent: AgentId, target: Box<AgentTarget>) {
        let (ptx, prx) = tokio::sync::oneshot::channel::<Option<String>>();
        let url = target.url.clone();
        match &self.writer {
            Some(w) => w.run(move |store| {
                let _ = ptx.send(store.last_check(&url).ok().flatten().map(|(_, j)| j));
            }),
            None => {
                let _ = ptx.send(None);
            }
        }
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let progress_tx = tx.clone();
            let progress = move |p: crate::check::Progress| {
                let _ = progress_tx.send(Msg::CheckProgress {
                    agent,
                    sent: p.sent,
                    budget: p.budget,
                });
            };
            let mut notes = Vec::new();
            let result = crate::check::run(
                &target,
                &crate::check::Options::default(),
                &progress,
                &mut notes,
            )
            .await;
            let previous = prx.await.ok().flatten();
            let result = match result {
                Ok(report) => match serde_json::to_string(&report) {
                    Ok(json) => Ok((
                        Box::new(page(&report, previous.as_deref(), &target.label)),
                        target.url.clone(),
                        json,
                    )),
                    Err(e) => Err(format!("cannot encode the report: {e}")),
                },
                Err(e) => Err(e.message),
            };
            let _ = tx.send(Msg::CheckDone { agent, result });
        });
    }
}
