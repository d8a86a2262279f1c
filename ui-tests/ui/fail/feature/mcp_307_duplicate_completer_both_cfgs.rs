struct Reviews;

#[mcp::service(name = "reviews")]
impl Reviews {
    /// Reviews code.
    #[prompt]
    fn review(&self, language: String) -> String {
        format!("Review this {language} code")
    }

    #[cfg(not(any()))]
    #[complete(prompt = "review", argument = "language")]
    fn languages(&self, value: String) -> Vec<String> {
        vec![value]
    }

    #[cfg(all())]
    #[complete(prompt = "review", argument = "language")]
    fn more_languages(&self, value: String) -> Vec<String> {
        vec![value]
    }
}

fn main() {}
