struct Counter;

#[mcp::service(name = "counter")]
impl Counter {
    pub fn reset(&mut self) -> u32 {
        0
    }

    pub fn new() -> Self {
        Counter
    }
}

fn main() {}
