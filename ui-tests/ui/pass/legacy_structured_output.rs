//! `legacy_structured_output`: on the service and on tools (a tool's value wins), it becomes
//! the service's configuration and the handler's per-tool answer.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use mcp::__private::ServiceHandler as _;
use serde_json::json;
use support::*;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Forecast {
    city: String,
    celsius: i64,
}

struct Weather;

#[mcp::service(name = "weather", version = "1.0.0", legacy_structured_output = true)]
impl Weather {
    /// Follows the service.
    pub fn forecast(&self, city: String) -> Forecast {
        Forecast { city, celsius: 21 }
    }

    /// Opted out.
    #[tool(legacy_structured_output = false)]
    pub async fn forecast_text(&self, city: String) -> Forecast {
        Forecast { city, celsius: 21 }
    }
}

struct Plain;

#[mcp::service(name = "plain", version = "1.0.0", protocol_mode = "legacy")]
impl Plain {
    /// Opted in on a service that is off.
    #[tool(legacy_structured_output = true, structured_output = true)]
    pub fn forecast(&self, city: String) -> Forecast {
        Forecast { city, celsius: 21 }
    }

    /// Follows the service.
    pub fn echo(&self, text: String) -> String {
        text
    }
}

fn main() {
    assert!(mcp::Server::builder(Weather).build().unwrap().legacy_structured_output());
    assert_eq!(Weather.legacy_structured_output("forecast"), None);
    assert_eq!(Weather.legacy_structured_output("forecast_text"), Some(false));
    assert!(!mcp::Server::builder(Plain).build().unwrap().legacy_structured_output());
    assert_eq!(Plain.legacy_structured_output("forecast"), Some(true));
    assert_eq!(Plain.legacy_structured_output("echo"), None);
    assert_eq!(Plain.legacy_structured_output("missing"), None);

    assert_eq!(result(&Weather, "forecast", json!({"city": "Oslo"})).structured_content, Some(json!({"city": "Oslo", "celsius": 21})));
    assert_eq!(tool(&Plain, "forecast")["outputSchema"]["type"], "object");
    for svc in [server(Weather), server(Plain)] {
        let _ = mcp::transport::http::router("/mcp", svc);
    }
}
