struct Counter;

#[mcp::service(name = "counter")]
impl Counter {
    pub fn reset(&mut self) -> u32 {
        0
    }

    pub fn consume(self) -> u32 {
        0
    }

    pub fn boxed(self: Box<Self>) -> u32 {
        0
    }

    // Not a tool, and not an error: constructors live in the service's impl.
    pub fn new() -> Self {
        Counter
    }
}

fn main() {}
