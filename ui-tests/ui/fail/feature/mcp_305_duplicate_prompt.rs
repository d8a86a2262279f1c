struct Reviews;

#[mcp::service(name = "reviews")]
impl Reviews {
    /// Reviews code.
    #[prompt(name = "review")]
    fn review_code(&self) -> String {
        "Review this code".into()
    }

    /// Reviews prose.
    #[prompt(name = "review")]
    fn review_prose(&self) -> String {
        "Review this text".into()
    }
}

fn main() {}
