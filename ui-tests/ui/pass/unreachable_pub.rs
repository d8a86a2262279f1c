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
}

fn main() {
    let _ = mcp::Server::new(inner::Private).build().unwrap();
}
