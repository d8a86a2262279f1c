struct Cart;

#[mcp::service(name = "cart", protocol_mode = "legacy")]
impl Cart {
    pub fn add_item(&self, session: mcp::HttpSession, item: String, maybe: Option<mcp::HttpSession>) -> String {
        let _ = (session, maybe);
        item
    }
}

fn main() {}
