//! MCP_WARNING_901 is a deprecation warning raised in the method: `#[allow(deprecated)]`
//! or `#[expect(deprecated)]` on it (or on the impl) acknowledges it, and `#[tool(skip)]`
//! or a private method avoids it.
#![deny(warnings)]

mod notes {
    pub(crate) struct Notes;

    #[mcp::service(name = "notes")]
    impl Notes {
        pub fn list_notes(&self) -> Vec<String> {
            self.load()
        }

        #[allow(deprecated)] // MCP_WARNING_901: a crate-internal helper on purpose
        pub(crate) fn load(&self) -> Vec<String> {
            Vec::new()
        }

        #[expect(deprecated)] // MCP_WARNING_901
        pub(super) fn count(&self) -> usize {
            self.load().len() + self.private_helper()
        }

        #[tool(skip)]
        pub fn size(&self) -> usize {
            0
        }

        fn private_helper(&self) -> usize {
            self.size()
        }
    }
}

fn main() {
    let _ = notes::Notes.count();
    let _ = mcp::Server::builder(notes::Notes).build().unwrap();
}
