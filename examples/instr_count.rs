//! Drives N in-process requests of one kind through the echo server's router (or the bare
//! axum baseline), for instruction counts with callgrind, which other load on the machine
//! does not disturb: `scripts/instructions.sh` runs it twice and reports
//! instructions per request.
//!
//! `cargo run --release --example instr_count -- modern 1000`

use http_body_util::BodyExt as _;
use mcp_examples::bench::{Kind, bare_router};
use tower::ServiceExt as _;

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args
        .next()
        .and_then(|k| Kind::from_name(&k))
        .unwrap_or_else(|| {
            eprintln!("usage: instr_count modern|legacy|discover|bare N");
            std::process::exit(2)
        });
    let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("instr_count: {e}");
            std::process::exit(1)
        }
    };
    let router = if kind == Kind::Bare {
        bare_router("/mcp")
    } else {
        match mcp_examples::echo::server().build() {
            Ok(server) => mcp::transport::router("/mcp", server),
            Err(e) => {
                eprintln!("instr_count: {e}");
                std::process::exit(1)
            }
        }
    };
    runtime.block_on(async {
        for _ in 0..n {
            let Ok(response) = router
                .clone()
                .oneshot(kind.request::<axum::body::Body>("/mcp"))
                .await;
            assert!(
                response.status().is_success(),
                "{kind:?}: {}",
                response.status()
            );
            let body = response.into_body().collect().await.map(|b| b.to_bytes());
            std::hint::black_box(body.ok());
        }
    });
}
