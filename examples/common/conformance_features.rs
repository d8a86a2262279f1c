//! The contents of the resource, prompt and completion fixtures of the conformance suite's
//! server scenarios (`resources-*`, `prompts-*`, `completion-complete`,
//! `input-required-result-non-tool-request`), as the scenario descriptions suggest. The
//! `#[resource]`, `#[prompt]` and `#[complete]` methods of
//! [`Conformance`](crate::conformance::Conformance) serve them.

use mcp::{Content, Context, InputRequired, PromptMessage, ResourceContents, Role, ToolOutput};

use crate::conformance::TEST_IMAGE_BASE64;
use crate::conformance_input::PromptContext;

/// The text of the static text resource (`test://static-text`).
pub const STATIC_TEXT: &str = "This is the content of the static text resource.";
/// The static binary resource (a PNG).
pub const STATIC_BINARY_URI: &str = "test://static-binary";
/// The prompt that asks for input before it answers (SEP-2322 on a non-tool request).
pub const INPUT_PROMPT: &str = "test_input_required_result_prompt";

/// `test_prompt_with_embedded_resource`: the resource at `uri`, embedded, then a request.
pub fn embedded_resource_prompt(uri: String) -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(
            Role::User,
            Content::resource(
                ResourceContents::text(uri, "Embedded resource content for testing.")
                    .with_mime_type("text/plain"),
            ),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// `test_prompt_with_image`: an image, then a request.
pub fn image_prompt() -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(Role::User, Content::image(TEST_IMAGE_BASE64, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// [`INPUT_PROMPT`]: asks the user for `user_context` (an input-required result; legacy
/// clients on a session get a real `elicitation/create`), then uses it.
pub fn input_required_prompt(ctx: &Context) -> ToolOutput<String> {
    match ctx.accepted_content::<PromptContext>("user_context") {
        Some(PromptContext { context }) => ToolOutput::Done(format!("Use this context: {context}")),
        None => InputRequired::new()
            .elicit(
                "user_context",
                mcp::elicit_form(
                    "What context should the prompt use?",
                    mcp::form_of::<PromptContext>(),
                ),
            )
            .into(),
    }
}

/// The `candidates` that start with `prefix`.
pub fn starting_with(candidates: &[&str], prefix: &str) -> Vec<String> {
    candidates
        .iter()
        .filter(|c| c.starts_with(prefix))
        .map(|c| (*c).to_owned())
        .collect()
}
