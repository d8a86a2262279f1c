//! The checks an input-required result passes before it is sent (the seed's list): at least
//! one of `inputRequests` and `requestState`; well-formed form and URL elicitations; and
//! only modes this request's client capabilities declare.

use serde_json::{Map, Value, json};

use crate::protocol::{ClientCapabilities, ErrorCode, ErrorObject, InputRequiredResult};

/// Why an input-required result cannot be sent.
#[derive(Debug, PartialEq)]
pub(crate) enum Refusal {
    /// The result is malformed: `-32603` with this message.
    Invalid(String),
    /// The client did not declare these elicitation modes: `-32021`, HTTP 400.
    Capability {
        key: String,
        modes: Vec<&'static str>,
    },
    /// The client did not declare `sampling`: `-32021`, HTTP 400.
    Sampling { key: String },
    /// The client did not declare `roots`: `-32021`, HTTP 400.
    Roots { key: String },
}

impl Refusal {
    pub(crate) fn to_error(&self) -> ErrorObject {
        match self {
            Self::Invalid(m) => ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!("Invalid input-required result: {m}"),
            ),
            Self::Capability { key, modes } => {
                let mut elicitation = Map::new();
                for m in modes {
                    elicitation.insert((*m).to_owned(), json!({}));
                }
                ErrorObject::new(
                    ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                    format!("Cannot request input '{key}' (elicitation/create): the request's client capabilities do not declare the required capability"),
                )
                .with_data(json!({"requiredCapabilities": {"elicitation": elicitation}}))
            }
            Self::Sampling { key } => ErrorObject::new(
                ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                format!("Cannot request input '{key}' (sampling/createMessage): the request's client capabilities do not declare the required capability"),
            )
            .with_data(json!({"requiredCapabilities": {"sampling": {}}})),
            Self::Roots { key } => ErrorObject::new(
                ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                format!("Cannot request input '{key}' ({ROOTS}): the request's client capabilities do not declare the required capability"),
            )
            .with_data(json!({"requiredCapabilities": {"roots": {}}})),
        }
    }
}

fn invalid(key: &str, problem: impl std::fmt::Display) -> Refusal {
    Refusal::Invalid(format!("input request `{key}`: {problem}"))
}

/// Checks (and completes: `method`, `mode` and the schema's `"type": "object"` may be
/// omitted by handlers) an input-required result. `capabilities` are the client's, or `None`
/// to skip the capability gate.
pub(crate) fn check(
    result: &mut InputRequiredResult,
    capabilities: Option<&ClientCapabilities>,
) -> Result<(), Refusal> {
    let has_requests = result
        .input_requests
        .as_ref()
        .is_some_and(|r| !r.is_empty());
    if !has_requests && result.request_state.is_none() {
        return Err(Refusal::Invalid(
            "it has neither inputRequests nor requestState".into(),
        ));
    }
    if result.request_state.as_ref().is_some_and(String::is_empty) {
        return Err(Refusal::Invalid("requestState is empty".into()));
    }
    let Some(requests) = result.input_requests.as_mut() else {
        return Ok(());
    };
    if requests.is_empty() {
        result.input_requests = None;
        return Ok(());
    }
    let elicitation = capabilities.map(|c| c.elicitation.clone());
    for (key, request) in requests.iter_mut() {
        if request.get("method").and_then(Value::as_str) == Some(SAMPLING) {
            check_sampling(key, request)?;
            if capabilities.is_some_and(|c| c.sampling.is_none()) {
                return Err(Refusal::Sampling { key: key.clone() });
            }
            continue;
        }
        if request.get("method").and_then(Value::as_str) == Some(ROOTS) {
            check_roots(key, request)?;
            if capabilities.is_some_and(|c| c.roots.is_none()) {
                return Err(Refusal::Roots { key: key.clone() });
            }
            continue;
        }
        let mode = check_request(key, request)?;
        if let Some(elicitation) = &elicitation {
            let supported = match (elicitation, mode) {
                (None, _) => false,
                (Some(e), "form") => e.supports_form(),
                (Some(e), _) => e.supports_url(),
            };
            if !supported {
                return Err(Refusal::Capability {
                    key: key.clone(),
                    modes: vec![mode],
                });
            }
        }
    }
    Ok(())
}

const SAMPLING: &str = crate::protocol::SAMPLING_CREATE_MESSAGE;
const ROOTS: &str = crate::protocol::ROOTS_LIST;

/// Checks (and completes) a `roots/list` input request: its params, when present, must be
/// an object (`{}` is added when they are missing).
fn check_roots(key: &str, request: &mut Value) -> Result<(), Refusal> {
    let Value::Object(request) = request else {
        return Err(invalid(key, "not an object"));
    };
    match request.get("params") {
        None => {
            request.insert("params".into(), json!({}));
            Ok(())
        }
        Some(Value::Object(_)) => Ok(()),
        Some(_) => Err(invalid(key, "the params of roots/list must be an object")),
    }
}

/// Checks a `sampling/createMessage` input request: its params must be a sampling request.
fn check_sampling(key: &str, request: &Value) -> Result<(), Refusal> {
    let params = request.get("params").cloned().unwrap_or(Value::Null);
    serde_json::from_value::<crate::protocol::SamplingRequest>(params)
        .map(drop)
        .map_err(|e| invalid(key, format!("not a sampling request: {e}")))
}

/// Checks one request; returns its mode.
fn check_request(key: &str, request: &mut Value) -> Result<&'static str, Refusal> {
    let Value::Object(request) = request else {
        return Err(invalid(key, "not an object"));
    };
    match request.get("method") {
        None => {
            request.insert("method".into(), json!("elicitation/create"));
        }
        Some(Value::String(m)) if m == "elicitation/create" => {}
        Some(other) => {
            return Err(invalid(
                key,
                format!(
                    "unsupported method {other}; only elicitation/create, {SAMPLING} and {ROOTS}"
                ),
            ));
        }
    }
    let Some(Value::Object(params)) = request.get_mut("params") else {
        return Err(invalid(key, "missing params"));
    };
    let mode = match params.get("mode") {
        None => {
            params.insert("mode".into(), json!("form"));
            "form"
        }
        Some(Value::String(m)) if m == "form" => "form",
        Some(Value::String(m)) if m == "url" => "url",
        Some(other) => return Err(invalid(key, format!("unknown mode {other}"))),
    };
    match params.get("message") {
        Some(Value::String(m)) if !m.trim().is_empty() => {}
        _ => return Err(invalid(key, "the message is blank")),
    }
    if mode == "url" {
        let url = params
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !is_absolute_url(url) {
            return Err(invalid(
                key,
                format!("the url {url:?} is not absolute (a scheme and a host)"),
            ));
        }
        return Ok(mode);
    }
    let Some(Value::Object(schema)) = params.get_mut("requestedSchema") else {
        return Err(invalid(
            key,
            "a form elicitation needs a requestedSchema object",
        ));
    };
    match schema.get("type") {
        None => {
            schema.insert("type".into(), json!("object"));
        }
        Some(Value::String(t)) if t == "object" => {}
        Some(_) => return Err(invalid(key, "the requestedSchema must be an object schema")),
    }
    let empty = Map::new();
    let properties = match schema.get("properties") {
        Some(Value::Object(p)) => p,
        None => &empty,
        Some(_) => return Err(invalid(key, "requestedSchema.properties must be an object")),
    };
    for (name, field) in properties {
        check_field(field).map_err(|p| invalid(key, format!("field `{name}`: {p}")))?;
    }
    if let Some(required) = schema.get("required") {
        let Value::Array(required) = required else {
            return Err(invalid(key, "requestedSchema.required must be an array"));
        };
        for r in required {
            let name = r
                .as_str()
                .ok_or_else(|| invalid(key, "requestedSchema.required must list names"))?;
            if !properties.contains_key(name) {
                return Err(invalid(
                    key,
                    format!("required field `{name}` is not in properties"),
                ));
            }
        }
    }
    Ok(mode)
}

fn non_negative(field: &Map<String, Value>, key: &str) -> Result<Option<f64>, String> {
    match field.get(key) {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(n) if n >= 0.0 => Ok(Some(n)),
            _ => Err(format!("`{key}` must be a non-negative number")),
        },
    }
}

fn ordered(low: Option<f64>, high: Option<f64>, what: &str) -> Result<(), String> {
    match (low, high) {
        (Some(l), Some(h)) if l > h => Err(format!("inverted bounds: {what}")),
        _ => Ok(()),
    }
}

fn enum_values(field: &Map<String, Value>) -> Result<Option<Vec<Value>>, String> {
    if let Some(e) = field.get("enum") {
        return match e {
            Value::Array(a) if !a.is_empty() => Ok(Some(a.clone())),
            _ => Err("an empty enum".into()),
        };
    }
    for one in ["oneOf", "anyOf"] {
        if let Some(o) = field.get(one) {
            let Value::Array(options) = o else {
                return Err(format!("`{one}` must be an array"));
            };
            if options.is_empty() {
                return Err("an empty enum".into());
            }
            let consts: Option<Vec<Value>> =
                options.iter().map(|o| o.get("const").cloned()).collect();
            return consts
                .map(Some)
                .ok_or_else(|| format!("every `{one}` option needs a `const`"));
        }
    }
    Ok(None)
}

fn check_field(field: &Value) -> Result<(), String> {
    let Value::Object(field) = field else {
        return Err("not an object schema".into());
    };
    if field.contains_key("enumNames") {
        return Err(
            "the `enumNames` shape is not supported: use `oneOf` with `const` and `title`".into(),
        );
    }
    let ty = field
        .get("type")
        .and_then(Value::as_str)
        .ok_or("missing `type`")?;
    match ty {
        "string" => {
            let (min, max) = (
                non_negative(field, "minLength")?,
                non_negative(field, "maxLength")?,
            );
            ordered(min, max, "minLength > maxLength")?;
            if let Some(f) = field.get("format").and_then(Value::as_str)
                && !["email", "uri", "date", "date-time"].contains(&f)
            {
                return Err(format!("unsupported format `{f}`"));
            }
            if let (Some(values), Some(default)) = (enum_values(field)?, field.get("default"))
                && !values.contains(default)
            {
                return Err("the default is not one of the options".into());
            }
        }
        "number" | "integer" => {
            let min = field.get("minimum").and_then(Value::as_f64);
            let max = field.get("maximum").and_then(Value::as_f64);
            ordered(min, max, "minimum > maximum")?;
        }
        "boolean" => {
            if field.get("default").is_some_and(|d| !d.is_boolean()) {
                return Err("the default of a yes/no field must be a boolean".into());
            }
        }
        "array" => {
            let (min, max) = (
                non_negative(field, "minItems")?,
                non_negative(field, "maxItems")?,
            );
            ordered(min, max, "minItems > maxItems")?;
            let items = field
                .get("items")
                .and_then(Value::as_object)
                .ok_or("a multi-select needs `items`")?;
            let values =
                enum_values(items)?.ok_or("a multi-select needs `items.enum` or `items.anyOf`")?;
            if let Some(Value::Array(defaults)) = field.get("default")
                && defaults.iter().any(|d| !values.contains(d))
            {
                return Err("a default is not one of the options".into());
            }
        }
        other => return Err(format!("unsupported field type `{other}`")),
    }
    Ok(())
}

/// `true` for an absolute URL: a scheme and a non-empty host.
pub(crate) fn is_absolute_url(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once("://") else {
        return false;
    };
    let scheme_ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    let host = host.strip_prefix('[').map_or_else(
        || host.split(':').next().unwrap_or_default(),
        |h| h.split(']').next().unwrap_or_default(),
    );
    scheme_ok && !host.is_empty() && !url.chars().any(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(requests: Value) -> InputRequiredResult {
        InputRequiredResult {
            input_requests: requests.as_object().cloned(),
            ..Default::default()
        }
    }

    fn caps(v: Value) -> ClientCapabilities {
        serde_json::from_value(v).unwrap()
    }

    fn form(schema: Value) -> Value {
        json!({"ask": {"params": {"message": "Confirm?", "requestedSchema": schema}}})
    }

    #[test]
    fn completes_the_seed_advanced_shape() {
        let mut r = result(form(
            json!({"properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"]}),
        ));
        check(&mut r, Some(&caps(json!({"elicitation": {}})))).unwrap();
        let ask = &r.input_requests.unwrap()["ask"];
        assert_eq!(ask["method"], "elicitation/create");
        assert_eq!(ask["params"]["mode"], "form");
        assert_eq!(ask["params"]["requestedSchema"]["type"], "object");
    }

    #[test]
    fn rejects_every_malformed_shape() {
        let bad_forms = [
            json!({"properties": {"a": {"type": "string"}}, "required": ["b"]}),
            json!({"properties": {"a": {"type": "string", "minLength": 5, "maxLength": 2}}}),
            json!({"properties": {"a": {"type": "string", "minLength": -1}}}),
            json!({"properties": {"a": {"type": "integer", "minimum": 10, "maximum": 1}}}),
            json!({"properties": {"a": {"type": "array", "minItems": 3, "maxItems": 1, "items": {"enum": ["x"]}}}}),
            json!({"properties": {"a": {"type": "string", "enum": []}}}),
            json!({"properties": {"a": {"type": "string", "oneOf": []}}}),
            json!({"properties": {"a": {"type": "string", "enum": ["x"], "default": "y"}}}),
            json!({"properties": {"a": {"type": "string", "oneOf": [{"const": "x", "title": "X"}], "default": "y"}}}),
            json!({"properties": {"a": {"type": "string", "enum": ["x"], "enumNames": ["X"]}}}),
            json!({"properties": {"a": {"type": "object"}}}),
            json!({"type": "array"}),
        ];
        for schema in bad_forms {
            let mut r = result(form(schema.clone()));
            assert!(
                matches!(check(&mut r, None), Err(Refusal::Invalid(_))),
                "{schema}"
            );
        }
        for requests in [
            json!({"ask": {"params": {"message": "  ", "requestedSchema": {"properties": {}}}}}),
            json!({"ask": {"params": {"mode": "url", "message": "Open", "url": "/relative"}}}),
            json!({"ask": {"params": {"mode": "url", "message": "Open", "url": "https://"}}}),
            json!({"ask": {"params": {"mode": "url", "message": "", "url": "https://example.com"}}}),
            json!({"ask": {"method": "sampling/createMessage", "params": {"message": "x"}}}),
            json!({"ask": {"params": {"mode": "telepathy", "message": "x"}}}),
        ] {
            let mut r = result(requests.clone());
            assert!(
                matches!(check(&mut r, None), Err(Refusal::Invalid(_))),
                "{requests}"
            );
        }
        let mut empty = InputRequiredResult::default();
        assert!(matches!(check(&mut empty, None), Err(Refusal::Invalid(_))));
    }

    #[test]
    fn capability_gate_per_mode() {
        let url = json!({"connect": {"params": {"mode": "url", "message": "Connect", "url": "http://localhost:8080/connect?id=1"}}});
        let form_only = caps(json!({"elicitation": {"form": {}}}));
        let mut r = result(url.clone());
        let refusal = check(&mut r, Some(&form_only)).unwrap_err();
        assert_eq!(
            refusal.to_error().data.unwrap()["requiredCapabilities"],
            json!({"elicitation": {"url": {}}})
        );
        assert_eq!(
            refusal.to_error().code,
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        );
        let mut r = result(url);
        check(&mut r, Some(&caps(json!({"elicitation": {"url": {}}})))).unwrap();
        // An empty elicitation capability means form; none at all means nothing.
        let f = form(json!({"properties": {"ok": {"type": "boolean"}}}));
        check(
            &mut result(f.clone()),
            Some(&caps(json!({"elicitation": {}}))),
        )
        .unwrap();
        assert!(
            check(
                &mut result(f.clone()),
                Some(&caps(json!({"elicitation": {"url": {}}})))
            )
            .is_err()
        );
        assert!(check(&mut result(f), Some(&caps(json!({})))).is_err());
    }

    #[test]
    fn roots_requests_are_checked_and_gated_on_the_roots_capability() {
        let roots = json!({"where": {"method": "roots/list"}});
        let mut r = result(roots.clone());
        check(&mut r, Some(&caps(json!({"roots": {}})))).unwrap();
        assert_eq!(r.input_requests.unwrap()["where"]["params"], json!({}));
        let refusal = check(&mut result(roots), Some(&caps(json!({"sampling": {}})))).unwrap_err();
        let error = refusal.to_error();
        assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
        assert_eq!(
            error.data.unwrap()["requiredCapabilities"],
            json!({"roots": {}})
        );
        let mut bad = result(json!({"where": {"method": "roots/list", "params": 1}}));
        assert!(matches!(check(&mut bad, None), Err(Refusal::Invalid(_))));
        let mut unknown = result(json!({"x": {"method": "ping", "params": {}}}));
        assert!(matches!(
            check(&mut unknown, None),
            Err(Refusal::Invalid(_))
        ));
    }

    #[test]
    fn absolute_urls() {
        for ok in [
            "https://example.com",
            "http://localhost:8080/x?y#z",
            "http://[::1]:3000/",
            "custom+scheme://host",
        ] {
            assert!(is_absolute_url(ok), "{ok}");
        }
        for bad in [
            "",
            "example.com",
            "/x",
            "https://",
            "https:///x",
            "1http://x",
            "https://exa mple.com",
            "mailto:x@y",
        ] {
            assert!(!is_absolute_url(bad), "{bad}");
        }
    }

    #[test]
    fn sampling_requests_need_a_sampling_request_and_the_capability() {
        let ask = json!({"s": {"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}}});
        assert_eq!(check(&mut result(ask.clone()), None), Ok(()));
        assert_eq!(
            check(
                &mut result(ask.clone()),
                Some(&caps(json!({"sampling": {}})))
            ),
            Ok(())
        );
        let refusal = check(&mut result(ask), Some(&caps(json!({"elicitation": {}}))));
        assert_eq!(refusal, Err(Refusal::Sampling { key: "s".into() }));
        let error = refusal.unwrap_err().to_error();
        assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
        assert_eq!(
            error.data,
            Some(json!({"requiredCapabilities": {"sampling": {}}}))
        );
        let no_tokens =
            json!({"s": {"method": "sampling/createMessage", "params": {"messages": []}}});
        assert!(matches!(
            check(&mut result(no_tokens), None),
            Err(Refusal::Invalid(_))
        ));
    }
}
