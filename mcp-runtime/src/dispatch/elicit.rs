//! Asking the user for input in the middle of a tool call (modern `input_required` results):
//! the builders [`elicit_form`] and [`elicit_url`], form schemas ([`FormSchema`], and
//! `#[derive(mcp::Form)]` types through [`Form`]), [`InputRequired`] and [`ToolOutput`].

use std::marker::PhantomData;

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::protocol::{
    CallToolResponse, ElicitRequest, ElicitRequestParams, FormElicitationParams, GetPromptResponse,
    InputRequiredResult, JsonObject, UrlElicitationParams,
};

/// A flat form: an object schema whose properties are text, number, integer, yes/no,
/// single-select or multi-select fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FormSchema {
    properties: JsonObject,
    required: Vec<String>,
}

impl FormSchema {
    /// An empty form.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a field with its property schema (`{"type": "string", ...}`).
    pub fn field(mut self, name: &str, schema: Value, required: bool) -> Self {
        self.properties.insert(name.to_owned(), schema);
        if required && !self.required.iter().any(|r| r == name) {
            self.required.push(name.to_owned());
        }
        self
    }

    /// Adds a text field.
    pub fn text(self, name: &str, description: &str, required: bool) -> Self {
        self.field(
            name,
            json!({"type": "string", "description": description}),
            required,
        )
    }

    /// Adds a yes/no field.
    pub fn boolean(self, name: &str, description: &str, required: bool) -> Self {
        self.field(
            name,
            json!({"type": "boolean", "description": description}),
            required,
        )
    }

    /// Adds an integer field.
    pub fn integer(self, name: &str, description: &str, required: bool) -> Self {
        self.field(
            name,
            json!({"type": "integer", "description": description}),
            required,
        )
    }

    /// Adds a number field.
    pub fn number(self, name: &str, description: &str, required: bool) -> Self {
        self.field(
            name,
            json!({"type": "number", "description": description}),
            required,
        )
    }

    /// Adds a single-select field: `(value, title)` options.
    pub fn select(
        self,
        name: &str,
        description: &str,
        options: &[(&str, &str)],
        required: bool,
    ) -> Self {
        let one_of: Vec<Value> = options
            .iter()
            .map(|(v, t)| json!({"const": v, "title": t}))
            .collect();
        self.field(
            name,
            json!({"type": "string", "description": description, "oneOf": one_of}),
            required,
        )
    }

    /// A form from a JSON object schema (`{"properties": ..., "required": [...]}`); it is
    /// checked when the input-required result is sent.
    pub fn from_json(schema: Value) -> Self {
        let mut obj = match schema {
            Value::Object(o) => o,
            _ => Map::new(),
        };
        let properties = match obj.remove("properties") {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        let required = match obj.remove("required") {
            Some(Value::Array(r)) => r
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        Self {
            properties,
            required,
        }
    }

    /// The `requestedSchema` JSON.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("type".into(), json!("object"));
        o.insert("properties".into(), Value::Object(self.properties.clone()));
        if !self.required.is_empty() {
            o.insert("required".into(), json!(self.required));
        }
        Value::Object(o)
    }
}

/// A type whose values are a form's answer; `#[derive(mcp::Form)]` implements it, with the
/// form schema generated at compile time. Naming a type without it where a form is expected
/// ([`form_of`]) is [MCP_220](crate::diagnostics::MCP_220).
#[diagnostic::on_unimplemented(
    message = "MCP_220: `{Self}` is not a form type: it has no `#[derive(mcp::Form)]`",
    label = "not a form type",
    note = "add `#[derive(mcp::Form)]` (with `serde::Deserialize`) to `{Self}`: a struct with named fields whose types are form fields, or a fieldless enum; or pass a `mcp::FormSchema` value"
)]
pub trait Form {
    /// The form schema.
    fn form_schema() -> FormSchema;
}

/// A form type named where a schema is expected: `mcp::form_of::<TableBooking>()`.
pub struct FormOf<T>(PhantomData<fn() -> T>);

/// Names a form type: `mcp::elicit_form("Book a table", mcp::form_of::<TableBooking>())`.
pub fn form_of<T: Form>() -> FormOf<T> {
    FormOf(PhantomData)
}

/// What [`elicit_form`] accepts as a schema: a [`FormSchema`] value or a named form type.
#[diagnostic::on_unimplemented(
    message = "MCP_220: `{Self}` is not a form schema",
    label = "expected a `mcp::FormSchema` value or a named form type",
    note = "pass `mcp::FormSchema::new()...`, or `mcp::form_of::<T>()` for a type with `#[derive(mcp::Form)]`"
)]
pub trait IntoFormSchema {
    /// The schema.
    fn into_form_schema(self) -> FormSchema;
}

impl IntoFormSchema for FormSchema {
    fn into_form_schema(self) -> FormSchema {
        self
    }
}

impl IntoFormSchema for &FormSchema {
    fn into_form_schema(self) -> FormSchema {
        self.clone()
    }
}

impl<T: Form> IntoFormSchema for FormOf<T> {
    fn into_form_schema(self) -> FormSchema {
        T::form_schema()
    }
}

/// A form elicitation.
///
/// ```
/// let confirm = mcp::elicit_form(
///     "Delete the repository?",
///     mcp::FormSchema::new().boolean("confirmed", "Confirm deletion", true),
/// );
/// let wire = serde_json::to_value(&confirm).unwrap();
/// assert_eq!(wire["method"], "elicitation/create");
/// assert_eq!(wire["params"]["mode"], "form");
/// ```
pub fn elicit_form(message: impl Into<String>, schema: impl IntoFormSchema) -> ElicitRequest {
    let requested_schema = match schema.into_form_schema().to_json() {
        Value::Object(o) => o,
        _ => Map::new(),
    };
    ElicitRequest {
        params: ElicitRequestParams::Form(FormElicitationParams {
            message: message.into(),
            requested_schema,
            meta: None,
        }),
    }
}

/// A URL elicitation: the user opens `url` (outside the client) and completes a step there.
pub fn elicit_url(message: impl Into<String>, url: impl Into<String>) -> ElicitRequest {
    ElicitRequest {
        params: ElicitRequestParams::Url(UrlElicitationParams {
            message: message.into(),
            url: url.into(),
            elicitation_id: None,
            meta: None,
        }),
    }
}

/// An input-required answer of a basic tool or prompt: the elicitations to make and the
/// state to carry to the next round (signed by the server).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputRequired {
    requests: Vec<(String, Value)>,
    state: Option<String>,
    before_task: bool,
}

impl InputRequired {
    /// No requests yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds input request `key` (answered under the same key in the next round).
    pub fn elicit(mut self, key: impl Into<String>, request: ElicitRequest) -> Self {
        let request = serde_json::to_value(request).unwrap_or(Value::Null);
        self.requests.push((key.into(), request));
        self
    }

    /// Adds input request `key` asking the client for its roots (`roots/list`; the client
    /// must declare the `roots` capability). Read the answer with
    /// [`Context::roots`](crate::Context::roots).
    pub fn list_roots(mut self, key: impl Into<String>) -> Self {
        let request = json!({"method": crate::protocol::ROOTS_LIST, "params": {}});
        self.requests.push((key.into(), request));
        self
    }

    /// Asks these requests in the `tools/call` itself, before a task-capable call becomes a
    /// task (see [`InputRequiredResult::before_task`]): for a tool declared with
    /// `#[tool(task = "...")]` that gathers its input first and then works for long.
    ///
    /// ```
    /// # #[derive(serde::Deserialize, mcp::Form)] struct Name { name: String }
    /// fn ask(ctx: &mcp::Context) -> Result<String, mcp::InputRequired> {
    ///     match ctx.accepted_content::<Name>("user_name") {
    ///         Some(n) => Ok(n.name),
    ///         None => Err(mcp::InputRequired::new()
    ///             .elicit("user_name", mcp::elicit_form("Your name?", mcp::form_of::<Name>()))
    ///             .before_task()),
    ///     }
    /// }
    /// ```
    #[must_use]
    pub fn before_task(mut self) -> Self {
        self.before_task = true;
        self
    }

    /// Sets the request state handed back in the next round
    /// ([`Context::request_state`](crate::Context::request_state)).
    pub fn state(mut self, state: impl Into<String>) -> Self {
        self.state = Some(state.into());
        self
    }
}

impl From<InputRequired> for InputRequiredResult {
    fn from(r: InputRequired) -> Self {
        let requests: JsonObject = r.requests.into_iter().collect();
        InputRequiredResult {
            input_requests: (!requests.is_empty()).then_some(requests),
            request_state: r.state,
            before_task: r.before_task,
            ..Default::default()
        }
    }
}

impl From<InputRequired> for CallToolResponse {
    fn from(r: InputRequired) -> Self {
        CallToolResponse::InputRequired(r.into())
    }
}

impl From<InputRequired> for GetPromptResponse {
    fn from(r: InputRequired) -> Self {
        GetPromptResponse::InputRequired(r.into())
    }
}

/// What a basic tool or prompt that may ask for input returns: its value, or a request for
/// input. A `#[prompt]` method returns `ToolOutput<T>` with `T` one of its plain return
/// types (`String`, `Vec<mcp::PromptMessage>`, `mcp::GetPromptResult`).
///
/// ```
/// fn delete(name: &str, confirmed: Option<bool>) -> mcp::ToolOutput<String> {
///     match confirmed {
///         None => mcp::InputRequired::new()
///             .elicit("confirm", mcp::elicit_form(format!("Delete {name}?"),
///                 mcp::FormSchema::new().boolean("confirmed", "Confirm deletion", true)))
///             .into(),
///         Some(true) => mcp::ToolOutput::Done("Deleted".to_owned()),
///         Some(false) => mcp::ToolOutput::Done("Kept".to_owned()),
///     }
/// }
/// # assert!(matches!(delete("x", Some(true)), mcp::ToolOutput::Done(_)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ToolOutput<T> {
    /// The tool's value.
    Done(T),
    /// The tool needs input first.
    InputRequired(InputRequired),
}

impl<T> From<InputRequired> for ToolOutput<T> {
    fn from(r: InputRequired) -> Self {
        Self::InputRequired(r)
    }
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for ToolOutput<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

/// A type a form field can have: text, integer, number, yes/no, a fieldless enum with
/// `#[derive(mcp::Form)]` (single-select), `Vec` of such an enum (multi-select), or
/// `Option` of those (not required).
#[diagnostic::on_unimplemented(
    message = "MCP_219: `{Self}` cannot be a form field",
    label = "not a text, number, integer, yes/no or select field",
    note = "form fields are `String`, integers, floats, `bool`, a fieldless enum with `#[derive(mcp::Form)]`, `Vec` of such an enum, or `Option` of those; forms are flat (no nested structs, maps or arbitrary JSON)"
)]
pub trait FormField {
    /// Whether the field must be answered (`false` for `Option`).
    const REQUIRED: bool = true;
    /// The property schema.
    fn field_schema() -> Value;
}

/// A fieldless enum usable as a select field; `#[derive(mcp::Form)]` implements it.
pub trait FormEnum {
    /// `(value, title)` of each variant, in order.
    fn options() -> Vec<(&'static str, &'static str)>;
}

macro_rules! form_scalar {
    ($json:literal: $($t:ty),*) => {$(
        impl FormField for $t {
            fn field_schema() -> Value {
                json!({"type": $json})
            }
        }
    )*};
}
form_scalar!("string": String);
form_scalar!("boolean": bool);
form_scalar!("integer": i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
form_scalar!("number": f32, f64);

#[diagnostic::do_not_recommend]
impl<E: FormEnum> FormField for E {
    fn field_schema() -> Value {
        let options: Vec<Value> = E::options()
            .into_iter()
            .map(|(v, t)| json!({"const": v, "title": t}))
            .collect();
        json!({"type": "string", "oneOf": options})
    }
}

impl<E: FormEnum> FormField for Vec<E> {
    fn field_schema() -> Value {
        let options: Vec<Value> = E::options()
            .into_iter()
            .map(|(v, t)| json!({"const": v, "title": t}))
            .collect();
        json!({"type": "array", "items": {"anyOf": options}})
    }
}

impl<T: FormField> FormField for Option<T> {
    const REQUIRED: bool = false;
    fn field_schema() -> Value {
        T::field_schema()
    }
}

/// Support for `#[derive(mcp::Form)]`: the schema of a field with its description and
/// title, and whether its type makes it required.
#[doc(hidden)]
pub fn __form_field<T: FormField>(description: Option<&str>, title: Option<&str>) -> (Value, bool) {
    let mut schema = T::field_schema();
    if let Value::Object(o) = &mut schema {
        if let Some(t) = title {
            o.insert("title".into(), json!(t));
        }
        if let Some(d) = description {
            o.insert("description".into(), json!(d));
        }
    }
    (schema, T::REQUIRED)
}
