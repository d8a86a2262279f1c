//! What a legacy session subscribed to (`resources/subscribe`): the URIs, kept as one
//! session value, and the bounds on them.

use super::{Session, SessionError};

/// The session key holding a legacy session's subscribed URIs (a JSON array of strings).
pub const SUBSCRIPTIONS_KEY: &str = "mcp.resourceSubscriptions";

/// How many URIs one legacy session may subscribe to.
pub const MAX_SUBSCRIPTIONS: usize = 1000;

/// The longest URI a session may subscribe to, in bytes.
pub const MAX_SUBSCRIPTION_URI_BYTES: usize = 8 * 1024;

/// The URIs legacy session `session` subscribed to (the seam for
/// `notifications/resources/updated`).
pub async fn subscriptions(session: &Session) -> Result<Vec<String>, SessionError> {
    Ok(session
        .get::<Vec<String>>(SUBSCRIPTIONS_KEY)
        .await?
        .unwrap_or_default())
}
