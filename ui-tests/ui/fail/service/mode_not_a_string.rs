struct A;

#[mcp::service(name = "a", protocol_mode = 3)]
impl A {}

struct B;

#[mcp::service(name = "b", session_mode = stateless)]
impl B {}

fn main() {}
