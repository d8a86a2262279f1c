//! Two methods with one tool name, resource URI or prompt name, or two completers of one
//! argument, under mutually exclusive `#[cfg]`s are not duplicates: only the one whose cfg
//! holds exists. Neither is a method whose cfg never holds. A completer may complete a
//! prompt that exists under a cfg when it carries that cfg too, and each variant of a prompt
//! may have its own arguments.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use mcp::Reference;
use serde_json::json;
use support::*;

struct Platform;

#[mcp::service(name = "platform")]
impl Platform {
    #[cfg(unix)]
    pub fn os(&self) -> String {
        "unix".into()
    }

    #[cfg(not(unix))]
    pub fn os(&self) -> String {
        "other".into()
    }

    #[cfg(debug_assertions)]
    #[tool(name = "build")]
    pub fn debug_build(&self) -> String {
        "debug".into()
    }

    #[cfg(not(debug_assertions))]
    #[tool(name = "build")]
    pub fn release_build(&self) -> String {
        "release".into()
    }

    #[cfg(any())] // never holds
    #[tool(name = "build")]
    pub fn never_built(&self) -> String {
        "never".into()
    }

    /// The operating system.
    #[cfg(unix)]
    #[resource(uri = "platform://os")]
    fn os_resource(&self) -> String {
        "unix".into()
    }

    /// The operating system.
    #[cfg(not(unix))]
    #[resource(uri = "platform://os")]
    fn os_resource_elsewhere(&self) -> String {
        "other".into()
    }

    /// Never compiled.
    #[cfg(any())]
    #[resource(uri = "platform://os")]
    fn os_resource_never(&self) -> String {
        "never".into()
    }

    /// Run a command.
    #[cfg(unix)]
    #[prompt(name = "shell")]
    fn shell_unix(&self, command: String) -> String {
        format!("sh -c {command}")
    }

    /// Run a command line.
    #[cfg(not(unix))]
    #[prompt(name = "shell")]
    fn shell_elsewhere(&self, line: String) -> String {
        format!("cmd /c {line}")
    }

    /// Never compiled.
    #[cfg(any())]
    #[prompt(name = "shell")]
    fn shell_never(&self) -> String {
        "never".into()
    }

    // One completer per variant of the prompt, each under that variant's cfg.
    #[cfg(unix)]
    #[complete(prompt = "shell", argument = "command")]
    fn commands(&self, prefix: String) -> Vec<String> {
        vec![format!("{prefix}ls")]
    }

    #[cfg(not(unix))]
    #[complete(prompt = "shell", argument = "line")]
    fn command_lines(&self, prefix: String) -> Vec<String> {
        vec![format!("{prefix}dir")]
    }

    // Compiled out with the prompt it names.
    #[cfg(any())]
    #[complete(prompt = "shell", argument = "nothing")]
    fn nothing(&self, prefix: String) -> Vec<String> {
        vec![prefix]
    }

    /// Greet someone.
    #[prompt]
    fn greet(&self, name: String) -> String {
        format!("Hello {name}")
    }

    // Two completers of one prompt argument under exclusive cfgs.
    #[cfg(unix)]
    #[complete(prompt = "greet", argument = "name")]
    fn greet_names(&self, prefix: String) -> Vec<String> {
        vec![format!("{prefix}-unix")]
    }

    #[cfg(not(unix))]
    #[complete(prompt = "greet", argument = "name")]
    fn greet_names_elsewhere(&self, prefix: String) -> Vec<String> {
        vec![format!("{prefix}-other")]
    }

    /// An environment variable.
    #[resource(template = "platform://env/{name}")]
    fn env(&self, name: String) -> String {
        name
    }

    // Two completers of one template variable under exclusive cfgs, one never compiled.
    #[cfg(unix)]
    #[complete(template = "platform://env/{name}", argument = "name")]
    fn env_names(&self, prefix: String) -> Vec<String> {
        vec![format!("{prefix}HOME")]
    }

    #[cfg(not(unix))]
    #[complete(template = "platform://env/{name}", argument = "name")]
    fn env_names_elsewhere(&self, prefix: String) -> Vec<String> {
        vec![format!("{prefix}USERPROFILE")]
    }

    #[cfg(any())]
    #[complete(template = "platform://env/{name}", argument = "name")]
    fn env_names_never(&self, prefix: String) -> Vec<String> {
        vec![prefix]
    }
}

fn main() {
    let names: Vec<_> = tools(&Platform).into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["os", "build"]);
    let expected = if cfg!(unix) { "unix" } else { "other" };
    assert_eq!(result(&Platform, "os", json!({})).content[0], mcp::Content::text(expected));
    let build = if cfg!(debug_assertions) { "debug" } else { "release" };
    assert_eq!(result(&Platform, "build", json!({})).content[0], mcp::Content::text(build));

    assert_eq!(read_text(&Platform, "platform://os").unwrap(), expected);
    let shell = Reference::Prompt { name: "shell".into() };
    let greet = Reference::Prompt { name: "greet".into() };
    let env = Reference::Resource { uri: "platform://env/{name}".into() };
    if cfg!(unix) {
        assert_eq!(prompt_text(&Platform, "shell", &[("command", "ls")]).unwrap(), "sh -c ls");
        assert_eq!(completions(&Platform, shell, "command", "x").unwrap(), ["xls"]);
        assert_eq!(completions(&Platform, greet, "name", "a").unwrap(), ["a-unix"]);
        assert_eq!(completions(&Platform, env, "name", "$").unwrap(), ["$HOME"]);
    } else {
        assert_eq!(prompt_text(&Platform, "shell", &[("line", "dir")]).unwrap(), "cmd /c dir");
        assert_eq!(completions(&Platform, shell, "line", "x").unwrap(), ["xdir"]);
        assert_eq!(completions(&Platform, greet, "name", "a").unwrap(), ["a-other"]);
        assert_eq!(completions(&Platform, env, "name", "$").unwrap(), ["$USERPROFILE"]);
    }
}
