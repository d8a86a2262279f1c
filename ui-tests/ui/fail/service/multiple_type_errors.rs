// Type rules are checked by the compiler: every violation of one impl block is reported in
// one compile, each on its parameter or return type.
struct Point {
    _x: f64,
}

#[derive(serde::Serialize)]
struct Reading {
    celsius: f64,
}

struct Sensor;

#[mcp::service(name = "sensor", protocol_mode = "modern")]
impl Sensor {
    pub fn locate(&self, point: Point, meta: mcp::RequestMeta) -> f64 {
        let _ = meta;
        point._x
    }

    #[tool(structured_output = true)]
    pub fn read(&self, session: mcp::Session) -> Reading {
        let _ = session;
        Reading { celsius: 21.5 }
    }
}

fn main() {}
