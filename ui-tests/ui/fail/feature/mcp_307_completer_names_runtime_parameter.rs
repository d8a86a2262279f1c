struct Reviews;

type Ctx = mcp::Context;

#[mcp::service(name = "reviews")]
impl Reviews {
    /// Reviews code.
    #[prompt]
    fn review(&self, language: String, meta: Option<mcp::RequestMeta>, cx: Ctx) -> String {
        let _ = (meta, cx);
        format!("Review this {language} code")
    }

    #[complete(prompt = "review", argument = "meta")]
    fn metas(&self, value: String) -> Vec<String> {
        vec![value]
    }
}

fn main() {}
