#[derive(serde::Serialize)]
struct Reading {
    celsius: f64,
}

struct Sensor;

#[mcp::service(name = "sensor")]
impl Sensor {
    #[tool(structured_output = true)]
    pub fn read(&self) -> Result<Reading, mcp::ToolError> {
        Ok(Reading { celsius: 21.5 })
    }
}

fn main() {}
