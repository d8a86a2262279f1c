struct S;

#[mcp::service(name = "s")]
impl S {
    pub fn pick<'a, T: serde::de::DeserializeOwned>(&'a self, value: T) -> &'a str {
        let _ = value;
        "x"
    }
}

fn main() {}
