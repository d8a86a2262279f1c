// The rule is judged by type: an alias of a type without a JSON Schema is rejected even
// though its name looks harmless.
type Amount = std::time::Instant;

struct Bank;

#[mcp::service(name = "bank")]
impl Bank {
    pub fn deposit(&self, amount: Amount) -> String {
        format!("{amount:?}")
    }
}

fn main() {}
