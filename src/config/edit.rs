//! Adding and removing agents in the config file from inside the console, keeping the user's comments and
//! layout (`toml_edit`), and writing atomically so a crash never leaves half a file, with the file's mode,
//! owner and symlink kept.

use std::path::Path;

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

fn read(path: &Path) -> Result<DocumentMut, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    text.parse::<DocumentMut>()
        .map_err(|e| format!("cannot edit {}: {e}", path.display()))
}

/// Write the edited document back through [`crate::files::replace`]: atomic, and the file keeps its mode, owner
/// and symlink (a config is often 0600 because of the headers in it, or a link into a dotfiles repository); a
/// config the console creates is 0600 in a 0700 directory.
fn write(path: &Path, doc: &DocumentMut) -> Result<(), String> {
    crate::files::replace(path, doc.to_string().as_bytes())
        .map(|_| ())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Append `[[agents]] url = …` unless an agent with that URL is already there.
pub fn add_agent(path: &Path, url: &str) -> Result<(), String> {
    let mut doc = read(path)?;
    let agents = doc
        .entry("agents")
        .or_insert(Item::ArrayOfTables(ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .ok_or_else(|| format!("{}: `agents` is not a list of tables", path.display()))?;
    if agents
        .iter()
        .any(|t| t.get("url").and_then(|v| v.as_str()) == Some(url))
    {
        return Ok(());
    }
    let mut t = Table::new();
    t.insert("url", value(url));
    agents.push(t);
    write(path, &doc)
}

/// Remove the agents with that URL; says whether any was there.
pub fn remove_agent(path: &Path, url: &str) -> Result<bool, String> {
    let mut doc = read(path)?;
    let Some(agents) = doc.get_mut("agents").and_then(Item::as_array_of_tables_mut) else {
        return Ok(false);
    };
    let before = agents.len();
    agents.retain(|t| t.get("url").and_then(|v| v.as_str()) != Some(url));
    let removed = agents.len() != before;
    if removed {
        write(path, &doc)?;
    }
    Ok(removed)
}

/// Add `thumbprint` to `pinned` in the `[agents.trust]` of the agent with that URL, appending the agent when
/// the file does not list it: a pin belongs where the user reads and edits their trust, not in a database.
pub fn pin_key(path: &Path, url: &str, thumbprint: &str) -> Result<(), String> {
    let mut doc = read(path)?;
    let agents = doc
        .entry("agents")
        .or_insert(Item::ArrayOfTables(ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .ok_or_else(|| format!("{}: `agents` is not a list of tables", path.display()))?;
    if !agents
        .iter()
        .any(|t| t.get("url").and_then(|v| v.as_str()) == Some(url))
    {
        let mut t = Table::new();
        t.insert("url", value(url));
        agents.push(t);
    }
    for agent in agents
        .iter_mut()
        .filter(|t| t.get("url").and_then(|v| v.as_str()) == Some(url))
    {
        let trust = agent
            .entry("trust")
            .or_insert(Item::Table(Table::new()))
            .as_table_mut()
            .ok_or_else(|| format!("{}: `trust` of {url} is not a table", path.display()))?;
        let pinned = trust
            .entry("pinned")
            .or_insert(Item::Value(
                toml_edit::Value::Array(toml_edit::Array::new()),
            ))
            .as_array_mut()
            .ok_or_else(|| format!("{}: `trust.pinned` of {url} is not a list", path.display()))?;
        if !pinned.iter().any(|v| v.as_str() == Some(thumbprint)) {
            pinned.push(thumbprint);
        }
    }
    write(path, &doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pin_key_writes_the_thumbprint_under_the_agent_keeping_comments_and_once() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(
            &p,
            "# mine\n[[agents]]\nname = \"w\" # weather\nurl = \"http://127.0.0.1:1\"\n",
        )
        .unwrap();
        let t = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";
        pin_key(&p, "http://127.0.0.1:1", t).unwrap();
        pin_key(&p, "http://127.0.0.1:1", t).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.contains("# mine") && text.contains("# weather"),
            "{text}"
        );
        assert_eq!(text.matches(t).count(), 1, "{text}");
        let c = crate::config::parse(&text).unwrap();
        let trust = c.agents[0].trust.clone().unwrap();
        assert_eq!(trust.pinned, vec![t.to_string()]);
        // An agent the file did not list is added with its pin, where the user can see both.
        pin_key(&p, "http://127.0.0.1:2", t).unwrap();
        let c = crate::config::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(c.agents.len(), 2);
        assert_eq!(c.agents[1].trust.as_ref().unwrap().pinned.len(), 1);
    }

    #[test]
    fn add_and_remove_keep_comments() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(&p, "# my agents\ntimeout_secs = 5 # short\n\n[[agents]]\nname = \"a\" # first\nurl = \"http://127.0.0.1:1\"\n").unwrap();
        add_agent(&p, "http://127.0.0.1:2").unwrap();
        add_agent(&p, "http://127.0.0.1:2").unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.contains("# my agents") && text.contains("# first") && text.contains("# short"),
            "{text}"
        );
        assert_eq!(text.matches("http://127.0.0.1:2").count(), 1);
        crate::config::parse(&text).unwrap();
        assert!(remove_agent(&p, "http://127.0.0.1:1").unwrap());
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(!text.contains("127.0.0.1:1\""), "{text}");
        assert!(text.contains("# my agents"));
        assert!(!remove_agent(&p, "http://127.0.0.1:9").unwrap());
    }

    #[test]
    fn missing_file_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/config.toml");
        add_agent(&p, "http://127.0.0.1:3").unwrap();
        let c = crate::config::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(c.agents[0].url, "http://127.0.0.1:3");
    }
}
