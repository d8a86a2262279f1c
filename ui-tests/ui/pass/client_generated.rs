//! The typed clients `#[mcp::service(client)]` and `#[mcp::client]` generate compile
//! without a warning, `missing_docs` included: tools with arguments, structured output, a
//! `Result`, a runtime parameter left out; a static resource, a resource template, a prompt
//! and a completer; a trait client with a renamed tool. The calls are type-checked in an
//! async fn that is never run (no network).
#![deny(warnings, missing_docs)]

use std::collections::BTreeMap;

use mcp::client::typed::TypedClient;
use mcp::client::{CallError, ClientError};
use serde::{Deserialize, Serialize};

/// A weather report.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Debug, PartialEq)]
pub struct Report {
    /// The city.
    pub city: String,
    /// Degrees Celsius.
    pub temperature: f64,
}

/// A unit of temperature.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Debug, PartialEq, Clone, Copy)]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// The weather service.
pub struct Weather;

#[mcp::service(name = "weather", version = "1.0.0", client)]
impl Weather {
    /// The current weather in a city.
    pub fn get_current_weather(&self, city: String, unit: Option<Unit>) -> Report {
        let _ = unit;
        Report {
            city,
            temperature: 21.5,
        }
    }

    /// Adds, reporting progress through the runtime parameter the client leaves out.
    pub async fn add(&self, a: i64, b: i64, context: mcp::Context) -> i64 {
        context.progress(1.0, 1.0, None).await;
        a + b
    }

    /// Divides, failing as a tool on zero.
    pub fn divide(&self, a: f64, b: f64) -> Result<f64, mcp::ToolError> {
        if b == 0.0 {
            Err(mcp::ToolError::new("division by zero"))
        } else {
            Ok(a / b)
        }
    }

    /// Greets (a borrowed argument is sent as a `String`).
    pub fn greet(&self, name: &str) -> String {
        format!("hello {name}")
    }

    /// Does nothing.
    pub fn ping(&self) {}

    /// The readme.
    #[resource(uri = "docs://readme", mime_type = "text/plain")]
    fn readme(&self) -> String {
        "read me".into()
    }

    /// A city's page for a day.
    #[resource(template = "weather://{city}/day/{day}")]
    fn day(&self, city: String, day: u32) -> String {
        format!("{city} on day {day}")
    }

    /// A forecast prompt.
    #[prompt]
    fn forecast(&self, city: String, style: Option<String>) -> String {
        format!("Forecast for {city} ({})", style.unwrap_or_default())
    }

    /// Completes city names.
    #[complete(prompt = "forecast", argument = "city")]
    fn cities(&self, value: String) -> Vec<String> {
        ["Oslo", "Paris"]
            .into_iter()
            .filter(|c| c.starts_with(&value))
            .map(str::to_owned)
            .collect()
    }
}

/// The weather service as another team describes it.
#[mcp::client(name = "Forecasts")]
pub trait Forecast {
    /// The weather now.
    async fn get_current_weather(&self, city: String, unit: Option<Unit>) -> Report;
    /// Adds.
    fn add(&self, a: i64, b: i64) -> i64;
    /// Says hello, under the tool's own name.
    #[tool(name = "greet")]
    fn hello(&self, name: String) -> String;
}

/// Every generated method, with its argument and output types (never run).
#[allow(dead_code)]
async fn calls(weather: WeatherClient, forecasts: Forecasts) -> Result<(), CallError> {
    let report: Report = weather
        .get_current_weather("Oslo", Some(Unit::Celsius))
        .await?;
    assert_eq!(report.city, "Oslo");
    let sum: i64 = weather
        .add(2, 40)
        .timeout(std::time::Duration::from_secs(1))
        .await?;
    let quotient: f64 = weather.divide(1.0, 4.0).await?;
    let greeting: String = weather.greet(String::from("ana")).await?;
    weather.ping().await?;
    let _ = (sum, quotient, greeting);
    let read: Result<mcp::ReadResourceResult, ClientError> = weather.readme().await;
    let _ = read?;
    let _ = weather.day("Oslo", 3).await?;
    let _ = weather.forecast("Oslo", None).await?;
    let _ = weather.forecast("Oslo", Some("short".into())).await?;
    let _ = weather.cities("Os", BTreeMap::new()).await?;
    if let Err(e) = weather.verify().await {
        panic!("{e}");
    }

    let report: Report = forecasts.get_current_weather("Rome", None).await?;
    let sum: i64 = forecasts.add(1, 2).await?;
    let greeting: String = forecasts.hello("ana").await?;
    let _ = (report, sum, greeting, Forecasts::expected_tools());
    Ok(())
}

fn main() {
    // The service still builds as a server; the clients exist beside it.
    let server = mcp::Server::builder(Weather).build().unwrap();
    assert_eq!(server.info().name, "weather");
    assert_eq!(WeatherClient::expected_tools().len(), 5);
    assert_eq!(Forecasts::expected_tools().len(), 3);
}
