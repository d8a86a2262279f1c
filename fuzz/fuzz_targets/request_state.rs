//! Fuzz target `request_state`: see `mcp::__private::fuzz::request_state` for the input format and the
//! property it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp::__private::fuzz::request_state(data));
