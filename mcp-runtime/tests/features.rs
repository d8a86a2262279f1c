//! Resources, resource templates, prompts and completion of a basic service, on both eras:
//! listing, reading (static first, then templates in declaration order, values
//! percent-decoded), prompt arguments, completion truncation, capabilities, and the errors
//! the TypeScript server sends for unknown URIs, prompts and references.

use std::collections::BTreeMap;

use mcp::testing::TestClient;
use mcp::{Completion, GetPromptResult, PromptMessage, ResourceContents, Role, ServerError};
use serde_json::{Value, json};

struct Docs;

#[mcp::service(name = "docs", version = "1.0.0")]
impl Docs {
    /// The application configuration.
    #[resource(uri = "config://app", mime_type = "application/json", title = "App config", size = 2,
               annotations(audience = ["user", "assistant"], priority = 0.5))]
    fn config(&self) -> String {
        "{}".into()
    }

    /// The logo.
    #[resource(uri = "image://logo", mime_type = "image/png")]
    fn logo(&self) -> Vec<u8> {
        vec![0x89, b'P', b'N', b'G']
    }

    /// Two parts.
    #[resource(uri = "multi://both")]
    async fn both(&self) -> Vec<ResourceContents> {
        vec![
            ResourceContents::text("multi://both#a", "a").with_mime_type("text/plain"),
            ResourceContents::text("multi://both#b", "b").with_mime_type("text/markdown"),
        ]
    }

    /// A file.
    #[resource(template = "file:///{dir}/{name}", mime_type = "text/plain")]
    fn file(
        &self,
        dir: String,
        name: String,
        _meta: Option<mcp::RequestMeta>,
    ) -> Result<String, ServerError> {
        if dir == "missing" {
            return Err(ServerError::resource_not_found(&format!(
                "file:///{dir}/{name}"
            )));
        }
        Ok(format!("{dir}|{name}"))
    }

    /// Anything under a path (declared after `file`: read second).
    #[resource(template = "file:///{+path}")]
    fn deep(&self, path: String) -> String {
        format!("deep:{path}")
    }

    /// A page that may not exist.
    #[resource(template = "maybe://{name}")]
    fn maybe(&self, name: String) -> Option<String> {
        (name == "here").then(|| "found".to_owned())
    }

    /// A numbered item.
    #[resource(template = "item://{id}")]
    fn item(&self, id: u32) -> String {
        format!("item {}", id + 1)
    }

    /// Fails with an I/O error.
    #[resource(uri = "broken://io")]
    fn broken(&self) -> Result<String, std::io::Error> {
        Err(std::io::Error::other("disk on fire at /secret/path"))
    }

    /// A code review.
    ///
    /// # Arguments
    /// * `language` - The language of the code.
    /// * `style` - How terse to be.
    #[prompt(title = "Review")]
    fn review(&self, language: String, style: Option<String>) -> String {
        format!(
            "Review this {language} code ({})",
            style.unwrap_or_else(|| "any".into())
        )
    }

    /// Greets.
    #[prompt(name = "hello")]
    async fn greet(&self) -> Vec<PromptMessage> {
        vec![PromptMessage::user("hi"), PromptMessage::assistant("hello")]
    }

    /// A full result.
    #[prompt]
    fn full(&self) -> GetPromptResult {
        GetPromptResult::new(vec![PromptMessage::user("x")]).with_description("full")
    }

    #[complete(prompt = "review", argument = "language")]
    fn languages(&self, value: String, context: BTreeMap<String, String>) -> Vec<String> {
        let mut out: Vec<String> = ["rust", "ruby", "python"]
            .into_iter()
            .filter(|l| l.starts_with(&value))
            .map(str::to_owned)
            .collect();
        if let Some(style) = context.get("style") {
            out.push(format!("style={style}"));
        }
        out
    }

    #[complete(template = "file:///{dir}/{name}", argument = "dir")]
    fn dirs(&self, value: String) -> Completion {
        Completion::new((0..150).map(|i| format!("{value}{i}")).collect())
    }

    /// A plain tool next to them.
    pub fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

fn client() -> TestClient {
    TestClient::new(mcp::Server::builder(Docs).build().expect("valid"))
}

#[tokio::test]
async fn capabilities_name_what_the_service_has() {
    let c = client();
    let init = c.legacy("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})).await;
    let caps = &init.result()["capabilities"];
    assert_eq!(caps["resources"], json!({"listChanged": false}));
    assert_eq!(caps["prompts"], json!({"listChanged": false}));
    assert_eq!(caps["completions"], json!({}));
    assert!(caps["tools"].is_object());
    let discover = c.modern("server/discover", json!({})).await;
    assert_eq!(&discover.result()["capabilities"], caps);

    // A tools-only service advertises none of them (logging, which every service can send,
    // aside), and answers -32601 (404 on modern).
    struct Tools;
    #[mcp::service(name = "tools", version = "1.0.0")]
    impl Tools {
        pub fn ping(&self) {}
    }
    let t = TestClient::new(mcp::Server::builder(Tools).build().expect("valid"));
    let init = t.legacy("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})).await;
    let caps = init.result()["capabilities"].as_object().unwrap().clone();
    assert_eq!(caps.keys().collect::<Vec<_>>(), ["logging", "tools"]);
    for method in [
        "resources/list",
        "resources/read",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "resources/templates/list",
    ] {
        let legacy = t.legacy(method, json!({})).await;
        assert_eq!(
            (legacy.status.as_u16(), legacy.error_code()),
            (200, Some(-32601)),
            "{method}"
        );
        let modern = t.modern(method, json!({})).await;
        assert_eq!(
            (modern.status.as_u16(), modern.error_code()),
            (404, Some(-32601)),
            "{method}"
        );
    }
}

#[tokio::test]
async fn lists_on_both_eras() {
    let c = client();
    let legacy = c.legacy("resources/list", json!({})).await;
    assert_eq!(
        legacy.result(),
        &json!({"resources": [
            {"uri": "config://app", "name": "config", "title": "App config", "description": "The application configuration.",
             "mimeType": "application/json", "size": 2, "annotations": {"audience": ["user", "assistant"], "priority": 0.5}},
            {"uri": "image://logo", "name": "logo", "description": "The logo.", "mimeType": "image/png"},
            {"uri": "multi://both", "name": "both", "description": "Two parts."},
            {"uri": "broken://io", "name": "broken", "description": "Fails with an I/O error."}
        ]})
    );
    let modern = c.modern("resources/list", json!({})).await;
    let r = modern.result();
    assert_eq!(r["resources"], legacy.result()["resources"]);
    assert_eq!(
        (
            r["ttlMs"].clone(),
            r["cacheScope"].clone(),
            r["resultType"].clone()
        ),
        (json!(0), json!("private"), json!("complete"))
    );
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "docs"
    );

    let templates = c.legacy("resources/templates/list", json!({})).await;
    let names: Vec<_> = templates.result()["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].clone())
        .collect();
    assert_eq!(
        names,
        [
            json!("file:///{dir}/{name}"),
            json!("file:///{+path}"),
            json!("maybe://{name}"),
            json!("item://{id}")
        ]
    );
    assert!(
        c.modern("resources/templates/list", json!({}))
            .await
            .result()["ttlMs"]
            .is_number()
    );

    let prompts = c.legacy("prompts/list", json!({})).await;
    assert_eq!(
        prompts.result()["prompts"][0],
        json!({"name": "review", "title": "Review", "description": "A code review.", "arguments": [
            {"name": "language", "description": "The language of the code.", "required": true},
            {"name": "style", "description": "How terse to be.", "required": false}
        ]})
    );
    assert_eq!(
        prompts.result()["prompts"][1],
        json!({"name": "hello", "description": "Greets."})
    );
    assert!(c.modern("prompts/list", json!({})).await.result()["cacheScope"].is_string());

    let bad = c.legacy("resources/list", json!({"cursor": "x"})).await;
    assert_eq!(bad.error_code(), Some(-32602));
}

#[tokio::test]
async fn reads_static_resources_then_templates_in_order() {
    let c = client();
    let text = c
        .legacy("resources/read", json!({"uri": "config://app"}))
        .await;
    assert_eq!(
        text.result(),
        &json!({"contents": [{"uri": "config://app", "mimeType": "application/json", "text": "{}"}]})
    );
    let blob = c
        .modern("resources/read", json!({"uri": "image://logo"}))
        .await;
    assert_eq!(
        blob.result()["contents"],
        json!([{"uri": "image://logo", "mimeType": "image/png", "blob": "iVBORw=="}])
    );
    assert_eq!(blob.result()["ttlMs"], 0);
    let both = c
        .legacy("resources/read", json!({"uri": "multi://both"}))
        .await;
    assert_eq!(both.result()["contents"][1]["mimeType"], "text/markdown");

    let file = c
        .legacy(
            "resources/read",
            json!({"uri": "file:///notes/caf%C3%A9%20menu"}),
        )
        .await;
    assert_eq!(
        file.result()["contents"][0],
        json!({"uri": "file:///notes/caf%C3%A9%20menu", "mimeType": "text/plain", "text": "notes|café menu"})
    );
    let deep = c
        .modern("resources/read", json!({"uri": "file:///a/b/c"}))
        .await;
    assert_eq!(deep.result()["contents"][0]["text"], "deep:a/b/c");
    let item = c
        .legacy("resources/read", json!({"uri": "item://41"}))
        .await;
    assert_eq!(item.result()["contents"][0]["text"], "item 42");
}

#[tokio::test]
async fn read_errors_are_the_peers() {
    let c = client();
    for modern in [false, true] {
        let r = if modern {
            c.modern("resources/read", json!({"uri": "test://nope"}))
                .await
        } else {
            c.legacy("resources/read", json!({"uri": "test://nope"}))
                .await
        };
        assert_eq!(r.status.as_u16(), 200);
        assert_eq!(
            r.body["error"],
            json!({"code": -32602, "message": "Resource not found: test://nope", "data": {"uri": "test://nope"}})
        );
    }
    // A handler's own not-found, a bad template value, an I/O failure (never leaked).
    let missing = c
        .legacy("resources/read", json!({"uri": "file:///missing/x"}))
        .await;
    assert_eq!(
        missing.body["error"]["data"],
        json!({"uri": "file:///missing/x"})
    );
    let bad = c
        .legacy("resources/read", json!({"uri": "item://abc"}))
        .await;
    assert_eq!(bad.error_code(), Some(-32602));
    assert!(bad.raw.contains("`id`"), "{}", bad.raw);
    for hostile in [
        "file:///notes/..",
        "file:///notes/a%2Fb",
        "file:///notes/a%00b",
        "file:///a/../etc/passwd",
    ] {
        let r = c.legacy("resources/read", json!({"uri": hostile})).await;
        assert_eq!(r.body["error"]["code"], -32602, "{hostile}: {}", r.raw);
        assert_eq!(
            r.body["error"]["data"]["reason"], "invalid_uri",
            "{hostile}"
        );
    }
    let io = c
        .legacy("resources/read", json!({"uri": "broken://io"}))
        .await;
    assert_eq!(
        io.body["error"],
        json!({"code": -32603, "message": "Internal error"})
    );
    let no_uri = c.legacy("resources/read", json!({})).await;
    assert_eq!(no_uri.error_code(), Some(-32602));
}

#[tokio::test]
async fn prompts_bind_string_arguments() {
    let c = client();
    let r = c
        .legacy(
            "prompts/get",
            json!({"name": "review", "arguments": {"language": "rust"}}),
        )
        .await;
    assert_eq!(
        r.result(),
        &json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Review this rust code (any)"}}]})
    );
    let r = c.modern("prompts/get", json!({"name": "review", "arguments": {"language": "go", "style": "terse", "extra": "ignored"}})).await;
    assert_eq!(
        r.result()["messages"][0]["content"]["text"],
        "Review this go code (terse)"
    );
    assert_eq!(r.result()["resultType"], "complete");
    assert!(r.result().get("ttlMs").is_none());
    let hello = c.legacy("prompts/get", json!({"name": "hello"})).await;
    assert_eq!(
        hello.result()["messages"][1],
        json!({"role": "assistant", "content": {"type": "text", "text": "hello"}})
    );
    let full = c.legacy("prompts/get", json!({"name": "full"})).await;
    assert_eq!(full.result()["description"], "full");
    let _ = Role::User;

    let missing = c.legacy("prompts/get", json!({"name": "review"})).await;
    assert_eq!(missing.body["error"]["code"], -32602);
    assert_eq!(
        missing.body["error"]["message"],
        "Invalid arguments for prompt review: missing required argument `language`"
    );
    let unknown = c.modern("prompts/get", json!({"name": "nope"})).await;
    assert_eq!(
        (unknown.status.as_u16(), unknown.body["error"].clone()),
        (
            200,
            json!({"code": -32602, "message": "Prompt nope not found"})
        )
    );
    let typed = c
        .legacy(
            "prompts/get",
            json!({"name": "review", "arguments": {"language": 1}}),
        )
        .await;
    assert_eq!(typed.error_code(), Some(-32602));
}

#[tokio::test]
async fn completion_truncates_and_answers_unknown_references() {
    let c = client();
    let r = c.legacy("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "language", "value": "ru"}})).await;
    assert_eq!(
        r.result(),
        &json!({"completion": {"values": ["rust", "ruby"], "total": 2, "hasMore": false}})
    );
    let r = c.modern("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "language", "value": "p"}, "context": {"arguments": {"style": "short"}}})).await;
    assert_eq!(
        r.result()["completion"]["values"],
        json!(["python", "style=short"])
    );
    assert_eq!(r.result()["resultType"], "complete");
    assert!(r.result().get("ttlMs").is_none());
    let many = c.legacy("completion/complete", json!({"ref": {"type": "ref/resource", "uri": "file:///{dir}/{name}"}, "argument": {"name": "dir", "value": "d"}})).await;
    let completion = &many.result()["completion"];
    assert_eq!(completion["values"].as_array().unwrap().len(), 100);
    assert_eq!(
        (completion["total"].clone(), completion["hasMore"].clone()),
        (json!(150), json!(true))
    );
    // Known targets without a completer: empty.
    for (reference, argument) in [
        (json!({"type": "ref/prompt", "name": "review"}), "style"),
        (json!({"type": "ref/resource", "uri": "config://app"}), "x"),
    ] {
        let r = c
            .legacy(
                "completion/complete",
                json!({"ref": reference, "argument": {"name": argument, "value": ""}}),
            )
            .await;
        assert_eq!(
            r.result(),
            &json!({"completion": {"values": [], "hasMore": false}})
        );
    }
    let unknown = c.legacy("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}})).await;
    assert_eq!(
        unknown.body["error"],
        json!({"code": -32602, "message": "Prompt nope not found"})
    );
    let unknown = c.legacy("completion/complete", json!({"ref": {"type": "ref/resource", "uri": "x://{y}"}, "argument": {"name": "y", "value": ""}})).await;
    assert_eq!(
        unknown.body["error"],
        json!({"code": -32602, "message": "Resource template x://{y} not found"})
    );
    let bad_ref = c.legacy("completion/complete", json!({"ref": {"type": "ref/tool", "name": "add"}, "argument": {"name": "a", "value": ""}})).await;
    assert_eq!(bad_ref.error_code(), Some(-32602));
}

#[tokio::test]
async fn tools_are_unaffected() {
    let c = client();
    let list = c.legacy("tools/list", json!({})).await;
    let names: Vec<Value> = list.result()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(names, [json!("add")]);
    let r = c
        .legacy(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
        )
        .await;
    assert_eq!(r.result()["content"][0]["text"], "3");
}

/// An advanced service declaring subscriptions and prompts, defining only the prompt list.
struct Hooks;

impl mcp::AdvancedService for Hooks {
    fn info(&self) -> mcp::Implementation {
        mcp::Implementation::new("hooks", "1.0.0")
    }

    fn features(&self) -> mcp::Features {
        mcp::Features::none()
            .with_resource_subscriptions()
            .with_prompts()
    }

    async fn on_list_tools(
        &self,
        _cursor: Option<String>,
        _request: &mcp::RequestContext,
    ) -> Result<mcp::ListToolsResult, ServerError> {
        Ok(mcp::ListToolsResult::new(Vec::new()))
    }

    async fn on_call_tool(
        &self,
        params: mcp::CallToolParams,
        _request: &mcp::RequestContext,
    ) -> Result<mcp::CallToolResponse, ServerError> {
        Err(ServerError::invalid_params(format!(
            "Unknown tool: {}",
            params.name
        )))
    }

    async fn on_list_prompts(
        &self,
        _cursor: Option<String>,
        _request: &mcp::RequestContext,
    ) -> Result<mcp::ListPromptsResult, ServerError> {
        Ok(mcp::ListPromptsResult::new(vec![mcp::Prompt::new("p")])
            .with_cache_hint(5000, mcp::CacheScope::Public))
    }
}

fn legacy_in_session(
    c: &TestClient,
    session: &str,
    method: &str,
    params: Value,
) -> http::Request<axum::body::Body> {
    let _ = c;
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    http::Request::post(mcp::testing::PATH)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", session)
        .body(axum::body::Body::from(body.to_string()))
        .expect("a request")
}

#[tokio::test]
async fn advanced_hooks_and_subscriptions() {
    let server = mcp::Server::builder(Hooks).build().expect("valid");
    let store = server.session_store().cloned().expect("sessions");
    let c = TestClient::new(server);
    let init = c.legacy("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})).await;
    assert_eq!(
        init.result()["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": false})
    );
    assert_eq!(
        init.result()["capabilities"]["prompts"],
        json!({"listChanged": false})
    );
    assert!(init.result()["capabilities"].get("completions").is_none());
    let session = init.headers["mcp-session-id"]
        .to_str()
        .expect("a session id")
        .to_owned();

    // The declared hook answers, with its own cache hint on the modern era; the others are
    // -32601 (404 modern), resources included although the feature is declared.
    let listed = c.modern("prompts/list", json!({})).await;
    assert_eq!(
        (
            listed.result()["ttlMs"].clone(),
            listed.result()["cacheScope"].clone()
        ),
        (json!(5000), json!("public"))
    );
    assert_eq!(
        c.legacy("prompts/list", json!({})).await.result(),
        &json!({"prompts": [{"name": "p"}]})
    );
    let get = c.modern("prompts/get", json!({"name": "p"})).await;
    assert_eq!((get.status.as_u16(), get.error_code()), (404, Some(-32601)));
    let read = c.legacy("resources/read", json!({"uri": "x://y"})).await;
    assert_eq!(
        (read.status.as_u16(), read.error_code()),
        (200, Some(-32601))
    );

    // Subscriptions are recorded per session, once per URI, and removed.
    for uri in ["test://a", "test://b", "test://a"] {
        let r = c
            .send(legacy_in_session(
                &c,
                &session,
                "resources/subscribe",
                json!({"uri": uri}),
            ))
            .await;
        assert_eq!(r.result(), &json!({}));
    }
    let stored = store
        .get(&session, mcp::session::SUBSCRIPTIONS_KEY)
        .await
        .expect("the store answers");
    assert_eq!(stored, Some(json!(["test://a", "test://b"])));
    let r = c
        .send(legacy_in_session(
            &c,
            &session,
            "resources/unsubscribe",
            json!({"uri": "test://a"}),
        ))
        .await;
    assert_eq!(r.result(), &json!({}));
    let stored = store
        .get(&session, mcp::session::SUBSCRIPTIONS_KEY)
        .await
        .expect("the store answers");
    assert_eq!(stored, Some(json!(["test://b"])));
    // Stateless legacy: `{}` without effect. Modern: no such method.
    assert_eq!(
        c.legacy("resources/subscribe", json!({"uri": "test://c"}))
            .await
            .result(),
        &json!({})
    );
    let modern = c
        .modern("resources/subscribe", json!({"uri": "test://c"}))
        .await;
    assert_eq!(
        (modern.status.as_u16(), modern.error_code()),
        (404, Some(-32601))
    );
    // Limits: URI length, subscription count, params.
    let long = format!(
        "test://{}",
        "x".repeat(mcp::session::MAX_SUBSCRIPTION_URI_BYTES)
    );
    let r = c
        .send(legacy_in_session(
            &c,
            &session,
            "resources/subscribe",
            json!({"uri": long}),
        ))
        .await;
    assert_eq!(r.error_code(), Some(-32602));
    let r = c
        .send(legacy_in_session(
            &c,
            &session,
            "resources/subscribe",
            json!({}),
        ))
        .await;
    assert_eq!(r.error_code(), Some(-32602));
    for i in 1..mcp::session::MAX_SUBSCRIPTIONS {
        let r = c
            .send(legacy_in_session(
                &c,
                &session,
                "resources/subscribe",
                json!({"uri": format!("test://n{i}")}),
            ))
            .await;
        assert_eq!(r.result(), &json!({}), "subscription {i}");
    }
    let r = c
        .send(legacy_in_session(
            &c,
            &session,
            "resources/subscribe",
            json!({"uri": "test://one-too-many"}),
        ))
        .await;
    assert_eq!(r.error_code(), Some(-32602));
    assert!(r.raw.contains("at most 1000"), "{}", r.raw);
}

/// `#[mcp::service(advanced)]` with resource and completion hooks: the macro declares the
/// features the hooks define and binds their parameters by type.
struct Shelf;

#[mcp::service(name = "shelf", version = "2.0.0", instructions = "A shelf.", advanced)]
impl Shelf {
    pub fn on_list_tools(&self) -> mcp::ListToolsResult {
        mcp::ListToolsResult::default()
    }

    pub fn on_call_tool(
        &self,
        params: mcp::CallToolParams,
    ) -> Result<mcp::CallToolResult, ServerError> {
        Err(ServerError::invalid_params(format!(
            "Unknown tool: {}",
            params.name
        )))
    }

    pub fn on_list_resources(&self) -> mcp::ListResourcesResult {
        mcp::ListResourcesResult::new(vec![mcp::Resource::new("shelf://book", "book")])
    }

    pub async fn on_read_resource(
        &self,
        params: mcp::ReadResourceParams,
        #[http_header("X-Reader")] reader: Option<String>,
    ) -> Result<mcp::ReadResourceResult, ServerError> {
        if params.uri != "shelf://book" {
            return Err(ServerError::resource_not_found(&params.uri));
        }
        let text = format!("read by {}", reader.as_deref().unwrap_or("nobody"));
        Ok(mcp::ReadResourceResult::new(vec![ResourceContents::text(
            params.uri, text,
        )]))
    }

    pub fn on_complete(&self, params: mcp::CompleteParams) -> mcp::CompleteResult {
        mcp::CompleteResult::new(Completion::new(vec![format!("{}s", params.argument.value)]))
    }
}

#[tokio::test]
async fn macro_advanced_services_serve_their_hooks() {
    let server = mcp::Server::builder(Shelf).build().expect("valid");
    assert_eq!(
        (server.info().name.as_str(), server.info().version.as_str()),
        ("shelf", "2.0.0")
    );
    let c = TestClient::new(server);
    let discover = c.modern("server/discover", json!({})).await;
    let caps = &discover.result()["capabilities"];
    assert_eq!(caps["resources"], json!({"listChanged": false}));
    assert_eq!(caps["completions"], json!({}));
    assert!(caps["prompts"].is_null(), "{caps}");
    assert_eq!(discover.result()["instructions"], "A shelf.");

    let list = c.modern("resources/list", json!({})).await;
    assert_eq!(list.result()["resources"][0]["uri"], "shelf://book");
    let read = c
        .modern_with_headers(
            "resources/read",
            json!({"uri": "shelf://book"}),
            &[("X-Reader", "ann")],
        )
        .await;
    assert_eq!(read.result()["contents"][0]["text"], "read by ann");
    let complete = c
        .modern(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "book"}}),
        )
        .await;
    assert_eq!(complete.result()["completion"]["values"], json!(["books"]));
}
