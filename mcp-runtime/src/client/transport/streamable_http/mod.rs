//! The Streamable HTTP transport: each message POSTed with the era's headers, answers read
//! from a JSON or `text/event-stream` body (bounded in size and time), the `Mcp-Session-Id`
//! of a legacy session kept here, the bearer token and its step-up after a challenge (a
//! DPoP-bound token with a proof per request and the server's nonce), `DELETE` when a
//! session ends, and the standalone `GET` stream.

mod post;
mod sse;
mod streams;

use std::sync::{Arc, Mutex, PoisonError};

use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderValue, Method};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::time::{Instant, timeout_at};

use super::{Envelope, Message, Peer, StandaloneStream, Transport};
use crate::base::BoxFuture;
use crate::client::auth::{
    AuthChallenge, DPOP, DPOP_NONCE, DynTokenProvider, Presentation, TokenPresenter,
};
use crate::client::wire::{MCP_PROTOCOL_VERSION, MCP_SESSION_ID, is_reserved, rpc_error};
use crate::client::{ClientConfig, ClientError, HttpConfig, TransportError};
use crate::protocol::Era;

/// How many new tokens one request may try after challenges.
const MAX_AUTH_ROUNDS: u32 = 3;

/// The Streamable HTTP transport of one client.
pub(crate) struct HttpTransport {
    url: reqwest::Url,
    http: reqwest::Client,
    config: HttpConfig,
    token_provider: Option<Arc<dyn DynTokenProvider>>,
    /// How the provider's tokens go out, when it binds them to a key (DPoP).
    presenter: Option<Arc<dyn TokenPresenter>>,
    /// The legacy session, from the answer to `initialize`.
    session: Mutex<Option<String>>,
}

impl HttpTransport {
    /// A transport for the endpoint `url` (`http` or `https`), with the HTTP settings and
    /// the token provider of `config`. Returns the configuration too: with OAuth it gains
    /// the token provider built here.
    pub(crate) fn new(
        url: &str,
        config: ClientConfig,
    ) -> Result<(Self, ClientConfig), ClientError> {
        let url = reqwest::Url::parse(url).map_err(|e| {
            let shown = crate::redact::url(url);
            ClientError::Config(format!("invalid URL {shown:?}: {e}"))
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ClientError::Config(format!(
                "the URL scheme must be http or https, not {:?}",
                url.scheme()
            )));
        }
        let http = &config.http;
        let mut builder =
            reqwest::Client::builder()
                .use_rustls_tls()
                .connect_timeout(http.connect_timeout)
                .redirect(reqwest::redirect::Policy::none())
                .tls_built_in_root_certs(http.built_in_roots)
                .danger_accept_invalid_certs(http.accept_invalid_certs)
                .user_agent(http.user_agent.clone().unwrap_or_else(|| {
                    format!("mcp-runtime/{} (rust)", env!("CARGO_PKG_VERSION"))
                }));
        for pem in &http.root_certificates {
            let cert = reqwest::Certificate::from_pem(pem)
                .map_err(|e| ClientError::Config(format!("invalid root certificate: {e}")))?;
            builder = builder.add_root_certificate(cert);
        }
        let client = builder
            .build()
            .map_err(|e| ClientError::Config(format!("cannot build the HTTP client: {e}")))?;
        #[cfg_attr(not(feature = "oauth"), allow(unused_mut))]
        let mut presenter: Option<Arc<dyn TokenPresenter>> = None;
        #[cfg(feature = "oauth")]
        let config = match config.oauth.clone() {
            Some(oauth) => {
                let http =
                    crate::client::oauth::OAuthHttp::new(client.clone(), config.http.timeout);
                let provider = Arc::new(crate::client::oauth::OAuthProvider::new(
                    url.clone(),
                    oauth,
                    http,
                ));
                presenter = Some(provider.clone());
                config.token_provider(provider)
            }
            None => config,
        };
        let transport = Self {
            url,
            http: client,
            config: config.http.clone(),
            token_provider: config.token_provider.clone(),
            presenter,
            session: Mutex::new(None),
        };
        Ok((transport, config))
    }

    fn session(&self) -> Option<String> {
        self.session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_session(&self, session: Option<String>) {
        *self.session.lock().unwrap_or_else(PoisonError::into_inner) = session;
    }

    async fn token(&self) -> Result<Option<String>, ClientError> {
        match &self.token_provider {
            Some(p) => p.dyn_token().await,
            None => Ok(None),
        }
    }

    /// Base headers of every message of the era: the configured ones, the call's own, the
    /// session and version headers, the token (with a fresh DPoP proof for this `method`
    /// when it is DPoP-bound).
    pub(crate) fn headers(
        &self,
        method: &Method,
        message: &Message<'_>,
        token: Option<&str>,
        session: Option<&str>,
    ) -> HeaderMap {
        let extra = message.headers;
        let mut h = HeaderMap::new();
        for (name, value) in &self.config.headers {
            if !is_reserved(name) {
                h.append(name.clone(), value.clone());
            }
        }
        // A per-call header replaces the client-wide one of that name, every value kept.
        for name in extra.keys() {
            h.remove(name);
        }
        for (name, value) in extra {
            h.append(name.clone(), value.clone());
        }
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        if message.envelope.era == Era::Legacy
            && let Some(v) = session.and_then(|s| HeaderValue::from_str(s).ok())
        {
            h.insert(MCP_SESSION_ID, v);
        }
        if let Some(v) = message
            .envelope
            .protocol_version
            .and_then(|s| HeaderValue::from_str(s).ok())
        {
            h.insert(MCP_PROTOCOL_VERSION, v);
        }
        if !extra.contains_key(AUTHORIZATION)
            && let Some(token) = token
        {
            let presentation = match &self.presenter {
                Some(p) => p.present(token, method, &self.url),
                None => Presentation::BEARER,
            };
            if let Ok(mut v) = HeaderValue::from_str(&format!("{} {token}", presentation.scheme)) {
                // Never indexed by HTTP/2 header compression, never shown by `Debug`.
                v.set_sensitive(true);
                h.insert(AUTHORIZATION, v);
                if let Some(proof) = presentation
                    .proof
                    .and_then(|p| HeaderValue::from_str(&p).ok())
                {
                    h.insert(DPOP, proof);
                }
            }
        }
        h
    }

    /// The session a message carries: a legacy one's, except `initialize`, which opens one.
    fn session_for(&self, message: &Message<'_>) -> Option<String> {
        (message.envelope.era == Era::Legacy && message.method != "initialize")
            .then(|| self.session())
            .flatten()
    }

    /// A request with the provider's token; on a `401` or `insufficient_scope` challenge
    /// the provider may supply another token, which drops the client's cache and retries.
    /// A `401 use_dpop_nonce` is retried once with the same token and a proof carrying the
    /// server's nonce (RFC 9449 §9); a server that asks again gets the error back.
    async fn request_with_auth(
        &self,
        message: Message<'_>,
        peer: &Peer,
    ) -> Result<Box<RawValue>, ClientError> {
        let provider = if message.headers.contains_key(AUTHORIZATION) {
            None
        } else {
            self.token_provider.clone()
        };
        let mut token = match &provider {
            Some(p) => p.dyn_token().await?,
            None => None,
        };
        // A 401 then a 403 step-up can need two new tokens; more is a loop.
        let mut rounds = 0;
        let mut nonce_retried = false;
        loop {
            let result = self.exchange(&message, token.as_deref(), peer).await;
            let (Some(provider), Err(ClientError::Transport(e))) = (&provider, &result) else {
                return result;
            };
            let challenged = match e {
                TransportError::Unauthorized { .. } => true,
                TransportError::Forbidden { challenge } => challenge
                    .as_deref()
                    .is_some_and(AuthChallenge::is_insufficient_scope),
                _ => false,
            };
            if let (Some(_), Some(challenge)) = (&token, e.challenge())
                && self.presenter.is_some()
                && challenge.is_dpop_nonce_request()
            {
                // check_status recorded the nonce: the next proof carries it.
                if nonce_retried {
                    return result;
                }
                tracing::debug!("the server asked for a DPoP nonce; retrying once");
                nonce_retried = true;
                continue;
            }
            if rounds >= MAX_AUTH_ROUNDS || !challenged {
                return result;
            }
            let challenge = e
                .challenge()
                .cloned()
                .unwrap_or_else(|| AuthChallenge::parse(e.http_status().unwrap_or(401), ""))
                .with_rejected_token(token.as_deref());
            match provider.dyn_on_challenge(&challenge).await? {
                Some(fresh) if Some(&fresh) != token.as_ref() => {
                    tracing::debug!(
                        "a challenge yielded a different token; dropping the tools/list cache"
                    );
                    peer.credentials_changed();
                    token = Some(fresh);
                    rounds += 1;
                }
                _ => return result,
            }
        }
    }

    /// POSTs a message that expects no answer (a notification or a response); expects a
    /// success status (`202`).
    pub(crate) async fn post_no_answer(
        &self,
        message: &Message<'_>,
        token: Option<&str>,
        session: Option<&str>,
    ) -> Result<(), ClientError> {
        let headers = self.headers(&Method::POST, message, token, session);
        let deadline = Instant::now() + self.config.timeout;
        let post = self
            .http
            .post(self.url.clone())
            .headers(headers)
            .body(message.body.to_string());
        let response = self.send(post, deadline).await?;
        self.check_status(response, deadline).await?;
        Ok(())
    }

    /// Sends `request`, bounded by `deadline` until the response's head arrives.
    pub(crate) async fn send(
        &self,
        request: reqwest::RequestBuilder,
        deadline: Instant,
    ) -> Result<reqwest::Response, ClientError> {
        let timeout = self.config.timeout;
        timeout_at(deadline, request.send())
            .await
            .map_err(|_| TransportError::Timeout(timeout))?
            .map_err(|e| request_error(e, timeout))
    }

    /// Ends a legacy session with `DELETE`. `404` and `405` count as done.
    async fn delete_session(
        &self,
        envelope: Envelope<'_>,
        session: &str,
    ) -> Result<(), ClientError> {
        let token = self.token().await?;
        let body = Value::Null;
        let message = Message {
            id: None,
            method: "",
            body: &body,
            envelope,
            headers: &HeaderMap::new(),
        };
        let mut headers = self.headers(&Method::DELETE, &message, token.as_deref(), Some(session));
        headers.remove(CONTENT_TYPE);
        let deadline = Instant::now() + self.config.timeout;
        let delete = self.http.delete(self.url.clone()).headers(headers);
        let response = self.send(delete, deadline).await?;
        match response.status().as_u16() {
            404 | 405 => Ok(()),
            _ => self.check_status(response, deadline).await.map(drop),
        }
    }

    /// Turns a non-success status into an error (401/403 with their challenge, a JSON-RPC
    /// error body as a protocol error, anything else as a status error).
    pub(crate) async fn check_status(
        &self,
        mut response: reqwest::Response,
        deadline: Instant,
    ) -> Result<reqwest::Response, ClientError> {
        let status = response.status();
        let nonce = response
            .headers()
            .get(DPOP_NONCE)
            .and_then(|v| v.to_str().ok());
        if let (Some(presenter), Some(nonce)) = (&self.presenter, nonce) {
            presenter.nonce(&self.url, nonce);
        }
        if status.is_success() {
            return Ok(response);
        }
        let status = status.as_u16();
        let challenge = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(|v| Box::new(AuthChallenge::parse(status, v).with_dpop_nonce(nonce)));
        match status {
            401 => return Err(TransportError::Unauthorized { challenge }.into()),
            403 => return Err(TransportError::Forbidden { challenge }.into()),
            _ => {}
        }
        let bytes = self
            .read_body(&mut response, deadline)
            .await
            .unwrap_or_default();
        if let Ok(Value::Object(mut body)) = serde_json::from_slice::<Value>(&bytes)
            && let Some(error) = body.remove("error").filter(Value::is_object)
            && let ClientError::Protocol(p) = rpc_error(error, Some(status))
        {
            return Err(p.into());
        }
        let text = String::from_utf8_lossy(&bytes);
        let body: String = text.chars().take(512).collect();
        Err(TransportError::Status { status, body }.into())
    }

    /// Reads a whole body, bounded by the size limit and the deadline.
    pub(crate) async fn read_body(
        &self,
        response: &mut reqwest::Response,
        deadline: Instant,
    ) -> Result<Vec<u8>, ClientError> {
        let limit = self.config.max_response_bytes;
        let timeout = self.config.timeout;
        if response.content_length().is_some_and(|n| n > limit as u64) {
            return Err(TransportError::BodyTooLarge { limit }.into());
        }
        let mut out = Vec::new();
        while let Some(chunk) = timeout_at(deadline, response.chunk())
            .await
            .map_err(|_| TransportError::Timeout(timeout))?
            .map_err(|e| request_error(e, timeout))?
        {
            if out.len() + chunk.len() > limit {
                return Err(TransportError::BodyTooLarge { limit }.into());
            }
            out.extend_from_slice(&chunk);
        }
        Ok(out)
    }
}

impl Transport for HttpTransport {
    fn request<'a>(
        &'a self,
        message: Message<'a>,
        peer: &'a Peer,
    ) -> BoxFuture<'a, Result<Box<RawValue>, ClientError>> {
        Box::pin(self.request_with_auth(message, peer))
    }

    fn notify<'a>(&'a self, message: Message<'a>) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(async move {
            let token = self.token().await?;
            let session = self.session_for(&message);
            self.post_no_answer(&message, token.as_deref(), session.as_deref())
                .await
        })
    }

    /// A modern request is cancelled by aborting its HTTP request; a legacy one in a
    /// session by `notifications/cancelled`.
    fn cancels_by_notification(&self, era: Era) -> bool {
        era == Era::Legacy && self.session().is_some()
    }

    fn open_stream(
        self: Arc<Self>,
        envelope: Envelope<'_>,
        peer: Peer,
    ) -> Option<StandaloneStream> {
        if envelope.era != Era::Legacy {
            return None;
        }
        let session = self.session()?;
        let version = envelope.protocol_version.map(str::to_owned);
        let (opened_tx, opened_rx) = tokio::sync::oneshot::channel();
        let run = streams::listen(Arc::downgrade(&self), session, version, peer, opened_tx);
        Some(StandaloneStream::new(run, async move {
            let _ = opened_rx.await;
        }))
    }

    fn session_id(&self) -> Option<String> {
        self.session()
    }

    fn endpoint(&self) -> Option<&str> {
        Some(self.url.as_str())
    }

    fn close<'a>(&'a self, last: Option<Envelope<'a>>) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(async move {
            let session = self
                .session
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            match (last, session) {
                (Some(envelope), Some(session)) if envelope.era == Era::Legacy => {
                    self.delete_session(envelope, &session).await
                }
                _ => Ok(()),
            }
        })
    }
}

/// The media type of a response, lowercase, without parameters.
pub(crate) fn content_type(headers: &HeaderMap) -> Option<String> {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
}

/// A failed HTTP request as a client error (its URL's secrets masked).
pub(crate) fn request_error(e: reqwest::Error, timeout: std::time::Duration) -> ClientError {
    if e.is_timeout() {
        TransportError::Timeout(timeout).into()
    } else {
        TransportError::Request {
            source: Box::new(crate::redact::reqwest_error(e)),
        }
        .into()
    }
}
