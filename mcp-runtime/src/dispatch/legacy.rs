//! The legacy wire shape of tool output. Basic services keep the seed's 1.x shape (no
//! `outputSchema`, no `structuredContent`) unless `legacy_structured_output` sends both to
//! clients that negotiated 2025-06-18 or later; advanced services keep object roots on
//! every legacy version. Either way only object roots travel: the legacy schema has no
//! other kind of output schema or structured content.

use std::collections::HashSet;

use serde_json::Value;

use super::{ServiceConfig, ServiceHandler, ServiceKind};
use crate::error::Error;
use crate::protocol::{CallToolResult, Tool};
use crate::schema::is_object_schema;

/// The first legacy protocol version whose schema has `outputSchema` and
/// `structuredContent`.
pub(crate) const STRUCTURED_OUTPUT_SINCE: &str = "2025-06-18";

/// What legacy clients see of a service's tool output, decided once when it is built.
#[derive(Debug)]
pub(crate) enum LegacyShape {
    /// Advanced: the handler's object-rooted output schemas and structured content.
    Advanced,
    /// Basic: the tools (names) whose object-rooted output schema and structured content
    /// go to legacy clients of [`STRUCTURED_OUTPUT_SINCE`] or later; none by default.
    Basic(HashSet<String>),
}

impl LegacyShape {
    /// Reads the switches of the service and of each static tool (the tool's wins).
    pub(crate) fn new(handler: &dyn ServiceHandler, config: &ServiceConfig) -> Result<Self, Error> {
        match handler.kind() {
            ServiceKind::Advanced if config.legacy_structured_output => Err(Error::Config(
                "legacy_structured_output applies to basic services: an advanced service's \
                 object-rooted outputSchema and structuredContent already reach legacy clients"
                    .into(),
            )),
            ServiceKind::Advanced => Ok(Self::Advanced),
            ServiceKind::Basic => {
                let tools = handler.static_tools().unwrap_or_default();
                let on = |t: &&Tool| {
                    handler
                        .legacy_structured_output(&t.name)
                        .unwrap_or(config.legacy_structured_output)
                        && t.output_schema.as_ref().is_some_and(is_object_schema)
                };
                Ok(Self::Basic(
                    tools.iter().filter(on).map(|t| t.name.clone()).collect(),
                ))
            }
        }
    }

    fn keeps(&self, tool: &str, version: &str) -> bool {
        match self {
            Self::Advanced => true,
            // Legacy versions are dates: they order as strings.
            Self::Basic(tools) => version >= STRUCTURED_OUTPUT_SINCE && tools.contains(tool),
        }
    }

    /// Removes the output schemas a legacy client of `version` does not get.
    pub(crate) fn tools(&self, tools: &mut [Tool], version: &str) {
        for tool in tools {
            let keep = self.keeps(&tool.name, version)
                && tool.output_schema.as_ref().is_some_and(is_object_schema);
            if !keep {
                tool.output_schema = None;
            }
        }
    }

    /// Removes the structured content a legacy client of `version` does not get from a
    /// result of `tool`.
    pub(crate) fn result(&self, result: &mut CallToolResult, tool: &str, version: &str) {
        let keep = self.keeps(tool, version)
            && result
                .structured_content
                .as_ref()
                .is_some_and(Value::is_object);
        if !keep {
            result.structured_content = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, output: Option<Value>) -> Tool {
        let mut t = Tool::new(
            name,
            json!({"type": "object"}).as_object().cloned().unwrap(),
        );
        t.output_schema = output.and_then(|o| o.as_object().cloned());
        t
    }

    #[test]
    fn basic_tools_keep_object_roots_from_2025_06_18_on() {
        let shape = LegacyShape::Basic(["on".to_owned(), "array".to_owned()].into());
        for (version, kept) in [
            ("2024-11-05", false),
            ("2025-03-26", false),
            ("2025-06-18", true),
            ("2025-11-25", true),
        ] {
            let mut tools = [
                tool("on", Some(json!({"type": "object"}))),
                tool("off", Some(json!({"type": "object"}))),
                tool("array", Some(json!({"type": "array"}))),
            ];
            shape.tools(&mut tools, version);
            assert_eq!(tools[0].output_schema.is_some(), kept, "{version}");
            assert!(tools[1].output_schema.is_none(), "{version}");
            assert!(tools[2].output_schema.is_none(), "{version}");

            let mut result = CallToolResult::text("{}").with_structured(json!({"a": 1}));
            shape.result(&mut result, "on", version);
            assert_eq!(result.structured_content.is_some(), kept, "{version}");
            let mut result = CallToolResult::text("{}").with_structured(json!({"a": 1}));
            shape.result(&mut result, "off", version);
            assert!(result.structured_content.is_none(), "{version}");
            let mut result = CallToolResult::text("[1]").with_structured(json!([1]));
            shape.result(&mut result, "array", version);
            assert!(result.structured_content.is_none(), "{version}");
        }
    }

    #[test]
    fn advanced_services_keep_object_roots_on_every_version() {
        let mut tools = [
            tool("object", Some(json!({"type": "object"}))),
            tool("string", Some(json!({"type": "string"}))),
        ];
        LegacyShape::Advanced.tools(&mut tools, "2024-11-05");
        assert!(tools[0].output_schema.is_some());
        assert!(tools[1].output_schema.is_none());
        let mut result = CallToolResult::text("x").with_structured(json!("x"));
        LegacyShape::Advanced.result(&mut result, "string", "2024-11-05");
        assert!(result.structured_content.is_none());
    }
}
