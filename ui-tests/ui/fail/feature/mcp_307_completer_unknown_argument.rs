struct Reviews;

#[mcp::service(name = "reviews")]
impl Reviews {
    /// Reviews code.
    #[prompt]
    fn review(&self, language: String) -> String {
        format!("Review this {language} code")
    }

    #[complete(prompt = "review", argument = "lang")]
    fn languages(&self, value: String) -> Vec<String> {
        vec![value]
    }
}

fn main() {}
