//! Issue #26, item 1, over stdio: one connection (one caller) opens listens whose filters
//! sit at the per-listener bounds until its budget refuses more, and the process's
//! resident memory (`VmRSS`; the server runs in this process) grows by less than the
//! caller's budget plus the allocator's slack ([`rss::SLACK`]).
//!
//! The only test of its binary: another test running beside it would move the RSS.
#![allow(missing_docs)]

mod rss;

use std::time::Duration;

use rss::{Answer, CALLER_BUDGET, MIB, SLACK, listen, refusal, set_id, watched_server};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream};

#[tokio::test(flavor = "current_thread")]
async fn large_filters_on_one_connection_stay_within_its_budget() {
    let server = watched_server();
    let notifier = server.notifier();
    // With every default: 1,000 URIs (the bound) of 4,000 bytes, a 4 MB line under the
    // 16 MiB frame cap, each listen charged about 8 MB: the connection gets two (16 MiB)
    // of the twenty it sends. The client reads every acknowledgement, so a listener holds
    // about 4 MB here: with the byte budgets lifted all twenty open and RSS grows by
    // about 95 MiB.
    let mut line = listen(1000, 4000);
    line.push(b'\n');
    let (mut input, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, output) = tokio::io::duplex(1 << 16);
    let mut output = BufReader::new(output);
    tokio::spawn(async move { server.serve_transport(server_in, server_out).await });
    // A small listen first, so that what the connection sets up lazily is in the base.
    let mut small = listen(1, 20);
    small.push(b'\n');
    set_id(&mut small, 99);
    input.write_all(&small).await.unwrap();
    assert_eq!(read_answer(&mut output).await, Answer::Open);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = rss::rss();
    let mut answers = Vec::new();
    for attempt in 0..20 {
        set_id(&mut line, attempt);
        input.write_all(&line).await.unwrap();
        answers.push(read_answer(&mut output).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let growth = rss::rss().saturating_sub(before);
    eprintln!(
        "stdio: answers {answers:?}; RSS {} -> {} MiB (+{} MiB)",
        before / MIB,
        (before + growth) / MIB,
        growth / MIB
    );
    let mut expected = vec![Answer::Refused("max_listen_bytes_per_caller".into()); 20];
    expected[..2].fill(Answer::Open);
    assert_eq!(answers, expected);
    assert_eq!(notifier.listener_count(), 3);
    // The slack also covers the connection's frame buffer, which keeps the capacity of
    // its longest line (here 4 MB).
    assert!(
        growth < CALLER_BUDGET + SLACK,
        "RSS grew by {} MiB with two large stdio listens open; the bound is {} MiB",
        growth / MIB,
        (CALLER_BUDGET + SLACK) / MIB
    );
}

/// Reads one answer line of a stdio listen without keeping it (an acknowledgement is as
/// long as its filter): its first bytes tell an acknowledgement from an error.
async fn read_answer(output: &mut BufReader<DuplexStream>) -> Answer {
    let mut start = Vec::new();
    loop {
        let buf = output.fill_buf().await.unwrap();
        assert!(!buf.is_empty(), "the output ended");
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if start.len() < 4096 {
            start.extend_from_slice(&buf[..take.min(4096)]);
        }
        output.consume(take);
        if done {
            break;
        }
    }
    let text = String::from_utf8_lossy(&start);
    if text.contains("notifications/subscriptions/acknowledged") {
        return Answer::Open;
    }
    let answer: Value = serde_json::from_str(&text).expect("a whole error line");
    refusal(&answer["error"])
}
