//! The `auth/*` client scenarios of the official conformance suite, for the
//! `conformance_client` example: the OAuth configuration each scenario needs, from the
//! scenario name and the suite's `MCP_CONFORMANCE_CONTEXT` (credentials, keys, the
//! identity provider), then a generic session: connect, list the tools, call each one.
//!
//! The suite's authorization servers approve at once and redirect to the client's
//! redirect URI, so the code flow runs with [`ProgrammaticAuthorization`]. DPoP
//! (`auth/dpop*`) needs no configuration: the client binds its tokens whenever the
//! authorization server advertises ES256 proofs.

use mcp::Implementation;
use mcp::client::oauth::{
    AssertionSource, ClientAuth, ClientRegistration, IdentityProviderConfig, OAuthConfig,
    ProgrammaticAuthorization, WorkloadIdentity,
};
use mcp::client::{Client, ClientConfig, ConnectOptions, ProtocolMode};
use serde_json::Value;

/// The Client ID Metadata Document URL the suite expects (`auth/basic-cimd`).
pub const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
/// The redirect URI announced in the code flow (nothing listens there).
pub const REDIRECT_URI: &str = "http://127.0.0.1:8765/callback";

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null)
}

fn field(context: &Value, name: &str) -> Result<String, BoxError> {
    context
        .get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("MCP_CONFORMANCE_CONTEXT has no {name}").into())
}

/// The OAuth configuration of `scenario`.
pub fn oauth_config(scenario: &str, context: &Value) -> Result<OAuthConfig, BoxError> {
    let code = |client: ClientRegistration| {
        OAuthConfig::authorization_code(client, ProgrammaticAuthorization::new(REDIRECT_URI))
    };
    Ok(match scenario {
        "auth/pre-registration" => code(
            ClientRegistration::pre_registered(field(context, "client_id")?)
                .auth(ClientAuth::client_secret(field(context, "client_secret")?)),
        ),
        "auth/client-credentials-basic" => OAuthConfig::client_credentials(
            field(context, "client_id")?,
            ClientAuth::client_secret(field(context, "client_secret")?),
        ),
        "auth/client-credentials-jwt" => OAuthConfig::client_credentials(
            field(context, "client_id")?,
            ClientAuth::private_key_jwt(
                &field(context, "private_key_pem")?,
                &field(context, "signing_algorithm")?,
            )?,
        ),
        // SEP-1933: the workload's JWT (issued for the authorization server) with the
        // JWT-bearer grant, no registered client.
        "auth/wif-jwt-bearer" => OAuthConfig::workload_identity(WorkloadIdentity::new(
            AssertionSource::value(field(context, "valid_jwt")?),
        )),
        // SEP-990: the user's ID token exchanged at the enterprise IdP for an ID-JAG (RFC
        // 8693), then the JWT-bearer grant with the client's secret at the MCP server's
        // authorization server.
        "auth/enterprise-managed-authorization" => OAuthConfig::enterprise_managed(
            ClientRegistration::pre_registered(field(context, "client_id")?)
                .auth(ClientAuth::client_secret(field(context, "client_secret")?)),
            IdentityProviderConfig::new(
                field(context, "idp_issuer")?,
                field(context, "idp_client_id")?,
            )
            .token_endpoint(field(context, "idp_token_endpoint")?),
            AssertionSource::value(field(context, "idp_id_token")?),
        ),
        // Every other scenario: a Client ID Metadata Document where the server supports
        // one, dynamic registration otherwise.
        _ => code(
            ClientRegistration::metadata_document(CLIENT_METADATA_URL)
                .client_name("mcp-rs-conformance-client"),
        ),
    })
}

/// Runs an `auth/*` scenario against `url`.
pub async fn run(url: &str, scenario: &str) -> Result<(), BoxError> {
    let oauth = oauth_config(scenario, &context())?;
    // Auto: the 2025-era scenarios' servers speak `initialize`, the 2026-07-28 ones
    // (`iss-*`, `authorization-server-migration`, …) answer `server/discover`.
    let config = ClientConfig::new()
        .protocol_mode(ProtocolMode::Auto)
        .oauth(oauth);
    let client = Client::new(url, config)?;
    let options = ConnectOptions::new(Implementation::new(
        "mcp-rs-conformance-client",
        env!("CARGO_PKG_VERSION"),
    ));
    client.connect(options).await?;
    let tools = client.list_tools().await?.tools;
    for tool in tools {
        let result = client.call(tool.name.as_str()).await?;
        println!("{}: {}", tool.name, result.joined_text());
    }
    client.close().await?;
    Ok(())
}
