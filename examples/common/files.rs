//! The seed's files service, protected as an OAuth resource: every request needs
//! `files:read`, deleting needs `files:write`, purging asks for `files:admin` at runtime
//! (step-up), and `files:admin → files:write → files:read` form a scope hierarchy.

use mcp::auth::{AuthorizationServer, OAuthConfig};
use mcp::{AuthContext, InsufficientScopeError};
use serde_json::json;

/// The files service.
#[derive(Clone, Copy, Debug, Default)]
pub struct Files;

#[mcp::service(name = "files", version = "1.0.0", session_mode = "auto")]
impl Files {
    /// Read a file.
    pub fn read_file(&self, auth: AuthContext, path: String) -> String {
        format!(
            "contents of {path} for {}",
            auth.subject.as_deref().unwrap_or("?")
        )
    }

    /// Delete a file.
    #[tool(scopes = ["files:write"])]
    pub fn delete_file(&self, path: String) -> String {
        format!("deleted {path}")
    }

    /// Delete every file: asks for `files:admin` when the caller lacks it.
    pub fn purge(&self, auth: AuthContext) -> Result<String, InsufficientScopeError> {
        if !auth.scopes.contains("files:admin") {
            return Err(InsufficientScopeError::new(
                "Purging needs files:admin",
                ["files:admin"],
            ));
        }
        Ok("purged".into())
    }

    /// Describe the authenticated caller.
    pub fn whoami(&self, auth: AuthContext) -> String {
        json!({
            "subject": auth.subject,
            "issuer": auth.issuer,
            "client_id": auth.client_id,
            "scopes": auth.scopes,
        })
        .to_string()
    }
}

/// The OAuth configuration of the files service: tokens for `resource` from `issuer`,
/// verified with the keys at `jwks_url`.
pub fn oauth_config(resource: &str, issuer: &str, jwks_url: &str) -> OAuthConfig {
    OAuthConfig::new(resource)
        .authorization_server(AuthorizationServer::jwt(issuer, jwks_url))
        .required_scopes(["files:read"])
        .scopes_supported(["files:read", "files:write", "files:admin"])
        .scope_hierarchy("files:admin", ["files:write"])
        .scope_hierarchy("files:write", ["files:read"])
        .resource_name("Files")
}

/// The files server for `resource`.
pub fn server(resource: &str, issuer: &str, jwks_url: &str) -> mcp::ServerBuilder {
    mcp::Server::builder(Files).oauth(oauth_config(resource, issuer, jwks_url))
}
