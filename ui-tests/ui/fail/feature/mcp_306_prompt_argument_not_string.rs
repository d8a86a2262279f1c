struct Reviews;

#[mcp::service(name = "reviews")]
impl Reviews {
    /// Reviews the last lines.
    #[prompt]
    fn review(&self, lines: u32) -> String {
        format!("Review the last {lines} lines")
    }
}

fn main() {}
