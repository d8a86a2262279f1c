struct Reviews;

#[mcp::service(name = "reviews")]
impl Reviews {
    /// Reviews code.
    #[prompt]
    fn review(&self) -> u32 {
        1
    }
}

fn main() {}
