//! A conversation the user had, written down as a suite case: the first message, the answers given to
//! interrupted states, and what the task ended with (its final state and its artifacts' names) as the
//! expectations. The case is appended to a suite file with `toml_edit`, so the file's other cases, its
//! comments and its layout stay as the user wrote them; the result is parsed back before it is returned, so a
//! recording never leaves a file the runner refuses.

use std::path::PathBuf;

use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, value};

/// What one task of a tab amounts to, as a case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recording {
    /// The case's name (made unique in the file: ` (2)`, ` (3)` … when taken).
    pub name: String,
    /// A configured agent's name, or the agent's URL.
    pub agent: String,
    /// The first message's text (may be empty when only files were sent).
    pub message: String,
    /// Files attached to the first message, as absolute paths.
    pub files: Vec<PathBuf>,
    /// The answers given to interrupted states, in order.
    pub replies: Vec<RecordedReply>,
    /// The state the task was in when it was recorded (`completed`, `input-required`, …).
    pub state: String,
    /// The names of the artifacts it produced.
    pub artifact_names: Vec<String>,
    /// Said in the comment above the case: where it came from (`task 1a2b3c4d of Demo, 2026-12-04 20:11`).
    pub origin: String,
}

/// An answer to an interrupted state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedReply {
    /// `input-required` or `auth-required`.
    pub when: String,
    pub message: String,
    /// For `auth-required`: the environment variable the token is read from when the suite runs (the token
    /// the user approved with is never written down).
    pub credential_env: Option<String>,
}

/// The environment variable a recorded auth-required answer reads its token from: `A2A_TOKEN_` and the name
/// the user gave the agent, in capitals (`A2A_TOKEN_DEMO`); `A2A_TOKEN` when they gave it none. Never a name
/// an agent chose: a card named "GITHUB" must not make the suite send `$GITHUB_TOKEN` to it, so the variable
/// always has the prefix, and only the user's own name for the agent follows it.
pub fn token_variable(user_name: Option<&str>) -> String {
    let mut out = String::from("A2A_TOKEN");
    for c in user_name.unwrap_or_default().chars() {
        if c.is_ascii_alphanumeric() {
            if out.len() == "A2A_TOKEN".len() {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
        } else if out.len() > "A2A_TOKEN".len() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

/// `existing` (a suite file's text; empty for a new file) with `rec` appended as one more `[[cases]]`.
pub fn append(existing: &str, rec: &Recording) -> Result<Appended, String> {
    let mut doc: DocumentMut = existing
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("the file is not TOML: {e}"))?;
    let cases = doc
        .entry("cases")
        .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .ok_or("its `cases` is not a list of [[cases]] tables")?;
    let taken: Vec<String> = cases
        .iter()
        .filter_map(|c| c.get("name").and_then(Item::as_str).map(str::to_string))
        .collect();
    let name = unique_name(&rec.name, &taken);
    cases.push(case_table(rec, &name, existing.trim().is_empty()));
    let text = doc.to_string();
    let back = super::file::parse(&text)
        .map_err(|e| format!("the recorded case does not read back: {e}"))?;
    Ok(Appended {
        cases: back.cases.len(),
        text,
        name,
    })
}

/// A suite file's text with a case appended.
#[derive(Debug)]
pub struct Appended {
    pub text: String,
    /// The name the case got (made unique in the file).
    pub name: String,
    /// Cases the file now holds.
    pub cases: usize,
}

fn unique_name(wanted: &str, taken: &[String]) -> String {
    let wanted = if wanted.trim().is_empty() {
        "recorded case"
    } else {
        wanted.trim()
    };
    if !taken.iter().any(|t| t == wanted) {
        return wanted.to_string();
    }
    (2..)
        .map(|n| format!("{wanted} ({n})"))
        .find(|c| !taken.iter().any(|t| t == c))
        .unwrap_or_else(|| wanted.to_string())
}

fn case_table(rec: &Recording, name: &str, first_in_file: bool) -> Table {
    let mut t = Table::new();
    let lead = if first_in_file { "" } else { "\n" };
    t.decor_mut().set_prefix(format!(
        "{lead}# Recorded by a2a-console from {}.\n# Edit freely: loosen the expectations (a `text` regex, `json` checks) as the agent allows.\n",
        one_line(&rec.origin)
    ));
    t.insert("name", value(name));
    t.insert("agent", value(rec.agent.as_str()));
    if !rec.message.is_empty() || rec.files.is_empty() {
        t.insert("message", value(rec.message.as_str()));
    }
    if !rec.files.is_empty() {
        let mut files = Array::new();
        for f in &rec.files {
            files.push(f.display().to_string());
        }
        t.insert("files", value(files));
    }
    if !rec.replies.is_empty() {
        let mut replies = ArrayOfTables::new();
        for r in &rec.replies {
            let mut rt = Table::new();
            rt.insert("when", value(r.when.as_str()));
            rt.insert("message", value(r.message.as_str()));
            if let Some(var) = &r.credential_env {
                rt.insert("credential_env", value(var.as_str()));
                rt.decor_mut().set_prefix(format!(
                    "\n# The token this answer carries is read from ${var} when the suite runs (never written here).\n"
                ));
            }
            replies.push(rt);
        }
        t.insert("reply", Item::ArrayOfTables(replies));
    }
    let mut expect = Table::new();
    expect.insert("state", value(rec.state.as_str()));
    if !rec.artifact_names.is_empty() {
        let mut names = Array::new();
        for n in &rec.artifact_names {
            names.push(n.as_str());
        }
        expect.insert("artifact_names", value(names));
    }
    t.insert("expect", Item::Table(expect));
    t
}

/// A comment is one line: a newline in the origin would end it and start TOML.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec() -> Recording {
        Recording {
            name: "echo hello".into(),
            agent: "demo".into(),
            message: "echo {not a placeholder} \"quoted\"\nsecond line".into(),
            files: vec![],
            replies: vec![
                RecordedReply {
                    when: "input-required".into(),
                    message: "blue".into(),
                    credential_env: None,
                },
                RecordedReply {
                    when: "auth-required".into(),
                    message: "Approved".into(),
                    credential_env: Some("A2A_TOKEN_DEMO".into()),
                },
            ],
            state: "completed".into(),
            artifact_names: vec!["answer".into()],
            origin: "task 1a2b3c4d of Demo\n[[cases]]".into(),
        }
    }

    #[test]
    fn a_recording_reads_back_as_the_case_it_was() {
        let Appended { text, name, .. } = append("", &rec()).unwrap();
        assert_eq!(name, "echo hello");
        let file = crate::suite::file::parse(&text).unwrap();
        let c = &file.cases[0];
        assert_eq!(c.message.as_deref(), Some(rec().message.as_str()));
        assert_eq!(c.agent.as_deref(), Some("demo"));
        assert_eq!(c.reply.len(), 2);
        assert_eq!(c.reply[0].when, "input-required");
        assert_eq!(c.reply[1].credential_env.as_deref(), Some("A2A_TOKEN_DEMO"));
        assert_eq!(c.expect.state.as_deref(), Some("completed"));
        assert_eq!(c.expect.artifact_names, vec!["answer".to_string()]);
        // The origin's newline did not leak a table header out of the comment.
        assert_eq!(file.cases.len(), 1);
        assert!(
            text.starts_with("# Recorded by a2a-console from task 1a2b3c4d of Demo [[cases]].")
        );
    }

    #[test]
    fn appending_keeps_what_the_user_wrote_and_takes_a_free_name() {
        let mine = "# my suite\nagent = \"pypeer\"  # the partner\n\n[[cases]]\nname = \"echo hello\"\nmessage = \"hi\"\n";
        let Appended { text, name, .. } = append(mine, &rec()).unwrap();
        assert_eq!(name, "echo hello (2)");
        assert!(text.starts_with(mine), "{text}");
        let Appended { text, name, .. } = append(&text, &rec()).unwrap();
        assert_eq!(name, "echo hello (3)");
        assert_eq!(crate::suite::file::parse(&text).unwrap().cases.len(), 3);
    }

    #[test]
    fn a_file_that_is_not_a_suite_is_left_alone() {
        assert!(append("cases = 3\n", &rec()).unwrap_err().contains("cases"));
        assert!(
            append("[[cases]\n", &rec())
                .unwrap_err()
                .contains("not TOML")
        );
    }

    #[test]
    fn the_token_variable_is_named_after_the_users_name_for_the_agent() {
        assert_eq!(token_variable(Some("demo")), "A2A_TOKEN_DEMO");
        assert_eq!(
            token_variable(Some("Py peer (v1.0)")),
            "A2A_TOKEN_PY_PEER_V1_0"
        );
        assert_eq!(token_variable(Some("…")), "A2A_TOKEN");
        assert_eq!(token_variable(Some("9lives")), "A2A_TOKEN_9LIVES");
        // No name of the user's: never the card's, whatever it is.
        assert_eq!(token_variable(None), "A2A_TOKEN");
    }
}
