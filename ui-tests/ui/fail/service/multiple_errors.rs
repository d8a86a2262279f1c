// Every error of the block is reported in one compile, each at its own token: the macro's
// own errors and, because the type checks are still emitted, the compiler's (MCP_202, 206).
struct Weather;

struct Point {
    _x: f64,
}

#[mcp::service(name = "weather")]
impl Weather {
    pub fn forecast(
        &self,
        #[argument(header = "Region")] region: String,
        #[argument(header = "REGION")] zone: String,
        #[argument(header = "bad name")] city: String,
    ) -> String {
        format!("{region}/{zone}/{city}")
    }

    #[tool(name = "forecast")]
    pub fn forecast_again(&self) -> String {
        String::new()
    }

    #[tool(structured_output = false, output_schema = r#"{"type": "string"}"#)]
    pub fn summary(&self) -> String {
        String::new()
    }

    pub fn locate(&self, point: Point, meta: mcp::RequestMeta) -> f64 {
        let _ = meta;
        point._x
    }
}

fn main() {}
