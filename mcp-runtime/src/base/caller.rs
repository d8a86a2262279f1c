//! Who a request is charged to ([`Caller`]): the bounds of `subscriptions/listen` streams and
//! the stock middleware's rate and concurrency limits count per caller.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Who a request is charged to: the key of the per-caller limits (listen streams, and the
/// stock [rate](crate::middleware::RateLimitLayer) and
/// [concurrency](crate::middleware::ConcurrencyLimitLayer) limits).
///
/// Read it with [`McpRequest::caller`](crate::McpRequest::caller). An authenticated caller is
/// its identity (the issuer, client and subject of its token, or its Basic user name: the
/// key that owns its legacy sessions); an anonymous one is the address it connects from over
/// HTTP, its connection over stdio and in-process. Behind a reverse proxy every anonymous
/// caller has the proxy's address: authenticate callers when limits must tell them apart.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Caller {
    /// An authenticated caller: its identity key (token issuer, client and subject, or Basic
    /// user name), a JSON array of strings.
    Identified(Arc<str>),
    /// An anonymous HTTP caller, by the address it connects from (an IPv6 address by its
    /// /64 prefix, the block one host usually has; an IPv4-mapped address as IPv4).
    Address(IpAddr),
    /// A stdio or in-process connection (its number in this process).
    Connection(u64),
    /// Anonymous callers whose address is unknown (an app serving the endpoint without
    /// axum's `ConnectInfo`): one shared budget.
    Anonymous,
}

impl Caller {
    /// The caller of an HTTP request: its identity key when it has one, else its address.
    pub(crate) fn http(identity: Option<&Arc<str>>, peer: Option<IpAddr>) -> Self {
        match (identity, peer) {
            (Some(key), _) => Self::Identified(key.clone()),
            (None, Some(ip)) => Self::Address(address_block(ip)),
            (None, None) => Self::Anonymous,
        }
    }

    /// A new stdio or in-process connection, unlike every other.
    pub(crate) fn connection() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Self::Connection(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl std::fmt::Display for Caller {
    /// The key as a log field and a rate-limit key: `id:<identity>`, `ip:<address>`,
    /// `conn:<n>` or `anonymous`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Identified(key) => write!(f, "id:{key}"),
            Self::Address(ip) => write!(f, "ip:{ip}"),
            Self::Connection(n) => write!(f, "conn:{n}"),
            Self::Anonymous => f.write_str("anonymous"),
        }
    }
}

/// The block of addresses one anonymous caller is taken to have: an IPv4 address, or the
/// /64 of an IPv6 address (a host can pick any address of its /64).
fn address_block(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
    }
}

/// The peer address axum's `ConnectInfo` put into an HTTP request's extensions.
pub(crate) fn peer_of(extensions: &http::Extensions) -> Option<IpAddr> {
    extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0.ip())
}
