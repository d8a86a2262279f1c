// A form is flat: a nested struct cannot be a form field. Judged by type, so an alias of a
// struct is rejected too.
#[derive(serde::Deserialize)]
struct Address {
    street: String,
}

type Home = Address;

#[derive(serde::Deserialize, mcp::Form)]
struct Signup {
    name: String,
    home: Home,
}

fn main() {}
