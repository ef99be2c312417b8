//! How the user wants to talk to an agent, as plain data the config holds and `remote::connect` reads: the
//! binding (`JSONRPC`, `HTTP+JSON`, `GRPC`), the protocol generation (1.0 or 0.3), and both as preferences.

/// A protocol binding we can speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    JsonRpc,
    HttpJson,
    Grpc,
}

impl Binding {
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.to_ascii_uppercase().replace(['-', '_', '/'], "").as_str() {
            "JSONRPC" => Ok(Self::JsonRpc),
            "HTTP+JSON" | "HTTPJSON" | "REST" => Ok(Self::HttpJson),
            "GRPC" => Ok(Self::Grpc),
            _ => Err(format!(
                "binding {s:?} is not one of JSONRPC, HTTP+JSON, GRPC"
            )),
        }
    }

    /// The card's spelling.
    pub fn wire_name(self) -> &'static str {
        match self {
            Self::JsonRpc => a2a::TRANSPORT_PROTOCOL_JSONRPC,
            Self::HttpJson => a2a::TRANSPORT_PROTOCOL_HTTP_JSON,
            Self::Grpc => a2a::TRANSPORT_PROTOCOL_GRPC,
        }
    }

    /// A card's `protocolBinding`, when it is one we speak.
    pub fn from_card(s: &str) -> Option<Self> {
        match s {
            a2a::TRANSPORT_PROTOCOL_JSONRPC => Some(Self::JsonRpc),
            a2a::TRANSPORT_PROTOCOL_HTTP_JSON => Some(Self::HttpJson),
            a2a::TRANSPORT_PROTOCOL_GRPC => Some(Self::Grpc),
            _ => None,
        }
    }
}

/// Protocol generations the console speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProtocolChoice {
    V03,
    V1,
}

impl ProtocolChoice {
    /// A card's or the user's version string. 0.2.x is spoken as 0.3: its JSON-RPC methods and objects
    /// (`message/send`, `message/stream`, `tasks/get` …) are 0.3's (see `card::rules`, which says so on the card).
    pub fn parse(s: &str) -> Result<Self, String> {
        match major_minor(s) {
            Some((1, _)) => Ok(Self::V1),
            Some((0, 2 | 3)) => Ok(Self::V03),
            _ => Err(format!("protocol {s:?} is not one of 1.0, 0.3 (or 0.2.x)")),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::V1 => "1.0",
            Self::V03 => "0.3",
        }
    }
}

/// "1.0", "0.3.0", "1" → (major, minor). Versions in the wild carry a patch part; compare Major.Minor only.
pub fn major_minor(v: &str) -> Option<(u64, u64)> {
    let mut it = v.trim().trim_start_matches(['v', 'V']).split('.');
    let major = it.next()?.parse().ok()?;
    let minor = it.next().map(|m| m.parse().ok()).unwrap_or(Some(0))?;
    Some((major, minor))
}

/// What the user asked for, all optional.
#[derive(Clone, Copy, Debug, Default)]
pub struct Preferences {
    pub binding: Option<Binding>,
    pub protocol: Option<ProtocolChoice>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_and_binding_parsing() {
        assert_eq!(major_minor("0.3.0"), Some((0, 3)));
        assert_eq!(major_minor("1"), Some((1, 0)));
        assert_eq!(ProtocolChoice::parse("1.0").unwrap(), ProtocolChoice::V1);
        assert_eq!(ProtocolChoice::parse("0.3").unwrap(), ProtocolChoice::V03);
        assert_eq!(ProtocolChoice::parse("0.2.9").unwrap(), ProtocolChoice::V03);
        assert!(ProtocolChoice::parse("0.1").is_err());
        assert!(ProtocolChoice::parse("2.0").is_err());
        assert_eq!(Binding::parse("http+json").unwrap(), Binding::HttpJson);
        assert_eq!(Binding::parse("grpc").unwrap(), Binding::Grpc);
        assert!(Binding::parse("soap").is_err());
    }
}
