// A method of an `#[mcp::client]` trait has no body: the generated client calls the tool.
#[mcp::client]
pub trait Files {
    /// Reads a file.
    fn read(&self, path: String) -> String {
        path
    }
}

fn main() {}
