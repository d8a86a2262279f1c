// The macro reads runtime parameters by their written name: through an alias, `Ctx` reads
// as an argument the client would send, while the compiler knows it is `mcp::Context`.
type Ctx = mcp::Context;

struct Jobs;

#[mcp::service(name = "jobs", client)]
impl Jobs {
    /// Runs a job.
    pub async fn run(&self, job: String, ctx: Ctx) -> String {
        let _ = ctx;
        job
    }
}

fn main() {}
