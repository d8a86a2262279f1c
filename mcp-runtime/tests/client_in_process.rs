//! The in-process client (`Client::in_process`) and the client's `Transport` seam.
//!
//! Each protocol test runs twice: against the server's in-process transport
//! (`Server::in_process`), and against our stdio server (`Server::serve_transport`) behind
//! a small bridge that turns pipe messages into lines and lines into pipe messages, so the
//! client's side — the pipe, the shared message stream, both eras, server→client requests,
//! cancellation — cannot drift from either. The error paths of the trait run against
//! transports of the test's own.
#![allow(missing_docs)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::BoxFuture;
use mcp::client::transport::{Envelope, Message, Peer, Transport};
use mcp::client::{
    Client, ClientConfig, ClientError, ProtocolMode, ServerNotification, TransportError,
};
use mcp::protocol::Era;
use mcp::transport::in_process::{PipeEnd, pipe};
use mcp::{ElicitRequest, ElicitResult, Implementation, ToolOutput};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// What the server saw: a call started, a call cancelled.
#[derive(Default)]
struct Seen {
    started: Notify,
    cancelled: Notify,
}

mod stream;

struct Svc {
    seen: Arc<Seen>,
}

/// Tells the test when the call that holds it ends.
struct Stopped(Arc<Seen>);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.cancelled.notify_one();
    }
}

#[mcp::service(name = "in-process-test", version = "1.0.0")]
impl Svc {
    /// Adds.
    pub fn add(&self, left: i64, right: i64) -> i64 {
        left + right
    }

    /// Asks for a confirmation.
    pub async fn confirm(
        &self,
        context: mcp::Context,
    ) -> Result<ToolOutput<String>, mcp::ToolError> {
        stream::confirm_round(&context)
    }

    /// Waits until the call is cancelled (the server stops the call, or tells it), and
    /// tells the test.
    pub async fn wait(&self, ctx: mcp::Context) -> String {
        let _stopped = Stopped(self.seen.clone());
        self.seen.started.notify_one();
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(30)) => "finished".into(),
            () = ctx.cancelled() => "cancelled".into(),
        }
    }
}

/// How the test server is reached.
#[derive(Clone, Copy, Debug)]
enum Via {
    /// The server's own in-process transport.
    InProcess,
    /// The stdio server behind a bridge between a pipe end and its lines.
    StdioBridge,
}

const VIAS: [Via; 2] = [Via::InProcess, Via::StdioBridge];

/// Serves the test service; returns the client's end and what the server sees.
fn serve(via: Via) -> (PipeEnd, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let server = mcp::Server::builder(Svc { seen: seen.clone() })
        .build()
        .unwrap();
    let end = match via {
        Via::InProcess => server.in_process(),
        Via::StdioBridge => stream::stdio_bridge(server),
    };
    (end, seen)
}

fn config(mode: ProtocolMode) -> ClientConfig {
    ClientConfig::new()
        .protocol_mode(mode)
        .timeout(Duration::from_secs(10))
}

async fn bounded<T>(test: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), test)
        .await
        .expect("the test finished in time")
}

#[tokio::test]
async fn connects_in_every_mode_and_calls_a_tool() {
    bounded(async {
        let modes = [
            (ProtocolMode::Auto, Era::Modern),
            (ProtocolMode::Modern, Era::Modern),
            (ProtocolMode::Legacy, Era::Legacy),
        ];
        for (via, (mode, era)) in VIAS.into_iter().flat_map(|v| modes.map(|m| (v, m))) {
            let mode_label = format!("{via:?} {mode:?}");
            let (end, _) = serve(via);
            let client = Client::in_process(end, config(mode)).unwrap();
            assert_eq!(client.url(), None);
            assert!(!client.is_stdio());
            assert!(format!("{client:?}").contains("InProcess"));
            let info = client
                .connect(Implementation::new("in-process", "1.0.0"))
                .await
                .unwrap();
            assert_eq!(info.era(), era, "{mode_label}");
            assert_eq!(info.session_id(), None);
            assert_eq!(info.server_info().unwrap().name, "in-process-test");
            let tools = client.list_tools().await.unwrap();
            assert!(tools.tools.iter().any(|t| t.name == "add"), "{mode_label}");
            let result = client
                .call("add")
                .arguments(json!({"left": 2, "right": 3}))
                .unwrap()
                .await
                .unwrap();
            assert_eq!(result.joined_text(), "5", "{mode_label}");
            client.close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test]
async fn elicitation_is_answered_by_the_handler_in_both_eras() {
    bounded(async {
        let modes = [ProtocolMode::Modern, ProtocolMode::Legacy];
        for (via, mode) in VIAS.into_iter().flat_map(|v| modes.map(|m| (v, m))) {
            let asked = Arc::new(Mutex::new(Vec::new()));
            let record = asked.clone();
            let config = config(mode).elicitation_handler(move |r: ElicitRequest| {
                record.lock().unwrap().push(r.params.message().to_owned());
                std::future::ready(Ok(ElicitResult::accept(
                    json!({"ok": true}).as_object().cloned().unwrap(),
                )))
            });
            let (end, _) = serve(via);
            let client = Client::in_process(end, config).unwrap();
            client
                .connect(Implementation::new("in-process", "1.0.0"))
                .await
                .unwrap();
            let result = client.call("confirm").await.unwrap();
            assert_eq!(result.joined_text(), "confirmed true", "{via:?} {mode:?}");
            assert_eq!(*asked.lock().unwrap(), ["Sure?"], "{via:?} {mode:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_call_nobody_waits_for_is_cancelled_on_the_server() {
    bounded(async {
        let modes = [ProtocolMode::Modern, ProtocolMode::Legacy];
        for (via, mode) in VIAS.into_iter().flat_map(|v| modes.map(|m| (v, m))) {
            let (end, seen) = serve(via);
            let client = Client::in_process(end, config(mode)).unwrap();
            client
                .connect(Implementation::new("in-process", "1.0.0"))
                .await
                .unwrap();
            let call = tokio::spawn(client.call("wait").send());
            seen.started.notified().await;
            call.abort();
            seen.cancelled.notified().await;
            // The connection goes on.
            let result = client
                .call("add")
                .arguments(json!({"left": 1, "right": 1}))
                .unwrap()
                .await
                .unwrap();
            assert_eq!(result.joined_text(), "2", "{via:?} {mode:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_closed_pipe_fails_with_a_closed_transport() {
    bounded(async {
        // The server's end is gone before the first message.
        let (end, other) = pipe(4);
        drop(other);
        let client = Client::in_process(end, config(ProtocolMode::Auto)).unwrap();
        let e = client
            .connect(Implementation::new("in-process", "1.0.0"))
            .await
            .unwrap_err();
        assert!(
            matches!(e, ClientError::Transport(TransportError::Closed)),
            "{e:?}"
        );

        // The client closed its end: the pipe is gone for good.
        let (end, _) = serve(Via::InProcess);
        let client = Client::in_process(end, config(ProtocolMode::Modern)).unwrap();
        client
            .connect(Implementation::new("in-process", "1.0.0"))
            .await
            .unwrap();
        client.close().await.unwrap();
        assert!(matches!(
            client.list_tools().await.unwrap_err(),
            ClientError::NotConnected
        ));
        let e = client
            .connect(Implementation::new("in-process", "1.0.0"))
            .await
            .unwrap_err();
        assert!(
            matches!(e, ClientError::Transport(TransportError::Closed)),
            "{e:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_silent_server_times_out_and_its_late_answer_is_dropped() {
    bounded(async {
        let (end, mut server) = pipe(4);
        let config = ClientConfig::new()
            .protocol_mode(ProtocolMode::Modern)
            .timeout(Duration::from_millis(200));
        let client = Client::in_process(end, config).unwrap();
        let info = Implementation::new("in-process", "1.0.0");
        let (outcome, first) = tokio::join!(client.connect(info.clone()), server.recv());
        let e = outcome.unwrap_err();
        assert!(
            matches!(e, ClientError::Transport(TransportError::Timeout(_))),
            "{e:?}"
        );
        let first: Value = serde_json::from_str(&first.unwrap()).unwrap();
        assert_eq!(first["method"], "server/discover");
        // The connection survives a timeout: the next probe is answered after a late answer
        // to the first, which nothing awaits any more.
        let answer = |id: &Value| {
            json!({"jsonrpc": "2.0", "id": id, "result": {
                "supportedVersions": ["2026-07-28"], "capabilities": {}, "resultType": "complete"
            }})
            .to_string()
        };
        let serve = async {
            let second: Value = serde_json::from_str(&server.recv().await.unwrap()).unwrap();
            assert_ne!(second["id"], first["id"]);
            server.send(answer(&first["id"])).await.unwrap();
            server.send(answer(&second["id"])).await.unwrap();
            server
        };
        let (outcome, _server) = tokio::join!(client.connect(info), serve);
        assert_eq!(outcome.unwrap().era(), Era::Modern);
    })
    .await;
}

#[tokio::test]
async fn a_dropped_modern_request_is_cancelled_with_its_version() {
    bounded(async {
        let (end, mut server) = pipe(4);
        let client = Client::in_process(end, config(ProtocolMode::Modern)).unwrap();
        let connecting = tokio::spawn({
            let client = client.clone();
            async move {
                client
                    .connect(Implementation::new("in-process", "1.0.0"))
                    .await
            }
        });
        let probe: Value = serde_json::from_str(&server.recv().await.unwrap()).unwrap();
        assert_eq!(probe["method"], "server/discover");
        connecting.abort();
        let cancel: Value = serde_json::from_str(&server.recv().await.unwrap()).unwrap();
        assert_eq!(cancel["method"], "notifications/cancelled");
        assert_eq!(cancel["params"]["requestId"], probe["id"]);
        assert_eq!(
            cancel["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
    })
    .await;
}

/// A transport of the test's own: answers each request from a script, after telling the
/// client's peer what a server would send meanwhile.
struct Scripted {
    sent: Mutex<Vec<Value>>,
    closed: Mutex<Option<Option<Era>>>,
}

impl Scripted {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            sent: Mutex::new(Vec::new()),
            closed: Mutex::new(None),
        })
    }
}

/// The client holds its transport behind an `Arc`; the test keeps another.
struct Shared(Arc<Scripted>);

fn raw(value: Value) -> Box<RawValue> {
    RawValue::from_string(value.to_string()).unwrap()
}

impl Transport for Shared {
    fn request<'a>(
        &'a self,
        message: Message<'a>,
        peer: &'a Peer,
    ) -> BoxFuture<'a, Result<Box<RawValue>, ClientError>> {
        Box::pin(async move {
            self.0.sent.lock().unwrap().push(message.body.clone());
            assert_eq!(message.envelope.era, Era::Modern);
            assert_eq!(message.envelope.protocol_version, Some("2026-07-28"));
            match message.method {
                "server/discover" => Ok(raw(json!({
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}},
                    "resultType": "complete"
                }))),
                "tools/list" => Ok(raw(json!({"tools": [], "resultType": "complete"}))),
                "tools/call" => {
                    peer.notification("notifications/message", Some(json!({"level": "info"})));
                    let answer = peer
                        .answer(
                            json!(7),
                            "elicitation/create",
                            Some(json!({
                                "mode": "form",
                                "message": "Sure?",
                                "requestedSchema": {"type": "object", "properties": {}}
                            })),
                        )
                        .await;
                    assert_eq!(answer.message()["id"], 7);
                    assert_eq!(answer.message()["result"]["action"], "decline");
                    let unknown = peer.answer(json!(8), "tasks/get", None).await;
                    let (message, failure) = unknown.into_parts();
                    assert_eq!(message["error"]["code"], -32601);
                    assert!(failure.is_none());
                    Err(TransportError::Status {
                        status: 502,
                        body: "bad gateway".into(),
                    }
                    .into())
                }
                other => Err(TransportError::Status {
                    status: 500,
                    body: format!("unexpected {other}"),
                }
                .into()),
            }
        })
    }

    fn notify<'a>(&'a self, message: Message<'a>) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(async move {
            self.0.sent.lock().unwrap().push(message.body.clone());
            Ok(())
        })
    }

    fn cancels_by_notification(&self, _era: Era) -> bool {
        false
    }

    fn close<'a>(&'a self, last: Option<Envelope<'a>>) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(async move {
            *self.0.closed.lock().unwrap() = Some(last.map(|e| e.era));
            Ok(())
        })
    }
}

#[tokio::test]
async fn a_transport_of_your_own_carries_messages_and_errors() {
    bounded(async {
        let script = Scripted::new();
        let notified = Arc::new(Mutex::new(Vec::new()));
        let record = notified.clone();
        let config = ClientConfig::new()
            .protocol_mode(ProtocolMode::Modern)
            .elicitation_handler(|_r: ElicitRequest| {
                std::future::ready(Ok(ElicitResult::decline()))
            })
            .notification_handler(move |n: &ServerNotification| {
                record.lock().unwrap().push(n.method().to_owned());
            });
        let client = Client::with_transport(Shared(script.clone()), config);
        assert_eq!(client.url(), None);
        let info = client
            .connect(Implementation::new("own", "1.0.0"))
            .await
            .unwrap();
        assert_eq!(info.era(), Era::Modern);
        // The transport's error is the call's error, unchanged.
        let e = client.call("anything").await.unwrap_err();
        assert_eq!(e.http_status(), Some(502), "{e:?}");
        assert_eq!(*notified.lock().unwrap(), ["notifications/message"]);
        // The client framed the messages: the modern envelope is in `_meta`.
        let sent = script.sent.lock().unwrap().clone();
        let methods: Vec<_> = sent.iter().map(|m| m["method"].clone()).collect();
        assert_eq!(methods, ["server/discover", "tools/list", "tools/call"]);
        assert_eq!(
            sent[2]["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
            "own"
        );
        client.close().await.unwrap();
        assert_eq!(*script.closed.lock().unwrap(), Some(Some(Era::Modern)));
    })
    .await;
}

#[tokio::test]
async fn a_failing_transport_fails_the_connection_with_its_error() {
    bounded(async {
        struct Down;
        impl Transport for Down {
            fn request<'a>(
                &'a self,
                _message: Message<'a>,
                _peer: &'a Peer,
            ) -> BoxFuture<'a, Result<Box<RawValue>, ClientError>> {
                Box::pin(async { Err(TransportError::Closed.into()) })
            }
            fn notify<'a>(
                &'a self,
                _message: Message<'a>,
            ) -> BoxFuture<'a, Result<(), ClientError>> {
                Box::pin(async { Err(TransportError::Closed.into()) })
            }
            fn close<'a>(
                &'a self,
                _last: Option<Envelope<'a>>,
            ) -> BoxFuture<'a, Result<(), ClientError>> {
                Box::pin(async { Err(TransportError::Closed.into()) })
            }
        }
        for mode in [
            ProtocolMode::Auto,
            ProtocolMode::Modern,
            ProtocolMode::Legacy,
        ] {
            let client = Client::with_transport(Down, ClientConfig::new().protocol_mode(mode));
            let e = client
                .connect(Implementation::new("down", "1.0.0"))
                .await
                .unwrap_err();
            assert!(
                matches!(e, ClientError::Transport(TransportError::Closed)),
                "{mode:?}: {e:?}"
            );
            assert!(client.connection().is_none());
            assert!(client.close().await.is_err());
        }
    })
    .await;
}
