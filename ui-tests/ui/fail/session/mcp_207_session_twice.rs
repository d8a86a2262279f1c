struct Cart;

#[mcp::service(name = "cart", protocol_mode = "legacy")]
impl Cart {
    pub fn add_item(&self, session: mcp::Session, item: String, maybe: Option<mcp::Session>) -> String {
        let _ = (session, maybe);
        item
    }
}

fn main() {}
