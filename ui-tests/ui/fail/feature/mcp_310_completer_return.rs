struct Reviews;

#[mcp::service(name = "reviews")]
impl Reviews {
    /// Reviews code.
    #[prompt]
    fn review(&self, language: String) -> String {
        language
    }

    #[complete(prompt = "review", argument = "language")]
    fn languages(&self, value: String) -> Vec<u32> {
        vec![value.len() as u32]
    }
}

fn main() {}
