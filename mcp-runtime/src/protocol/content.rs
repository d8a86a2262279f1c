//! Content blocks of tool results: text, images, audio, resource links, embedded resources,
//! and blocks of types this crate does not know.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::JsonObject;

/// The `type`s of the content blocks [`Content`] has a variant for.
const KNOWN_TYPES: [&str; 5] = ["text", "image", "audio", "resource_link", "resource"];

/// Who a content block is meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// The user.
    User,
    /// The assistant (model).
    Assistant,
}

/// Content annotations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// Intended audience.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// The contents of an embedded resource: text or base64 blob.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ResourceContents {
    /// Text contents.
    #[non_exhaustive]
    #[serde(rename_all = "camelCase")]
    Text {
        /// Resource URI.
        uri: String,
        /// MIME type.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// Binary contents, base64.
    #[non_exhaustive]
    #[serde(rename_all = "camelCase")]
    Blob {
        /// Resource URI.
        uri: String,
        /// MIME type.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64 data.
        blob: String,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
}

/// A content block of a tool result.
///
/// A block of a type this crate does not know (a newer MCP revision's) is read as
/// [`Content::Unknown`] and written back unchanged, so one new block never fails a whole
/// result:
///
/// ```
/// use mcp::Content;
/// use serde_json::json;
///
/// let video = json!({"type": "video", "uri": "https://example.com/v.mp4"});
/// let block: Content = serde_json::from_value(video.clone())?;
/// assert_eq!(block.content_type(), "video");
/// assert_eq!(serde_json::to_value(&block)?, video);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Text.
    #[non_exhaustive]
    Text {
        /// The text.
        text: String,
        /// Annotations.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// An image, base64.
    #[non_exhaustive]
    Image {
        /// Base64 data.
        data: String,
        /// MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Annotations.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// Audio, base64.
    #[non_exhaustive]
    Audio {
        /// Base64 data.
        data: String,
        /// MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Annotations.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// A link to a resource.
    #[non_exhaustive]
    ResourceLink {
        /// Resource URI.
        uri: String,
        /// Resource name.
        name: String,
        /// Display title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// Description.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Size in bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size: Option<u64>,
        /// Annotations.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// An embedded resource.
    #[non_exhaustive]
    Resource {
        /// The resource contents.
        resource: ResourceContents,
        /// Annotations.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// A block of a type this crate does not know, kept as sent (the whole object,
    /// `type` included).
    #[serde(skip)]
    Unknown(Value),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text {
            text: text.into(),
            annotations: None,
            meta: None,
        }
    }

    /// An image block from base64 data.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }

    /// An audio block from base64 data.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Audio {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }

    /// An embedded text resource.
    pub fn embedded_text(
        uri: impl Into<String>,
        mime_type: Option<String>,
        text: impl Into<String>,
    ) -> Self {
        Self::Resource {
            resource: ResourceContents::Text {
                uri: uri.into(),
                mime_type,
                text: text.into(),
                meta: None,
            },
            annotations: None,
            meta: None,
        }
    }

    /// A resource link.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            meta: None,
        }
    }

    /// An embedded resource.
    pub fn resource(resource: ResourceContents) -> Self {
        Self::Resource {
            resource,
            annotations: None,
            meta: None,
        }
    }

    /// Sets the annotations (on an unknown block, its `annotations` member).
    #[must_use]
    pub fn with_annotations(mut self, value: Annotations) -> Self {
        match &mut self {
            Self::Text { annotations, .. }
            | Self::Image { annotations, .. }
            | Self::Audio { annotations, .. }
            | Self::ResourceLink { annotations, .. }
            | Self::Resource { annotations, .. } => *annotations = Some(value),
            Self::Unknown(raw) => set_member(raw, "annotations", &value),
        }
        self
    }

    /// Sets the metadata (on an unknown block, its `_meta` member).
    #[must_use]
    pub fn with_meta(mut self, value: JsonObject) -> Self {
        match &mut self {
            Self::Text { meta, .. }
            | Self::Image { meta, .. }
            | Self::Audio { meta, .. }
            | Self::ResourceLink { meta, .. }
            | Self::Resource { meta, .. } => *meta = Some(value),
            Self::Unknown(raw) => set_member(raw, "_meta", &value),
        }
        self
    }

    /// The block's `type` on the wire (`"text"`, `"image"`, …, or an unknown block's).
    pub fn content_type(&self) -> &str {
        match self {
            Self::Text { .. } => "text",
            Self::Image { .. } => "image",
            Self::Audio { .. } => "audio",
            Self::ResourceLink { .. } => "resource_link",
            Self::Resource { .. } => "resource",
            Self::Unknown(raw) => raw.get("type").and_then(Value::as_str).unwrap_or_default(),
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text, .. } => Some(text),
            _ => None,
        }
    }
}

impl Serialize for Content {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Unknown(raw) => raw.serialize(s),
            known => Content::serialize(known, s),
        }
    }
}

impl<'de> Deserialize<'de> for Content {
    /// A block whose `type` is a string this crate does not know is kept as
    /// [`Content::Unknown`]; a known type with a wrong shape, or a block without a string
    /// `type`, is an error.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Value::deserialize(d)?;
        match raw.get("type").and_then(Value::as_str) {
            Some(t) if !KNOWN_TYPES.contains(&t) => Ok(Self::Unknown(raw)),
            _ => Content::deserialize(raw).map_err(D::Error::custom),
        }
    }
}

/// Sets member `key` of an unknown block's object.
fn set_member(raw: &mut Value, key: &str, value: &impl Serialize) {
    if let (Value::Object(obj), Ok(value)) = (raw, serde_json::to_value(value)) {
        obj.insert(key.to_owned(), value);
    }
}

impl ResourceContents {
    /// Text contents of the resource at `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self::Text {
            uri: uri.into(),
            mime_type: None,
            text: text.into(),
            meta: None,
        }
    }

    /// Binary contents (base64) of the resource at `uri`.
    pub fn blob(uri: impl Into<String>, blob: impl Into<String>) -> Self {
        Self::Blob {
            uri: uri.into(),
            mime_type: None,
            blob: blob.into(),
            meta: None,
        }
    }

    /// Sets the MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, value: impl Into<String>) -> Self {
        match &mut self {
            Self::Text { mime_type, .. } | Self::Blob { mime_type, .. } => {
                *mime_type = Some(value.into());
            }
        }
        self
    }
}

impl Annotations {
    /// Sets the intended audience.
    #[must_use]
    pub fn with_audience(mut self, audience: Vec<Role>) -> Self {
        self.audience = Some(audience);
        self
    }

    /// Sets the importance, from 0 to 1.
    #[must_use]
    pub fn with_priority(mut self, priority: f64) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Sets the ISO 8601 time of the last modification.
    #[must_use]
    pub fn with_last_modified(mut self, last_modified: impl Into<String>) -> Self {
        self.last_modified = Some(last_modified.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_unknown_type_is_kept_and_written_back() {
        let video = json!({"type": "video", "uri": "https://x.example/v.mp4", "_meta": {"k": 1}});
        let block: Content = serde_json::from_value(video.clone()).unwrap();
        assert!(matches!(block, Content::Unknown(_)));
        assert_eq!(block.content_type(), "video");
        assert_eq!(block.as_text(), None);
        assert_eq!(serde_json::to_value(&block).unwrap(), video);
    }

    #[test]
    fn known_types_stay_strict() {
        // A text block without `text` is malformed, not unknown.
        assert!(serde_json::from_value::<Content>(json!({"type": "text"})).is_err());
        // No `type`, or a `type` that is not a string: not a content block.
        assert!(serde_json::from_value::<Content>(json!({"text": "a"})).is_err());
        assert!(serde_json::from_value::<Content>(json!({"type": 3})).is_err());
        let text: Content = serde_json::from_value(json!({"type": "text", "text": "a"})).unwrap();
        assert_eq!(text, Content::text("a"));
        assert_eq!(text.content_type(), "text");
    }

    #[test]
    fn setters_on_known_and_unknown_blocks() {
        let annotations = Annotations::default().with_priority(0.5);
        let text = Content::text("a").with_annotations(annotations.clone());
        assert_eq!(
            serde_json::to_value(&text).unwrap(),
            json!({"type": "text", "text": "a", "annotations": {"priority": 0.5}})
        );
        let unknown = Content::Unknown(json!({"type": "video"})).with_annotations(annotations);
        assert_eq!(
            serde_json::to_value(&unknown).unwrap(),
            json!({"type": "video", "annotations": {"priority": 0.5}})
        );
        let blob = Content::resource(
            ResourceContents::blob("file:///a", "AA==").with_mime_type("image/png"),
        );
        assert_eq!(
            serde_json::to_value(&blob).unwrap(),
            json!({"type": "resource", "resource": {"uri": "file:///a", "mimeType": "image/png", "blob": "AA=="}})
        );
    }
}
