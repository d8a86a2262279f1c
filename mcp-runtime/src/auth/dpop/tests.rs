//! DPoP proofs signed with real keys (P-256, P-384, Ed25519, RSA), checked by
//! [`Dpop::check_proof`] and [`Dpop::bind`]: each accepted shape, and each refusal with its
//! exact description.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use jsonwebtoken::EncodingKey;
use serde_json::json;

use super::*;

/// Test-only keys: they protect nothing.
const P256: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg+5fDouXStIfoDsNb
CzsGU5ndfvG7SpXAw9C/hQZfRUuhRANCAAQ45K5N/dqbx7nLVIMBqYNBAcSCxzTi
SMamG7ijleIkzTcdrCRTZ7BccIrWe/QEbYeGd5d5OQr2QpER3ahLB9Wz
-----END PRIVATE KEY-----
";
const P256_OTHER: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgKi+SONFmUyy0G/ID
ZdlWe+98/BGUyliBxi/PDKWOjHuhRANCAAQER9HxVWXjGea28swLsWMVh4pDF8o6
RFVWUs9BNnCYpSzvlpw+vkaybNw5WV2X/k2WRkJXw3px6gGmDQGxs1iO
-----END PRIVATE KEY-----
";
const P384: &str = "-----BEGIN PRIVATE KEY-----
MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDAhs/xSmgzZCjKWo4Az
C9fmJz0eVzUWOaabvOcRTqnY/1zIrVQz4fguUpnfHjku+w6hZANiAAQ0VzHkEXeh
DGq8IVXXuPc4az4P1+UZnGQdiyJmu7bpx0LjMdBvPAKDZmYwh7+Vn0OwxsPy4CQN
hhyZvjGDqWi281f+Bxhpg68tOyDswcZEyqpq48LWcYFylqxmD/77140=
-----END PRIVATE KEY-----
";
const ED25519: &str = "-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIKwUdFbyNbL/bsvsboFIYWO8Q6Z/dlvQ56wqM6v6WUKs
-----END PRIVATE KEY-----
";
/// The public key of [`ED25519`] (`openssl pkey -pubout`, its last 32 bytes).
const ED25519_X: &str = "geEK5ArhjVOYkghusq2rFEulEKeK9eJtQft5B2uEQSw";
const RSA: &str = "-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEAtAJysAL3l6uZqIDDiUHurTwWlD+F/iN4dP7ObLrASIOdtLHU
NrNXeCCwsec1QWPzmhLzF2PRZEVCLnGPI4vmaWwTIUqRm9XR5/Kq5A3DAkX4tNua
8PNidfp2dlPPJCqQre4dDmFw0q71ohIXn1ubInn45Oqgcjnw7E7z6HwjQnQbXE1H
oE68RHxELtYH/wnbo4P73RVXZINSC7rYqd37Xd+VRY7lrEsl/A+JjWkb1mJWEkSg
wiB5p+/I1oHBiaCBi3bBV+n3oVpgEuGJY3HZYk1t1q2LX3H72QWKxXjBeW3UNdmf
V1SIdqKUBh5soSpnaGorfTA4r6qM93v03w9NjQIDAQABAoIBACiAUoCiskWIYRLG
IfisgoCsv+HMJyBGp9AfEp/pJuFJ575jsn06Pch0Bn2IqXVUgVddwx80oMTARoM/
nrafQBDhNa6sYfWfltJqyaN1KzbEOpCqxoJHKJSl7WhzM+yNvS69IAF/0Aw/PFoi
WvlKea24ptUOq1n4CmqI2x0obSCCsRekqWK8ekTlbA8N5M5p4DX4ONZPIoKy65SG
vgV47GD7DtrwHZ5CnfUmloGCFDFB3LYPsXhDV0edlbJPO2UJYDgQ73/nRNk+Wcwo
0wvDUtYkuR2bx4qNCdJ3r7Nimx+PQgjWGT9/cCUtSErhpfFsxYCk3m9x65ctKQvT
/fQBhZsCgYEA7dZ+qyHr082Nw4Hi1zbuUnHXKdjN86LyPYuwEHOSnvhvsx45E7hu
eLw9qnvuJOJz74Y6PLWB0pWN/VkNbNe6mTVAK3EWo9qENcLLGmJA6fbKyMGaDKl7
g+DUciMN71hDJyhgzGea3VUA2Np1I4byx2ENl8INmkwz/HwKJUdjRZsCgYEAwcF2
61L6G16xKowEO6c0cnZSkkZAhIuyLt9vvJ6nV+JM00Q3VTSkMC7batVL0RdCqfHU
xSbCpn/oXXKfS9ywVcY3bSqU6v4nmPA78pnrjtt9PbL6dRzsEksZpZ+tc/xEeR+h
JxNxWQlsO6h9UkAhZ2yHGh5q/QXdSXLtoFXSP/cCgYEAxarzc7+phEree5LDuSKK
SDMdJEZwRQE0WzpxhfrH7R+FllSUE3PBPM8WYU7Gyhj7SiNA25vu3do2PE16/u78
wsCjKHfA3UWLhDL1ImRulwTp3JgrNELXyO9fIc1Ik5fDmBPS/49MAo/XOGO332MU
++gJqAs7yvVyb3GX7Qu70ekCgYATvXc1MIYExdf9Arjnrvhb9QwilP+7wVPNDLyg
lfVsscSr/ZY5mxxjQFLghoyr59fF4rqPv4wzVHLDGot6OijJBGHfQGhdrLkyDr+8
zsu+CUSwRYzY47J1hqs9QZB1ca00PfG4PnXc4WXiih8Cg0Aj/l2hXpn931wVQJ1P
KY87LwKBgQCazHF1KNN51eGMnpjXAVe/pPjUA5XfkUiOb5wrEbvCtu28xI6Yj2Jc
nbBZcJtzf+ascbbanIitLKbJGEdYfLz43jU9ZmZxerwFftrRmZNRRD2DkPCNIEEt
Zlu4wNmZwPZIdJQpfqV2cnd07d8lNj86T0YntvS/wWEsbSwuS85zXw==
-----END RSA PRIVATE KEY-----
";

const RESOURCE: &str = "https://mcp.example.com/mcp";
const TOKEN: &str = "an-access-token";
const SECRET: &[u8; 32] = b"nonce secret of 32 bytes .......";

/// A client key that signs proofs.
struct Signer {
    alg: Algorithm,
    key: EncodingKey,
    jwk: Value,
}

impl Signer {
    fn new(alg: Algorithm, pem: &str) -> Self {
        let key = match alg {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem.as_bytes()),
            Algorithm::EdDSA => EncodingKey::from_ed_pem(pem.as_bytes()),
            _ => EncodingKey::from_rsa_pem(pem.as_bytes()),
        }
        .expect("a test key");
        let jwk = if alg == Algorithm::EdDSA {
            json!({"kty": "OKP", "crv": "Ed25519", "x": ED25519_X})
        } else {
            let jwk = jsonwebtoken::jwk::Jwk::from_encoding_key(&key, alg).expect("a public JWK");
            serde_json::to_value(jwk).expect("a JWK serializes")
        };
        Self { alg, key, jwk }
    }

    fn es256() -> Self {
        Self::new(Algorithm::ES256, P256)
    }

    /// The thumbprint by jsonwebtoken's own implementation (EC and RSA), or by RFC 8037's
    /// members for Ed25519: an independent check of ours.
    fn jkt(&self) -> String {
        if self.alg == Algorithm::EdDSA {
            let canonical = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{ED25519_X}"}}"#);
            return URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()));
        }
        let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(self.jwk.clone()).unwrap();
        jwk.thumbprint(jsonwebtoken::jwk::ThumbprintHash::SHA256)
    }

    /// A proof with this header and these claims, each merged over a good proof's.
    fn proof_with(&self, header: Value, claims: Value) -> String {
        let mut h = json!({"typ": "dpop+jwt", "alg": self.alg, "jwk": self.jwk});
        merge(&mut h, header);
        let mut c = json!({"jti": uuid::Uuid::new_v4().to_string(), "htm": "POST",
            "htu": RESOURCE, "iat": unix_now().as_secs(), "ath": proof::access_token_hash(TOKEN)});
        merge(&mut c, claims);
        let b64 = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());
        let message = format!("{}.{}", b64(&h), b64(&c));
        let signature = jsonwebtoken::crypto::sign(message.as_bytes(), &self.key, self.alg)
            .expect("signing works");
        format!("{message}.{signature}")
    }

    fn proof(&self) -> String {
        self.proof_with(json!({}), json!({}))
    }
}

/// Sets (or, for `null`, removes) each member of `extra` in `target`.
fn merge(target: &mut Value, extra: Value) {
    let (Some(target), Value::Object(extra)) = (target.as_object_mut(), extra) else {
        return;
    };
    for (k, v) in extra {
        if v.is_null() {
            target.remove(&k);
        } else {
            target.insert(k, v);
        }
    }
}

fn dpop(config: DpopConfig) -> Dpop {
    Dpop::new(&config, &reqwest::Url::parse(RESOURCE).unwrap()).expect("a valid configuration")
}

fn headers(proofs: &[&str]) -> HeaderMap {
    let mut h = HeaderMap::new();
    for p in proofs {
        h.append(DPOP, HeaderValue::from_str(p).unwrap());
    }
    h
}

/// Checks `proof` as a POST to `/mcp`: `"ok"` or the refusal's code and description.
fn check(d: &Dpop, proof: &str) -> String {
    check_at(d, &Method::POST, "/mcp", None, &headers(&[proof]))
}

fn check_at(d: &Dpop, method: &Method, path: &str, nested: Option<&str>, h: &HeaderMap) -> String {
    let uri: Uri = path.parse().unwrap();
    match d.check_proof(method, &uri, nested, h, TOKEN) {
        Ok(_) => "ok".into(),
        Err(e) => format!("{}: {e}", e.code()),
    }
}

#[test]
fn good_proofs_of_every_key_type_are_accepted_with_their_thumbprint() {
    let d = dpop(DpopConfig::new());
    for signer in [
        Signer::es256(),
        Signer::new(Algorithm::ES384, P384),
        Signer::new(Algorithm::EdDSA, ED25519),
        Signer::new(Algorithm::RS256, RSA),
        Signer::new(Algorithm::PS256, RSA),
        Signer::new(Algorithm::RS512, RSA),
    ] {
        let uri: Uri = "/mcp".parse().unwrap();
        let checked = d
            .check_proof(
                &Method::POST,
                &uri,
                None,
                &headers(&[&signer.proof()]),
                TOKEN,
            )
            .unwrap_or_else(|e| panic!("{:?}: {e}", signer.alg));
        assert_eq!(checked.jkt, signer.jkt(), "{:?}", signer.alg);
        assert!(!checked.renew_nonce);
    }
    // `typ` case-insensitively, with or without `application/`; a query or fragment in
    // `htu` ignored; a fractional `iat`; private header members of any type ignored.
    let s = Signer::es256();
    for (header, claims) in [
        (json!({"typ": "DPoP+JWT"}), json!({})),
        (json!({"typ": "application/dpop+jwt"}), json!({})),
        (json!({}), json!({"htu": format!("{RESOURCE}?a=1#frag")})),
        (json!({}), json!({"htu": "HTTPS://MCP.Example.com:443/mcp"})),
        (json!({}), json!({"iat": unix_now().as_secs_f64() - 0.5})),
        (
            json!({"x-extra": {"nested": [1, null]}, "kid": 7}),
            json!({"extra": true}),
        ),
    ] {
        assert_eq!(
            check(&d, &s.proof_with(header.clone(), claims.clone())),
            "ok",
            "{header} {claims}"
        );
    }
}

#[test]
fn each_check_refuses_with_its_own_description() {
    let d = dpop(DpopConfig::new().algorithms(["ES256", "RS256"]));
    let s = Signer::es256();
    let now = unix_now().as_secs();
    let b64 = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());
    let good = s.proof();
    let (head, rest) = good.split_once('.').unwrap();
    let (payload, signature) = rest.split_once('.').unwrap();
    let mut private = s.jwk.clone();
    private["d"] = json!("KiKSONFmUyy0G_IDZdlWe-98_BGUyliBxi_PDKWOjHs");
    let other = Signer::new(Algorithm::ES256, P256_OTHER);
    let forged_claims = b64(
        &json!({"jti": "x", "htm": "POST", "htu": RESOURCE, "iat": now,
        "ath": proof::access_token_hash(TOKEN)}),
    );
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "no typ",
            s.proof_with(json!({"typ": null}), json!({})),
            "invalid_dpop_proof: Invalid DPoP proof: typ is not dpop+jwt",
        ),
        (
            "typ JWT",
            s.proof_with(json!({"typ": "JWT"}), json!({})),
            "invalid_dpop_proof: Invalid DPoP proof: typ is not dpop+jwt",
        ),
        (
            "alg none",
            format!(
                "{}.{payload}.",
                b64(&json!({"typ": "dpop+jwt", "alg": "none", "jwk": s.jwk}))
            ),
            "invalid_dpop_proof: Invalid DPoP proof: unsupported algorithm",
        ),
        (
            "HS256",
            s.proof_with(json!({"alg": "HS256"}), json!({})),
            "invalid_dpop_proof: Invalid DPoP proof: unsupported algorithm",
        ),
        (
            "an algorithm not configured",
            Signer::new(Algorithm::ES384, P384).proof(),
            "invalid_dpop_proof: Invalid DPoP proof: unsupported algorithm",
        ),
        (
            "crit",
            s.proof_with(json!({"crit": ["exp"]}), json!({})),
            "invalid_dpop_proof: Invalid DPoP proof: unsupported critical header parameter",
        ),
        (
            "no jwk",
            s.proof_with(json!({"jwk": null}), json!({})),
            "invalid_dpop_proof: Invalid DPoP proof: no jwk",
        ),
        (
            "a jwk string",
            s.proof_with(json!({"jwk": "key"}), json!({})),
            "invalid_dpop_proof: Invalid DPoP proof: no jwk",
        ),
        (
            "a private jwk",
            s.proof_with(json!({"jwk": private}), json!({})),
            "invalid_dpop_proof: Invalid DPoP proof: the jwk holds a private key",
        ),
        (
            "an RSA alg over an EC key",
            s.proof_with(json!({"alg": "RS256"}), json!({})),
            "invalid_dpop_proof: Invalid DPoP proof: unusable jwk",
        ),
        (
            "another key's jwk",
            s.proof_with(json!({"jwk": other.jwk}), json!({})),
            "invalid_dpop_proof: Invalid DPoP proof signature",
        ),
        (
            "claims swapped after signing",
            format!("{head}.{forged_claims}.{signature}"),
            "invalid_dpop_proof: Invalid DPoP proof signature",
        ),
        (
            "no signature",
            format!("{head}.{payload}."),
            "invalid_dpop_proof: Invalid DPoP proof signature",
        ),
        (
            "two segments",
            format!("{head}.{payload}"),
            "invalid_dpop_proof: Invalid DPoP proof",
        ),
        (
            "four segments",
            format!("{good}.x"),
            "invalid_dpop_proof: Invalid DPoP proof",
        ),
        (
            "a header that is no object",
            format!("{}.{payload}.{signature}", b64(&json!(["dpop+jwt"]))),
            "invalid_dpop_proof: Invalid DPoP proof",
        ),
        (
            "a header nesting deep",
            format!(
                "{}.{payload}.{signature}",
                URL_SAFE_NO_PAD.encode("[".repeat(5000))
            ),
            "invalid_dpop_proof: Invalid DPoP proof",
        ),
        (
            "no jti",
            s.proof_with(json!({}), json!({"jti": null})),
            "invalid_dpop_proof: Invalid DPoP proof: missing or invalid jti",
        ),
        (
            "an empty jti",
            s.proof_with(json!({}), json!({"jti": ""})),
            "invalid_dpop_proof: Invalid DPoP proof: missing or invalid jti",
        ),
        (
            "a numeric jti",
            s.proof_with(json!({}), json!({"jti": 7})),
            "invalid_dpop_proof: Invalid DPoP proof: missing or invalid jti",
        ),
        (
            "a 257-byte jti",
            s.proof_with(json!({}), json!({"jti": "j".repeat(257)})),
            "invalid_dpop_proof: Invalid DPoP proof: missing or invalid jti",
        ),
        (
            "htm GET",
            s.proof_with(json!({}), json!({"htm": "GET"})),
            "invalid_dpop_proof: DPoP proof is for another HTTP method",
        ),
        (
            "htm post",
            s.proof_with(json!({}), json!({"htm": "post"})),
            "invalid_dpop_proof: DPoP proof is for another HTTP method",
        ),
        (
            "no htm",
            s.proof_with(json!({}), json!({"htm": null})),
            "invalid_dpop_proof: DPoP proof is for another HTTP method",
        ),
        (
            "htu of another path",
            s.proof_with(json!({}), json!({"htu": "https://mcp.example.com/other"})),
            "invalid_dpop_proof: DPoP proof is for another URL",
        ),
        (
            "htu of another host",
            s.proof_with(json!({}), json!({"htu": "https://evil.example.com/mcp"})),
            "invalid_dpop_proof: DPoP proof is for another URL",
        ),
        (
            "htu over http",
            s.proof_with(json!({}), json!({"htu": "http://mcp.example.com/mcp"})),
            "invalid_dpop_proof: DPoP proof is for another URL",
        ),
        (
            "htu on another port",
            s.proof_with(
                json!({}),
                json!({"htu": "https://mcp.example.com:8443/mcp"}),
            ),
            "invalid_dpop_proof: DPoP proof is for another URL",
        ),
        (
            "htu with a trailing slash",
            s.proof_with(json!({}), json!({"htu": format!("{RESOURCE}/")})),
            "invalid_dpop_proof: DPoP proof is for another URL",
        ),
        (
            "a relative htu",
            s.proof_with(json!({}), json!({"htu": "/mcp"})),
            "invalid_dpop_proof: DPoP proof is for another URL",
        ),
        (
            "no htu",
            s.proof_with(json!({}), json!({"htu": null})),
            "invalid_dpop_proof: DPoP proof is for another URL",
        ),
        (
            "iat 61 s old",
            s.proof_with(json!({}), json!({"iat": now - 61})),
            "invalid_dpop_proof: DPoP proof is too old",
        ),
        (
            "iat 10 s ahead",
            s.proof_with(json!({}), json!({"iat": now + 10})),
            "invalid_dpop_proof: DPoP proof is issued in the future",
        ),
        (
            "no iat",
            s.proof_with(json!({}), json!({"iat": null})),
            "invalid_dpop_proof: Invalid DPoP proof: missing or invalid iat",
        ),
        (
            "a string iat",
            s.proof_with(json!({}), json!({"iat": now.to_string()})),
            "invalid_dpop_proof: Invalid DPoP proof: missing or invalid iat",
        ),
        (
            "no ath",
            s.proof_with(json!({}), json!({"ath": null})),
            "invalid_dpop_proof: Invalid DPoP proof: missing ath",
        ),
        (
            "ath of another token",
            s.proof_with(json!({}), json!({"ath": proof::access_token_hash("other")})),
            "invalid_dpop_proof: DPoP proof is for another access token",
        ),
        (
            "ath unencoded",
            s.proof_with(json!({}), json!({"ath": TOKEN})),
            "invalid_dpop_proof: DPoP proof is for another access token",
        ),
        (
            "a numeric nonce",
            s.proof_with(json!({}), json!({"nonce": 7})),
            "invalid_dpop_proof: Invalid DPoP proof: invalid nonce",
        ),
        (
            "a 9 KiB proof",
            format!("{good}{}", "A".repeat(9 << 10)),
            "invalid_dpop_proof: DPoP proof is too large",
        ),
    ];
    for (name, proof, expected) in cases {
        assert_eq!(check(&d, &proof), expected, "{name}");
    }
    // The iat window's edges.
    assert_eq!(
        check(&d, &s.proof_with(json!({}), json!({"iat": now - 55}))),
        "ok"
    );
    assert_eq!(
        check(&d, &s.proof_with(json!({}), json!({"iat": now + 3}))),
        "ok"
    );
    // Headers: none, two, unreadable.
    let post = Method::POST;
    assert_eq!(
        check_at(&d, &post, "/mcp", None, &HeaderMap::new()),
        "invalid_dpop_proof: Missing DPoP proof"
    );
    assert_eq!(
        check_at(&d, &post, "/mcp", None, &headers(&[&good, &good])),
        "invalid_dpop_proof: More than one DPoP proof"
    );
    let mut latin1 = HeaderMap::new();
    latin1.insert(DPOP, HeaderValue::from_bytes(b"a\xe9").unwrap());
    assert_eq!(
        check_at(&d, &post, "/mcp", None, &latin1),
        "invalid_dpop_proof: Invalid DPoP proof"
    );
    // The method and path of the request.
    assert_eq!(
        check_at(&d, &Method::GET, "/mcp", None, &headers(&[&good])),
        "invalid_dpop_proof: DPoP proof is for another HTTP method"
    );
    assert_eq!(
        check_at(&d, &post, "/other", None, &headers(&[&good])),
        "invalid_dpop_proof: DPoP proof is for another URL"
    );
}

#[test]
fn htu_is_the_resource_origin_and_the_path_the_client_sent() {
    let d = dpop(DpopConfig::new());
    let s = Signer::es256();
    let at = |htu: &str| headers(&[&s.proof_with(json!({}), json!({"htu": htu}))]);
    let post = Method::POST;
    // Mounted with route_service: the path is the request's.
    assert_eq!(check_at(&d, &post, "/mcp?x=1", None, &at(RESOURCE)), "ok");
    // Under nest_service("/mcp"), axum strips the prefix (`/mcp` and `/mcp/` both become
    // `/`); under nest("/api") + nest_service("/mcp"), NestedPath is `/api/mcp`.
    assert_eq!(check_at(&d, &post, "/", Some("/mcp"), &at(RESOURCE)), "ok");
    assert_eq!(
        check_at(&d, &post, "/", Some("/mcp"), &at(&format!("{RESOURCE}/"))),
        "ok"
    );
    assert_eq!(
        check_at(
            &d,
            &post,
            "/",
            Some("/api/mcp"),
            &at("https://mcp.example.com/api/mcp")
        ),
        "ok"
    );
    assert_eq!(
        check_at(&d, &post, "/", Some("/api/mcp"), &at(RESOURCE)),
        "invalid_dpop_proof: DPoP proof is for another URL"
    );
    assert_eq!(
        check_at(
            &d,
            &post,
            "/sub",
            Some("/mcp/"),
            &at("https://mcp.example.com/mcp/sub")
        ),
        "ok"
    );
    // The resource's origin, whatever the Host the request arrived with.
    let behind_proxy = Dpop::new(
        &DpopConfig::new(),
        &reqwest::Url::parse("https://public.example.com:8443/").unwrap(),
    )
    .unwrap();
    let proof = headers(&[&s.proof_with(
        json!({}),
        json!({"htu": "https://public.example.com:8443/mcp"}),
    )]);
    assert_eq!(check_at(&behind_proxy, &post, "/mcp", None, &proof), "ok");
}

#[test]
fn nonces_are_required_when_configured() {
    let d = dpop(DpopConfig::new().nonce(SECRET));
    let s = Signer::es256();
    assert_eq!(
        check(&d, &s.proof()),
        "use_dpop_nonce: Resource server requires nonce in DPoP proof"
    );
    let nonce = d.current_nonce().expect("nonces are on");
    let nonce = nonce.to_str().unwrap();
    assert_eq!(
        check(&d, &s.proof_with(json!({}), json!({"nonce": nonce}))),
        "ok"
    );
    // Another secret's nonce, garbage, the nonce of an earlier slot.
    let other = dpop(DpopConfig::new().nonce([9u8; 32]));
    let theirs = other.current_nonce().unwrap();
    for bad in [
        theirs.to_str().unwrap(),
        "AAAAAAAAAAAAAAAAAAAAAAAA",
        "",
        "\u{e9}",
    ] {
        assert_eq!(
            check(&d, &s.proof_with(json!({}), json!({"nonce": bad}))),
            "use_dpop_nonce: DPoP nonce is invalid or expired",
            "{bad:?}"
        );
    }
    let nonces = nonce::Nonces::new(SECRET, 300);
    let now = unix_now().as_secs();
    let previous = nonces.current(now - 300);
    let uri: Uri = "/mcp".parse().unwrap();
    let proof = s.proof_with(json!({}), json!({"nonce": previous}));
    let checked = d
        .check_proof(&Method::POST, &uri, None, &headers(&[&proof]), TOKEN)
        .expect("the previous slot's nonce is accepted");
    assert!(checked.renew_nonce, "and renewed");
    let stale = s.proof_with(json!({}), json!({"nonce": nonces.current(now - 600)}));
    assert_eq!(
        check(&d, &stale),
        "use_dpop_nonce: DPoP nonce is invalid or expired"
    );
}

fn claims(jkt: Option<Value>) -> Map<String, Value> {
    let mut c = json!({"sub": "alice"});
    if let Some(jkt) = jkt {
        c["cnf"] = json!({"jkt": jkt});
    }
    c.as_object().cloned().unwrap()
}

fn checked(d: &Dpop, proof: &str) -> Checked {
    let uri: Uri = "/mcp".parse().unwrap();
    d.check_proof(&Method::POST, &uri, None, &headers(&[proof]), TOKEN)
        .expect("a good proof")
}

async fn bind(d: &Dpop, proof: &Checked, claims: &Map<String, Value>) -> String {
    match d.bind(proof, claims).await {
        Ok(()) => "ok".into(),
        Err(e) => format!("{}: {e}", e.code()),
    }
}

#[tokio::test]
async fn the_token_must_be_bound_to_the_proof_key_and_each_proof_is_used_once() {
    let store = MemoryReplayStore::new(10);
    let d = dpop(DpopConfig::new().replay_store(store.clone()));
    let s = Signer::es256();
    let bound = claims(Some(json!(s.jkt())));
    let proof = s.proof();
    let first = checked(&d, &proof);
    assert_eq!(
        bind(&d, &first, &claims(None)).await,
        "invalid_token: Token is not bound to a DPoP key"
    );
    let other = Signer::new(Algorithm::ES256, P256_OTHER);
    assert_eq!(
        bind(&d, &first, &claims(Some(json!(other.jkt())))).await,
        "invalid_token: Invalid DPoP key binding"
    );
    assert_eq!(
        bind(&d, &first, &claims(Some(json!(7)))).await,
        "invalid_token: Invalid token: malformed cnf.jkt"
    );
    assert!(store.is_empty(), "refused proofs are not recorded");
    assert_eq!(bind(&d, &first, &bound).await, "ok");
    // The same proof again, and the same jti in a new proof of the same key.
    let again = checked(&d, &proof);
    assert_eq!(
        bind(&d, &again, &bound).await,
        "invalid_dpop_proof: DPoP proof has already been used"
    );
    let jti = serde_json::from_slice::<Value>(
        &URL_SAFE_NO_PAD
            .decode(proof.split('.').nth(1).unwrap())
            .unwrap(),
    )
    .unwrap()["jti"]
        .clone();
    let same_jti = checked(&d, &s.proof_with(json!({}), json!({"jti": jti})));
    assert_eq!(
        bind(&d, &same_jti, &bound).await,
        "invalid_dpop_proof: DPoP proof has already been used"
    );
    // Another key may use the same jti (its proofs are its own).
    let theirs = checked(&d, &other.proof_with(json!({}), json!({"jti": jti})));
    assert_eq!(
        bind(&d, &theirs, &claims(Some(json!(other.jkt())))).await,
        "ok"
    );
    assert_eq!(store.len(), 2);
}

/// A replay store that always fails, counting its calls.
struct Broken(Arc<AtomicUsize>);

impl DpopReplayStore for Broken {
    fn first_use<'a>(
        &'a self,
        _id: &'a str,
        _until: SystemTime,
    ) -> crate::BoxFuture<'a, Result<bool, crate::BoxError>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Err("connection refused".into()) })
    }
}

#[tokio::test]
async fn a_failing_replay_store_fails_closed() {
    let calls = Arc::new(AtomicUsize::new(0));
    let d = dpop(DpopConfig::new().replay_store(Broken(calls.clone())));
    let s = Signer::es256();
    let proof = checked(&d, &s.proof());
    assert_eq!(
        bind(&d, &proof, &claims(Some(json!(s.jkt())))).await,
        "temporarily_unavailable: The DPoP replay cache is unavailable"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn configurations_are_checked_when_the_server_is_built() {
    let err = |c: DpopConfig| match Dpop::new(&c, &reqwest::Url::parse(RESOURCE).unwrap()) {
        Ok(_) => "accepted".to_owned(),
        Err(e) => e.to_string(),
    };
    assert!(
        err(DpopConfig::new().algorithms(["HS256"]))
            .contains("unsupported proof algorithm `HS256`")
    );
    assert!(
        err(DpopConfig::new().algorithms(["none"])).contains("unsupported proof algorithm `none`")
    );
    assert!(
        err(DpopConfig::new().algorithms(["es256"]))
            .contains("unsupported proof algorithm `es256`")
    );
    assert!(
        err(DpopConfig::new().algorithms(["ES512"]))
            .contains("unsupported proof algorithm `ES512`")
    );
    assert!(
        err(DpopConfig::new().algorithms(Vec::<String>::new()))
            .contains("at least one proof algorithm")
    );
    assert!(err(DpopConfig::new().nonce([1u8; 31])).contains("the nonce secret is 31 bytes"));
    assert!(
        err(DpopConfig::new()
            .nonce(SECRET)
            .nonce_lifetime(Duration::from_millis(10)))
        .contains("at least one second")
    );
    assert!(err(DpopConfig::new().iat_window(Duration::ZERO, Duration::ZERO)).contains("max_age"));
    let d = dpop(DpopConfig::new().algorithms(["EdDSA", "ES256", "EdDSA"]));
    assert_eq!(d.algs(), "EdDSA ES256");
    assert_eq!(
        dpop(DpopConfig::new()).algs(),
        "ES256 ES384 EdDSA PS256 PS384 PS512 RS256 RS384 RS512"
    );
}

#[test]
fn debug_hides_the_nonce_secret() {
    let shown = format!("{:?}", DpopConfig::new().nonce(SECRET).require());
    assert!(shown.contains("nonce_secret: Some(<redacted>)"), "{shown}");
    assert!(!shown.contains("nonce secret of 32 bytes"), "{shown}");
    assert!(!shown.contains("110"), "{shown}");
}
