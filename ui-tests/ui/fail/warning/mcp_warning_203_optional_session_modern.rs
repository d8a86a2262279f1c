struct Cart;

#[mcp::service(name = "cart", protocol_mode = "modern")]
impl Cart {
    pub fn add_item(&self, session: Option<mcp::Session>, item: String) -> String {
        let _ = session;
        item
    }
}

fn main() {
    __FAIL__;
}
