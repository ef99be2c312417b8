//! Edits of the config file the user asked for (adding, renaming and removing an agent, pinning a card's key),
//! each on a blocking thread, since the file is read and replaced with blocking calls.

use crate::app::ids::AgentId;
use crate::app::msg::Msg;
use crate::tui::runtime::Runtime;

impl Runtime {
    pub(super) fn add_agent_to_config(&mut self, url: String, name: Option<String>) {
        let tx = self.tx.clone();
        let path = self
            .config_path
            .clone()
            .or_else(crate::config::default_path);
        tokio::task::spawn_blocking(move || {
            let r = match path {
                Some(p) => crate::files::edit_text(&p, true, |text, label| {
                    crate::config::edit::add_agent(text, label, &url, name.as_deref())
                })
                .map(|_| format!("added {url} to {}", p.display())),
                None => Err("no config file location".into()),
            };
            let _ = tx.send(Msg::ConfigSaved(r));
        });
    }

    pub(super) fn rename_agent_in_config(
        &mut self,
        agent: AgentId,
        key: String,
        name: Option<String>,
        label: String,
    ) {
        let tx = self.tx.clone();
        let path = self
            .config_path
            .clone()
            .or_else(crate::config::default_path);
        tokio::task::spawn_blocking(move || {
            let pick = |agents: &[crate::config::AgentConfig]| {
                crate::app::state::config_entry_with_key(agents, &key)
            };
            let result = match path {
                Some(p) => crate::files::edit_text(&p, false, |text, label| {
                    crate::config::edit::rename_agent(text, label, pick, name.as_deref()).map(Some)
                })
                .map(|_| format!("saved the new name in {}", p.display())),
                None => Err("no config file location".into()),
            };
            let _ = tx.send(Msg::AgentRenamed {
                agent,
                label,
                result,
            });
        });
    }

    pub(super) fn remove_agent_from_config(&mut self, url: String) {
        let tx = self.tx.clone();
        let path = self.config_path.clone();
        tokio::task::spawn_blocking(move || {
            let r = match path {
                Some(p) => crate::files::edit_text(&p, true, |text, label| {
                    crate::config::edit::remove_agent(text, label, &url)
                })
                .map(|removed| {
                    if removed {
                        format!("removed {url} from {}", p.display())
                    } else {
                        format!("{url} was not in {}", p.display())
                    }
                }),
                None => Ok("no config file to update".into()),
            };
            let _ = tx.send(Msg::ConfigSaved(r));
        });
    }

    pub(super) fn pin_key_in_config(&mut self, url: String, thumbprint: String) {
        let tx = self.tx.clone();
        let path = self.config_path.clone();
        tokio::task::spawn_blocking(move || {
            let r = match path {
                Some(p) => crate::files::edit_text(&p, true, |text, label| {
                    crate::config::edit::pin_key(text, label, &url, &thumbprint).map(Some)
                })
                .map(|_| format!("pinned the key of {url} in {}", p.display())),
                None => Err("no config file to hold the pin (it lasts this run)".into()),
            };
            let _ = tx.send(Msg::ConfigSaved(r));
        });
    }
}
