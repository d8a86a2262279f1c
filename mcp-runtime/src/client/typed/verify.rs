//! Checking a server against a typed client: its `tools/list` compared with the tool
//! definitions the client was generated from, every difference reported.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value};

use crate::client::{Client, ClientError};
use crate::protocol::Tool;

/// A difference between a server's tools and a typed client's.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Mismatch {
    /// The server lists no tool of this name.
    MissingTool {
        /// The tool.
        tool: String,
    },
    /// The client sends an argument the server's input schema does not have (renamed or
    /// removed); `listed` names the server's arguments.
    UnknownArgument {
        /// The tool.
        tool: String,
        /// The client's argument.
        argument: String,
        /// The arguments the server lists.
        listed: Vec<String>,
    },
    /// The client sends a value of a type the server's schema does not accept.
    RetypedArgument {
        /// The tool.
        tool: String,
        /// The argument.
        argument: String,
        /// The JSON types the client sends.
        sends: String,
        /// The JSON types the server accepts.
        accepts: String,
    },
    /// The server requires an argument the client does not have.
    NewlyRequired {
        /// The tool.
        tool: String,
        /// The argument.
        argument: String,
    },
    /// The server requires an argument the client may leave out (an `Option`).
    RequiredByServer {
        /// The tool.
        tool: String,
        /// The argument.
        argument: String,
    },
    /// The server's output schema does not fit the client's output type.
    OutputSchema {
        /// The tool.
        tool: String,
        /// What does not fit.
        reason: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingTool { tool } => write!(f, "tool `{tool}`: the server has no such tool"),
            Self::UnknownArgument {
                tool,
                argument,
                listed,
            } => write!(
                f,
                "tool `{tool}`: the server has no argument `{argument}` (it lists {})",
                if listed.is_empty() {
                    "none".to_owned()
                } else {
                    listed
                        .iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
            Self::RetypedArgument {
                tool,
                argument,
                sends,
                accepts,
            } => write!(
                f,
                "tool `{tool}`: argument `{argument}` is sent as {sends}, the server accepts {accepts}"
            ),
            Self::NewlyRequired { tool, argument } => write!(
                f,
                "tool `{tool}`: the server requires argument `{argument}`, which the client does not send"
            ),
            Self::RequiredByServer { tool, argument } => write!(
                f,
                "tool `{tool}`: the server requires argument `{argument}`, which the client may leave out"
            ),
            Self::OutputSchema { tool, reason } => write!(f, "tool `{tool}`: output: {reason}"),
        }
    }
}

/// Why [`verify`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The tools could not be listed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The server's tools differ from the client's, in each of these ways.
    #[error("the server does not match the client:\n{}", list(.0))]
    Mismatches(Vec<Mismatch>),
}

fn list(mismatches: &[Mismatch]) -> String {
    let lines: Vec<String> = mismatches.iter().map(|m| format!("  - {m}")).collect();
    lines.join("\n")
}

impl VerifyError {
    /// The differences found (empty when the listing failed).
    pub fn mismatches(&self) -> &[Mismatch] {
        match self {
            Self::Mismatches(m) => m,
            Self::Client(_) => &[],
        }
    }
}

/// Lists the tools of the server `client` is connected to and compares them with
/// `expected` (see [`TypedClient::verify`](super::TypedClient::verify)).
pub async fn verify(client: &Client, expected: &[Tool]) -> Result<(), VerifyError> {
    let listed = client.list_tools().await?;
    let mismatches = compare(expected, &listed.tools);
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(VerifyError::Mismatches(mismatches))
    }
}

/// Every difference between `expected` and `listed`, in the order of `expected`.
pub fn compare(expected: &[Tool], listed: &[Tool]) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for want in expected {
        let Some(have) = listed.iter().find(|t| t.name == want.name) else {
            out.push(Mismatch::MissingTool {
                tool: want.name.clone(),
            });
            continue;
        };
        arguments(want, have, &mut out);
        output(want, have, &mut out);
    }
    out
}

fn arguments(want: &Tool, have: &Tool, out: &mut Vec<Mismatch>) {
    let tool = || want.name.clone();
    fn props(schema: &Map<String, Value>) -> Option<&Map<String, Value>> {
        schema.get("properties").and_then(Value::as_object)
    }
    let empty = Map::new();
    let ours = props(&want.input_schema).unwrap_or(&empty);
    // A server schema without `properties` says nothing about the arguments' names.
    let theirs = props(&have.input_schema);
    let (our_required, their_required) = (
        required(want.input_schema.get("required")),
        required(have.input_schema.get("required")),
    );
    for (name, schema) in ours {
        match theirs.map(|t| t.get(name)) {
            None => {}
            Some(None) => out.push(Mismatch::UnknownArgument {
                tool: tool(),
                argument: name.clone(),
                listed: theirs.into_iter().flat_map(|t| t.keys().cloned()).collect(),
            }),
            Some(Some(their)) => {
                let sends = types(schema, &want.input_schema);
                let accepts = types(their, &have.input_schema);
                if !fits(&sends, &accepts) {
                    out.push(Mismatch::RetypedArgument {
                        tool: tool(),
                        argument: name.clone(),
                        sends: show(&sends),
                        accepts: show(&accepts),
                    });
                }
                if their_required.contains(name.as_str()) && !our_required.contains(name.as_str()) {
                    out.push(Mismatch::RequiredByServer {
                        tool: tool(),
                        argument: name.clone(),
                    });
                }
            }
        }
    }
    for name in &their_required {
        if !ours.contains_key(*name) {
            out.push(Mismatch::NewlyRequired {
                tool: tool(),
                argument: (*name).to_owned(),
            });
        }
    }
}

fn output(want: &Tool, have: &Tool, out: &mut Vec<Mismatch>) {
    let (Some(ours), Some(theirs)) = (&want.output_schema, &have.output_schema) else {
        return;
    };
    let mut reason = |r: String| {
        out.push(Mismatch::OutputSchema {
            tool: want.name.clone(),
            reason: r,
        });
    };
    let our_root = Value::Object(ours.clone());
    let their_root = Value::Object(theirs.clone());
    let (our_types, their_types) = (types(&our_root, ours), types(&their_root, theirs));
    // A string output is read from the text content, whatever the structured form (the
    // Python SDK lists a `str` result as `{"result": string}`).
    if our_types.len() == 1 && our_types.contains("string") {
        return;
    }
    // The server's values must be readable as the client's type.
    if !fits(&their_types, &our_types) {
        reason(format!(
            "the server returns {}, the client reads {}",
            show(&their_types),
            show(&our_types)
        ));
        return;
    }
    let their_object = resolve(&their_root, theirs);
    let (Some(our_props), their_props) = (
        resolve(&our_root, ours)
            .get("properties")
            .and_then(Value::as_object),
        their_object.get("properties").and_then(Value::as_object),
    ) else {
        return;
    };
    // A server object that lists no properties and is not closed (`additionalProperties:
    // false`) says nothing about its fields (a Python `dict` result): nothing to compare, as
    // for an input schema without properties.
    if their_props.is_none()
        && their_object.get("additionalProperties") != Some(&Value::Bool(false))
    {
        return;
    }
    let our_required = required(resolve(&our_root, ours).get("required"));
    let their_required = required(their_object.get("required"));
    for (name, schema) in our_props {
        match their_props.and_then(|p| p.get(name)) {
            None if our_required.contains(name.as_str()) => reason(format!(
                "the client needs field `{name}`, which the server's output does not have"
            )),
            None => {}
            Some(their) => {
                if our_required.contains(name.as_str()) && !their_required.contains(name.as_str()) {
                    reason(format!(
                        "the client needs field `{name}`, which the server may leave out"
                    ));
                }
                let (reads, returns) = (types(schema, ours), types(their, theirs));
                if !fits(&returns, &reads) {
                    reason(format!(
                        "field `{name}` is {}, the client reads {}",
                        show(&returns),
                        show(&reads)
                    ));
                }
            }
        }
    }
}

/// The names a schema's `required` lists.
fn required(list: Option<&Value>) -> BTreeSet<&str> {
    list.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The schema a `$ref` to the root's `$defs`/`definitions` names (one level of nesting
/// at a time), or the schema itself.
fn resolve<'a>(schema: &'a Value, root: &'a Map<String, Value>) -> &'a Value {
    let mut current = schema;
    for _ in 0..16 {
        let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
            return current;
        };
        let found = ["#/$defs/", "#/definitions/"].iter().find_map(|prefix| {
            let name = reference.strip_prefix(prefix)?;
            root.get(&prefix[2..prefix.len() - 1])?.get(name)
        });
        match found {
            Some(next) => current = next,
            None => return current,
        }
    }
    current
}

/// The JSON types a schema admits (`null` left out: an absent optional value is omitted);
/// empty for "any".
fn types(schema: &Value, root: &Map<String, Value>) -> BTreeSet<String> {
    let schema = resolve(schema, root);
    let mut out = BTreeSet::new();
    match schema.get("type") {
        Some(Value::String(t)) => {
            out.insert(t.clone());
        }
        Some(Value::Array(ts)) => {
            out.extend(ts.iter().filter_map(Value::as_str).map(str::to_owned))
        }
        _ => {
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(members)) = schema.get(key) {
                    for member in members {
                        let t = types(member, root);
                        if t.is_empty() && !is_null(member, root) {
                            return BTreeSet::new();
                        }
                        out.extend(t);
                    }
                }
            }
            let values = schema
                .get("enum")
                .and_then(Value::as_array)
                .cloned()
                .or_else(|| schema.get("const").map(|c| vec![c.clone()]));
            for v in values.unwrap_or_default() {
                out.insert(
                    match v {
                        Value::String(_) => "string",
                        Value::Bool(_) => "boolean",
                        Value::Number(n) if n.is_f64() => "number",
                        Value::Number(_) => "integer",
                        Value::Array(_) => "array",
                        Value::Object(_) => "object",
                        Value::Null => "null",
                    }
                    .to_owned(),
                );
            }
        }
    }
    out.remove("null");
    out
}

fn is_null(schema: &Value, root: &Map<String, Value>) -> bool {
    resolve(schema, root).get("type").and_then(Value::as_str) == Some("null")
}

/// Whether every type of `values` is one `accepted` admits (`integer` is a `number`; an
/// empty set is "any").
fn fits(values: &BTreeSet<String>, accepted: &BTreeSet<String>) -> bool {
    if values.is_empty() || accepted.is_empty() {
        return true;
    }
    values
        .iter()
        .all(|t| accepted.contains(t) || (t == "integer" && accepted.contains("number")))
}

fn show(types: &BTreeSet<String>) -> String {
    if types.is_empty() {
        return "any value".into();
    }
    types
        .iter()
        .map(|t| format!("`{t}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(input: Value, output: Option<Value>) -> Tool {
        let mut t: Tool =
            serde_json::from_value(json!({"name": "t", "inputSchema": input})).expect("a tool");
        t.output_schema = output.and_then(|o| o.as_object().cloned());
        t
    }

    #[test]
    fn reports_each_difference() {
        let ours = tool(
            json!({"type": "object", "properties": {
                "repo": {"type": "string"},
                "count": {"type": "integer"},
                "label": {"type": ["string", "null"]},
                "title": {"type": "string"}},
              "required": ["repo", "count", "title"]}),
            Some(
                json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
            ),
        );
        let theirs = tool(
            json!({"type": "object", "properties": {
                "repo": {"type": "string"},
                "count": {"type": "string"},
                "label": {"type": "string"},
                "name": {"type": "string"},
                "body": {"type": "string"}},
              "required": ["repo", "label", "body"]}),
            Some(json!({"type": "object", "properties": {"id": {"type": "string"}}})),
        );
        let found = compare(&[ours], &[theirs]);
        let t = || "t".to_owned();
        assert_eq!(
            found,
            vec![
                Mismatch::RetypedArgument {
                    tool: t(),
                    argument: "count".into(),
                    sends: "`integer`".into(),
                    accepts: "`string`".into()
                },
                Mismatch::RequiredByServer {
                    tool: t(),
                    argument: "label".into()
                },
                Mismatch::UnknownArgument {
                    tool: t(),
                    argument: "title".into(),
                    listed: vec![
                        "body".into(),
                        "count".into(),
                        "label".into(),
                        "name".into(),
                        "repo".into()
                    ]
                },
                Mismatch::NewlyRequired {
                    tool: t(),
                    argument: "body".into()
                },
                Mismatch::OutputSchema {
                    tool: t(),
                    reason: "the client needs field `id`, which the server may leave out".into()
                },
                Mismatch::OutputSchema {
                    tool: t(),
                    reason: "field `id` is `string`, the client reads `integer`".into()
                },
            ]
        );
        assert_eq!(
            compare(&[tool(json!({"type": "object"}), None)], &[]).len(),
            1
        );
    }

    #[test]
    fn an_open_object_output_lists_no_fields() {
        let ours = || {
            tool(
                json!({"type": "object"}),
                Some(
                    json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
                ),
            )
        };
        let open = tool(
            json!({"type": "object"}),
            Some(json!({"type": "object", "additionalProperties": true})),
        );
        assert_eq!(compare(&[ours()], &[open]), vec![]);
        let closed = tool(
            json!({"type": "object"}),
            Some(json!({"type": "object", "additionalProperties": false})),
        );
        assert_eq!(
            compare(&[ours()], &[closed]),
            vec![Mismatch::OutputSchema {
                tool: "t".into(),
                reason: "the client needs field `id`, which the server's output does not have"
                    .into()
            }]
        );
    }

    #[test]
    fn references_integers_and_any() {
        let ours = tool(
            json!({"type": "object", "properties": {
                "n": {"type": "integer"},
                "p": {"$ref": "#/$defs/P"},
                "x": {}},
              "$defs": {"P": {"type": "object"}}}),
            None,
        );
        let theirs = tool(
            json!({"type": "object", "properties": {
                "n": {"type": "number"},
                "p": {"type": "object"},
                "x": {"type": "boolean"}}}),
            None,
        );
        assert_eq!(compare(&[ours], &[theirs]), vec![]);
    }
}
