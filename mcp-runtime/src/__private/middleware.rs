//! The layers of the middleware keys of `#[tool]`, `#[prompt]` and `#[resource]`
//! (`layer`, `rate_limit`; `timeout` and the concurrency keys call the public layers
//! directly).

use crate::dispatch::Wrap;
use crate::middleware::{McpLayer, Quota};

/// The layer of a `layer = <expr>` key, checked: an expression that is not an
/// [`McpLayer`] fails here with `MCP_402`, at the expression (the generated call is spanned
/// on it). The result names no type of the user's, so the builder call that takes it
/// reports nothing more.
pub fn layer<L: McpLayer>(layer: L) -> CheckedLayer {
    CheckedLayer(layer.into_wrap())
}

/// A layer [`layer`] has checked, boxed for the builder.
pub struct CheckedLayer(Wrap);

impl McpLayer for CheckedLayer {
    fn into_wrap(self) -> Wrap {
        self.0
    }
}

/// The quota of a `rate_limit = "<n>/<unit>"` key, which the macro has checked: `count`
/// requests per `period_secs` seconds. Generated in a `const { .. }` block, so a value that
/// got past the macro would fail the build, never a run.
pub const fn quota(count: u32, period_secs: u64) -> Quota {
    match Quota::new(count, std::time::Duration::from_secs(period_secs)) {
        Some(quota) => quota,
        None => panic!("MCP_401: `rate_limit` is not a rate of at least 1 request per period"),
    }
}
