//! The site's feeds: Atom of the announcements (the whole nomic's, and each
//! game's), and iCalendar of every public deadline, for players' own calendars.
//! Deterministic like the pages: every time in them comes from the record
//! (never the clock of the build), and each deadline's UID from its id.

use atom_syndication::{Content, Entry, Feed, FixedDateTime, Link, Text};
use icalendar::{Component, EventLike};
use jiff::Timestamp;
use sha2::{Digest, Sha256};

use crate::pipeline::Bot;

use super::record::{Announcement, Record};
use super::{SiteError, pages};

/// A pending deadline as the public sees it.
#[derive(Debug, Clone)]
pub struct Deadline {
    /// Stable and unique, chosen by its game: "ghost:1:turn:7".
    pub id: String,
    pub at: Timestamp,
    /// The tag it falls under (`ghost 1`).
    pub owner: String,
    pub what: String,
    /// The registered game that owns it, if any.
    pub game: Option<String>,
    pub page: String,
}

fn chrono_utc(at: Timestamp) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp(at.as_second(), at.subsec_nanosecond().max(0) as u32)
        .unwrap_or_default()
}

fn fixed(at: Timestamp) -> FixedDateTime {
    chrono_utc(at).fixed_offset()
}

/// Where the site is served, for the absolute links a feed wants; a relative
/// one without `[site] url`.
fn link(bot: &Bot, page: &str) -> String {
    bot.config
        .site
        .link(page)
        .unwrap_or_else(|| page.to_owned())
}

/// The feeds with a new entry (every one in a whole build), and the names of
/// all: `feed.atom`, `game-NAME.atom` per registered game, `deadlines.ics`. Each
/// Atom feed holds the latest `[site] feed_entries` announcements only, so
/// writing one costs the same however long the nomic has run.
#[allow(clippy::type_complexity)]
pub fn all(
    bot: &Bot,
    record: &Record,
    deadlines: &[Deadline],
    plan: &super::Plan,
) -> Result<(Vec<(String, Vec<u8>)>, Vec<String>), SiteError> {
    let entries = bot.config.site.feed_entries();
    let mut files = Vec::new();
    let mut names = vec!["feed.atom".to_owned()];
    if plan.feed(None) {
        files.push((
            "feed.atom".to_owned(),
            atom(
                bot,
                "feed.atom",
                &bot.config.bot.name,
                &record.latest,
                entries,
            )?,
        ));
    }
    for game in &record.games {
        let page = pages::game_page(game.name);
        let name = page.replace(".html", ".atom");
        names.push(name.clone());
        if plan.feed(Some(game.name)) {
            let title = format!("{}: {}", bot.config.bot.name, game.name);
            let latest = record
                .game_latest
                .get(game.name)
                .map(Vec::as_slice)
                .unwrap_or_default();
            files.push((name.clone(), atom(bot, &name, &title, latest, entries)?));
        }
    }
    files.push(("deadlines.ics".to_owned(), calendar(bot, deadlines)));
    Ok((files, names))
}

/// The latest `entries` of `latest` (oldest first), newest first, as an Atom feed.
fn atom(
    bot: &Bot,
    name: &str,
    title: &str,
    latest: &[Announcement],
    entries: usize,
) -> Result<Vec<u8>, SiteError> {
    let kept = &latest[latest.len().saturating_sub(entries)..];
    // A feed's time is its newest entry's; an empty feed's, the epoch's: a
    // feed changes only with its entries.
    let updated = kept
        .iter()
        .map(|a| a.at)
        .max()
        .unwrap_or(Timestamp::UNIX_EPOCH);
    let entries = kept
        .iter()
        .rev()
        .map(|a| {
            let page = a
                .tag
                .as_deref()
                .map_or("record.html".to_owned(), super::page_of_tag);
            Entry {
                title: Text::plain(a.subject.clone()),
                id: format!("mid:{}", a.message_id),
                updated: fixed(a.at),
                published: Some(fixed(a.at)),
                links: vec![Link {
                    href: format!("{}#{}", link(bot, &page), a.anchor),
                    rel: "alternate".to_owned(),
                    mime_type: Some("text/html".to_owned()),
                    ..Link::default()
                }],
                content: Some(Content {
                    value: Some(a.body.clone()),
                    content_type: Some("text".to_owned()),
                    ..Content::default()
                }),
                ..Entry::default()
            }
        })
        .collect();
    let feed = Feed {
        title: Text::plain(title),
        id: feed_id(bot, name),
        updated: fixed(updated),
        links: vec![
            Link {
                href: link(bot, name),
                rel: "self".to_owned(),
                mime_type: Some("application/atom+xml".to_owned()),
                ..Link::default()
            },
            Link {
                href: link(bot, "index.html"),
                rel: "alternate".to_owned(),
                mime_type: Some("text/html".to_owned()),
                ..Link::default()
            },
        ],
        entries,
        ..Feed::default()
    };
    let mut bytes = feed.write_to(Vec::new()).map_err(|error| SiteError::Io {
        path: name.into(),
        source: std::io::Error::other(error.to_string()),
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// A feed's permanent id: its address where the site has one, else a tag URI
/// of the list's address (RFC 4151 wants a date; the Unix epoch's is fixed).
fn feed_id(bot: &Bot, name: &str) -> String {
    match bot.config.site.link(name) {
        Some(url) => url,
        None => format!("tag:{},1970:{name}", bot.config.bot.list),
    }
}

/// Every pending deadline, an event of no length at its instant.
fn calendar(bot: &Bot, deadlines: &[Deadline]) -> Vec<u8> {
    let mut calendar = icalendar::Calendar::new();
    calendar.name(&bot.config.bot.name);
    for deadline in deadlines {
        let at = chrono_utc(deadline.at);
        let digest = Sha256::digest(deadline.id.as_bytes());
        let uid: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
        let mut event = icalendar::Event::new();
        event
            .uid(&format!("{uid}@{}", bot.config.bot_domain()))
            .summary(&format!("[{}] {}", deadline.owner, deadline.what))
            .starts(at)
            .ends(at)
            // The stamp is the deadline's own instant, not the build's: a
            // calendar fetched twice is the same file.
            .timestamp(at)
            .url(&link(bot, &deadline.page));
        calendar.push(event.done());
    }
    calendar.done().to_string().into_bytes()
}
