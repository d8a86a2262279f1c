//! Routing of the features beyond tools: `resources/list`, `resources/templates/list`,
//! `resources/read`, `resources/subscribe`/`unsubscribe` (legacy), `prompts/list`,
//! `prompts/get` and `completion/complete`, in both eras.
//!
//! A method of a feature the service does not declare in [`Features`] is answered
//! `-32601` (HTTP 404 on the modern era, in-band on the legacy one) without reaching the
//! service. Modern results of the cacheable methods carry `ttlMs`/`cacheScope` (the
//! handler's values, else 0 ms and private, as the TypeScript server sends) and every
//! modern result carries `resultType` and the server-info `_meta`.

use http::StatusCode;
use serde::Serialize;
use serde_json::json;

use super::{
    Reply, RequestContext, Server, guarded, internal_error, method_not_found, parse_params,
};
use crate::error::ServerError;
use crate::protocol::{
    CacheScope, Cacheable, CompleteParams, Era, ErrorCode, ErrorObject, JsonObject,
    PaginatedParams, ReadResourceParams, RequestEnvelope, ResultType, SubscribeParams,
};
use crate::session::{MAX_SUBSCRIPTION_URI_BYTES, MAX_SUBSCRIPTIONS, SUBSCRIPTIONS_KEY};

/// The features a service has beyond tools. They decide the capabilities a server
/// advertises, and which methods reach the service.
///
/// ```
/// let features = mcp::Features::none().with_resources().with_prompts();
/// assert!(features.resources && !features.completions);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Features {
    /// `resources/list`, `resources/templates/list`, `resources/read`.
    pub resources: bool,
    /// `resources/subscribe` and `resources/unsubscribe` (legacy era): advertised as
    /// `resources.subscribe`; the server records the subscriptions per session.
    pub resource_subscriptions: bool,
    /// `prompts/list`, `prompts/get`.
    pub prompts: bool,
    /// `completion/complete`.
    pub completions: bool,
}

impl Features {
    /// No feature beyond tools.
    pub const fn none() -> Self {
        Self {
            resources: false,
            resource_subscriptions: false,
            prompts: false,
            completions: false,
        }
    }

    /// With resources and resource templates.
    #[must_use]
    pub const fn with_resources(mut self) -> Self {
        self.resources = true;
        self
    }

    /// With legacy per-resource subscriptions (implies resources).
    #[must_use]
    pub const fn with_resource_subscriptions(mut self) -> Self {
        self.resources = true;
        self.resource_subscriptions = true;
        self
    }

    /// With prompts.
    #[must_use]
    pub const fn with_prompts(mut self) -> Self {
        self.prompts = true;
        self
    }

    /// With completion.
    #[must_use]
    pub const fn with_completions(mut self) -> Self {
        self.completions = true;
        self
    }

    /// Adds these features to a capabilities object.
    pub(crate) fn advertise(self, caps: &mut crate::protocol::ServerCapabilities) {
        if self.resources {
            let mut r = JsonObject::new();
            if self.resource_subscriptions {
                r.insert("subscribe".into(), json!(true));
            }
            r.insert("listChanged".into(), json!(false));
            caps.resources = Some(r);
        }
        if self.prompts {
            let mut p = JsonObject::new();
            p.insert("listChanged".into(), json!(false));
            caps.prompts = Some(p);
        }
        if self.completions {
            caps.completions = Some(JsonObject::new());
        }
    }
}

/// The methods routed here.
pub(crate) const METHODS: [&str; 8] = [
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
];

impl Server {
    /// Answers a method of [`METHODS`].
    pub(crate) async fn handle_feature(
        &self,
        method: &str,
        params: Option<JsonObject>,
        cx: RequestContext,
    ) -> Reply {
        let features = self.inner.features;
        let modern = cx.era == Era::Modern;
        let absent = match method {
            "resources/list" | "resources/templates/list" | "resources/read" => !features.resources,
            "resources/subscribe" | "resources/unsubscribe" => {
                modern || !features.resource_subscriptions
            }
            "prompts/list" | "prompts/get" => !features.prompts,
            _ => !features.completions,
        };
        if absent {
            return not_found(modern);
        }
        let handler = &*self.inner.handler;
        match method {
            "resources/list" | "resources/templates/list" | "prompts/list" => {
                let (cursor, cx) = match list_params(params, cx) {
                    Ok(p) => p,
                    Err(r) => return r,
                };
                match method {
                    "resources/list" => {
                        self.cacheable(guarded(handler.list_resources(cursor, &cx)).await, modern)
                    }
                    "resources/templates/list" => self.cacheable(
                        guarded(handler.list_resource_templates(cursor, &cx)).await,
                        modern,
                    ),
                    _ => self.cacheable(guarded(handler.list_prompts(cursor, &cx)).await, modern),
                }
            }
            "resources/read" => {
                let mut params: ReadResourceParams = match parse_params(params) {
                    Ok(p) => p,
                    Err(r) => return r,
                };
                let cx = with_meta(cx, &mut params.meta, modern);
                let out = guarded(handler.read_resource(params, &cx)).await;
                self.cacheable(out, modern)
            }
            "prompts/get" if modern => self.modern_get_prompt(params, cx).await,
            "prompts/get" => self.legacy_get_prompt(params, cx).await,
            "completion/complete" => {
                let mut params: CompleteParams = match parse_params(params) {
                    Ok(p) => p,
                    Err(r) => return r,
                };
                let cx = with_meta(cx, &mut params.meta, modern);
                match guarded(handler.complete(params, &cx)).await {
                    Ok(mut result) => {
                        result.completion = result.completion.truncated();
                        if modern {
                            result.result_type = Some(ResultType::Complete);
                            result.meta = Some(self.stamp(result.meta.take()));
                        } else {
                            result.result_type = None;
                        }
                        Reply::result(&result)
                    }
                    Err(e) => failure(e, modern),
                }
            }
            "resources/subscribe" => subscribe(params, &cx, true).await,
            "resources/unsubscribe" => subscribe(params, &cx, false).await,
            _ => not_found(modern),
        }
    }

    /// A cacheable result: on the modern era with `resultType`, cache hints (the handler's,
    /// else 0 ms private) and the server-info `_meta`; on the legacy era without them.
    fn cacheable<T: Cacheable + Serialize>(
        &self,
        out: Result<T, Option<Reply>>,
        modern: bool,
    ) -> Reply {
        let mut result = match out {
            Ok(r) => r,
            Err(e) => return failure(e, modern),
        };
        let fields = result.cache_fields();
        if modern {
            let ttl = match *fields.ttl_ms {
                Some(ttl) if ttl < 0 => {
                    tracing::error!(ttl, "a handler returned a negative ttlMs; sending 0");
                    0
                }
                Some(ttl) => ttl,
                None => 0,
            };
            *fields.ttl_ms = Some(ttl);
            fields.cache_scope.get_or_insert(CacheScope::Private);
            *fields.result_type = Some(ResultType::Complete);
            let meta = fields.meta.take();
            *fields.meta = Some(self.stamp(meta));
        } else {
            *fields.ttl_ms = None;
            *fields.cache_scope = None;
            *fields.result_type = None;
        }
        Reply::result(&result)
    }
}

/// `-32601`, with HTTP 404 on the modern era.
fn not_found(modern: bool) -> Reply {
    method_not_found(if modern {
        StatusCode::NOT_FOUND
    } else {
        StatusCode::OK
    })
}

/// A handler's failure: a "method not found" keeps the era's status.
pub(super) fn failure(e: Option<Reply>, modern: bool) -> Reply {
    match e {
        Some(Reply::Err { error, .. }) if error.code == ErrorCode::METHOD_NOT_FOUND => {
            not_found(modern)
        }
        Some(r) => r,
        None => internal_error(),
    }
}

fn list_params(
    params: Option<JsonObject>,
    cx: RequestContext,
) -> Result<(Option<String>, RequestContext), Reply> {
    let params: PaginatedParams = parse_params(params)?;
    Ok((params.cursor, cx.with_meta(None)))
}

/// A `prompts/get` whose argument is not a string names the prompt and the argument, as a
/// tool call names its argument: `-32602 "Invalid arguments for prompt code_review: invalid
/// argument `focus`: invalid type: sequence, expected a string"`. (The TypeScript server
/// answers `-32603` with its schema's issue list; the code here is the one it gives a
/// missing argument, and the message has the same prefix.) Other malformed params are left
/// to [`parse_params`].
pub(super) fn prompt_arguments_are_text(params: Option<&JsonObject>) -> Result<(), Reply> {
    let Some(params) = params else { return Ok(()) };
    let Some(serde_json::Value::Object(arguments)) = params.get("arguments") else {
        return Ok(());
    };
    let Some((name, value)) = arguments.iter().find(|(_, v)| !v.is_string()) else {
        return Ok(());
    };
    // serde's own wording, as for a tool's argument (`&Value` is a deserializer: no copy).
    let problem = match <String as serde::Deserialize>::deserialize(value) {
        Err(e) => e.to_string(),
        Ok(_) => "expected a string".to_owned(),
    };
    let prompt = params
        .get("name")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    Err(Reply::in_band(ErrorObject::new(
        ErrorCode::INVALID_PARAMS,
        format!("Invalid arguments for prompt {prompt}: invalid argument `{name}`: {problem}"),
    )))
}

/// The context with the request's `_meta` (without the modern envelope keys).
pub(super) fn with_meta(
    cx: RequestContext,
    meta: &mut Option<JsonObject>,
    modern: bool,
) -> RequestContext {
    let stripped = if modern {
        RequestEnvelope::strip(meta.take())
    } else {
        meta.clone()
    };
    *meta = stripped.clone();
    cx.with_meta(stripped)
}

/// `resources/subscribe` / `resources/unsubscribe` (legacy): `{}`, the URI recorded in (or
/// removed from) the session. A request without a session (stateless serving) succeeds
/// without effect, as with the TypeScript server. The `notifications/resources/updated`
/// that a subscription asks for are sent by the change-notification layer, which reads
/// [`SUBSCRIPTIONS_KEY`].
async fn subscribe(params: Option<JsonObject>, cx: &RequestContext, add: bool) -> Reply {
    let params: SubscribeParams = match parse_params(params) {
        Ok(p) => p,
        Err(r) => return r,
    };
    if params.uri.len() > MAX_SUBSCRIPTION_URI_BYTES {
        return Reply::in_band(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!(
                "Invalid params: a subscribed URI is at most {MAX_SUBSCRIPTION_URI_BYTES} bytes"
            ),
        ));
    }
    let Some(session) = &cx.session else {
        return Reply::result(&json!({}));
    };
    let uri = params.uri;
    let outcome = session
        .update_with(SUBSCRIPTIONS_KEY, |current: Option<Vec<String>>| {
            let mut uris = current.unwrap_or_default();
            let present = uris.contains(&uri);
            if add && !present {
                if uris.len() >= MAX_SUBSCRIPTIONS {
                    return (uris, false);
                }
                uris.push(uri.clone());
            } else if !add {
                uris.retain(|u| *u != uri);
            }
            (uris, true)
        })
        .await;
    match outcome {
        Ok((_, true)) => Reply::result(&json!({})),
        Ok((_, false)) => Reply::in_band(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!(
                "Invalid params: a session subscribes to at most {MAX_SUBSCRIPTIONS} resources"
            ),
        )),
        Err(e) => Reply::from_server_error(&ServerError::internal(e)),
    }
}
