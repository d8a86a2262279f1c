//! Calls one tool of any MCP server and prints the result as JSON.
//!
//! ```text
//! cargo run --example mcp_call -- URL [TOOL [JSON]] [--mode auto|modern|legacy]
//! cargo run --example mcp_call -- http://127.0.0.1:9090/mcp hash_text '{"text":"hi"}'
//! cargo run --example mcp_call -- http://127.0.0.1:9090/mcp            # lists the tools
//! cargo run --example mcp_call -- URL --oauth [--client-id ID[:SECRET]] [--scope S]
//! cargo run --example mcp_call -- URL --client-credentials ID:SECRET [--scope S]
//! ```
//!
//! Without TOOL it prints the `tools/list` result (all pages). Form elicitations are asked
//! on the terminal, one field at a time; URL elicitations are shown and declined.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use mcp::Implementation;
use mcp::client::{Client, ClientConfig, ClientError, ProtocolMode};
use mcp::protocol::{ElicitRequest, ElicitRequestParams, ElicitResult, JsonObject};
use serde_json::Value;

const USAGE: &str = "usage: mcp_call URL [TOOL [JSON]] [--mode auto|modern|legacy]\n       [--oauth [--client-id ID[:SECRET]] [--redirect-port PORT] | --client-credentials ID:SECRET] [--scope S]\n\nWithout TOOL, lists the tools. --oauth logs in with the browser (loopback redirect).";

struct Args {
    url: String,
    tool: Option<String>,
    arguments: Value,
    mode: ProtocolMode,
    oauth: mcp_examples::oauth_cli::OAuthFlags,
}

fn parse_args() -> Result<Args, String> {
    let mut positional = Vec::new();
    let mut mode = ProtocolMode::Auto;
    let mut oauth = mcp_examples::oauth_cli::OAuthFlags::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--mode" => {
                mode = match args.next().as_deref() {
                    Some("auto") => ProtocolMode::Auto,
                    Some("modern") => ProtocolMode::Modern,
                    Some("legacy") => ProtocolMode::Legacy,
                    other => {
                        return Err(format!(
                            "--mode must be auto, modern or legacy, not {other:?}"
                        ));
                    }
                }
            }
            flag if oauth.parse(flag, &mut args)? => {}
            _ => positional.push(arg),
        }
    }
    let mut positional = positional.into_iter();
    let url = positional.next().ok_or("missing URL")?;
    let tool = positional.next();
    let arguments = match positional.next() {
        Some(json) => {
            serde_json::from_str(&json).map_err(|e| format!("invalid JSON arguments: {e}"))?
        }
        None => Value::Object(JsonObject::new()),
    };
    if let Some(extra) = positional.next() {
        return Err(format!("unexpected argument {extra:?}"));
    }
    Ok(Args {
        url,
        tool,
        arguments,
        mode,
        oauth,
    })
}

/// Asks a form on the terminal; shows (and declines) URL elicitations.
async fn ask(request: ElicitRequest) -> Result<ElicitResult, ClientError> {
    tokio::task::spawn_blocking(move || ask_blocking(&request))
        .await
        .map_err(|e| ClientError::handler(e.to_string()))?
}

fn ask_blocking(request: &ElicitRequest) -> Result<ElicitResult, ClientError> {
    let mut err = std::io::stderr();
    let stdin = std::io::stdin();
    let read = || -> Result<String, ClientError> {
        let mut line = String::new();
        stdin
            .lock()
            .read_line(&mut line)
            .map_err(|e| ClientError::handler(e.to_string()))?;
        Ok(line.trim().to_owned())
    };
    match &request.params {
        ElicitRequestParams::Url(p) => {
            let _ = writeln!(
                err,
                "The server asks you to open:\n  {}\n  ({})\nDeclined: this tool never opens URLs.",
                p.url, p.message
            );
            Ok(ElicitResult::decline())
        }
        ElicitRequestParams::Form(p) => {
            let _ = writeln!(err, "{}", p.message);
            let _ = write!(err, "Answer? [y = accept / n = decline / c = cancel] ");
            let _ = err.flush();
            match read()?.as_str() {
                "n" => return Ok(ElicitResult::decline()),
                "c" => return Ok(ElicitResult::cancel()),
                _ => {}
            }
            let mut content = JsonObject::new();
            let properties = p
                .requested_schema
                .get("properties")
                .and_then(Value::as_object);
            for (name, schema) in properties.into_iter().flatten() {
                let ty = schema
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("string");
                let _ = write!(err, "  {name} ({ty}): ");
                let _ = err.flush();
                let answer = read()?;
                let value = match ty {
                    "boolean" => Value::Bool(matches!(answer.as_str(), "y" | "yes" | "true" | "1")),
                    "integer" | "number" => serde_json::from_str(&answer).unwrap_or(Value::Null),
                    _ => Value::String(answer),
                };
                if !value.is_null() {
                    content.insert(name.clone(), value);
                }
            }
            Ok(ElicitResult::accept(content))
        }
        other => {
            let _ = writeln!(
                err,
                "{}\nDeclined: this tool does not know this kind of request.",
                other.message()
            );
            Ok(ElicitResult::decline())
        }
    }
}

async fn run(args: Args) -> Result<Value, ClientError> {
    let mut config = ClientConfig::new()
        .protocol_mode(args.mode)
        .elicitation_handler(ask);
    if let Some(oauth) =
        mcp_examples::oauth_cli::oauth_config(&args.oauth).map_err(ClientError::Config)?
    {
        config = config.oauth(oauth);
    }
    let client = Client::new(&args.url, config)?;
    let info = client
        .connect(Implementation::new("mcp_call", env!("CARGO_PKG_VERSION")))
        .await?;
    eprintln!(
        "connected: MCP {} ({:?})",
        info.protocol_version(),
        info.era()
    );
    let out = match &args.tool {
        None => serde_json::to_value(client.list_tools().await?),
        Some(tool) => serde_json::to_value(client.call(tool).arguments(&args.arguments)?.await?),
    }
    .unwrap_or(Value::Null);
    client.close().await?;
    Ok(out)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("mcp_call: {message}\n");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(args).await {
        Ok(out) => {
            println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprint!("mcp_call: {e}");
            let mut source = std::error::Error::source(&e);
            while let Some(cause) = source {
                eprint!(": {cause}");
                source = cause.source();
            }
            eprintln!();
            if let Some(data) = e.rpc().and_then(|rpc| rpc.data.as_ref()) {
                eprintln!("data: {data}");
            }
            ExitCode::FAILURE
        }
    }
}
