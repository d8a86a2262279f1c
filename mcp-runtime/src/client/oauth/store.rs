//! Token storage: the [`TokenStore`] trait and its in-memory default.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use super::dpop::DpopKey;
use crate::redact::Redacted;

/// The tokens the client holds for one MCP server. Its `Debug` output never shows them: each
/// token appears as a fingerprint, `<redacted sha256:1a2b3c4d>` (the first 8 hex digits of
/// its SHA-256), which tells tokens apart in a log, and a DPoP key as its thumbprint.
///
/// A DPoP-bound token (RFC 9449) keeps its key ([`dpop_key`](Self::dpop_key)): the client
/// presents it, and refreshes it, with that key only.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredToken {
    access_token: String,
    refresh_token: Option<String>,
    expires_at: Option<SystemTime>,
    scopes: Vec<String>,
    /// The authorization server that issued it, if known.
    issuer: Option<String>,
    /// The key a DPoP-bound token is bound to.
    dpop_key: Option<DpopKey>,
    /// How long before expiry the token is renewed.
    margin: Duration,
}

/// A token is renewed this long before it expires (a quarter of a shorter lifetime).
const RENEW_MARGIN: Duration = Duration::from_secs(30);

impl std::fmt::Debug for StoredToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredToken")
            .field("access_token", &Redacted::fingerprint(&self.access_token))
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(Redacted::fingerprint),
            )
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .field("issuer", &self.issuer)
            .field("dpop_key", &self.dpop_key)
            .finish()
    }
}

impl StoredToken {
    /// A token: the access token, the refresh token if any, when it expires (if known)
    /// and the scopes it was granted.
    pub fn new(
        access_token: impl Into<String>,
        refresh_token: Option<String>,
        expires_at: Option<SystemTime>,
        scopes: Vec<String>,
    ) -> Self {
        Self {
            access_token: access_token.into(),
            refresh_token,
            expires_at,
            scopes,
            issuer: None,
            dpop_key: None,
            margin: RENEW_MARGIN,
        }
    }

    /// Records the issuer of the authorization server that issued the token. The client
    /// records it on every token it obtains; a store that keeps it lets the client refuse
    /// to present the refresh token to another authorization server after the resource
    /// moved (SEP-2352).
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The issuer of the authorization server that issued the token, if recorded.
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// Binds the token to a DPoP key: it is then presented with the `DPoP` scheme and a
    /// proof signed by `key`, and refreshed with proofs of the same key. The client records
    /// it on every DPoP-bound token; a persistent store must keep it
    /// ([`DpopKey::to_pkcs8_pem`]).
    pub fn with_dpop_key(mut self, key: DpopKey) -> Self {
        self.dpop_key = Some(key);
        self
    }

    /// The DPoP key the token is bound to (`None`: a bearer token).
    pub fn dpop_key(&self) -> Option<&DpopKey> {
        self.dpop_key.as_ref()
    }

    /// A token valid for `lifetime` from now, renewed when less than a quarter of it (at
    /// most 30 s) is left.
    pub(crate) fn issued(
        access_token: String,
        refresh_token: Option<String>,
        lifetime: Option<Duration>,
        scopes: Vec<String>,
    ) -> Self {
        let mut token = Self::new(
            access_token,
            refresh_token,
            lifetime.map(|l| SystemTime::now() + l),
            scopes,
        );
        if let Some(lifetime) = lifetime {
            token.margin = RENEW_MARGIN.min(lifetime / 4);
        }
        token
    }

    /// Whether the token should be renewed before use.
    pub(crate) fn needs_renewal(&self) -> bool {
        self.expires_within(self.margin)
    }

    /// The access token.
    pub fn access_token(&self) -> &str {
        &self.access_token
    }

    /// The refresh token.
    pub fn refresh_token(&self) -> Option<&str> {
        self.refresh_token.as_deref()
    }

    /// When the access token expires, if the server said.
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.expires_at
    }

    /// The scopes granted (or, when the server did not say, requested).
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether the token expires within `margin` from now.
    pub fn expires_within(&self, margin: Duration) -> bool {
        self.expires_at
            .is_some_and(|at| at <= SystemTime::now() + margin)
    }
}

/// Where a client keeps its tokens, keyed by the MCP server's URL. The default,
/// [`MemoryTokenStore`], forgets them when the client is dropped; implement this trait to
/// keep them in a keychain or a file. Calls are short and made under the client's
/// authorization lock.
pub trait TokenStore: Send + Sync + 'static {
    /// The token stored for `server`.
    fn load(&self, server: &str) -> Option<StoredToken>;
    /// Stores (replaces) the token for `server`.
    fn save(&self, server: &str, token: StoredToken);
    /// Forgets the token for `server`.
    fn remove(&self, server: &str);
}

/// Tokens in memory (the default store).
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, StoredToken>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, server: &str) -> Option<StoredToken> {
        self.tokens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(server)
            .cloned()
    }

    fn save(&self, server: &str, token: StoredToken) {
        self.tokens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(server.to_owned(), token);
    }

    fn remove(&self, server: &str) {
        self.tokens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(server);
    }
}

impl<T: TokenStore> TokenStore for std::sync::Arc<T> {
    fn load(&self, server: &str) -> Option<StoredToken> {
        (**self).load(server)
    }

    fn save(&self, server: &str, token: StoredToken) {
        (**self).save(server, token);
    }

    fn remove(&self, server: &str) {
        (**self).remove(server);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_tokens() {
        let token = StoredToken::new(
            "secret-access-value",
            Some("secret-refresh-value".into()),
            None,
            vec!["a".into()],
        );
        let shown = format!("{token:?}");
        assert!(!shown.contains("secret-access-value"), "{shown}");
        assert!(!shown.contains("secret-refresh-value"), "{shown}");
        let store = MemoryTokenStore::new();
        store.save("s", token.clone());
        assert_eq!(store.load("s"), Some(token));
        assert!(!format!("{store:?}").contains("secret-access-value"));
        store.remove("s");
        assert_eq!(store.load("s"), None);
    }
}
