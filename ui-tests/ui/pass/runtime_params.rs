//! Every runtime parameter a tool can bind, at any position; none appears in the input
//! schema.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use mcp::protocol::Era;
use serde_json::json;
use support::*;

struct Inspect;

#[mcp::service(name = "inspect", protocol_mode = "legacy")]
impl Inspect {
    /// Reports what the request carried.
    #[allow(clippy::too_many_arguments)]
    pub async fn inspect(
        &self,
        session: Option<mcp::Session>,
        label: String,
        meta: Option<mcp::RequestMeta>,
        #[http_header("X-Trace")] trace: String,
        #[http_header("X-Tenant")] tenant: Option<String>,
        #[http_header("X-Tag")] tags: Vec<String>,
        headers: http::HeaderMap,
        parts: http::request::Parts,
        context: mcp::Context,
        auth: Option<mcp::AuthContext>,
    ) -> String {
        format!(
            "{label} session={} meta={} trace={trace} tenant={} tags={} headers={} method={} state={} auth={}",
            session.is_some(),
            meta.is_some(),
            tenant.unwrap_or_default(),
            tags.join(","),
            headers.len(),
            parts.method,
            context.request_state().unwrap_or("-"),
            auth.is_some(),
        )
    }
}

fn main() {
    let tool = tool(&Inspect, "inspect");
    assert_eq!(
        tool["inputSchema"]["properties"],
        json!({"label": {"type": "string"}})
    );
    assert_eq!(tool["inputSchema"]["required"], json!(["label"]));

    let cx = request(
        Era::Legacy,
        &[("X-Trace", "t-1"), ("X-Tag", "a"), ("X-Tag", "b")],
    );
    let r = complete(call_in(&Inspect, &cx, "inspect", json!({"label": "hi"})));
    assert_eq!(
        r.joined_text(),
        "hi session=false meta=false trace=t-1 tenant= tags=a,b headers=3 method=POST state=- auth=false"
    );

    // A missing required `#[http_header]` is an invalid-params error.
    let cx = request(Era::Legacy, &[]);
    let err = call_in(&Inspect, &cx, "inspect", json!({"label": "hi"})).unwrap_err();
    assert!(err.to_string().contains("X-Trace"), "{err}");

    let _ = server(Inspect);
}
