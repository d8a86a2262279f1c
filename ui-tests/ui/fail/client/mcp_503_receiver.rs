// A method of an `#[mcp::client]` trait becomes a method of the client, called through
// `&self`: any other receiver, or none, is MCP_503 at the method's name.
#[mcp::client]
pub trait Files {
    /// Reads a file.
    fn read(&mut self, path: String) -> String;
    /// Writes a file.
    fn write(self, path: String, text: String);
    /// Lists a directory.
    fn list(path: String) -> Vec<String>;
}

fn main() {}
