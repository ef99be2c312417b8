//! Finding the card the way a client does (§8.2, §8.6): the well-known path, the pre-0.3 path, the content
//! type and the caching headers, and a conditional GET. Returns the card as served, for the other probes.

use reqwest::Method;
use serde_json::{Map, Value};

use super::exchange::{Probe, Prober, Reply};
use super::report::{Finding, Outcome};
use crate::remote::card::card_urls;

/// The card document as served.
pub struct CardDoc {
    pub url: String,
    pub raw: String,
    pub value: Map<String, Value>,
    /// The card as the console reads it (`card::parse_card`: v0.3 shapes mapped onto v1.0), for which
    /// interfaces and capabilities to probe; `None` when even the lenient reader refuses it.
    pub read: Option<a2a::AgentCard>,
}

/// Requests discovery may send: the card, the legacy path, one conditional GET.
pub const REQUESTS: usize = 3;

fn get(url: &str) -> Probe {
    Probe::new(Method::GET, url)
        .header("Accept", "application/json")
        .header("A2A-Version", "1.0")
}

/// A card if the reply is one (HTTP 200, a JSON object).
fn card_of(reply: &Reply) -> Option<Map<String, Value>> {
    if reply.status != Some(200) {
        return None;
    }
    match reply.json() {
        Some(Value::Object(m)) => Some(m),
        _ => None,
    }
}

/// Run the discovery probes; the card for the rest of the check, when one was found.
pub async fn discover(prober: &Prober, input: &str, out: &mut Vec<Finding>) -> Option<CardDoc> {
    let urls = match card_urls(input) {
        Ok(u) => u,
        Err(e) => {
            out.push(Finding::new(
                "discovery.well-known",
                None,
                Outcome::fail(e.message),
            ));
            return None;
        }
    };
    let direct = urls.len() == 1;
    let primary = urls.first()?.to_string();
    let reply = prober.send(get(&primary)).await;
    let mut found = card_of(&reply).map(|v| (primary.clone(), reply.clone(), v));
    let what = describe(&reply);
    if direct {
        // The user configured the card's own URL (§8.2 "direct configuration"): the well-known path of that
        // origin is not this agent's business.
        out.push(Finding::new(
            "discovery.well-known",
            None,
            match &found {
                Some(_) if primary.contains("/.well-known/agent-card.json") => {
                    Outcome::pass("served at the well-known path")
                }
                Some(_) => Outcome::skip("the card was configured by its own URL"),
                None => Outcome::fail(format!("no card at the configured URL: {what}"))
                    .with(&reply.exchange),
            },
        ));
    } else {
        out.push(Finding::new(
            "discovery.well-known",
            None,
            match &found {
                Some(_) => Outcome::pass("served at /.well-known/agent-card.json"),
                None => Outcome::fail(format!("no card at /.well-known/agent-card.json: {what}"))
                    .with(&reply.exchange),
            },
        ));
        if let Some(legacy) = urls.get(1) {
            let legacy = legacy.to_string();
            let lr = prober.send(get(&legacy)).await;
            let outcome = match (card_of(&lr), &found) {
                (None, _) if lr.status.is_none() => {
                    Outcome::skip(format!("no answer: {}", describe(&lr)))
                }
                (None, _) if lr.status == Some(404) => Outcome::pass("not served (404)"),
                (None, _) => Outcome::pass(format!("no card there ({})", describe(&lr))),
                (Some(_), None) => {
                    Outcome::fail("served only at the pre-0.3 path, which v1.0 clients do not read")
                        .with(&lr.exchange)
                }
                (Some(l), Some((_, _, v))) if &l == v => Outcome::pass("the same card"),
                (Some(_), Some(_)) => {
                    Outcome::fail("a different card than the well-known path's").with(&lr.exchange)
                }
            };
            if found.is_none()
                && let Some(v) = card_of(&lr)
            {
                found = Some((legacy.clone(), lr.clone(), v));
            }
            out.push(Finding::new("discovery.legacy-path", None, outcome));
        }
    }
    let Some((url, reply, value)) = found else {
        for id in [
            "discovery.content-type",
            "discovery.cache-control",
            "discovery.etag",
            "discovery.conditional-get",
        ] {
            out.push(Finding::new(id, None, Outcome::skip("no card was found")));
        }
        return None;
    };
    headers(prober, &url, &reply, out).await;
    let read = url::Url::parse(&url).ok().and_then(|u| {
        crate::remote::card::parse_card(
            &u,
            &u,
            &reply.content_type(),
            reply.body.clone(),
            &reply.headers,
        )
        .ok()
        .map(|c| c.card)
    });
    Some(CardDoc {
        url,
        raw: String::from_utf8_lossy(&reply.body).into_owned(),
        value,
        read,
    })
}

/// Content type, caching headers and the conditional GET.
async fn headers(prober: &Prober, url: &str, reply: &Reply, out: &mut Vec<Finding>) {
    let mt = reply.media_type();
    out.push(Finding::new(
        "discovery.content-type",
        None,
        if mt == "application/json" || mt == "application/a2a+json" {
            Outcome::pass(mt)
        } else {
            Outcome::fail(format!(
                "served as {}",
                if mt.is_empty() { "nothing" } else { &mt }
            ))
            .with(&reply.exchange)
        },
    ));
    let cache = reply.header("cache-control").unwrap_or_default();
    out.push(Finding::new(
        "discovery.cache-control",
        None,
        if cache.to_ascii_lowercase().contains("max-age") {
            Outcome::pass(format!("Cache-Control: {cache}"))
        } else if cache.is_empty() {
            Outcome::fail("no Cache-Control header").with(&reply.exchange)
        } else {
            Outcome::fail(format!("Cache-Control without max-age: {cache}")).with(&reply.exchange)
        },
    ));
    let etag = reply.header("etag");
    out.push(Finding::new(
        "discovery.etag",
        None,
        match &etag {
            Some(e) => Outcome::pass(format!("ETag: {e}")),
            None => Outcome::fail("no ETag header").with(&reply.exchange),
        },
    ));
    let last_modified = reply.header("last-modified");
    let conditional = match (&etag, &last_modified) {
        (Some(e), _) => Some(("If-None-Match", e.clone())),
        (None, Some(m)) => Some(("If-Modified-Since", m.clone())),
        (None, None) => None,
    };
    let outcome = match conditional {
        None => Outcome::skip("neither ETag nor Last-Modified to revalidate with"),
        Some((name, value)) => {
            let r = prober.send(get(url).header(name, &value)).await;
            match r.status {
                Some(304) => Outcome::pass(format!("{name} answered 304")),
                _ => Outcome::fail(format!(
                    "{name} with the card's own validator: {}",
                    describe(&r)
                ))
                .with(&r.exchange),
            }
        }
    };
    out.push(Finding::new("discovery.conditional-get", None, outcome));
}

/// One line for what came back.
pub fn describe(reply: &Reply) -> String {
    match (reply.status, &reply.error) {
        (None, Some(e)) => e.clone(),
        (Some(s), _) => {
            let mt = reply.media_type();
            if mt.is_empty() {
                format!("HTTP {s}")
            } else {
                format!("HTTP {s} {mt}")
            }
        }
        (None, None) => "no answer".into(),
    }
}
