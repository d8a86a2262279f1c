struct Notes;

#[mcp::service(name = "notes")]
impl Notes {
    pub fn list_notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Deletes a note.
    pub(crate) fn delete_note(&self, id: u32) -> bool {
        id > 0
    }
}

fn main() {
    __FAIL__;
}
