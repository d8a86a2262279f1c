//! MCP_WARNING_202 is a deprecation warning: `#[allow(deprecated)]` on the impl silences it
//! (this file denies it, so it compiles only if the allow reaches the generated check).
#![deny(deprecated)]
#![deny(warnings)]

struct Cart;

#[mcp::service(name = "cart", protocol_mode = "auto")]
#[allow(deprecated)]
impl Cart {
    pub fn add_item(&self, session: mcp::Session, item: String) -> String {
        let _ = session;
        item
    }
}

fn main() {
    let _ = mcp::Server::builder(Cart).build().unwrap();
}
