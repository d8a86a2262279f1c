//! Fuzz target `http`: see `mcp::__private::fuzz::http` for the input format and the
//! property it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp::__private::fuzz::http(data));
