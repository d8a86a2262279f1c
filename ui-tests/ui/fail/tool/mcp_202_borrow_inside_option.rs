struct S;

#[mcp::service(name = "s")]
impl S {
    // A top-level reference is lent from an owned value; a borrow nested in another type
    // cannot be, and gets MCP_202 (not a lifetime error).
    pub fn greet(&self, name: Option<&str>, names: Vec<&str>) -> String {
        format!("{name:?} {names:?}")
    }
}

fn main() {}
