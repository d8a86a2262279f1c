//! Runtime parameters a tool can bind besides its arguments.

use std::collections::BTreeSet;
use std::ops::Deref;

use serde_json::Value;

use crate::protocol::JsonObject;

/// The request's `_meta` object, without the reserved envelope keys. Bind it as
/// `Option<mcp::RequestMeta>`: clients may omit it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RequestMeta(pub JsonObject);

impl Deref for RequestMeta {
    type Target = JsonObject;
    fn deref(&self) -> &JsonObject {
        &self.0
    }
}

impl RequestMeta {
    /// The progress token of the request, if any.
    pub fn progress_token(&self) -> Option<&Value> {
        self.0.get("progressToken")
    }
}

/// The authenticated caller of a request on an OAuth-protected service. Bind it as
/// `mcp::AuthContext` on protected services or `Option<mcp::AuthContext>` elsewhere.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct AuthContext {
    /// The token's subject (`sub`).
    pub subject: Option<String>,
    /// The issuer that validated the token.
    pub issuer: Option<String>,
    /// The client the token was issued to.
    pub client_id: Option<String>,
    /// Granted scopes, including the ones the scope hierarchy implies.
    pub scopes: BTreeSet<String>,
    /// All claims of the token.
    pub claims: JsonObject,
    /// The raw bearer token.
    pub token: String,
}

/// The answers of one round of a multi-round tool call (modern protocol). On a legacy call
/// and on a first round it is empty.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Context {
    pub(crate) input_responses: Option<JsonObject>,
    pub(crate) request_state: Option<String>,
}

impl Context {
    /// The answer to input request `key`: `None` when the client did not answer it (or sent
    /// a shape that is not an elicitation result).
    pub fn elicit_result(&self, key: &str) -> Option<crate::protocol::ElicitResult> {
        let value = self.input_responses.as_ref()?.get(key)?;
        serde_json::from_value(value.clone()).ok()
    }

    /// The content the user submitted for input request `key`, as `T`. `None` when the
    /// request was not answered, was declined or cancelled, or the content does not convert
    /// to `T`: treat `None` as "ask again".
    pub fn accepted_content<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        let result = self.elicit_result(key)?;
        if result.action != crate::protocol::ElicitAction::Accept {
            return None;
        }
        serde_json::from_value(Value::Object(result.content?)).ok()
    }

    /// `true` when this round carries answers or state (a continuation).
    pub fn is_continuation(&self) -> bool {
        self.input_responses.is_some() || self.request_state.is_some()
    }

    /// The request state the tool returned in the previous round.
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }
}
