//! Plain listener authentication without discovery (the 1.x `ListenerAuthConfig`): HTTP
//! Basic against a user store, or JWTs verified with fixed keys. Failures are answered 401
//! or 403 without a challenge.

use base64::Engine as _;
use http::{HeaderMap, header};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{Map, Value};
use subtle::ConstantTimeEq as _;

use super::AuthError;
use super::jws::{Expected, Jws};
use crate::error::Error;
use crate::redact::Names;
use crate::session::Owner;
use crate::session::identity::ListenerOwner;

/// One way callers may authenticate to a service protected with
/// [`ServerBuilder::listener_auth`](crate::ServerBuilder::listener_auth). A request is
/// accepted when any configured method accepts it. A legacy session, and a request state,
/// belong to the caller that created it: the Basic user name, or the issuer, client and
/// subject of a JWT (a JWT naming neither a subject nor a client gets no session).
/// `Debug` shows the user names, never the passwords.
///
/// ```
/// use mcp::auth::ListenerAuth;
/// let basic = ListenerAuth::basic([("alice", "wonderland")]);
/// # let _ = basic;
/// ```
#[derive(Clone)]
pub struct ListenerAuth {
    kind: Method,
}

#[derive(Clone)]
enum Method {
    Basic(Vec<(String, String)>),
    Jwt {
        key: DecodingKey,
        algorithms: Vec<Algorithm>,
        issuer: Option<String>,
        audience: Option<String>,
    },
}

impl std::fmt::Debug for ListenerAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Method::Basic(users) => f
                .debug_struct("Basic")
                .field("users", &Names::new(users.iter().map(|(user, _)| user)))
                .finish(),
            Method::Jwt {
                issuer, audience, ..
            } => f
                .debug_struct("Jwt")
                .field("issuer", issuer)
                .field("audience", audience)
                .finish_non_exhaustive(),
        }
    }
}

impl ListenerAuth {
    /// HTTP Basic against a store of (user name, password) pairs.
    pub fn basic<U: Into<String>, P: Into<String>>(
        users: impl IntoIterator<Item = (U, P)>,
    ) -> Self {
        Self {
            kind: Method::Basic(
                users
                    .into_iter()
                    .map(|(u, p)| (u.into(), p.into()))
                    .collect(),
            ),
        }
    }

    /// Bearer JWTs verified with a fixed public key (PEM, RSA or EC P-256/P-384), optionally
    /// requiring an issuer and an audience (a token must then carry `iss`, or an `aud`
    /// naming the audience). `exp` is required; a token with a `crit` header is refused.
    pub fn jwt(
        public_key_pem: &str,
        issuer: Option<&str>,
        audience: Option<&str>,
    ) -> Result<Self, Error> {
        let pem = public_key_pem.as_bytes();
        let (key, algorithms) = if let Ok(key) = DecodingKey::from_rsa_pem(pem) {
            let algs = vec![
                Algorithm::RS256,
                Algorithm::RS384,
                Algorithm::RS512,
                Algorithm::PS256,
                Algorithm::PS384,
                Algorithm::PS512,
            ];
            (key, algs)
        } else if let Ok(key) = DecodingKey::from_ec_pem(pem) {
            (key, vec![Algorithm::ES256, Algorithm::ES384])
        } else {
            return Err(Error::Config(
                "listener auth: the JWT key is not an RSA or EC public key in PEM".into(),
            ));
        };
        Ok(Self {
            kind: Method::Jwt {
                key,
                algorithms,
                issuer: issuer.map(str::to_owned),
                audience: audience.map(str::to_owned),
            },
        })
    }
}

/// The checked listener authentication of a server.
pub(crate) struct Listener {
    methods: Vec<ListenerAuth>,
}

impl Listener {
    pub(crate) fn new(methods: Vec<ListenerAuth>) -> Result<Self, Error> {
        if methods.is_empty() {
            return Err(Error::Config(
                "listener auth: at least one authentication method is required".into(),
            ));
        }
        Ok(Self { methods })
    }

    /// The caller, or the refusal (401 without a challenge).
    #[allow(clippy::result_large_err)]
    pub(crate) fn authenticate(
        &self,
        headers: &HeaderMap,
    ) -> Result<ListenerOwner, axum::response::Response> {
        let unauthorized = || super::unauthorized_response("Unauthorized");
        let value = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(unauthorized)?;
        let (scheme, credentials) = value.split_once(' ').ok_or_else(unauthorized)?;
        let credentials = credentials.trim();
        for method in &self.methods {
            match &method.kind {
                Method::Basic(users) if scheme.eq_ignore_ascii_case("basic") => {
                    if let Some(user) = check_basic(users, credentials) {
                        return Ok(ListenerOwner {
                            owner: Owner::user(user),
                            names_nobody: false,
                        });
                    }
                }
                Method::Jwt {
                    key,
                    algorithms,
                    issuer,
                    audience,
                } if scheme.eq_ignore_ascii_case("bearer") => {
                    let claims = Jws::parse(credentials).and_then(|jws| {
                        if !algorithms.contains(&jws.alg) {
                            return Err(AuthError::InvalidToken("algorithm not accepted"));
                        }
                        let expected = Expected {
                            issuer: issuer.as_deref(),
                            audience: audience.as_deref(),
                        };
                        jws.verify(key, &expected)
                    });
                    match claims {
                        Ok(claims) => return Ok(jwt_caller(&claims)),
                        Err(e) => tracing::debug!(error = %e, "refusing a listener JWT"),
                    }
                }
                _ => {}
            }
        }
        Err(unauthorized())
    }
}

/// The caller of verified JWT `claims`: its issuer, client (`client_id`, else `azp`) and
/// subject; empty claims name nothing.
fn jwt_caller(claims: &Map<String, Value>) -> ListenerOwner {
    let text = |k: &str| {
        claims
            .get(k)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
    };
    let subject = text("sub");
    let client = text("client_id").or_else(|| text("azp"));
    ListenerOwner {
        owner: Owner::token(
            text("iss").unwrap_or(""),
            client.unwrap_or(""),
            subject.unwrap_or(""),
        ),
        names_nobody: subject.is_none() && client.is_none(),
    }
}

/// The user name of valid Basic `credentials`; passwords are compared in constant time.
fn check_basic<'a>(users: &'a [(String, String)], credentials: &str) -> Option<&'a str> {
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(credentials)
        .ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    let (user, password) = decoded.split_once(':')?;
    let mut found = None;
    for (u, p) in users {
        let same_user = u.as_bytes().ct_eq(user.as_bytes());
        let same_password = p.as_bytes().ct_eq(password.as_bytes());
        if bool::from(same_user & same_password) {
            found = Some(u.as_str());
        }
    }
    found
}
