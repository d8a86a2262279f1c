//! Keeping secrets out of `Debug` and `Display` output: no public type of the crate shows a
//! bearer, refresh or access token, an ID-JAG or client assertion, a client secret, a
//! password, a signing or private key, a PKCE verifier, an authorization code or a session
//! id, so that a `tracing::debug!(?value)` never writes a credential to a log.
//!
//! Everything that hides a secret goes through this module:
//!
//! - [`Redacted`] stands in for a secret shown on its own: `<redacted>`, or, for a secret
//!   worth telling apart from others in a log, `<redacted sha256:1a2b3c4d>` — the first 8 hex
//!   digits of its SHA-256 (`printf %s "$TOKEN" | sha256sum | cut -c1-8` names the same
//!   one). Only secrets a machine drew at random get a fingerprint (tokens an authorization
//!   server issued, session ids): 32 bits of the hash of a value a person chose (a password,
//!   a client secret, a header value) would let anyone holding the log confirm a guess.
//! - [`mark_sensitive_headers`] makes `http`'s own `Debug` hide a request's credentials.
//! - [`Names`] shows named secrets (headers, environment variables, users) by name only.
//! - [`MASK`] (`***`) replaces a secret inside a longer text: the password of a URL, the
//!   value of a sensitive query parameter or command-line flag.
//! - [`is_sensitive_name`] tells whether a parameter, flag, header or member named so
//!   carries a secret; [`url`] and [`args`] mask by it, [`JsonMembers`] hides by it.
//!
//! Decisions: a **session id** is treated as a secret (shown as a fingerprint), since
//! whoever holds the id of a session without an owner can use it; the fingerprint still
//! tells sessions apart in a log. An `AuthContext`'s **claims** are not secret but may be
//! personal data: its `Debug` names them without their values. A future key type (a DPoP
//! key) shows as [`Redacted::HIDDEN`], like the client's `private_key_jwt` key.

use std::borrow::Cow;
use std::fmt;

use sha2::Digest as _;

/// What stands for a secret inside a longer text (a URL, a command line).
pub(crate) const MASK: &str = "***";

/// The stand-in of a secret in `Debug` (and `Display`) output.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Redacted(Shown);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shown {
    Hidden,
    Empty,
    Fingerprint([u8; 4]),
}

impl Redacted {
    /// `<redacted>`: nothing of the secret.
    pub(crate) const HIDDEN: Self = Self(Shown::Hidden);

    /// `<redacted sha256:1a2b3c4d>`, or `<empty>` for an empty secret (which hides nothing).
    /// For random secrets only (tokens, session ids): see the module's documentation.
    pub(crate) fn fingerprint(secret: impl AsRef<[u8]>) -> Self {
        let secret = secret.as_ref();
        if secret.is_empty() {
            return Self(Shown::Empty);
        }
        let digest = sha2::Sha256::digest(secret);
        Self(Shown::Fingerprint([
            digest[0], digest[1], digest[2], digest[3],
        ]))
    }
}

impl fmt::Display for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Shown::Hidden => f.write_str("<redacted>"),
            Shown::Empty => f.write_str("<empty>"),
            Shown::Fingerprint([a, b, c, d]) => {
                write!(f, "<redacted sha256:{a:02x}{b:02x}{c:02x}{d:02x}>")
            }
        }
    }
}

impl fmt::Debug for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `Debug` of named secrets (headers, environment variables, users and their passwords) as
/// a map from each name to `<redacted>`.
#[cfg(any(feature = "client", feature = "oauth"))]
pub(crate) struct Names<K>(Vec<K>);

#[cfg(any(feature = "client", feature = "oauth"))]
impl<K: fmt::Debug> Names<K> {
    pub(crate) fn new(names: impl IntoIterator<Item = K>) -> Self {
        Self(names.into_iter().collect())
    }
}

#[cfg(any(feature = "client", feature = "oauth"))]
impl<K: fmt::Debug> fmt::Debug for Names<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|name| (name, Redacted::HIDDEN)))
            .finish()
    }
}

/// Marks the credential headers of a request (`Authorization`, `Proxy-Authorization`,
/// `Cookie`, `Mcp-Session-Id`) sensitive, so that `Debug` of the `HeaderMap` or
/// `http::request::Parts` a tool binds shows `Sensitive` instead of their values. Other
/// headers are left as they are (an `X-Api-Key` of a custom layer shows).
pub(crate) fn mark_sensitive_headers(headers: &mut http::HeaderMap) {
    use http::header::{AUTHORIZATION, COOKIE, PROXY_AUTHORIZATION};
    // A walk rather than lookups: no hashing, and `HeaderMap::entry` may grow the map.
    for (name, value) in headers.iter_mut() {
        if name == AUTHORIZATION
            || name == PROXY_AUTHORIZATION
            || name == COOKIE
            || name == crate::protocol::headers::MCP_SESSION_ID
        {
            value.set_sensitive(true);
        }
    }
}

/// Whether a query parameter, command-line flag, header or JSON member named `name` carries
/// a secret (ASCII case and leading dashes ignored): `code`, `state`, `key`, `auth`,
/// `cookie` and the like, or any name containing `token`, `secret`, `password`, `api_key`,
/// `credential`, `assertion`, `signature`, `session` or `private`. Erring on the side of
/// hiding: `token_type` is hidden too.
pub(crate) fn is_sensitive_name(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "code",
        "state",
        "key",
        "sig",
        "pwd",
        "pass",
        "auth",
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "code_verifier",
    ];
    const PARTS: &[&str] = &[
        "token",
        "secret",
        "password",
        "passwd",
        "apikey",
        "api_key",
        "api-key",
        "credential",
        "assertion",
        "signature",
        "session",
        "private",
    ];
    let name = name.trim().trim_start_matches('-').to_ascii_lowercase();
    EXACT.contains(&name.as_str()) || PARTS.iter().any(|part| name.contains(part))
}

/// `text` (a URL, or what was meant to be one) with its secrets masked: the password of its
/// userinfo (`https://user:***@host`; userinfo without a password, often a token, is masked
/// whole) and the values of its query and fragment parameters with a
/// [sensitive name](is_sensitive_name) (`?code=***&state=***`). The rest is kept as it was,
/// so the URL still says where the request went.
pub(crate) fn url(text: &str) -> Cow<'_, str> {
    let (before_fragment, fragment) = split(text, '#');
    let (base, query) = split(before_fragment, '?');
    let userinfo = base.find("://").and_then(|scheme_end| {
        let start = scheme_end + 3;
        let authority_end = base[start..].find('/').map_or(base.len(), |i| start + i);
        let at = base[start..authority_end].rfind('@')?;
        Some((start, start + at))
    });
    let query_masked = query.map(parameters);
    let fragment_masked = fragment.map(parameters);
    let changed = userinfo.is_some()
        || matches!(query_masked, Some(Cow::Owned(_)))
        || matches!(fragment_masked, Some(Cow::Owned(_)));
    if !changed {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    match userinfo {
        Some((start, at)) => {
            out.push_str(&base[..start]);
            if let Some((user, _)) = base[start..at].split_once(':') {
                out.push_str(user);
                out.push(':');
            }
            out.push_str(MASK);
            out.push_str(&base[at..]);
        }
        None => out.push_str(base),
    }
    if let Some(query) = query_masked {
        out.push('?');
        out.push_str(&query);
    }
    if let Some(fragment) = fragment_masked {
        out.push('#');
        out.push_str(&fragment);
    }
    Cow::Owned(out)
}

/// `text` split at the first `c` (excluded).
fn split(text: &str, c: char) -> (&str, Option<&str>) {
    match text.split_once(c) {
        Some((before, after)) => (before, Some(after)),
        None => (text, None),
    }
}

/// `name=value&…` with the values of sensitive names masked.
fn parameters(text: &str) -> Cow<'_, str> {
    let sensitive = |piece: &str| {
        piece.split_once('=').is_some_and(|(name, value)| {
            !value.is_empty()
                && is_sensitive_name(
                    &percent_encoding::percent_decode_str(name).decode_utf8_lossy(),
                )
        })
    };
    if !text.split('&').any(sensitive) {
        return Cow::Borrowed(text);
    }
    let pieces: Vec<Cow<'_, str>> = text
        .split('&')
        .map(|piece| match piece.split_once('=') {
            Some((name, _)) if sensitive(piece) => Cow::Owned(format!("{name}={MASK}")),
            _ => Cow::Borrowed(piece),
        })
        .collect();
    Cow::Owned(pieces.join("&"))
}

/// Command-line arguments with their secrets masked: the value of a flag with a
/// [sensitive name](is_sensitive_name) (`--api-key ***`, `--token=***`) and the secrets of
/// URL arguments ([`url`]). A secret passed as a bare argument cannot be told from any other
/// argument and stays visible: pass secrets in the environment.
#[cfg(feature = "client")]
pub(crate) fn args<'a>(args: impl IntoIterator<Item = Cow<'a, str>>) -> Vec<Cow<'a, str>> {
    let mut mask_next = false;
    args.into_iter()
        .map(|arg| {
            if std::mem::take(&mut mask_next) {
                return Cow::Borrowed(MASK);
            }
            match arg.split_once('=') {
                Some((flag, value))
                    if flag.starts_with('-') && !value.is_empty() && is_sensitive_name(flag) =>
                {
                    Cow::Owned(format!("{flag}={MASK}"))
                }
                _ => {
                    mask_next =
                        arg.starts_with('-') && !arg.contains('=') && is_sensitive_name(&arg);
                    match url(&arg) {
                        Cow::Borrowed(_) => arg,
                        Cow::Owned(masked) => Cow::Owned(masked),
                    }
                }
            }
        })
        .collect()
}

/// `Debug` of a JSON object with the value of every member with a
/// [sensitive name](is_sensitive_name) shown as `<redacted>` (members of nested objects are
/// shown as they are).
#[cfg(all(feature = "client", feature = "oauth"))]
pub(crate) struct JsonMembers<'a>(pub(crate) &'a serde_json::Map<String, serde_json::Value>);

#[cfg(all(feature = "client", feature = "oauth"))]
impl fmt::Debug for JsonMembers<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|(name, value)| {
                let shown: &dyn fmt::Debug = if is_sensitive_name(name) {
                    &Redacted::HIDDEN
                } else {
                    value
                };
                (name, shown)
            }))
            .finish()
    }
}

/// `e` with the secrets of the URL it quotes masked ([`url`]): reqwest's message ends with
/// `for url (…)`, query included.
#[cfg(feature = "client")]
pub(crate) fn reqwest_error(mut e: reqwest::Error) -> reqwest::Error {
    let Some(quoted) = e.url_mut() else {
        return e;
    };
    if let Cow::Owned(masked) = url(quoted.as_str()) {
        match reqwest::Url::parse(&masked) {
            Ok(masked) => *quoted = masked,
            Err(_) => return e.without_url(),
        }
    }
    e
}

#[cfg(test)]
pub(crate) mod tests;
