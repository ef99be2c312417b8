//! What the add-agent prompt makes of a typed address. Without a scheme (`127.0.0.1:41243`, `agent.example.com`)
//! one is assumed and said: `http://` for a loopback host, where local agents and the demo serve plain HTTP, and
//! `https://` for any other, so nothing goes over the network unencrypted unless the user wrote `http://`.

use url::{Host, Url};

/// The address to use and, when a scheme was assumed, a sentence saying which and why.
pub fn with_scheme(typed: &str) -> (String, Option<String>) {
    let typed = typed.trim();
    if has_scheme(typed) {
        return (typed.to_string(), None);
    }
    let loopback = Url::parse(&format!("http://{typed}"))
        .ok()
        .and_then(|u| u.host().map(|h| is_loopback(&h)))
        .unwrap_or(false);
    if loopback {
        (
            format!("http://{typed}"),
            Some("no scheme given: assumed http:// for a loopback address".into()),
        )
    } else {
        (
            format!("https://{typed}"),
            Some(
                "no scheme given: assumed https:// (type http:// for an agent without TLS)".into(),
            ),
        )
    }
}

/// `name:` where what follows the colon is not a port: `http://…`, `ftp:…`, `mailto:…` (refused later, by the
/// URL check, rather than turned into `https://mailto:…`). `localhost:8080` and `host:443/path` have none.
fn has_scheme(typed: &str) -> bool {
    let Some((name, rest)) = typed.split_once(':') else {
        return false;
    };
    let scheme_like = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let port = rest.chars().next().is_some_and(|c| c.is_ascii_digit());
    scheme_like && !port
}

fn is_loopback(host: &Host<&str>) -> bool {
    match host {
        // RFC 6761: `localhost` and every name under it resolve to loopback.
        Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_gets_http_others_https_and_a_given_scheme_is_kept() {
        let url = |s| with_scheme(s).0;
        assert_eq!(url("127.0.0.1:41243"), "http://127.0.0.1:41243");
        assert_eq!(url("127.1.2.3"), "http://127.1.2.3");
        assert_eq!(url("localhost:8080/a2a"), "http://localhost:8080/a2a");
        assert_eq!(url("agent.localhost:1"), "http://agent.localhost:1");
        assert_eq!(url("[::1]:9"), "http://[::1]:9");
        assert_eq!(url("[::ffff:127.0.0.1]:9"), "http://[::ffff:127.0.0.1]:9");
        assert_eq!(url("192.168.1.4:8000"), "https://192.168.1.4:8000");
        assert_eq!(
            url("localhost.example.com"),
            "https://localhost.example.com"
        );
        assert_eq!(url("agent.example.com"), "https://agent.example.com");
        assert_eq!(url(" http://x:1 "), "http://x:1");
        assert_eq!(with_scheme("https://a.example").1, None);
        // Another scheme is left for the URL check to refuse.
        assert_eq!(url("ftp://x"), "ftp://x");
        assert_eq!(url("mailto:a@b"), "mailto:a@b");
        assert!(
            with_scheme("127.0.0.1:1")
                .1
                .unwrap()
                .contains("http:// for a loopback")
        );
        assert!(with_scheme("a.example").1.unwrap().contains("https://"));
    }
}
