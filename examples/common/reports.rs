//! The reports service: a slow report generator that runs as a task (the tasks extension,
//! `io.modelcontextprotocol/tasks`). A client that declares the extension gets a task
//! handle at once and polls it (`mcp_call call --task generate_report …`); each section
//! written becomes the task's status message; a client that does not declare it waits
//! for the report. With `appendix: true` the tool first asks, through the task, which
//! data the appendix should cover.

use std::time::Duration;

use mcp::{Context, InputRequired, ToolOutput};
use serde::{Deserialize, Serialize};

/// A section of a report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Section {
    /// The section's title.
    pub title: String,
    /// What the section says.
    pub summary: String,
}

/// A finished report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Report {
    /// What the report is about.
    pub topic: String,
    /// Its sections, in order.
    pub sections: Vec<Section>,
    /// The appendix, when one was asked for.
    pub appendix: Option<String>,
}

/// What the appendix covers (asked through the task).
#[derive(Deserialize, schemars::JsonSchema, mcp::Form)]
pub struct AppendixScope {
    /// The data the appendix lists
    pub data: String,
}

/// The reports service; `section_time` is how long writing one section takes.
#[derive(Clone, Debug)]
pub struct Reports {
    section_time: Duration,
}

impl Reports {
    /// Sections take `section_time` each.
    pub fn new(section_time: Duration) -> Self {
        Self { section_time }
    }
}

impl Default for Reports {
    /// One second per section.
    fn default() -> Self {
        Self::new(Duration::from_secs(1))
    }
}

const TITLES: [&str; 6] = [
    "Summary",
    "Revenue",
    "Costs",
    "Customers",
    "Risks",
    "Outlook",
];

#[mcp::service(name = "reports", version = "1.0.0", client)]
impl Reports {
    /// Writes a report on `topic` with `sections` sections (1 to 6, default 4): about a
    /// second each, so clients that declare the tasks extension get it as a task. With
    /// `appendix`, asks first what the appendix should list.
    #[tool(task = "optional")]
    pub async fn generate_report(
        &self,
        ctx: Context,
        topic: String,
        sections: Option<u32>,
        appendix: Option<bool>,
    ) -> Result<ToolOutput<Report>, mcp::ToolError> {
        let count = sections.unwrap_or(4);
        if !(1..=6).contains(&count) {
            return Err(mcp::ToolError::new("sections must be between 1 and 6"));
        }
        let appendix = match appendix {
            Some(true) => match ctx.accepted_content::<AppendixScope>("appendix") {
                Some(scope) => Some(format!("Data listed: {}", scope.data)),
                None => {
                    return Ok(InputRequired::new()
                        .elicit(
                            "appendix",
                            mcp::elicit_form(
                                "What should the appendix list?",
                                mcp::form_of::<AppendixScope>(),
                            ),
                        )
                        .into());
                }
            },
            _ => None,
        };
        let mut written = Vec::new();
        for (i, title) in TITLES.iter().take(count as usize).enumerate() {
            tokio::time::sleep(self.section_time).await;
            written.push(Section {
                title: (*title).to_owned(),
                summary: format!("{title} of {topic}: steady."),
            });
            let done = i + 1;
            ctx.progress(
                done as f64,
                f64::from(count),
                Some(&format!("wrote section {done}/{count}: {title}")),
            )
            .await;
        }
        Ok(ToolOutput::Done(Report {
            topic,
            sections: written,
            appendix,
        }))
    }
}
