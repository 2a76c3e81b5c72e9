//! What the site's pages are made from: the fold kept for the site
//! (`kept::Kept`), seen only through its public views (`World::public_view`,
//! each game's `public_view`, `scores` and `running`), and the announcements the
//! bot wrote to the list, each with the message that caused it, read by number
//! so a page takes only its own. Nothing here reads a private view, a sealed
//! action's text or a private message's body.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::engine::game::View;
use crate::games::{self, Registered, Visit, World, each_game};
use crate::mail::parse::{self, ParseOptions};
use crate::pipeline::Bot;
use crate::store::SiteAnnouncement;

use super::SiteError;
use super::kept::Kept;

/// Everything public the pages show, as of the last event folded in.
pub struct Record {
    pub kept: Kept,
    /// `World::public_view`: the shared world with its secrets blanked.
    pub public: Value,
    pub games: Vec<GameRecord>,
    /// The latest announcements, oldest first: of the whole nomic, and of
    /// each game that has had any.
    pub latest: Vec<Announcement>,
    pub game_latest: BTreeMap<String, Vec<Announcement>>,
}

/// A registered game as the public sees it.
pub struct GameRecord {
    pub name: &'static str,
    pub tags: &'static [&'static str],
    pub view: Value,
    /// The game's own words for its public view, when it has them.
    pub text: Option<String>,
}

/// One mail to the list.
#[derive(Debug, Clone, Serialize)]
pub struct Announcement {
    /// Its place among the announcements: the order the list was sent them in.
    pub number: i64,
    /// Its place among its game's.
    pub game_number: Option<i64>,
    /// Its anchor on its page: from its Message-ID, so the mail can link to it.
    pub anchor: String,
    pub at: Timestamp,
    pub subject: String,
    /// The tag of its subject (`ghost 2`), if it has one.
    pub tag: Option<String>,
    /// The registered game its tag belongs to.
    pub game: Option<&'static str>,
    pub body: String,
    pub message_id: String,
    pub cause: Cause,
}

/// What made the bot write an announcement.
#[derive(Debug, Clone, Serialize)]
pub struct Cause {
    /// `list` (a post to the list), `private` (mail to the bot alone: not linked,
    /// its very Message-ID is the sender's business), `deadline`, or `other`.
    pub kind: &'static str,
    /// The post's address: its `Archived-At` where the list stamped one, else
    /// its Message-ID as a `mid:` URL (RFC 2392).
    pub link: Option<String>,
    /// The post's subject, or when the deadline fell.
    pub label: String,
}

/// An announcement's anchor on its page, from its Message-ID.
pub fn anchor(message_id: &str) -> String {
    let digest = Sha256::digest(message_id.trim_matches(['<', '>']).as_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("m-{hex}")
}

impl Record {
    /// The pages' record of `kept`, with the latest `latest` announcements.
    pub fn new(bot: &Bot, kept: Kept, latest: i64) -> Result<Record, SiteError> {
        let params = bot.params();
        let public = kept.world.public_view(params);
        let mut games = Vec::new();
        each_game(&mut CollectGames {
            world: &kept.world,
            params,
            as_of: kept.as_of.unwrap_or(Timestamp::UNIX_EPOCH),
            out: &mut games,
        });
        let reader = Reader::new(bot);
        let count = kept.announced;
        let latest_all = reader.read(bot, None, count - latest + 1, count)?;
        let mut game_latest = BTreeMap::new();
        for (game, count) in &kept.game_counts {
            let rows = reader.read(bot, Some(game), count - latest + 1, *count)?;
            game_latest.insert(game.clone(), rows);
        }
        Ok(Record {
            kept,
            public,
            games,
            latest: latest_all,
            game_latest,
        })
    }

    pub fn world(&self) -> &World {
        &self.kept.world
    }

    pub fn as_of(&self) -> Option<Timestamp> {
        self.kept.as_of
    }

    /// The game a page belongs to, by its name.
    pub fn game(&self, name: &str) -> Option<&GameRecord> {
        self.games.iter().find(|game| game.name == name)
    }
}

struct CollectGames<'a> {
    world: &'a World,
    params: &'a games::Params,
    as_of: Timestamp,
    out: &'a mut Vec<GameRecord>,
}

impl Visit for CollectGames<'_> {
    fn visit<G: Registered>(&mut self) {
        let state = G::take_state(self.world);
        let view = View::new(&self.world.shared, &self.params.setting);
        let shown = G::public_view(&state, &view, G::params(self.params));
        // The game's words are given the public view only, as `state NAME` does.
        let text = G::state_text(&shown, &state, &view, self.as_of);
        self.out.push(GameRecord {
            name: G::NAME,
            tags: G::TAGS,
            view: shown,
            text,
        });
    }
}

/// Reads announcements by number, with their causes as the public may know them.
pub struct Reader {
    options: ParseOptions,
}

impl Reader {
    pub fn new(bot: &Bot) -> Reader {
        let list = bot.config.bot.list.to_lowercase();
        Reader {
            options: ParseOptions {
                list_addresses: vec![list],
                list_id: bot.config.bot.list_id.as_ref().map(|id| id.to_lowercase()),
                ..ParseOptions::default()
            },
        }
    }

    /// The announcements numbered `from..=to` (within `game`, if given), oldest first.
    pub fn read(
        &self,
        bot: &Bot,
        game: Option<&str>,
        from: i64,
        to: i64,
    ) -> Result<Vec<Announcement>, SiteError> {
        if to < 1 {
            return Ok(Vec::new());
        }
        let rows = bot.store.site_announcements(game, from.max(1), to)?;
        rows.into_iter()
            .map(|row| self.announcement(bot, row))
            .collect()
    }

    fn announcement(&self, bot: &Bot, row: SiteAnnouncement) -> Result<Announcement, SiteError> {
        let parsed = mail_parser::MessageParser::default().parse(&row.raw);
        let (subject, body) = match &parsed {
            Some(message) => (
                message.subject().unwrap_or_default().to_owned(),
                message
                    .body_text(0)
                    .map(|b| b.into_owned())
                    .unwrap_or_default(),
            ),
            None => Default::default(),
        };
        let message_id = row.message_id.trim_matches(['<', '>']).to_owned();
        let tag = subject_tag(&subject);
        let game = row
            .game
            .as_deref()
            .and_then(|name| games::game_names().into_iter().find(|n| *n == name));
        let cause = describe_cause(bot, &row.cause, &self.options)?;
        Ok(Announcement {
            number: row.number,
            game_number: row.game_number,
            anchor: anchor(&message_id),
            at: row.at,
            subject,
            tag,
            game,
            body,
            message_id,
            cause,
        })
    }
}

/// The registered game a raw announcement belongs to, by its subject's tag.
pub fn game_of_mail(raw: &[u8]) -> Option<String> {
    let message = mail_parser::MessageParser::default().parse_headers(raw)?;
    let tag = subject_tag(message.subject()?)?;
    super::game_of_tag(&tag).map(str::to_owned)
}

/// The tag heading a subject: `[ghost 2] ...` gives `ghost 2`.
fn subject_tag(subject: &str) -> Option<String> {
    let rest = subject.trim_start().strip_prefix('[')?;
    let (tag, _) = rest.split_once(']')?;
    Some(tag.trim().to_lowercase()).filter(|tag| !tag.is_empty())
}

/// The cause of a step (`mail:<Message-ID>`, `deadline:<time>`) as the public
/// may know it.
fn describe_cause(bot: &Bot, cause: &str, options: &ParseOptions) -> Result<Cause, SiteError> {
    if let Some(key) = cause.strip_prefix("mail:") {
        let Some(head) = bot.store.inbox_head(key)? else {
            return Ok(Cause {
                kind: "other",
                link: None,
                label: String::new(),
            });
        };
        let head = head.as_slice();
        let envelope = parse::parse(parse::header_block(head), options);
        let public = envelope.list_id.as_deref().is_some_and(|id| {
            options
                .list_id
                .as_deref()
                .is_some_and(|ours| ours.eq_ignore_ascii_case(id))
        }) || envelope
            .to
            .iter()
            .chain(&envelope.cc)
            .any(|m| options.list_addresses.contains(&m.address));
        if !public {
            return Ok(Cause {
                kind: "private",
                link: None,
                label: String::new(),
            });
        }
        let link = archived_at(head).or_else(|| {
            envelope
                .message_id
                .as_deref()
                .map(|id| format!("mid:{}", percent_encode(id)))
        });
        return Ok(Cause {
            kind: "list",
            link,
            label: envelope.subject,
        });
    }
    if let Some(rest) = cause.strip_prefix("deadline:") {
        // `deadline:<RFC 3339 time>` and perhaps `:<which part of the step>`.
        let at = rest.find('Z').map_or(rest, |z| &rest[..=z]);
        let label = at
            .parse::<Timestamp>()
            .map(crate::engine::human_time)
            .unwrap_or_else(|_| at.to_owned());
        return Ok(Cause {
            kind: "deadline",
            link: None,
            label,
        });
    }
    Ok(Cause {
        kind: "other",
        link: None,
        label: String::new(),
    })
}

/// The `Archived-At` header a list stamps on a post (RFC 5064): `<URL>`. Only a
/// web address is taken, so no stamp can put a script in a link.
fn archived_at(head: &[u8]) -> Option<String> {
    let message = mail_parser::MessageParser::default().parse_headers(head)?;
    let value = message.header_raw("Archived-At")?;
    let url = value
        .trim()
        .trim_start_matches('<')
        .split('>')
        .next()?
        .trim();
    (url.starts_with("https://") || url.starts_with("http://"))
        .then(|| url.to_owned())
        .filter(|url| !url.contains(char::is_whitespace))
}

/// A Message-ID as a `mid:` URL's path: what is not safe in a URL escaped.
fn percent_encode(id: &str) -> String {
    let mut out = String::new();
    for byte in id.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_tag_is_read_with_its_instance_number() {
        assert_eq!(
            subject_tag("[Ghost 2] Bob's turn").as_deref(),
            Some("ghost 2")
        );
        assert_eq!(subject_tag("no tag"), None);
    }

    #[test]
    fn archived_at_takes_a_web_address_only() {
        let head = b"Archived-At: <https://lists.example/arch/123>\r\nSubject: x\r\n\r\n";
        assert_eq!(
            archived_at(head).as_deref(),
            Some("https://lists.example/arch/123")
        );
        let head = b"Archived-At: <javascript:alert(1)>\r\n\r\n";
        assert_eq!(archived_at(head), None);
    }
}
