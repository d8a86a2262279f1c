struct Counter;

#[mcp::service(name = "counter")]
impl Counter {
    /// The count.
    #[resource(uri = "counter://value")]
    fn value(&mut self) -> String {
        "0".into()
    }
}

fn main() {}
