// `elicit_form` takes a `mcp::FormSchema` value or a named form type, not arbitrary JSON.
fn main() {
    let schema = serde_json::json!({"properties": {"ok": {"type": "boolean"}}});
    let _ = mcp::elicit_form("Continue?", schema);
}
