//! Compile-fail cases, one per diagnostic code (`ui/fail/<area>/mcp_NNN_*.rs`), and pass
//! cases that compile and run (`ui/pass/*.rs`). Bless with
//! `TRYBUILD=overwrite cargo test -p ui-tests --test ui`, then read the `.stderr` diff.

#[rustversion::attr(not(stable(1.95)), ignore = "ui .stderr files are blessed on 1.95")]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/**/*.rs"); // trybuild globs: `*` and `**`, no `{a,b}`
    t.pass("ui/pass/*.rs");
}
