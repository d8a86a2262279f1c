//! A private service type under `unreachable_pub`: the tools the macro serves are not
//! reported (the lint's fix, `pub(crate)`, would silently remove them).
#![deny(warnings)]
#![deny(unreachable_pub)]

mod inner {
    pub(crate) struct Private;

    #[mcp::service(name = "private")]
    impl Private {
        pub fn ping(&self) -> String {
            "pong".into()
        }
    }

    pub(crate) struct Router;

    #[mcp::service(name = "router", advanced)]
    impl Router {
        pub fn on_list_tools(&self) -> mcp::ListToolsResult {
            mcp::ListToolsResult::default()
        }

        pub fn on_call_tool(&self, params: mcp::CallToolParams) -> mcp::CallToolResult {
            mcp::CallToolResult::text(params.name)
        }
    }
}

fn main() {
    let _ = mcp::Server::builder(inner::Private).build().unwrap();
    let _ = mcp::Server::builder(inner::Router).build().unwrap();
}
