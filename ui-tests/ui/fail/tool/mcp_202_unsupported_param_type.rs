struct Point {
    _x: f64,
    _y: f64,
}

struct Geometry;

#[mcp::service(name = "geometry")]
impl Geometry {
    pub fn norm(&self, point: Point) -> f64 {
        (point._x * point._x + point._y * point._y).sqrt()
    }
}

fn main() {}
