//! OAuth for command-line clients (`mcp_call`): the flags `--oauth` (the authorization
//! code flow through the system browser and a loopback redirect listener),
//! `--client-credentials ID:SECRET` and `--scope SCOPE`, turned into the client's
//! [`OAuthConfig`].

use mcp::client::oauth::{ClientAuth, ClientRegistration, LoopbackBrowser, OAuthConfig};

/// The OAuth flags of a command line (a `clap` argument group: flatten it into a parser).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct OAuthFlags {
    /// Log in with the browser: the OAuth authorization code flow with a loopback redirect
    /// (dynamic registration unless --client-id names a pre-registered client).
    #[arg(long = "oauth")]
    pub browser: bool,
    /// A pre-registered OAuth client for --oauth.
    #[arg(long, value_name = "ID[:SECRET]")]
    pub client_id: Option<String>,
    /// The OAuth client credentials grant.
    #[arg(long, value_name = "ID:SECRET")]
    pub client_credentials: Option<String>,
    /// OAuth scopes to request (repeatable; each may hold several, space-separated).
    #[arg(long = "scope", value_name = "SCOPE")]
    pub scopes: Vec<String>,
    /// The loopback port of the OAuth redirect listener (default: any free port).
    #[arg(long, default_value_t = 0)]
    pub redirect_port: u16,
}

fn split_credentials(flag: &str, value: &str) -> Result<(String, Option<String>), String> {
    match value.split_once(':') {
        Some(("", _)) => Err(format!("{flag}: empty client ID")),
        Some((id, secret)) => Ok((id.to_owned(), Some(secret.to_owned()))),
        None if value.is_empty() => Err(format!("{flag}: empty client ID")),
        None => Ok((value.to_owned(), None)),
    }
}

/// The OAuth configuration the flags ask for; `None` without OAuth flags.
pub fn oauth_config(flags: &OAuthFlags) -> Result<Option<OAuthConfig>, String> {
    let scopes: Vec<String> = flags
        .scopes
        .iter()
        .flat_map(|s| s.split_whitespace())
        .map(str::to_owned)
        .collect();
    let config = match (&flags.client_credentials, flags.browser) {
        (Some(_), true) => {
            return Err("--oauth and --client-credentials exclude each other".into());
        }
        (Some(pair), false) => {
            let (id, secret) = split_credentials("--client-credentials", pair)?;
            let secret = secret.ok_or("--client-credentials needs ID:SECRET")?;
            OAuthConfig::client_credentials(id, ClientAuth::client_secret(secret))
        }
        (None, true) => {
            let client = match &flags.client_id {
                Some(value) => {
                    let (id, secret) = split_credentials("--client-id", value)?;
                    let registration = ClientRegistration::pre_registered(id);
                    match secret {
                        Some(s) => registration.auth(ClientAuth::client_secret(s)),
                        None => registration,
                    }
                }
                None => ClientRegistration::dynamic().client_name("mcp_call"),
            };
            let browser = LoopbackBrowser::bind(flags.redirect_port)
                .map_err(|e| format!("cannot listen for the OAuth redirect: {e}"))?;
            OAuthConfig::authorization_code(client, browser)
        }
        (None, false) if flags.client_id.is_some() || !scopes.is_empty() => {
            return Err("--client-id and --scope need --oauth or --client-credentials".into());
        }
        (None, false) => return Ok(None),
    };
    Ok(Some(if scopes.is_empty() {
        config
    } else {
        config.scopes(scopes)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        flags: OAuthFlags,
    }

    fn parse(args: &[&str]) -> Result<Option<OAuthConfig>, String> {
        use clap::Parser;
        let argv = std::iter::once("test").chain(args.iter().copied());
        let cli = Cli::try_parse_from(argv).map_err(|e| e.to_string())?;
        oauth_config(&cli.flags)
    }

    #[test]
    fn flags_build_configurations() {
        assert!(parse(&[]).unwrap().is_none());
        let c = parse(&["--client-credentials", "svc:s3cret", "--scope", "a b"]).unwrap();
        let shown = format!("{:?}", c.unwrap());
        assert!(
            shown.contains("client_credentials") && shown.contains(r#""b""#),
            "{shown}"
        );
        assert!(!shown.contains("s3cret"));
        let c = parse(&["--oauth", "--client-id", "app:pw", "--redirect-port", "0"]).unwrap();
        assert!(format!("{:?}", c.unwrap()).contains("authorization_code"));
        assert!(parse(&["--oauth"]).unwrap().is_some());
    }

    #[test]
    fn bad_flags_are_errors() {
        assert!(parse(&["--client-credentials", "no-secret"]).is_err());
        assert!(parse(&["--client-credentials", ":x"]).is_err());
        assert!(parse(&["--client-credentials", "a:b", "--oauth"]).is_err());
        assert!(parse(&["--scope", "a"]).is_err());
        assert!(parse(&["--scope"]).is_err());
        assert!(parse(&["--redirect-port", "x"]).is_err());
        assert!(parse(&["--mode", "legacy"]).is_err());
    }
}
