//! Where a credential may go. A credential (and every configured header) belongs to the origin of the URL the
//! user configured for the agent, plus the origins they listed in `allowed_origins`; nothing a remote agent
//! sends — a card interface on another host, a redirect, another agent's URL in a card — moves it elsewhere.
//! Redirects of the card fetch are judged here too: same origin is followed; another origin only if the user
//! allowed it, and with every header dropped; link-local addresses (cloud metadata services live there) never;
//! private and loopback addresses only when the configured URL is itself private or loopback.

use std::fmt;
use std::net::IpAddr;

use url::Url;

/// A scheme, host and port (RFC 6454), as the user would write it: `https://agent.example.com`,
/// `http://127.0.0.1:8080`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    /// The origin of a URL; a bare `host:port` (how gRPC interfaces are often written) counts as `http`.
    pub fn of(url: &str) -> Option<Origin> {
        let url = url.trim();
        let parsed = if url.contains("://") {
            Url::parse(url).ok()?
        } else {
            Url::parse(&format!("http://{url}")).ok()?
        };
        Self::of_url(&parsed)
    }

    pub fn of_url(url: &Url) -> Option<Origin> {
        // gRPC interfaces may say `grpc://` / `grpcs://`: the same connection as http / https.
        let scheme = match url.scheme() {
            "grpc" => "http",
            "grpcs" => "https",
            s => s,
        }
        .to_ascii_lowercase();
        let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
        let port = url.port().or(match scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        })?;
        Some(Origin { scheme, host, port })
    }

    /// The host's address when it is an IP literal.
    fn ip(&self) -> Option<IpAddr> {
        self.host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .ok()
    }

    pub fn host(&self) -> &str {
        &self.host
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Is this a loopback or private host (an IP literal in those ranges, or `localhost`)?
    pub fn is_private(&self) -> bool {
        self.host == "localhost"
            || self.host.ends_with(".localhost")
            || self
                .ip()
                .is_some_and(|ip| is_private(&ip) || ip.is_loopback())
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let default = matches!(
            (self.scheme.as_str(), self.port),
            ("http", 80) | ("https", 443)
        );
        if default {
            write!(f, "{}://{}", self.scheme, self.host)
        } else {
            write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
        }
    }
}

/// The origins an agent's credential and headers may be sent to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CredentialScope {
    /// The origin of the URL the user configured.
    pub home: Origin,
    /// The user's `allowed_origins`.
    pub allowed: Vec<Origin>,
}

impl CredentialScope {
    /// The scope of an agent configured at `url` with `allowed_origins`; an unusable entry is an error naming it.
    pub fn new(url: &str, allowed_origins: &[String]) -> Result<CredentialScope, String> {
        let home =
            Origin::of(url).ok_or_else(|| format!("{url:?} has no origin (scheme, host, port)"))?;
        let allowed = allowed_origins
            .iter()
            .map(|o| {
                Origin::of(o).ok_or_else(|| {
                    format!(
                        "allowed_origins: {o:?} is not an origin (write it as https://host[:port])"
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CredentialScope { home, allowed })
    }

    /// May the credential go to this origin?
    pub fn permits(&self, origin: &Origin) -> bool {
        *origin == self.home || self.allowed.contains(origin)
    }

    /// May the credential go to this URL (`false` when it has no origin)?
    pub fn permits_url(&self, url: &str) -> bool {
        Origin::of(url).is_some_and(|o| self.permits(&o))
    }

    /// The error for a call that would go to `url`, another origin, for an agent that sends nothing secret:
    /// the card alone does not choose where the console connects (blind SSRF); the user says yes first.
    pub fn unconsented(&self, what: &str, url: &str, agent: &str) -> String {
        let there = Origin::of(url).map_or_else(|| one_line_url(url), |o| o.to_string());
        format!(
            "{what} is on {there}, another origin than agent {agent}'s card ({}); nothing is sent there until you \
             allow it: --allow-origin {there} (CLI), allowed_origins = [\"{there}\"] in its [[agents]] entry, or \
             yes in the console's dialog",
            self.home
        )
    }

    /// The error for a credential that would go to `url`: both origins named, and the way to allow it.
    pub fn refusal(&self, what: &str, url: &str, agent: &str) -> String {
        let there = Origin::of(url).map_or_else(|| url.to_string(), |o| o.to_string());
        format!(
            "{what} is on {there}, but agent {agent}'s credentials and headers are for {}; they are not sent \
             elsewhere. If {there} is the same agent, add allowed_origins = [\"{there}\"] to its [[agents]] entry",
            self.home
        )
    }
}

/// What to do with a redirect of a card fetch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Redirect {
    /// Follow it; `keep_headers` is false when the origin changes (every configured header and credential is
    /// dropped then).
    Follow {
        keep_headers: bool,
    },
    Refuse(String),
}

/// Judge a redirect from `from` to `to` for an agent with `scope`, given the addresses `to`'s host resolves to
/// (its literal address, or what DNS said; checked before any connection is made).
pub fn judge_redirect(
    scope: &CredentialScope,
    from: &Url,
    to: &Url,
    addresses: &[IpAddr],
) -> Redirect {
    if !matches!(to.scheme(), "http" | "https") {
        return Redirect::Refuse(format!(
            "{from} redirects to {to}, which is not an http(s) URL"
        ));
    }
    let Some(target) = Origin::of_url(to) else {
        return Redirect::Refuse(format!("{from} redirects to {to}, which has no host"));
    };
    if let Some(ip) = addresses.iter().find(|ip| is_link_local(ip)) {
        return Redirect::Refuse(format!(
            "{from} redirects to {target} ({ip}), a link-local address; the console never follows a redirect \
             there (cloud metadata services live at 169.254.169.254)"
        ));
    }
    if !scope.home.is_private()
        && let Some(ip) = addresses
            .iter()
            .find(|ip| is_private(ip) || ip.is_loopback() || ip.is_unspecified())
    {
        return Redirect::Refuse(format!(
            "{from} redirects to {target} ({ip}), a private address, but the agent is configured on the public \
             {}; the console does not follow that",
            scope.home
        ));
    }
    let current = Origin::of_url(from);
    if current.as_ref() == Some(&target) || target == scope.home {
        return Redirect::Follow {
            keep_headers: target == scope.home,
        };
    }
    if scope.allowed.contains(&target) {
        return Redirect::Follow {
            keep_headers: false,
        };
    }
    Redirect::Refuse(format!(
        "{from} redirects to {target}, another origin than the configured {}; add allowed_origins = \
         [\"{target}\"] to the agent's entry if that is where its card lives",
        scope.home
    ))
}

/// The refusal for a card interface whose host is a link-local address (cloud metadata services live there):
/// an IP literal in any spelling the URL parser accepts (`169.254.169.254`, `2852039166`, `0xa9fea9fe`,
/// `0251.0376.0251.0376`, `[::ffff:169.254.169.254]`, `[fe80::1]`), or a name that `addresses` (what it
/// resolves to) puts there. Checked before anything connects, like a redirect there (`judge_redirect`).
pub fn link_local_interface(what: &str, url: &str, addresses: &[IpAddr]) -> Option<String> {
    let literal = interface_ip(url);
    let ip = literal
        .iter()
        .chain(addresses)
        .find(|ip| is_link_local(ip))?;
    Some(format!(
        "{what} is at {} ({ip}), a link-local address; the console never connects there (cloud metadata \
         services live at 169.254.169.254)",
        one_line_url(url)
    ))
}

/// The host of an interface URL as an address, when it is an IP literal (the WHATWG parser behind `Url`
/// turns decimal, octal and hex IPv4 forms into the dotted one). A bare `host:port` counts as http.
pub fn interface_ip(url: &str) -> Option<IpAddr> {
    let url = url.trim();
    let parsed = if url.contains("://") {
        Url::parse(url).ok()?
    } else {
        Url::parse(&format!("http://{url}")).ok()?
    };
    match parsed.host()? {
        url::Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
        url::Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
        url::Host::Domain(_) => None,
    }
}

fn one_line_url(url: &str) -> String {
    url.chars().filter(|c| !c.is_control()).take(200).collect()
}

/// 169.254.0.0/16 and fe80::/10 (and the IPv4-mapped forms).
pub fn is_link_local(ip: &IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_link_local(),
        IpAddr::V6(v6) => {
            (v6.segments()[0] & 0xffc0) == 0xfe80
                || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_link_local())
        }
    }
}

/// RFC 1918, shared address space (100.64/10), unique local IPv6 (fc00::/7), and the IPv4-mapped forms.
pub fn is_private(ip: &IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_private() || (o[0] == 100 && (o[1] & 0xc0) == 64)
        }
        IpAddr::V6(v6) => {
            (v6.segments()[0] & 0xfe00) == 0xfc00
                || v6
                    .to_ipv4_mapped()
                    .is_some_and(|v4| is_private(&IpAddr::V4(v4)) || v4.is_loopback())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(url: &str, allowed: &[&str]) -> CredentialScope {
        CredentialScope::new(
            url,
            &allowed.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
        .unwrap()
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let a = Origin::of("https://Agent.Example.com/a2a").unwrap();
        assert_eq!(
            a,
            Origin::of("https://agent.example.com:443/other").unwrap()
        );
        assert_ne!(a, Origin::of("http://agent.example.com").unwrap());
        assert_ne!(a, Origin::of("https://agent.example.com:8443").unwrap());
        assert_eq!(a.to_string(), "https://agent.example.com");
        assert_eq!(
            Origin::of("127.0.0.1:50051").unwrap().to_string(),
            "http://127.0.0.1:50051"
        );
        assert!(Origin::of("not a url").is_none());
    }

    #[test]
    fn a_credential_stays_on_its_origins() {
        let s = scope("http://127.0.0.1:9000", &["https://api.example.com"]);
        assert!(s.permits_url("http://127.0.0.1:9000/jsonrpc"));
        assert!(s.permits_url("https://api.example.com/v1"));
        assert!(!s.permits_url("http://127.0.0.1:9001/jsonrpc"));
        assert!(!s.permits_url("https://evil.example.com"));
        let msg = s.refusal(
            "the card's JSONRPC interface",
            "http://127.0.0.1:9001/x",
            "a",
        );
        assert!(
            msg.contains("http://127.0.0.1:9001") && msg.contains("http://127.0.0.1:9000"),
            "{msg}"
        );
        assert!(CredentialScope::new("http://h", &["nope nope".into()]).is_err());
    }

    #[test]
    fn redirects_same_origin_follow_with_headers_others_only_if_allowed_and_without() {
        let s = scope("https://agent.example.com", &["https://cards.example.com"]);
        let from = url("https://agent.example.com/.well-known/agent-card.json");
        let public = ["93.184.216.34".parse().unwrap()];
        assert_eq!(
            judge_redirect(
                &s,
                &from,
                &url("https://agent.example.com/card.json"),
                &public
            ),
            Redirect::Follow { keep_headers: true }
        );
        assert_eq!(
            judge_redirect(
                &s,
                &from,
                &url("https://cards.example.com/card.json"),
                &public
            ),
            Redirect::Follow {
                keep_headers: false
            }
        );
        assert!(matches!(
            judge_redirect(&s, &from, &url("https://evil.example.com/card.json"), &public),
            Redirect::Refuse(m) if m.contains("https://evil.example.com")
        ));
        assert!(matches!(
            judge_redirect(
                &s,
                &from,
                &url("http://agent.example.com/card.json"),
                &public
            ),
            Redirect::Refuse(_)
        ));
    }

    #[test]
    fn link_local_interfaces_are_refused_in_every_spelling() {
        for u in [
            "http://169.254.169.254/latest",
            "http://2852039166/",
            "http://0xa9fea9fe/",
            "http://0251.0376.0251.0376/",
            "http://[::ffff:169.254.169.254]/",
            "http://[fe80::1]:8080/",
            "169.254.1.1:50051",
        ] {
            assert!(link_local_interface("x", u, &[]).is_some(), "{u}");
        }
        assert!(link_local_interface("x", "http://127.0.0.1:1/", &[]).is_none());
        let meta: IpAddr = "169.254.169.254".parse().unwrap();
        assert!(link_local_interface("x", "http://meta.example/", &[meta]).is_some());
    }

    #[test]
    fn link_local_is_never_followed_and_private_only_from_private() {
        let loopback = scope(
            "http://127.0.0.1:9000",
            &["http://169.254.169.254", "http://10.0.0.5"],
        );
        let from = url("http://127.0.0.1:9000/.well-known/agent-card.json");
        let meta = url("http://169.254.169.254/latest/meta-data/");
        let r = judge_redirect(
            &loopback,
            &from,
            &meta,
            &["169.254.169.254".parse().unwrap()],
        );
        assert!(matches!(r, Redirect::Refuse(m) if m.contains("link-local")));
        let v6 = judge_redirect(
            &loopback,
            &from,
            &url("http://[fe80::1]/"),
            &["fe80::1".parse().unwrap()],
        );
        assert!(matches!(v6, Redirect::Refuse(_)));
        // A loopback agent may redirect to a private address the user allowed.
        assert_eq!(
            judge_redirect(
                &loopback,
                &from,
                &url("http://10.0.0.5/c.json"),
                &["10.0.0.5".parse().unwrap()]
            ),
            Redirect::Follow {
                keep_headers: false
            }
        );
        // A public agent may not redirect into the private network, allowed or not.
        let public = scope("https://agent.example.com", &["http://10.0.0.5"]);
        let r = judge_redirect(
            &public,
            &url("https://agent.example.com/x"),
            &url("http://10.0.0.5/c.json"),
            &["10.0.0.5".parse().unwrap()],
        );
        assert!(matches!(r, Redirect::Refuse(m) if m.contains("private")));
    }

    #[test]
    fn address_ranges() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert!(is_link_local(&ip("169.254.169.254")));
        assert!(is_link_local(&ip("fe80::1")));
        assert!(is_link_local(&ip("::ffff:169.254.1.1")));
        assert!(!is_link_local(&ip("10.0.0.1")));
        assert!(is_private(&ip("10.1.2.3")));
        assert!(is_private(&ip("172.16.0.1")));
        assert!(is_private(&ip("192.168.1.1")));
        assert!(is_private(&ip("100.64.0.1")));
        assert!(is_private(&ip("fd00::1")));
        assert!(!is_private(&ip("8.8.8.8")));
    }
}
