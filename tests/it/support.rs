//! Shared helpers: a bot in a temporary folder, messages written as players
//! would, and the mail servers' coordinates.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use nomicbot::config::Config;
use nomicbot::pipeline::Bot;

/// A bot on the embedded Maildir transport in its own temporary folder.
pub struct LocalBot {
    pub dir: tempfile::TempDir,
}

impl LocalBot {
    pub fn new() -> LocalBot {
        LocalBot::with_config(crate::support::trusting())
    }

    pub fn with_config(config: &str) -> LocalBot {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("bot.toml"), config).expect("write config");
        nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
        LocalBot { dir }
    }

    pub fn config_path(&self) -> PathBuf {
        self.dir.path().join("bot.toml")
    }

    pub fn config(&self) -> Config {
        Config::load(&self.config_path()).expect("config")
    }

    pub fn open(&self) -> Bot {
        Bot::open(self.config()).expect("open bot")
    }

    /// Drops a message into the inbox Maildir, delivered at `at`.
    pub fn deliver(&self, name: &str, raw: &str, at: Timestamp) -> PathBuf {
        let config = self.config();
        let inbox = config.resolve(&config.maildir.inbox);
        nomicbot::mail::maildir::ensure(&inbox).expect("maildir");
        let path = inbox
            .join("new")
            .join(format!("{}.{name}.test", at.as_second()));
        std::fs::write(&path, raw).expect("write message");
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(at.into()))
            .expect("set mtime");
        path
    }

    /// Runs the binary with this bot's config.
    pub fn cli(&self, args: &[&str]) -> std::process::Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_nomicbot"))
            .arg("--config")
            .arg(self.config_path())
            .args(args)
            .output()
            .expect("run nomicbot")
    }

    /// The mail the bot wrote into its outbox Maildir.
    pub fn sent(&self) -> Vec<String> {
        let config = self.config();
        nomicbot::mail::maildir::read_all(&config.resolve(&config.maildir.outbox))
            .unwrap_or_default()
            .into_iter()
            .map(|(_, raw)| String::from_utf8_lossy(&raw).into_owned())
            .collect()
    }
}

/// A plain message as a player's mail program would write it.
pub fn message(from: &str, to: &str, subject: &str, message_id: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{message_id}>\r\n\
         Date: Mon, 5 Jan 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}",
        body.replace('\n', "\r\n")
    )
}

pub fn at(text: &str) -> Timestamp {
    text.parse().expect("timestamp")
}

/// The real servers started by `../shared/mailtest/start`.
pub struct Servers {
    pub host: String,
    pub imap_port: u16,
    pub smtp_port: u16,
    pub password: String,
    pub domain: String,
    pub dir: PathBuf,
}

impl Servers {
    pub fn from_env() -> Servers {
        let var = |name: &str| {
            std::env::var(name).unwrap_or_else(|_| {
                panic!("{name} is not set: run the tests through .ci/run, or eval \"$(../shared/mailtest/start)\" first")
            })
        };
        Servers {
            host: var("MAILTEST_HOST"),
            imap_port: var("MAILTEST_IMAP_PORT").parse().expect("port"),
            smtp_port: var("MAILTEST_SMTP_PORT").parse().expect("port"),
            password: var("MAILTEST_PASSWORD"),
            domain: std::env::var("MAILTEST_DOMAIN").unwrap_or_else(|_| "example.test".into()),
            dir: PathBuf::from(var("MAILTEST_DIR")),
        }
    }

    pub fn address(&self, user: &str) -> String {
        format!("{user}@{}", self.domain)
    }
}

pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One message the bot sent, as its reader sees it: the headers that matter and
/// the decoded text.
#[derive(Debug, Clone)]
pub struct SentMail {
    /// The addresses in To, lower-cased.
    pub to: Vec<String>,
    pub from: String,
    pub subject: String,
    /// Without angle brackets.
    pub message_id: String,
    /// Without angle brackets.
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
    pub auto_submitted: Option<String>,
    pub body: String,
    pub raw: String,
}

impl SentMail {
    pub fn parse(raw: &str) -> SentMail {
        let message = mail_parser::MessageParser::default()
            .parse(raw.as_bytes())
            .unwrap_or_else(|| panic!("the bot sent a message that does not parse:\n{raw}"));
        let addresses = |address: Option<&mail_parser::Address<'_>>| -> Vec<String> {
            address
                .map(|a| {
                    a.iter()
                        .filter_map(|m| m.address())
                        .map(|s| s.to_lowercase())
                        .collect()
                })
                .unwrap_or_default()
        };
        let ids = |value: &mail_parser::HeaderValue<'_>| -> Vec<String> {
            match value {
                mail_parser::HeaderValue::Text(id) => vec![id.to_string()],
                mail_parser::HeaderValue::TextList(ids) => {
                    ids.iter().map(|id| id.to_string()).collect()
                }
                _ => Vec::new(),
            }
        };
        SentMail {
            to: addresses(message.to()),
            from: addresses(message.from())
                .into_iter()
                .next()
                .unwrap_or_default(),
            subject: message.subject().unwrap_or_default().to_owned(),
            message_id: message.message_id().unwrap_or_default().to_owned(),
            in_reply_to: ids(message.in_reply_to()).into_iter().next(),
            references: ids(message.references()),
            auto_submitted: message
                .header_raw("Auto-Submitted")
                .map(|v| v.trim().to_owned()),
            body: message
                .body_text(0)
                .map(|b| b.replace("\r\n", "\n"))
                .unwrap_or_default(),
            raw: raw.to_owned(),
        }
    }

    pub fn is_to(&self, address: &str) -> bool {
        self.to.iter().any(|a| a.eq_ignore_ascii_case(address))
    }
}

impl LocalBot {
    /// Runs the binary and fails the test, showing stderr, unless it succeeded.
    pub fn cli_ok(&self, args: &[&str]) -> String {
        let output = self.cli(args);
        assert!(
            output.status.success(),
            "nomicbot {args:?} failed ({}):\nstdout: {}\nstderr: {}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// One pass of the bot (`nomicbot once --now NOW`); returns what it printed.
    pub fn once(&self, now: Timestamp) -> String {
        self.cli_ok(&["once", "--now", &now.to_string()])
    }

    /// Everything the bot sent so far, parsed.
    pub fn sent_mail(&self) -> Vec<SentMail> {
        self.sent().iter().map(|raw| SentMail::parse(raw)).collect()
    }

    /// `nomicbot state --json`.
    pub fn state_json(&self) -> serde_json::Value {
        serde_json::from_str(&self.cli_ok(&["state", "--json"])).expect("state --json prints JSON")
    }

    /// `nomicbot log --json`: the event log.
    pub fn log_json(&self) -> Vec<serde_json::Value> {
        serde_json::from_str(&self.cli_ok(&["log", "--json"]))
            .expect("log --json prints a JSON list")
    }

    /// `nomicbot inbox --status STATUS` (text form).
    pub fn inbox_with_status(&self, status: &str) -> String {
        self.cli_ok(&["inbox", "--status", status])
    }
}

/// A TCP port free on loopback right now: bound with port 0, read, released.
/// (Another process may take it before we use it; the start script then says so.)
pub fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port on 127.0.0.1")
}

/// Mail servers of a test's own: `../shared/mailtest/start` with a MAILTEST_DIR
/// of its own and free ports, never fixed ones, so that test runs in several
/// checkouts at once do not collide. Stopped, and their files removed, on drop.
pub struct OwnServers {
    pub dir: PathBuf,
    /// The `export NAME=value` lines the start script printed.
    exports: Vec<(String, String)>,
}

impl OwnServers {
    /// `tls`: STARTTLS on both ports plus the implicit-TLS ports.
    pub fn start(name: &str, tls: bool) -> OwnServers {
        static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir = repo_root().join(format!("target/mailtest-{name}-{}-{n}", std::process::id()));
        let output = std::process::Command::new(repo_root().join("../shared/mailtest/start"))
            .env("MAILTEST_DIR", &dir)
            .env("MAILTEST_IMAP_PORT", free_port().to_string())
            .env("MAILTEST_SMTP_PORT", free_port().to_string())
            .env("MAILTEST_IMAPS_PORT", free_port().to_string())
            .env("MAILTEST_SMTPS_PORT", free_port().to_string())
            .env("MAILTEST_TLS", if tls { "1" } else { "0" })
            .output()
            .expect("run ../shared/mailtest/start");
        let servers = OwnServers {
            dir,
            exports: String::from_utf8_lossy(&output.stdout)
                .lines()
                .filter_map(|line| line.strip_prefix("export "))
                .filter_map(|line| line.split_once('='))
                .map(|(name, value)| (name.to_owned(), value.trim_matches('\'').to_owned()))
                .collect(),
        };
        assert!(
            output.status.success(),
            "mailtest start ({name}) failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        servers
    }

    /// A value the start script exported (`MAILTEST_IMAP_PORT`, ...).
    pub fn get(&self, name: &str) -> String {
        self.exports
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
            .unwrap_or_else(|| panic!("mailtest start printed no {name}: {:?}", self.exports))
    }

    pub fn port(&self, name: &str) -> u16 {
        self.get(name).parse().expect("a port")
    }

    /// As `Servers`, for the helpers that take one.
    pub fn servers(&self) -> Servers {
        Servers {
            host: self.get("MAILTEST_HOST"),
            imap_port: self.port("MAILTEST_IMAP_PORT"),
            smtp_port: self.port("MAILTEST_SMTP_PORT"),
            password: self.get("MAILTEST_PASSWORD"),
            domain: self.get("MAILTEST_DOMAIN"),
            dir: PathBuf::from(self.get("MAILTEST_DIR")),
        }
    }
}

impl Drop for OwnServers {
    fn drop(&mut self) {
        let _ = std::process::Command::new(repo_root().join("../shared/mailtest/stop"))
            .env("MAILTEST_DIR", &self.dir)
            .env("MAILTEST_CLEAN", "1")
            .output();
    }
}

/// A player's `id` by name, from `state --json`.
pub fn player_id(state: &serde_json::Value, name: &str) -> serde_json::Value {
    state["players"]["players"]
        .as_array()
        .expect("players.players")
        .iter()
        .find(|p| p["name"] == name)
        .map(|p| p["id"].clone())
        .unwrap_or_else(|| panic!("no player {name}: {}", state["players"]))
}

/// A balance as `state --json` shows it (a decimal or fraction string).
pub fn balance(state: &serde_json::Value, name: &str, currency: &str) -> Option<String> {
    let id = player_id(state, name);
    state["accounts"]["balances"]
        .as_array()
        .expect("accounts.balances")
        .iter()
        .find(|b| b["holder"]["player"] == id && b["currency"] == currency)
        .and_then(|b| b["amount"].as_str().map(str::to_owned))
}

/// The config with Gnomic's mechanics bound at 10000 past the text's numbers.
/// A test whose small ruleset numbers its hacks from 301 would otherwise enact
/// rules under the mechanics' own numbers (hack 304 "amends" nothing: it is a
/// new rule 304, and the bot holds what 304 drives for a ruling).
pub fn gnomic_rules_elsewhere(config: &str) -> String {
    const NAMES: [(&str, u32); 21] = [
        ("simple_majority", 392),
        ("integers", 407),
        ("nomenclature", 434),
        ("ordinals", 108),
        ("unanimity", 109),
        ("against_winner", 204),
        ("proposal_points", 304),
        ("threshold", 310),
        ("newcomer", 325),
        ("mutable_limit", 332),
        ("web_mode", 342),
        ("vowels", 372),
        ("fees", 373),
        ("shout", 383),
        ("obfuscated", 410),
        ("sacrifice", 390),
        ("greek", 394),
        ("meta_amendments", 401),
        ("votes", 402),
        ("failed_penalty", 421),
        ("gnomes", 440),
    ];
    let block: String = NAMES
        .iter()
        .map(|(name, number)| format!("{name} = {}\n", number + 10_000))
        .collect();
    match config.find("[gnomic.rules]") {
        Some(start) => {
            let body = start + "[gnomic.rules]".len();
            let end = config[body..]
                .find("\n[")
                .map_or(config.len(), |at| body + at + 1);
            format!(
                "{}[gnomic.rules]\n{block}{}",
                &config[..start],
                &config[end..]
            )
        }
        None => format!("{config}\n[gnomic.rules]\n{block}"),
    }
}

/// The shipped configuration with From believed (`auth = "none"`): the games'
/// tests send unsigned mail, and authentication has tests of its own
/// (`auth.rs`, `forged_senders.rs`), which use the shipped one.
pub fn trusting() -> &'static str {
    static CONFIG: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        nomicbot::config::believing_from(nomicbot::config::DEFAULT_CONFIG)
    });
    CONFIG.as_str()
}

/// The code of an alias request, from the bot's mail to the player: its line
/// `confirm XXXX-XXXX-XXXX-XXXX`.
pub fn alias_code(mail: &SentMail) -> Option<String> {
    mail.body.lines().find_map(|line| {
        let code = line.trim().strip_prefix("confirm ")?;
        let shaped = code.len() == 19
            && code.chars().enumerate().all(|(n, c)| {
                if n % 5 == 4 {
                    c == '-'
                } else {
                    c.is_ascii_alphanumeric()
                }
            });
        shaped.then(|| code.to_owned())
    })
}

impl LocalBot {
    /// Fixes the bot's secret (64 hex digits) before its first start: two bots
    /// given the same mail then draw the same seeds and the same alias codes.
    pub fn fix_secret(&self, secret: &str) {
        let config = self.config();
        let database = config.resolve(&config.bot.database);
        if let Some(folder) = database.parent() {
            std::fs::create_dir_all(folder).expect("database folder");
        }
        drop(nomicbot::store::Store::open(&database).expect("create the database"));
        let conn = rusqlite::Connection::open(&database).expect("open the database");
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('secret', ?1)",
            [secret],
        )
        .expect("set the secret");
    }
}

/// The code the bot last mailed `address` to confirm a first passphrase
/// (`passphrase confirm CODE`).
pub fn passphrase_code(bot: &LocalBot, address: &str) -> String {
    bot.sent_mail()
        .into_iter()
        .rev()
        .filter(|mail| mail.is_to(address))
        .filter(|mail| mail.subject.contains("Confirm the passphrase"))
        .find_map(|mail| {
            mail.body
                .lines()
                .find_map(|line| line.trim().strip_prefix("passphrase confirm "))
                .map(str::to_owned)
        })
        .expect("the code mailed to the address")
}
