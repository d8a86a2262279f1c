struct Notes;

#[mcp::service(name = "notes")]
impl Notes {
    /// A note.
    #[resource(template = "notes://{folder}/{name}")]
    fn note(&self, name: String) -> String {
        name
    }
}

fn main() {}
