//! DPoP-bound access tokens (RFC 9449) on the files service, with real crypto end to end: a
//! local authorization server publishes its keys over HTTP and signs JWTs whose `cnf.jkt`
//! binds them to a client key (or answers introspection with that `cnf`); the client key
//! signs real ES256, EdDSA and RS256 proofs. Every refusal asserts the status, each
//! `WWW-Authenticate` challenge exactly, and the body. The hostile catalogue's DPoP theme
//! (`tests/hostile.rs`, `dpop_proofs`) sends the same attacks over TCP next to a
//! well-behaved DPoP client.

mod dpop_support;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use dpop_support::{EC2_PEM, EC3_PEM, ProofKey, ath, b64};
use http::{Request, StatusCode};
use mcp::auth::{AuthorizationServer, DpopConfig, OAuthConfig};
use mcp::testing::{PATH, TestClient, TestResponse};
use mcp_examples::authz::{LocalAuthServer, RSA1_PEM, RSA2_PEM, SigningKey, now};
use mcp_examples::files::{Files, oauth_config};
use serde_json::{Value, json};

const RESOURCE: &str = "https://mcp.example.com/mcp";
const METADATA: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const ALGS: &str = "ES256 EdDSA RS256";
const NONCE_SECRET: &[u8; 32] = b"dpop-nonce-secret-of-the-tests!!";

struct Env {
    authz: LocalAuthServer,
    rsa: SigningKey,
    /// The client's key, the one its tokens are bound to.
    key: ProofKey,
    client: TestClient,
}

fn dpop() -> DpopConfig {
    DpopConfig::new().algorithms(["ES256", "EdDSA", "RS256"])
}

async fn env_with(tweak: impl FnOnce(OAuthConfig) -> OAuthConfig) -> Env {
    let authz = LocalAuthServer::start().await;
    let rsa = SigningKey::rsa("rsa-1", RSA1_PEM);
    authz.publish(&rsa);
    let config = tweak(oauth_config(RESOURCE, &authz.issuer, &authz.jwks_url));
    let server = mcp::Server::builder(Files).oauth(config).build().unwrap();
    Env {
        authz,
        rsa,
        key: ProofKey::es256(EC2_PEM),
        client: TestClient::new(server),
    }
}

async fn env() -> Env {
    env_with(|c| c.dpop(dpop())).await
}

impl Env {
    /// A token for alice, bound to `key` (`claims` add to or override the defaults).
    fn token_for(&self, key: &ProofKey, claims: Value) -> String {
        let mut base = json!({"sub": "alice", "client_id": "app", "aud": RESOURCE,
                              "scope": "files:read", "cnf": {"jkt": key.jkt()}});
        for (k, v) in claims.as_object().into_iter().flatten() {
            if v.is_null() {
                base.as_object_mut().unwrap().remove(k);
            } else {
                base[k] = v.clone();
            }
        }
        self.authz.issue(&self.rsa, &base)
    }

    /// A token bound to the client's key.
    fn token(&self) -> String {
        self.token_for(&self.key, json!({}))
    }

    /// A good proof of the client's key for a POST to the endpoint with `token`.
    fn proof(&self, token: &str) -> String {
        self.key.proof("POST", RESOURCE, token)
    }

    /// A modern `tools/call` of `tool` with `authorization` and each of `proofs` as a
    /// `DPoP` header.
    async fn call(
        &self,
        tool: &str,
        args: Value,
        authorization: Option<&str>,
        proofs: &[&str],
    ) -> TestResponse {
        let mut request = self
            .client
            .modern_request("tools/call", json!({"name": tool, "arguments": args}));
        let h = request.headers_mut();
        if let Some(a) = authorization {
            h.insert("authorization", a.parse().unwrap());
        }
        for p in proofs {
            h.append("dpop", p.parse().unwrap());
        }
        self.client.send(request).await
    }

    /// `read_file` with `DPoP <token>` and `proof`.
    async fn read(&self, token: &str, proof: &str) -> TestResponse {
        self.call(
            "read_file",
            json!({"path": "a.txt"}),
            Some(&format!("DPoP {token}")),
            &[proof],
        )
        .await
    }
}

/// A challenge of `scheme` as the server writes it: `error` and description, scopes,
/// `algs` (DPoP), `resource_metadata`.
fn challenge(scheme: &str, error: Option<(&str, &str)>, scope: Option<&str>) -> String {
    let mut params = Vec::new();
    if let Some((error, description)) = error {
        params.push(format!("error=\"{error}\""));
        params.push(format!("error_description=\"{description}\""));
    }
    if let Some(scope) = scope {
        params.push(format!("scope=\"{scope}\""));
    }
    if scheme == "DPoP" {
        params.push(format!("algs=\"{ALGS}\""));
    }
    params.push(format!("resource_metadata=\"{METADATA}\""));
    format!("{scheme} {}", params.join(", "))
}

fn challenges(r: &TestResponse) -> Vec<String> {
    r.headers
        .get_all("www-authenticate")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect()
}

/// A `401` whose DPoP challenge carries the error, offered next to a plain Bearer one.
#[track_caller]
fn assert_dpop_refusal(r: &TestResponse, error: &str, description: &str) {
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.raw);
    assert_eq!(
        challenges(r),
        [
            challenge("DPoP", Some((error, description)), None),
            challenge("Bearer", None, None)
        ]
    );
    assert_eq!(
        r.body,
        json!({"error": error, "error_description": description})
    );
}

fn text(r: &TestResponse) -> String {
    r.result()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn legacy(body: &Value, token: &str, proof: &str, session: Option<&str>) -> Request<Body> {
    let mut b = Request::post(PATH)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("DPoP {token}"))
        .header("dpop", proof);
    if let Some(s) = session {
        b = b.header("mcp-session-id", s);
    }
    b.body(Body::from(body.to_string())).unwrap()
}

#[tokio::test]
async fn good_proofs_call_tools_on_both_eras() {
    let e = env().await;
    let token = e.token();
    assert_eq!(
        text(&e.read(&token, &e.proof(&token)).await),
        "contents of a.txt for alice"
    );
    // Each request its own proof; the same token throughout.
    let r = e
        .call(
            "whoami",
            json!({}),
            Some(&format!("DPoP {token}")),
            &[&e.proof(&token)],
        )
        .await;
    let who: Value = serde_json::from_str(&text(&r)).unwrap();
    assert_eq!(who["subject"], "alice");
    // EdDSA and RS256 keys, the scheme in any case.
    for key in [ProofKey::ed25519(), ProofKey::rs256(RSA2_PEM)] {
        let token = e.token_for(&key, json!({}));
        let proof = key.proof("POST", RESOURCE, &token);
        let r = e
            .call(
                "read_file",
                json!({"path": "b"}),
                Some(&format!("dpop {token}")),
                &[&proof],
            )
            .await;
        assert_eq!(text(&r), "contents of b for alice");
    }
    // Legacy: initialize, then a call in the session, each with a fresh proof; the
    // session's owner is the token's caller, whatever the proof.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = e
        .client
        .send(legacy(&init, &token, &e.proof(&token), None))
        .await;
    r.result();
    let session = r.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "read_file", "arguments": {"path": "c"}}});
    let proof = e.proof(&token);
    let r = e
        .client
        .send(legacy(&call, &token, &proof, Some(&session)))
        .await;
    assert_eq!(r.result()["content"][0]["text"], "contents of c for alice");
    // The same proof again, in the session: a replay.
    let r = e
        .client
        .send(legacy(&call, &token, &proof, Some(&session)))
        .await;
    assert_dpop_refusal(&r, "invalid_dpop_proof", "DPoP proof has already been used");
    // Plain bearer tokens still work next to DPoP.
    let bearer = e.token_for(&e.key, json!({"cnf": null}));
    let r = e
        .call(
            "read_file",
            json!({"path": "d"}),
            Some(&format!("Bearer {bearer}")),
            &[],
        )
        .await;
    assert_eq!(text(&r), "contents of d for alice");
}

#[tokio::test]
async fn the_metadata_advertises_dpop() {
    for (config, required) in [(dpop(), false), (dpop().require(), true)] {
        let e = env_with(|c| c.dpop(config)).await;
        let r = e
            .client
            .send(
                Request::get("/.well-known/oauth-protected-resource/mcp")
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
        assert_eq!(
            r.body,
            json!({"resource": RESOURCE, "authorization_servers": [e.authz.issuer],
                   "scopes_supported": ["files:read", "files:write", "files:admin"],
                   "bearer_methods_supported": ["header"],
                   "dpop_signing_alg_values_supported": ["ES256", "EdDSA", "RS256"],
                   "dpop_bound_access_tokens_required": required,
                   "resource_name": "Files"})
        );
    }
}

#[tokio::test]
async fn refused_proofs_get_the_dpop_challenge() {
    let e = env().await;
    let token = e.token();
    let t = now();
    let proof_with =
        |header: Value, claims: Value| e.key.proof_with("POST", RESOURCE, &token, header, claims);
    // A good proof whose claims are changed after signing.
    let good = e.proof(&token);
    let mut parts = good.split('.');
    let (head, _, signature) = (parts.next().unwrap(), parts.next(), parts.next().unwrap());
    let other_claims = json!({"jti": "forged", "htm": "POST", "htu": RESOURCE, "iat": t,
                              "ath": ath(&token)});
    let forged = format!("{head}.{}.{signature}", b64(&other_claims));
    // The private scalar of the client's key, in the proof's jwk.
    let mut private = e.key.jwk().clone();
    private["d"] = json!(p256_scalar(EC2_PEM));
    let unsigned_none = {
        let header = json!({"typ": "dpop+jwt", "alg": "none", "jwk": e.key.jwk()});
        format!("{}.{}.", b64(&header), b64(&other_claims))
    };
    let hs256 = {
        let header = json!({"typ": "dpop+jwt", "alg": "HS256", "jwk": e.key.jwk()});
        let message = format!("{}.{}", b64(&header), b64(&other_claims));
        let key = jsonwebtoken::EncodingKey::from_secret(e.key.jwk().to_string().as_bytes());
        let sig =
            jsonwebtoken::crypto::sign(message.as_bytes(), &key, jsonwebtoken::Algorithm::HS256)
                .unwrap();
        format!("{message}.{sig}")
    };
    let attacker = ProofKey::es256(EC3_PEM);
    let unbound = e.token_for(&e.key, json!({"cnf": null}));
    let proof_error = "invalid_dpop_proof";
    let cases: Vec<(&str, String, String, &str, &str)> = vec![
        (
            "a forged signature",
            token.clone(),
            forged,
            proof_error,
            "Invalid DPoP proof signature",
        ),
        (
            "a proof signed by another key than cnf.jkt",
            token.clone(),
            attacker.proof("POST", RESOURCE, &token),
            "invalid_token",
            "Invalid DPoP key binding",
        ),
        (
            "iat two minutes old",
            token.clone(),
            proof_with(json!({}), json!({"iat": t - 120})),
            proof_error,
            "DPoP proof is too old",
        ),
        (
            "iat a minute ahead",
            token.clone(),
            proof_with(json!({}), json!({"iat": t + 60})),
            proof_error,
            "DPoP proof is issued in the future",
        ),
        (
            "htm GET",
            token.clone(),
            e.key.proof("GET", RESOURCE, &token),
            proof_error,
            "DPoP proof is for another HTTP method",
        ),
        (
            "htu of another path",
            token.clone(),
            e.key.proof("POST", "https://mcp.example.com/other", &token),
            proof_error,
            "DPoP proof is for another URL",
        ),
        (
            "htu of another host",
            token.clone(),
            e.key.proof("POST", "https://evil.example.com/mcp", &token),
            proof_error,
            "DPoP proof is for another URL",
        ),
        (
            "no ath",
            token.clone(),
            proof_with(json!({}), json!({"ath": null})),
            proof_error,
            "Invalid DPoP proof: missing ath",
        ),
        (
            "ath of another token",
            token.clone(),
            proof_with(json!({}), json!({"ath": ath("another token")})),
            proof_error,
            "DPoP proof is for another access token",
        ),
        (
            "a private key in the jwk",
            token.clone(),
            proof_with(json!({"jwk": private}), json!({})),
            proof_error,
            "Invalid DPoP proof: the jwk holds a private key",
        ),
        (
            "alg none",
            token.clone(),
            unsigned_none,
            proof_error,
            "Invalid DPoP proof: unsupported algorithm",
        ),
        (
            "HS256 keyed with the jwk",
            token.clone(),
            hs256,
            proof_error,
            "Invalid DPoP proof: unsupported algorithm",
        ),
        (
            "typ JWT",
            token.clone(),
            proof_with(json!({"typ": "JWT"}), json!({})),
            proof_error,
            "Invalid DPoP proof: typ is not dpop+jwt",
        ),
        (
            "the access token as the proof",
            token.clone(),
            token.clone(),
            proof_error,
            "Invalid DPoP proof: typ is not dpop+jwt",
        ),
        (
            "a good proof of an unbound token",
            unbound.clone(),
            e.proof(&unbound),
            "invalid_token",
            "Token is not bound to a DPoP key",
        ),
    ];
    for (name, token, proof, error, description) in cases {
        let r = e.read(&token, &proof).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{name}: {}", r.raw);
        assert_dpop_refusal(&r, error, description);
    }
    // A replayed jti: the proof passes once.
    let once = e.proof(&token);
    e.read(&token, &once).await.result();
    assert_dpop_refusal(
        &e.read(&token, &once).await,
        "invalid_dpop_proof",
        "DPoP proof has already been used",
    );
    // A new proof reusing the jti of an accepted one.
    let jti = claims_of(&once)["jti"].clone();
    assert_dpop_refusal(
        &e.read(&token, &proof_with(json!({}), json!({"jti": jti})))
            .await,
        "invalid_dpop_proof",
        "DPoP proof has already been used",
    );
    // Two DPoP headers, or none.
    let auth = format!("DPoP {token}");
    let r = e
        .call(
            "read_file",
            json!({"path": "a"}),
            Some(&auth),
            &[&e.proof(&token), &e.proof(&token)],
        )
        .await;
    assert_dpop_refusal(&r, "invalid_dpop_proof", "More than one DPoP proof");
    let r = e
        .call("read_file", json!({"path": "a"}), Some(&auth), &[])
        .await;
    assert_dpop_refusal(&r, "invalid_dpop_proof", "Missing DPoP proof");
    // A proof for the token refused by the token's own checks: invalid_token in the DPoP
    // challenge.
    let expired = e.token_for(&e.key, json!({"exp": t - 120}));
    assert_dpop_refusal(
        &e.read(&expired, &e.proof(&expired)).await,
        "invalid_token",
        "Token has expired",
    );
    // After all this, the client still gets in.
    e.read(&token, &e.proof(&token)).await.result();
}

/// Twenty copies of one fresh proof at once: the replay cache lets exactly one through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proof_sent_twenty_times_at_once_passes_once() {
    let e = std::sync::Arc::new(env().await);
    let token = e.token();
    let proof = e.proof(&token);
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let (e, token, proof) = (e.clone(), token.clone(), proof.clone());
        set.spawn(async move { e.read(&token, &proof).await });
    }
    let answers = set.join_all().await;
    let passed = answers
        .iter()
        .filter(|r| r.status == StatusCode::OK)
        .count();
    assert_eq!(
        passed,
        1,
        "{:?}",
        answers.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    for r in answers.iter().filter(|r| r.status != StatusCode::OK) {
        assert_dpop_refusal(r, "invalid_dpop_proof", "DPoP proof has already been used");
    }
}

/// The claims of a compact JWS.
fn claims_of(jws: &str) -> Value {
    use base64::Engine as _;
    let payload = jws.split('.').nth(1).unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// The private scalar `d` (base64url) of a P-256 PKCS#8 PEM as OpenSSL writes it.
fn p256_scalar(pem: &str) -> String {
    use base64::Engine as _;
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(body)
        .unwrap();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&der[36..68])
}

#[tokio::test]
async fn a_bound_token_is_refused_as_a_bearer_token() {
    let e = env().await;
    let bound = e.token();
    let bearer = |t: &str| format!("Bearer {t}");
    let description = "A DPoP-bound token cannot be used as a bearer token";
    let r = e
        .call(
            "read_file",
            json!({"path": "a"}),
            Some(&bearer(&bound)),
            &[],
        )
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.raw);
    assert_eq!(
        challenges(&r),
        [
            challenge("Bearer", Some(("invalid_token", description)), None),
            challenge("DPoP", None, None)
        ]
    );
    assert_eq!(
        r.body,
        json!({"error": "invalid_token", "error_description": description})
    );
    // Even with a good proof next to it.
    let r = e
        .call(
            "read_file",
            json!({"path": "a"}),
            Some(&bearer(&bound)),
            &[&e.proof(&bound)],
        )
        .await;
    assert_eq!(r.body["error_description"], description);
    // No Authorization: both challenges, the Bearer one with the error.
    let r = e.call("read_file", json!({"path": "a"}), None, &[]).await;
    assert_eq!(
        challenges(&r),
        [
            challenge(
                "Bearer",
                Some(("invalid_token", "Missing Authorization header")),
                None
            ),
            challenge("DPoP", None, None)
        ]
    );
    let r = e
        .call("read_file", json!({"path": "a"}), Some("Basic YTpi"), &[])
        .await;
    assert_eq!(
        r.body["error_description"],
        "Invalid Authorization header, expected 'Bearer TOKEN' or 'DPoP TOKEN'"
    );
    // On a server without DPoP, a bound token is no bearer token either, and the DPoP
    // scheme is not understood.
    let plain = env_with(|c| c).await;
    let bound = plain.token();
    let r = plain
        .call(
            "read_file",
            json!({"path": "a"}),
            Some(&bearer(&bound)),
            &[],
        )
        .await;
    assert_eq!(
        challenges(&r),
        [challenge(
            "Bearer",
            Some(("invalid_token", description)),
            None
        )]
    );
    let r = plain.read(&bound, &plain.proof(&bound)).await;
    assert_eq!(
        challenges(&r),
        [challenge(
            "Bearer",
            Some((
                "invalid_token",
                "Invalid Authorization header, expected 'Bearer TOKEN'"
            )),
            None
        )]
    );
}

#[tokio::test]
async fn required_dpop_refuses_bearer_tokens_before_checking_them() {
    let e = env_with(|c| c.dpop(dpop().require())).await;
    let only_dpop = |r: &TestResponse, description: &str| {
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.raw);
        assert_eq!(
            challenges(r),
            [challenge(
                "DPoP",
                Some(("invalid_token", description)),
                None
            )]
        );
    };
    let unbound = e.token_for(&e.key, json!({"cnf": null}));
    let r = e
        .call(
            "read_file",
            json!({"path": "a"}),
            Some(&format!("Bearer {unbound}")),
            &[],
        )
        .await;
    only_dpop(&r, "This resource requires DPoP-bound access tokens");
    // Not even a forged bearer token reaches the JWKS.
    let fetches = e.authz.jwks_fetches();
    let r = e
        .call(
            "read_file",
            json!({"path": "a"}),
            Some("Bearer not.a.token"),
            &[],
        )
        .await;
    only_dpop(&r, "This resource requires DPoP-bound access tokens");
    assert_eq!(e.authz.jwks_fetches(), fetches);
    let r = e.call("read_file", json!({"path": "a"}), None, &[]).await;
    only_dpop(&r, "Missing Authorization header");
    let r = e
        .call("read_file", json!({"path": "a"}), Some("Basic YTpi"), &[])
        .await;
    only_dpop(&r, "Invalid Authorization header, expected 'DPoP TOKEN'");
    // A DPoP refusal names no Bearer alternative.
    let token = e.token();
    let r = e.read(&token, &e.key.proof("GET", RESOURCE, &token)).await;
    assert_eq!(
        challenges(&r),
        [challenge(
            "DPoP",
            Some((
                "invalid_dpop_proof",
                "DPoP proof is for another HTTP method"
            )),
            None
        )]
    );
    e.read(&token, &e.proof(&token)).await.result();
    // An unbound token with a proof: required means bound.
    let r = e.read(&unbound, &e.proof(&unbound)).await;
    only_dpop(&r, "Token is not bound to a DPoP key");
}

#[tokio::test]
async fn insufficient_scope_is_challenged_in_the_scheme_used() {
    let e = env().await;
    let token = e.token();
    let auth = format!("DPoP {token}");
    let r = e
        .call(
            "delete_file",
            json!({"path": "a"}),
            Some(&auth),
            &[&e.proof(&token)],
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.raw);
    assert_eq!(
        challenges(&r),
        [challenge(
            "DPoP",
            Some(("insufficient_scope", "Insufficient scope")),
            Some("files:read files:write")
        )]
    );
    // The runtime step-up of a tool, and the required scope of every request.
    let writer = e.token_for(&e.key, json!({"scope": "files:write"}));
    let r = e
        .call(
            "purge",
            json!({}),
            Some(&format!("DPoP {writer}")),
            &[&e.proof(&writer)],
        )
        .await;
    assert_eq!(
        challenges(&r),
        [challenge(
            "DPoP",
            Some(("insufficient_scope", "Purging needs files:admin")),
            Some("files:admin")
        )]
    );
    let profile = e.token_for(&e.key, json!({"scope": "profile"}));
    let r = e.read(&profile, &e.proof(&profile)).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(
        challenges(&r),
        [challenge(
            "DPoP",
            Some(("insufficient_scope", "Insufficient scope")),
            Some("files:read")
        )]
    );
}

#[tokio::test]
async fn a_nonce_is_challenged_then_accepted_by_every_replica_with_the_secret() {
    let e = env_with(|c| c.dpop(dpop().nonce(NONCE_SECRET))).await;
    let token = e.token();
    let r = e.read(&token, &e.proof(&token)).await;
    assert_dpop_refusal(
        &r,
        "use_dpop_nonce",
        "Resource server requires nonce in DPoP proof",
    );
    let nonce = r.headers["dpop-nonce"].to_str().unwrap().to_owned();
    assert_eq!(nonce.len(), 24, "{nonce}");
    let with_nonce = |nonce: &str| e.key.proof_with_nonce("POST", RESOURCE, &token, nonce);
    let r = e.read(&token, &with_nonce(&nonce)).await;
    assert_eq!(text(&r), "contents of a.txt for alice");
    // A forged nonce: challenged again, with the current nonce.
    let r = e
        .read(&token, &with_nonce("AAAAAAAAAAAAAAAAAAAAAAAA"))
        .await;
    assert_dpop_refusal(&r, "use_dpop_nonce", "DPoP nonce is invalid or expired");
    assert_eq!(r.headers["dpop-nonce"], nonce.as_str());
    // Every 401 hands the nonce out, so a client can start with it.
    let r = e.call("read_file", json!({"path": "a"}), None, &[]).await;
    assert_eq!(r.headers["dpop-nonce"], nonce.as_str());
    // Another replica with the same secret accepts the nonce; one with another does not.
    let replica = |secret: &[u8]| {
        let config =
            oauth_config(RESOURCE, &e.authz.issuer, &e.authz.jwks_url).dpop(dpop().nonce(secret));
        TestClient::new(mcp::Server::builder(Files).oauth(config).build().unwrap())
    };
    let read = |client: TestClient, proof: String| {
        let auth = format!("DPoP {token}");
        async move {
            let request = client.modern_request(
                "tools/call",
                json!({"name": "read_file", "arguments": {"path": "r"}}),
            );
            let (mut parts, body) = request.into_parts();
            parts.headers.insert("authorization", auth.parse().unwrap());
            parts.headers.insert("dpop", proof.parse().unwrap());
            client.send(Request::from_parts(parts, body)).await
        }
    };
    let r = read(replica(NONCE_SECRET), with_nonce(&nonce)).await;
    assert_eq!(text(&r), "contents of r for alice");
    let r = read(replica(&[7; 32]), with_nonce(&nonce)).await;
    assert_eq!(r.body["error"], "use_dpop_nonce");
    assert_ne!(r.headers["dpop-nonce"], nonce.as_str());
}

#[tokio::test]
async fn nonces_rotate_a_stale_one_is_renewed_then_refused() {
    let e = env_with(|c| {
        c.dpop(
            dpop()
                .nonce(NONCE_SECRET)
                .nonce_lifetime(Duration::from_secs(1)),
        )
    })
    .await;
    let token = e.token();
    let first = e.read(&token, &e.proof(&token)).await;
    let nonce = first.headers["dpop-nonce"].to_str().unwrap().to_owned();
    let slot = |t: Duration| t.as_secs();
    let now = || SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let issued = slot(now());
    let with_nonce = || e.key.proof_with_nonce("POST", RESOURCE, &token, &nonce);
    // In the next slot the nonce is the previous one: accepted, and the response hands out
    // the current one.
    sleep_until_second(issued + 1).await;
    let r = e.read(&token, &with_nonce()).await;
    if slot(now()) == issued + 1 {
        r.result();
        let renewed = r.headers["dpop-nonce"].to_str().unwrap();
        assert_ne!(renewed, nonce);
    }
    // Two slots on it is refused, and the challenge carries the current nonce.
    sleep_until_second(issued + 2).await;
    let r = e.read(&token, &with_nonce()).await;
    assert_dpop_refusal(&r, "use_dpop_nonce", "DPoP nonce is invalid or expired");
    assert_ne!(r.headers["dpop-nonce"], nonce.as_str());
}

/// Sleeps until the Unix clock reads `second` (plus a few milliseconds).
async fn sleep_until_second(second: u64) {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let target = Duration::from_secs(second) + Duration::from_millis(20);
    if let Some(wait) = target.checked_sub(now) {
        tokio::time::sleep(wait).await;
    }
}

#[tokio::test]
async fn introspected_tokens_are_bound_by_their_cnf() {
    let idp = LocalAuthServer::start().await;
    let key = ProofKey::es256(EC2_PEM);
    idp.register_opaque(
        "opaque-bound",
        &json!({"sub": "carol", "client_id": "svc", "scope": "files:read",
                "cnf": {"jkt": key.jkt()}}),
    );
    let config = OAuthConfig::new(RESOURCE)
        .authorization_server(AuthorizationServer::introspection(
            &idp.issuer,
            &idp.introspection_url,
        ))
        .required_scopes(["files:read"])
        .dpop(dpop());
    let client = TestClient::new(mcp::Server::builder(Files).oauth(config).build().unwrap());
    let send = |auth: &str, proof: Option<String>| {
        let mut request = client.modern_request(
            "tools/call",
            json!({"name": "read_file", "arguments": {"path": "o"}}),
        );
        request
            .headers_mut()
            .insert("authorization", auth.parse().unwrap());
        if let Some(p) = proof {
            request.headers_mut().insert("dpop", p.parse().unwrap());
        }
        client.send(request)
    };
    let r = send(
        "DPoP opaque-bound",
        Some(key.proof("POST", RESOURCE, "opaque-bound")),
    )
    .await;
    assert_eq!(r.result()["content"][0]["text"], "contents of o for carol");
    let r = send("Bearer opaque-bound", None).await;
    assert_eq!(
        r.body["error_description"],
        "A DPoP-bound token cannot be used as a bearer token"
    );
    let other = ProofKey::es256(EC3_PEM);
    let r = send(
        "DPoP opaque-bound",
        Some(other.proof("POST", RESOURCE, "opaque-bound")),
    )
    .await;
    assert_eq!(r.body["error_description"], "Invalid DPoP key binding");
}

/// `htu` is the configured resource's origin and the path the client sent: behind a TLS
/// proxy (the server listens on plain loopback) and under `nest`/`nest_service`.
#[tokio::test]
async fn htu_is_the_public_origin_and_the_full_path() {
    let authz = LocalAuthServer::start().await;
    let rsa = SigningKey::rsa("rsa-1", RSA1_PEM);
    authz.publish(&rsa);
    let key = ProofKey::es256(EC2_PEM);
    let public = "https://public.example.com/api/mcp";
    let server = mcp::Server::builder(Files)
        .oauth(oauth_config(public, &authz.issuer, &authz.jwks_url).dpop(dpop()))
        .build()
        .unwrap();
    let app = axum::Router::new().nest(
        "/api",
        axum::Router::new().nest_service("/mcp", mcp::McpService::new(server)),
    );
    let listener = mcp::HttpServer::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(listener.serve(app.into_make_service()).into_future());
    let token = authz.issue(
        &rsa,
        &json!({"sub": "dave", "aud": public, "scope": "files:read", "cnf": {"jkt": key.jkt()}}),
    );
    let http = reqwest::Client::new();
    let call = |url: String, proof: String| {
        http.post(url)
            .header("authorization", format!("DPoP {token}"))
            .header("dpop", proof)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "read_file", "arguments": {"path": "p"}}})
                .to_string(),
            )
            .send()
    };
    for url in [
        format!("http://{addr}/api/mcp"),
        format!("http://{addr}/api/mcp/"),
    ] {
        let htu = if url.ends_with('/') {
            format!("{public}/")
        } else {
            public.to_owned()
        };
        let r = call(url, key.proof("POST", &htu, &token)).await.unwrap();
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        assert_eq!(
            body["result"]["content"][0]["text"],
            "contents of p for dave"
        );
    }
    // The URL the server listens on, or the path without its prefix, is not the client's.
    for htu in [
        format!("http://{addr}/api/mcp"),
        "https://public.example.com/mcp".into(),
    ] {
        let r = call(
            format!("http://{addr}/api/mcp"),
            key.proof("POST", &htu, &token),
        )
        .await
        .unwrap();
        assert_eq!(r.status(), 401);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error_description"], "DPoP proof is for another URL");
    }
}

/// This crate's client (`mcp::client::oauth`, DPoP on because the authorization server
/// advertises it) against this server requiring DPoP and nonces: the code flow binds the
/// token to the client's key, the first call meets `use_dpop_nonce` and is retried with the
/// nonce, and a tool's step-up (`403` in the DPoP scheme) gets a new bound token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn this_crates_client_and_server_agree_on_dpop() {
    use mcp::client::oauth::{ClientRegistration, ProgrammaticAuthorization};
    use mcp::client::{Client, ClientConfig, ConnectOptions};

    tokio::time::timeout(Duration::from_secs(30), async {
        let authz = LocalAuthServer::start().await;
        authz.enable_code_flow(&SigningKey::rsa("flow", RSA1_PEM), 3600);
        authz.enable_dpop();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let config = oauth_config(&url, &authz.issuer, &authz.jwks_url)
            .dpop(dpop().require().nonce(NONCE_SECRET));
        let server = mcp::Server::builder(Files).oauth(config).build().unwrap();
        let app = mcp::transport::http::router("/mcp", server);
        tokio::spawn(async move {
            mcp::HttpServer::from_tcp(listener)
                .serve(app.into_make_service())
                .await
        });
        let oauth = mcp::client::oauth::OAuthConfig::authorization_code(
            ClientRegistration::dynamic().client_name("dpop-e2e"),
            ProgrammaticAuthorization::new("http://127.0.0.1:9/callback"),
        )
        .scopes(["files:read"]);
        let client = Client::new(&url, ClientConfig::new().oauth(oauth)).unwrap();
        client
            .connect(ConnectOptions::new(mcp::Implementation::new(
                "dpop-e2e", "1.0.0",
            )))
            .await
            .expect("connect with a DPoP-bound token");
        let call = |tool: &'static str, args: Value| {
            let client = &client;
            async move {
                client
                    .call(tool)
                    .arguments(args)
                    .unwrap()
                    .await
                    .map(|r| r.joined_text())
            }
        };
        assert_eq!(
            call("read_file", json!({"path": "a.txt"})).await.unwrap(),
            "contents of a.txt for demo-user"
        );
        assert_eq!(call("purge", json!({})).await.unwrap(), "purged");
        assert_eq!(authz.code_flow_counts().2, 2, "a code grant per scope set");
        client.close().await.unwrap();
    })
    .await
    .expect("no hang");
}

/// A modern `read_file` call of `client` with `DPoP <token>` and `proof`.
#[cfg(feature = "redis")]
async fn read_with(client: &TestClient, token: &str, proof: &str) -> TestResponse {
    let mut request = client.modern_request(
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": "x"}}),
    );
    let h = request.headers_mut();
    h.insert("authorization", format!("DPoP {token}").parse().unwrap());
    h.insert("dpop", proof.parse().unwrap());
    client.send(request).await
}

/// Two replicas (two servers, as two processes would be) sharing a Redis replay cache: a
/// proof accepted by one is refused by the other. With in-memory caches it is not, which is
/// why replicas need the shared one.
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_the_redis_replay_cache() {
    use mcp::auth::{MemoryReplayStore, RedisReplayStore};

    let redis = redis_server::Redis::start();
    redis.ready().await;
    let authz = LocalAuthServer::start().await;
    let rsa = SigningKey::rsa("rsa-1", RSA1_PEM);
    authz.publish(&rsa);
    let key = ProofKey::es256(EC2_PEM);
    let prefix = format!("mcp-dpop-test:{}", std::process::id());
    let store = RedisReplayStore::connect(&redis.url())
        .await
        .expect("Redis answers")
        .with_prefix(&prefix);
    let replica = |config: DpopConfig| {
        let oauth = oauth_config(RESOURCE, &authz.issuer, &authz.jwks_url).dpop(config);
        TestClient::new(mcp::Server::builder(Files).oauth(oauth).build().unwrap())
    };
    let token = authz.issue(
        &rsa,
        &json!({"sub": "erin", "aud": RESOURCE, "scope": "files:read", "cnf": {"jkt": key.jkt()}}),
    );
    let a = std::sync::Arc::new(replica(dpop().replay_store(store.clone())));
    let b = std::sync::Arc::new(replica(
        dpop().replay_store(
            RedisReplayStore::connect(&redis.url())
                .await
                .unwrap()
                .with_prefix(&prefix),
        ),
    ));
    let proof = key.proof("POST", RESOURCE, &token);
    read_with(&a, &token, &proof).await.result();
    let r = read_with(&b, &token, &proof).await;
    assert_eq!(
        (r.status, &r.body),
        (
            StatusCode::UNAUTHORIZED,
            &json!({"error": "invalid_dpop_proof", "error_description": "DPoP proof has already been used"})
        )
    );
    let r = read_with(&a, &token, &proof).await;
    assert_eq!(r.body["error"], "invalid_dpop_proof");
    // The entry expires with the proof (max_age 60 s, plus up to two seconds of rounding).
    let keys = redis.cli(&["KEYS", &format!("{prefix}:dpop:*")]);
    let keys: Vec<&str> = keys.lines().collect();
    assert_eq!(keys.len(), 1, "{keys:?}");
    let ttl: i64 = redis.cli(&["TTL", keys[0]]).trim().parse().unwrap();
    assert!((58..=62).contains(&ttl), "{ttl}");
    // One fresh proof sent to both replicas twenty times at once passes once.
    let proof = key.proof("POST", RESOURCE, &token);
    let mut set = tokio::task::JoinSet::new();
    for i in 0..20 {
        let client = if i % 2 == 0 { a.clone() } else { b.clone() };
        let (token, proof) = (token.clone(), proof.clone());
        set.spawn(async move { read_with(&client, &token, &proof).await.status });
    }
    let statuses = set.join_all().await;
    assert_eq!(
        statuses.iter().filter(|s| **s == StatusCode::OK).count(),
        1,
        "{statuses:?}"
    );
    // In-memory caches are per replica: the same replay passes the other one.
    let (c, d) = (
        replica(dpop().replay_store(MemoryReplayStore::new(100))),
        replica(dpop().replay_store(MemoryReplayStore::new(100))),
    );
    let proof = key.proof("POST", RESOURCE, &token);
    read_with(&c, &token, &proof).await.result();
    read_with(&d, &token, &proof).await.result();
    // Redis gone: fail closed with 503, the client keeps its token.
    drop(redis);
    let r = read_with(&a, &token, &key.proof("POST", RESOURCE, &token)).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.raw);
    assert_eq!(r.body["error"], "temporarily_unavailable");
    assert!(r.headers.get("www-authenticate").is_none());
}

#[cfg(feature = "redis")]
mod redis_server {
    use std::process::{Child, Command, Stdio};
    use std::time::Duration;

    /// A `redis-server` child on a free port; killed when dropped.
    pub struct Redis {
        child: Child,
        port: u16,
    }

    impl Redis {
        pub fn start() -> Self {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start redis-server ({e}): install Redis (Debian: apt-get install redis-server); this test never skips"));
            Self { child, port }
        }

        pub async fn ready(&self) {
            for _ in 0..100 {
                if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                    .await
                    .is_ok()
                {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            panic!("redis-server did not listen on port {}", self.port);
        }

        pub fn url(&self) -> String {
            format!("redis://127.0.0.1:{}", self.port)
        }

        /// The output of `redis-cli` running `args`.
        pub fn cli(&self, args: &[&str]) -> String {
            let out = Command::new("redis-cli")
                .args(["-p", &self.port.to_string()])
                .args(args)
                .output()
                .expect("redis-cli runs");
            String::from_utf8_lossy(&out.stdout).into_owned()
        }
    }

    impl Drop for Redis {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
