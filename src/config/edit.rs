//! Adding, renaming and removing agents in the config file from inside the console, keeping the user's comments and
//! layout (`toml_edit`). These are edits of the file's text, named by `label` (its path) in their messages; the
//! callers read and write the file through `files::edit_text`, which writes atomically so a crash never leaves
//! half a file, with the file's mode, owner and symlink kept (config stays a leaf: no I/O of its own here).

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

fn parse(text: &str, label: &str) -> Result<DocumentMut, String> {
    text.parse::<DocumentMut>()
        .map_err(|e| format!("cannot edit {label}: {e}"))
}

/// Append `[[agents]] url = …` (with `name = …` when the user gave the agent a short name) unless an agent with
/// that URL is already there.
/// `None`: the text stays as it is.
pub fn add_agent(
    text: &str,
    label: &str,
    url: &str,
    name: Option<&str>,
) -> Result<Option<String>, String> {
    let mut doc = parse(text, label)?;
    let agents = doc
        .entry("agents")
        .or_insert(Item::ArrayOfTables(ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .ok_or_else(|| format!("{label}: `agents` is not a list of tables"))?;
    if agents
        .iter()
        .any(|t| t.get("url").and_then(|v| v.as_str()) == Some(url))
    {
        return Ok(None);
    }
    let mut t = Table::new();
    if let Some(name) = name {
        t.insert("name", value(name));
    }
    t.insert("url", value(url));
    agents.push(t);
    Ok(Some(doc.to_string()))
}

/// Give the agent entry `pick` chooses (an index into the file's agents, as the config reads them) the name
/// `name`, or remove its name (`None`: the card's name is shown). The entry keeps its place, its other keys
/// and the comment after the name. Fails, changing nothing, when `pick` finds no entry.
pub fn rename_agent(
    text: &str,
    label: &str,
    pick: impl FnOnce(&[super::AgentConfig]) -> Option<usize>,
    name: Option<&str>,
) -> Result<String, String> {
    let config = super::parse(text).map_err(|e| format!("{label}: {e}"))?;
    let not_there = || format!("the agent is not in {label}");
    let index = pick(&config.agents).ok_or_else(not_there)?;
    let mut doc = parse(text, label)?;
    let entry = doc
        .get_mut("agents")
        .and_then(Item::as_array_of_tables_mut)
        .and_then(|a| a.get_mut(index))
        .ok_or_else(not_there)?;
    match name {
        Some(name) => match entry.get_mut("name").and_then(Item::as_value_mut) {
            // The comment after the old name stays after the new one.
            Some(old) => {
                let decor = old.decor().clone();
                *old = toml_edit::Value::from(name);
                *old.decor_mut() = decor;
            }
            None => {
                entry.insert("name", value(name));
            }
        },
        None => {
            entry.remove("name");
        }
    }
    Ok(doc.to_string())
}

/// Remove the agents with that URL: the new text, or `None` when none was there.
pub fn remove_agent(text: &str, label: &str, url: &str) -> Result<Option<String>, String> {
    let mut doc = parse(text, label)?;
    let Some(agents) = doc.get_mut("agents").and_then(Item::as_array_of_tables_mut) else {
        return Ok(None);
    };
    let before = agents.len();
    agents.retain(|t| t.get("url").and_then(|v| v.as_str()) != Some(url));
    Ok((agents.len() != before).then(|| doc.to_string()))
}

/// Add `thumbprint` to `pinned` in the `[agents.trust]` of the agent with that URL, appending the agent when
/// the file does not list it: a pin belongs where the user reads and edits their trust, not in a database.
pub fn pin_key(text: &str, label: &str, url: &str, thumbprint: &str) -> Result<String, String> {
    let mut doc = parse(text, label)?;
    let agents = doc
        .entry("agents")
        .or_insert(Item::ArrayOfTables(ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .ok_or_else(|| format!("{label}: `agents` is not a list of tables"))?;
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
            .ok_or_else(|| format!("{label}: `trust` of {url} is not a table"))?;
        let pinned = trust
            .entry("pinned")
            .or_insert(Item::Value(
                toml_edit::Value::Array(toml_edit::Array::new()),
            ))
            .as_array_mut()
            .ok_or_else(|| format!("{label}: `trust.pinned` of {url} is not a list"))?;
        if !pinned.iter().any(|v| v.as_str() == Some(thumbprint)) {
            pinned.push(thumbprint);
        }
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    // The callers' way: the text edits through `files::edit_text` (tests may use the project).
    fn add_agent(p: &Path, url: &str, name: Option<&str>) -> Result<(), String> {
        crate::files::edit_text(p, true, |t, l| super::add_agent(t, l, url, name)).map(|_| ())
    }
    fn remove_agent(p: &Path, url: &str) -> Result<bool, String> {
        crate::files::edit_text(p, true, |t, l| super::remove_agent(t, l, url))
    }
    fn pin_key(p: &Path, url: &str, thumb: &str) -> Result<(), String> {
        crate::files::edit_text(p, true, |t, l| super::pin_key(t, l, url, thumb).map(Some))
            .map(|_| ())
    }
    fn rename_agent(
        p: &Path,
        pick: impl FnOnce(&[crate::config::AgentConfig]) -> Option<usize>,
        name: Option<&str>,
    ) -> Result<(), String> {
        crate::files::edit_text(p, false, |t, l| {
            super::rename_agent(t, l, pick, name).map(Some)
        })
        .map(|_| ())
    }

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
        add_agent(&p, "http://127.0.0.1:2", None).unwrap();
        add_agent(&p, "http://127.0.0.1:2", None).unwrap();
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
    fn an_agent_added_with_a_short_name_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        add_agent(&p, "http://127.0.0.1:4", Some("py 1.0")).unwrap();
        let c = crate::config::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(c.agents[0].name.as_deref(), Some("py 1.0"));
        assert_eq!(c.agents[0].url, "http://127.0.0.1:4");
    }

    #[test]
    fn rename_changes_only_the_picked_entry_and_keeps_comments() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(
            &p,
            "# mine\n[[agents]]\nname = \"a\" # first\nurl = \"http://127.0.0.1:1\"\nbinding = \"GRPC\"\n\n\
             [[agents]]\nname = \"a\"\nurl = \"http://127.0.0.1:1\"\n\n[[agents]]\nurl = \"http://127.0.0.1:2\"\n",
        )
        .unwrap();
        // The second of the two entries named "a" (the one without a binding).
        let pick =
            |agents: &[crate::config::AgentConfig]| agents.iter().position(|a| a.binding.is_none());
        rename_agent(&p, pick, Some("Python 1.0")).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.contains("# mine") && text.contains("# first"),
            "{text}"
        );
        let c = crate::config::parse(&text).unwrap();
        let names: Vec<_> = c.agents.iter().map(|a| a.name.as_deref()).collect();
        assert_eq!(names, [Some("a"), Some("Python 1.0"), None]);
        // The comment after a replaced name stays; a name can be given to an entry that had none, and taken away.
        rename_agent(&p, |_| Some(0), Some("JS 1.0")).unwrap();
        rename_agent(&p, |_| Some(2), Some("Python 0.3")).unwrap();
        rename_agent(&p, |_| Some(1), None).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains("name = \"JS 1.0\" # first"), "{text}");
        let c = crate::config::parse(&text).unwrap();
        let names: Vec<_> = c.agents.iter().map(|a| a.name.as_deref()).collect();
        assert_eq!(names, [Some("JS 1.0"), None, Some("Python 0.3")]);
        assert_eq!(c.agents[0].binding.as_deref(), Some("GRPC"));
        // No entry: an error, and the file as it was.
        assert!(rename_agent(&p, |_| None, Some("x")).is_err());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
    }

    #[test]
    fn missing_file_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/config.toml");
        add_agent(&p, "http://127.0.0.1:3", None).unwrap();
        let c = crate::config::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(c.agents[0].url, "http://127.0.0.1:3");
    }
}
