//! A notes server: documentation pages as static resources, every note behind a resource
//! template, two prompts whose arguments complete, a slow tool that logs and reports its
//! progress (re-indexing), and a tool that asks the client's model (sampling). It is the
//! example to copy for anything beyond tools.
//!
//! ```text
//! resources/list            notes://index, notes://style-guide
//! resources/templates/list  notes://notes/{slug}
//! resources/read            notes://notes/release-checklist
//! prompts/get               summarize {slug, audience?}, review {slug, focus}
//! completion/complete       slug (prompt `summarize`, template notes://notes/{slug}), focus
//! tools/call                search {query}, reindex {} (logs, progress), title_for {slug} (sampling)
//! ```

use std::collections::BTreeMap;
use std::time::Duration;

use mcp::{Completion, PromptMessage, ResourceContents, Role, ServerError};

/// The notes the server starts with: slug → (title, markdown).
const NOTES: [(&str, &str, &str); 3] = [
    (
        "release-checklist",
        "Release checklist",
        "# Release checklist\n\n1. Run `scripts/test.sh`.\n2. Tag the release.\n3. Publish the crates.\n",
    ),
    (
        "retro-2026-11",
        "Retrospective, November",
        "# Retrospective\n\n- Went well: conformance.\n- To improve: flaky interop runs.\n",
    ),
    (
        "style-notes",
        "Writing style",
        "# Writing style\n\nShort sentences. One idea per paragraph.\n",
    ),
];

/// The review focuses the `review` prompt knows.
const FOCUSES: [&str; 4] = ["accuracy", "clarity", "completeness", "tone"];

/// The notes service.
#[derive(Clone, Debug)]
pub struct Notes {
    notes: BTreeMap<String, (String, String)>,
}

impl Default for Notes {
    fn default() -> Self {
        Self::new()
    }
}

impl Notes {
    /// The service with its sample notes.
    pub fn new() -> Self {
        let notes = NOTES
            .iter()
            .map(|(slug, title, body)| {
                (
                    (*slug).to_owned(),
                    ((*title).to_owned(), (*body).to_owned()),
                )
            })
            .collect();
        Self { notes }
    }

    fn note(&self, slug: &str) -> Result<&(String, String), ServerError> {
        self.notes
            .get(slug)
            .ok_or_else(|| ServerError::invalid_params(format!("Unknown note: {slug}")))
    }

    fn slugs(&self, prefix: &str) -> Vec<String> {
        self.notes
            .keys()
            .filter(|s| s.starts_with(prefix))
            .cloned()
            .collect()
    }
}

#[mcp::service(
    name = "notes",
    version = "1.0.0",
    instructions = "Notes and documentation: read notes://index first."
)]
impl Notes {
    /// The list of notes, one line per note: `slug: title`.
    #[resource(uri = "notes://index", mime_type = "text/plain", annotations(audience = ["assistant"], priority = 1.0))]
    async fn index(&self) -> String {
        self.notes
            .iter()
            .map(|(slug, (title, _))| format!("{slug}: {title}\n"))
            .collect()
    }

    /// How notes are written here.
    #[resource(
        uri = "notes://style-guide",
        name = "style-guide",
        title = "Style guide",
        mime_type = "text/markdown"
    )]
    fn style_guide(&self) -> String {
        "# Style guide\n\nTitles in sentence case; one `#` heading per note.\n".into()
    }

    /// One note, as markdown (`None`, an unknown slug, is answered "Resource not found").
    #[resource(
        template = "notes://notes/{slug}",
        name = "note",
        mime_type = "text/markdown"
    )]
    async fn note_body(&self, slug: String) -> Option<String> {
        self.notes.get(&slug).map(|(_, body)| body.clone())
    }

    /// Summarize a note for an audience.
    ///
    /// # Arguments
    /// * `slug` - The note to summarize.
    /// * `audience` - Who the summary is for (default: the team).
    #[prompt(title = "Summarize a note")]
    async fn summarize(
        &self,
        slug: String,
        audience: Option<String>,
    ) -> Result<Vec<PromptMessage>, ServerError> {
        let (title, body) = self.note(&slug)?;
        let audience = audience.unwrap_or_else(|| "the team".into());
        Ok(vec![
            PromptMessage::new(
                Role::User,
                mcp::Content::resource(
                    ResourceContents::text(format!("notes://notes/{slug}"), body.clone())
                        .with_mime_type("text/markdown"),
                ),
            ),
            PromptMessage::user(format!(
                "Summarize \"{title}\" above for {audience} in three bullet points."
            )),
        ])
    }

    /// Review a note with one focus.
    ///
    /// # Arguments
    /// * `slug` - The note to review.
    /// * `focus` - What to look at: accuracy, clarity, completeness or tone.
    #[prompt]
    fn review(&self, slug: String, focus: String) -> Result<String, ServerError> {
        let (title, body) = self.note(&slug)?;
        Ok(format!(
            "Review the note \"{title}\" for {focus}:\n\n{body}"
        ))
    }

    #[complete(prompt = "summarize", argument = "slug")]
    fn complete_summary_slug(&self, prefix: String) -> Vec<String> {
        self.slugs(&prefix)
    }

    #[complete(prompt = "review", argument = "slug")]
    fn complete_review_slug(&self, prefix: String) -> Vec<String> {
        self.slugs(&prefix)
    }

    #[complete(prompt = "review", argument = "focus")]
    fn complete_focus(&self, prefix: String, _others: BTreeMap<String, String>) -> Completion {
        let values: Vec<String> = FOCUSES
            .iter()
            .filter(|f| f.starts_with(&prefix))
            .map(|f| (*f).to_owned())
            .collect();
        let total = values.len() as u64;
        Completion::new(values)
            .with_total(total)
            .with_has_more(false)
    }

    #[complete(template = "notes://notes/{slug}", argument = "slug")]
    fn complete_note(&self, prefix: String) -> Vec<String> {
        self.slugs(&prefix)
    }

    /// Searches the notes; returns the slugs whose text contains `query` (case-insensitive).
    pub fn search(&self, query: String) -> Vec<String> {
        let needle = query.to_lowercase();
        self.notes
            .iter()
            .filter(|(_, (title, body))| {
                title.to_lowercase().contains(&needle) || body.to_lowercase().contains(&needle)
            })
            .map(|(slug, _)| slug.clone())
            .collect()
    }

    /// Rebuilds the search index (slow: about 300 ms); returns how many notes it indexed.
    /// Logs each note and reports progress (when the client sent a progress token); stops
    /// early when the client cancels the call.
    pub async fn reindex(&self, ctx: mcp::Context) -> usize {
        let total = self.notes.len();
        ctx.log(mcp::LogLevel::Info, format!("re-indexing {total} notes"))
            .await;
        for (done, slug) in self.notes.keys().enumerate() {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(100)) => {}
                () = ctx.cancelled() => {
                    ctx.log(mcp::LogLevel::Warning, "re-indexing cancelled").await;
                    return done;
                }
            }
            ctx.log(mcp::LogLevel::Debug, format!("indexed {slug}"))
                .await;
            let message = format!("indexed {slug}");
            ctx.progress((done + 1) as f64, total as f64, Some(message.as_str()))
                .await;
        }
        total
    }

    /// Proposes a better title for a note by asking the client's model (sampling).
    ///
    /// # Arguments
    ///
    /// * `slug` - The note to retitle
    pub async fn title_for(
        &self,
        ctx: mcp::Context,
        slug: String,
    ) -> Result<String, mcp::ToolError> {
        let Some((title, body)) = self.notes.get(&slug) else {
            return Err(mcp::ToolError::new(format!("No note named {slug}")));
        };
        let question = format!(
            "Propose a better title than {title:?} for this note. Answer with the title only.\n\n{body}"
        );
        let request = mcp::SamplingRequest::new(vec![mcp::SamplingMessage::user(question)], 40);
        let answer = ctx.sample(request).await?;
        Ok(answer.text().unwrap_or_default().trim().to_owned())
    }
}
