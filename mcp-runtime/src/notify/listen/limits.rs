//! The bounds of `subscriptions/listen` filters ([`Limits`], the `ServerBuilder::max_listen_*`
//! settings), who a listener is charged to ([`Caller`]), and the `-32602` a listen over a
//! bound gets ([`OverBound`]).

use serde_json::Value;

pub(crate) use crate::base::Caller;
use crate::protocol::{ErrorCode, ErrorObject};

/// What keeping one URI of a filter costs besides its bytes (its place in the hash set and
/// the allocator's rounding), in the bytes a listener is charged.
pub(crate) const URI_OVERHEAD: usize = 64;

/// The bounds of `subscriptions/listen` filters (the `ServerBuilder::max_listen_*` settings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// URIs in one filter's `resourceSubscriptions`.
    pub(crate) uris: usize,
    /// Bytes of one URI.
    pub(crate) uri_bytes: usize,
    /// Open listeners of one caller.
    pub(crate) listeners_per_caller: usize,
    /// Bytes (`cost`) the open listeners of one caller hold.
    pub(crate) bytes_per_caller: usize,
    /// Bytes (`cost`) all open listeners hold.
    pub(crate) bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            uris: crate::notify::DEFAULT_MAX_LISTEN_URIS,
            uri_bytes: crate::notify::DEFAULT_MAX_LISTEN_URI_BYTES,
            listeners_per_caller: crate::notify::DEFAULT_MAX_LISTENERS_PER_CALLER,
            bytes_per_caller: crate::notify::DEFAULT_MAX_LISTEN_BYTES_PER_CALLER,
            bytes: crate::notify::DEFAULT_MAX_LISTEN_BYTES,
        }
    }
}

/// A listen request over one of the [`Limits`]: `-32602`, naming the limit and the
/// [`ServerBuilder`](crate::ServerBuilder) setting that raises it.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OverBound {
    #[error(
        "Invalid params: resourceSubscriptions has {count} URIs; the limit is {limit} (ServerBuilder::max_listen_uris)"
    )]
    Uris { count: usize, limit: usize },
    #[error(
        "Invalid params: resourceSubscriptions[{index}] is {len} bytes long; the limit is {limit} (ServerBuilder::max_listen_uri_bytes)"
    )]
    UriBytes {
        index: usize,
        len: usize,
        limit: usize,
    },
    #[error(
        "Invalid params: this caller has {open} listen streams open; the limit is {limit} (ServerBuilder::max_listeners_per_caller)"
    )]
    CallerListeners { open: usize, limit: usize },
    #[error(
        "Invalid params: this listen takes {cost} bytes and this caller's open listens take {held}; the limit is {limit} (ServerBuilder::max_listen_bytes_per_caller)"
    )]
    CallerBytes {
        cost: usize,
        held: usize,
        limit: usize,
    },
    #[error(
        "Invalid params: this listen takes {cost} bytes, more than the server has left for listen filters; the limit is {limit} in all (ServerBuilder::max_listen_bytes)"
    )]
    ServerBytes { cost: usize, limit: usize },
}

impl OverBound {
    pub(crate) fn code(&self) -> ErrorCode {
        match self {
            Self::Uris { .. }
            | Self::UriBytes { .. }
            | Self::CallerListeners { .. }
            | Self::CallerBytes { .. }
            | Self::ServerBytes { .. } => ErrorCode::INVALID_PARAMS,
        }
    }
}

impl From<OverBound> for ErrorObject {
    fn from(over: OverBound) -> Self {
        ErrorObject::new(over.code(), over.to_string())
    }
}

impl Limits {
    /// Checks the URIs of a filter (`notifications`, an object) against the per-listener
    /// bounds, before anything is copied out of it. Members of the wrong type are left to
    /// the filter's parse.
    pub(super) fn check_filter(&self, notifications: &Value) -> Result<(), OverBound> {
        // Task ids are bounded as URIs are (a filter names at most as many of each).
        for member in ["resourceSubscriptions", "taskIds"] {
            self.check_list(notifications.get(member).and_then(Value::as_array))?;
        }
        Ok(())
    }

    fn check_list(&self, uris: Option<&Vec<Value>>) -> Result<(), OverBound> {
        let Some(uris) = uris else {
            return Ok(());
        };
        if uris.len() > self.uris {
            return Err(OverBound::Uris {
                count: uris.len(),
                limit: self.uris,
            });
        }
        for (index, uri) in uris.iter().enumerate() {
            if let Some(uri) = uri.as_str()
                && uri.len() > self.uri_bytes
            {
                return Err(OverBound::UriBytes {
                    index,
                    len: uri.len(),
                    limit: self.uri_bytes,
                });
            }
        }
        Ok(())
    }
}
