//! What stays on this machine: looking at an attached file, writing a saved one, the clipboard and the bell of
//! the real terminal, and starting the embedded demo agent.

use std::path::PathBuf;

use crate::app::ids::TabId;
use crate::app::msg::Msg;
use crate::tui::runtime::Runtime;

impl Runtime {
    pub(super) fn check_attachment(&mut self, tab: TabId, path: PathBuf) {
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let result = match tokio::fs::metadata(&path).await {
                Ok(m) if m.is_dir() => Err("a directory, not a file".to_string()),
                Ok(m) => Ok(m.len()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err("not found".to_string()),
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                    Err("not readable".to_string())
                }
                Err(e) => Err(e.to_string()),
            };
            let _ = tx.send(Msg::AttachmentChecked { tab, path, result });
        });
    }

    pub(super) fn save_file(
        &mut self,
        path: PathBuf,
        bytes: crate::app::spool::TextSlice,
        replace: bool,
    ) {
        let tx = self.tx.clone();
        // Blocking file calls (create_new, fsync, rename) on a blocking thread, off the loop.
        tokio::task::spawn_blocking(move || {
            let result = crate::tui::save::write_slice(&path, &bytes, replace);
            let _ = tx.send(Msg::SaveDone { path, result });
        });
    }

    pub(super) fn copy(&mut self, text: &str, what: &str) {
        let _ = self.tx.send(Msg::Saved(crate::tui::clipboard::copy(
            self.clipboard_enabled,
            text,
            what,
        )));
    }

    pub(super) fn bell(&mut self) {
        if self.bell_enabled {
            use std::io::Write;
            let mut out = std::io::stdout();
            let _ = out.write_all(b"\x07");
            let _ = out.flush();
        }
    }

    pub(super) fn start_demo(&mut self, port: u16) {
        let tx = self.tx.clone();
        let slot = self.demo.clone();
        tokio::spawn(async move {
            let result = match crate::demo::spawn_stable(port).await {
                Ok((agent, moved)) => {
                    let listening = crate::app::msg::DemoListening {
                        target: crate::demo::target(&agent.base_url(), agent.grpc_url()),
                        moved,
                    };
                    if let Ok(mut s) = slot.lock() {
                        *s = Some(agent);
                    }
                    Ok(Box::new(listening))
                }
                Err(e) => Err(format!("{e:#}")),
            };
            let _ = tx.send(Msg::DemoStarted(result));
        });
    }
}
