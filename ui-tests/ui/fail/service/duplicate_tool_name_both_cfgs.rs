struct Platform;

#[mcp::service(name = "platform")]
impl Platform {
    #[cfg(not(any()))]
    pub fn os(&self) -> String {
        "a".into()
    }

    #[cfg(all())]
    #[tool(name = "os")]
    pub fn os_again(&self) -> String {
        "b".into()
    }

    #[cfg(any())]
    #[tool(name = "os")]
    pub fn never(&self) -> String {
        "c".into()
    }
}

fn main() {}
