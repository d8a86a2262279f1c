#[derive(serde::Deserialize)]
struct Booking {
    guests: u32,
}

fn main() {
    let _ = mcp::elicit_form("Book a table", mcp::form_of::<Booking>());
}
