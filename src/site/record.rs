//! What the site is built from, read from the store in one go: the world the
//! event log folds to, seen only through its public views (`World::public_view`,
//! each game's `public_view`, `scores` and `running`), and the announcements the
//! bot wrote to the list, each with the message that caused it. Nothing here
//! reads a private view, a sealed action's text or a private message's body.

use std::collections::{BTreeMap, HashMap};

use num_traits::ToPrimitive;

use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::engine::accounts::{self, Holder};
use crate::engine::game::View;
use crate::engine::players::PlayerId;
use crate::games::{self, Registered, Visit, World, each_game};
use crate::mail::parse::{self, ParseOptions};
use crate::pipeline::Bot;

use super::SiteError;

/// Everything public, as of the last event of the log.
pub struct Record {
    /// The fold of the whole log (history kept): only its public views are read.
    pub world: World,
    /// The time of the log's last event: the site's "now", so that a site built
    /// again from the same database is the same site, whenever it is built.
    pub as_of: Option<Timestamp>,
    /// `World::public_view`: the shared world with its secrets blanked.
    pub public: Value,
    pub games: Vec<GameRecord>,
    /// Each player's balance in each currency after every transfer that moved
    /// it: (currency, player) → (when, balance).
    pub balances: BTreeMap<(String, PlayerId), Vec<(Timestamp, f64)>>,
    /// In the order they were written.
    pub announcements: Vec<Announcement>,
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
    /// Its place in the outbox: the order the list was sent them in.
    pub number: i64,
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
    pub fn read(bot: &Bot) -> Result<Record, SiteError> {
        let (world, as_of, balances) = fold(bot)?;
        let params = bot.params();
        let public = world.public_view(params);
        let mut games = Vec::new();
        let mut collect = CollectGames {
            world: &world,
            params,
            as_of: as_of.unwrap_or(Timestamp::UNIX_EPOCH),
            out: &mut games,
        };
        each_game(&mut collect);
        let announcements = announcements(bot)?;
        Ok(Record {
            world,
            as_of,
            public,
            games,
            balances,
            announcements,
        })
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

type Balances = BTreeMap<(String, PlayerId), Vec<(Timestamp, f64)>>;

/// The world the whole log folds to, history kept (a finished random period,
/// a revealed batch), the time of its last event, and the balances over time.
fn fold(bot: &Bot) -> Result<(World, Option<Timestamp>, Balances), SiteError> {
    let mut last = None;
    let mut accounts = bot.initial_world().shared.accounts.as_ref().clone();
    let mut balances = Balances::new();
    let world = bot.store.reading(|store| {
        let voids = store.void_events()?;
        let voids: Vec<_> = voids
            .iter()
            .map(|r| (r.at, r.cause.as_str(), &r.event))
            .collect();
        let voided = games::voided_causes(&voids);
        let mut folding = games::Folding::new(bot.initial_world(), voided.clone());
        store.each_event(|record| -> Result<(), SiteError> {
            folding.apply(record.at, &record.cause, &record.event);
            if let games::Event::Accounts(event) = &record.event
                && !voided.contains(&record.cause)
            {
                accounts.apply_event(event, record.at);
                if let accounts::Event::Transferred {
                    currency, from, to, ..
                } = event
                {
                    for holder in [from, to] {
                        if let Holder::Player(id) = holder {
                            let now = accounts
                                .balance(Holder::Player(*id), currency)
                                .to_f64()
                                .unwrap_or(0.0);
                            balances
                                .entry((currency.clone(), *id))
                                .or_default()
                                .push((record.at, now));
                        }
                    }
                }
            }
            last = Some(last.map_or(record.at, |l: Timestamp| l.max(record.at)));
            Ok(())
        })?;
        Ok::<_, SiteError>(folding.finish())
    })?;
    Ok((world, last, balances))
}

/// Every mail written to the list, oldest first, with its cause.
fn announcements(bot: &Bot) -> Result<Vec<Announcement>, SiteError> {
    let list = bot.config.bot.list.to_lowercase();
    let options = ParseOptions {
        list_addresses: vec![list.clone()],
        list_id: bot.config.bot.list_id.as_ref().map(|id| id.to_lowercase()),
        ..ParseOptions::default()
    };
    let to_list = vec![bot.config.bot.list.clone()];
    let causes: HashMap<String, String> = bot
        .store
        .outbox()?
        .into_iter()
        .filter(|row| row.recipients == to_list)
        .map(|row| {
            (
                row.message_id.trim_matches(['<', '>']).to_owned(),
                row.cause,
            )
        })
        .collect();
    let heads: HashMap<String, Vec<u8>> = bot.store.inbox_heads()?.into_iter().collect();
    let mut out = Vec::new();
    bot.store.each_mail_to(&to_list, |at, raw| {
        let parsed = mail_parser::MessageParser::default().parse(raw);
        let (subject, body, message_id) = match &parsed {
            Some(message) => (
                message.subject().unwrap_or_default().to_owned(),
                message
                    .body_text(0)
                    .map(|b| b.into_owned())
                    .unwrap_or_default(),
                message.message_id().unwrap_or_default().to_owned(),
            ),
            None => Default::default(),
        };
        let tag = subject_tag(&subject);
        let game = tag.as_deref().and_then(super::game_of_tag);
        let cause = causes
            .get(&message_id)
            .map(|cause| describe_cause(cause, &heads, &options))
            .unwrap_or_else(|| Cause {
                kind: "other",
                link: None,
                label: String::new(),
            });
        out.push(Announcement {
            number: 0,
            anchor: anchor(&message_id),
            at,
            subject,
            tag,
            game,
            body,
            message_id,
            cause,
        });
        true
    })?;
    // `each_mail_to` reads newest first.
    out.reverse();
    for (number, announcement) in out.iter_mut().enumerate() {
        announcement.number = number as i64 + 1;
    }
    Ok(out)
}

/// The tag heading a subject: `[ghost 2] ...` gives `ghost 2`.
fn subject_tag(subject: &str) -> Option<String> {
    let rest = subject.trim_start().strip_prefix('[')?;
    let (tag, _) = rest.split_once(']')?;
    Some(tag.trim().to_lowercase()).filter(|tag| !tag.is_empty())
}

/// The cause of a step (`mail:<Message-ID>`, `deadline:<time>`) as the public
/// may know it.
fn describe_cause(cause: &str, heads: &HashMap<String, Vec<u8>>, options: &ParseOptions) -> Cause {
    if let Some(key) = cause.strip_prefix("mail:") {
        let Some(head) = heads.get(key) else {
            return Cause {
                kind: "other",
                link: None,
                label: String::new(),
            };
        };
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
            return Cause {
                kind: "private",
                link: None,
                label: String::new(),
            };
        }
        let link = archived_at(head).or_else(|| {
            envelope
                .message_id
                .as_deref()
                .map(|id| format!("mid:{}", percent_encode(id)))
        });
        return Cause {
            kind: "list",
            link,
            label: envelope.subject,
        };
    }
    if let Some(rest) = cause.strip_prefix("deadline:") {
        // `deadline:<RFC 3339 time>` and perhaps `:<which part of the step>`.
        let at = rest.find('Z').map_or(rest, |z| &rest[..=z]);
        let label = at
            .parse::<Timestamp>()
            .map(crate::engine::human_time)
            .unwrap_or_else(|_| at.to_owned());
        return Cause {
            kind: "deadline",
            link: None,
            label,
        };
    }
    Cause {
        kind: "other",
        link: None,
        label: String::new(),
    }
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
