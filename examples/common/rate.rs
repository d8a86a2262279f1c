//! The examples' rate limit: `MCP_RATE_LIMIT=<n>/<sec|min|hour>` ([`quota_from_env`]) turns
//! on a per-caller limit of tool calls ([`tool_calls`]), refused with JSON-RPC error `-32029`
//! `Rate limit exceeded` and `data.retryAfterMs`.

use std::convert::Infallible;
use std::task::{Context, Poll};

use mcp::middleware::{Next, Quota, QuotaError, RateLimit, RateLimitLayer};
use mcp::{BoxFuture, McpRequest, McpResponse};
use tower::{Layer, Service};

/// The environment variable that sets the rate limit: `<n>/<unit>` as [`Quota`] parses it
/// (`10/min`, `5/sec`, `1000/hour`).
pub const RATE_LIMIT_ENV: &str = "MCP_RATE_LIMIT";

/// `MCP_RATE_LIMIT` does not parse: the server does not start.
pub struct RateLimitEnvError(QuotaError);

impl std::fmt::Display for RateLimitEnvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{RATE_LIMIT_ENV}: {}", self.0)
    }
}

/// As [`Display`](std::fmt::Display): what `main` prints when it returns the error.
impl std::fmt::Debug for RateLimitEnvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for RateLimitEnvError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// The quota `MCP_RATE_LIMIT` sets: `None` when it is unset or empty.
///
/// # Errors
///
/// When it is set to something that is not a rate.
pub fn quota_from_env() -> Result<Option<Quota>, RateLimitEnvError> {
    match std::env::var(RATE_LIMIT_ENV) {
        Ok(value) if !value.trim().is_empty() => value.parse().map(Some).map_err(RateLimitEnvError),
        _ => Ok(None),
    }
}

/// `limit` on every tool call (`tools/call`), for the whole server: one budget per caller
/// (or for all) whichever tool is called. Other requests (`initialize`, lists, `ping`) are
/// not charged.
pub fn tool_calls(limit: RateLimitLayer) -> ToolCalls {
    ToolCalls(limit)
}

/// A [`RateLimitLayer`] that charges tool calls only ([`tool_calls`]).
#[derive(Clone, Debug)]
pub struct ToolCalls(RateLimitLayer);

impl Layer<Next> for ToolCalls {
    type Service = ToolCallsService;

    fn layer(&self, next: Next) -> ToolCallsService {
        ToolCallsService {
            limited: self.0.layer(next.clone()),
            next,
        }
    }
}

/// The service of [`ToolCalls`]: tool calls through the rate limit, the rest straight on.
#[derive(Clone)]
pub struct ToolCallsService {
    limited: RateLimit<Next>,
    next: Next,
}

impl Service<McpRequest> for ToolCallsService {
    type Response = McpResponse;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<McpResponse, Infallible>>;

    /// The rate limit's readiness (which is [`Next`]'s: always ready).
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.limited.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        if request.method() == "tools/call" {
            Box::pin(self.limited.call(request))
        } else {
            Box::pin(self.next.call(request))
        }
    }
}
