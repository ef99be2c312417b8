//! Reads from the local store, run on its thread: a restored tab's transcript, the raw events of one moment,
//! the closed tabs, the audit log, and a tab's export to a file. Without a store each answers why not.

use std::path::PathBuf;

use crate::app::ids::TabId;
use crate::app::msg::Msg;
use crate::tui::persist;
use crate::tui::runtime::Runtime;

impl Runtime {
    pub(super) fn load_transcript(&mut self, tab: TabId, key: String) {
        let tx = self.tx.clone();
        // Decoded on the store's thread, handed over in parts so no single update is long.
        self.on_store(
            move |store| persist::load_transcript(store, &key, tab, &tx),
            Msg::TranscriptLoaded {
                tab,
                items: Vec::new(),
                done: true,
            },
        );
    }

    pub(super) fn load_raw_events(&mut self, key: String, at: chrono::DateTime<chrono::Utc>) {
        let tx = self.tx.clone();
        self.on_store(
            move |store| {
                let result = persist::raw_events_at(store, &key, &at);
                let _ = tx.send(Msg::RawEventsLoaded { at, result });
            },
            Msg::RawEventsLoaded {
                at,
                result: Err("the console runs without a local store".into()),
            },
        );
    }

    pub(super) fn load_closed_tabs(&mut self) {
        let tx = self.tx.clone();
        self.on_store(
            move |store| {
                let r = store.closed_tabs(50).map_err(|e| e.to_string());
                let _ = tx.send(Msg::ClosedTabs(r));
            },
            Msg::ClosedTabs(Err(
                "no local store: closed tabs are kept only with one".into()
            )),
        );
    }

    pub(super) fn load_audit(&mut self) {
        let answer = self.tx.clone();
        self.on_store(
            move |store| {
                let _ = answer.send(Msg::AuditLoaded(persist::audit_lines(store, 500)));
            },
            Msg::AuditLoaded(Err(
                "no local store: the audit log is kept only with one".into()
            )),
        );
    }

    pub(super) fn export_tab(
        &mut self,
        tab_key: String,
        agent_url: String,
        agent_name: String,
        path: PathBuf,
    ) {
        let answer = self.tx.clone();
        self.on_store(
            move |store| {
                let r = persist::export_tab(store, &tab_key, &agent_url, &agent_name, &path);
                let _ = answer.send(Msg::Saved(r));
            },
            Msg::Saved(Err("no local store: nothing to export from".into())),
        );
    }
}
