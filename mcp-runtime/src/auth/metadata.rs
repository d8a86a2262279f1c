//! The protected resource metadata document (RFC 9728) and its public route.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::response::Response;
use http::{HeaderValue, Method, StatusCode, header};
use serde_json::{Map, json};

use super::config::OAuthConfig;
use super::dpop::Dpop;
use crate::error::Error;

/// The metadata document of `config` (with the DPoP members when `dpop` is set), as JSON.
pub(super) fn document(config: &OAuthConfig, dpop: Option<&Dpop>) -> Result<Vec<u8>, Error> {
    let mut doc = Map::new();
    doc.insert("resource".into(), json!(config.resource));
    doc.insert(
        "authorization_servers".into(),
        json!(
            config
                .authorization_servers
                .iter()
                .map(|s| s.issuer.as_str())
                .collect::<Vec<_>>()
        ),
    );
    if !config.advertised_scopes().is_empty() {
        doc.insert("scopes_supported".into(), json!(config.advertised_scopes()));
    }
    doc.insert("bearer_methods_supported".into(), json!(["header"]));
    if let Some(d) = dpop {
        doc.insert(
            "dpop_signing_alg_values_supported".into(),
            json!(d.algs().split(' ').collect::<Vec<_>>()),
        );
        doc.insert(
            "dpop_bound_access_tokens_required".into(),
            json!(d.required),
        );
    }
    if let Some(name) = &config.resource_name {
        doc.insert("resource_name".into(), json!(name));
    }
    if let Some(url) = &config.resource_documentation {
        doc.insert("resource_documentation".into(), json!(url));
    }
    serde_json::to_vec(&doc)
        .map_err(|e| Error::Config(format!("OAuth: cannot serialize the metadata: {e}")))
}

/// The public route serving `doc` at `path` (GET, HEAD, OPTIONS; CORS `*`).
pub(super) fn router(path: &str, doc: Arc<Vec<u8>>) -> Router {
    Router::new()
        .route(path, axum::routing::any(metadata))
        .with_state(doc)
}

async fn metadata(State(doc): State<Arc<Vec<u8>>>, method: Method) -> Response {
    let mut r = match method {
        Method::GET => {
            let mut r = Response::new(Body::from(doc.as_ref().clone()));
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            r
        }
        Method::HEAD => {
            let mut r = Response::new(Body::empty());
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            r
        }
        Method::OPTIONS => {
            let mut r = Response::new(Body::empty());
            *r.status_mut() = StatusCode::NO_CONTENT;
            let h = r.headers_mut();
            h.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static("GET, HEAD, OPTIONS"),
            );
            h.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static("MCP-Protocol-Version, Content-Type, Authorization"),
            );
            h.insert(
                header::ACCESS_CONTROL_MAX_AGE,
                HeaderValue::from_static("86400"),
            );
            r
        }
        _ => {
            let mut r = Response::new(Body::empty());
            *r.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
            r.headers_mut().insert(
                header::ALLOW,
                HeaderValue::from_static("GET, HEAD, OPTIONS"),
            );
            r
        }
    };
    r.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    r
}
