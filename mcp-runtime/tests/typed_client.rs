//! The typed clients: `#[mcp::service(client)]` and `#[mcp::client]`, in-process on both
//! eras — arguments, runtime parameters left out, outputs decoded from structured content
//! and from text, tool errors apart from protocol errors, resources, templates, prompts,
//! completion, per-call options, elicitation through the client's handler, and `verify`.
#![allow(missing_docs)] // the tools' types are `pub` for the generated clients

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::client::typed::{Mismatch, TypedClient};
use mcp::client::{CallError, ClientConfig, ProtocolMode};
use mcp::{ElicitAction, ElicitRequest, ElicitResult, InputRequired, ToolOutput};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, schemars::JsonSchema, Debug, PartialEq)]
pub struct Report {
    pub city: String,
    pub temperature: f64,
    pub unit: Unit,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema, Debug, PartialEq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema, mcp::Form)]
pub struct Confirm {
    pub ok: bool,
}

pub struct Weather;

/// How many `wait_for_cancel` calls the server saw cancelled.
static CANCELLED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[mcp::service(name = "weather", version = "1.0.0", client)]
impl Weather {
    /// The current weather in a city.
    pub fn get_current_weather(&self, city: String, unit: Option<Unit>) -> Report {
        let unit = unit.unwrap_or(Unit::Celsius);
        let temperature = if unit == Unit::Celsius { 21.5 } else { 70.7 };
        Report {
            city,
            temperature,
            unit,
        }
    }

    /// A plain string.
    pub fn greet(&self, name: &str) -> String {
        format!("hello {name}")
    }

    /// A number, and a runtime parameter the client leaves out.
    pub async fn add(&self, a: i64, b: i64, _meta: Option<mcp::RequestMeta>) -> i64 {
        a + b
    }

    /// Fails as a tool or as a protocol error.
    pub fn divide(&self, a: f64, b: f64) -> Result<f64, mcp::ToolError> {
        if b == 0.0 {
            Err(mcp::ToolError::new("division by zero"))
        } else {
            Ok(a / b)
        }
    }

    /// A JSON-RPC error.
    pub fn forbidden(&self) -> Result<(), mcp::ServerError> {
        Err(mcp::ServerError::invalid_params("not here"))
    }

    /// Reports progress, then answers.
    pub async fn slow(&self, steps: u32, context: mcp::Context) -> String {
        for i in 1..=steps {
            context
                .progress(f64::from(i), f64::from(steps), Some("working"))
                .await;
        }
        format!("{steps} steps")
    }

    /// Sleeps (for deadlines).
    pub async fn sleep(&self, millis: u64) -> String {
        tokio::time::sleep(Duration::from_millis(millis)).await;
        "awake".into()
    }

    /// Waits until cancelled, counting the cancellations it sees.
    pub async fn wait_for_cancel(&self, context: mcp::Context) -> String {
        let cancelled = context.cancelled();
        tokio::spawn(async move {
            cancelled.await;
            CANCELLED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        });
        tokio::time::sleep(Duration::from_secs(30)).await;
        "never".into()
    }

    /// Asks for a confirmation.
    pub async fn confirm(
        &self,
        what: String,
        context: mcp::Context,
    ) -> Result<ToolOutput<String>, mcp::ToolError> {
        match context.elicit_result("c") {
            None => Ok(InputRequired::new()
                .elicit(
                    "c",
                    mcp::elicit_form(format!("Delete {what}?"), mcp::form_of::<Confirm>()),
                )
                .into()),
            Some(r) if r.action == ElicitAction::Accept => {
                let ok = context
                    .accepted_content::<Confirm>("c")
                    .is_some_and(|c| c.ok);
                Ok(ToolOutput::Done(format!("{what}: {ok}")))
            }
            Some(_) => Ok(ToolOutput::Done("declined".into())),
        }
    }

    /// The readme.
    #[resource(uri = "docs://readme", mime_type = "text/plain")]
    fn readme(&self) -> String {
        "read me".into()
    }

    /// A city's page.
    #[resource(template = "weather://{city}/day/{day}")]
    fn day(&self, city: String, day: u32) -> String {
        format!("{city} on day {day}")
    }

    /// A forecast prompt.
    #[prompt]
    fn forecast(&self, city: String, style: Option<String>) -> String {
        format!(
            "Forecast for {city} ({})",
            style.unwrap_or_else(|| "plain".into())
        )
    }

    #[complete(prompt = "forecast", argument = "city")]
    fn cities(&self, value: String) -> Vec<String> {
        ["Oslo", "Osaka", "Paris"]
            .into_iter()
            .filter(|c| c.starts_with(&value))
            .map(str::to_owned)
            .collect()
    }
}

fn config(mode: ProtocolMode) -> ClientConfig {
    ClientConfig::new()
        .protocol_mode(mode)
        .timeout(Duration::from_secs(10))
        .elicitation_handler(|request: ElicitRequest| async move {
            assert!(request.params.message().contains("Delete"));
            Ok(ElicitResult::accept(
                serde_json::json!({"ok": true})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ))
        })
}

async fn weather(mode: ProtocolMode) -> WeatherClient {
    mcp::client::typed::in_process_with(Weather, config(mode))
        .await
        .expect("connects")
}

const ERAS: [ProtocolMode; 2] = [ProtocolMode::Modern, ProtocolMode::Legacy];

#[tokio::test]
async fn tools_take_their_types_and_return_theirs() {
    for mode in ERAS {
        let weather = weather(mode).await;
        let report = weather.get_current_weather("Oslo", None).await.unwrap();
        assert_eq!(report.temperature, 21.5, "{mode:?}");
        assert_eq!(report.city, "Oslo");
        let report = weather
            .get_current_weather("Oslo", Some(Unit::Fahrenheit))
            .await
            .unwrap();
        assert_eq!(report.unit, Unit::Fahrenheit);
        assert_eq!(weather.greet("ana").await.unwrap(), "hello ana");
        assert_eq!(weather.add(2, 40).await.unwrap(), 42);
        assert_eq!(weather.divide(1.0, 4.0).await.unwrap(), 0.25);
    }
}

#[tokio::test]
async fn tool_errors_are_apart_from_protocol_errors() {
    for mode in ERAS {
        let weather = weather(mode).await;
        match weather.divide(1.0, 0.0).await {
            Err(CallError::Tool {
                tool,
                message,
                result,
            }) => {
                assert_eq!(tool, "divide");
                assert_eq!(message, "division by zero");
                assert!(result.is_error());
            }
            other => panic!("{mode:?}: {other:?}"),
        }
        let e = weather.forbidden().await.unwrap_err();
        assert!(matches!(e, CallError::Client(_)), "{e:?}");
        assert_eq!(e.code(), Some(-32602));
    }
}

#[tokio::test]
async fn per_call_options_progress_deadline_meta() {
    for mode in ERAS {
        let weather = weather(mode).await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let out = weather
            .slow(3)
            .on_progress(move |p| sink.lock().unwrap().push((p.progress, p.total)))
            .meta(serde_json::Map::from_iter([(
                "trace".to_owned(),
                "x".into(),
            )]))
            .await
            .unwrap();
        assert_eq!(out, "3 steps");
        assert_eq!(
            *seen.lock().unwrap(),
            vec![(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))],
            "{mode:?}"
        );
        let late = weather
            .sleep(5_000)
            .timeout(Duration::from_millis(50))
            .await;
        assert!(
            matches!(late, Err(CallError::DeadlineExceeded { .. })),
            "{late:?}"
        );
        // The server keeps serving the connection.
        assert_eq!(weather.sleep(1).await.unwrap(), "awake");
    }
}

#[tokio::test]
async fn a_dropped_call_is_cancelled_on_the_server() {
    use std::sync::atomic::Ordering;
    for (i, mode) in ERAS.into_iter().enumerate() {
        let weather = weather(mode).await;
        let late = weather
            .wait_for_cancel()
            .timeout(Duration::from_millis(50))
            .await;
        assert!(
            matches!(late, Err(CallError::DeadlineExceeded { .. })),
            "{late:?}"
        );
        // The dropped future sent `notifications/cancelled`; the tool's context sees it.
        let seen = tokio::time::timeout(Duration::from_secs(5), async {
            while CANCELLED.load(Ordering::SeqCst) <= i {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
        assert!(
            seen.is_ok(),
            "{mode:?}: the server never saw the cancellation"
        );
    }
}

#[tokio::test]
async fn elicitation_goes_through_the_clients_handler() {
    for mode in ERAS {
        let weather = weather(mode).await;
        assert_eq!(
            weather.confirm("a.txt").await.unwrap(),
            "a.txt: true",
            "{mode:?}"
        );
    }
}

#[tokio::test]
async fn resources_templates_prompts_and_completion() {
    for mode in ERAS {
        let weather = weather(mode).await;
        let read = weather.readme().await.unwrap();
        let text = |r: &mcp::ReadResourceResult| {
            serde_json::to_value(r).unwrap()["contents"][0]["text"].clone()
        };
        assert_eq!(text(&read), "read me");
        let read = weather.day("São Paulo", 3).await.unwrap();
        assert_eq!(text(&read), "São Paulo on day 3", "{mode:?}");
        let prompt = weather.forecast("Oslo", None).await.unwrap();
        let text = serde_json::to_string(&prompt).unwrap();
        assert!(text.contains("Forecast for Oslo (plain)"), "{text}");
        let prompt = weather
            .forecast("Oslo", Some("poetic".to_owned()))
            .await
            .unwrap();
        assert!(serde_json::to_string(&prompt).unwrap().contains("(poetic)"));
        let done = weather.cities("Os", BTreeMap::new()).await.unwrap();
        assert_eq!(done.values, vec!["Oslo", "Osaka"]);
    }
}

#[tokio::test]
async fn a_service_client_verifies_its_own_server() {
    let weather = weather(ProtocolMode::Modern).await;
    weather.verify().await.unwrap();
    assert_eq!(WeatherClient::expected_tools().len(), 9);
}

/// The weather server as another team describes it, with mistakes.
#[mcp::client]
pub trait Forecasts {
    /// The weather now.
    async fn get_current_weather(&self, city: String) -> Report;
    /// Renamed argument.
    #[tool(name = "greet")]
    fn hello(&self, who: String) -> String;
    /// Retyped argument.
    fn add(&self, a: String, b: i64) -> i64;
    /// Not there.
    fn snow(&self) -> String;
}

/// The same server, with an output type it does not return.
#[mcp::client(name = "WrongOutput")]
pub trait Misread {
    /// Adds, read as a report.
    fn add(&self, a: i64, b: i64) -> Report;
}

/// The same server, described right.
#[mcp::client(name = "GoodForecasts")]
pub trait Good {
    /// The weather now.
    async fn get_current_weather(&self, city: String, unit: Option<Unit>) -> Report;
    /// Adds.
    fn add(&self, a: i64, b: i64) -> i64;
}

#[tokio::test]
async fn a_trait_client_calls_and_verifies() {
    let server = || mcp::Server::builder(Weather).build().unwrap();
    for mode in ERAS {
        let good = GoodForecasts::in_process(server(), config(mode))
            .await
            .unwrap();
        good.verify().await.unwrap();
        assert_eq!(good.add(1, 2).await.unwrap(), 3);
        assert_eq!(
            good.get_current_weather("Rome", None)
                .await
                .unwrap()
                .temperature,
            21.5
        );
    }
    let bad = ForecastsClient::in_process(server(), config(ProtocolMode::Modern))
        .await
        .unwrap();
    let e = bad.verify().await.unwrap_err();
    let t = |s: &str| s.to_owned();
    let found = e.mismatches();
    assert!(
        found.contains(&Mismatch::UnknownArgument {
            tool: t("greet"),
            argument: t("who"),
            listed: vec![t("name")]
        }),
        "{e}"
    );
    assert!(
        found.contains(&Mismatch::NewlyRequired {
            tool: t("greet"),
            argument: t("name")
        }),
        "{e}"
    );
    assert!(
        found.contains(&Mismatch::RetypedArgument {
            tool: t("add"),
            argument: t("a"),
            sends: t("`string`"),
            accepts: t("`integer`")
        }),
        "{e}"
    );
    assert!(
        found.contains(&Mismatch::MissingTool { tool: t("snow") }),
        "{e}"
    );
    assert_eq!(found.len(), 4, "{e}");
    // A result of another type than the declared one is a decoding error, naming both.
    let misread = WrongOutput::in_process(server(), config(ProtocolMode::Modern))
        .await
        .unwrap();
    match misread.add(1, 2).await {
        Err(CallError::Decode {
            tool,
            expected,
            reason,
        }) => {
            assert_eq!(tool, "add");
            assert!(expected.ends_with("Report"), "{expected}");
            assert!(!reason.is_empty());
        }
        other => panic!("{other:?}"),
    }
    // A call the server refuses is a protocol error.
    let e = bad.add("one", 2).await.unwrap_err();
    assert_eq!(e.code(), Some(-32602), "{e:?}");
}
