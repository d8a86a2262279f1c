//! MCP_WARNING_204 is a deprecation warning: `#[allow(deprecated)]` on the method or on the
//! impl silences it (this file denies it, so it compiles only if the allow reaches the
//! generated checks).
#![deny(deprecated)]
#![deny(warnings)]

struct Cart;

#[mcp::service(name = "cart")]
impl Cart {
    #[allow(deprecated)]
    pub fn add_item(&self, session: Option<mcp::Session>, item: String) -> String {
        let _ = session;
        item
    }
}

struct Basket;

#[allow(deprecated)]
#[mcp::service(name = "basket")]
impl Basket {
    pub fn add_item(&self, session: Option<mcp::Session>, item: String) -> String {
        let _ = session;
        item
    }
}

fn main() {
    let _ = mcp::Server::builder(Cart).build().unwrap();
    let _ = mcp::Server::builder(Basket).build().unwrap();
}
