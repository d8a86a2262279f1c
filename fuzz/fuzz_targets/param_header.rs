//! Fuzz target `param_header`: see `mcp::__private::fuzz::param_header` for the input format and the
//! property it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp::__private::fuzz::param_header(data));
