//! A command-line MCP client: lists and calls tools, reads resources, gets prompts, on any
//! server over Streamable HTTP or stdio.
//!
//! ```text
//! cargo run --example mcp_call -- http://127.0.0.1:9090/mcp                      # the tools
//! cargo run --example mcp_call -- http://127.0.0.1:9090/mcp call hash_text '{"text":"hi"}'
//! cargo run --example mcp_call -- --stdio resources -- cargo run -q --example notes -- --stdio
//! cargo run --example mcp_call -- --json URL prompt summarize_note '{"slug":"x"}'
//! cargo run --example mcp_call -- URL --oauth [--client-id ID[:SECRET]] [--scope S] call whoami
//! cargo run --example mcp_call -- URL --client-credentials ID:SECRET [--scope S]
//! cargo run --example mcp_call -- --mode modern URL call --task generate_report '{"topic":"q3"}'
//! cargo run --example mcp_call -- --mode modern URL task 3f2a… [--cancel]
//! ```
//!
//! Commands: `tools` (the default), `call TOOL [JSON]` (`--task`: declare the tasks
//! extension, so the server may run the call as a task, followed to its end with its status
//! shown), `task ID` (follow a task created earlier; `--cancel` cancels it), `resources`,
//! `read URI`, `prompts`, `prompt NAME [JSON]`. Without `--json` the output is for people (the text of a result,
//! one line per tool, resource or prompt); with it, stdout carries the JSON result (or
//! `{"error": …}`) and nothing else. Logs the server sends are printed on stderr (level set
//! with `--log-level`), progress is a progress bar on a terminal (plain lines otherwise),
//! form elicitations are asked on the terminal one field at a time, URL elicitations are
//! shown and declined. `--oauth` logs in through the system browser (a loopback redirect
//! listener receives the answer), `--client-credentials` without a user. Exit status: 0 on
//! success, 1 when the call or the tool failed, 2 on a usage error.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcp::client::{
    Client, ClientConfig, ClientError, ProtocolMode, ServerNotification, StdioCommand,
};
use mcp::protocol::{ElicitRequest, ElicitRequestParams, ElicitResult, JsonObject};
use mcp::{CallToolResult, Content, Implementation, LogLevel, ResourceContents};
use serde_json::{Value, json};

/// A command-line MCP client.
#[derive(Debug, Parser)]
#[command(
    name = "mcp_call",
    override_usage = "mcp_call [OPTIONS] URL [COMMAND]\n       mcp_call [OPTIONS] --stdio [COMMAND] -- PROGRAM [ARGS]..."
)]
struct Cli {
    /// The server's MCP endpoint (omit it with --stdio).
    #[arg(required_unless_present = "stdio")]
    url: Option<String>,
    /// Start the server as a child process and speak stdio to it: the program and its
    /// arguments follow `--`.
    #[arg(long)]
    stdio: bool,
    /// The protocol era to speak.
    #[arg(long, value_enum, default_value_t = Mode::Auto)]
    mode: Mode,
    /// Print the JSON result (or {"error": ...}) on stdout and nothing else.
    #[arg(long)]
    json: bool,
    /// The least severe log message the server should send (printed on stderr); `off` asks
    /// for none.
    #[arg(long, default_value = "info")]
    log_level: String,
    /// Seconds one exchange may take.
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    #[command(flatten)]
    oauth: mcp_examples::oauth_cli::OAuthFlags,
    #[command(subcommand)]
    command: Option<Command>,
    /// The stdio server's program and arguments: what follows the first `--`.
    #[arg(skip)]
    program: Vec<String>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Mode {
    Auto,
    Modern,
    Legacy,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the tools (the default).
    Tools,
    /// Call a tool with JSON arguments (default `{}`).
    Call {
        tool: String,
        arguments: Option<String>,
        /// Let the server run the call as a task (the tasks extension; modern servers):
        /// its id and status are shown while it is polled to its end.
        #[arg(long)]
        task: bool,
    },
    /// Follow a task to its end (modern servers with the tasks extension).
    Task {
        id: String,
        /// Cancel the task instead.
        #[arg(long)]
        cancel: bool,
    },
    /// List the resources and resource templates.
    Resources,
    /// Read a resource.
    Read { uri: String },
    /// List the prompts.
    Prompts,
    /// Get a prompt with JSON string arguments (default `{}`).
    Prompt {
        name: String,
        arguments: Option<String>,
    },
}

/// A failure, and how the process ends.
struct Failure {
    message: String,
    json: Value,
}

impl From<ClientError> for Failure {
    fn from(e: ClientError) -> Self {
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(cause) = source {
            message.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        let mut json = json!({"message": message});
        if let Some(rpc) = e.rpc() {
            json["message"] = json!(rpc.message);
            json["code"] = json!(rpc.code);
            if let Some(data) = &rpc.data {
                json["data"] = data.clone();
            }
        }
        Self { message, json }
    }
}

fn usage(message: impl Into<String>) -> Failure {
    let message = message.into();
    Failure {
        json: json!({"message": message}),
        message,
    }
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

/// Progress of the running call: a bar on a terminal, lines otherwise (never with --json).
struct Progress {
    bar: Option<ProgressBar>,
    plain: bool,
}

impl Progress {
    fn new(json: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        Self {
            bar: None,
            plain: !json && !terminal,
        }
    }

    fn update(&mut self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if self.plain {
            let total = total.map(|t| format!("/{t}")).unwrap_or_default();
            eprintln!("progress {progress}{total} {}", message.unwrap_or_default());
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        if let Some(total) = total {
            bar.set_length(total.max(0.0) as u64);
        }
        bar.set_position(progress.max(0.0) as u64);
        if let Some(message) = message {
            bar.set_message(message.to_owned());
        }
    }

    /// Shows a task's state: a spinner on a terminal, a line per change otherwise.
    fn task(&mut self, task: &mcp::protocol::Task, last: &mut Option<String>) {
        let line = match &task.status_message {
            Some(m) => format!("task {} {}: {m}", task.task_id, task.status),
            None => format!("task {} {}", task.task_id, task.status),
        };
        if last.as_deref() == Some(&line) {
            return;
        }
        *last = Some(line.clone());
        if self.plain {
            eprintln!("{line}");
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        bar.set_message(line);
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// Follows `handle` to its end, showing its state.
async fn follow(
    progress: &Arc<Mutex<Progress>>,
    mut handle: mcp::client::TaskHandle,
) -> Result<CallToolResult, ClientError> {
    let mut last = None;
    let result = handle
        .wait_with(|t| {
            progress
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .task(t, &mut last)
        })
        .await;
    progress.lock().unwrap_or_else(|e| e.into_inner()).finish();
    result
}

/// The progress token of the one call this process makes.
const PROGRESS_TOKEN: &str = "mcp_call";

fn on_notification(progress: &Arc<Mutex<Progress>>, json: bool, n: &ServerNotification) {
    if let Some((level, data)) = n.log() {
        let logger = n.params().get("logger").and_then(Value::as_str);
        let text = data
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| data.to_string());
        let p = progress.lock().unwrap_or_else(|e| e.into_inner());
        let line = match logger {
            Some(logger) => format!("[{level}] {logger}: {text}"),
            None => format!("[{level}] {text}"),
        };
        match &p.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    } else if let Some((token, value, total)) = n.progress()
        && token == PROGRESS_TOKEN
        && !json
    {
        let message = n.params().get("message").and_then(Value::as_str);
        progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .update(value, total, message);
    }
}

fn object(text: Option<&str>, what: &str) -> Result<JsonObject, Failure> {
    match text {
        None => Ok(JsonObject::new()),
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(o)) => Ok(o),
            Ok(_) => Err(usage(format!("{what} must be a JSON object"))),
            Err(e) => Err(usage(format!("invalid JSON {what}: {e}"))),
        },
    }
}

fn client(cli: &Cli, progress: &Arc<Mutex<Progress>>) -> Result<Client, Failure> {
    let json = cli.json;
    let progress = Arc::clone(progress);
    let config = ClientConfig::new()
        .protocol_mode(match cli.mode {
            Mode::Auto => ProtocolMode::Auto,
            Mode::Modern => ProtocolMode::Modern,
            Mode::Legacy => ProtocolMode::Legacy,
        })
        .timeout(Duration::from_secs(cli.timeout))
        .elicitation_handler(ask)
        .notification_handler(move |n| on_notification(&progress, json, n));
    let config = match mcp_examples::oauth_cli::oauth_config(&cli.oauth).map_err(usage)? {
        Some(oauth) => config.oauth(oauth),
        None => config,
    };
    if cli.stdio {
        let Some((program, args)) = cli.program.split_first() else {
            return Err(usage("--stdio needs the server's program after `--`"));
        };
        if cli.url.is_some() {
            return Err(usage("give either a URL or --stdio, not both"));
        }
        let command = StdioCommand::new(program).args(args);
        Ok(Client::stdio(command, config)?)
    } else {
        if !cli.program.is_empty() {
            return Err(usage("a program after `--` needs --stdio"));
        }
        Ok(Client::new(cli.url.as_deref().unwrap_or_default(), config)?)
    }
}

/// Runs the command; `Ok((json, text, failed))`: the JSON result, its text for people, and
/// whether the tool reported an error.
async fn run(cli: &Cli) -> Result<(Value, String, bool), Failure> {
    let progress = Arc::new(Mutex::new(Progress::new(cli.json)));
    let client = client(cli, &progress)?;
    let info = client
        .connect(Implementation::new("mcp_call", env!("CARGO_PKG_VERSION")))
        .await?;
    if !cli.json {
        eprintln!(
            "connected to {} over MCP {} ({:?})",
            info.server_info()
                .map(|s| s.name.as_str())
                .unwrap_or("a server"),
            info.protocol_version(),
            info.era()
        );
    }
    if cli.log_level != "off" {
        let level: LogLevel = serde_json::from_value(json!(cli.log_level))
            .map_err(|_| usage(format!("unknown log level {:?}", cli.log_level)))?;
        if info.capabilities().logging.is_some() {
            client.set_logging_level(level).await?;
        }
    }
    let out = match cli.command.as_ref().unwrap_or(&Command::Tools) {
        Command::Tools => {
            let tools = client.list_tools().await?;
            let text = tools
                .tools
                .iter()
                .map(|t| match &t.description {
                    Some(d) => format!("{} — {}", t.name, d.lines().next().unwrap_or_default()),
                    None => t.name.clone(),
                })
                .collect::<Vec<_>>()
                .join("\n");
            (json!(tools), text, false)
        }
        Command::Call {
            tool,
            arguments,
            task,
        } => {
            let arguments = object(arguments.as_deref(), "arguments")?;
            let mut meta = JsonObject::new();
            meta.insert("progressToken".into(), json!(PROGRESS_TOKEN));
            let call = client.call(tool).arguments(&arguments)?.meta(meta);
            let result = if *task {
                match call.as_task().await {
                    Ok(mcp::client::TaskCall::Task(handle)) => follow(&progress, handle).await,
                    Ok(mcp::client::TaskCall::Complete(result)) => Ok(result),
                    Err(e) => Err(e),
                }
            } else {
                call.await
            };
            progress.lock().unwrap_or_else(|e| e.into_inner()).finish();
            let result = result?;
            (json!(result), result_text(&result), result.is_error())
        }
        Command::Task { id, cancel: true } => {
            client.cancel_task(id).await?;
            (json!({}), format!("asked task {id} to cancel"), false)
        }
        Command::Task { id, cancel: false } => {
            let result = follow(&progress, client.task(id).await?).await?;
            (json!(result), result_text(&result), result.is_error())
        }
        Command::Resources => {
            let resources = client.list_resources().await?;
            let templates = if info.capabilities().resources.is_some() {
                client.list_resource_templates().await?.resource_templates
            } else {
                Vec::new()
            };
            let mut lines: Vec<String> = resources
                .resources
                .iter()
                .map(|r| format!("{}  {}", r.uri, r.name))
                .collect();
            lines.extend(
                templates
                    .iter()
                    .map(|t| format!("{}  {} (template)", t.uri_template, t.name)),
            );
            let json = json!({"resources": resources.resources, "resourceTemplates": templates});
            (json, lines.join("\n"), false)
        }
        Command::Read { uri } => {
            let read = client.read_resource(uri).await?;
            let text = read
                .contents
                .iter()
                .map(|c| match c {
                    ResourceContents::Text { text, .. } => text.clone(),
                    ResourceContents::Blob { blob, uri, .. } => {
                        format!("<{uri}: {} bytes of base64>", blob.len())
                    }
                    other => json!(other).to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n");
            (json!(read), text, false)
        }
        Command::Prompts => {
            let prompts = client.list_prompts().await?;
            let text = prompts
                .prompts
                .iter()
                .map(|p| {
                    let args: Vec<&str> = p
                        .arguments
                        .iter()
                        .flatten()
                        .map(|a| a.name.as_str())
                        .collect();
                    format!("{}({})", p.name, args.join(", "))
                })
                .collect::<Vec<_>>()
                .join("\n");
            (json!(prompts), text, false)
        }
        Command::Prompt { name, arguments } => {
            let arguments = object(arguments.as_deref(), "arguments")?;
            let mut strings = std::collections::BTreeMap::new();
            for (key, value) in arguments {
                let Value::String(value) = value else {
                    return Err(usage(format!("prompt argument {key} must be a string")));
                };
                strings.insert(key, value);
            }
            let prompt = client.get_prompt(name, strings).await?;
            let text = prompt
                .messages
                .iter()
                .map(|m| {
                    format!(
                        "{}: {}",
                        json!(m.role).as_str().unwrap_or("?"),
                        content_text(&m.content)
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            (json!(prompt), text, false)
        }
    };
    client.close().await?;
    Ok(out)
}

fn content_text(content: &Content) -> String {
    match content {
        Content::Text { text, .. } => text.clone(),
        other => json!(other).to_string(),
    }
}

/// A tool result for people: its text content, else its structured content.
fn result_text(result: &CallToolResult) -> String {
    let text = result.joined_text();
    if !text.is_empty() {
        return text;
    }
    match &result.structured_content {
        Some(structured) => serde_json::to_string_pretty(structured).unwrap_or_default(),
        None => result
            .content
            .iter()
            .map(content_text)
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    // What follows the first `--` is the stdio server's command line, never mcp_call's.
    let mut args: Vec<String> = std::env::args().collect();
    let program = match args.iter().position(|a| a == "--") {
        Some(at) => {
            let program = args.split_off(at + 1);
            args.pop();
            program
        }
        None => Vec::new(),
    };
    let mut cli = Cli::parse_from(args);
    cli.program = program;
    match run(&cli).await {
        Ok((json, text, failed)) => {
            if cli.json {
                println!("{json}");
            } else if failed {
                eprintln!("the tool failed: {text}");
            } else {
                println!("{text}");
            }
            if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(failure) => {
            if cli.json {
                println!("{}", json!({"error": failure.json}));
            } else {
                eprintln!("mcp_call: {}", failure.message);
            }
            ExitCode::FAILURE
        }
    }
}
