//! `a2a-console card AGENT --diff`: the card fetched now against the one kept in the local store (the
//! console keeps every card it loads; this command keeps the one it fetched), field by field, with the
//! changes that break a client flagged. Text, or `--json`: `{"since", "changes": [...], "breaking"}`.

use serde_json::json;

use super::exit::Exit;
use super::print::outln;
use crate::remote::card::CardFetcher;
use crate::remote::card::diff::diff;
use crate::remote::connect::agent::{self, AgentTarget};
use crate::remote::error::RemoteError;

pub async fn run(
    target: &AgentTarget,
    fetcher: &CardFetcher,
    json: bool,
) -> Result<Exit, RemoteError> {
    let seen = agent::inspect(target, fetcher, false).await?;
    let store = crate::store::db_path().ok_or_else(|| {
        RemoteError::usage("no data directory for the local store: nothing to compare with")
    })?;
    let store = crate::store::Store::open(&store).map_err(|e| RemoteError::usage(e.to_string()))?;
    let kept = store
        .load_card(&target.url)
        .map_err(|e| RemoteError::usage(e.to_string()))?;
    let now: serde_json::Value = serde_json::from_str(&seen.card.raw)
        .map_err(|e| RemoteError::transport(format!("the card is not JSON: {e}")))?;
    let compared = kept.as_ref().and_then(|k| {
        serde_json::from_str::<serde_json::Value>(&k.raw_json)
            .ok()
            .map(|before| (k.fetched_at, diff(&before, &now)))
    });
    if let Err(e) = store.save_card(
        &target.url,
        seen.card.url.as_str(),
        &seen.card.raw,
        seen.card.etag.as_deref(),
    ) {
        super::report::warning(&format!("this card is not kept: {e}"));
    }
    let label = crate::remote::error::one_line(&seen.label);
    match (&compared, json) {
        (Some((at, changes)), true) => outln!(
            "{}",
            super::output::safe_json(
                &json!({
                    "since": at.to_rfc3339(),
                    "breaking": changes.iter().filter(|c| c.breaking.is_some()).count(),
                    "changes": changes,
                }),
                true
            )
        ),
        (None, true) => outln!(
            "{}",
            super::output::safe_json(&json!({"since": null, "breaking": 0, "changes": []}), true)
        ),
        (Some((at, changes)), false) if changes.is_empty() => outln!(
            "card of {label}: no change since the card kept at {}",
            at.format("%Y-%m-%d %H:%M UTC")
        ),
        (Some((at, changes)), false) => {
            let breaking = changes.iter().filter(|c| c.breaking.is_some()).count();
            outln!(
                "card of {label}: {} change(s) since the card kept at {}, {breaking} breaking a client",
                changes.len(),
                at.format("%Y-%m-%d %H:%M UTC")
            );
            for c in changes {
                outln!("  {}", c.line());
            }
        }
        (None, false) => outln!(
            "card of {label}: no card of this agent was kept before; this one is kept now (the next --diff compares with it)"
        ),
    }
    Ok(Exit::Done)
}
