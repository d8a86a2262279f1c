//! The attribute reference: every key of the attributes `#[mcp::service]` reads, with its
//! type, default, effect and the diagnostic codes it can raise.
//!
//! | attribute | where | page |
//! | --- | --- | --- |
//! | `#[mcp::service(...)]` | an inherent `impl` block | [`service`] |
//! | `#[tool(...)]` | a method of a service | [`tool`] |
//! | `#[argument(...)]` | a parameter of a tool | [`argument`] |
//! | `#[http_header("X-Name")]` | a parameter of a tool or of a hook of an advanced service | [`http_header`] |
//! | `#[resource(...)]` | a method of a service: a resource or resource template | [`resource`] |
//! | `#[prompt(...)]` | a method of a service: a prompt | [`prompt`] |
//! | `#[complete(...)]` | a method of a service: a completer | [`complete`] |
//! | `layer`, `timeout`, `rate_limit`, `concurrency`, `concurrency_per_caller` | keys of `#[tool]`, `#[prompt]` and `#[resource]`: the method's own middleware | [`middleware`] |
//! | `#[derive(mcp::Form)]`, `#[form(...)]` | a struct or fieldless enum, its fields and variants | [`form`] |
//! | `client` (a key of `#[mcp::service]`), `#[mcp::client(...)]` | an `impl` block; a trait describing a server's tools: typed clients (the `client` feature) | [`client`] |
//!
//! `#[tool]`, `#[argument]`, `#[http_header]`, `#[resource]`, `#[prompt]` and `#[complete]` are
//! read and removed by `#[mcp::service]`; they may also be written with the `mcp::` prefix. Keys are
//! checked when your crate compiles: an unknown key, a value of the wrong type or a rule
//! broken is an error at the offending tokens, with a code when the rule has one (see
//! [`diagnostics`](crate::diagnostics)).
//!
//! Conventions: strings are string literals (`name = "add"`), lists are bracketed
//! (`scopes = ["files:read"]`), flags are bare (`advanced`, `skip`), groups are
//! parenthesised (`session_limits(max_per_owner = 20)`), and a duration key names its unit
//! (`idle_timeout_secs`, `ttl_secs`, `ttl_ms`) and takes an integer literal, except
//! `timeout`, a string with its units (`timeout = "30s"`).

#[doc = include_str!("../../docs/attributes/service.md")]
pub mod service {}

#[doc = include_str!("../../docs/attributes/tool.md")]
pub mod tool {}

#[doc = include_str!("../../docs/attributes/argument.md")]
pub mod argument {}

#[doc = include_str!("../../docs/attributes/http_header.md")]
pub mod http_header {}

#[doc = include_str!("../../docs/attributes/form.md")]
pub mod form {}

#[doc = include_str!("../../docs/attributes/resource.md")]
pub mod resource {}

#[doc = include_str!("../../docs/attributes/prompt.md")]
pub mod prompt {}

#[doc = include_str!("../../docs/attributes/complete.md")]
pub mod complete {}

#[doc = include_str!("../../docs/attributes/middleware.md")]
pub mod middleware {}

#[doc = include_str!("../../docs/attributes/client.md")]
pub mod client {}
