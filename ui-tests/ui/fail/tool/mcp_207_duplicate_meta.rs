struct Calculator;

#[mcp::service(name = "calculator")]
impl Calculator {
    pub fn add(
        &self,
        left: i64,
        meta: Option<mcp::RequestMeta>,
        right: i64,
        again: Option<mcp::RequestMeta>,
    ) -> i64 {
        let _ = (meta, again);
        left + right
    }
}

fn main() {}
