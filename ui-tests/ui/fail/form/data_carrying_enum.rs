#[derive(serde::Deserialize, mcp::Form)]
enum Seating {
    Indoor,
    Outdoor { heated: bool },
    Bar(u8),
}

#[derive(serde::Deserialize, mcp::Form)]
struct Pair(u32, u32);

fn main() {}
