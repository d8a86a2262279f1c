//! The OAuth token provider: serves the stored token, refreshes it, and on a challenge
//! runs discovery and the configured grant under the client's authorization lock.

use std::sync::OnceLock;

use reqwest::Url;

use super::assertion::check_audience;
use super::config::{Grant, OAuthConfig};
use super::discovery::{Discovered, discover};
use super::dpop::{ALGORITHM, DpopKey, DpopPolicy, Nonces, Prover};
use super::error::{OAuthError, OAuthErrorResponse};
use super::handler::is_redirect_to;
use super::http::OAuthHttp;
use super::store::StoredToken;
use super::token::{self, Expect, Identity, JWT_BEARER, Pkce, random_state};
use crate::client::auth::{Presentation, TokenPresenter};
use crate::client::{AuthChallenge, ClientError, TokenProvider};

#[derive(Default)]
struct State {
    discovered: Option<Discovered>,
    /// The client identity per authorization server (a dynamic registration is reused).
    identities: Vec<(String, Identity)>,
    /// The access token the last refresh produced (a `401` on it means a full
    /// authorization rather than another refresh).
    refreshed: Option<String>,
}

/// The [`TokenProvider`] a client gets from [`ClientConfig::oauth`](crate::client::ClientConfig::oauth).
pub(crate) struct OAuthProvider {
    server: Url,
    key: String,
    config: OAuthConfig,
    http: OAuthHttp,
    lock: tokio::sync::Mutex<State>,
    /// This client's DPoP key, generated when first needed.
    dpop_key: OnceLock<DpopKey>,
    /// The DPoP nonces the authorization server and the MCP server handed out.
    nonces: Nonces,
}

fn scope_list(scope: Option<&str>) -> Vec<String> {
    scope
        .map(|s| s.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

fn union(mut a: Vec<String>, b: &[String]) -> Vec<String> {
    for s in b {
        if !a.contains(s) {
            a.push(s.clone());
        }
    }
    a
}

impl OAuthProvider {
    pub(crate) fn new(server: Url, config: OAuthConfig, http: OAuthHttp) -> Self {
        Self {
            key: server.to_string(),
            server,
            config,
            http,
            lock: tokio::sync::Mutex::new(State::default()),
            dpop_key: OnceLock::new(),
            nonces: Nonces::default(),
        }
    }

    /// The key new tokens are bound to: the configured one, else this client's own.
    fn new_token_key(&self) -> &DpopKey {
        match &self.config.dpop_key {
            Some(key) => key,
            None => self.dpop_key.get_or_init(DpopKey::generate),
        }
    }

    /// Whether token requests to the discovered server carry DPoP proofs (see
    /// [`DpopPolicy`]); `stored` is the key of the token being refreshed, which its
    /// refresh token may be bound to.
    fn dpop_key_for(
        &self,
        discovered: &Discovered,
        stored: Option<&DpopKey>,
    ) -> Result<Option<DpopKey>, OAuthError> {
        let algs = discovered.server.dpop_algs.as_deref();
        let es256 = algs.is_some_and(|a| a.iter().any(|alg| alg == ALGORITHM));
        let wanted = match self.config.dpop {
            DpopPolicy::Disabled => false,
            DpopPolicy::Auto => es256 || discovered.dpop_required || stored.is_some(),
            DpopPolicy::Required => true,
        };
        if !wanted {
            return Ok(None);
        }
        if let Some(algs) = algs.filter(|_| !es256) {
            return Err(OAuthError::InvalidResponse {
                url: super::error::shown(&discovered.server.issuer),
                reason: format!(
                    "DPoP is wanted but the authorization server accepts only {algs:?} proofs, not {ALGORITHM}"
                ),
            });
        }
        Ok(Some(
            stored
                .cloned()
                .unwrap_or_else(|| self.new_token_key().clone()),
        ))
    }

    fn issuer_hint(&self) -> Option<&str> {
        match &self.config.grant {
            Grant::AuthorizationCode { client, .. } | Grant::IdentityAssertion { client, .. } => {
                client.issuer.as_deref()
            }
            Grant::ClientCredentials { issuer, .. } => issuer.as_deref(),
            Grant::WorkloadIdentity(workload) => workload.issuer.as_deref(),
        }
    }

    /// Refreshes `stored`, discovering the authorization server first when this client has
    /// not (a token loaded from a persistent store).
    async fn refresh(
        &self,
        state: &mut State,
        stored: &StoredToken,
        challenge: Option<&AuthChallenge>,
    ) -> Result<String, OAuthError> {
        let Some(refresh) = stored.refresh_token() else {
            return Err(OAuthError::authorization("nothing to refresh with"));
        };
        let discovered = match state.discovered.clone() {
            Some(d) => d,
            None => {
                let d = discover(&self.http, &self.server, challenge, self.issuer_hint()).await?;
                state.discovered = Some(d.clone());
                d
            }
        };
        // SEP-2352: a refresh token goes only to the authorization server that issued it;
        // after the resource moved to another one, authorize there afresh.
        if let Some(issuer) = stored.issuer()
            && issuer != discovered.server.issuer
        {
            return Err(OAuthError::UntrustedAuthorizationServer {
                issuer: discovered.server.issuer.clone(),
                reason: format!("the refresh token was issued by {issuer}"),
            });
        }
        let identity = self.identity(state, &discovered).await?;
        let params = vec![("grant_type", "refresh_token"), ("refresh_token", refresh)];
        let mut response = self
            .token_request(&discovered, &identity, params, true, stored.dpop_key())
            .await?;
        if response.refresh_token.is_none() {
            response.refresh_token = Some(refresh.to_owned());
        }
        let fresh = response
            .into_stored(stored.scopes(), true)
            .with_issuer(discovered.server.issuer.clone());
        let access = fresh.access_token().to_owned();
        self.config.store.save(&self.key, fresh);
        state.refreshed = Some(access.clone());
        tracing::debug!("refreshed the access token");
        Ok(access)
    }

    /// The client identity at the discovered authorization server.
    async fn identity(
        &self,
        state: &mut State,
        discovered: &Discovered,
    ) -> Result<Identity, OAuthError> {
        let server = &discovered.server;
        if let Some((_, id)) = state.identities.iter().find(|(i, _)| *i == server.issuer) {
            return Ok(id.clone());
        }
        let (client, redirect_uri) = match &self.config.grant {
            Grant::ClientCredentials {
                client_id, auth, ..
            } => {
                return Ok(Identity::resolve(client_id, auth, server));
            }
            Grant::WorkloadIdentity(workload) => {
                return Ok(Identity::workload(workload.client_id.as_deref()));
            }
            Grant::AuthorizationCode { client, handler } => {
                (client, Some(handler.dyn_redirect_uri()))
            }
            Grant::IdentityAssertion { client, .. } => (client, None),
        };
        let identity = if let Some(id) = &client.client_id {
            Identity::resolve(id, &client.auth, server)
        } else if let Some(url) = client
            .metadata_url
            .as_ref()
            .filter(|_| server.client_id_metadata_document_supported)
        {
            if !url.starts_with("https://") {
                return Err(OAuthError::Config(format!(
                    "a Client ID Metadata Document URL must use https: {url}"
                )));
            }
            Identity::resolve(url, &client.auth, server)
        } else if let (true, Some(endpoint), Some(redirect_uri)) =
            (client.dynamic, &server.registration_endpoint, &redirect_uri)
        {
            token::register(
                &self.http,
                endpoint,
                server,
                &client.client_name,
                redirect_uri,
            )
            .await?
        } else {
            return Err(OAuthError::NoClientRegistration {
                issuer: server.issuer.clone(),
                reason: "no pre-registered client ID, no Client ID Metadata Document support, no usable dynamic registration".into(),
            });
        };
        state
            .identities
            .push((server.issuer.clone(), identity.clone()));
        Ok(identity)
    }

    async fn authorize(&self, challenge: &AuthChallenge) -> Result<String, OAuthError> {
        // A token for a plain-HTTP server off loopback would travel in clear text.
        super::http::check(&self.server)?;
        let mut state = self.lock.lock().await;
        let stored = self.config.store.load(&self.key);
        let step_up = challenge.is_insufficient_scope();
        let wanted = scope_list(challenge.scope());
        if let Some(stored) = &stored {
            // Another request renewed the token while this one waited for the lock: use it
            // rather than authorizing (or opening a browser) twice.
            if !challenge.rejected_token_is(stored.access_token()) && !stored.needs_renewal() {
                return Ok(stored.access_token().to_owned());
            }
            if !step_up
                && stored.refresh_token().is_some()
                && state.refreshed.as_deref() != Some(stored.access_token())
            {
                match self.refresh(&mut state, stored, Some(challenge)).await {
                    Ok(token) => return Ok(token),
                    Err(e) => tracing::debug!("refresh failed ({e}); authorizing again"),
                }
            }
            if step_up && !wanted.is_empty() && wanted.iter().all(|s| stored.scopes().contains(s)) {
                return Err(OAuthError::ScopeNotGranted {
                    scopes: wanted.join(" "),
                });
            }
        }
        let discovered = discover(
            &self.http,
            &self.server,
            Some(challenge),
            self.issuer_hint(),
        )
        .await?;
        state.discovered = Some(discovered.clone());
        let mut scopes = match &self.config.scopes {
            Some(fixed) => union(fixed.clone(), &wanted),
            None if !wanted.is_empty() => wanted.clone(),
            None => discovered.scopes_supported.clone().unwrap_or_default(),
        };
        if step_up && let Some(stored) = &stored {
            scopes = union(stored.scopes().to_vec(), &scopes);
        }
        let identity = self.identity(&mut state, &discovered).await?;
        let token = match &self.config.grant {
            Grant::AuthorizationCode { handler, .. } => {
                let offered = discovered
                    .server
                    .scopes_supported
                    .as_deref()
                    .unwrap_or_default();
                if self.config.offline_access
                    && offered.iter().any(|s| s == "offline_access")
                    && !scopes.iter().any(|s| s == "offline_access")
                {
                    scopes.push("offline_access".into());
                }
                self.code_flow(&discovered, &identity, handler.as_ref(), &scopes)
                    .await?
            }
            Grant::ClientCredentials { .. } => {
                let scope = scopes.join(" ");
                let mut params = vec![("grant_type", "client_credentials")];
                if !scope.is_empty() {
                    params.push(("scope", &scope));
                }
                self.token_request(&discovered, &identity, params, true, None)
                    .await?
                    .into_stored(&scopes, true)
            }
            Grant::IdentityAssertion { provider, .. } => {
                let context = self.assertion_context(&discovered, &identity, &scopes);
                let assertion = provider.dyn_assertion(context).await?;
                self.jwt_bearer(&discovered, &identity, &assertion, &scopes, false, &[])
                    .await?
            }
            Grant::WorkloadIdentity(workload) => {
                let context = self.assertion_context(&discovered, &identity, &scopes);
                let assertion = workload.source.read(context).await?;
                let audiences: Vec<&str> = workload.audiences.iter().map(String::as_str).collect();
                self.jwt_bearer(
                    &discovered,
                    &identity,
                    &assertion,
                    &scopes,
                    true,
                    &audiences,
                )
                .await?
            }
        };
        let token = token.with_issuer(discovered.server.issuer.clone());
        let access = token.access_token().to_owned();
        self.config.store.save(&self.key, token);
        state.refreshed = None;
        Ok(access)
    }

    /// What an assertion must be issued for: the discovered authorization server (its
    /// issuer as the audience), the resource, the client and the scopes.
    fn assertion_context(
        &self,
        discovered: &Discovered,
        identity: &Identity,
        scopes: &[String],
    ) -> super::IdentityAssertionContext {
        super::IdentityAssertionContext {
            audience: discovered.server.issuer.clone(),
            resource: discovered
                .resource
                .clone()
                .unwrap_or_else(|| self.server.to_string()),
            client_id: identity.client_id.clone(),
            scopes: scopes.to_vec(),
        }
    }

    /// The JWT-bearer grant (RFC 7523 §2.1) with `assertion`, once its `aud` names the
    /// authorization server (its issuer, its token endpoint or one of `audiences`). Only
    /// the access token is kept: the grant runs again when it expires.
    async fn jwt_bearer(
        &self,
        discovered: &Discovered,
        identity: &Identity,
        assertion: &str,
        scopes: &[String],
        with_resource: bool,
        audiences: &[&str],
    ) -> Result<StoredToken, OAuthError> {
        let server = &discovered.server;
        let mut accepted = vec![server.token_endpoint()?.as_str()];
        accepted.extend_from_slice(audiences);
        check_audience(assertion, &server.issuer, &accepted)?;
        let scope = scopes.join(" ");
        let mut params = vec![("grant_type", JWT_BEARER), ("assertion", assertion)];
        if !scope.is_empty() {
            params.push(("scope", &scope));
        }
        Ok(self
            .token_request(discovered, identity, params, with_resource, None)
            .await?
            .into_stored(scopes, false))
    }

    async fn code_flow(
        &self,
        discovered: &Discovered,
        identity: &Identity,
        handler: &dyn super::handler::DynAuthorizationHandler,
        scopes: &[String],
    ) -> Result<StoredToken, OAuthError> {
        let server = &discovered.server;
        let mut url = server.authorization_endpoint.clone().ok_or_else(|| {
            OAuthError::invalid(&server.issuer, "the metadata has no authorization_endpoint")
        })?;
        let redirect_uri = handler.dyn_redirect_uri();
        let target = Url::parse(&redirect_uri)
            .map_err(|e| OAuthError::Config(format!("invalid redirect URI: {e}")))?;
        let pkce = Pkce::new();
        let state = random_state();
        let scope = scopes.join(" ");
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", &identity.client_id)
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state);
            if !scope.is_empty() {
                q.append_pair("scope", &scope);
            }
            if let Some(resource) = &discovered.resource {
                q.append_pair("resource", resource);
            }
        }
        let redirect = handler.dyn_authorize(url.as_str()).await?;
        let redirect = Url::parse(&redirect).map_err(|e| {
            OAuthError::authorization(format!("the handler returned an invalid URL: {e}"))
        })?;
        if !is_redirect_to(&redirect, &target) {
            return Err(OAuthError::authorization(
                "the handler returned a URL other than the redirect URI",
            ));
        }
        let param = |name: &str| {
            redirect
                .query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
        };
        if param("state").as_deref() != Some(state.as_str()) {
            return Err(OAuthError::StateMismatch);
        }
        // RFC 9207: before the code (or an error) is trusted.
        server.check_response_issuer(param("iss").as_deref())?;
        if let Some(error) = param("error") {
            return Err(OAuthError::AuthorizationDenied(Box::new(
                OAuthErrorResponse::new(error, param("error_description")),
            )));
        }
        let code = param("code")
            .ok_or_else(|| OAuthError::authorization("the redirect carries no code"))?;
        let params = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect_uri.as_str()),
            ("code_verifier", pkce.verifier.as_str()),
        ];
        Ok(self
            .token_request(discovered, identity, params, true, None)
            .await?
            .into_stored(scopes, true))
    }

    /// A token request at the discovered authorization server's token endpoint, with the
    /// discovered `resource` (RFC 8707) added when `with_resource`, and DPoP proofs when
    /// the policy and the server call for them (`stored`: the key of the token refreshed).
    async fn token_request<'a>(
        &self,
        discovered: &'a Discovered,
        identity: &Identity,
        mut params: Vec<(&'a str, &'a str)>,
        with_resource: bool,
        stored: Option<&DpopKey>,
    ) -> Result<token::TokenResponse, OAuthError> {
        if let (true, Some(resource)) = (with_resource, &discovered.resource) {
            params.push(("resource", resource));
        }
        let server = &discovered.server;
        let key = self.dpop_key_for(discovered, stored)?;
        let prover = key.as_ref().map(|key| Prover {
            key,
            nonces: &self.nonces,
        });
        let expect = match self.config.dpop {
            DpopPolicy::Required => Expect::DpopBound,
            _ => Expect::AccessToken,
        };
        token::request(
            &self.http,
            server.token_endpoint()?,
            identity,
            &server.issuer,
            &params,
            expect,
            prover,
        )
        .await
    }
}

impl TokenPresenter for OAuthProvider {
    /// A token this client stored with a DPoP key goes out with the `DPoP` scheme and a
    /// proof of that key; any other as a bearer token.
    fn present(&self, token: &str, method: &http::Method, url: &Url) -> Presentation {
        let key = self
            .config
            .store
            .load(&self.key)
            .filter(|stored| stored.access_token() == token)
            .and_then(|stored| stored.dpop_key().cloned());
        match key {
            Some(key) => {
                let nonce = self.nonces.get(url);
                Presentation {
                    scheme: "DPoP",
                    proof: Some(key.proof(method.as_str(), url, Some(token), nonce.as_deref())),
                }
            }
            None => Presentation::BEARER,
        }
    }

    fn nonce(&self, url: &Url, nonce: &str) {
        self.nonces.set(url, nonce);
    }
}

impl TokenProvider for OAuthProvider {
    async fn token(&self) -> Result<Option<String>, ClientError> {
        let mut state = self.lock.lock().await;
        let Some(stored) = self.config.store.load(&self.key) else {
            return Ok(None);
        };
        if !stored.needs_renewal() {
            return Ok(Some(stored.access_token().to_owned()));
        }
        if stored.refresh_token().is_some() {
            match self.refresh(&mut state, &stored, None).await {
                Ok(token) => return Ok(Some(token)),
                Err(e) => {
                    tracing::debug!("refresh failed ({e}); the next challenge authorizes again")
                }
            }
        }
        self.config.store.remove(&self.key);
        Ok(None)
    }

    async fn on_challenge(&self, challenge: &AuthChallenge) -> Result<Option<String>, ClientError> {
        Ok(Some(self.authorize(challenge).await?))
    }
}
