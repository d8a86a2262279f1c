//! The files service as an OAuth protected resource: `cargo run --example files`.
//!
//! Configure it from the environment:
//!
//! - `OAUTH_ISSUER`: the authorization server's issuer (default: a local demo authorization
//!   server started on `127.0.0.1:9091`, which prints a sample token and runs the
//!   authorization code flow without a login: `cargo run --example mcp_call -- URL --oauth`),
//! - `OAUTH_JWKS_URL`: its JWKS URL (default `<issuer>/jwks`),
//! - `MCP_RESOURCE`: the canonical URL of this service (default `http://<MCP_ADDR>/mcp`).

use mcp_examples::authz::{LocalAuthServer, RSA1_PEM, SigningKey};
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    let issuer = std::env::var("OAUTH_ISSUER").ok();
    let demo = match issuer {
        Some(_) => None,
        None => Some(LocalAuthServer::start_on("127.0.0.1:9091").await),
    };
    let issuer =
        issuer.unwrap_or_else(|| demo.as_ref().map(|d| d.issuer.clone()).unwrap_or_default());
    let jwks_url = std::env::var("OAUTH_JWKS_URL").unwrap_or_else(|_| format!("{issuer}/jwks"));
    mcp_examples::serve_with(move |addr| {
        let resource = std::env::var("MCP_RESOURCE").unwrap_or_else(|_| format!("http://{addr}/mcp"));
        if let Some(demo) = &demo {
            let key = SigningKey::rsa("demo", RSA1_PEM);
            // Publishes the key and runs the code flow, for `mcp_call URL --oauth`.
            demo.enable_code_flow(&key, 3600);
            let token = demo.issue(
                &key,
                &json!({"sub": "demo-user", "client_id": "demo-client", "aud": resource, "scope": "files:read"}),
            );
            eprintln!("demo authorization server at {}; a files:read token:\n{token}", demo.issuer);
        }
        mcp_examples::files::server(&resource, &issuer, &jwks_url)
    })
    .await
}
