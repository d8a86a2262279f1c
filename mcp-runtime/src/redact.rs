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

use std::fmt;

use sha2::Digest as _;

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

#[cfg(test)]
pub(crate) mod tests;
