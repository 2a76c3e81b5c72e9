//! `nomicbot demo`: a short scripted exchange played through the real pipeline on
//! the embedded Maildir transport (messages dropped into the inbox Maildir, one
//! `once` pass, mail written to the outbox Maildir), then the mail the bot sent.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use jiff::{SignedDuration, Timestamp};

use crate::config::{Config, DEFAULT_CONFIG};
use crate::mail::maildir;
use crate::pipeline::Bot;
use crate::run::{Transport, once};

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

pub async fn run(dir: Option<PathBuf>) -> Result<String> {
    let dir = match dir {
        Some(dir) => dir,
        None => std::env::temp_dir().join(format!(
            "nomicbot-demo-{}-{}",
            std::process::id(),
            Timestamp::now().as_second()
        )),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(dir.join("bot.toml"), DEFAULT_CONFIG)?;
    crate::templates::write_defaults(&dir.join("templates"))?;
    let config = Config::load(&dir.join("bot.toml"))?;
    let inbox = config.resolve(&config.maildir.inbox);
    maildir::ensure(&inbox)?;

    let start: Timestamp = "2026-01-05T10:00:00Z".parse()?;
    let mut out = String::new();
    writeln!(
        out,
        "nomicbot demo in {}\n\nPlayers' mail, as delivered to the bot's inbox Maildir:",
        dir.display()
    )?;
    for (index, (minutes, from, to, subject, extra, body)) in SCRIPT.iter().enumerate() {
        let at = start + SignedDuration::from_mins(*minutes);
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
        writeln!(out, "\n{}", "=".repeat(72))?;
        // The headers as sent, the body decoded (the wire form may be quoted-printable).
        let raw = String::from_utf8_lossy(&row.raw).replace("\r\n", "\n");
        let headers = raw.split("\n\n").next().unwrap_or("");
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
        writeln!(
            out,
            "\n{}",
            crate::mail::parse::text_of(&row.raw).trim_end()
        )?;
    }
    writeln!(
        out,
        "\n{}\n\n{}",
        "=".repeat(72),
        crate::cli::state(&bot, None, false, false)?
    )?;
    Ok(out)
}
