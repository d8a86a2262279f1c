//! One protocol suite, every transport: the same service and the same client calls over
//! Streamable HTTP (a real socket), stdio (the server's line transport) and in-process (the
//! pipe), in both eras. Each test runs its body once per (transport, era) and asserts the
//! same outcome, so no transport can drift from the others.
//!
//! Covered: tools (results, errors, structured output), resources and templates, prompts,
//! completion, elicitation (modern `input_required` rounds, the legacy shim), sampling,
//! notifications (logs and progress), and legacy sessions.
#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::ToolOutput;
use mcp::client::{Client, ClientConfig};
use mcp::protocol::{ElicitRequest, ElicitResult, Era, Reference};
use mcp::{Context, LogLevel, SamplingMessage, SamplingRequest};
use serde_json::{Value, json};

mod stream;

use stream::{WIRES, Wire, every};

struct Suite;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

#[mcp::service(name = "suite", version = "1.0.0")]
impl Suite {
    /// Adds two numbers.
    pub fn add(&self, a: i64, b: i64) -> Sum {
        Sum { sum: a + b }
    }

    /// Always fails.
    pub fn fail(&self) -> Result<String, mcp::ToolError> {
        Err(mcp::ToolError::new("it broke"))
    }

    /// Logs and reports progress, then answers.
    pub async fn work(&self, ctx: Context) -> String {
        ctx.log(LogLevel::Info, "working").await;
        ctx.progress(1.0, 2.0, Some("half")).await;
        "worked".into()
    }

    /// Asks the user to confirm.
    pub async fn confirm(&self, ctx: Context) -> Result<ToolOutput<String>, mcp::ToolError> {
        stream::confirm_round(&ctx)
    }

    /// Asks the client's model.
    pub async fn ask_model(
        &self,
        ctx: Context,
        question: String,
    ) -> Result<String, mcp::ToolError> {
        let ask = SamplingRequest::new(vec![SamplingMessage::user(question)], 50);
        let answer = ctx.sample(ask).await?;
        Ok(format!(
            "{}: {}",
            answer.model,
            answer.text().unwrap_or_default()
        ))
    }

    /// Counts the calls of the legacy session.
    #[expect(deprecated)]
    pub async fn count(&self, session: Option<mcp::Session>) -> Result<i64, mcp::ToolError> {
        let Some(session) = session else {
            return Err(mcp::ToolError::new("no session"));
        };
        Ok(session
            .update("n", |n: Option<i64>| n.unwrap_or(0) + 1)
            .await?)
    }

    /// The greeting.
    #[resource(uri = "suite://hello", mime_type = "text/plain")]
    fn hello(&self) -> String {
        "hello".into()
    }

    /// An echo.
    #[resource(template = "suite://echo/{text}")]
    fn echo(&self, text: String) -> String {
        format!("echo {text}")
    }

    /// Greets someone.
    #[prompt]
    fn greet(&self, name: String) -> String {
        format!("Say hello to {name}")
    }

    #[complete(prompt = "greet", argument = "name")]
    fn names(&self, value: String) -> Vec<String> {
        ["ada", "alan", "grace"]
            .into_iter()
            .filter(|n| n.starts_with(&value))
            .map(str::to_owned)
            .collect()
    }
}

/// What the client saw: its notifications, elicitation messages and sampling prompts.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<String>>>);

impl Seen {
    fn push(&self, s: String) {
        self.0.lock().unwrap().push(s);
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

fn server() -> mcp::Server {
    mcp::Server::builder(Suite).build().unwrap()
}

fn config(seen: &Seen) -> ClientConfig {
    let (notes, asked, sampled) = (seen.clone(), seen.clone(), seen.clone());
    ClientConfig::new()
        .notification_handler(move |n| {
            if let Some((_, data)) = n.log() {
                notes.push(format!("log {data}"));
            } else if let Some((_, progress, total)) = n.progress() {
                notes.push(format!("progress {progress}/{}", total.unwrap_or_default()));
            }
        })
        .elicitation_handler(move |r: ElicitRequest| {
            asked.push(format!("elicit {}", r.params.message()));
            async move {
                Ok(ElicitResult::accept(
                    json!({"ok": true}).as_object().cloned().unwrap_or_default(),
                ))
            }
        })
        .sampling_handler(move |r: SamplingRequest| {
            let text = serde_json::to_value(&r.messages[0].content).unwrap()["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            sampled.push(format!("sample {text}"));
            async move {
                Ok(mcp::SamplingResult::new(
                    mcp::Role::Assistant,
                    mcp::Content::text(format!("echo of {text}")),
                    "scripted",
                ))
            }
        })
}

/// A connected client of `server` over `wire`, in `era`.
async fn connect(wire: Wire, era: Era, server: mcp::Server, seen: &Seen) -> Client {
    stream::connect(wire, era, server, config(seen)).await
}

#[tokio::test]
async fn tools_answer_alike() {
    every(|wire, era| async move {
        let seen = Seen::default();
        let client = connect(wire, era, server(), &seen).await;
        let tools = client.list_tools().await.unwrap();
        let mut names: Vec<_> = tools.tools.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["add", "ask_model", "confirm", "count", "fail", "work"],
            "{wire:?} {era:?}"
        );
        let sum = client
            .call("add")
            .arguments(json!({"a": 2, "b": 3}))
            .unwrap()
            .send()
            .await
            .unwrap();
        // Legacy clients get the 1.x text shape unless the service opts into structured
        // output for them (`legacy_structured_output`).
        match era {
            Era::Modern => assert_eq!(sum.structured_content, Some(json!({"sum": 5})), "{wire:?}"),
            Era::Legacy => {
                assert_eq!(sum.structured_content, None, "{wire:?}");
                assert_eq!(sum.joined_text(), r#"{"sum":5}"#, "{wire:?}");
            }
        }
        let failed = client.call("fail").send().await.unwrap();
        assert!(failed.is_error(), "{wire:?} {era:?}");
        assert_eq!(failed.joined_text(), "it broke", "{wire:?} {era:?}");
        let unknown = client.call("nope").send().await;
        assert!(unknown.is_err(), "{wire:?} {era:?}: {unknown:?}");
    })
    .await;
}

#[tokio::test]
async fn resources_prompts_and_completion_answer_alike() {
    every(|wire, era| async move {
        let seen = Seen::default();
        let client = connect(wire, era, server(), &seen).await;
        let resources = client.list_resources().await.unwrap();
        assert_eq!(
            resources.resources[0].uri, "suite://hello",
            "{wire:?} {era:?}"
        );
        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(
            templates.resource_templates[0].uri_template, "suite://echo/{text}",
            "{wire:?} {era:?}"
        );
        let read = client.read_resource("suite://echo/hi").await.unwrap();
        let read = serde_json::to_value(&read).unwrap();
        assert_eq!(read["contents"][0]["text"], "echo hi", "{wire:?} {era:?}");
        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts.prompts[0].name, "greet", "{wire:?} {era:?}");
        let got = client
            .get_prompt("greet", BTreeMap::from([("name".into(), "Ada".into())]))
            .await
            .unwrap();
        let got = serde_json::to_value(&got).unwrap();
        assert_eq!(
            got["messages"][0]["content"]["text"], "Say hello to Ada",
            "{wire:?} {era:?}"
        );
        let completion = client
            .complete(Reference::prompt("greet"), "name", "a", BTreeMap::new())
            .await
            .unwrap();
        assert_eq!(completion.values, ["ada", "alan"], "{wire:?} {era:?}");
    })
    .await;
}

#[tokio::test]
async fn elicitation_and_sampling_reach_the_client_alike() {
    every(|wire, era| async move {
        let seen = Seen::default();
        let client = connect(wire, era, server(), &seen).await;
        let confirmed = client.call("confirm").send().await.unwrap();
        assert_eq!(
            confirmed.joined_text(),
            "confirmed true",
            "{wire:?} {era:?}"
        );
        assert_eq!(seen.take(), ["elicit Sure?"], "{wire:?} {era:?}");
        let answer = client
            .call("ask_model")
            .arguments(json!({"question": "why?"}))
            .unwrap()
            .send()
            .await
            .unwrap();
        assert_eq!(
            answer.joined_text(),
            "scripted: echo of why?",
            "{wire:?} {era:?}"
        );
        assert_eq!(seen.take(), ["sample why?"], "{wire:?} {era:?}");
    })
    .await;
}

#[tokio::test]
async fn logs_and_progress_reach_the_client_alike() {
    every(|wire, era| async move {
        let seen = Seen::default();
        let client = connect(wire, era, server(), &seen).await;
        client.set_logging_level(LogLevel::Debug).await.unwrap();
        let meta = json!({"progressToken": "p1"}).as_object().cloned().unwrap();
        let done = client.call("work").meta(meta).send().await.unwrap();
        assert_eq!(done.joined_text(), "worked", "{wire:?} {era:?}");
        // Notifications are handled as they arrive, before the result.
        assert_eq!(
            seen.take(),
            [r#"log "working""#, "progress 1/2"],
            "{wire:?} {era:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_legacy_session_spans_the_connection_alike() {
    for wire in WIRES {
        let seen = Seen::default();
        let client = connect(wire, Era::Legacy, server(), &seen).await;
        for n in 1..=3 {
            let r = client.call("count").send().await.unwrap();
            assert_eq!(r.joined_text(), n.to_string(), "{wire:?}");
        }
        // Modern requests have no session.
        let modern = connect(wire, Era::Modern, server(), &seen).await;
        let r = modern.call("count").send().await.unwrap();
        assert!(r.is_error(), "{wire:?}");
        let value: Value = serde_json::to_value(&r).unwrap();
        assert_eq!(value["content"][0]["text"], "no session", "{wire:?}");
    }
}

/// Legacy only: this client has no `subscriptions/listen` stream for the modern era yet, and
/// hears modern list changes only by re-listing.
#[tokio::test]
async fn list_changes_reach_a_legacy_client_alike() {
    for wire in WIRES {
        let era = Era::Legacy;
        let seen = Seen::default();
        let server = mcp::Server::builder(Suite)
            .list_changed(true)
            .build()
            .unwrap();
        let notifier = server.notifier();
        let client = connect(wire, era, server, &seen).await;
        client.list_tools().await.unwrap();
        assert!(!client.tools_stale(), "{wire:?} {era:?}");
        // The announcement travels on the session's standing stream (the GET stream over
        // HTTP, the connection itself over stdio and in-process), which opens in the
        // background: announce until the client has heard.
        let mut heard = false;
        for _ in 0..100 {
            notifier.tools_changed();
            tokio::time::sleep(Duration::from_millis(50)).await;
            if client.tools_stale() {
                heard = true;
                break;
            }
        }
        assert!(heard, "{wire:?}: the tools/list_changed never arrived");
    }
}

/// Without `list_changed(true)` the server advertises no `listChanged`, and no transport
/// sends the notification.
#[tokio::test]
async fn unadvertised_list_changes_reach_no_client() {
    for wire in WIRES {
        let seen = Seen::default();
        let server = server();
        let notifier = server.notifier();
        let client = connect(wire, Era::Legacy, server, &seen).await;
        client.list_tools().await.unwrap();
        for _ in 0..5 {
            notifier.tools_changed();
            tokio::time::sleep(Duration::from_millis(60)).await;
        }
        // A round trip after the announcements: anything sent before it has arrived.
        client.list_resources().await.unwrap();
        assert!(!client.tools_stale(), "{wire:?}");
    }
}
