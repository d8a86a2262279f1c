//! Replays the fuzz targets' committed inputs on the stable toolchain: the seeds
//! (`fuzz/seeds/<target>/`) and every input a fuzzer once failed on
//! (`fuzz/regressions/<target>/`), through the same functions the cargo-fuzz targets call
//! (`mcp::__private::fuzz`). A fixed crash stays fixed; `scripts/fuzz.sh` does the fuzzing.

use std::path::{Path, PathBuf};

use mcp::__private::fuzz;

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut files = Vec::new();
    for kind in ["seeds", "regressions"] {
        let Ok(dir) = std::fs::read_dir(root.join(kind).join(target)) else {
            continue;
        };
        files.extend(dir.map(|entry| entry.expect("directory entry").path()));
    }
    files.sort();
    files
}

/// Runs `body` on every input of `target`, naming the file that fails.
fn replay(target: &str, body: fn(&[u8])) {
    let files = inputs(target);
    assert!(!files.is_empty(), "no seeds for {target}");
    for file in files {
        let data = std::fs::read(&file).expect("readable input");
        if std::panic::catch_unwind(|| body(&data)).is_err() {
            panic!("fuzz target {target} fails on {}", file.display());
        }
    }
}

#[test]
fn message() {
    replay("message", fuzz::message);
}

#[test]
fn classify() {
    replay("classify", fuzz::classify);
}

#[test]
fn param_header() {
    replay("param_header", fuzz::param_header);
}

#[test]
fn request_state() {
    replay("request_state", fuzz::request_state);
}

#[test]
fn http() {
    replay("http", fuzz::http);
}

#[test]
fn listen_filter() {
    replay("listen_filter", fuzz::listen_filter);
}
