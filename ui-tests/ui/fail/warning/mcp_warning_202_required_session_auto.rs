struct Cart;

#[mcp::service(name = "cart", protocol_mode = "auto")]
impl Cart {
    pub fn add_item(&self, session: mcp::Session, item: String) -> String {
        let _ = session;
        item
    }
}

fn main() {
    __FAIL__;
}
