struct Reviews;

#[mcp::service(name = "reviews")]
impl Reviews {
    /// Reviews code (never compiled).
    #[cfg(any())]
    #[prompt]
    fn review(&self, language: String) -> String {
        format!("Review this {language} code")
    }

    #[complete(prompt = "review", argument = "language")]
    fn languages(&self, value: String) -> Vec<String> {
        vec![value]
    }
}

fn main() {}
