//! Elicitation: the `elicitation/create` request a server sends to ask the user for input
//! (embedded in an `input_required` result on modern, as a server→client request on
//! legacy) and the result a client answers with.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::{IntoSchemaObject, JsonObject};

/// The method of an elicitation request.
pub const ELICITATION_CREATE: &str = "elicitation/create";

/// Params of a form-mode elicitation: a message and a flat object schema.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FormElicitationParams {
    /// What the user is asked.
    pub message: String,
    /// A flat `{"type":"object","properties":{…}}` schema of the requested fields.
    pub requested_schema: JsonObject,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of a URL-mode elicitation: the user is sent to an out-of-band page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UrlElicitationParams {
    /// Why the user should open the URL.
    pub message: String,
    /// The absolute URL to present (never fetched by the client).
    pub url: String,
    /// Legacy 2025-11-25 only: the id `notifications/elicitation/complete` refers to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl FormElicitationParams {
    /// A form asking `message`, with the flat object schema of the requested fields (a
    /// [`serde_json::Value`], a [`JsonObject`] or a [`schemars::Schema`]).
    pub fn new(message: impl Into<String>, requested_schema: impl IntoSchemaObject) -> Self {
        Self {
            message: message.into(),
            requested_schema: requested_schema.into_schema_object(),
            meta: None,
        }
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_meta(mut self, meta: JsonObject) -> Self {
        self.meta = Some(meta);
        self
    }
}

impl UrlElicitationParams {
    /// A URL elicitation: `message` says why the user should open `url`.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            url: url.into(),
            elicitation_id: None,
            meta: None,
        }
    }

    /// Sets the id `notifications/elicitation/complete` refers to (legacy 2025-11-25).
    #[must_use]
    pub fn with_elicitation_id(mut self, id: impl Into<String>) -> Self {
        self.elicitation_id = Some(id.into());
        self
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_meta(mut self, meta: JsonObject) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The params of `elicitation/create`, by `mode` (absent means form).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ElicitRequestParams {
    /// `"mode": "form"` (or no mode).
    Form(FormElicitationParams),
    /// `"mode": "url"`.
    Url(UrlElicitationParams),
}

impl ElicitRequestParams {
    /// The message shown to the user.
    pub fn message(&self) -> &str {
        match self {
            Self::Form(p) => &p.message,
            Self::Url(p) => &p.message,
        }
    }

    /// `true` for a URL-mode elicitation.
    pub fn is_url(&self) -> bool {
        matches!(self, Self::Url(_))
    }
}

impl Serialize for ElicitRequestParams {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (mode, value) = match self {
            Self::Form(p) => ("form", serde_json::to_value(p)),
            Self::Url(p) => ("url", serde_json::to_value(p)),
        };
        let mut value = value.map_err(serde::ser::Error::custom)?;
        if let Value::Object(obj) = &mut value {
            obj.insert("mode".into(), Value::String(mode.into()));
        }
        value.serialize(s)
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let obj = Map::<String, Value>::deserialize(d)?;
        let mode = match obj.get("mode") {
            None => "form",
            Some(Value::String(m)) => m.as_str(),
            Some(_) => return Err(D::Error::custom("`mode` must be a string")),
        };
        match mode {
            "form" => serde_json::from_value(Value::Object(obj))
                .map(Self::Form)
                .map_err(D::Error::custom),
            "url" => serde_json::from_value(Value::Object(obj))
                .map(Self::Url)
                .map_err(D::Error::custom),
            other => Err(D::Error::custom(format!(
                "unknown elicitation mode `{other}`"
            ))),
        }
    }
}

/// An `elicitation/create` request without its JSON-RPC id: the shape of an entry of
/// `inputRequests`, `{"method":"elicitation/create","params":{…}}`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ElicitRequest {
    /// The params.
    pub params: ElicitRequestParams,
}

impl ElicitRequest {
    /// A request with these params.
    pub fn new(params: ElicitRequestParams) -> Self {
        Self { params }
    }

    /// A form-mode request (see [`FormElicitationParams::new`]).
    ///
    /// ```
    /// use mcp::ElicitRequest;
    /// use serde_json::json;
    ///
    /// let ask = ElicitRequest::form("Delete?", json!({"type": "object", "properties": {}}));
    /// assert_eq!(ask.params.message(), "Delete?");
    /// ```
    pub fn form(message: impl Into<String>, requested_schema: impl IntoSchemaObject) -> Self {
        Self::new(ElicitRequestParams::Form(FormElicitationParams::new(
            message,
            requested_schema,
        )))
    }

    /// A URL-mode request (see [`UrlElicitationParams::new`]).
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self::new(ElicitRequestParams::Url(UrlElicitationParams::new(
            message, url,
        )))
    }
}

impl Serialize for ElicitRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire<'a> {
            method: &'static str,
            params: &'a ElicitRequestParams,
        }
        Wire {
            method: ELICITATION_CREATE,
            params: &self.params,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for ElicitRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            method: String,
            params: ElicitRequestParams,
        }
        let wire = Wire::deserialize(d)?;
        if wire.method != ELICITATION_CREATE {
            return Err(D::Error::custom(format!(
                "expected method `{ELICITATION_CREATE}`, found `{}`",
                wire.method
            )));
        }
        Ok(Self {
            params: wire.params,
        })
    }
}

/// The user's answer to an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user submitted the form, or agreed to open the URL.
    Accept,
    /// The user refused.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// The result of an elicitation (`ElicitResult`): the action and, for an accepted form, the
/// submitted content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted fields (accepted forms only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ElicitResult {
    /// An accepted form with its content.
    pub fn accept(content: JsonObject) -> Self {
        Self {
            action: ElicitAction::Accept,
            content: Some(content),
            meta: None,
        }
    }

    /// An acceptance without content (a URL elicitation the user agreed to open).
    pub fn accept_url() -> Self {
        Self {
            action: ElicitAction::Accept,
            content: None,
            meta: None,
        }
    }

    /// The user refused.
    pub fn decline() -> Self {
        Self {
            action: ElicitAction::Decline,
            content: None,
            meta: None,
        }
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_meta(mut self, meta: JsonObject) -> Self {
        self.meta = Some(meta);
        self
    }

    /// The user dismissed the request.
    pub fn cancel() -> Self {
        Self {
            action: ElicitAction::Cancel,
            content: None,
            meta: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_both_modes() {
        let form: ElicitRequest = serde_json::from_value(json!({
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "Delete?", "requestedSchema": {"type": "object", "properties": {}}}
        }))
        .unwrap();
        assert!(matches!(form.params, ElicitRequestParams::Form(_)));
        let bare: ElicitRequestParams =
            serde_json::from_value(json!({"message": "m", "requestedSchema": {"type": "object"}}))
                .unwrap();
        assert!(matches!(bare, ElicitRequestParams::Form(_)));
        let url: ElicitRequestParams = serde_json::from_value(
            json!({"mode": "url", "message": "m", "url": "https://x.example/c"}),
        )
        .unwrap();
        assert!(url.is_url());
        assert!(
            serde_json::from_value::<ElicitRequestParams>(json!({"mode": "voice", "message": "m"}))
                .is_err()
        );
        assert!(
            serde_json::from_value::<ElicitRequest>(json!({"method": "roots/list", "params": {}}))
                .is_err()
        );
    }

    #[test]
    fn writes_mode_and_method() {
        let req = ElicitRequest::url("Connect", "https://x.example/c");
        assert_eq!(
            serde_json::to_value(&req).unwrap(),
            json!({"method": "elicitation/create", "params": {"mode": "url", "message": "Connect", "url": "https://x.example/c"}})
        );
        assert_eq!(
            serde_json::to_value(ElicitResult::decline()).unwrap(),
            json!({"action": "decline"})
        );
    }
}
