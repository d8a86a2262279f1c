//! OAuth for command-line clients (`mcp_call`): the flags `--oauth` (the authorization
//! code flow through the system browser and a loopback redirect listener),
//! `--client-credentials ID:SECRET` and `--scope SCOPE`, turned into the client's
//! [`OAuthConfig`].

use mcp::client::oauth::{ClientAuth, ClientRegistration, LoopbackBrowser, OAuthConfig};

/// The OAuth flags of a command line.
#[derive(Clone, Debug, Default)]
pub struct OAuthFlags {
    /// `--oauth`: log in with the browser (dynamic registration, or `client_id`).
    pub browser: bool,
    /// `--client-id ID[:SECRET]`: a pre-registered client for `--oauth`.
    pub client_id: Option<String>,
    /// `--client-credentials ID:SECRET`.
    pub client_credentials: Option<String>,
    /// `--scope` values (each may hold several, space-separated).
    pub scopes: Vec<String>,
    /// `--redirect-port PORT` for the loopback listener (default: any free port).
    pub redirect_port: u16,
}

impl OAuthFlags {
    /// Consumes `flag` (and its value from `rest`) if it is an OAuth flag; `Ok(false)`
    /// when it is not one.
    pub fn parse(
        &mut self,
        flag: &str,
        rest: &mut impl Iterator<Item = String>,
    ) -> Result<bool, String> {
        let mut value = |name: &str| rest.next().ok_or(format!("{name} needs a value"));
        match flag {
            "--oauth" => self.browser = true,
            "--client-id" => self.client_id = Some(value(flag)?),
            "--client-credentials" => self.client_credentials = Some(value(flag)?),
            "--scope" => self.scopes.push(value(flag)?),
            "--redirect-port" => {
                self.redirect_port = value(flag)?
                    .parse()
                    .map_err(|e| format!("--redirect-port: {e}"))?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
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

    fn parse(args: &[&str]) -> Result<Option<OAuthConfig>, String> {
        let mut flags = OAuthFlags::default();
        let mut rest = args.iter().map(|s| (*s).to_owned());
        while let Some(flag) = rest.next() {
            assert!(flags.parse(&flag, &mut rest)?, "{flag} is an OAuth flag");
        }
        oauth_config(&flags)
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
        let mut flags = OAuthFlags::default();
        assert_eq!(flags.parse("--mode", &mut std::iter::empty()), Ok(false));
    }
}
