//! `nomicbot demo`: a short scripted exchange played through the real pipeline on
//! the embedded Maildir transport (messages dropped into the inbox Maildir, a
//! `once` pass, mail written to the outbox Maildir), then the mail the bot sent.
//! `nomic` is the player registry's exchange; any registered game's name plays the
//! samples' setup and that game's sample (`Game::sample`), a pass at each
//! message and each wait. It names no game: the registry does.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use jiff::{SignedDuration, Timestamp};

use crate::config::{Config, DEFAULT_CONFIG};
use crate::engine::game::Script;
use crate::games::Sample;
use crate::mail::maildir;
use crate::pipeline::Bot;
use crate::run::{Transport, once};
use crate::samples::{self, Stage};

/// (minutes after the start, from, to, subject, extra headers, body)
const SCRIPT: &[(i64, &str, &str, &str, &str, &str)] = &[
    (
        0,
        "Alice <alice@nomic.example>",
        "game-list@nomic.example",
        "[nomic] join Alice",
        "",
        "Hello all, count me in!\n",
    ),
    (
        5,
        "Bob <bob@nomic.example>",
        "bot@nomic.example",
        "Re: [game-list] [Nomic] hello",
        "",
        "join Bob\nplayers\n\n-- \nBob\n",
    ),
    (
        9,
        "Bob <bob@nomic.example>",
        "game-list@nomic.example",
        "[nomic] join Alice",
        "",
        "\n",
    ),
    (
        12,
        "Carol <carol@nomic.example>",
        "bot@nomic.example",
        "[nomic]",
        "",
        "dance a jig\n",
    ),
    (
        15,
        "Carol <carol@nomic.example>",
        "bot@nomic.example",
        "[nomic] Out of office",
        "Auto-Submitted: auto-replied\r\n",
        "dance a jig\n",
    ),
    (
        20,
        "Alice <alice@nomic.example>",
        "game-list@nomic.example",
        "Re: [nomic] Bob joined the game",
        "",
        "> Bob joined\nleave\n\nOn Monday, Bob wrote:\n> join Bob\n",
    ),
];

/// The demo of the player registry, besides the games'.
pub const REGISTRY: &str = "nomic";

/// Every demo `demo --game` plays: the registry's, then each registered game's.
pub fn names() -> Vec<&'static str> {
    std::iter::once(REGISTRY)
        .chain(crate::games::game_names())
        .collect()
}

/// Plays the demo `game` (one of `names()`) in `dir` (default: a fresh temporary
/// folder, removed afterwards however the demo ended) and returns what a
/// newcomer should read.
pub fn run(dir: Option<PathBuf>, game: &str) -> Result<String> {
    let sample = crate::games::samples()
        .into_iter()
        .find(|sample| sample.name == game);
    if game != REGISTRY && sample.is_none() {
        anyhow::bail!("no demo {game:?}; try: {}", names().join(", "));
    }
    // The passes run on a runtime of the demo's own: a sample's script is plain
    // code that waits for each pass.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let temporary = dir.is_none();
    let dir = dir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!(
            "nomicbot-demo-{}-{}",
            std::process::id(),
            Timestamp::now().as_second()
        ))
    });
    let played = setup(dir.clone()).and_then(|(dir, config)| match sample {
        Some(sample) => play_sample(dir, config, sample, &runtime),
        None => runtime.block_on(nomic(dir, config)),
    });
    if !temporary {
        return played;
    }
    // A folder the user did not ask for is not left behind in their /tmp.
    if let Err(error) = std::fs::remove_dir_all(&dir)
        && error.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(folder = %dir.display(), %error, "cannot remove the demo's temporary folder");
    }
    played.map(|text| {
        format!(
            "{text}\n(The demo's temporary folder is removed; give --dir FOLDER to keep its files.)\n"
        )
    })
}

/// A folder with the shipped bot.toml (with the samples' moderator, who keeps
/// the rules too) and the templates.
fn setup(dir: PathBuf) -> Result<(PathBuf, Config)> {
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let moderator = samples::address(samples::PLAYERS[0]);
    // The demo's mail is written here and never signed: From is believed.
    let config_text = crate::config::believing_from(DEFAULT_CONFIG)
        .replace(
            "moderators = []",
            &format!("moderators = [\"{moderator}\"]"),
        )
        .replace("\nrules = []", &format!("\nrules = [\"{moderator}\"]"));
    std::fs::write(dir.join("bot.toml"), config_text)?;
    crate::templates::write_defaults(&dir.join("templates"))?;
    let config = Config::load(&dir.join("bot.toml"))?;
    maildir::ensure(&config.resolve(&config.maildir.inbox))?;
    Ok((dir, config))
}

/// Drops one message into the inbox Maildir, delivered at `at`.
fn deliver(
    config: &Config,
    index: usize,
    at: Timestamp,
    (from, to, subject, extra, body): (&str, &str, &str, &str, &str),
) -> Result<()> {
    let inbox = config.resolve(&config.maildir.inbox);
    let raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <demo-{index}@nomic.example>\r\n\
         Date: {}\r\n{extra}\r\n{body}",
        at.strftime("%a, %d %b %Y %H:%M:%S +0000")
    );
    let path = inbox
        .join("new")
        .join(format!("{}.demo{index}.local", at.as_second()));
    std::fs::write(&path, raw.replace("\n", "\r\n").replace("\r\r\n", "\r\n"))?;
    // The delivery time is the file's time: that is when the action happens.
    std::fs::File::options()
        .write(true)
        .open(&path)?
        .set_modified(at.into())?;
    Ok(())
}

/// One mail of the bot's: the headers as sent, the body decoded (the wire form
/// may be quoted-printable).
fn show(out: &mut String, raw: &[u8]) -> Result<()> {
    writeln!(out, "\n{}", "=".repeat(72))?;
    let text = String::from_utf8_lossy(raw).replace("\r\n", "\n");
    // A long header is folded onto continuation lines: shown on one.
    let headers = text
        .split("\n\n")
        .next()
        .unwrap_or("")
        .replace("\n ", " ")
        .replace("\n\t", " ");
    for line in headers.lines().filter(|l| {
        [
            "From:",
            "To:",
            "Subject:",
            "In-Reply-To:",
            "Auto-Submitted:",
        ]
        .iter()
        .any(|h| l.starts_with(h))
    }) {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "\n{}", crate::mail::parse::text_of(raw).trim_end())?;
    Ok(())
}

/// The subject of a mail of the bot's, decoded.
fn subject(raw: &[u8]) -> String {
    crate::mail::parse::parse(raw, &crate::mail::parse::ParseOptions::default()).subject
}

/// Lists every mail the bot sent, a line each, and returns them.
fn list_sent(bot: &Bot, out: &mut String) -> Result<Vec<crate::store::OutRow>> {
    writeln!(out, "\nThe mail the bot sent, in order:")?;
    let rows = bot.store.outbox()?;
    for row in &rows {
        writeln!(
            out,
            "  {:<28} {}",
            row.recipients.join(", "),
            subject(&row.raw)
        )?;
    }
    Ok(rows)
}

async fn nomic(dir: PathBuf, config: Config) -> Result<String> {
    let start: Timestamp = "2026-01-05T10:00:00Z".parse()?;
    let mut out = String::new();
    writeln!(
        out,
        "nomicbot demo in {}\n\nPlayers' mail, as delivered to the bot's inbox Maildir:",
        dir.display()
    )?;
    for (index, (minutes, from, to, subject, extra, body)) in SCRIPT.iter().enumerate() {
        let at = start + SignedDuration::from_mins(*minutes);
        deliver(&config, index, at, (from, to, subject, extra, body))?;
        writeln!(
            out,
            "  {} {from} -> {to}: {subject:?}",
            crate::engine::human_time(at)
        )?;
    }

    let mut bot = Bot::open(config.clone())?;
    let mut transport = Transport::new(&config);
    let now = start + SignedDuration::from_mins(30);
    let pass = once(&mut bot, &mut transport, now).await?;
    writeln!(
        out,
        "\nOne pass: {} message(s) fetched, {} applied, {} kept aside, {} mail sent.\n",
        pass.fetched, pass.processed.applied, pass.processed.aside, pass.sent
    )?;
    for row in bot.store.inbox(Some(crate::store::InboxStatus::Aside))? {
        writeln!(
            out,
            "Kept aside: inbox #{} ({})",
            row.id,
            row.reason.unwrap_or_default()
        )?;
    }
    writeln!(
        out,
        "\nThe mail the bot sent (outbox Maildir {}):",
        config.resolve(&config.maildir.outbox).display()
    )?;
    for row in bot.store.outbox()? {
        show(&mut out, &row.raw)?;
    }
    writeln!(
        out,
        "\n{}\n\n{}",
        "=".repeat(72),
        crate::cli::state(&bot, None, false, false)?
    )?;
    Ok(out)
}

/// The real pipeline as a sample's stage: each message is delivered into the
/// inbox Maildir at its time and a pass runs then; a wait is a pass at its time.
/// The first error stops the script (the rest is skipped) and ends the demo.
struct OnPipeline<'r> {
    bot: Bot,
    config: Config,
    runtime: &'r tokio::runtime::Runtime,
    /// The players' mail and the sample's words, as the reader sees them.
    out: String,
    delivered: usize,
    /// The time of the last pass.
    clock: Timestamp,
    error: Option<anyhow::Error>,
}

impl OnPipeline<'_> {
    fn pass(&mut self, at: Timestamp) {
        if self.error.is_some() {
            return;
        }
        self.clock = self.clock.max(at);
        let (bot, config) = (&mut self.bot, &self.config);
        let result = self.runtime.block_on(async move {
            let mut transport = Transport::new(config);
            once(bot, &mut transport, at).await
        });
        if let Err(error) = result {
            self.error = Some(error.into());
        }
    }

    fn fail(&mut self, error: anyhow::Error) {
        self.error.get_or_insert(error);
    }

    fn deliver_one(
        &mut self,
        minutes: i64,
        from: &str,
        public: bool,
        tag: &str,
        lines: &[&str],
    ) -> Result<()> {
        let at = samples::at(minutes);
        let from = format!("{from} <{}>", samples::address(from));
        let to = if public {
            self.config.bot.list.clone()
        } else {
            self.config.bot.address.clone()
        };
        let subject = format!("[{tag}]");
        let body = format!("{}\n", lines.join("\n"));
        deliver(
            &self.config,
            self.delivered,
            at,
            (&from, &to, &subject, "", &body),
        )?;
        self.delivered += 1;
        writeln!(
            self.out,
            "  {} {from} -> {to}: {subject}  [{}]",
            crate::engine::human_time(at),
            lines.join(" | ")
        )?;
        Ok(())
    }
}

impl Script for OnPipeline<'_> {
    fn send(&mut self, minutes: i64, from: &str, public: bool, tag: &str, lines: &[&str]) {
        if self.error.is_some() {
            return;
        }
        match self.deliver_one(minutes, from, public, tag, lines) {
            Ok(()) => self.pass(samples::at(minutes)),
            Err(error) => self.fail(error),
        }
    }

    fn wait(&mut self, minutes: i64) {
        let at = samples::at(minutes);
        if self.error.is_none() {
            let _ = writeln!(
                self.out,
                "  {} (time passes; every deadline due fires)",
                crate::engine::human_time(at)
            );
        }
        self.pass(at);
    }

    fn view(&self, game: &str) -> serde_json::Value {
        crate::games::state_of(self.bot.world(), self.bot.params(), game, true, self.clock)
            .map_or(serde_json::Value::Null, |(view, _)| view)
    }

    fn say(&mut self, text: &str) {
        let _ = writeln!(self.out, "\n{}", wrap(text, 88));
    }
}

impl Stage for OnPipeline<'_> {
    fn import_rules(&mut self, minutes: i64, text: &str) {
        if self.error.is_some() {
            return;
        }
        let at = samples::at(minutes);
        match self.bot.import_rules(text, at) {
            Ok(Ok(_)) => {
                let _ = writeln!(
                    self.out,
                    "  {} the operator: nomicbot import-rules (the samples' rules)",
                    crate::engine::human_time(at)
                );
            }
            Ok(Err(why)) => self.fail(anyhow::anyhow!("the samples' rules do not import: {why}")),
            Err(error) => self.fail(error.into()),
        }
    }
}

/// `text` in lines of at most `width` characters (a longer word stands alone).
fn wrap(text: &str, width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_owned()),
        }
    }
    lines.join("\n")
}

/// The samples' setup and one game's sample through the real pipeline: the
/// players' mail as delivered, the bot's mail listed, the sample's in full, and
/// the game's state at the end.
fn play_sample(
    dir: PathBuf,
    config: Config,
    sample: Sample,
    runtime: &tokio::runtime::Runtime,
) -> Result<String> {
    let bot = Bot::open(config.clone())?;
    let mut stage = OnPipeline {
        bot,
        config,
        runtime,
        out: String::new(),
        delivered: 0,
        clock: samples::at(-60),
        error: None,
    };
    writeln!(
        stage.out,
        "nomicbot demo --game {}: the game's sample through the real pipeline, in {}\n\n\
         Players' mail, as delivered to the bot's inbox Maildir (a pass of the bot after each):",
        sample.name,
        dir.display()
    )?;
    samples::setup(&mut stage);
    let setup_done = stage.bot.store.outbox()?.len();
    (sample.play)(&mut stage);
    if let Some(error) = stage.error.take() {
        return Err(error.context(format!("the sample of {} failed", sample.name)));
    }
    let OnPipeline { bot, mut out, .. } = stage;
    let rows = list_sent(&bot, &mut out)?;
    writeln!(
        out,
        "\nThe mail of the sample in full (the setup's is only listed above):"
    )?;
    for row in rows.iter().skip(setup_done) {
        show(&mut out, &row.raw)?;
    }
    writeln!(
        out,
        "\n{}\n\n`nomicbot state {}` now:\n\n{}",
        "=".repeat(72),
        sample.name,
        crate::cli::state(&bot, Some(sample.name), false, false)?
    )?;
    Ok(out)
}
