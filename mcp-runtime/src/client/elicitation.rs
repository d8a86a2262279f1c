//! The elicitation handler: how a client answers a server's request for user input.

use std::future::Future;

use super::ClientError;
use crate::base::BoxFuture;
use crate::protocol::{ElicitAction, ElicitRequest, ElicitRequestParams, ElicitResult};

/// Answers elicitation requests: form questions and URL elicitations.
///
/// The client calls it once per input request of a modern `input_required` result, one at
/// a time in the server's order, and for each `elicitation/create` request a legacy server
/// pushes on a response stream. It does not validate answers against the form schema: the
/// handler is responsible for that. Content is removed from URL-mode answers and from
/// decline and cancel answers before they are sent; an accepted form answer gets the
/// schema's `default` for every field the handler left out (SEP-1034).
///
/// The client never opens, fetches or follows the URL of a URL elicitation; the handler
/// presents it (show the full URL, open it only after the user agrees, in a context the
/// model cannot inspect) and answers `accept` once the user agrees, `cancel` when they give
/// up.
///
/// Implement it with `async fn`, like `mcp::AdvancedService` (the
/// client boxes the future itself):
///
/// ```
/// use mcp::client::{ClientConfig, ClientError, ElicitationHandler};
/// use mcp::protocol::{ElicitRequest, ElicitResult};
///
/// struct AlwaysDecline;
///
/// impl ElicitationHandler for AlwaysDecline {
///     async fn elicit(&self, _request: ElicitRequest) -> Result<ElicitResult, ClientError> {
///         Ok(ElicitResult::decline())
///     }
/// }
///
/// let config = ClientConfig::new().elicitation_handler(AlwaysDecline);
/// # drop(config);
/// ```
///
/// Any `Fn(ElicitRequest) -> impl Future<Output = Result<ElicitResult, ClientError>>`
/// closure is a handler too:
///
/// ```
/// use mcp::client::ClientConfig;
/// use mcp::protocol::{ElicitRequest, ElicitRequestParams, ElicitResult};
/// use serde_json::json;
///
/// let config = ClientConfig::new().elicitation_handler(|request: ElicitRequest| async move {
///     Ok(match request.params {
///         ElicitRequestParams::Form(_) => {
///             ElicitResult::accept(json!({"confirm": true}).as_object().cloned().unwrap_or_default())
///         }
///         // URL mode, and the modes of revisions newer than this crate.
///         _ => ElicitResult::decline(),
///     })
/// });
/// # drop(config);
/// ```
pub trait ElicitationHandler: Send + Sync + 'static {
    /// Asks the user and returns the answer. An error fails the call in progress.
    fn elicit(
        &self,
        request: ElicitRequest,
    ) -> impl Future<Output = Result<ElicitResult, ClientError>> + Send;
}

impl<F, Fut> ElicitationHandler for F
where
    F: Fn(ElicitRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ElicitResult, ClientError>> + Send + 'static,
{
    fn elicit(
        &self,
        request: ElicitRequest,
    ) -> impl Future<Output = Result<ElicitResult, ClientError>> + Send {
        self(request)
    }
}

/// [`ElicitationHandler`] with a boxed future, so the configuration can hold any handler.
pub(crate) trait DynElicitationHandler: Send + Sync + 'static {
    fn dyn_elicit(
        &self,
        request: ElicitRequest,
    ) -> BoxFuture<'_, Result<ElicitResult, ClientError>>;
}

impl<T: ElicitationHandler> DynElicitationHandler for T {
    fn dyn_elicit(
        &self,
        request: ElicitRequest,
    ) -> BoxFuture<'_, Result<ElicitResult, ClientError>> {
        Box::pin(self.elicit(request))
    }
}

/// Keeps content only on an accepted form answer, and fills in the form's defaults: a field
/// the handler left out that has a `default` in the requested schema is sent with that
/// default (SEP-1034), so a user who accepts a pre-filled form answers what they saw.
pub(crate) fn sanitize(request: &ElicitRequest, mut result: ElicitResult) -> ElicitResult {
    if request.params.is_url() || result.action != ElicitAction::Accept {
        result.content = None;
        return result;
    }
    if let ElicitRequestParams::Form(form) = &request.params
        && let Some(properties) = form
            .requested_schema
            .get("properties")
            .and_then(|p| p.as_object())
    {
        let content = result.content.get_or_insert_with(Default::default);
        for (name, property) in properties {
            if let Some(default) = property.get("default")
                && !content.contains_key(name)
            {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{FormElicitationParams, UrlElicitationParams};
    use serde_json::json;

    fn content() -> crate::protocol::JsonObject {
        serde_json::json!({"x": 1}).as_object().cloned().unwrap()
    }

    #[test]
    fn strips_content_unless_an_accepted_form() {
        let form = ElicitRequest {
            params: ElicitRequestParams::Form(FormElicitationParams {
                message: "m".into(),
                requested_schema: Default::default(),
                meta: None,
            }),
        };
        let url = ElicitRequest {
            params: ElicitRequestParams::Url(UrlElicitationParams {
                message: "m".into(),
                url: "https://x.example".into(),
                elicitation_id: None,
                meta: None,
            }),
        };
        assert!(
            sanitize(&form, ElicitResult::accept(content()))
                .content
                .is_some()
        );
        assert!(
            sanitize(&url, ElicitResult::accept(content()))
                .content
                .is_none()
        );
        let mut declined = ElicitResult::decline();
        declined.content = Some(content());
        assert!(sanitize(&form, declined).content.is_none());
        let mut cancelled = ElicitResult::cancel();
        cancelled.content = Some(content());
        assert!(sanitize(&form, cancelled).content.is_none());
    }

    #[test]
    fn an_accepted_form_gets_the_defaults_of_the_fields_left_out() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "verified": {"type": "boolean", "default": true},
            "note": {"type": "string"}
        }});
        let form = ElicitRequest {
            params: ElicitRequestParams::Form(FormElicitationParams {
                message: "m".into(),
                requested_schema: schema.as_object().cloned().unwrap(),
                meta: None,
            }),
        };
        let given = json!({"age": 41}).as_object().cloned().unwrap();
        let sent = sanitize(&form, ElicitResult::accept(given))
            .content
            .unwrap();
        assert_eq!(
            serde_json::Value::Object(sent),
            json!({"name": "John Doe", "age": 41, "verified": true})
        );
        let sent = sanitize(&form, ElicitResult::accept(Default::default()));
        assert_eq!(sent.content.unwrap().len(), 3);
        assert!(sanitize(&form, ElicitResult::decline()).content.is_none());
    }
}
