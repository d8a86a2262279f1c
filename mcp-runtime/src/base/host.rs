//! `Host` values: a host name or address with an optional port, as the HTTP transport's
//! `Host` check reads them and as the builder's allowed-host list is validated.

use std::borrow::Cow;
use std::net::Ipv6Addr;

use http::uri::Authority;

/// Whether `value` is a valid allowed-host entry (a host, an IP literal, optionally a port).
pub(crate) fn is_host_pattern(value: &str) -> bool {
    split_host(value).is_some()
}

/// A `Host` value split into its lowercase host and its port, or `None` when it is not a
/// plain `host[:port]` (user info, an empty host, an unbracketed IPv6 address). The host is
/// borrowed from `value` when it is lowercase already (it runs on every request).
pub(crate) fn split_host(value: &str) -> Option<(Cow<'_, str>, Option<u16>)> {
    if value.is_empty() || value.contains(['@', '*']) {
        return None;
    }
    let authority: Authority = value.parse().ok()?;
    let host = authority.host();
    if host.is_empty() || (host.starts_with('[') && bracketed_v6(host).is_none()) {
        return None;
    }
    let port = match value.get(host.len()..)? {
        "" => None,
        rest => {
            let digits = rest.strip_prefix(':')?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            Some(digits.parse::<u16>().ok()?)
        }
    };
    let host = value.get(..host.len())?;
    let host = if host.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(host.to_ascii_lowercase())
    } else {
        Cow::Borrowed(host)
    };
    Some((host, port))
}

pub(crate) fn bracketed_v6(host: &str) -> Option<Ipv6Addr> {
    host.strip_prefix('[')?.strip_suffix(']')?.parse().ok()
}
