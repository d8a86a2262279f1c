//! The resource, prompt and completion fixtures of the conformance suite's server
//! scenarios (`resources-*`, `prompts-*`, `completion-complete`,
//! `input-required-result-non-tool-request`), with the contents the scenario descriptions
//! suggest. [`Conformance`](crate::conformance::Conformance) serves
//! them through its `AdvancedService` hooks.

use mcp::{
    CompleteParams, CompleteResult, Completion, Content, Context, Features, GetPromptParams,
    GetPromptResponse, GetPromptResult, InputRequired, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, Prompt, PromptArgument, PromptMessage,
    ReadResourceParams, ReadResourceResult, Reference, Resource, ResourceContents,
    ResourceTemplate, Role, ServerError, UriTemplate,
};
use serde_json::json;

use crate::conformance::TEST_IMAGE_BASE64;
use crate::conformance_input::PromptContext;

/// The static text resource.
pub const STATIC_TEXT_URI: &str = "test://static-text";
/// Its text.
pub const STATIC_TEXT: &str = "This is the content of the static text resource.";
/// The static binary resource (a PNG).
pub const STATIC_BINARY_URI: &str = "test://static-binary";
/// The resource template.
pub const TEMPLATE: &str = "test://template/{id}/data";
/// The prompt that asks for input before it answers (SEP-2322 on a non-tool request).
pub const INPUT_PROMPT: &str = "test_input_required_result_prompt";

/// What the fixtures need: resources with subscriptions, prompts and completion.
pub fn features() -> Features {
    Features::none()
        .with_resource_subscriptions()
        .with_prompts()
        .with_completions()
}

fn no_cursor(cursor: Option<String>) -> Result<(), ServerError> {
    match cursor {
        None => Ok(()),
        Some(c) => Err(ServerError::invalid_params(format!("Unknown cursor: {c}"))),
    }
}

/// `resources/list`.
pub fn list_resources(cursor: Option<String>) -> Result<ListResourcesResult, ServerError> {
    no_cursor(cursor)?;
    Ok(ListResourcesResult::new(vec![
        Resource::new(STATIC_TEXT_URI, "static-text")
            .with_title("Static text")
            .with_description("A static text resource")
            .with_mime_type("text/plain"),
        Resource::new(STATIC_BINARY_URI, "static-binary")
            .with_description("A static binary resource (a 1x1 PNG)")
            .with_mime_type("image/png"),
    ]))
}

/// `resources/templates/list`.
pub fn list_templates(cursor: Option<String>) -> Result<ListResourceTemplatesResult, ServerError> {
    no_cursor(cursor)?;
    Ok(ListResourceTemplatesResult::new(vec![
        ResourceTemplate::new(TEMPLATE, "template")
            .with_description("A resource template with an id")
            .with_mime_type("application/json"),
    ]))
}

/// `resources/read`.
pub fn read(params: &ReadResourceParams) -> Result<ReadResourceResult, ServerError> {
    let uri = params.uri.as_str();
    let contents = match uri {
        STATIC_TEXT_URI => ResourceContents::text(uri, STATIC_TEXT).with_mime_type("text/plain"),
        STATIC_BINARY_URI => {
            ResourceContents::blob(uri, TEST_IMAGE_BASE64).with_mime_type("image/png")
        }
        _ => {
            let template = UriTemplate::parse(TEMPLATE).map_err(ServerError::internal)?;
            let vars = template
                .match_uri(uri)
                .map_err(|e| {
                    ServerError::invalid_params(format!("Resource URI {uri} is invalid: {e}"))
                })?
                .ok_or_else(|| ServerError::resource_not_found(uri))?;
            let id = vars.get("id").cloned().unwrap_or_default();
            let text =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            ResourceContents::text(uri, text.to_string()).with_mime_type("application/json")
        }
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// `prompts/list`.
pub fn list_prompts(cursor: Option<String>) -> Result<ListPromptsResult, ServerError> {
    no_cursor(cursor)?;
    Ok(ListPromptsResult::new(vec![
        Prompt::new("test_simple_prompt").with_description("A simple prompt without arguments"),
        Prompt::new("test_prompt_with_arguments")
            .with_description("A prompt with two required arguments")
            .with_arguments(vec![
                PromptArgument::new("arg1", true).with_description("First test argument"),
                PromptArgument::new("arg2", true).with_description("Second test argument"),
            ]),
        Prompt::new("test_prompt_with_embedded_resource")
            .with_description("A prompt that embeds a resource")
            .with_arguments(vec![
                PromptArgument::new("resourceUri", true)
                    .with_description("URI of the resource to embed"),
            ]),
        Prompt::new("test_prompt_with_image").with_description("A prompt with an image"),
        Prompt::new(INPUT_PROMPT)
            .with_description("Asks the user for context first (input_required, elicitation)"),
    ]))
}

fn required<'a>(
    arguments: Option<&'a std::collections::BTreeMap<String, String>>,
    prompt: &str,
    name: &str,
) -> Result<&'a str, ServerError> {
    arguments
        .and_then(|a| a.get(name))
        .map(String::as_str)
        .ok_or_else(|| {
            ServerError::invalid_params(format!(
                "Invalid arguments for prompt {prompt}: missing required argument `{name}`"
            ))
        })
}

/// `prompts/get`: the messages of the prompt, or (for [`INPUT_PROMPT`]) a request for
/// input first.
pub fn get_prompt(
    params: &GetPromptParams,
    ctx: &Context,
) -> Result<GetPromptResponse, ServerError> {
    let args = params.arguments.as_ref();
    let name = params.name.as_str();
    let messages = match name {
        INPUT_PROMPT => match ctx.accepted_content::<PromptContext>("user_context") {
            Some(PromptContext { context }) => {
                vec![PromptMessage::user(format!("Use this context: {context}"))]
            }
            None => {
                let ask = mcp::elicit_form(
                    "What context should the prompt use?",
                    mcp::form_of::<PromptContext>(),
                );
                return Ok(InputRequired::new().elicit("user_context", ask).into());
            }
        },
        "test_simple_prompt" => vec![PromptMessage::user("This is a simple prompt for testing.")],
        "test_prompt_with_arguments" => {
            let arg1 = required(args, name, "arg1")?;
            let arg2 = required(args, name, "arg2")?;
            vec![PromptMessage::user(format!(
                "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
            ))]
        }
        "test_prompt_with_embedded_resource" => {
            let uri = required(args, name, "resourceUri")?;
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
        "test_prompt_with_image" => vec![
            PromptMessage::new(Role::User, Content::image(TEST_IMAGE_BASE64, "image/png")),
            PromptMessage::user("Please analyze the image above."),
        ],
        other => return Err(ServerError::prompt_not_found(other)),
    };
    Ok(GetPromptResult::new(messages).into())
}

/// `completion/complete`: `arg1` of `test_prompt_with_arguments` and `id` of the template
/// complete from fixed lists; other arguments of known targets complete to nothing.
pub fn complete(params: &CompleteParams) -> Result<CompleteResult, ServerError> {
    let candidates: &[&str] = match &params.reference {
        Reference::Prompt { name } => match name.as_str() {
            "test_prompt_with_arguments" if params.argument.name == "arg1" => {
                &["test1", "test2", "testValue1", "value"]
            }
            "test_simple_prompt"
            | "test_prompt_with_arguments"
            | "test_prompt_with_embedded_resource"
            | "test_prompt_with_image"
            | INPUT_PROMPT => &[],
            other => return Err(ServerError::prompt_not_found(other)),
        },
        Reference::Resource { uri } if uri == TEMPLATE => {
            if params.argument.name == "id" {
                &["1", "12", "123"]
            } else {
                &[]
            }
        }
        Reference::Resource { uri } if uri == STATIC_TEXT_URI || uri == STATIC_BINARY_URI => &[],
        Reference::Resource { uri } => return Err(ServerError::template_not_found(uri)),
        _ => &[],
    };
    if candidates.is_empty() {
        return Ok(CompleteResult::new(Completion::empty()));
    }
    let values = candidates
        .iter()
        .filter(|c| c.starts_with(params.argument.value.as_str()))
        .map(|c| (*c).to_owned())
        .collect();
    Ok(CompleteResult::new(Completion::new(values)))
}
