struct Reviews;

#[mcp::service(name = "reviews")]
impl Reviews {
    /// Reviews code.
    #[cfg(not(any()))]
    #[prompt(name = "review")]
    fn review_code(&self) -> String {
        "Review this code".into()
    }

    /// Reviews prose.
    #[cfg(all())]
    #[prompt(name = "review")]
    fn review_prose(&self) -> String {
        "Review this text".into()
    }

    /// Never compiled: not a duplicate.
    #[cfg(any())]
    #[prompt(name = "review")]
    fn review_never(&self) -> String {
        "never".into()
    }
}

fn main() {}
