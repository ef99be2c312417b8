//! Copying to the user's clipboard with OSC 52 (`ESC ] 52 ; c ; <base64> BEL`), written by the console itself
//! and only when the user pressed `y`/`Y` (`Effect::Copy`). Remote text can never reach the terminal as an
//! escape: it is sanitised when it enters the app, and this is the only place an OSC 52 is built.

use std::io::{IsTerminal, Write};

use base64::Engine;

/// The sequence for `text`. Inside tmux the plain sequence is sent (tmux takes it when `set-clipboard on`, and
/// forwards it to the outer terminal) followed by the same sequence wrapped for passthrough (for
/// `allow-passthrough on` setups, where tmux's own clipboard handling is off): tmux's default
/// (`set-clipboard external`) ignores both, which is why the status message names the two options.
pub fn osc52(text: &str, tmux: bool) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    let plain = format!("\x1b]52;c;{b64}\x07");
    if !tmux {
        return plain.into_bytes();
    }
    // Passthrough: DCS tmux; <sequence with each ESC doubled> ST.
    let wrapped = format!("\x1bPtmux;{}\x1b\\", plain.replace('\x1b', "\x1b\x1b"));
    [plain.into_bytes(), wrapped.into_bytes()].concat()
}

/// Why the terminal cannot take an OSC 52, if it cannot: not a terminal, or one known not to do it.
pub fn refusal(is_terminal: bool, term: Option<&str>) -> Option<String> {
    if !is_terminal {
        return Some("the console's output is not a terminal".into());
    }
    match term {
        Some("dumb") => Some("TERM=dumb has no clipboard escape".into()),
        Some("linux") => Some("the Linux console (TERM=linux) has no clipboard escape".into()),
        _ => None,
    }
}

/// Write the OSC 52 for `text` to the terminal (`enabled` is off for headless runs) and say what happened.
pub fn copy(enabled: bool, text: &str, what: &str) -> Result<String, String> {
    let size = crate::app::parts::human_bytes(text.len());
    let why_not = if enabled {
        refusal(
            std::io::stdout().is_terminal(),
            std::env::var("TERM").ok().as_deref(),
        )
    } else {
        Some("no terminal to write to".into())
    };
    if let Some(why) = why_not {
        return Err(format!(
            "could not copy {what} ({size}): {why} — S saves an artifact, E exports the transcript"
        ));
    }
    let tmux = std::env::var_os("TMUX").is_some();
    let mut out = std::io::stdout();
    out.write_all(&osc52(text, tmux))
        .and_then(|()| out.flush())
        .map_err(|e| format!("could not copy {what}: {e}"))?;
    let how = if tmux {
        " (in tmux: needs set-clipboard on or allow-passthrough on)"
    } else {
        ""
    };
    Ok(format!(
        "copied {size} ({what}) to the clipboard via OSC 52{how}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_osc_52_with_base64_and_tmux_passthrough() {
        assert_eq!(osc52("hi ✓", false), b"\x1b]52;c;aGkg4pyT\x07".to_vec());
        let t = String::from_utf8(osc52("hi", true)).unwrap();
        assert_eq!(
            t,
            "\x1b]52;c;aGk=\x07\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\"
        );
    }

    #[test]
    fn terminals_that_cannot_copy_are_named() {
        assert!(
            refusal(false, Some("xterm"))
                .unwrap()
                .contains("not a terminal")
        );
        assert!(refusal(true, Some("dumb")).is_some());
        assert!(refusal(true, Some("linux")).is_some());
        assert!(refusal(true, Some("xterm-256color")).is_none());
        let e = copy(false, "abc", "your message").unwrap_err();
        assert!(e.contains("S saves") && e.contains("3 B"), "{e}");
    }
}
