//! Fuzz target `listen_filter`: see `mcp::__private::fuzz::listen_filter` for the input
//! format and the properties it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp::__private::fuzz::listen_filter(data));
