//! Template variables are read from their text by type: a `FromStr` enum, a unit-variant
//! serde enum (neither has a JSON Schema), an integer, a bool, `Option`s of them (always
//! `Some`), and aliases (judged by what they name), through `resources/read`.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use std::str::FromStr;

use support::*;

/// Read with `FromStr` (not `Deserialize`).
#[derive(Debug)]
enum Format {
    Json,
    Csv,
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "json" => Ok(Self::Json),
            "csv" => Ok(Self::Csv),
            other => Err(format!("unknown format `{other}`")),
        }
    }
}

/// Read with serde (not `FromStr`).
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Metric,
    Imperial,
}

type Count = u16;
type Layout = Format;

struct Reports;

#[mcp::service(name = "reports")]
impl Reports {
    /// A report.
    #[resource(template = "reports://{format}/{unit}/{year}/{draft}{?limit}")]
    fn report(&self, format: Format, unit: Unit, year: i32, draft: bool, limit: Option<Count>) -> String {
        format!("{format:?} {unit:?} {year} {draft} {limit:?}")
    }

    /// A report laid out two ways.
    #[resource(template = "reports://layout/{layout}{?also}")]
    fn layout(&self, layout: Layout, also: Option<Format>) -> String {
        format!("{layout:?} {also:?}")
    }

    #[complete(template = "reports://{format}/{unit}/{year}/{draft}{?limit}", argument = "unit")]
    fn units(&self, prefix: String) -> Vec<String> {
        ["metric", "imperial"].iter().filter(|u| u.starts_with(&prefix)).map(|u| u.to_string()).collect()
    }
}

fn main() {
    assert_eq!(read_text(&Reports, "reports://JSON/metric/2024/true?limit=7").unwrap(), "Json Metric 2024 true Some(7)");
    assert_eq!(read_text(&Reports, "reports://csv/imperial/-1/false?limit=0").unwrap(), "Csv Imperial -1 false Some(0)");
    assert_eq!(read_text(&Reports, "reports://layout/csv?also=json").unwrap(), "Csv Some(Json)");
    for (uri, problem) in [
        ("reports://xml/metric/2024/true?limit=1", "unknown format `xml`"),
        ("reports://json/kelvin/2024/true?limit=1", "unknown variant `kelvin`"),
        ("reports://json/metric/soon/true?limit=1", "`year`"),
        ("reports://json/metric/2024/yes?limit=1", "`draft`"),
        ("reports://json/metric/2024/true?limit=70000", "`limit`"),
        ("reports://layout/csv?also=xml", "unknown format `xml`"),
    ] {
        let error = read_text(&Reports, uri).unwrap_err().to_string();
        assert!(error.contains(problem), "{uri}: {error}");
        assert!(error.starts_with("Invalid resource URI for "), "{uri}: {error}");
    }
    let units = mcp::Reference::Resource { uri: "reports://{format}/{unit}/{year}/{draft}{?limit}".into() };
    assert_eq!(completions(&Reports, units, "unit", "im").unwrap(), ["imperial"]);
}
