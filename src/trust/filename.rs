//! What we believe about a file name an agent suggests: it is reduced to a safe base name before the console
//! offers it (no directory parts, no `.` or `..`, nothing a terminal or a file system would act on), and the
//! names and contents that can do harm once written — dotfiles that programs read as configuration, names and
//! bytes that look executable — are named, so the save dialog can say so before anything is written.

use super::sanitize::sanitize_line;

/// Longest base name offered, in bytes (most file systems allow 255; room is left for a user's edits).
const MAX_NAME_BYTES: usize = 200;

/// Extensions that run as a program, or are run by an interpreter or a desktop, when opened.
const EXECUTABLE_EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "fish", "ksh", "csh", "command", "tool", "run", "bin", "appimage",
    "desktop", "app", "exe", "com", "bat", "cmd", "ps1", "psm1", "vbs", "vbe", "js", "jse", "wsf",
    "wsh", "hta", "msi", "msp", "scr", "pif", "cpl", "lnk", "reg", "jar", "deb", "rpm", "apk",
    "dmg", "pkg",
];

/// The agent's suggested name as a safe base name, and whether it had to change. `fallback` (console-made)
/// is used when nothing usable is left.
pub fn safe_file_name(raw: &str, fallback: &str) -> (String, bool) {
    // Escapes, controls, hidden and bidi characters become visible markers (`␛`, `⟨RLO⟩`): nothing in the
    // name can act on a terminal, and a reversed ".exe" shows as what it is.
    let (visible, _) = sanitize_line(raw);
    // Only the last component: an agent does not choose the directory.
    let base = visible.rsplit(['/', '\\']).next().unwrap_or_default();
    let mut name: String = base
        .chars()
        .map(|c| match c {
            // Reserved on Windows file systems (and awkward in every shell).
            '<' | '>' | ':' | '"' | '|' | '?' | '*' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect();
    // Trailing dots and spaces are dropped by Windows and invisible everywhere.
    let trimmed = name.trim().trim_end_matches(['.', ' ']).to_string();
    name = trimmed;
    if name.len() > MAX_NAME_BYTES {
        name.truncate(super::sanitize::floor_char_boundary(&name, MAX_NAME_BYTES));
    }
    if name.is_empty() || name.chars().all(|c| c == '.') {
        name = fallback.to_string();
    }
    let changed = name != raw;
    (name, changed)
}

/// Why writing a file named `name` holding bytes starting with `head` deserves a second look, one reason per
/// line; empty when nothing stands out.
pub fn risks(name: &str, head: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    if base.starts_with('.') {
        out.push(format!(
            "dotfile: {base} is hidden, and shells and programs read files like .bashrc or .profile as their \
             configuration"
        ));
    }
    let ext = base
        .trim_start_matches('.')
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase());
    match &ext {
        Some(e) if EXECUTABLE_EXTENSIONS.contains(&e.as_str()) => out.push(format!(
            "executable: .{e} files run as a program (or through an interpreter) when opened"
        )),
        None if head.starts_with(b"#!") => {
            out.push("script: no extension, and it starts with #! (runs as a program)".into())
        }
        _ => {}
    }
    if head.starts_with(b"\x7fELF") || head.starts_with(b"MZ") {
        out.push("executable: its bytes start like a program (ELF or Windows MZ header)".into());
    }
    if base.starts_with('-') {
        out.push("starts with '-': commands may read the name as an option".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_name_is_reduced_to_a_safe_base_name() {
        for (raw, want) in [
            ("report.csv", "report.csv"),
            ("../../.ssh/authorized_keys", "authorized_keys"),
            ("/etc/passwd", "passwd"),
            ("..\\..\\win.ini", "win.ini"),
            ("..", "artifact.bin"),
            (".", "artifact.bin"),
            ("", "artifact.bin"),
            ("a/..", "artifact.bin"),
            ("evil\u{1b}]0;title\u{7}.txt", "evil␛.txt"),
            ("nul\u{0}byte.txt", "nul␀byte.txt"),
            ("invoice_\u{202e}fdp.exe", "invoice_⟨RLO⟩fdp.exe"),
            ("what?.txt  ...", "what_.txt"),
        ] {
            let (name, _) = safe_file_name(raw, "artifact.bin");
            assert_eq!(name, want, "{raw:?}");
            assert!(
                !name.contains(['/', '\\']) && name != ".." && !name.chars().any(char::is_control)
            );
        }
        assert!(!safe_file_name("report.csv", "x").1);
        assert!(safe_file_name("../report.csv", "x").1);
        let long = "a".repeat(1000) + ".txt";
        assert!(safe_file_name(&long, "x").0.len() <= MAX_NAME_BYTES);
    }

    #[test]
    fn dotfiles_and_executable_looking_files_are_named() {
        assert!(risks(".bashrc", b"alias ls=rm")[0].contains("dotfile"));
        for n in [
            "run.sh",
            "setup.EXE",
            "x.bat",
            "x.cmd",
            "x.ps1",
            "Thing.app",
            "a.desktop",
            "invoice.pdf.exe",
        ] {
            assert!(
                risks(n, b"").iter().any(|r| r.contains("executable")),
                "{n}"
            );
        }
        assert!(risks("install", b"#!/bin/sh\nrm -rf ~")[0].contains("#!"));
        assert!(
            !risks("notes.txt", b"#!not a script")
                .iter()
                .any(|r| r.contains("#!"))
        );
        assert!(!risks("tool", b"\x7fELF\x02").is_empty());
        assert!(risks("-rf", b"").iter().any(|r| r.contains("option")));
        assert!(risks("report.csv", b"a,b\n").is_empty());
        assert!(risks("plot.png", b"\x89PNG").is_empty());
    }
}
