//! Tool definitions assembled once from what the macro knows (names, descriptions, header
//! bindings, policies) and what each type supplies (schemas), and the per-call argument
//! binding.

use std::borrow::Cow;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::dispatch::{AuthContext, Context, RequestContext, RequestMeta};
use crate::error::ServerError;
use crate::protocol::{CallToolParams, JsonObject, ListToolsResult, Tool, ToolAnnotations};
use crate::schema::argument::ToolArgument;
use crate::schema::headers::X_MCP_HEADER;
use crate::session::Session;

/// Produces a schema with a shared generator (so `$defs` are collected once per tool).
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// The property schema of an argument of type `T`.
pub fn argument_schema<T: ToolArgument>(generator: &mut SchemaGenerator) -> Schema {
    T::schema(generator)
}

/// The root output schema of type `T`.
pub fn output_schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.root_schema_for::<T>()
}

/// The structured-output policy of a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputPolicy {
    /// Use a generated or supplied output schema when there is one.
    Auto,
    /// An output schema must exist (checked at compile time).
    Required,
    /// Text only.
    Disabled,
}

/// One parameter of a tool, as the macro sees it.
pub struct ParamSpec {
    /// The argument name.
    pub name: &'static str,
    /// Its description.
    pub description: Option<&'static str>,
    /// The `x-mcp-header` name.
    pub header: Option<&'static str>,
    /// The schema, `None` for runtime parameters.
    pub schema: Option<SchemaFn>,
    /// Whether the argument must be present.
    pub required: bool,
}

/// A tool, as the macro sees it.
pub struct ToolSpec {
    /// The tool name.
    pub name: &'static str,
    /// Display title.
    pub title: Option<&'static str>,
    /// Description (doc comment or attribute).
    pub description: Option<&'static str>,
    /// Annotations.
    pub annotations: Option<ToolAnnotations>,
    /// Parameters in declaration order.
    pub params: Vec<ParamSpec>,
    /// An explicit input schema (JSON text, checked at compile time).
    pub input_schema: Option<&'static str>,
    /// An explicit output schema (JSON text, checked at compile time).
    pub output_schema: Option<&'static str>,
    /// The generated output schema, when the return type has one.
    pub generated_output: Option<SchemaFn>,
    /// The structured-output policy.
    pub policy: OutputPolicy,
    /// Scopes the OAuth layer requires for this tool (never listed).
    pub scopes: &'static [&'static str],
}

fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().into_generator()
}

/// schemars' numeric `format`s (`uint8`, `int64`, `double`, …) are not JSON Schema formats;
/// clients with strict validators warn about them. The bounds they imply are kept as
/// `minimum`/`maximum`.
const NON_STANDARD_FORMATS: [&str; 12] = [
    "int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32", "uint64", "uint",
    "float", "double",
];

fn strip_numeric_formats(value: &mut Value) {
    match value {
        Value::Object(o) => {
            if o.get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| NON_STANDARD_FORMATS.contains(&f))
            {
                o.remove("format");
            }
            o.values_mut().for_each(strip_numeric_formats);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_numeric_formats),
        _ => {}
    }
}

fn parse_object(text: &str, tool: &str) -> Option<JsonObject> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) => Some(o),
        _ => {
            tracing::error!(tool, "an explicit schema is not a JSON object; ignoring it");
            None
        }
    }
}

impl ToolSpec {
    /// Builds the tool definition (done once per service).
    pub fn build(&self) -> Tool {
        let input_schema = self
            .input_schema
            .and_then(|s| parse_object(s, self.name))
            .unwrap_or_else(|| self.generated_input_schema());
        let output_schema = match self.policy {
            OutputPolicy::Disabled => None,
            OutputPolicy::Auto | OutputPolicy::Required => self
                .output_schema
                .and_then(|s| parse_object(s, self.name))
                .or_else(|| {
                    let f = self.generated_output?;
                    let mut g = generator();
                    let mut schema = f(&mut g).to_value();
                    strip_numeric_formats(&mut schema);
                    match schema {
                        Value::Object(o) => Some(o),
                        Value::Bool(true) => Some(Map::new()),
                        _ => None,
                    }
                }),
        };
        Tool {
            name: self.name.to_owned(),
            title: self.title.map(str::to_owned),
            description: self.description.map(str::to_owned),
            input_schema,
            output_schema,
            annotations: self.annotations.clone(),
            icons: None,
            meta: None,
        }
    }

    fn generated_input_schema(&self) -> JsonObject {
        let mut g = generator();
        let mut properties = Map::new();
        let mut required = Vec::new();
        for p in &self.params {
            let Some(f) = p.schema else { continue };
            let mut schema = f(&mut g).to_value();
            if let Value::Bool(true) = schema {
                schema = json!({});
            }
            if let Value::Object(o) = &mut schema {
                if let Some(d) = p.description {
                    o.insert("description".into(), Value::String(d.to_owned()));
                }
                if let Some(h) = p.header {
                    o.insert(X_MCP_HEADER.into(), Value::String(h.to_owned()));
                }
            }
            properties.insert(p.name.to_owned(), schema);
            if p.required {
                required.push(Value::String(p.name.to_owned()));
            }
        }
        let mut root = Map::new();
        root.insert(
            "$schema".into(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
        root.insert("type".into(), json!("object"));
        root.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            root.insert("required".into(), Value::Array(required));
        }
        root.insert("additionalProperties".into(), json!(false));
        let defs = g.take_definitions(true);
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        let mut root = Value::Object(root);
        strip_numeric_formats(&mut root);
        match root {
            Value::Object(o) => o,
            _ => Map::new(),
        }
    }
}

/// Builds every tool of a service.
pub fn build_tools(specs: Vec<ToolSpec>) -> (Vec<Tool>, Vec<ToolSpec>) {
    let tools = specs.iter().map(ToolSpec::build).collect();
    (tools, specs)
}

/// Whether the listed tool `name` advertises an output schema.
pub fn is_structured(tools: &[Tool], name: &str) -> bool {
    tools
        .iter()
        .any(|t| t.name == name && t.output_schema.is_some())
}

/// The `tools/list` answer of a basic service: every tool in one page.
pub fn list_static(tools: &[Tool], cursor: Option<String>) -> Result<ListToolsResult, ServerError> {
    if let Some(cursor) = cursor {
        return Err(ServerError::invalid_params(format!(
            "Invalid cursor: {cursor}"
        )));
    }
    Ok(ListToolsResult {
        tools: tools.to_vec(),
        ..ListToolsResult::default()
    })
}

pub use crate::error::unknown_tool;

/// Boxes a handler future.
pub fn boxed<'a, T>(
    fut: impl std::future::Future<Output = T> + Send + 'a,
) -> crate::dispatch::BoxFuture<'a, T> {
    Box::pin(fut)
}

/// What a [`CallArgs`] binds the parameters of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A tool (`tools/call`, advanced methods).
    Tool,
    /// A prompt (`prompts/get`).
    Prompt,
    /// A resource or resource template (`resources/read`).
    Resource,
    /// A completer (`completion/complete`).
    Completer,
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// The values one call binds its parameters from.
pub struct CallArgs<'a> {
    tool: Cow<'a, str>,
    /// What is called: a tool, a prompt or a resource (it shapes the error messages).
    subject: Subject,
    /// The arguments of a tool call that may answer input-required are borrowed (the
    /// dispatcher keeps them for the request state's binding) and the bound ones are
    /// recorded in `taken`; other arguments are owned and moved out as they are bound.
    arguments: Cow<'a, JsonObject>,
    taken: Vec<&'static str>,
    request: &'a RequestContext,
    params: Option<CallToolParams>,
    cursor: Option<String>,
    context: Context,
}

impl<'a> CallArgs<'a> {
    /// For a `tools/call` of a basic tool: the arguments are bound one by one. A tool that
    /// `may_ask` (answer input-required) leaves them in `params` for the request state's
    /// binding; any other tool takes them, so a bound value is moved rather than copied.
    pub fn new(params: &'a mut CallToolParams, request: &'a RequestContext, may_ask: bool) -> Self {
        let CallToolParams {
            name,
            arguments,
            input_responses,
            request_state,
            ..
        } = params;
        let context = Context::for_call(request, input_responses.clone(), request_state.clone());
        Self {
            tool: Cow::Borrowed(name),
            subject: Subject::Tool,
            arguments: match arguments {
                _ if !may_ask => Cow::Owned(arguments.take().unwrap_or_default()),
                Some(arguments) => Cow::Borrowed(arguments),
                None => Cow::Owned(JsonObject::new()),
            },
            taken: Vec::new(),
            request,
            params: None,
            cursor: None,
            context,
        }
    }

    /// For `on_call_tool` of an advanced service: the params are bound whole.
    pub fn for_call(params: CallToolParams, request: &'a RequestContext) -> Self {
        let context = Context::for_call(
            request,
            params.input_responses.clone(),
            params.request_state.clone(),
        );
        Self {
            tool: Cow::Owned(params.name.clone()),
            subject: Subject::Tool,
            arguments: Cow::Owned(JsonObject::new()),
            taken: Vec::new(),
            request,
            params: Some(params),
            cursor: None,
            context,
        }
    }

    /// For `on_list_tools` of an advanced service.
    pub fn for_list(cursor: Option<String>, request: &'a RequestContext) -> Self {
        Self {
            tool: Cow::Borrowed(""),
            subject: Subject::Tool,
            arguments: Cow::Owned(JsonObject::new()),
            taken: Vec::new(),
            request,
            params: None,
            cursor,
            context: Context::default(),
        }
    }

    /// For a prompt, a resource or a completer named `name`, whose arguments are given. An
    /// `mcp::Context` parameter talks to the client as a tool's does (a prompt's also reads
    /// the answers of its round: [`with_context`](Self::with_context)).
    pub fn for_feature(
        subject: Subject,
        name: &str,
        arguments: JsonObject,
        request: &'a RequestContext,
    ) -> Self {
        Self {
            tool: Cow::Owned(name.to_owned()),
            subject,
            arguments: Cow::Owned(arguments),
            taken: Vec::new(),
            request,
            params: None,
            cursor: None,
            context: Context::for_call(request, None, None),
        }
    }

    /// With `context` as the `mcp::Context` parameters bind (a prompt's round).
    #[must_use]
    pub fn with_context(mut self, context: Context) -> Self {
        self.context = context;
        self
    }

    /// The called tool.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The request.
    pub fn request(&self) -> &'a RequestContext {
        self.request
    }

    /// Takes and decodes argument `name`.
    pub fn argument<T: ToolArgument>(&mut self, name: &'static str) -> Result<T, ServerError> {
        // Owned values are moved out in place (not removed), so the arguments keep their
        // order and `finish` names the same first unknown argument either way.
        let taken = match &mut self.arguments {
            Cow::Owned(arguments) => arguments.get_mut(name).map(Value::take),
            Cow::Borrowed(arguments) => arguments.get(name).cloned(),
        };
        if taken.is_some() {
            self.taken.push(name);
        }
        let (value, present) = match taken {
            Some(value) => (value, true),
            None => (Value::Null, false),
        };
        let problem = match T::decode(value) {
            Ok(v) => return Ok(v),
            Err(e) if present => format!("invalid argument `{name}`: {e}"),
            Err(_) => format!("missing required argument `{name}`"),
        };
        Err(ServerError::invalid_params(match self.subject {
            Subject::Prompt => format!("Invalid arguments for prompt {}: {problem}", self.tool),
            Subject::Resource => format!("Invalid resource URI for {}: {problem}", self.tool),
            Subject::Tool | Subject::Completer => capitalize(&problem),
        }))
    }

    /// Takes and reads template variable `name` from its text with `read`.
    pub fn variable<T>(
        &mut self,
        name: &'static str,
        read: fn(String) -> Result<T, String>,
    ) -> Result<T, ServerError> {
        let text = match &mut self.arguments {
            Cow::Owned(arguments) => arguments.get_mut(name).map(Value::take),
            Cow::Borrowed(arguments) => arguments.get(name).cloned(),
        };
        let problem = match text {
            Some(Value::String(text)) => {
                self.taken.push(name);
                match read(text) {
                    Ok(value) => return Ok(value),
                    Err(e) => format!("invalid template variable `{name}`: {e}"),
                }
            }
            // A template matches only URIs that give each of its variables.
            _ => format!("missing template variable `{name}`"),
        };
        Err(ServerError::invalid_params(format!(
            "Invalid resource URI for {}: {problem}",
            self.tool
        )))
    }

    /// Rejects arguments no parameter took.
    pub fn finish(self) -> Result<(), ServerError> {
        let arguments: &JsonObject = &self.arguments;
        let extra = if arguments.len() == self.taken.len() {
            None
        } else {
            arguments.keys().find(|k| !self.taken.contains(&k.as_str()))
        };
        match extra {
            None => Ok(()),
            Some(extra) => Err(ServerError::invalid_params(format!(
                "Unknown argument `{extra}` for tool `{}`",
                self.tool
            ))),
        }
    }

    /// An argument's raw value, without taking it.
    pub fn peek(&self, name: &str) -> Option<&Value> {
        self.arguments.get(name)
    }

    /// The legacy session, if the request has one.
    pub fn session(&self) -> Option<Session> {
        self.request.session.clone()
    }

    /// The request's `_meta` without the envelope keys.
    pub fn meta(&self) -> Option<RequestMeta> {
        self.request.meta().cloned().map(RequestMeta)
    }

    /// The continuation context.
    pub fn context(&self) -> Context {
        self.context.clone()
    }

    /// The authenticated caller.
    pub fn auth(&self) -> Option<AuthContext> {
        self.request.auth.clone()
    }

    /// Takes the cursor (`on_list_tools`).
    pub fn take_cursor(&mut self) -> Option<String> {
        self.cursor.take()
    }

    /// Takes the call params (`on_call_tool`).
    pub fn take_params(&mut self) -> CallToolParams {
        self.params.take().unwrap_or_default()
    }
}
