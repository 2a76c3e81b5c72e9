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

/// Which scripted exchange `demo` plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Game {
    /// The player registry: joining, refusals, automatic mail, quoted replies.
    Nomic,
    /// A whole nweek of Rule Tag, with both notifications.
    Ruletag,
    /// A game of Ghost to a winner, with the referee's report.
    Ghost,
}

pub async fn run(dir: Option<PathBuf>, game: Game) -> Result<String> {
    let (dir, config) = setup(dir, DEMO_MODERATOR)?;
    match game {
        Game::Nomic => nomic(dir, config).await,
        Game::Ruletag => ruletag(dir, config).await,
        Game::Ghost => ghost(dir, config).await,
    }
}

const DEMO_MODERATOR: &str = "mod@nomic.example";

/// A folder with the shipped bot.toml (with a moderator) and the templates.
fn setup(dir: Option<PathBuf>, moderator: &str) -> Result<(PathBuf, Config)> {
    let dir = match dir {
        Some(dir) => dir,
        None => std::env::temp_dir().join(format!(
            "nomicbot-demo-{}-{}",
            std::process::id(),
            Timestamp::now().as_second()
        )),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let config_text = DEFAULT_CONFIG.replace(
        "moderators = []",
        &format!("moderators = [\"{moderator}\"]"),
    );
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
    let headers = text.split("\n\n").next().unwrap_or("");
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
    crate::mail::parse::parse(
        raw,
        &crate::mail::parse::ParseOptions {
            known_tags: Vec::new(),
            list_addresses: Vec::new(),
            recover_from: Vec::new(),
        },
    )
    .subject
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

/// Plays `script` (time, from, to, subject, body) through one pass of the bot at
/// `now`, listing the players' mail in `out`.
async fn play(
    bot: &mut Bot,
    config: &Config,
    out: &mut String,
    script: &[(Timestamp, String, &str, String, String)],
    now: Timestamp,
    first_index: usize,
) -> Result<()> {
    for (offset, (at, from, to, subject, body)) in script.iter().enumerate() {
        deliver(
            config,
            first_index + offset,
            *at,
            (from, to, subject, "", body),
        )?;
        let shown = body.trim_end().replace('\n', " | ");
        writeln!(
            out,
            "  {} {from} -> {to}: {subject}{}",
            crate::engine::human_time(*at),
            if shown.is_empty() {
                String::new()
            } else {
                format!("  [{shown}]")
            }
        )?;
    }
    let mut transport = Transport::new(config);
    once(bot, &mut transport, now).await?;
    Ok(())
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

fn address(name: &str) -> String {
    format!("{} <{}@nomic.example>", name, name.to_lowercase())
}

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";

async fn ruletag(dir: PathBuf, config: Config) -> Result<String> {
    let mut bot = Bot::open(config.clone())?;
    // Nweek 0 of the shipped calendar runs from 2026-01-05 for ten ndays.
    let start: Timestamp = "2026-01-05T10:00:00Z".parse()?;
    let hours = |h: i64| start + SignedDuration::from_hours(h);
    let mut out = String::new();
    writeln!(
        out,
        "nomicbot demo: a whole nweek of Rule Tag, in {}\n",
        dir.display()
    )?;
    if let Err(error) = bot.import_rules(crate::samples::DEMO_RULES, hours(-24))? {
        anyhow::bail!("the demo ruleset does not import: {error}");
    }
    writeln!(
        out,
        "The ruleset: four rules (1 Points, 2 Turns, 3 Winning, 4 Reports); the glossary links them\nthrough the terms \"points\", \"turn\" and \"report\".\n\nPlayers' mail, as delivered:"
    )?;
    let moderator = format!("Mod <{DEMO_MODERATOR}>");
    let mut setup: Vec<(Timestamp, String, &str, String, String)> = vec![(
        hours(0),
        moderator.clone(),
        LIST,
        "[nomic] join Mod".into(),
        String::new(),
    )];
    for (i, name) in ["Alice", "Bob", "Carol", "Dave"].iter().enumerate() {
        setup.push((
            hours(0) + SignedDuration::from_mins(i as i64 + 1),
            address(name),
            LIST,
            format!("[nomic] join {name}"),
            String::new(),
        ));
    }
    setup.push((
        hours(1),
        moderator.clone(),
        LIST,
        "[rule tag] start".into(),
        String::new(),
    ));
    setup.push((
        hours(2),
        moderator.clone(),
        BOT,
        "[nomic] starting points".into(),
        "adjust Alice 20 points because the demo starts everyone with 20\n\
         adjust Bob 20 points because the demo starts everyone with 20\n\
         adjust Carol 20 points because the demo starts everyone with 20\n\
         adjust Dave 20 points because the demo starts everyone with 20\n"
            .into(),
    ));
    play(&mut bot, &config, &mut out, &setup, hours(3), 0).await?;

    // The ball and the goal were placed at random: the players go for them.
    let rtl = |name: &str| {
        bot.world()
            .state::<crate::games::ruletag::game::RuleTag>()
            .object(name)
            .and_then(|o| o.rtl)
            .unwrap_or(1)
    };
    let (ball, goal) = (
        rtl(crate::games::ruletag::BALL),
        rtl(crate::games::ruletag::GOAL),
    );
    let day = |d: i64| start + SignedDuration::from_hours(24 * d);
    let actions: Vec<(Timestamp, String, &str, String, String)> = vec![
        (
            day(1),
            address("Alice"),
            BOT,
            "[rule tag]".into(),
            format!("element fire\nmove from null to {ball}\ngrab ball 5\n"),
        ),
        (
            day(2),
            address("Bob"),
            LIST,
            "[rule tag]".into(),
            format!("element water\nmove from null to {ball}\ngrab ball 3\n"),
        ),
        (
            day(3),
            address("Carol"),
            BOT,
            format!("[rule tag] move from null to {goal}"),
            "element air\nelement earth\n".into(),
        ),
        (
            day(4),
            address("Dave"),
            LIST,
            "[rule tag]".into(),
            "move to 2\nmove from null to 2\n".into(),
        ),
        (
            day(9),
            address("Dave"),
            LIST,
            "[rule tag]".into(),
            "move from 2 to 3 via \"turn\"\n".into(),
        ),
    ];
    play(
        &mut bot,
        &config,
        &mut out,
        &actions,
        day(9) + SignedDuration::from_hours(1),
        setup.len(),
    )
    .await?;
    // The end of the nweek: the turn is processed and both notifications go out.
    let end: Timestamp = "2026-01-15T00:01:00Z".parse()?;
    let mut transport = Transport::new(&config);
    once(&mut bot, &mut transport, end).await?;

    let rows = list_sent(&bot, &mut out)?;
    writeln!(
        out,
        "\nA few of them in full: Alice's answer, the moderator's copy of it, Dave's late move,\nand the two notifications at the end of the nweek."
    )?;
    let wanted = |row: &crate::store::OutRow| {
        let subject = subject(&row.raw);
        let to = row.recipients.join(",");
        let answer = row.template == "reply" && subject.starts_with("[rule tag]");
        (answer && to.contains("alice@"))
            || (answer && to.contains(DEMO_MODERATOR) && subject.contains("Copy: alice"))
            || (answer
                && to.contains("dave@")
                && crate::mail::parse::text_of(&row.raw).contains("nday 8"))
            || subject.contains("Rule tag nweek")
    };
    for row in rows.iter().filter(|row| wanted(row)) {
        show(&mut out, &row.raw)?;
    }
    writeln!(
        out,
        "\n{}\n\n{}",
        "=".repeat(72),
        crate::cli::state(&bot, Some("ruletag"), false, false)?
    )?;
    Ok(out)
}

async fn ghost(dir: PathBuf, config: Config) -> Result<String> {
    let mut bot = Bot::open(config.clone())?;
    let start: Timestamp = "2026-01-05T10:00:00Z".parse()?;
    let hours = |h: i64| start + SignedDuration::from_hours(h);
    let mut out = String::new();
    writeln!(
        out,
        "nomicbot demo: a game of Ghost (Ackanomic rule 103) to a winner, in {}\n\nPlayers' mail, as delivered:",
        dir.display()
    )?;
    let mut setup: Vec<(Timestamp, String, &str, String, String)> = Vec::new();
    for (i, name) in ["Rita", "Alice", "Bob", "Carol"].iter().enumerate() {
        setup.push((
            hours(0) + SignedDuration::from_mins(i as i64),
            address(name),
            LIST,
            format!("[nomic] join {name}"),
            String::new(),
        ));
    }
    setup.push((
        hours(1),
        address("Rita"),
        LIST,
        "[ghost] start with Alice, Bob, Carol".into(),
        String::new(),
    ));
    play(&mut bot, &config, &mut out, &setup, hours(2), 0).await?;

    // The numbers were drawn at random: the script follows the order of play.
    let order: Vec<String> = bot
        .world()
        .state::<crate::games::ghost::game::Ghost>()
        .instances
        .first()
        .map(|instance| {
            instance
                .seats
                .iter()
                .map(|seat| seat.name.clone())
                .collect()
        })
        .unwrap_or_default();
    anyhow::ensure!(order.len() == 3, "the demo game did not start");
    let p = |n: usize| address(&order[n - 1]);
    let plays: Vec<(usize, &str)> = vec![
        (1, "s"),
        (2, "su"),
        (3, "sup"),
        (1, "supe"),
        (2, "super"),
        // SUPER is a word of four or more letters: a valid protest, player 2 is out.
        (3, "protest word"),
        (1, "x"),
        (3, "xq"),
        // XQ is inside no word, says player 1; player 3 answers with one that is none.
        (1, "protest not inside"),
        (3, "word xqat"),
    ];
    let script: Vec<(Timestamp, String, &str, String, String)> = plays
        .iter()
        .enumerate()
        .map(|(i, (n, play))| {
            (
                hours(3 + i as i64),
                p(*n),
                LIST,
                "[ghost 1]".to_owned(),
                format!("{play}\n"),
            )
        })
        .collect();
    play(
        &mut bot,
        &config,
        &mut out,
        &script,
        hours(3 + plays.len() as i64),
        setup.len(),
    )
    .await?;

    let rows = list_sent(&bot, &mut out)?;
    writeln!(
        out,
        "\nThe start, a turn, a protest's resolution and the referee's report in full:"
    )?;
    let list_mail: Vec<&crate::store::OutRow> = rows
        .iter()
        .filter(|row| {
            row.recipients.iter().any(|r| r == LIST) && row.template.starts_with("ghost_")
        })
        .collect();
    let pick = [
        list_mail.first(),
        list_mail.get(1),
        list_mail
            .iter()
            .find(|row| crate::mail::parse::text_of(&row.raw).contains("SUPER is a word")),
        list_mail.last(),
    ];
    let mut shown: Vec<i64> = Vec::new();
    for row in pick.into_iter().flatten() {
        if !shown.contains(&row.id) {
            shown.push(row.id);
            show(&mut out, &row.raw)?;
        }
    }
    writeln!(
        out,
        "\n{}\n\n{}",
        "=".repeat(72),
        crate::cli::state(&bot, Some("accounts"), false, false)?
    )?;
    Ok(out)
}
