struct S;

#[mcp::service(name = "s")]
impl S {
    #[tool(skip, name = "x")]
    pub fn helper(&self) {}

    #[tool]
    pub fn new() -> Self {
        S
    }
}

fn main() {}
