//! The first page of a modern `tools/list` of a basic service is serialized once and reused
//! (issue #17): every later request gets the same result, and requests for another page, or
//! with a bad cursor, are answered as before.

mod common;

use common::*;
use serde_json::{Value, json};

/// A basic service with fixed tools.
struct Fixed;

#[mcp::service(name = "fixed", version = "1.0.0")]
impl Fixed {
    /// Add.
    pub fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }

    /// Echo.
    pub fn echo(&self, text: String) -> String {
        text
    }
}

#[tokio::test]
async fn the_first_page_of_fixed_tools_is_reused_and_other_pages_are_not() {
    let app = mcp::transport::http::router("/mcp", mcp::Server::builder(Fixed).build().unwrap());
    let list =
        |id: i64, params: Value| modern_request(&modern_body(json!(id), "tools/list", params));

    let first = send(&app, list(1, Value::Null)).await;
    let first_result = first.result().clone();
    assert_eq!(first_result["tools"].as_array().map(Vec::len), Some(2));
    assert_eq!(first_result["resultType"], "complete");
    assert_eq!(
        first_result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "fixed"
    );

    // The same page again, with another id and extra request metadata: the same result.
    let again = send(&app, list(2, json!({"_meta": {"progressToken": 7}}))).await;
    assert_eq!(again.body["id"], 2);
    assert_eq!(again.result(), &first_result);

    // A cursor is not the first page: answered by the service, here an unknown cursor.
    let bogus = send(&app, list(3, json!({"cursor": "bogus"}))).await;
    bogus.assert_error(200, -32602, json!(3));

    // Invalid params are still refused, not answered from the stored page.
    let invalid = send(&app, list(4, json!({"cursor": 5}))).await;
    invalid.assert_error(200, -32602, json!(4));

    // The legacy era has its own shape and is not served from the modern page.
    let legacy = send(
        &app,
        legacy_request(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"})),
    )
    .await;
    let result = legacy.result();
    assert!(result.get("resultType").is_none(), "{result}");
    assert_eq!(result["tools"].as_array().map(Vec::len), Some(2));
}
