//! `#[expect(deprecated)]` acknowledges an MCP_WARNING as `#[allow(deprecated)]` does, on
//! the method or on the impl, and is fulfilled by it (this file denies warnings, so an
//! unfulfilled expectation fails it).
#![deny(warnings)]

struct Cart;

#[mcp::service(name = "cart")]
impl Cart {
    #[expect(deprecated)] // MCP_WARNING_204: `None` for modern requests is handled
    pub fn add_item(&self, session: Option<mcp::Session>, item: String) -> String {
        match session {
            Some(_) => item,
            None => format!("{item} (no session)"),
        }
    }

    pub fn count(&self) -> u32 {
        0
    }
}

struct Basket;

#[expect(deprecated)]
#[mcp::service(name = "basket")]
impl Basket {
    pub fn add_item(&self, session: Option<mcp::Session>, item: String) -> String {
        let _ = session;
        item
    }
}

struct Legacy;

#[mcp::service(name = "legacy", protocol_mode = "modern")]
impl Legacy {
    #[expect(deprecated)] // MCP_WARNING_203
    pub fn visit(&self, session: Option<mcp::Session>) -> bool {
        session.is_some()
    }
}

fn main() {
    let _ = mcp::Server::builder(Cart).build().unwrap();
    let _ = mcp::Server::builder(Basket).build().unwrap();
    let _ = mcp::Server::builder(Legacy).build().unwrap();
}
