// An `#[mcp::client]` trait holds only methods, one per tool.
#[mcp::client]
pub trait Files {
    /// The error.
    type Error;
    /// A limit.
    const MAX: usize;
    /// Reads a file.
    fn read(&self, path: String) -> String;
}

fn main() {}
