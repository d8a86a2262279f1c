//! Who a caller is: the identity that owns its legacy sessions, binds its request states
//! and is charged for its listen streams. Authentication layers (OAuth, listener
//! authentication, a custom layer) put what they learned into the request's extensions;
//! [`caller_identity`] reads it on every transport.

use crate::base::{AuthContext, Caller, peer_of};
use crate::session::Owner;

/// The identity of a caller, which owns its legacy sessions and binds its request states:
/// the issuer, client and subject of `auth`, else the caller listener authentication put
/// into the HTTP request's `extensions`, else [`Owner::Anonymous`].
pub(crate) fn caller_identity(
    auth: Option<&AuthContext>,
    extensions: Option<&http::Extensions>,
) -> Owner {
    match auth {
        Some(auth) => Owner::token(
            auth.issuer.as_deref().unwrap_or(""),
            auth.client_id.as_deref().unwrap_or(""),
            auth.subject.as_deref().unwrap_or(""),
        ),
        None => extensions
            .and_then(|e| e.get::<ListenerOwner>())
            .map_or(Owner::Anonymous, |c| c.owner.clone()),
    }
}

/// Who a request is charged to (per-caller limits): the identity [`caller_identity`]
/// finds, else the peer address axum's `ConnectInfo` put into the HTTP request's
/// `extensions`, else `connection` (stdio, in-process), else [`Caller::Anonymous`].
pub(crate) fn caller_of(
    auth: Option<&AuthContext>,
    extensions: Option<&http::Extensions>,
    connection: Option<&Caller>,
) -> Caller {
    if let Some(key) = caller_identity(auth, extensions).identity() {
        return Caller::Identified(key.clone());
    }
    match (connection, extensions.and_then(peer_of)) {
        (Some(connection), _) => connection.clone(),
        (None, peer) => Caller::http(None, peer),
    }
}

/// The caller authenticated by listener authentication (Basic user or JWT); inserted into
/// the request extensions instead of an [`AuthContext`].
#[derive(Clone, Debug)]
pub(crate) struct ListenerOwner {
    /// Its identity.
    pub(crate) owner: Owner,
    /// A JWT that names neither a subject nor a client: it gets no session.
    pub(crate) names_nobody: bool,
}
