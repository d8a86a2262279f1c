//! `subscriptions/listen` over stdio (in-process pipes): the acknowledgement line, stamped
//! notifications of two listens multiplexed on stdout, `notifications/cancelled` ending one
//! listen (nothing more for its id), filter errors in-band, an empty honoured subset, and
//! a legacy connection's unsolicited notifications (list changes, and updates of the URIs
//! its session subscribed to).
#![allow(missing_docs)]

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream};

struct Svc;

#[mcp::service(name = "stdio-notify", version = "1.0.0")]
impl Svc {
    /// Echoes.
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// The stock.
    #[resource(uri = "stdio://stock")]
    fn stock(&self) -> String {
        "3".into()
    }
}

struct Peer {
    input: DuplexStream,
    output: BufReader<DuplexStream>,
}

impl Peer {
    fn start(server: mcp::Server) -> Self {
        let (input, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, output) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move { server.serve_transport(server_in, server_out).await });
        Self {
            input,
            output: BufReader::new(output),
        }
    }

    async fn send(&mut self, v: Value) {
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        self.input.write_all(&line).await.unwrap();
    }

    async fn recv(&mut self) -> Value {
        let mut line = String::new();
        let n = tokio::time::timeout(Duration::from_secs(5), self.output.read_line(&mut line))
            .await
            .expect("a line within 5 s")
            .unwrap();
        assert!(n > 0, "the output ended");
        serde_json::from_str(&line).unwrap()
    }

    async fn quiet(&mut self) {
        let mut line = String::new();
        let got =
            tokio::time::timeout(Duration::from_millis(150), self.output.read_line(&mut line))
                .await;
        assert!(got.is_err(), "expected nothing, got {line}");
    }
}

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

fn listen(id: &str, filter: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
           "params": {"_meta": envelope(), "notifications": filter}})
}

const SUB: &str = "io.modelcontextprotocol/subscriptionId";

#[tokio::test]
async fn listens_are_multiplexed_on_stdout_and_cancelled_by_id() {
    let server = mcp::Server::builder(Svc)
        .list_changed(true)
        .build()
        .unwrap();
    let notifier = server.notifier();
    let mut p = Peer::start(server.clone());
    p.send(listen("listen:0", json!({"toolsListChanged": true})))
        .await;
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
               "params": {"notifications": {"toolsListChanged": true}, "_meta": {SUB: "listen:0"}}})
    );
    p.send(listen(
        "listen:1",
        json!({"toolsListChanged": true, "promptsListChanged": true}),
    ))
    .await;
    let ack = p.recv().await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    notifier.tools_changed();
    let mut ids = vec![
        p.recv().await["params"]["_meta"][SUB].clone(),
        p.recv().await["params"]["_meta"][SUB].clone(),
    ];
    ids.sort_by_key(|v| v.to_string());
    assert_eq!(ids, [json!("listen:0"), json!("listen:1")]);
    // Cancelling listen:0: nothing more for it, listen:1 goes on.
    p.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": "listen:0"}}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    notifier.tools_changed();
    let next = p.recv().await;
    assert_eq!(next["params"]["_meta"][SUB], "listen:1");
    p.quiet().await;
    assert_eq!(notifier.listener_count(), 1);
    // Errors are in-band responses; an empty honoured subset ends at once with the result.
    p.send(
        json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
                  "params": {"_meta": envelope()}}),
    )
    .await;
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc": "2.0", "id": 9, "error": {"code": -32602,
               "message": "Invalid params: 'notifications' is required and must be a valid SubscriptionFilter"}})
    );
    p.send(listen(
        "listen:2",
        json!({"resourceSubscriptions": ["x://y"]}),
    ))
    .await;
    assert_eq!(p.recv().await["params"]["notifications"], json!({}));
    let end = p.recv().await;
    assert_eq!(end["id"], "listen:2");
    assert_eq!(end["result"]["resultType"], "complete");
    // The server closes its streams: listen:1 ends with its graceful result.
    server.close_streams();
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc": "2.0", "id": "listen:1", "result": {"resultType": "complete",
               "_meta": {SUB: "listen:1",
                         "io.modelcontextprotocol/serverInfo": {"name": "stdio-notify", "version": "1.0.0"}}}})
    );
    assert_eq!(notifier.listener_count(), 0);
    // The input ends: the listens stop.
    drop(p.input);
    let mut rest = String::new();
    tokio::time::timeout(Duration::from_secs(5), async {
        while p.output.read_line(&mut rest).await.unwrap_or(0) > 0 {}
    })
    .await
    .expect("the output ends");
    assert_eq!(rest, "");
    for _ in 0..50 {
        if notifier.listener_count() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(notifier.listener_count(), 0);
}

#[tokio::test]
async fn legacy_stdio_connections_get_unsolicited_notifications_and_no_listen() {
    let server = mcp::Server::builder(Svc)
        .list_changed(true)
        .resource_subscriptions(true)
        .build()
        .unwrap();
    let notifier = server.notifier();
    let mut p = Peer::start(server);
    p.send(
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
    )
    .await;
    assert_eq!(
        p.recv().await["result"]["capabilities"],
        json!({"logging": {}, "tools": {"listChanged": true},
               "resources": {"subscribe": true, "listChanged": true}})
    );
    p.send(json!({"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{}}}))
        .await;
    assert_eq!(p.recv().await["error"]["code"], -32601);
    notifier.tools_changed();
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    // Not subscribed yet: no update.
    notifier.resource_updated("stdio://stock");
    p.quiet().await;
    p.send(json!({"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"stdio://stock"}}))
        .await;
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );
    notifier.resource_updated("stdio://other");
    notifier.resource_updated("stdio://stock");
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "stdio://stock"}})
    );
    p.quiet().await;
}
