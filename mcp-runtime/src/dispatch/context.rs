//! What a handler can know about the request it serves.

use std::sync::Arc;

use http::HeaderMap;
use http::request::Parts;

use super::AuthContext;
use crate::base::Extensions;
use crate::protocol::{ClientCapabilities, Era, Implementation, JsonObject};
use crate::session::Session;

/// The request a handler serves: its era, metadata, caller and session, and what its
/// transport knows (over HTTP, the request's headers and parts).
///
/// Advanced handlers receive it directly and read everything a basic tool can bind from it
/// (the caller with [`auth`](Self::auth), the legacy session with
/// [`session`](Self::session), headers, `_meta`, client capabilities); basic tools bind
/// those pieces as runtime parameters (`Option<mcp::AuthContext>`, `mcp::Session`,
/// `http::HeaderMap`, `http::request::Parts`, `Option<mcp::RequestMeta>`).
///
/// `Debug` shows the era, version, the HTTP method and URI (the values of query parameters
/// that look like credentials, such as `token` or `api_key`, masked `***`) and the session
/// (by a fingerprint of its id); not the headers nor the caller's credential.
#[derive(Clone)]
pub struct RequestContext {
    pub(crate) era: Era,
    pub(crate) protocol_version: Arc<str>,
    /// What the transport knows (HTTP: its `Parts`).
    pub(crate) extensions: Extensions,
    pub(crate) meta: Option<JsonObject>,
    pub(crate) client_capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
    pub(crate) session: Option<Session>,
    pub(crate) auth: Option<AuthContext>,
    pub(crate) requester: Option<super::Requester>,
    /// What the handler shares with the transport (channel back, cancellation, log level).
    pub(crate) call: Arc<super::channel::CallState>,
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("RequestContext");
        f.field("era", &self.era)
            .field("protocol_version", &self.protocol_version);
        if let Some(parts) = self.parts() {
            f.field("method", &parts.method).field(
                "uri",
                &format_args!("{}", crate::redact::url(&parts.uri.to_string())),
            );
        }
        f.field("session", &self.session).finish_non_exhaustive()
    }
}

impl RequestContext {
    /// The [`Notifier`](crate::Notifier) of the server running this handler (`None` outside
    /// a request): an advanced service announces the changes of its lists through it.
    pub fn notifier(&self) -> Option<crate::notify::Notifier> {
        super::current_notifier()
    }

    /// A context for a request of `era` with nothing else known (for tests, and code that
    /// drives a service's hooks directly); add transport facts with
    /// [`extensions_mut`](Self::extensions_mut), such as an `http::request::Parts`.
    pub fn new(era: Era, protocol_version: &str) -> Self {
        Self {
            era,
            protocol_version: protocol_version.into(),
            extensions: Extensions::new(),
            meta: None,
            client_capabilities: Arc::default(),
            client_info: None,
            session: None,
            auth: None,
            requester: None,
            call: Arc::default(),
        }
    }

    /// The protocol era of this request.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The protocol version of this request.
    pub fn protocol_version(&self) -> &str {
        &self.protocol_version
    }

    /// The HTTP request line and headers; `None` on transports without HTTP (stdio,
    /// in-process).
    pub fn parts(&self) -> Option<&Parts> {
        self.extensions.get::<Parts>()
    }

    /// The HTTP headers; `None` on transports without HTTP.
    pub fn headers(&self) -> Option<&HeaderMap> {
        self.parts().map(|p| &p.headers)
    }

    /// The first value of HTTP header `name`, if the request has it as valid text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers()?.get(name)?.to_str().ok()
    }

    /// What the transport knows about the request besides the message: over HTTP an
    /// `http::request::Parts` (read them with [`parts`](Self::parts)); empty elsewhere.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The extensions, to add to (tests, code driving hooks directly).
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        &mut self.extensions
    }

    /// The request's `_meta`, without the reserved envelope keys.
    pub fn meta(&self) -> Option<&JsonObject> {
        self.meta.as_ref()
    }

    /// The client capabilities declared for this request (modern: this request's envelope;
    /// legacy stateless: none known).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.client_capabilities
    }

    /// The client identity, when the client sent one.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.client_info.as_deref()
    }

    /// The authenticated caller: the token's identity on an OAuth-protected service or one
    /// behind listener authentication, or the [`AuthContext`] your own tower layer inserted
    /// into the request's extensions (the hook for custom authentication; see
    /// [`AuthContext`]). `None` for anonymous requests.
    pub fn auth(&self) -> Option<&AuthContext> {
        self.auth.as_ref()
    }

    /// The legacy session this request belongs to (stateful legacy requests only), the
    /// handle basic tools bind as an [`Session`] parameter.
    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    pub(crate) fn with_meta(mut self, meta: Option<JsonObject>) -> Self {
        self.meta = meta;
        self
    }
}

/// The protocol version of a context: shared for the versions this crate serves (no
/// allocation per request), a new string for any other.
pub(crate) fn version_of(version: &str) -> Arc<str> {
    static KNOWN: std::sync::LazyLock<Vec<Arc<str>>> = std::sync::LazyLock::new(|| {
        crate::protocol::MODERN_VERSIONS
            .iter()
            .chain(crate::protocol::LEGACY_VERSIONS)
            .map(|v| Arc::from(*v))
            .collect()
    });
    KNOWN
        .iter()
        .find(|v| ***v == *version)
        .cloned()
        .unwrap_or_else(|| Arc::from(version))
}

/// The client capabilities of a context: one shared value for the empty capabilities most
/// requests declare, a new one otherwise.
pub(crate) fn capabilities_of(capabilities: ClientCapabilities) -> Arc<ClientCapabilities> {
    if capabilities == ClientCapabilities::default() {
        no_capabilities()
    } else {
        Arc::new(capabilities)
    }
}

/// The empty client capabilities, shared.
pub(crate) fn no_capabilities() -> Arc<ClientCapabilities> {
    static EMPTY: std::sync::LazyLock<Arc<ClientCapabilities>> =
        std::sync::LazyLock::new(Arc::default);
    EMPTY.clone()
}
