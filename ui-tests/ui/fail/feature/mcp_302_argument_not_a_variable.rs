struct Notes;

#[mcp::service(name = "notes")]
impl Notes {
    /// A note.
    #[resource(template = "notes://{name}")]
    fn note(&self, name: String, limit: u32) -> String {
        format!("{name} {limit}")
    }
}

fn main() {}
