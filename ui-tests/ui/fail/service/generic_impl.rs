struct Store<T>(T);

#[mcp::service(name = "store")]
impl<T: Send + Sync + 'static> Store<T> {
    pub fn count(&self) -> u32 {
        0
    }
}

fn main() {}
