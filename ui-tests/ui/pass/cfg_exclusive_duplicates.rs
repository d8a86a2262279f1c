//! Two methods with one tool name under mutually exclusive `#[cfg]`s are not duplicates:
//! only the one whose cfg holds exists.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use support::*;

struct Platform;

#[mcp::service(name = "platform")]
impl Platform {
    #[cfg(unix)]
    pub fn os(&self) -> String {
        "unix".into()
    }

    #[cfg(not(unix))]
    pub fn os(&self) -> String {
        "other".into()
    }

    #[cfg(debug_assertions)]
    #[tool(name = "build")]
    pub fn debug_build(&self) -> String {
        "debug".into()
    }

    #[cfg(not(debug_assertions))]
    #[tool(name = "build")]
    pub fn release_build(&self) -> String {
        "release".into()
    }

    #[cfg(any())] // never holds
    #[tool(name = "build")]
    pub fn never_built(&self) -> String {
        "never".into()
    }
}

fn main() {
    let names: Vec<_> = tools(&Platform).into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["os", "build"]);
    let expected = if cfg!(unix) { "unix" } else { "other" };
    assert_eq!(result(&Platform, "os", json!({})).content[0], mcp::Content::text(expected));
    let build = if cfg!(debug_assertions) { "debug" } else { "release" };
    assert_eq!(result(&Platform, "build", json!({})).content[0], mcp::Content::text(build));
}
