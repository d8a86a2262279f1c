//! Support for generated resources, resource templates, prompts and completers: the
//! catalog built once per service, the lookups of `resources/read`, `prompts/get` and
//! `completion/complete`, and the conversions of the methods' return values, whose trait
//! bounds carry the return-type diagnostics (MCP_308 … MCP_310).

use std::marker::PhantomData;

use base64::Engine as _;
use serde_json::{Map, Value};

use super::Probe;
use super::tools::{CallArgs, Subject};
use crate::dispatch::{Features, RequestContext, UriTemplate, UriTemplateError};
use crate::error::{BoxError, ServerError};
use crate::protocol::{
    Annotations, CompleteParams, CompleteResult, Completion, ErrorCode, GetPromptResponse,
    GetPromptResult, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, Prompt, PromptArgument, PromptMessage, ReadResourceResult, Reference,
    Resource, ResourceContents, ResourceTemplate, Role,
};

/// A resource or resource template, as the macro sees it.
pub struct ResourceSpec {
    /// The method's number in the generated dispatch.
    pub id: usize,
    /// `uri = ...` (static) or `template = ...`.
    pub uri: &'static str,
    /// Whether `uri` is a template.
    pub template: bool,
    /// The name.
    pub name: &'static str,
    /// Display title.
    pub title: Option<&'static str>,
    /// Description.
    pub description: Option<&'static str>,
    /// MIME type.
    pub mime_type: Option<&'static str>,
    /// Audience annotation (`"user"`, `"assistant"`).
    pub audience: &'static [&'static str],
    /// Priority annotation.
    pub priority: Option<f64>,
    /// Size in bytes (static resources).
    pub size: Option<u64>,
}

/// A prompt argument, as the macro sees it.
pub struct PromptArgSpec {
    /// The argument name.
    pub name: &'static str,
    /// Description.
    pub description: Option<&'static str>,
    /// `false` for runtime parameters, which are not listed.
    pub listed: bool,
    /// Whether it must be given.
    pub required: bool,
}

/// A prompt, as the macro sees it.
pub struct PromptSpec {
    /// The method's number in the generated dispatch.
    pub id: usize,
    /// The name.
    pub name: &'static str,
    /// Display title.
    pub title: Option<&'static str>,
    /// Description.
    pub description: Option<&'static str>,
    /// Parameters in declaration order.
    pub arguments: Vec<PromptArgSpec>,
}

/// A completer, as the macro sees it.
pub struct CompleterSpec {
    /// The method's number in the generated dispatch.
    pub id: usize,
    /// The prompt name (`prompt = ...`) or the template (`template = ...`).
    pub target: &'static str,
    /// Whether `target` is a template.
    pub template: bool,
    /// The argument or variable completed.
    pub argument: &'static str,
}

/// Everything a basic service offers beyond tools, built once.
pub struct Catalog {
    resources: Vec<(usize, Resource)>,
    templates: Vec<(usize, UriTemplate, ResourceTemplate)>,
    specs: Vec<ResourceSpec>,
    prompts: Vec<(usize, Prompt)>,
    completers: Vec<CompleterSpec>,
}

fn annotations(spec: &ResourceSpec) -> Option<Annotations> {
    if spec.audience.is_empty() && spec.priority.is_none() {
        return None;
    }
    let mut a = Annotations::default();
    if !spec.audience.is_empty() {
        a = a.with_audience(
            spec.audience
                .iter()
                .map(|r| {
                    if *r == "assistant" {
                        Role::Assistant
                    } else {
                        Role::User
                    }
                })
                .collect(),
        );
    }
    if let Some(p) = spec.priority {
        a = a.with_priority(p);
    }
    Some(a)
}

impl Catalog {
    /// Builds the catalog. A template the runtime cannot parse (the macro checks them) is
    /// logged and left out.
    pub fn new(
        specs: Vec<ResourceSpec>,
        prompts: Vec<PromptSpec>,
        completers: Vec<CompleterSpec>,
    ) -> Self {
        let mut resources = Vec::new();
        let mut templates = Vec::new();
        for s in &specs {
            let i = s.id;
            if s.template {
                let parsed = match UriTemplate::parse(s.uri) {
                    Ok(t) => t,
                    Err(e) => {
                        tracing::error!(template = s.uri, error = %e, "skipping a resource template");
                        continue;
                    }
                };
                let mut t = ResourceTemplate::new(s.uri, s.name);
                t.title = s.title.map(str::to_owned);
                t.description = s.description.map(str::to_owned);
                t.mime_type = s.mime_type.map(str::to_owned);
                t.annotations = annotations(s);
                templates.push((i, parsed, t));
            } else {
                let mut r = Resource::new(s.uri, s.name);
                r.title = s.title.map(str::to_owned);
                r.description = s.description.map(str::to_owned);
                r.mime_type = s.mime_type.map(str::to_owned);
                r.size = s.size;
                r.annotations = annotations(s);
                resources.push((i, r));
            }
        }
        let prompts = prompts
            .into_iter()
            .map(|p| {
                let mut prompt = Prompt::new(p.name);
                prompt.title = p.title.map(str::to_owned);
                prompt.description = p.description.map(str::to_owned);
                let args: Vec<_> = p
                    .arguments
                    .iter()
                    .filter(|a| a.listed)
                    .map(|a| {
                        let mut arg = PromptArgument::new(a.name, a.required);
                        arg.description = a.description.map(str::to_owned);
                        arg
                    })
                    .collect();
                if !args.is_empty() {
                    prompt.arguments = Some(args);
                }
                (p.id, prompt)
            })
            .collect();
        Self {
            resources,
            templates,
            specs,
            prompts,
            completers,
        }
    }

    /// The features the catalog holds.
    pub fn features(&self) -> Features {
        let mut f = Features::none();
        if !self.specs.is_empty() {
            f = f.with_resources();
        }
        if !self.prompts.is_empty() {
            f = f.with_prompts();
        }
        if !self.completers.is_empty() {
            f = f.with_completions();
        }
        f
    }

    /// `resources/list`: every static resource in one page.
    pub fn list_resources(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourcesResult, ServerError> {
        no_cursor(cursor)?;
        Ok(ListResourcesResult::new(
            self.resources.iter().map(|(_, r)| r.clone()).collect(),
        ))
    }

    /// `resources/templates/list`: every template in one page.
    pub fn list_templates(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult, ServerError> {
        no_cursor(cursor)?;
        Ok(ListResourceTemplatesResult::new(
            self.templates.iter().map(|(_, _, t)| t.clone()).collect(),
        ))
    }

    /// `prompts/list`: every prompt in one page.
    pub fn list_prompts(&self, cursor: Option<String>) -> Result<ListPromptsResult, ServerError> {
        no_cursor(cursor)?;
        Ok(ListPromptsResult::new(
            self.prompts.iter().map(|(_, p)| p.clone()).collect(),
        ))
    }

    /// The resource `uri` names: its index among the specs and the template variables
    /// (percent-decoded), static resources first, then templates in declaration order.
    pub fn find_resource(&self, uri: &str) -> Result<(usize, JsonObject), ServerError> {
        if let Some((i, _)) = self.resources.iter().find(|(_, r)| r.uri == uri) {
            return Ok((*i, JsonObject::new()));
        }
        for (i, template, _) in &self.templates {
            match template.match_uri(uri) {
                Ok(None) => {}
                Ok(Some(vars)) => {
                    let vars = vars
                        .into_iter()
                        .map(|(k, v)| (k, Value::String(v)))
                        .collect();
                    return Ok((*i, vars));
                }
                Err(e) => return Err(invalid_uri(uri, &e)),
            }
        }
        Err(ServerError::resource_not_found(uri))
    }

    /// The MIME type declared for resource method `id`.
    pub fn mime_type(&self, id: usize) -> Option<&'static str> {
        self.specs
            .iter()
            .find(|s| s.id == id)
            .and_then(|s| s.mime_type)
    }

    /// The number of prompt `name`.
    pub fn find_prompt(&self, name: &str) -> Result<usize, ServerError> {
        self.prompts
            .iter()
            .find(|(_, p)| p.name == name)
            .map(|(id, _)| *id)
            .ok_or_else(|| ServerError::prompt_not_found(name))
    }

    /// The completer of `params`' argument: `Ok(None)` when the prompt or template exists
    /// but has no completer for it (an empty completion), an error when the reference
    /// names nothing the service has.
    pub fn find_completer(&self, params: &CompleteParams) -> Result<Option<usize>, ServerError> {
        let (target, template) = match &params.reference {
            Reference::Prompt { name } => {
                self.find_prompt(name)?;
                (name.as_str(), false)
            }
            Reference::Resource { uri } => {
                if !self
                    .templates
                    .iter()
                    .any(|(_, _, t)| t.uri_template == *uri)
                {
                    if self.resources.iter().any(|(_, r)| r.uri == *uri) {
                        return Ok(None);
                    }
                    return Err(ServerError::template_not_found(uri));
                }
                (uri.as_str(), true)
            }
        };
        Ok(self
            .completers
            .iter()
            .find(|c| {
                c.template == template && c.target == target && c.argument == params.argument.name
            })
            .map(|c| c.id))
    }
}

fn no_cursor(cursor: Option<String>) -> Result<(), ServerError> {
    match cursor {
        None => Ok(()),
        Some(c) => Err(ServerError::invalid_params(format!("Invalid cursor: {c}"))),
    }
}

/// `-32602 Resource URI <uri> is invalid` with `data: {"uri", "reason": "invalid_uri"}`, the
/// TypeScript server's answer to a URI it cannot use (an over-long URI is not echoed).
fn invalid_uri(uri: &str, e: &UriTemplateError) -> ServerError {
    tracing::debug!(error = %e, "refusing a resource URI");
    if uri.len() > crate::dispatch::MAX_URI_BYTES {
        return ServerError::Rpc {
            code: ErrorCode::INVALID_PARAMS,
            message: format!("Resource URI is invalid: {e}"),
            data: Some(serde_json::json!({"reason": "invalid_uri"})),
        };
    }
    ServerError::Rpc {
        code: ErrorCode::INVALID_PARAMS,
        message: format!("Resource URI {uri} is invalid: {e}"),
        data: Some(serde_json::json!({"uri": uri, "reason": "invalid_uri"})),
    }
}

/// The binding of a resource method's parameters: the template variables.
pub fn resource_call<'a>(uri: &str, vars: JsonObject, request: &'a RequestContext) -> CallArgs<'a> {
    CallArgs::for_feature(Subject::Resource, uri, vars, request)
}

/// The binding of a prompt's parameters: its arguments (strings), and an `mcp::Context`
/// with the answers and request state of the round.
pub fn prompt_call<'a>(
    params: crate::protocol::GetPromptParams,
    request: &'a RequestContext,
) -> CallArgs<'a> {
    let context = crate::dispatch::Context::from_prompt(&params, request);
    let args: Map<String, Value> = params
        .arguments
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    CallArgs::for_feature(Subject::Prompt, &params.name, args, request).with_context(context)
}

/// The binding of a completer's parameters: its first argument parameter gets the partial
/// value, its second (when it has one) the other arguments already given (an object of
/// strings, empty when the client sent no `context`). `params` lists the parameters'
/// names with `true` for argument parameters.
pub fn completer_call<'a>(
    params: &CompleteParams,
    names: &[(&'static str, bool)],
    request: &'a RequestContext,
) -> CallArgs<'a> {
    let mut args = Map::new();
    let mut arguments = names.iter().filter(|(_, is_arg)| *is_arg).map(|(n, _)| *n);
    if let Some(first) = arguments.next() {
        args.insert(first.into(), Value::String(params.argument.value.clone()));
    }
    if let Some(second) = arguments.next() {
        let context: Map<String, Value> = params
            .context
            .as_ref()
            .and_then(|c| c.arguments.clone())
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        args.insert(second.into(), Value::Object(context));
    }
    CallArgs::for_feature(Subject::Completer, &params.argument.name, args, request)
}

// ------------------------------------------------------------------ conversions

/// An error type a resource, prompt or completer method may return: [`ServerError`] is
/// answered as it is, anything else is a generic internal error whose detail is logged.
fn server_error(e: impl Into<BoxError>) -> ServerError {
    match e.into().downcast::<ServerError>() {
        Ok(e) => *e,
        Err(other) => ServerError::internal(other),
    }
}

/// A return type a resource method may have (the rule of
/// `MCP_308`).
#[diagnostic::on_unimplemented(
    message = "MCP_308: a resource method cannot return `{Self}`",
    label = "not readable as resource contents",
    note = "return `String` (text), `Vec<u8>` or `bytes::Bytes` (blob), `mcp::ResourceContents`, `Vec<mcp::ResourceContents>`, `mcp::ReadResourceResult`, or an `Option` (`None`: not found) or `Result` of one of them"
)]
pub trait IntoReadResult {
    /// The result for a read of `uri` (declared MIME type `mime`).
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ServerError>;
}

fn with_mime(c: ResourceContents, mime: Option<&str>) -> ResourceContents {
    match mime {
        Some(m) => c.with_mime_type(m),
        None => c,
    }
}

impl IntoReadResult for String {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ServerError> {
        Ok(ReadResourceResult::new(vec![with_mime(
            ResourceContents::text(uri, self),
            mime,
        )]))
    }
}

impl IntoReadResult for &'static str {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ServerError> {
        self.to_owned().into_read_result(uri, mime)
    }
}

impl IntoReadResult for Vec<u8> {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ServerError> {
        let blob = base64::engine::general_purpose::STANDARD.encode(self);
        Ok(ReadResourceResult::new(vec![with_mime(
            ResourceContents::blob(uri, blob),
            mime,
        )]))
    }
}

impl IntoReadResult for bytes::Bytes {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ServerError> {
        let blob = base64::engine::general_purpose::STANDARD.encode(self);
        Ok(ReadResourceResult::new(vec![with_mime(
            ResourceContents::blob(uri, blob),
            mime,
        )]))
    }
}

impl IntoReadResult for ResourceContents {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, ServerError> {
        Ok(ReadResourceResult::new(vec![self]))
    }
}

impl IntoReadResult for Vec<ResourceContents> {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, ServerError> {
        Ok(ReadResourceResult::new(self))
    }
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, ServerError> {
        Ok(self)
    }
}

/// `None`: the resource does not exist, answered `-32602 "Resource not found: <uri>"` with
/// `data: {"uri": <uri as sent>}`.
impl<T: IntoReadResult> IntoReadResult for Option<T> {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ServerError> {
        match self {
            Some(value) => value.into_read_result(uri, mime),
            None => Err(ServerError::resource_not_found(uri)),
        }
    }
}

impl<T: IntoReadResult, E: Into<BoxError>> IntoReadResult for Result<T, E> {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ServerError> {
        self.map_err(server_error)?.into_read_result(uri, mime)
    }
}

/// A return type a prompt method may have (the rule of
/// `MCP_309`).
#[diagnostic::on_unimplemented(
    message = "MCP_309: a prompt method cannot return `{Self}`",
    label = "not prompt messages",
    note = "return `String` (one user message), `Vec<mcp::PromptMessage>`, `mcp::GetPromptResult`, `mcp::ToolOutput<T>` of one of them (to ask for input first), `mcp::GetPromptResponse`, or a `Result` of one of them"
)]
pub trait IntoPromptResult {
    /// The response.
    fn into_prompt_result(self) -> Result<GetPromptResponse, ServerError>;
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResponse, ServerError> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]).into())
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResponse, ServerError> {
        Ok(GetPromptResult::new(self).into())
    }
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResponse, ServerError> {
        Ok(self.into())
    }
}

impl IntoPromptResult for GetPromptResponse {
    fn into_prompt_result(self) -> Result<GetPromptResponse, ServerError> {
        Ok(self)
    }
}

/// The prompt's messages, or a request for input first.
impl<T: IntoPromptResult> IntoPromptResult for crate::dispatch::ToolOutput<T> {
    fn into_prompt_result(self) -> Result<GetPromptResponse, ServerError> {
        match self {
            Self::Done(value) => value.into_prompt_result(),
            Self::InputRequired(ask) => Ok(ask.into()),
        }
    }
}

impl<T: IntoPromptResult, E: Into<BoxError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResponse, ServerError> {
        self.map_err(server_error)?.into_prompt_result()
    }
}

/// A return type a completer may have (the rule of
/// `MCP_310`).
#[diagnostic::on_unimplemented(
    message = "MCP_310: a completer cannot return `{Self}`",
    label = "not completion values",
    note = "return `Vec<String>`, `mcp::Completion`, or a `Result` of one of them"
)]
pub trait IntoCompletion {
    /// The result.
    fn into_completion(self) -> Result<CompleteResult, ServerError>;
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Result<CompleteResult, ServerError> {
        Ok(CompleteResult::new(Completion::new(self)))
    }
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Result<CompleteResult, ServerError> {
        Ok(CompleteResult::new(self))
    }
}

impl<T: IntoCompletion, E: Into<BoxError>> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Result<CompleteResult, ServerError> {
        self.map_err(server_error)?.into_completion()
    }
}

/// The empty completion of an argument without a completer.
pub fn no_completion() -> Result<CompleteResult, ServerError> {
    Ok(CompleteResult::new(Completion::empty()))
}

macro_rules! conversion_probe {
    ($trait_:ident, $probe:ident, $fallback:ident, $ok:ident, $bad:ident, $method:ident,
     ($($arg:ident: $argty:ty),*) -> $out:ty, $call:ident) => {
        /// The conversion of a type that has it.
        pub struct $ok<T>(PhantomData<fn(T)>);
        /// A type without the conversion: its check function reports the diagnostic, and
        /// the handler (never run, since the crate does not compile) stays error-free.
        pub struct $bad<T>(PhantomData<fn(T)>);
        /// Probe level 1: types with the conversion.
        pub trait $probe {
            /// The tag.
            type Tag;
            /// The tag of this type.
            fn $method(self) -> Self::Tag;
        }
        /// Probe level 2: anything else.
        pub trait $fallback {
            /// The tag.
            type Tag;
            /// The tag of this type.
            fn $method(self) -> Self::Tag;
        }
        impl<T: $trait_> $probe for &&Probe<T> {
            type Tag = $ok<T>;
            fn $method(self) -> $ok<T> {
                $ok(PhantomData)
            }
        }
        impl<T> $fallback for &Probe<T> {
            type Tag = $bad<T>;
            fn $method(self) -> $bad<T> {
                $bad(PhantomData)
            }
        }
        impl<T: $trait_> $ok<T> {
            /// Converts the method's value.
            pub fn convert(&self, value: T, $($arg: $argty),*) -> Result<$out, ServerError> {
                value.$call($($arg),*)
            }
        }
        impl<T> $bad<T> {
            /// Never reached: the check function rejects the type.
            pub fn convert(&self, value: T, $($arg: $argty),*) -> Result<$out, ServerError> {
                let _ = (value, $($arg),*);
                Err(ServerError::client_message("Internal error"))
            }
        }
    };
}

conversion_probe!(IntoReadResult, ReadableProbe, UnreadableProbe, Readable, Unreadable, read_tag,
    (uri: &str, mime: Option<&str>) -> ReadResourceResult, into_read_result);
conversion_probe!(IntoPromptResult, PromptProbe, NoPromptProbe, PromptOutput, NoPromptOutput, prompt_tag,
    () -> GetPromptResponse, into_prompt_result);
conversion_probe!(IntoCompletion, CompletionProbe, NoCompletionProbe, CompletionOutput, NoCompletionOutput, completion_tag,
    () -> CompleteResult, into_completion);

/// MCP_308 check (a never-called function's bound).
pub fn assert_readable<T: IntoReadResult>() {}
/// MCP_309 check.
pub fn assert_prompt_output<T: IntoPromptResult>() {}
/// MCP_310 check.
pub fn assert_completion_output<T: IntoCompletion>() {}

// ------------------------------------------------------------------ parameter rules

use super::kinds::{
    ArgKind, AuthKind, ContextKind, HeadersKind, MetaKind, MetaRequiredKind, OptAuthKind,
    OptSessionKind, PartsKind, SessionKind,
};

/// A parameter of a resource method that is not a template variable must be a runtime
/// parameter: the rule of `MCP_302`.
#[diagnostic::on_unimplemented(
    message = "MCP_302: this parameter of a resource method is neither a template variable nor a runtime parameter",
    label = "no template variable has this name",
    note = "a resource method's arguments are the variables of its `template` (bound by name); other parameters must be runtime values (`mcp::Context`, `Option<mcp::RequestMeta>`, `Option<mcp::Session>`, `http::HeaderMap`, ...)"
)]
pub trait ResourceRuntimeParam {}

/// A prompt argument must be text: the rule of `MCP_306`.
#[diagnostic::on_unimplemented(
    message = "MCP_306: a prompt argument must be `String` (required) or `Option<String>` (optional)",
    label = "prompt arguments are strings on the wire",
    note = "parse the value inside the method if it stands for something else"
)]
pub trait PromptParam {}

macro_rules! runtime_rules {
    ($($kind:ty),*) => {$(
        impl ResourceRuntimeParam for $kind {}
        impl PromptParam for $kind {}
    )*};
}
for_runtime_kinds!(runtime_rules);
impl PromptParam for ArgKind<String> {}
impl PromptParam for ArgKind<Option<String>> {}

/// MCP_302 check.
pub fn assert_resource_runtime<K: ResourceRuntimeParam>(_: &K) {}
/// MCP_306 check.
pub fn assert_prompt_param<K: PromptParam>(_: &K) {}

/// Whether a parameter kind is an argument (not a runtime value).
pub fn is_argument<K: super::kinds::Kind>(kind: K) -> bool {
    kind.schema().is_some()
}
