//! `bot.toml`: read once at start-up, handed to the shell and, as plain values,
//! to the engine. Nothing here does mail or SQL.

use std::path::{Path, PathBuf};

use serde::Deserialize;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// No file where the config was looked for: a first start, or a start
    /// from another folder.
    #[error(
        "no config at {path}: write one with `nomicbot init`, or name yours with --config (or NOMICBOT_CONFIG)"
    )]
    Missing { path: PathBuf },
    #[error(
        "config {path} is a folder: name the bot.toml in it with --config (or NOMICBOT_CONFIG)"
    )]
    Folder { path: PathBuf },
    /// A value the file's syntax or a key's type refuses, told by its line, its
    /// section and key, and what to write instead.
    #[error("config {path}{where_}: {message}")]
    Parse {
        path: PathBuf,
        /// ", line N" when the line is known.
        where_: String,
        message: String,
    },
    #[error("config {path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    pub bot: BotConfig,
    #[serde(default)]
    pub identity: IdentityConfig,
    pub transport: TransportKind,
    #[serde(default)]
    pub maildir: MaildirConfig,
    pub imap: Option<ImapConfig>,
    pub smtp: Option<SmtpConfig>,
    #[serde(default)]
    pub players: PlayersConfig,
    #[serde(default)]
    pub officers: OfficersConfig,
    #[serde(default)]
    pub accounts: AccountsConfig,
    /// Days in a zone, cycles (the nweek of ndays), and the reminders' lead time.
    #[serde(default)]
    pub calendar: crate::engine::calendar::Calendar,
    /// What one message, and one sender in a day, may cost the bot.
    #[serde(default)]
    pub limits: LimitsConfig,
    /// What the game list adds to the posts it delivers.
    #[serde(default)]
    pub list: ListConfig,
    /// The officers' periodic reports to the list (`games::reports`).
    #[serde(default)]
    pub reports: crate::games::reports::Reports,
    /// The public record as a web site (`nomicbot site`, `crate::site`).
    #[serde(default)]
    pub site: SiteConfig,
    /// The folder the config file lives in: relative paths are taken from here.
    #[serde(skip)]
    pub base_dir: PathBuf,
    /// Every other section: a game's, by the game's name, read by the game
    /// itself (`games::GameParams::from_config`); any other is refused.
    #[serde(flatten)]
    pub sections: toml::Table,
    /// The games' parameters, read from their sections.
    #[serde(skip)]
    pub games: crate::games::GameParams,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotConfig {
    /// The bot's own address: From of everything it sends, and where private actions go.
    pub address: String,
    #[serde(default = "default_bot_name")]
    pub name: String,
    /// The game list: public announcements go here; mail that came through it is public.
    pub list: String,
    /// The list's List-Id (e.g. `game-list.example.org`), if the list stamps one.
    pub list_id: Option<String>,
    #[serde(default = "default_database")]
    pub database: PathBuf,
    #[serde(default = "default_templates")]
    pub templates: PathBuf,
    /// Addresses of the moderators who may override any automatic ruling.
    #[serde(default)]
    pub moderators: Vec<String>,
    /// The official dictionary of the word games: a word list, one word per line.
    /// Unset: the shipped list.
    pub dictionary: Option<PathBuf>,
    /// What a reply under a tag gets when its lines are all talk (none understood,
    /// none an attempt at a command): `none`, no answer; `short`, one line.
    #[serde(default)]
    pub chatter_answer: ChatterAnswer,
    /// A game whose bound rules the registry never held: refused its start
    /// until they are imported ("required", the default), played by the texts
    /// the bot implements ("baseline"), or played applying none of them
    /// ("absent", the strict reading).
    #[serde(default)]
    pub unrecorded_rules: UnrecordedRules,
}

/// `bot.unrecorded_rules`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnrecordedRules {
    #[default]
    Required,
    Baseline,
    Absent,
}

/// The answer to chatter in a tagged thread (`bot.chatter_answer`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatterAnswer {
    /// No answer: the message is kept aside with the reason.
    #[default]
    None,
    /// One short line saying nothing was done, and how to get the commands.
    Short,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdentityConfig {
    /// When From is the list itself (DMARC rewriting, `"Alice via game-list" <list@...>`),
    /// the player is looked for in these headers, in this order.
    #[serde(default = "default_recover_from")]
    pub recover_from: Vec<String>,
    /// Who is believed to be the sender (`mail::auth`): `none` trusts From (unsafe
    /// for officers on an open list), `dmarc` only the verdict of our own server.
    #[serde(default)]
    pub auth: AuthMode,
    /// The authserv-id our receiving server writes in `Authentication-Results`
    /// (`auth = "dmarc"`); every other such header is ignored.
    pub authserv_id: Option<String>,
    /// The DKIM domain (`d=`) the list signs with; unset: the domain of `bot.list`.
    pub list_dkim_domain: Option<String>,
    /// What becomes of mail that is not authenticated under `auth = "dmarc"`:
    /// `players` applies it without any office, `refuse` keeps it aside.
    #[serde(default)]
    pub unauthenticated: Unauthenticated,
    /// The selectors (`s=`) of the list's own signature, when other mail of its
    /// domain is signed with others; empty: every signature of the list's domain
    /// is the list's, and authenticates no author.
    #[serde(default)]
    pub list_dkim_selectors: Vec<String>,
    /// An officer command whose signature is dated more than this many hours
    /// before it arrived is refused as a possible replay of an old message.
    #[serde(default = "default_officer_signature_hours")]
    pub officer_signature_hours: u32,
    /// `auth = "dkim"`: a file of pinned DKIM key records, read before DNS
    /// (relative to the configuration's folder).
    pub dkim_keys: Option<PathBuf>,
    /// `auth = "dkim"`: whether keys that are not pinned are looked up in DNS.
    #[serde(default = "default_true")]
    pub dns: bool,
    /// `auth = "dkim"`: the longest one key lookup may take.
    #[serde(default = "default_dns_timeout_seconds")]
    pub dns_timeout_seconds: u64,
    /// `auth = "dkim"`: the domains whose ARC seal is believed about how a post
    /// authenticated before the list changed it; empty: the list's DKIM domain.
    #[serde(default)]
    pub arc_sealers: Vec<String>,
}

fn default_dns_timeout_seconds() -> u64 {
    5
}

fn default_true() -> bool {
    true
}

fn default_officer_signature_hours() -> u32 {
    72
}

impl Default for IdentityConfig {
    fn default() -> Self {
        IdentityConfig {
            recover_from: default_recover_from(),
            auth: AuthMode::default(),
            authserv_id: None,
            list_dkim_domain: None,
            unauthenticated: Unauthenticated::default(),
            list_dkim_selectors: Vec::new(),
            officer_signature_hours: default_officer_signature_hours(),
            dkim_keys: None,
            dns: true,
            dns_timeout_seconds: default_dns_timeout_seconds(),
            arc_sealers: Vec::new(),
        }
    }
}

/// How senders are authenticated (`identity.auth`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuthMode {
    /// The bot verifies DKIM signatures (and a trusted list's ARC seal) itself:
    /// an office needs a signature aligned with From, or a passphrase.
    #[default]
    Dkim,
    /// Only a passing, aligned DKIM or DMARC verdict of our own server counts.
    Dmarc,
    /// From (or the header it is recovered from) is believed: anyone can forge it.
    None,
}

/// What unauthenticated mail may still do under `auth = "dmarc"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unauthenticated {
    /// Player commands are applied; officer commands make the whole message refused.
    #[default]
    Players,
    /// Nothing is applied: the message is kept aside and the sender told.
    Refuse,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    /// The embedded default: local Maildirs, no server.
    Maildir,
    /// IMAP in, SMTP out.
    Imap,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaildirConfig {
    /// Incoming mail is taken from `new/` here and moved to `cur/` once stored.
    #[serde(default = "default_maildir_inbox")]
    pub inbox: PathBuf,
    /// Outgoing mail is written here as one file per message (in `new/`).
    #[serde(default = "default_maildir_outbox")]
    pub outbox: PathBuf,
}

impl Default for MaildirConfig {
    fn default() -> Self {
        MaildirConfig {
            inbox: default_maildir_inbox(),
            outbox: default_maildir_outbox(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tls {
    None,
    Starttls,
    Tls,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImapConfig {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Option<String>,
    pub password_file: Option<PathBuf>,
    #[serde(default = "default_tls")]
    pub tls: Tls,
    /// A PEM file of extra CA certificates to trust (a private CA).
    pub ca_file: Option<PathBuf>,
    #[serde(default = "default_mailbox")]
    pub mailbox: String,
    /// Polling interval when the server has no IDLE (and the longest IDLE wait).
    #[serde(default = "default_poll_seconds")]
    pub poll_seconds: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpConfig {
    pub host: String,
    pub port: u16,
    pub user: Option<String>,
    pub password: Option<String>,
    pub password_file: Option<PathBuf>,
    #[serde(default = "default_tls")]
    pub tls: Tls,
    pub ca_file: Option<PathBuf>,
    /// Longest wait between two attempts at a message the server refused or could not take.
    #[serde(default = "default_retry_max_seconds")]
    pub retry_max_seconds: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayersConfig {
    /// How long an `alias` request waits for its two confirmations: the new
    /// address's and the player's (`engine::players::PendingAlias`).
    #[serde(default = "default_alias_confirm_hours")]
    pub alias_confirm_hours: u32,
    /// Longest player name accepted by `join` and `rename`.
    #[serde(default = "default_max_name_chars")]
    pub max_name_chars: usize,
    /// The longest vacation `vacation until` accepts, in days.
    #[serde(default = "default_max_vacation_days")]
    pub max_vacation_days: u32,
    /// The most players the `players` answer names; the others are counted.
    #[serde(default = "default_roster_names")]
    pub roster_names: usize,
}

impl Default for PlayersConfig {
    fn default() -> Self {
        PlayersConfig {
            alias_confirm_hours: default_alias_confirm_hours(),
            max_name_chars: default_max_name_chars(),
            max_vacation_days: default_max_vacation_days(),
            roster_names: default_roster_names(),
        }
    }
}

/// What one message may cost. A message beyond a limit is kept aside, unapplied,
/// with the reason, and its sender gets one short answer saying so.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// The largest message read, in bytes, as received (attachments included).
    #[serde(default = "default_max_message_bytes")]
    pub max_message_bytes: usize,
    /// The most command lines read in one message.
    #[serde(default = "default_max_command_lines")]
    pub max_command_lines: usize,
    /// The most bytes of mail one message may cause (its answer, and everything
    /// else it sends).
    #[serde(default = "default_max_answer_bytes")]
    pub max_answer_bytes: usize,
    /// The most answers one sender gets in a day (a calendar day of `[calendar]`);
    /// past it, what they send is still done, and the answers are gathered in one
    /// digest at the end of the day. Moderators and officers are never capped.
    /// 0: no cap.
    #[serde(default = "default_max_answers_per_day")]
    pub max_answers_per_day: usize,
    /// The most messages of one sender the games are given in a day (a calendar
    /// day of `[calendar]`); past it, the sender's messages are kept aside until
    /// a moderator releases them. Moderators and officers are never held. 0: no
    /// bound.
    #[serde(default = "default_max_actions_per_day")]
    pub max_actions_per_day: usize,
    /// The most mail the bot writes in an hour (UTC clock hours, counted by the
    /// time of the steps that write it) before players' messages of that hour
    /// are kept aside. Deadlines and moderators' messages are never held, and
    /// count. 0: no bound.
    #[serde(default = "default_max_outgoing_per_hour")]
    pub max_outgoing_per_hour: usize,
    /// The same bound on the bytes of that mail. 0: no bound.
    #[serde(default = "default_max_outgoing_bytes_per_hour")]
    pub max_outgoing_bytes_per_hour: usize,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            max_message_bytes: default_max_message_bytes(),
            max_command_lines: default_max_command_lines(),
            max_answer_bytes: default_max_answer_bytes(),
            max_answers_per_day: default_max_answers_per_day(),
            max_actions_per_day: default_max_actions_per_day(),
            max_outgoing_per_hour: default_max_outgoing_per_hour(),
            max_outgoing_bytes_per_hour: default_max_outgoing_bytes_per_hour(),
        }
    }
}

fn default_max_message_bytes() -> usize {
    2_000_000
}
fn default_max_command_lines() -> usize {
    1_000
}
fn default_max_answer_bytes() -> usize {
    1_000_000
}
/// Mailman's `max_autoresponses_per_day`.
fn default_max_answers_per_day() -> usize {
    10
}
/// Twice what a very active player sends in a day (about 50 commands): nobody
/// playing is held, and a runaway script or a loop is stopped after 100.
fn default_max_actions_per_day() -> usize {
    100
}
/// A list of 100 players, each acting twice in the hour before a deadline, is
/// about 400 mails (an answer and an announcement each); a deadline's own burst
/// is never held. 500 lets that through and stops a flood of thousands.
fn default_max_outgoing_per_hour() -> usize {
    500
}
/// 500 mails of a few kilobytes each (an answer with its quoted lines, an
/// announcement) is 2 to 5 MB; 10 MB leaves room for long answers (help, a
/// ruleset) and keeps a flood to 240 MB a day at most, not 473 MB an hour.
fn default_max_outgoing_bytes_per_hour() -> usize {
    10_000_000
}

/// What the list manager adds to a post. Reading a body stops at the first line
/// of its footer, so the footer is never read as commands.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListConfig {
    /// Lines at which a list's footer begins: a body line equal to one of them
    /// (surrounding whitespace aside) ends what the bot reads.
    #[serde(default = "default_footer_markers")]
    pub footer_markers: Vec<String>,
    /// The address the list writes in Reply-To of every post, if it writes one
    /// (Mailman's `reply_goes_to_list`: `point_to_list` writes the list's own
    /// address, `explicit_header` its `reply_to_address`). Mailman then puts a
    /// munged post's author in Cc instead of Reply-To; unset: the list writes no
    /// Reply-To, and the author is in Reply-To.
    pub reply_to: Option<String>,
}

/// `[site]`: the public record as a static web site.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteConfig {
    /// Where the daemon and `once` keep the site current after every committed
    /// batch of steps; unset, they write none (`nomicbot site OUT/` still does).
    pub dir: Option<PathBuf>,
    /// Where the site is served (`https://nomic.example/record/`): every
    /// announcement to the list then ends with the link to its page.
    pub url: Option<String>,
    /// How many of the latest announcements each Atom feed keeps (50): a feed
    /// stays the same size however long the nomic runs.
    pub feed_entries: Option<usize>,
    /// How many announcements a page of history holds (100): a full page never
    /// changes, so a new announcement rewrites only the newest.
    pub history_page: Option<i64>,
}

impl SiteConfig {
    pub fn feed_entries(&self) -> usize {
        self.feed_entries.unwrap_or(50).max(1)
    }

    pub fn history_page(&self) -> i64 {
        self.history_page.unwrap_or(100).max(1)
    }

    /// The address of a page of the site, when `url` is set.
    pub fn link(&self, page: &str) -> Option<String> {
        let url = self.url.as_deref()?.trim();
        if url.is_empty() {
            return None;
        }
        Some(format!("{}/{page}", url.trim_end_matches('/')))
    }
}

impl Default for ListConfig {
    fn default() -> Self {
        ListConfig {
            footer_markers: default_footer_markers(),
            reply_to: None,
        }
    }
}

/// The first lines of the footers list managers add by default: Mailman's rule of
/// 47 underscores (2.1 and 3) and groups.io's `-=-=-` rule. mlmmj has no default
/// footer (`control/footer` is the operator's text): its first line goes here.
fn default_footer_markers() -> Vec<String> {
    vec!["_".repeat(47), "-=-=-=-=-=-=-=-=-=-=-=-".to_string()]
}

/// Who holds which office, by address.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfficersConfig {
    /// The officer(s) who keep the rules: they enact, amend and repeal under [ruleset].
    #[serde(default)]
    pub rules: Vec<String>,
    /// Officers who receive a copy of the answer to every private action (a Rule Tag
    /// moderator must see them). Empty: nobody does.
    #[serde(default)]
    pub copy_private_to: Vec<String>,
    /// Every other office and who holds it, by the name the rules give it:
    /// `"Rule Tag Moderator" = ["rtm@..."]`, `Referee = [...]`, `Wrangler = [...]`.
    #[serde(default)]
    pub offices: std::collections::BTreeMap<String, Vec<String>>,
    /// The offices a moderator may appoint to by mail (`appoint OFFICE ADDRESS
    /// because REASON` under [nomic]) besides the keepers of the rules, the offices
    /// above and those the games name: by default every office the rule texts name.
    #[serde(default = "default_office_names")]
    pub names: Vec<String>,
}

/// The offices the shipped rule texts name (Ackanomic 1209–1250, Ghost, Gnomic,
/// Rule Tag): appointable by mail before any game that needs them is set up.
impl Default for OfficersConfig {
    fn default() -> Self {
        OfficersConfig {
            rules: Vec::new(),
            copy_private_to: Vec::new(),
            offices: Default::default(),
            names: default_office_names(),
        }
    }
}

fn default_office_names() -> Vec<String> {
    [
        "Rule Tag Moderator",
        "Officer in charge of Random Things",
        "Referee",
        "GamesMaster",
        "Wrangler",
        "Scholar",
        "Treasure-Harfer",
        "Judge",
    ]
    .into_iter()
    .map(String::from)
    .collect()
}

/// The currencies of the nomic (`[[accounts.currency]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountsConfig {
    #[serde(default = "default_currencies")]
    pub currency: Vec<crate::engine::accounts::Currency>,
    /// The kinds of inventory entity no player may hand on (bury as Treasure).
    #[serde(default = "default_untradeable_kinds")]
    pub untradeable_kinds: Vec<String>,
}

impl Default for AccountsConfig {
    fn default() -> Self {
        AccountsConfig {
            currency: default_currencies(),
            untradeable_kinds: default_untradeable_kinds(),
        }
    }
}

fn default_untradeable_kinds() -> Vec<String> {
    crate::engine::inventory::UNTRADEABLE_KINDS
        .iter()
        .map(|k| (*k).to_owned())
        .collect()
}

/// Points and A$ are whole numbers (Ackanomic, Gnomic); money units are exact
/// rationals (the Space nomic pays 6 + 1/403).
fn default_currencies() -> Vec<crate::engine::accounts::Currency> {
    use crate::engine::accounts::{Currency, Exactness};
    vec![
        Currency::new("points", &["point", "pts"], Exactness::Integer),
        Currency::new("A$", &["a$", "acka-dollars"], Exactness::Integer),
        Currency::new(
            "money",
            &["mu", "money units", "money unit"],
            Exactness::Rational,
        ),
    ]
}

fn default_bot_name() -> String {
    "nomicbot".into()
}
fn default_database() -> PathBuf {
    "nomicbot.sqlite".into()
}
fn default_templates() -> PathBuf {
    "templates".into()
}
fn default_recover_from() -> Vec<String> {
    vec!["reply-to".into(), "x-original-from".into(), "cc".into()]
}
fn default_maildir_inbox() -> PathBuf {
    "mail/inbox".into()
}
fn default_maildir_outbox() -> PathBuf {
    "mail/outbox".into()
}
fn default_tls() -> Tls {
    Tls::Starttls
}
fn default_mailbox() -> String {
    "INBOX".into()
}
fn default_poll_seconds() -> u64 {
    60
}
fn default_retry_max_seconds() -> u64 {
    600
}
fn default_alias_confirm_hours() -> u32 {
    72
}
/// A list of 30 to 100 players reads most or all of its roster in one answer of
/// a few kilobytes; a list of thousands gets the first 50 and a count.
fn default_roster_names() -> usize {
    50
}
fn default_max_name_chars() -> usize {
    40
}
fn default_max_vacation_days() -> u32 {
    366
}

impl Config {
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| {
            let path = path.to_owned();
            if source.kind() == std::io::ErrorKind::NotFound {
                ConfigError::Missing { path }
            } else if path.is_dir() {
                ConfigError::Folder { path }
            } else {
                ConfigError::Read { path, source }
            }
        })?;
        let base_dir = path
            .parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."));
        Config::parse(&text, base_dir).map_err(|e| match e {
            ConfigError::Parse {
                where_, message, ..
            } => ConfigError::Parse {
                path: path.to_owned(),
                where_,
                message,
            },
            ConfigError::Invalid { message, .. } => ConfigError::Invalid {
                path: path.to_owned(),
                message,
            },
            other => other,
        })
    }

    pub fn parse(text: &str, base_dir: PathBuf) -> Result<Config, ConfigError> {
        let mut config: Config = toml::from_str(text).map_err(|error| parse_error(text, &error))?;
        config.base_dir = base_dir;
        config.read_addresses()?;
        config.validate()?;
        config.games =
            crate::games::GameParams::from_config(&config.sections).map_err(|message| {
                ConfigError::Invalid {
                    path: PathBuf::new(),
                    message,
                }
            })?;
        Ok(config)
    }

    /// Reads every address list of the offices as bare addresses: a moderator
    /// written `Mod <mod@nomic.example>`, as a mail client shows em, would
    /// otherwise match no sender and be silently powerless.
    fn read_addresses(&mut self) -> Result<(), ConfigError> {
        let mut lists: Vec<(String, &mut Vec<String>)> = vec![
            ("[bot] moderators".into(), &mut self.bot.moderators),
            ("[officers] rules".into(), &mut self.officers.rules),
            (
                "[officers] copy_private_to".into(),
                &mut self.officers.copy_private_to,
            ),
        ];
        for (office, holders) in &mut self.officers.offices {
            lists.push((format!("[officers.offices] {office:?}"), holders));
        }
        for (key, list) in lists {
            for entry in list.iter_mut() {
                *entry = office_address(&key, entry).map_err(|message| ConfigError::Invalid {
                    path: PathBuf::new(),
                    message,
                })?;
            }
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            path: PathBuf::new(),
            message,
        };
        let games = crate::games::game_names();
        if let Some(unknown) = self
            .sections
            .keys()
            .find(|key| !games.contains(&key.as_str()))
        {
            return Err(invalid(format!(
                "unknown section or key {unknown:?} (the games' sections: {})",
                games.join(", ")
            )));
        }
        for (key, value) in [
            ("bot.address", &self.bot.address),
            ("bot.list", &self.bot.list),
        ] {
            if !value.contains('@') {
                return Err(invalid(format!(
                    "{key} = {value:?} is not an e-mail address"
                )));
            }
        }
        for header in &self.identity.recover_from {
            if !["reply-to", "x-original-from", "cc"]
                .contains(&header.to_ascii_lowercase().as_str())
            {
                return Err(invalid(format!(
                    "identity.recover_from: {header:?} is not one of reply-to, x-original-from, cc"
                )));
            }
        }
        if let Some(reply_to) = &self.list.reply_to
            && !reply_to.contains('@')
        {
            return Err(invalid(format!(
                "list.reply_to = {reply_to:?} is not an e-mail address"
            )));
        }
        if self.identity.auth == AuthMode::Dmarc
            && self
                .identity
                .authserv_id
                .as_deref()
                .is_none_or(|id| id.trim().is_empty())
        {
            return Err(invalid(
                "identity.auth = \"dmarc\" needs identity.authserv_id: the authserv-id of your receiving server's Authentication-Results".into(),
            ));
        }
        if self.transport == TransportKind::Imap {
            if self.imap.is_none() {
                return Err(invalid(
                    "transport = \"imap\" needs an [imap] section".into(),
                ));
            }
            if self.smtp.is_none() {
                return Err(invalid(
                    "transport = \"imap\" needs an [smtp] section".into(),
                ));
            }
        }
        Ok(())
    }

    /// The warning an operator must read when senders are not authenticated:
    /// said once by each command that applies or sends mail, not by the ones
    /// that only read.
    pub fn trust_warning(&self) -> Option<&'static str> {
        (self.identity.auth == AuthMode::None).then_some(
            "[identity] auth = \"none\": anyone who writes a moderator's or an officer's address in From acts as them; on an open list use auth = \"dkim\" (the default) or \"dmarc\"",
        )
    }

    /// What in the list's settings looks wrong, for `nomicbot check`: each
    /// warning says what to set.
    pub fn list_warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        let Some(reply_to) = self.list.reply_to.as_deref().map(str::trim) else {
            return warnings;
        };
        if reply_to.eq_ignore_ascii_case(self.bot.address.trim()) {
            warnings.push(format!(
                "[list] reply_to = {reply_to:?} is the bot's own address: replies to every post would come to the bot alone, not to the list; set the address the list writes in Reply-To (Mailman: reply_to_address), or leave it unset if the list writes none"
            ));
        }
        if self
            .bot
            .moderators
            .iter()
            .any(|m| m.trim().eq_ignore_ascii_case(reply_to))
        {
            warnings.push(format!(
                "[list] reply_to = {reply_to:?} is a moderator's address: set the address the list writes in Reply-To of every post, not a person's"
            ));
        }
        if !self
            .identity
            .recover_from
            .iter()
            .any(|h| h.eq_ignore_ascii_case("cc"))
        {
            warnings.push(
                "[list] reply_to is set, and identity.recover_from leaves out cc, where Mailman puts a munged post's author when the list writes its own Reply-To: add \"cc\" or no munged post is credited"
                    .to_owned(),
            );
        }
        warnings
    }

    /// A path from the config, taken relative to the config file's folder.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_owned()
        } else {
            self.base_dir.join(path)
        }
    }

    /// How the bot's own DKIM verifier looks for keys (`auth = "dkim"`).
    pub fn verify_settings(&self) -> crate::mail::verify::VerifySettings {
        crate::mail::verify::VerifySettings {
            keys_file: self
                .identity
                .dkim_keys
                .as_deref()
                .map(|path| self.resolve(path)),
            dns: self.identity.dns,
            dns_timeout: std::time::Duration::from_secs(self.identity.dns_timeout_seconds.max(1)),
        }
    }

    /// The DKIM domain the list signs with: `identity.list_dkim_domain`, else the
    /// domain of the list's address.
    pub fn list_dkim_domain(&self) -> String {
        self.identity
            .list_dkim_domain
            .clone()
            .or_else(|| {
                self.bot
                    .list
                    .rsplit_once('@')
                    .map(|(_, domain)| domain.to_owned())
            })
            .unwrap_or_default()
            .trim()
            .to_lowercase()
    }

    /// The domain of the bot's address: the right-hand side of its Message-IDs.
    pub fn bot_domain(&self) -> &str {
        self.bot
            .address
            .rsplit_once('@')
            .map(|(_, domain)| domain)
            .unwrap_or("nomicbot.invalid")
    }
}

/// A refusal of the TOML reader, told as an operator reads bot.toml: the line,
/// the section and the key, and the value's expected form in words.
fn parse_error(text: &str, error: &toml::de::Error) -> ConfigError {
    let message = crate::games::section_error::plain(error.message());
    let Some(span) = error.span() else {
        return ConfigError::Parse {
            path: PathBuf::new(),
            where_: String::new(),
            message,
        };
    };
    let start = span.start.min(text.len());
    let line_number = text[..start].matches('\n').count() + 1;
    let lines: Vec<&str> = text.lines().collect();
    let line = lines.get(line_number - 1).copied().unwrap_or("").trim();
    // The table header the line belongs to, if any.
    let section = lines[..line_number.saturating_sub(1).min(lines.len())]
        .iter()
        .rev()
        .map(|line| line.trim())
        .find(|line| line.starts_with('['))
        .filter(|_| !line.starts_with('['));
    if error.message().starts_with("missing field") {
        // Told where the table begins: a header line, or the top of the file.
        let table = if line.starts_with('[') {
            format!("{line} ")
        } else {
            "the top of the file: ".to_owned()
        };
        return ConfigError::Parse {
            path: PathBuf::new(),
            where_: String::new(),
            message: format!("{table}{message}"),
        };
    }
    let setting = match line.split_once('=') {
        // A value refused: the whole `key = value`, its comment left out.
        Some((key, _)) if !error.message().starts_with("unknown field") => {
            let value = text.get(span.clone()).unwrap_or("").trim();
            // A refusal of the key itself (a duplicate) spans the key.
            if value == key.trim() {
                value.to_owned()
            } else {
                format!("{} = {value}", key.trim())
            }
        }
        Some((key, _)) => key.trim().to_owned(),
        None => line.to_owned(),
    };
    let message = match section {
        Some(section) => format!("{section} {setting}: {message}"),
        None if setting.is_empty() => message,
        None => format!("{setting}: {message}"),
    };
    ConfigError::Parse {
        path: PathBuf::new(),
        where_: format!(", line {line_number}"),
        message,
    }
}

/// One holder of an office as bot.toml writes em: `mod@nomic.example`, or
/// `Mod <mod@nomic.example>` as a mail client shows it; the bare address,
/// lower-cased, as senders are compared.
fn office_address(key: &str, entry: &str) -> Result<String, String> {
    let inner = match (entry.rfind('<'), entry.rfind('>')) {
        (Some(open), Some(close)) if open < close => &entry[open + 1..close],
        _ => entry,
    };
    let address = crate::engine::Address::new(inner);
    // Not `looks_valid`: a test server's `mod@localhost` has no dot and is fine.
    let well_formed = address
        .as_str()
        .split_once('@')
        .is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !address
                    .as_str()
                    .chars()
                    .any(|c| c.is_whitespace() || c == '<' || c == '>')
        });
    if well_formed {
        Ok(address.as_str().to_owned())
    } else {
        Err(format!(
            "{key}: {entry:?} is not an e-mail address; write the address itself, \
             \"mod@example.org\", or a name and the address in angle brackets, \
             \"Mod <mod@example.org>\""
        ))
    }
}

/// Reads a password given inline or in a file (first line, trimmed).
pub fn read_password(
    inline: &Option<String>,
    file: &Option<PathBuf>,
    config: &Config,
) -> Result<Option<String>, std::io::Error> {
    if let Some(password) = inline {
        return Ok(Some(password.clone()));
    }
    match file {
        Some(path) => {
            let text = std::fs::read_to_string(config.resolve(path))?;
            Ok(Some(text.lines().next().unwrap_or("").trim().to_owned()))
        }
        None => Ok(None),
    }
}

/// The shipped, commented `bot.toml` (the embedded Maildir default), written by `init`.
pub const DEFAULT_CONFIG: &str = include_str!("../bot.toml");

/// The shipped configuration's `identity.auth` line.
const SHIPPED_AUTH: &str = "\nauth = \"dkim\"\n";

/// The shipped configuration's `bot.unrecorded_rules` line.
const SHIPPED_UNRECORDED: &str = "\nunrecorded_rules = \"required\"\n";

/// A configuration text with From believed (`auth = "none"`): for the demo,
/// the samples and the benchmarks, whose mail is local and never signed. Their
/// games also begin without an import (`unrecorded_rules = "baseline"`): a
/// scripted exchange starts a game on a fresh registry, and the import has
/// tests of its own.
pub fn believing_from(config_text: &str) -> String {
    debug_assert!(config_text.contains(SHIPPED_AUTH), "the shipped auth line");
    config_text
        .replacen(SHIPPED_AUTH, "\nauth = \"none\"\n", 1)
        .replacen(SHIPPED_UNRECORDED, "\nunrecorded_rules = \"baseline\"\n", 1)
        // The samples and scenarios count the list's mail: a weekly report of
        // their own is asked for where they test it.
        .replace("]\non = true\n", "]\non = false\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 29 item 3: `[list] reply_to` is read, refused when it is no
    /// address, and `check` warns when it looks wrong.
    #[test]
    fn the_lists_reply_to_is_checked() {
        let with = |reply_to: &str| {
            Config::parse(
                &DEFAULT_CONFIG.replacen(
                    "[list]\n",
                    &format!("[list]\nreply_to = \"{reply_to}\"\n"),
                    1,
                ),
                PathBuf::from("."),
            )
        };
        let shipped = Config::parse(DEFAULT_CONFIG, PathBuf::from(".")).expect("bot.toml");
        assert_eq!(shipped.list.reply_to, None);
        assert!(shipped.list_warnings().is_empty());
        let discuss = with("discuss@nomic.example").expect("an address");
        assert_eq!(
            discuss.list.reply_to.as_deref(),
            Some("discuss@nomic.example")
        );
        assert!(
            discuss.list_warnings().is_empty(),
            "{:?}",
            discuss.list_warnings()
        );
        assert!(with("discuss").is_err());
        let bot = with(&shipped.bot.address).expect("an address");
        assert!(bot.list_warnings()[0].contains("the bot's own address"));
        let mut no_cc = with("discuss@nomic.example").expect("an address");
        no_cc.identity.recover_from = vec!["reply-to".into()];
        assert!(no_cc.list_warnings()[0].contains("leaves out cc"));
    }

    /// The shipped bot.toml writes out the defaults of the reading keys, so an
    /// operator who deletes a line gets what the file said.
    #[test]
    fn the_shipped_list_and_chatter_keys_are_the_defaults() {
        let shipped = Config::parse(DEFAULT_CONFIG, PathBuf::from(".")).expect("bot.toml");
        assert_eq!(shipped.list.footer_markers, default_footer_markers());
        assert_eq!(shipped.bot.chatter_answer, ChatterAnswer::default());
        let minimal = "transport = \"maildir\"\n[bot]\naddress = \"b@x.org\"\nlist = \"l@x.org\"\n";
        let minimal = Config::parse(minimal, PathBuf::from(".")).expect("minimal");
        assert_eq!(minimal.list.footer_markers, default_footer_markers());
        assert_eq!(minimal.bot.chatter_answer, ChatterAnswer::None);
    }

    fn refusal(text: &str) -> String {
        match Config::parse(text, PathBuf::from(".")) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(error) => error.to_string(),
        }
    }

    const MINIMAL: &str =
        "transport = \"maildir\"\n[bot]\naddress = \"b@x.org\"\nlist = \"l@x.org\"\n";

    #[test]
    fn a_refused_value_is_told_by_its_line_section_and_key_without_rust_types() {
        let text = format!("{MINIMAL}[players]\nmax_name_chars = \"forty\"\n");
        let message = refusal(&text);
        assert!(
            message.ends_with(
                ", line 6: [players] max_name_chars = \"forty\": expected a whole number, 0 or more (write it without quotes)"
            ),
            "{message}"
        );
        let text = format!("{MINIMAL}[identity]\nauth = \"maybe\"\n");
        assert!(
            refusal(&text).ends_with(
                "[identity] auth = \"maybe\": maybe is not one of the choices: dkim, dmarc, none"
            ),
            "{}",
            refusal(&text)
        );
        let message = refusal("transport = \"maildir\"\n");
        assert!(message.contains("the key bot is missing"), "{message}");
    }

    #[test]
    fn a_refused_game_key_is_found_by_taking_it_out() {
        let text = format!("{MINIMAL}[vote]\ndays = \"three\"\n");
        assert!(
            refusal(&text).ends_with(
                "[vote] days = \"three\": expected a whole number (write it without quotes)"
            ),
            "{}",
            refusal(&text)
        );
    }
}
