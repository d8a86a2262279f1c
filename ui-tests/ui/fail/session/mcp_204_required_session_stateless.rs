// The rule is judged by type: an alias of `mcp::Session` is a session too.
type Session = mcp::Session;

struct Cart;

#[mcp::service(name = "cart", session_mode = "stateless", protocol_mode = "legacy")]
impl Cart {
    pub fn add_item(&self, session: Session, item: String) -> String {
        let _ = session;
        item
    }
}

fn main() {}
