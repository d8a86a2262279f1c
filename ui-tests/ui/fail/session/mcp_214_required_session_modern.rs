// The rule is judged by type: an alias of `mcp::HttpSession` is a session too.
type Session = mcp::HttpSession;

struct Cart;

#[mcp::service(name = "cart", protocol_mode = "modern")]
impl Cart {
    pub fn add_item(&self, session: Session, item: String) -> String {
        let _ = session;
        item
    }
}

fn main() {}
