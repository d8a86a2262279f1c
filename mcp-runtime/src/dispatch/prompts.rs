//! `prompts/get` in both eras, with the input rounds a tool call has (SEP-2322 on a
//! non-tool request).
//!
//! A prompt may answer "input required" ([`GetPromptResponse::InputRequired`]): on the
//! modern era the client gets an `input_required` result, checked against its capabilities
//! ([`input_checks`](super::input_checks)), whose request state is sealed and bound to the
//! prompt, its arguments and the caller, and gets the prompt again with `inputResponses`
//! and the state, verified before the prompt runs (a state issued for a tool never opens
//! for a prompt). On a legacy session the [shim](super::shim) asks the client with real
//! requests and runs the prompt again with the answers; a legacy request without a session
//! cannot be asked and gets an error.

use serde_json::Value;

use super::features::{failure, prompt_arguments_are_text, with_meta};
use super::{
    Reply, RequestContext, Server, caller, guarded, invalid_request_state, parse_params, rounds,
    shim, talk,
};
use crate::protocol::{
    GetPromptParams, GetPromptResponse, GetPromptResult, JsonObject, ResultType,
};
use crate::state::{Binding, Subject};

impl Server {
    /// A modern `prompts/get` of a service with prompts.
    pub(super) async fn modern_get_prompt(
        &self,
        params: Option<JsonObject>,
        cx: RequestContext,
    ) -> Reply {
        if params
            .as_ref()
            .and_then(|p| p.get("requestState"))
            .is_some_and(|s| !s.is_string())
        {
            tracing::debug!(reason = "not a string", "refusing a request state");
            return invalid_request_state();
        }
        let mut params = match read_params(params) {
            Ok(p) => p,
            Err(r) => return r,
        };
        let cx = with_meta(cx, &mut params.meta, true);
        let who = caller(&cx);
        let mut first_round = None;
        if let Some(token) = params.request_state.take() {
            let arguments = arguments_json(params.arguments.as_ref());
            let bind = binding(&params.name, arguments.as_ref(), who.as_deref());
            match self.inner.signer.open(&token, &bind) {
                Ok(plain) => {
                    let (first, plain) = rounds::split(plain);
                    #[cfg(feature = "otel")]
                    if let Some(first) = &first {
                        rounds::link_to(first);
                    }
                    first_round = first;
                    params.request_state = plain;
                }
                Err(reason) => {
                    tracing::debug!(%reason, prompt = %params.name, "refusing a request state");
                    return invalid_request_state();
                }
            }
        }
        // The handler takes the params; what the state of an input-required answer is
        // bound to is kept.
        let name = params.name.clone();
        let arguments = params.arguments.clone();
        let state = params.request_state.clone();
        let outcome = guarded(self.inner.handler.get_prompt(params, &cx)).await;
        match talk::settle_modern(&cx, outcome, state) {
            Ok(GetPromptResponse::Complete(result)) => self.modern_prompt_result(result),
            Ok(GetPromptResponse::InputRequired(result)) => {
                let arguments = arguments_json(arguments.as_ref());
                let bind = binding(&name, arguments.as_ref(), who.as_deref());
                self.input_required(result, &cx, &bind, first_round)
            }
            Err(e) => failure(e, true),
        }
    }

    fn modern_prompt_result(&self, mut result: GetPromptResult) -> Reply {
        result.result_type = Some(ResultType::Complete);
        result.meta = Some(self.stamp(result.meta.take()));
        Reply::result(&result)
    }

    /// A legacy `prompts/get`: a prompt asking for input is answered through the shim on a
    /// session (real server→client requests, then the prompt again with the answers).
    pub(super) async fn legacy_get_prompt(
        &self,
        params: Option<JsonObject>,
        cx: RequestContext,
    ) -> Reply {
        let mut params = match read_params(params) {
            Ok(p) => p,
            Err(r) => return r,
        };
        let cx = with_meta(cx, &mut params.meta, false);
        // Legacy requests carry no continuation of their own.
        params.input_responses = None;
        params.request_state = None;
        let mut round = 0;
        loop {
            let outcome = guarded(self.inner.handler.get_prompt(params.clone(), &cx)).await;
            let result = match talk::settle_legacy(&cx, outcome) {
                Ok(GetPromptResponse::Complete(mut result)) => {
                    result.result_type = None;
                    return Reply::result(&result);
                }
                Ok(GetPromptResponse::InputRequired(result)) => result,
                Err(e) => return failure(e, false),
            };
            let timeout = self.inner.config.input_round_timeout;
            match shim::next_round(&cx, result, round, timeout, Subject::Prompt, &params.name).await
            {
                Ok((answers, state)) => {
                    params.input_responses = Some(answers);
                    params.request_state = state;
                }
                Err(e) => return Reply::in_band(e),
            }
            round += 1;
        }
    }
}

/// The params of a `prompts/get`: its arguments must be text (an error naming the prompt
/// and the argument otherwise).
fn read_params(params: Option<JsonObject>) -> Result<GetPromptParams, Reply> {
    prompt_arguments_are_text(params.as_ref())?;
    parse_params(params)
}

/// A prompt's arguments as the JSON object a request state is bound to.
fn arguments_json(
    arguments: Option<&std::collections::BTreeMap<String, String>>,
) -> Option<JsonObject> {
    arguments.map(|a| {
        a.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect()
    })
}

/// What a request state of prompt `name` is bound to.
fn binding<'a>(
    name: &'a str,
    arguments: Option<&'a JsonObject>,
    caller: Option<&'a str>,
) -> Binding<'a> {
    Binding {
        subject: Subject::Prompt,
        name,
        arguments,
        caller,
    }
}
