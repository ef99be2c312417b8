//! Running what `update` asks for: each `Effect` becomes a background task (a request, a stream reader, a
//! store read, a file write) that reports back over the message channels. Nothing here blocks the loop. This
//! file holds the one dispatcher and the plumbing the groups share; each group of effects has a file of its own.

mod agents;
mod calls;
mod check;
mod config;
mod local;
mod push;
mod sign_in;
mod store;
mod streams;
mod suite;

use std::sync::Arc;

use super::runtime::Runtime;
use crate::app::ids::AgentId;
use crate::app::msg::{Effect, Msg};
use crate::remote::connect::agent::Connected;

impl Runtime {
    /// Run one request for `agent` in the background; what `f` returns is sent to the app. Nothing happens
    /// when the agent is not connected (its card never loaded).
    fn call<F, Fut>(&self, agent: AgentId, f: F)
    where
        F: FnOnce(Arc<Connected>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Option<Msg>> + Send + 'static,
    {
        let Some(conn) = self.client(agent) else {
            return;
        };
        let tx = self.tx.clone();
        tokio::spawn(async move {
            if let Some(msg) = f(conn).await {
                let _ = tx.send(msg);
            }
        });
    }

    fn client(&self, agent: AgentId) -> Option<Arc<Connected>> {
        self.clients
            .lock()
            .ok()
            .and_then(|m| m.get(&agent).cloned())
    }

    /// Run `f` on the store's thread (it answers over its own channel); without a store, answer `none`.
    fn on_store<F>(&self, f: F, none: Msg)
    where
        F: FnOnce(&crate::store::Store) + Send + 'static,
    {
        match &self.writer {
            Some(w) => w.run(f),
            None => {
                let _ = self.tx.send(none);
            }
        }
    }

    /// Start what an effect asks for; never blocks.
    pub fn run_effect(&mut self, effect: Effect) {
        match effect {
            // Connections to agents.
            Effect::LoadAgent {
                agent,
                target,
                refresh,
            } => self.load_agent(agent, target, refresh),
            Effect::ForgetAgent { agent } => self.forget_agent(agent),
            Effect::RunCheck { agent, target } => self.run_check(agent, target),
            Effect::RunSuite {
                agent,
                target,
                path,
            } => self.run_suite(agent, target, path),
            Effect::StopSuite { agent } => self.stop_suite(agent),
            // Requests to agents.
            Effect::Send {
                tab,
                generation,
                agent,
                message,
                stream,
            } => self.send(tab, generation, agent, message, stream),
            Effect::ImportTasks {
                agent,
                state,
                context,
            } => self.import_tasks(agent, state, context),
            Effect::RefreshTask {
                tab,
                agent,
                task_id,
            } => self.refresh_task(tab, agent, task_id),
            Effect::Cancel {
                tab,
                agent,
                task_id,
            } => self.cancel(tab, agent, task_id),
            Effect::Approve {
                tab,
                generation,
                agent,
                task_id,
                context_id,
                credential,
            } => self.approve(tab, generation, agent, task_id, context_id, credential),
            // A task's events, streamed or polled.
            Effect::Subscribe {
                tab,
                generation,
                agent,
                task_id,
            } => self.subscribe(tab, generation, agent, task_id, 0),
            Effect::Resubscribe {
                tab,
                generation,
                agent,
                task_id,
                delay_ms,
            } => self.subscribe(tab, generation, agent, task_id, delay_ms),
            // Push notification configs.
            Effect::RegisterPush {
                tab,
                agent,
                task_id,
                context_id,
            } => self.register_push(tab, agent, task_id, context_id),
            Effect::ListPush {
                tab,
                agent,
                task_id,
            } => self.list_push(tab, agent, task_id),
            Effect::DeletePush {
                tab,
                agent,
                task_id,
                ids,
            } => self.delete_push(tab, agent, task_id, ids),
            // Sign-ins.
            Effect::DeviceFlow {
                tab,
                device_url,
                token_url,
                client_id,
                scopes,
                timeout,
            } => self.device_flow(tab, device_url, token_url, client_id, scopes, timeout),
            Effect::CodeFlow {
                owner,
                plan,
                auth,
                scope,
                label,
            } => self.code_flow(owner, plan, auth, scope, label),
            Effect::CodeFlowPaste { owner, pasted } => self.code_flow_paste(owner, pasted),
            Effect::CancelOAuth { owner } => self.cancel_oauth(owner),
            // Handled in `apply`: records go to the writer in the order update made them.
            Effect::Record(_) | Effect::Audit { .. } => {}
            // Reads from the local store.
            Effect::LoadTranscript { tab, key } => self.load_transcript(tab, key),
            Effect::LoadRawEvents { key, at } => self.load_raw_events(key, at),
            Effect::LoadClosedTabs => self.load_closed_tabs(),
            Effect::LoadAudit => self.load_audit(),
            Effect::ExportTab {
                tab_key,
                agent_url,
                agent_name,
                path,
            } => self.export_tab(tab_key, agent_url, agent_name, path),
            // Edits of the config file.
            Effect::AddAgentToConfig { url, name } => self.add_agent_to_config(url, name),
            Effect::RenameAgentInConfig {
                agent,
                key,
                name,
                label,
            } => self.rename_agent_in_config(agent, key, name, label),
            Effect::RemoveAgentFromConfig { url } => self.remove_agent_from_config(url),
            Effect::PinKeyInConfig { url, thumbprint } => self.pin_key_in_config(url, thumbprint),
            // This machine: files, the terminal, the demo agent, the highlighter.
            Effect::CheckAttachment { tab, path } => self.check_attachment(tab, path),
            Effect::RecordCase { path, recording } => self.record_case(path, recording),
            Effect::SaveFile {
                path,
                bytes,
                replace,
            } => self.save_file(path, bytes, replace),
            Effect::Copy { text, what } => self.copy(&text, &what),
            Effect::Bell => self.bell(),
            Effect::StartDemo { port } => self.start_demo(port),
            Effect::Highlight { key, lang, code } => {
                self.highlighter.request(key, lang.as_deref(), code)
            }
            Effect::SetCodeTheme(theme) => self.highlighter.set_theme(theme),
            Effect::Quit => {}
        }
    }
}
