//! An advanced service in the spirit of the seed's crypto server: hashing and encoding tools,
//! listed two per page so that clients (and the server's own tool lookup) follow cursors.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp::{
    AdvancedService, CacheHint, CacheScope, CallToolParams, CallToolResponse, CallToolResult,
    ListToolsResult, RequestContext, ServerError, SessionMode, Tool, ToolAnnotations,
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256, Sha384, Sha512};

use crate::echo::object;

/// Tools per `tools/list` page.
pub const PAGE_SIZE: usize = 2;

/// The crypto service.
#[derive(Clone, Debug)]
pub struct Crypto {
    tools: Vec<Tool>,
}

impl Default for Crypto {
    fn default() -> Self {
        Self::new()
    }
}

fn read_only() -> Option<ToolAnnotations> {
    Some(
        ToolAnnotations::default()
            .with_read_only_hint(true)
            .with_idempotent_hint(true)
            .with_open_world_hint(false),
    )
}

impl Crypto {
    /// The service with its tool definitions.
    pub fn new() -> Self {
        let text_in = |extra: Value| {
            let mut schema = json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The input text"}},
                "required": ["text"]
            });
            if let (Some(props), Some(extra)) =
                (schema["properties"].as_object_mut(), extra.as_object())
            {
                props.extend(extra.clone());
            }
            object(schema)
        };
        let mut tools = vec![
            Tool::new(
                "hash_text",
                text_in(json!({"algorithm": {
                    "type": "string", "enum": ["sha256", "sha384", "sha512"],
                    "description": "Hash algorithm (default sha256)"
                }})),
            )
            .with_description("Hash text with a SHA-2 algorithm and return the hex digest")
            .with_output_schema(object(json!({
                "type": "object",
                "properties": {"algorithm": {"type": "string"}, "digest": {"type": "string"}},
                "required": ["algorithm", "digest"]
            }))),
            Tool::new("encode_base64", text_in(json!({})))
                .with_description("Encode UTF-8 text as standard base64"),
            Tool::new(
                "decode_base64",
                object(json!({
                    "type": "object",
                    "properties": {"data": {"type": "string", "description": "Standard base64"}},
                    "required": ["data"]
                })),
            )
            .with_description("Decode standard base64 into UTF-8 text"),
            Tool::new("text_stats", text_in(json!({})))
                .with_description("Count the bytes, characters and words of a text")
                .with_output_schema(object(json!({
                    "type": "object",
                    "properties": {
                        "bytes": {"type": "integer"}, "chars": {"type": "integer"}, "words": {"type": "integer"}
                    },
                    "required": ["bytes", "chars", "words"]
                }))),
        ];
        for t in &mut tools {
            t.annotations = read_only();
        }
        Self { tools }
    }
}

fn string_arg<'a>(params: &'a CallToolParams, name: &str) -> Result<&'a str, ServerError> {
    match params.arguments.as_ref().and_then(|a| a.get(name)) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(ServerError::invalid_params(format!(
            "argument `{name}` must be a string"
        ))),
        None => Err(ServerError::invalid_params(format!(
            "missing argument `{name}`"
        ))),
    }
}

impl AdvancedService for Crypto {
    fn info(&self) -> mcp::Implementation {
        mcp::Implementation::new("crypto", env!("CARGO_PKG_VERSION"))
    }

    async fn on_list_tools(
        &self,
        cursor: Option<String>,
        _request: &RequestContext,
    ) -> Result<ListToolsResult, ServerError> {
        let start = match cursor.as_deref() {
            None => 0,
            Some(c) => c
                .strip_prefix("page-")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n > 0 && *n < self.tools.len())
                .ok_or_else(|| ServerError::invalid_params(format!("Unknown cursor: {c}")))?,
        };
        let end = (start + PAGE_SIZE).min(self.tools.len());
        let mut page = ListToolsResult::new(self.tools[start..end].to_vec());
        page.next_cursor = (end < self.tools.len()).then(|| format!("page-{end}"));
        Ok(page)
    }

    async fn on_call_tool(
        &self,
        params: CallToolParams,
        _request: &RequestContext,
    ) -> Result<CallToolResponse, ServerError> {
        let result = match params.name.as_str() {
            "hash_text" => {
                let text = string_arg(&params, "text")?;
                let algorithm = match params.arguments.as_ref().and_then(|a| a.get("algorithm")) {
                    None | Some(Value::Null) => "sha256",
                    Some(Value::String(a)) => a.as_str(),
                    Some(_) => {
                        return Err(ServerError::invalid_params(
                            "argument `algorithm` must be a string",
                        ));
                    }
                };
                let digest = match algorithm {
                    "sha256" => hex(&Sha256::digest(text.as_bytes())),
                    "sha384" => hex(&Sha384::digest(text.as_bytes())),
                    "sha512" => hex(&Sha512::digest(text.as_bytes())),
                    other => {
                        return Err(ServerError::invalid_params(format!(
                            "Unsupported algorithm: {other}"
                        )));
                    }
                };
                CallToolResult::text(digest.clone())
                    .with_structured(json!({"algorithm": algorithm, "digest": digest}))
            }
            "encode_base64" => CallToolResult::text(STANDARD.encode(string_arg(&params, "text")?)),
            "decode_base64" => {
                let data = string_arg(&params, "data")?;
                match STANDARD
                    .decode(data)
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())
                {
                    Some(text) => CallToolResult::text(text),
                    None => CallToolResult::error("The data is not base64-encoded UTF-8 text"),
                }
            }
            "text_stats" => {
                let text = string_arg(&params, "text")?;
                let stats = json!({
                    "bytes": text.len(),
                    "chars": text.chars().count(),
                    "words": text.split_whitespace().count()
                });
                CallToolResult::text(stats.to_string()).with_structured(stats)
            }
            other => {
                return Err(ServerError::invalid_params(format!(
                    "Unknown tool: {other}"
                )));
            }
        };
        Ok(result.into())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The crypto server, ready to serve: stateless legacy sessions, cacheable tool list.
pub fn server() -> mcp::ServerBuilder {
    mcp::Server::builder(Crypto::new())
        .instructions("Hashing and base64 tools.")
        .session_mode(SessionMode::Stateless)
        .list_tools_cache(CacheHint::new(60_000, CacheScope::Public))
}
