//! The first round of a modern multi-round `tools/call`, carried in the sealed request state
//! of the later rounds: with telemetry, each round's span links to the first round's
//! (`mcp::otel`). The mark is sealed with the state, so a client can neither forge nor
//! change it; a handler never sees it.
//!
//! A marked state is `\u{1}<trace id>-<span id>\u{1}<the handler's state>` (hex ids, as in
//! `traceparent`), or `\u{1}<trace id>-<span id>\u{2}` when the handler kept none (the
//! round then still gets a state, for the mark). A server without telemetry strips marks
//! it did not make (another replica's) the same way.

/// What starts a mark, and ends one followed by the handler's state.
const MARK: char = '\u{1}';
/// What ends a mark without a handler's state.
const NO_STATE: char = '\u{2}';

/// The first round a state carries, as `(trace id, span id)` in hex.
pub(crate) type FirstRound = (String, String);

/// Splits an opened state into the first round it carries, if any, and the handler's state
/// (`None` when the state was only the mark).
pub(crate) fn split(state: String) -> (Option<FirstRound>, Option<String>) {
    let Some(rest) = state.strip_prefix(MARK) else {
        return (None, Some(state));
    };
    let (ids, handler) = match rest.find([MARK, NO_STATE]) {
        Some(at) if rest[at..].starts_with(NO_STATE) && at + 1 == rest.len() => (&rest[..at], None),
        Some(at) if rest[at..].starts_with(MARK) => (&rest[..at], Some(&rest[at + 1..])),
        _ => return (None, Some(state)),
    };
    let first = ids
        .split_once('-')
        .filter(|(t, s)| t.len() == 32 && s.len() == 16)
        .map(|(t, s)| (t.to_owned(), s.to_owned()));
    (first, handler.map(str::to_owned))
}

/// The handler's `state` (if it kept one) marked with the first round `first`.
#[cfg(feature = "otel")]
pub(crate) fn mark(state: Option<&str>, first: &FirstRound) -> String {
    match state {
        Some(state) => format!("{MARK}{}-{}{MARK}{state}", first.0, first.1),
        None => format!("{MARK}{}-{}{NO_STATE}", first.0, first.1),
    }
}

/// The first round of the call the current task serves: the one its state carried, else the
/// current span's (this is the first round).
#[cfg(feature = "otel")]
pub(crate) fn first_or_current(carried: Option<FirstRound>) -> Option<FirstRound> {
    use opentelemetry::trace::TraceContextExt as _;
    carried.or_else(|| {
        let cx = opentelemetry::Context::current();
        let span = cx.span();
        let context = span.span_context();
        context.is_valid().then(|| {
            (
                context.trace_id().to_string(),
                context.span_id().to_string(),
            )
        })
    })
}

/// Links the current span (a later round's) to the first round's.
#[cfg(feature = "otel")]
pub(crate) fn link_to(first: &FirstRound) {
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState,
    };
    let (Ok(trace), Ok(span)) = (TraceId::from_hex(&first.0), SpanId::from_hex(&first.1)) else {
        return;
    };
    let context = SpanContext::new(trace, span, TraceFlags::SAMPLED, true, TraceState::NONE);
    opentelemetry::Context::current()
        .span()
        .add_link(context, Vec::new());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unmarked_states_pass_through() {
        assert_eq!(split("plain".into()), (None, Some("plain".into())));
        assert_eq!(
            split("\u{1}broken".into()),
            (None, Some("\u{1}broken".into()))
        );
    }

    #[cfg(feature = "otel")]
    #[test]
    fn a_mark_round_trips() {
        let first = (
            "4bf92f3577b34da6a3ce929d0e0e4736".to_owned(),
            "00f067aa0ba902b7".to_owned(),
        );
        let marked = mark(Some("{\"step\":2}"), &first);
        assert_eq!(
            split(marked),
            (Some(first.clone()), Some("{\"step\":2}".into()))
        );
        assert_eq!(split(mark(None, &first)), (Some(first.clone()), None));
        assert_eq!(
            split(mark(Some(""), &first)),
            (Some(first), Some(String::new()))
        );
    }
}
