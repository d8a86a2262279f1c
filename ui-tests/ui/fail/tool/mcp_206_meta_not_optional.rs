struct Calculator;

#[mcp::service(name = "calculator")]
impl Calculator {
    pub fn add(&self, left: i64, right: i64, meta: mcp::RequestMeta) -> i64 {
        let _ = meta;
        left + right
    }
}

fn main() {}
