struct App;

#[mcp::service(name = "app")]
impl App {
    /// The answer.
    #[resource(uri = "config://answer")]
    fn answer(&self) -> u32 {
        42
    }
}

fn main() {}
