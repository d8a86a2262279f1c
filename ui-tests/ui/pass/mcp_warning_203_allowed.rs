//! MCP_WARNING_203 is a deprecation warning: `#[allow(deprecated)]` on the method silences
//! it (this file denies it, so it compiles only if the allow reaches the generated check).
#![deny(deprecated)]
#![deny(warnings)]

struct Cart;

#[mcp::service(name = "cart", protocol_mode = "modern")]
impl Cart {
    #[allow(deprecated)]
    pub fn add_item(&self, session: Option<mcp::Session>, item: String) -> String {
        let _ = session;
        item
    }
}

fn main() {
    let _ = mcp::Server::builder(Cart).build().unwrap();
}
