struct Lights;

#[mcp::service(name = "lights")]
impl Lights {
    #[tool(structured_output = true)]
    pub fn switch_off(&self) {}
}

fn main() {}
