// An `#[mcp::client]` trait describes a server's tools: no generics, no supertraits, one
// `#[tool]` per method, and no `#[tool(skip)]`.
#[mcp::client]
pub trait Files<T>: Send {
    /// Reads a file.
    #[tool(name = "read")]
    #[tool(name = "read_file")]
    fn read(&self, path: String) -> String;
    /// Not a tool.
    #[tool(skip)]
    fn helper(&self) -> String;
}

fn main() {}
