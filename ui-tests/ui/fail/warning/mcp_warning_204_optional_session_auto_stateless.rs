struct Cart;

#[mcp::service(name = "cart", session_mode = "stateless")]
impl Cart {
    pub fn add_item(&self, session: Option<mcp::Session>, item: String) -> String {
        let _ = session;
        item
    }
}

fn main() {
    __FAIL__;
}
