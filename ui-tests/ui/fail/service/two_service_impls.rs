struct Weather;

#[mcp::service(name = "weather")]
impl Weather {
    pub fn forecast(&self) -> String {
        String::new()
    }
}

#[mcp::service(name = "weather")]
impl Weather {
    pub fn alerts(&self) -> String {
        String::new()
    }
}

fn main() {}
