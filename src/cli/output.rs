//! How the CLI prints what agents sent: readable text where every remote string is sanitised and labelled
//! with where it came from, or v1.0 JSON (one document, or one line per stream event) that is safe to print
//! on a terminal as well.

use std::fmt::Write as _;

use a2a::{AgentCard, Artifact, Message, PartContent, SecurityScheme, Task};
use serde::Serialize;

use unicode_width::UnicodeWidthChar;

use crate::markup::json_view::needs_escape;
use crate::remote::card::FetchedCard;
use crate::remote::card::rules::{InterfaceUse, interface_use};
use crate::remote::connect::Selected;
use crate::task::outgoing::parts_text;
use crate::task::phase::state_name;
use crate::trust::sanitize::{MAX_COMBINING, Provenance, Untrusted, sanitize_line};

/// Serialize as JSON, then escape every character a terminal could act on. JSON text outside strings is
/// ASCII, so any non-ASCII char is inside a string and `\uXXXX` is a valid replacement for it.
///
/// What is escaped is the JSON view's set (`markup::json_view`: C1, DEL, bidi controls, every invisible
/// character, variation selectors, and a stack of zero-width characters past the sanitiser's bound), so
/// `--json` output and the console's JSON view show a remote value the same way. The fuzz target
/// `safe_json` found a combining flood printed raw; setting the two lists side by side then showed the other
/// gaps this one had (U+2028/U+2029, Hangul fillers, variation selectors, tag characters past U+E007F).
pub fn safe_json<T: Serialize>(value: &T, pretty: bool) -> String {
    let s = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    }
    .unwrap_or_else(|e| format!("{{\"error\":\"cannot serialize: {e}\"}}"));
    escape_terminal_controls(s)
}

/// Write what is pending to stdout and empty it.
pub fn write_stdout(pending: &mut String) {
    if pending.is_empty() {
        return;
    }
    crate::cli::print::write(pending);
    pending.clear();
}

/// The escaping half of `safe_json`. Everything below U+007F is already safe in serde_json's output (it escapes
/// C0 controls itself, and a raw '\n' is pretty-printing's own), so only the characters from U+007F up are
/// looked at, and the text between them is copied in runs: a stream of 100,000 events goes through here. Any
/// ASCII character between two of them ends a stack of zero-width characters.
fn escape_terminal_controls(s: String) -> String {
    if s.is_ascii() && memchr::memchr(0x7f, s.as_bytes()).is_none() {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 16);
    escape_terminal_controls_into(&s, &mut out);
    out
}

/// `escape_terminal_controls`, appending to `out`.
fn escape_terminal_controls_into(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    // The common case, plain ASCII without DEL, found with the word-at-a-time scans of `is_ascii` and memchr.
    if s.is_ascii() && memchr::memchr(0x7f, bytes).is_none() {
        out.push_str(s);
        return;
    }
    let Some(first) = bytes.iter().position(|&b| b >= 0x7f) else {
        out.push_str(s);
        return;
    };
    let mut copied = 0;
    let mut at = first;
    let mut stack = 0usize;
    let mut prev_end = usize::MAX;
    while at < s.len() {
        let Some(c) = s.get(at..).and_then(|rest| rest.chars().next()) else {
            break;
        };
        let next = at + c.len_utf8();
        if at != prev_end {
            stack = 0;
        }
        stack = if c.width() == Some(0) { stack + 1 } else { 0 };
        prev_end = next;
        if needs_escape(c) || stack > MAX_COMBINING {
            out.push_str(&s[copied..at]);
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                let _ = write!(out, "\\u{unit:04x}");
            }
            copied = next;
        }
        at = match bytes
            .get(next..)
            .and_then(|r| r.iter().position(|&b| b >= 0x7f))
        {
            Some(off) => next + off,
            None => s.len(),
        };
    }
    out.push_str(&s[copied..]);
}

/// JSON lines for stdout, gathered in one buffer (`--json` streams print 100,000 events): each value is
/// serialized into a scratch buffer that is reused, then escaped onto the pending text as `safe_json` does.
#[derive(Default)]
pub struct JsonLines {
    pub pending: String,
    scratch: Vec<u8>,
}

impl JsonLines {
    pub fn push<T: Serialize>(&mut self, value: &T) {
        self.scratch.clear();
        let line = match serde_json::to_writer(&mut self.scratch, value) {
            Ok(()) => std::str::from_utf8(&self.scratch).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        match line {
            Ok(line) => escape_terminal_controls_into(line, &mut self.pending),
            Err(e) => self
                .pending
                .push_str(&format!("{{\"error\":\"cannot serialize: {e}\"}}")),
        }
        self.pending.push('\n');
    }

    /// Write what is pending to stdout.
    pub fn flush(&mut self) {
        write_stdout(&mut self.pending);
    }
}

/// A short id for headers: long ids are cut, the full one is printed elsewhere.
pub fn short_id(id: &str) -> String {
    let (clean, _) = sanitize_line(id);
    if clean.chars().count() > 12 {
        format!("{}…", clean.chars().take(12).collect::<String>())
    } else {
        clean
    }
}

/// Print a block of remote text with a provenance header, indented, plus the flags it raised.
pub fn remote_block(out: &mut String, agent: &str, task: Option<&str>, field: &str, raw: &str) {
    let text = Untrusted::new(
        raw,
        Provenance {
            agent: agent.into(),
            task: task.map(Into::into),
            field: field.to_string().into(),
        },
    );
    let (agent_l, _) = sanitize_line(agent);
    let task_part = task
        .map(|t| format!(" · task {}", short_id(t)))
        .unwrap_or_default();
    let (field_l, _) = sanitize_line(field);
    let _ = writeln!(out, "┌─ remote text from {agent_l}{task_part} · {field_l}");
    for line in text.as_str().lines() {
        let _ = writeln!(out, "│ {line}");
    }
    if text.as_str().is_empty() {
        let _ = writeln!(out, "│ (empty)");
    }
    for flag in &text.findings.flags {
        let _ = writeln!(out, "│ ⚠ flagged: {}", flag.reason);
    }
    let _ = writeln!(out, "└─");
}

/// A one-line remote value ("name: …") sanitised.
pub(super) fn line(raw: &str) -> String {
    sanitize_line(raw).0
}

pub fn message_text(out: &mut String, agent: &str, task: Option<&str>, field: &str, m: &Message) {
    remote_block(out, agent, task, field, &parts_text(&m.parts));
}

pub fn artifact_text(out: &mut String, agent: &str, task: Option<&str>, a: &Artifact) {
    let name = a.name.as_deref().unwrap_or("");
    let field = if name.is_empty() {
        format!("artifact {}", short_id(&a.artifact_id))
    } else {
        format!("artifact {:?} ({})", line(name), short_id(&a.artifact_id))
    };
    let nothing = a
        .parts
        .iter()
        .all(|p| matches!(&p.content, PartContent::Text(t) if t.is_empty()));
    if nothing {
        // The SDK's ProtoJSON decoder turns a part of a kind it does not know into an empty text part, so an
        // artifact with no content usually means the agent sent something this console cannot show; say so.
        let _ = writeln!(
            out,
            "{field}: no parts this console can show (none sent, or only unknown part kinds)"
        );
        return;
    }
    remote_block(out, agent, task, &field, &parts_text(&a.parts));
}

/// A task as readable text.
pub fn task_text(agent: &str, t: &Task) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "task:    {}", line(&t.id));
    let _ = writeln!(out, "context: {}", line(&t.context_id));
    let _ = writeln!(out, "state:   {}", state_name(&t.status.state));
    if let Some(ts) = t.status.timestamp {
        let _ = writeln!(out, "updated: {}", ts.to_rfc3339());
    }
    if let Some(m) = &t.status.message {
        message_text(&mut out, agent, Some(&t.id), "status message", m);
    }
    for a in t.artifacts.iter().flatten() {
        artifact_text(&mut out, agent, Some(&t.id), a);
    }
    out
}

/// The card as `card --json` prints it: the card's own fields, and `"signature"`, our verdict on who signed
/// it (a name the card schema does not use: its list is `signatures`).
pub fn card_json(
    card: &AgentCard,
    verdict: Option<&crate::remote::signature::SignatureVerdict>,
) -> serde_json::Value {
    let mut v = serde_json::to_value(card).unwrap_or_default();
    let sig = match verdict {
        Some(v) => v.to_json(),
        None => serde_json::json!({"state": "not_checked", "reason": "the card was not checked"}),
    };
    if let Some(map) = v.as_object_mut() {
        map.insert("signature".into(), sig);
    }
    v
}

/// The signature block of `card`'s text: the verdict, then key, algorithm, form and pin.
fn signature_text(out: &mut String, fetched: &FetchedCard) {
    let signed = fetched
        .card
        .signatures
        .as_ref()
        .is_some_and(|s| !s.is_empty());
    let (badge, _) = crate::remote::signature::badge_of(fetched.signature.as_ref(), signed);
    let Some(v) = &fetched.signature else {
        let _ = writeln!(out, "signature:   {badge}");
        return;
    };
    let _ = writeln!(out, "signature:   {badge} — {}", line(&v.reason));
    if let Some(key) = v.key_line() {
        let _ = writeln!(out, "  key:       {key}");
    }
    if let Some(alg) = &v.detail.alg {
        let _ = writeln!(out, "  algorithm: {}", line(alg));
    }
    if let Some(form) = v.detail.form {
        let _ = writeln!(out, "  form:      {}", form.label());
    }
    if v.detail.thumbprint.is_some() {
        let _ = writeln!(
            out,
            "  pinned:    {}",
            if v.detail.pinned { "yes" } else { "no" }
        );
    }
}

/// A card as readable text: identity, interfaces (the one in use marked, those we cannot use with why),
/// capabilities, security, skills, warnings. `selection` is the interface in use, or why the agent is card only.
pub fn card_text(
    label: &str,
    fetched: &FetchedCard,
    selection: Result<&Selected, &str>,
    extended: bool,
) -> String {
    let selected = selection.ok();
    let c: &AgentCard = &fetched.card;
    let mut out = String::new();
    let kind = if extended { "extended card" } else { "card" };
    let _ = writeln!(
        out,
        "{kind} of {} from {} ({} shape)",
        line(label),
        fetched.url,
        fetched.shape.label()
    );
    let _ = writeln!(out, "name:        {}", line(&c.name));
    let _ = writeln!(out, "version:     {}", line(&c.version));
    if let Some(p) = &c.provider {
        let _ = writeln!(
            out,
            "provider:    {} <{}>",
            line(&p.organization),
            line(&p.url)
        );
    }
    if let Some(d) = &c.documentation_url {
        let _ = writeln!(out, "docs:        {}", line(d));
    }
    if let Err(why) = selection {
        let _ = writeln!(out, "usable:      no, card only ({})", line(why));
    }
    remote_block(&mut out, label, None, "card description", &c.description);
    interfaces_text(&mut out, c, selected);
    capabilities_text(&mut out, c);
    security_text(&mut out, c);
    skills_text(&mut out, label, c);
    signature_text(&mut out, fetched);
    warnings_text(&mut out, fetched);
    out
}

/// Every interface the card lists, the one in use marked, with why the console would not use the others.
fn interfaces_text(out: &mut String, c: &AgentCard, selected: Option<&Selected>) {
    let _ = writeln!(out, "interfaces:");
    if c.supported_interfaces.is_empty() {
        let _ = writeln!(out, "  none listed");
    }
    for i in &c.supported_interfaces {
        let chosen = selected.is_some_and(|s| s.interface == *i);
        let unusable = match interface_use(&i.protocol_binding, &i.protocol_version) {
            InterfaceUse::Unusable { short, .. } => format!("  (not used: {short})"),
            InterfaceUse::Usable { .. } => String::new(),
        };
        let tenant = i
            .tenant
            .as_deref()
            .map(|t| format!(" tenant {}", line(t)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {} {:<9} {:<6} {}{tenant}{unusable}",
            if chosen { "▶" } else { " " },
            line(&i.protocol_binding),
            line(&i.protocol_version),
            line(&i.url)
        );
    }
}

/// What the agent says it can do: streaming, push, the extended card, its extensions and its media types.
fn capabilities_text(out: &mut String, c: &AgentCard) {
    let caps = &c.capabilities;
    let flag = |b: Option<bool>| if b == Some(true) { "yes" } else { "no" };
    let _ = writeln!(
        out,
        "capabilities: streaming {}, push notifications {}, extended card {}",
        flag(caps.streaming),
        flag(caps.push_notifications),
        flag(caps.extended_agent_card)
    );
    for e in caps.extensions.iter().flatten() {
        let _ = writeln!(
            out,
            "  extension {}{}",
            line(&e.uri),
            if e.required == Some(true) {
                " (required)"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(
        out,
        "modes:       in {} · out {}",
        line(&c.default_input_modes.join(", ")),
        line(&c.default_output_modes.join(", "))
    );
}

/// The schemes the card declares and the combinations it requires.
fn security_text(out: &mut String, c: &AgentCard) {
    if c.security_schemes.as_ref().is_none_or(|s| s.is_empty()) {
        let _ = writeln!(out, "security schemes: none declared");
    }
    if let Some(schemes) = c.security_schemes.as_ref().filter(|s| !s.is_empty()) {
        let mut names: Vec<&String> = schemes.keys().collect();
        names.sort();
        let _ = writeln!(out, "security schemes:");
        for n in names {
            let desc = match &schemes[n] {
                SecurityScheme::ApiKey(k) => {
                    format!("API key in {} {:?}", line(&k.location), line(&k.name))
                }
                SecurityScheme::HttpAuth(h) => format!("HTTP {}", line(&h.scheme)),
                SecurityScheme::OAuth2(_) => "OAuth 2.0".to_string(),
                SecurityScheme::OpenIdConnect(o) => {
                    format!("OpenID Connect ({})", line(&o.open_id_connect_url))
                }
                SecurityScheme::MutualTls(_) => "mutual TLS".to_string(),
            };
            let _ = writeln!(out, "  {}: {desc}", line(n));
        }
    }
    if let Some(reqs) = &c.security_requirements {
        let alts: Vec<String> = reqs
            .iter()
            .map(|r| {
                let mut all: Vec<String> = r
                    .iter()
                    .map(|(n, scopes)| {
                        if scopes.is_empty() {
                            line(n)
                        } else {
                            format!("{} [{}]", line(n), line(&scopes.join(" ")))
                        }
                    })
                    .collect();
                all.sort();
                all.join(" + ")
            })
            .collect();
        let _ = writeln!(
            out,
            "requires:    {}",
            if alts.is_empty() {
                "nothing".into()
            } else {
                alts.join("  or  ")
            }
        );
    }
}

/// Each skill with its tags, its description (remote text) and its examples.
fn skills_text(out: &mut String, label: &str, c: &AgentCard) {
    let _ = writeln!(out, "skills ({}):", c.skills.len());
    for s in &c.skills {
        let _ = writeln!(
            out,
            "  • {} ({})  tags: {}",
            line(&s.name),
            line(&s.id),
            line(&s.tags.join(", "))
        );
        remote_block(
            out,
            label,
            None,
            &format!("skill {} description", line(&s.id)),
            &s.description,
        );
        for ex in s.examples.iter().flatten() {
            let _ = writeln!(out, "      example: {}", line(ex));
        }
    }
}

/// What validating the card found.
fn warnings_text(out: &mut String, fetched: &FetchedCard) {
    if fetched.warnings.is_empty() {
        let _ = writeln!(out, "warnings:    none");
    } else {
        let _ = writeln!(out, "warnings ({}):", fetched.warnings.len());
        for w in &fetched.warnings {
            let _ = writeln!(out, "  ! {}", line(&w.to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_json_escapes_terminal_controls_but_stays_valid() {
        let v = serde_json::json!({"t": "a\u{1b}[2J\u{9b}31m\u{202e}exe\u{200b}\u{7}"});
        let s = safe_json(&v, false);
        assert!(!s.chars().any(|c| c.is_control()), "{s:?}");
        assert!(!s.contains('\u{202e}'));
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    /// Found by fuzzing (`fuzz safe_json`: a combining flood) and by comparing with the JSON view's list
    /// afterwards: these went to the terminal raw in `--json` output.
    #[test]
    fn safe_json_escapes_what_the_json_view_escapes() {
        let flood = format!("a{}", "\u{300}".repeat(12));
        let v = serde_json::json!({"t": [flood, "\u{3164}\u{2028}\u{fe0f}\u{e0100}\u{e0080}ok"]});
        let s = safe_json(&v, false);
        assert_eq!(
            s,
            format!(
                r#"{{"t":["a{}\u0300\u0300\u0300\u0300","\u3164\u2028\ufe0f\udb40\udd00\udb40\udc80ok"]}}"#,
                "\u{300}".repeat(8)
            )
        );
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
        assert_eq!(
            safe_json(&serde_json::json!({"k": "Vie\u{302}\u{323}t"}), true),
            "{\n  \"k\": \"Vie\u{302}\u{323}t\"\n}"
        );
    }

    #[test]
    fn escaping_copies_safe_runs_and_replaces_only_what_a_terminal_acts_on() {
        assert_eq!(
            escape_terminal_controls("plain ascii".into()),
            "plain ascii"
        );
        assert_eq!(
            escape_terminal_controls("héllo\u{9b}x\u{202e}✓\u{7f}".into()),
            "héllo\\u009bx\\u202e✓\\u007f"
        );
        // Astral characters that need escaping become a surrogate pair.
        assert_eq!(
            escape_terminal_controls("a\u{e0041}b".into()),
            "a\\udb40\\udc41b"
        );
    }

    #[test]
    fn remote_blocks_are_labelled_and_sanitised() {
        let mut out = String::new();
        remote_block(
            &mut out,
            "demo",
            Some("task-123456789012345"),
            "status message",
            "hi\u{1b}]52;c;ZXZpbA==\u{7}\nthere",
        );
        assert!(
            out.contains("remote text from demo · task task-1234567… · status message"),
            "{out}"
        );
        assert!(!out.contains('\u{1b}'));
        assert!(out.contains("│ there"));
    }
}
