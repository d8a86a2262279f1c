//! Server-provided DPoP nonces (RFC 9449 §9), stateless: the nonce of a time slot is an
//! HMAC-SHA256 of the slot number under the configured secret, so every replica that shares
//! the secret issues and accepts the same nonces without sharing any state.
//!
//! Time is cut into slots of the nonce lifetime. The server hands out the current slot's
//! nonce and accepts the previous slot's too (and tells the client the current one in a
//! `DPoP-Nonce` header), so a nonce works for between one and two lifetimes; the next slot's
//! is accepted as well, so replicas whose clocks differ by less than a lifetime agree.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq as _;

type HmacSha256 = Hmac<Sha256>;

/// Bytes of MAC in a nonce (24 base64url characters).
const NONCE_BYTES: usize = 18;
/// Separates these MACs from any other use of the secret.
const CONTEXT: &[u8] = b"mcp dpop nonce v1\0";

/// How a proof's nonce compares with the server's.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// The current slot's (or the next one's): accepted.
    Current,
    /// The previous slot's: accepted, and the client is handed the current one.
    Stale,
    /// Absent, or no nonce of an accepted slot: refused with `use_dpop_nonce`.
    Refused,
}

/// The nonces of one secret.
pub(crate) struct Nonces {
    mac: HmacSha256,
    lifetime: u64,
}

impl Nonces {
    /// Nonces under `secret` (any length; the configuration asks for 32 bytes or more),
    /// rotating every `lifetime` seconds (at least one).
    pub(crate) fn new(secret: &[u8], lifetime: u64) -> Self {
        Self {
            mac: HmacSha256::new_from_slice(secret).expect("HMAC takes keys of any length"),
            lifetime: lifetime.max(1),
        }
    }

    fn mac(&self, slot: u64) -> [u8; NONCE_BYTES] {
        let mut mac = self.mac.clone();
        mac.update(CONTEXT);
        mac.update(&slot.to_be_bytes());
        let full = mac.finalize().into_bytes();
        let mut out = [0; NONCE_BYTES];
        out.copy_from_slice(&full[..NONCE_BYTES]);
        out
    }

    /// The nonce to hand out at `now` (seconds since the Unix epoch).
    pub(crate) fn current(&self, now: u64) -> String {
        URL_SAFE_NO_PAD.encode(self.mac(now / self.lifetime))
    }

    /// How `nonce` compares at `now`.
    pub(crate) fn check(&self, nonce: Option<&str>, now: u64) -> Check {
        let Some(bytes) = nonce.and_then(|n| URL_SAFE_NO_PAD.decode(n).ok()) else {
            return Check::Refused;
        };
        if bytes.len() != NONCE_BYTES {
            return Check::Refused;
        }
        let slot = now / self.lifetime;
        let is = |s: u64| bool::from(self.mac(s).ct_eq(&bytes[..]));
        if is(slot) || is(slot.saturating_add(1)) {
            Check::Current
        } else if slot > 0 && is(slot - 1) {
            Check::Stale
        } else {
            Check::Refused
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_rotate_and_are_keyed() {
        let n = Nonces::new(b"a secret of thirty-two bytes ...", 300);
        let now = 1_800_000_000;
        let current = n.current(now);
        assert_eq!(current.len(), 24);
        assert_eq!(n.current(now + 1), current, "the same slot");
        assert_eq!(n.check(Some(&current), now), Check::Current);
        // The previous slot's is accepted and renewed; the one before is refused.
        assert_eq!(n.check(Some(&current), now + 300), Check::Stale);
        assert_eq!(n.check(Some(&current), now + 600), Check::Refused);
        // A replica whose clock is behind accepts the next slot's.
        assert_eq!(n.check(Some(&n.current(now + 300)), now), Check::Current);
        assert_eq!(n.check(Some(&n.current(now + 600)), now), Check::Refused);
        // Another secret's, garbage, none.
        let other = Nonces::new(b"another secret of 32 bytes .....", 300);
        assert_eq!(n.check(Some(&other.current(now)), now), Check::Refused);
        for bad in ["", "AAAA", "!!!!", &current[..23], &format!("{current}A")] {
            assert_eq!(n.check(Some(bad), now), Check::Refused, "{bad:?}");
        }
        assert_eq!(n.check(None, now), Check::Refused);
        assert_eq!(n.check(Some(&n.current(0)), 0), Check::Current);
    }
}
