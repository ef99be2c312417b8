//! From a case as written to the cases that run: one per row, with `{column}` replaced in the name, the
//! message, the replies and the expectations. A `{name}` that is not a column of the rows is an error when the
//! case has rows (a typo would otherwise send the braces); `{{` and `}}` stand for literal braces. Only
//! `{identifier}` is a placeholder, so regex counts such as `\d{3}` and JSON in a message are left alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::file::{CaseSpec, ExpectSpec, JsonSpec, Loaded, ReplySpec};

/// One case ready to run.
#[derive(Clone, Debug)]
pub struct Case {
    /// The name with the row's values in it.
    pub name: String,
    /// The name as written (cases of one spec share it).
    pub spec_name: String,
    /// The row's values, when the case came from a row.
    pub row: Option<BTreeMap<String, String>>,
    pub agent: String,
    pub message: Option<String>,
    pub data: Option<serde_json::Value>,
    pub files: Vec<PathBuf>,
    pub skill: Option<String>,
    pub reply: Vec<ReplySpec>,
    pub expect: ExpectSpec,
    /// The suite file it came from.
    pub suite: PathBuf,
}

/// Every case of a suite file. `agent` replaces every case's agent (the console's "run on the selected
/// agent", the CLI's `--agent`); otherwise a case without one takes the file's.
pub fn expand(loaded: &Loaded, agent: Option<&str>) -> Result<Vec<Case>, String> {
    let dir = loaded.path.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for spec in &loaded.file.cases {
        let Some(agent) = agent
            .map(str::to_string)
            .or_else(|| spec.agent.clone())
            .or_else(|| loaded.file.agent.clone())
        else {
            return Err(format!(
                "case {:?} names no agent (agent = \"name or URL\" in the case or at the top of the file)",
                spec.name
            ));
        };
        let mut expect = spec.expect.clone();
        if expect.max_seconds.is_none() {
            expect.max_seconds = loaded.file.max_seconds;
        }
        if spec.rows.is_empty() {
            out.push(one(spec, None, &agent, &expect, dir, &loaded.path)?);
            continue;
        }
        for row in &spec.rows {
            let values: BTreeMap<String, String> = row
                .iter()
                .map(|(k, v)| (k.clone(), value_text(v)))
                .collect();
            out.push(one(spec, Some(values), &agent, &expect, dir, &loaded.path)?);
        }
    }
    Ok(out)
}

fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn one(
    spec: &CaseSpec,
    row: Option<BTreeMap<String, String>>,
    agent: &str,
    expect: &ExpectSpec,
    dir: &Path,
    suite: &Path,
) -> Result<Case, String> {
    let sub = |s: &str| -> Result<String, String> {
        match &row {
            Some(r) => substitute(s, r).map_err(|e| format!("case {:?}: {e}", spec.name)),
            None => Ok(s.to_string()),
        }
    };
    let opt = |s: &Option<String>| s.as_deref().map(sub).transpose();
    let mut e = expect.clone();
    e.state = opt(&e.state)?;
    e.text = opt(&e.text)?;
    e.states = e
        .states
        .as_ref()
        .map(|v| v.iter().map(|s| sub(s)).collect::<Result<_, _>>())
        .transpose()?;
    e.artifact_names = e
        .artifact_names
        .iter()
        .map(|s| sub(s))
        .collect::<Result<_, _>>()?;
    e.media_types = e
        .media_types
        .iter()
        .map(|s| sub(s))
        .collect::<Result<_, _>>()?;
    e.json = e
        .json
        .iter()
        .map(|j| {
            Ok(JsonSpec {
                path: sub(&j.path)?,
                equals: j.equals.as_ref().map(|v| sub_value(v, &sub)).transpose()?,
                matches: opt(&j.matches)?,
                ..j.clone()
            })
        })
        .collect::<Result<_, String>>()?;
    let reply = spec
        .reply
        .iter()
        .map(|r| {
            Ok(ReplySpec {
                message: opt(&r.message)?,
                ..r.clone()
            })
        })
        .collect::<Result<_, String>>()?;
    let data = spec
        .data
        .as_ref()
        .map(|v| sub_value(v, &sub))
        .transpose()?
        .map(|v| super::file::toml_to_json(&v));
    Ok(Case {
        name: sub(&spec.name)?,
        spec_name: spec.name.clone(),
        agent: sub(agent)?,
        message: opt(&spec.message)?,
        data,
        files: spec.files.iter().map(|f| dir.join(f)).collect(),
        skill: opt(&spec.skill)?,
        reply,
        expect: e,
        row,
        suite: suite.to_path_buf(),
    })
}

/// Substitute inside a TOML value's strings (a data part, an expected value).
fn sub_value(
    v: &toml::Value,
    sub: &dyn Fn(&str) -> Result<String, String>,
) -> Result<toml::Value, String> {
    Ok(match v {
        toml::Value::String(s) => toml::Value::String(sub(s)?),
        toml::Value::Array(a) => toml::Value::Array(
            a.iter()
                .map(|x| sub_value(x, sub))
                .collect::<Result<_, _>>()?,
        ),
        toml::Value::Table(t) => toml::Value::Table(
            t.iter()
                .map(|(k, x)| Ok((k.clone(), sub_value(x, sub)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

/// Replace `{column}` by the row's value.
pub fn substitute(s: &str, row: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        if let Some(end) = tail.find('}')
            && tail.starts_with('{')
            && is_identifier(&tail[1..end])
        {
            let name = &tail[1..end];
            match row.get(name) {
                Some(v) => out.push_str(v),
                None => {
                    return Err(format!(
                        "{{{name}}} is not a column of its rows ({})",
                        row.keys().cloned().collect::<Vec<_>>().join(", ")
                    ));
                }
            }
            rest = &tail[end + 1..];
            continue;
        }
        out.push_str(&tail[..1]);
        rest = &tail[1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn placeholders_are_replaced_and_other_braces_kept() {
        let r = row(&[("word", "alpha")]);
        assert_eq!(substitute("echo {word}", &r).unwrap(), "echo alpha");
        assert_eq!(substitute(r"\d{3} {word}", &r).unwrap(), r"\d{3} alpha");
        assert_eq!(substitute(r#"{"a": 1}"#, &r).unwrap(), r#"{"a": 1}"#);
        assert_eq!(substitute("{{word}}", &r).unwrap(), "{word}");
        assert!(substitute("{wrod}", &r).unwrap_err().contains("wrod"));
    }

    #[test]
    fn one_case_per_row_with_every_field_substituted() {
        let file = super::super::file::parse(
            r#"
agent = "http://127.0.0.1:1"
[[cases]]
name = "echo {word}"
message = "echo {word}"
data = { lang = "{word}" }
[[cases.reply]]
when = "input-required"
message = "say {word}"
[cases.expect]
text = "{word}"
[[cases.expect.json]]
path = "$.w"
equals = "{word}"
[[cases.rows]]
word = "alpha"
[[cases.rows]]
word = 7
"#,
        )
        .unwrap();
        let loaded = Loaded {
            path: PathBuf::from("/s/suite.toml"),
            file,
        };
        let cases = expand(&loaded, None).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].name, "echo alpha");
        assert_eq!(cases[1].message.as_deref(), Some("echo 7"));
        assert_eq!(cases[0].reply[0].message.as_deref(), Some("say alpha"));
        assert_eq!(cases[0].expect.text.as_deref(), Some("alpha"));
        assert_eq!(
            cases[0].expect.json[0].equals,
            Some(toml::Value::String("alpha".into()))
        );
        assert_eq!(cases[0].data, Some(serde_json::json!({"lang": "alpha"})));
        assert_eq!(cases[0].agent, "http://127.0.0.1:1");
        let over = expand(&loaded, Some("other")).unwrap();
        assert!(over.iter().all(|c| c.agent == "other"));
    }
}
