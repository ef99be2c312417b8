//! `a2a-console trust AGENT`: trust on first use from the command line. The card is fetched and judged like
//! every card; a valid signature by a key not pinned yet is shown (thumbprint, algorithm, kid, the canonical
//! form that verified) and, after a yes on the terminal or `--yes`, its thumbprint is written into the agent's
//! `[agents.trust] pinned` in the config file, where the user can read and remove it.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use super::exit::Exit;
use super::output::line;
use super::print::{out, outln};
use super::{GlobalOpts, resolve_target};
use crate::config::Config;
use crate::remote::card::CardFetcher;
use crate::remote::connect::agent;
use crate::remote::error::RemoteError;
use crate::remote::signature::SignatureState;

pub(super) async fn run(
    config: &Config,
    global: &GlobalOpts,
    agent_name: &str,
    yes: bool,
    path: Option<&Path>,
) -> Result<Exit, RemoteError> {
    let target = resolve_target(config, global, agent_name)?;
    let fetcher = CardFetcher::new(target.timeout)?;
    let card = agent::fetch_card(&target, &fetcher, true).await?;
    let label = line(&target.label);
    let Some(v) = card.signature else {
        return Err(RemoteError::usage(format!(
            "agent {label}: the card was not checked"
        )));
    };
    outln!("card of {label} from {}", card.url);
    outln!("signature:   {} — {}", v.state.badge(), line(&v.reason));
    let d = &v.detail;
    match v.state {
        SignatureState::Verified => {
            outln!("the key is already trusted; nothing to pin");
            return Ok(Exit::Done);
        }
        SignatureState::Unsigned => {
            return Err(RemoteError::usage(format!(
                "agent {label}: the card is unsigned, no key to pin"
            )));
        }
        // A changed key is an alarm, not an offer: the user removes the old pin by hand if the change is real.
        SignatureState::Invalid => {
            return Err(RemoteError::usage(format!(
                "agent {label}: no valid signature to pin ({})",
                line(&v.reason)
            )));
        }
        SignatureState::ValidUnpinned => {}
    }
    let Some(thumb) = d.thumbprint.clone() else {
        return Err(RemoteError::usage(format!(
            "agent {label}: the key has no thumbprint"
        )));
    };
    outln!("  thumbprint: sha256:{thumb}");
    outln!(
        "  algorithm:  {}",
        d.alg.as_deref().map(line).unwrap_or_default()
    );
    outln!(
        "  kid:        {}",
        d.kid.as_deref().map(line).unwrap_or_else(|| "none".into())
    );
    outln!(
        "  form:       {}",
        d.form.map(|f| f.label()).unwrap_or_default()
    );
    outln!(
        "  key from:   {}",
        d.key_source.as_deref().map(line).unwrap_or_default()
    );
    let Some(path) = path else {
        return Err(RemoteError::usage(
            "no config file location to write the pin to",
        ));
    };
    if !yes {
        if !std::io::stdin().is_terminal() {
            return Err(RemoteError::usage(
                "not a terminal: pass --yes to pin without asking",
            ));
        }
        out!("Pin this key for {label} in {}? [y/N] ", path.display());
        let _ = std::io::stdout().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            outln!("not pinned");
            return Ok(Exit::Done);
        }
    }
    crate::files::edit_text(path, true, |text, label| {
        crate::config::edit::pin_key(text, label, &target.url, &thumb).map(Some)
    })
    .map_err(RemoteError::usage)?;
    outln!("pinned sha256:{thumb} for {label} in {}", path.display());
    Ok(Exit::Done)
}
