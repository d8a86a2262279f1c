//! The OAuth configuration of a client: the grant ([`OAuthConfig`]), the client's
//! registration ([`ClientRegistration`]) and its authentication ([`ClientAuth`]).

use std::sync::Arc;

use super::assertion::{
    AssertionProvider, AssertionSource, DynAssertionProvider, WorkloadIdentity,
};
use super::client_auth::ClientAuth;
use super::dpop::{DpopKey, DpopPolicy};
use super::handler::{AuthorizationHandler, DynAuthorizationHandler};
use super::id_jag::{
    IdentityAssertionContext, IdentityProviderConfig, exchange_id_token_for_id_jag,
};
use super::store::{MemoryTokenStore, TokenStore};

/// Who the client is at the authorization server.
///
/// - [`pre_registered`](Self::pre_registered): a client ID (and [`auth`](Self::auth))
///   issued by the server beforehand; with [`issuer`](Self::issuer), that server must be
///   listed in the MCP server's protected resource metadata.
/// - [`metadata_document`](Self::metadata_document): a Client ID Metadata Document, whose
///   HTTPS URL is the client ID, used when the server advertises
///   `client_id_metadata_document_supported`.
/// - [`dynamic`](Self::dynamic): dynamic client registration (RFC 7591).
///
/// A metadata document falls back to dynamic registration when the server does not
/// support documents.
#[derive(Clone, Debug)]
#[must_use]
pub struct ClientRegistration {
    pub(crate) client_id: Option<String>,
    pub(crate) issuer: Option<String>,
    pub(crate) auth: ClientAuth,
    pub(crate) metadata_url: Option<String>,
    pub(crate) dynamic: bool,
    pub(crate) client_name: String,
}

impl ClientRegistration {
    /// Dynamic client registration only.
    pub fn dynamic() -> Self {
        Self {
            client_id: None,
            issuer: None,
            auth: ClientAuth::none(),
            metadata_url: None,
            dynamic: true,
            client_name: "mcp-rs".into(),
        }
    }

    /// A pre-registered client ID (public unless [`auth`](Self::auth) is set).
    pub fn pre_registered(client_id: impl Into<String>) -> Self {
        Self {
            client_id: Some(client_id.into()),
            dynamic: false,
            ..Self::dynamic()
        }
    }

    /// A Client ID Metadata Document at `url` (HTTPS), with dynamic registration as the
    /// fallback.
    pub fn metadata_document(url: impl Into<String>) -> Self {
        Self {
            metadata_url: Some(url.into()),
            ..Self::dynamic()
        }
    }

    /// The authorization server that issued a pre-registered client ID.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The client's authentication at the token endpoint (default: none).
    pub fn auth(mut self, auth: ClientAuth) -> Self {
        self.auth = auth;
        self
    }

    /// Whether dynamic registration may be used (the default except for a pre-registered
    /// client).
    pub fn dynamic_registration(mut self, enabled: bool) -> Self {
        self.dynamic = enabled;
        self
    }

    /// The `client_name` sent at dynamic registration (default `mcp-rs`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }
}

/// The grant the client uses.
#[derive(Clone)]
pub(crate) enum Grant {
    AuthorizationCode {
        client: ClientRegistration,
        handler: Arc<dyn DynAuthorizationHandler>,
    },
    ClientCredentials {
        client_id: String,
        auth: ClientAuth,
        issuer: Option<String>,
    },
    IdentityAssertion {
        client: ClientRegistration,
        provider: Arc<dyn DynAssertionProvider>,
    },
    WorkloadIdentity(WorkloadIdentity),
}

/// The OAuth configuration of a [`Client`](crate::client::Client)
/// ([`ClientConfig::oauth`](crate::client::ClientConfig::oauth)).
///
/// On a `401` the client discovers the server's authorization server, obtains a token
/// with the configured grant and retries; on a `403 insufficient_scope` it asks for the
/// union of its scopes and the challenge's (step-up), at most three times per request.
///
/// Tokens are DPoP-bound (RFC 9449) when the authorization server advertises ES256 DPoP
/// proofs: see [`dpop`](Self::dpop).
///
/// ```
/// use mcp::client::ClientConfig;
/// use mcp::client::oauth::{ClientAuth, ClientRegistration, OAuthConfig, ProgrammaticAuthorization};
///
/// // Authorization code + PKCE with a pre-registered confidential client.
/// let code = OAuthConfig::authorization_code(
///     ClientRegistration::pre_registered("my-client").auth(ClientAuth::client_secret("s3cret")),
///     ProgrammaticAuthorization::new("http://127.0.0.1:8765/callback"),
/// );
/// // Client credentials for a machine client.
/// let machine = OAuthConfig::client_credentials("svc", ClientAuth::client_secret("s3cret"))
///     .scopes(["tools:read"]);
/// let config = ClientConfig::new().oauth(code);
/// # drop((config, machine));
/// ```
#[derive(Clone)]
#[must_use]
pub struct OAuthConfig {
    pub(crate) grant: Grant,
    pub(crate) scopes: Option<Vec<String>>,
    pub(crate) store: Arc<dyn TokenStore>,
    pub(crate) offline_access: bool,
    pub(crate) dpop: DpopPolicy,
    pub(crate) dpop_key: Option<DpopKey>,
}

impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let grant = match &self.grant {
            Grant::AuthorizationCode { .. } => "authorization_code",
            Grant::ClientCredentials { .. } => "client_credentials",
            Grant::IdentityAssertion { .. } => "jwt-bearer (ID-JAG)",
            Grant::WorkloadIdentity(_) => "jwt-bearer (workload identity)",
        };
        f.debug_struct("OAuthConfig")
            .field("grant", &grant)
            .field("scopes", &self.scopes)
            .field("offline_access", &self.offline_access)
            .field("dpop", &self.dpop)
            .field("dpop_key", &self.dpop_key)
            .finish_non_exhaustive()
    }
}

impl OAuthConfig {
    fn with(grant: Grant) -> Self {
        Self {
            grant,
            scopes: None,
            store: Arc::new(MemoryTokenStore::new()),
            offline_access: true,
            dpop: DpopPolicy::default(),
            dpop_key: None,
        }
    }

    /// The authorization code grant with PKCE (S256): `handler` takes the user through
    /// the authorization endpoint.
    pub fn authorization_code(
        client: ClientRegistration,
        handler: impl AuthorizationHandler,
    ) -> Self {
        Self::with(Grant::AuthorizationCode {
            client,
            handler: Arc::new(handler),
        })
    }

    /// The client credentials grant, with a secret or a JWT assertion.
    pub fn client_credentials(client_id: impl Into<String>, auth: ClientAuth) -> Self {
        Self::with(Grant::ClientCredentials {
            client_id: client_id.into(),
            auth,
            issuer: None,
        })
    }

    /// Enterprise-managed authorization with an ID-JAG from anywhere: after discovery,
    /// `provider` is called with the resolved audience, resource, client ID and scopes, and
    /// returns an ID-JAG, which the JWT-bearer grant (RFC 7523) exchanges at the resource's
    /// authorization server (only if its `aud` names that server). It runs under the
    /// client's authorization lock (other requests wait; it must not use the same client).
    /// Only the final access token is kept; refresh tokens are ignored.
    /// [`enterprise_managed`](Self::enterprise_managed) is this with the token exchange at
    /// an identity provider as the provider.
    pub fn identity_assertion(
        client: ClientRegistration,
        provider: impl AssertionProvider,
    ) -> Self {
        Self::with(Grant::IdentityAssertion {
            client,
            provider: Arc::new(provider),
        })
    }

    /// Enterprise-managed authorization (SEP-990) in one step: at each authorization the
    /// user's OpenID Connect ID token (`id_token`, read afresh each time) is exchanged at
    /// the enterprise identity provider `idp` for an ID-JAG (RFC 8693 token exchange, with
    /// the discovered authorization server as audience, the resource and the scopes; see
    /// [`exchange_id_token_for_id_jag`]), which the JWT-bearer grant then exchanges at the
    /// MCP server's authorization server with `client`'s credentials there. The same as
    /// [`identity_assertion`](Self::identity_assertion) with that exchange as the provider.
    ///
    /// ```
    /// use mcp::client::oauth::{
    ///     AssertionSource, ClientAuth, ClientRegistration, IdentityProviderConfig, OAuthConfig,
    /// };
    ///
    /// let idp = IdentityProviderConfig::new("https://idp.example.com", "mcp-host-at-idp");
    /// let oauth = OAuthConfig::enterprise_managed(
    ///     ClientRegistration::pre_registered("mcp-host").auth(ClientAuth::client_secret("s3cret")),
    ///     idp,
    ///     AssertionSource::env("USER_ID_TOKEN"),
    /// );
    /// # drop(oauth);
    /// ```
    pub fn enterprise_managed(
        client: ClientRegistration,
        idp: IdentityProviderConfig,
        id_token: AssertionSource,
    ) -> Self {
        Self::identity_assertion(client, move |context: IdentityAssertionContext| {
            let (idp, id_token) = (idp.clone(), id_token.clone());
            async move {
                let id_token = id_token.read(context.clone()).await?;
                exchange_id_token_for_id_jag(&id_token, &context, &idp).await
            }
        })
    }

    /// Workload identity federation (SEP-1933): the JWT-bearer grant (RFC 7523) with the
    /// workload's platform-issued JWT, no registered client and no secret; see
    /// [`WorkloadIdentity`]. Tokens are not refreshed: the grant runs again, with the
    /// assertion read afresh, when one expires.
    pub fn workload_identity(workload: WorkloadIdentity) -> Self {
        Self::with(Grant::WorkloadIdentity(workload))
    }

    /// Requests these scopes (the challenge's are added) instead of choosing them from the
    /// challenge or the metadata.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// For the client credentials grant: the authorization server that issued the client,
    /// which the resource must list.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        if let Grant::ClientCredentials { issuer: i, .. } = &mut self.grant {
            *i = Some(issuer.into());
        }
        self
    }

    /// Where tokens are kept (default: in memory).
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Whether the code flow asks for `offline_access` (a refresh token) when the
    /// authorization server lists it in `scopes_supported` (default `true`).
    pub fn offline_access(mut self, enabled: bool) -> Self {
        self.offline_access = enabled;
        self
    }

    /// When tokens are DPoP-bound (RFC 9449, SEP-1932). The default,
    /// [`DpopPolicy::Auto`], asks for them when the authorization server advertises ES256
    /// in `dpop_signing_alg_values_supported` (or the resource requires them): every token
    /// request then carries a proof of the client's key, and a `DPoP` token goes to the
    /// server with the `DPoP` scheme and a fresh proof per request (`ath`, and the nonce a
    /// server asks for with `use_dpop_nonce`, retried once).
    ///
    /// ```
    /// use mcp::client::oauth::{ClientAuth, DpopPolicy, OAuthConfig};
    ///
    /// let oauth = OAuthConfig::client_credentials("svc", ClientAuth::client_secret("s3cret"))
    ///     .dpop(DpopPolicy::Required);
    /// # drop(oauth);
    /// ```
    pub fn dpop(mut self, policy: DpopPolicy) -> Self {
        self.dpop = policy;
        self
    }

    /// The key new DPoP-bound tokens are bound to (default: each client generates one
    /// when it first needs it). A stored token keeps its own key ([`StoredToken::dpop_key`](super::StoredToken::dpop_key)).
    pub fn dpop_key(mut self, key: DpopKey) -> Self {
        self.dpop_key = Some(key);
        self
    }
}
