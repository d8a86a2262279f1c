// The rule is judged by type: an alias of `mcp::Session` is a session too.
type Session = mcp::Session;

struct Cart;

#[mcp::service(name = "cart", protocol_mode = "modern")]
impl Cart {
    pub fn add_item(&self, session: Session, item: String) -> String {
        let _ = session;
        item
    }
}

fn main() {}
