//! The bodies of the fuzz targets (`fuzz/`, cargo-fuzz on nightly) and of the
//! stable smoke test that runs them over the same seeds (`tests/it/fuzz.rs`):
//! one definition each, so the two cannot drift apart. Each takes arbitrary bytes,
//! must never panic on them, and panics when a property it checks fails. It
//! names no game: every game is reached through the registry, so a game added
//! later is fuzzed without an edit here. Not part of the bot's interface.

use std::path::{Path, PathBuf};

use jiff::{SignedDuration, Timestamp};

use crate::config::Config;
use crate::engine::game::Script;
use crate::engine::{Address, Ctx};
use crate::games::table::Table;
use crate::games::{self, Params, Registered, Visit, World, base_tag, overrides, substrate};
use crate::mail::parse::{self, ParseOptions, SubjectTag};
use crate::pipeline::{self, Bot};
use crate::samples::{self, OnTable, Stage};
use crate::store::{InboxStatus, Origin, Received, Stored};

/// The fuzz targets, by name: the `fuzz/fuzz_targets/<name>.rs` of each.
pub const TARGETS: [&str; 5] = ["intake", "subject", "commands", "route", "message"];

/// The address of the list in the fuzzed messages, as in the shipped bot.toml.
const LIST: &str = "game-list@nomic.example";

/// The bot's parse options with the shipped configuration: every known tag, the
/// list's address and List-Id, the recovery headers, the default footers.
fn parse_options() -> ParseOptions {
    ParseOptions {
        known_tags: games::known_tags(),
        list_addresses: vec![LIST.to_owned()],
        recover_from: ["reply-to", "x-original-from", "cc"]
            .map(str::to_owned)
            .to_vec(),
        list_id: Some("game-list.nomic.example".to_owned()),
        footer_markers: crate::config::ListConfig::default().footer_markers,
        bot_address: "bot@nomic.example".to_owned(),
        list_reply_to: None,
    }
}

/// Whether text may go back into a header or an answer line as it is: no CR, LF,
/// other control character (a tab is a space) or Unicode line separator.
fn is_one_line(text: &str) -> bool {
    !text.contains(|c: char| (c.is_control() && c != '\t') || c == '\u{2028}' || c == '\u{2029}')
}

/// `intake`: raw bytes as a received message, read by everything the shell reads
/// a message with. The envelope keeps what reaches the bot's mail on one line,
/// names only writable-looking addresses and ids without spaces, and tags only
/// with a known tag.
pub fn intake(raw: &[u8]) {
    let options = parse_options();
    let envelope = parse::parse(raw, &options);
    // `parse` turns a panic into a defect so that one message cannot stall the
    // inbox; behind that net, any panic is a bug to find. (Under libFuzzer a
    // panic aborts at once, caught or not; this is for the stable smoke run.)
    assert!(
        !envelope.defects.iter().any(|d| d == parse::PARSER_PANICKED),
        "the parser panicked: {:?}",
        envelope.defects
    );
    assert!(is_one_line(&envelope.subject), "{:?}", envelope.subject);
    for line in &envelope.command_lines {
        assert!(is_one_line(line), "command line {line:?}");
        assert_eq!(line.trim(), line, "command lines are trimmed");
    }
    let mailboxes = envelope
        .from
        .iter()
        .chain(&envelope.sender)
        .chain(&envelope.to)
        .chain(&envelope.cc)
        .chain(&envelope.reply_to);
    for mailbox in mailboxes {
        assert!(
            !mailbox.address.is_empty()
                && mailbox.address.matches('@').count() <= 1
                && !mailbox
                    .address
                    .contains(|c: char| c.is_whitespace() || c == '<' || c == '>'),
            "address {:?}",
            mailbox.address
        );
        if let Some(name) = &mailbox.name {
            assert!(is_one_line(name), "display name {name:?}");
        }
    }
    let ids = envelope
        .message_id
        .iter()
        .chain(&envelope.in_reply_to)
        .chain(&envelope.references);
    for id in ids {
        assert!(
            !id.is_empty() && !id.contains(|c: char| c.is_whitespace() || c.is_control()),
            "message id {id:?}"
        );
    }
    if let Some(tag) = &envelope.tag {
        check_tag(tag, &options.known_tags);
    }
    let header_block = parse::header_block(raw);
    assert!(raw.starts_with(header_block));
    let _ = parse::text_of(raw);
    let _ = parse::subject_of(raw);
    let key = Bot::dedup_key(raw);
    assert!(key.starts_with('<') || key.starts_with("sha256:"), "{key}");
}

/// `subject`: bytes as a subject line. A tag found is a known one, normalized,
/// and found again the same in the subject written back from it; the same
/// subject under `Re:` is a reply, whose rest is no command.
pub fn subject(bytes: &[u8]) {
    let known_tags = games::known_tags();
    let subject = String::from_utf8_lossy(bytes);
    let Some(tag) = parse::subject_tag(&subject, &known_tags) else {
        return;
    };
    check_tag(&tag, &known_tags);
    let rewritten = format!("[{}] {}", tag.tag, tag.rest);
    assert_eq!(
        parse::subject_tag(&rewritten, &known_tags),
        Some(SubjectTag {
            reply: false,
            ..tag.clone()
        }),
        "{rewritten:?}"
    );
    let reply = format!("Re: {subject}");
    let read = parse::subject_tag(&reply, &known_tags);
    assert_eq!(
        read,
        Some(SubjectTag {
            reply: true,
            ..tag.clone()
        }),
        "{reply:?}"
    );
    let message = pipeline::tagged_message(&tag, Vec::new());
    assert_eq!(
        message.subject_rest.is_empty(),
        tag.reply || tag.rest.is_empty()
    );
    if let Some(read) = read {
        assert!(
            pipeline::tagged_message(&read, Vec::new())
                .subject_rest
                .is_empty()
        );
    }
}

/// A tag read from a subject: normalized, and the router finds its game.
fn check_tag(tag: &SubjectTag, known_tags: &[String]) {
    let normalized = tag.tag.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(tag.tag, normalized.to_lowercase(), "the tag is normalized");
    assert_eq!(tag.rest, tag.rest.trim(), "the rest is trimmed");
    let base = base_tag(&tag.tag);
    assert!(
        known_tags.iter().any(|known| known == base),
        "{:?} is no known tag",
        tag.tag
    );
    assert!(
        base == "help" || games::router::game_of_tag(&tag.tag).is_some(),
        "no game for {:?}",
        tag.tag
    );
}

/// `commands`: the first line as a tag, the others as command lines, read by
/// every game's parsers (and the substrate's, and the overrides' for each): one
/// line at a time, as a message, as a subject. Reading only: nothing is applied.
pub fn commands(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let mut lines = text.split('\n').map(|line| line.trim_end_matches('\r'));
    let tag = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let lines: Vec<String> = lines.map(str::to_owned).collect();
    struct Parse<'a> {
        tag: &'a str,
        lines: &'a [String],
    }
    impl Visit for Parse<'_> {
        fn visit<G: Registered>(&mut self) {
            // The tag as written when it is this game's (`ghost 2`), else its own.
            let tag = if G::TAGS.contains(&base_tag(self.tag)) {
                self.tag
            } else {
                G::TAGS[0]
            };
            let lines: Vec<String> = self
                .lines
                .iter()
                .map(|line| line.trim().to_owned())
                .filter(|line| G::KEEPS_BLANK_LINES || !line.is_empty())
                .collect();
            for line in &lines {
                let parsed = G::parse(line, tag);
                let _ = overrides::parse::<G>(line, tag, parsed.is_ok());
                let _ = G::subject_is_command(line, tag, &lines);
            }
            let read = G::parse_message(&lines, tag);
            assert!(
                read.len() <= lines.len(),
                "{}: {} commands read from {} lines",
                G::NAME,
                read.len(),
                lines.len()
            );
        }
    }
    let mut parse = Parse {
        tag: &tag,
        lines: &lines,
    };
    substrate::each_part(&mut parse);
    games::each_game(&mut parse);
}

/// The samples played on the pure table (`samples::setup`, then each game's
/// sample): the worlds the `route` target applies messages to, and every message
/// the samples sent, the seeds of the targets.
pub struct Samples {
    /// The world after the setup alone, for the substrate's tags.
    setup: Played,
    /// Each registered game's world after its sample, with the game's tags.
    games: Vec<(&'static [&'static str], Played)>,
    /// Every message the setup and the samples sent, in order.
    pub sent: Vec<Sent>,
}

/// A table's world once played, its parameters, and its time then.
struct Played {
    world: World,
    params: Params,
    end: Timestamp,
}

/// One message a sample sent.
#[derive(Debug, Clone)]
pub struct Sent {
    pub from: String,
    pub public: bool,
    pub tag: String,
    pub lines: Vec<String>,
}

/// A stage that keeps what is sent, then plays it on the table.
struct Recording {
    stage: OnTable,
    sent: Vec<Sent>,
}

impl Script for Recording {
    fn send(&mut self, minutes: i64, from: &str, public: bool, tag: &str, lines: &[&str]) {
        self.sent.push(Sent {
            from: from.to_owned(),
            public,
            tag: tag.to_owned(),
            lines: lines.iter().map(|line| line.to_string()).collect(),
        });
        self.stage.send(minutes, from, public, tag, lines);
    }

    fn wait(&mut self, minutes: i64) {
        self.stage.wait(minutes);
    }

    fn view(&self, game: &str) -> serde_json::Value {
        self.stage.view(game)
    }

    fn say(&mut self, _text: &str) {}
}

impl Stage for Recording {
    fn import_rules(&mut self, minutes: i64, text: &str) {
        self.stage.import_rules(minutes, text);
    }
}

impl Recording {
    fn played(self) -> (Played, Vec<Sent>) {
        let table = self.stage.table;
        let end = table.events.last().map_or(samples::START, |(at, _, _)| *at);
        let played = Played {
            world: table.world,
            params: table.params,
            end,
        };
        (played, self.sent)
    }
}

impl Samples {
    /// Plays the setup and every registered game's sample (a fraction of a second).
    pub fn play() -> Samples {
        let config = samples::sample_config().expect("the shipped bot.toml reads");
        let fresh = samples::new_table(&config);
        let stage = || Recording {
            stage: OnTable {
                table: Table::new(fresh.world.clone(), fresh.params.clone()),
                said: Vec::new(),
            },
            sent: Vec::new(),
        };
        let mut setup = stage();
        samples::setup(&mut setup);
        let (setup, mut sent) = setup.played();
        let games = games::samples()
            .into_iter()
            .map(|sample| {
                let mut recording = stage();
                samples::setup(&mut recording);
                recording.sent.clear();
                (sample.play)(&mut recording);
                let (played, sample_sent) = recording.played();
                sent.extend(sample_sent);
                (sample.tags, played)
            })
            .collect();
        Samples { setup, games, sent }
    }

    /// The world a message under `tag` is applied to: its game's, after its sample.
    fn played_for(&self, tag: &str) -> &Played {
        let base = base_tag(tag);
        self.games
            .iter()
            .find(|(tags, _)| tags.contains(&base))
            .map_or(&self.setup, |(_, played)| played)
    }

    /// `route`: the first line as a subject, the second as the sender (a sample
    /// player's name, `private` when it is not sent to the list), the rest as the
    /// body. Routed by its tag to its game and applied a minute after the game's
    /// sample ends, every deadline due by then first. Every line gets an answer;
    /// the world after it is what a snapshot of it reads back.
    pub fn route(&self, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let mut parts = text.splitn(3, '\n');
        let subject = parse::one_line(parts.next().unwrap_or_default());
        let sender = parts.next().unwrap_or_default();
        let body = parts.next().unwrap_or_default();
        let known_tags = games::known_tags();
        let Some(tag) = parse::subject_tag(&subject, &known_tags) else {
            return;
        };
        check_tag(&tag, &known_tags);
        let message = pipeline::tagged_message(&tag, parse::command_lines(body));
        let played = self.played_for(&tag.tag);
        let mut words = sender.split_whitespace();
        let name = words.next().unwrap_or_default();
        let from = samples::PLAYERS
            .iter()
            .find(|player| player.eq_ignore_ascii_case(name))
            .map_or_else(
                || "stranger@elsewhere.example".to_owned(),
                |player| samples::address(player),
            );
        let at = played.end + SignedDuration::from_mins(1);
        let ctx = Ctx {
            now: at,
            sender: Address::new(&from),
            sender_name: None,
            public: !words.any(|word| word.eq_ignore_ascii_case("private")),
            entropy: Table::entropy(at, &text),
        };
        let mut table = Table::new(played.world.clone(), played.params.clone());
        let outcome = table.handle(&message, &ctx);
        assert!(
            !outcome.report.is_empty() || !outcome.help.is_empty(),
            "no answer to {message:?}"
        );
        let n_lines = message.body_lines.len() + 1;
        assert!(
            outcome.report.len() <= n_lines,
            "{} answer lines for {n_lines} lines",
            outcome.report.len()
        );
        for line in &outcome.report {
            assert!(!line.sentence.code.is_empty(), "{line:?}");
        }
        let snapshot = serde_json::to_string(&table.world).expect("the world serializes");
        let read: World = serde_json::from_str(&snapshot).expect("the snapshot reads back");
        assert!(read == table.world, "the snapshot reads back another world");
    }
}

/// The real pipeline (`Bot`) with a database per sample: the setup alone, and
/// each registered game's sample played through it by `demo`.
pub struct Pipeline {
    dir: PathBuf,
    prepared: Vec<Prepared>,
}

/// A database once a demo has played, and what a message applied to it needs.
struct Prepared {
    /// The demo's name (`demo::names`): the registry's or a game's.
    name: &'static str,
    config: Config,
    database: Vec<u8>,
    /// The time the demo's pass last brought the world to.
    clock: Timestamp,
}

impl Pipeline {
    /// Plays every demo in a folder of its own under `dir` (about a second).
    pub fn prepare(dir: &Path) -> anyhow::Result<Pipeline> {
        let mut prepared = Vec::new();
        for name in crate::demo::names() {
            let demo_dir = dir.join(name);
            crate::demo::run(Some(demo_dir.clone()), name)?;
            let mut config = Config::load(&demo_dir.join("bot.toml"))?;
            // Small limits, so that fuzzed messages reach past them.
            config.limits.max_message_bytes = 8_000;
            config.limits.max_command_lines = 40;
            config.limits.max_answer_bytes = 20_000;
            let database = config.resolve(&config.bot.database);
            let clock = {
                let mut bot = Bot::open(config.clone())?;
                bot.store.load_world()?.1.unwrap_or(samples::START)
            };
            prepared.push(Prepared {
                name,
                config,
                database: std::fs::read(&database)?,
                clock,
            });
        }
        Ok(Pipeline {
            dir: dir.to_owned(),
            prepared,
        })
    }

    /// `message`: raw bytes as a message received by the bot whose database
    /// holds the sample of the game its subject's tag names (the registry's
    /// otherwise), a minute after the sample ends. It is applied or kept aside
    /// with a reason, never left pending nor stopping the bot; its mail is in
    /// CRLF lines, marked automatic, worded, and within the answer limit; the
    /// event log still rebuilds the live state.
    pub fn message(&self, raw: &[u8]) {
        let tag = parse::parse(parse::header_block(raw), &parse_options()).tag;
        let game = tag
            .and_then(|tag| games::router::game_of_tag(&tag.tag))
            .unwrap_or(crate::demo::REGISTRY);
        let prepared = self
            .prepared
            .iter()
            .find(|prepared| prepared.name == game)
            .unwrap_or(&self.prepared[0]);
        let database = self.dir.join("message.sqlite");
        for suffix in ["", "-wal", "-shm"] {
            let mut path = database.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
        std::fs::write(&database, &prepared.database).expect("write the database");
        let mut config = prepared.config.clone();
        config.bot.database = database;
        let max_answer_bytes = config.limits.max_answer_bytes;
        let mut bot = Bot::open(config).expect("the prepared database opens");
        let at = prepared.clock + SignedDuration::from_mins(1);
        let dedup_key = Bot::dedup_key(raw);
        let received = Received {
            origin: Origin::File {
                key: "fuzz".to_owned(),
            },
            received_at: at,
            raw: raw.to_vec(),
            dedup_key: dedup_key.clone(),
        };
        let stored = bot
            .receive(&[received], None, at)
            .expect("the message is stored");
        let id = match stored.as_slice() {
            [Stored::New(id) | Stored::Duplicate(id)] => *id,
            other => panic!("stored as {other:?}"),
        };
        let before = bot.store.outbox().expect("the outbox").len();
        bot.process(at).expect("a message never stops the bot");
        let rows = bot.store.inbox(None).expect("the inbox");
        let row = rows
            .iter()
            .find(|row| row.id == id)
            .expect("the message is in the inbox");
        match row.status {
            InboxStatus::Applied => {}
            InboxStatus::Aside | InboxStatus::Duplicate => assert!(
                row.reason.as_deref().is_some_and(|r| !r.trim().is_empty()),
                "kept aside without a reason: {row:?}"
            ),
            InboxStatus::Pending => panic!("left pending: {row:?}"),
        }
        let outbox = bot.store.outbox().expect("the outbox");
        let cause = format!("mail:{dedup_key}");
        let mut answer_bytes = 0;
        for mail in &outbox[before..] {
            check_sent(&mail.raw);
            if mail.cause == cause {
                answer_bytes += mail.raw.len();
            }
        }
        assert!(
            answer_bytes <= max_answer_bytes,
            "{answer_bytes} bytes of mail for one message"
        );
        let (same, differs) = crate::cli::replay(&bot).expect("replay");
        assert!(same, "{differs}");
    }
}

/// A mail of the bot's: CRLF lines only, one that the bot itself (and any
/// well-behaved responder) recognises as automatic, and every sentence worded.
fn check_sent(raw: &[u8]) {
    for (index, byte) in raw.iter().enumerate() {
        match byte {
            b'\n' => assert!(
                index > 0 && raw[index - 1] == b'\r',
                "a bare LF at byte {index}"
            ),
            b'\r' => assert!(
                raw.get(index + 1) == Some(&b'\n'),
                "a bare CR at byte {index}"
            ),
            _ => {}
        }
    }
    let envelope = parse::parse(raw, &parse_options());
    assert!(
        envelope.automatic.is_some(),
        "the bot's mail is not automatic"
    );
    let text = parse::text_of(raw);
    assert!(!text.contains("[no wording for"), "{text}");
}

/// Seeds for each target (`TARGETS`), named: what the samples send, written as
/// each target reads it, and the message files of `corpus` (`../shared/corpus`)
/// up to `max_bytes` long.
pub fn seeds(
    samples: &Samples,
    corpus: Option<&Path>,
    max_bytes: usize,
) -> Vec<(&'static str, String, Vec<u8>)> {
    let mut seeds = Vec::new();
    for (index, sent) in samples.sent.iter().enumerate() {
        let first = sent.lines.first().map(String::as_str).unwrap_or_default();
        let lines = sent.lines.join("\n");
        let mut subjects = vec![format!("[{}]", sent.tag)];
        if sent.lines.len() == 1 {
            subjects.push(format!("[{}] {first}", sent.tag));
            subjects.push(format!("Re: [game-list] [{}] {first}", sent.tag));
        }
        for (variant, subject) in subjects.iter().enumerate() {
            let name = format!("sample-{index}-{variant}");
            seeds.push(("subject", name.clone(), subject.clone().into_bytes()));
            let private = if sent.public { "" } else { " private" };
            let route = format!("{subject}\n{}{private}\n{lines}\n", sent.from);
            seeds.push(("route", name.clone(), route.into_bytes()));
            let raw = sample_mail(sent, subject, index);
            seeds.push(("message", name.clone(), raw.clone()));
            seeds.push(("intake", name, raw));
        }
        let commands = format!("{}\n{lines}\n", sent.tag);
        seeds.push(("commands", format!("sample-{index}"), commands.into_bytes()));
    }
    for (index, path) in corpus
        .map(corpus_files)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let Ok(raw) = std::fs::read(path) else {
            continue;
        };
        if raw.len() > max_bytes {
            continue;
        }
        let name = format!("corpus-{index}");
        if raw.len() <= 8_000 {
            seeds.push(("message", name.clone(), raw.clone()));
        }
        seeds.push(("intake", name, raw));
    }
    seeds
}

/// A sample's message as a player's mail program would write it.
fn sample_mail(sent: &Sent, subject: &str, index: usize) -> Vec<u8> {
    let to = if sent.public {
        LIST
    } else {
        "bot@nomic.example"
    };
    format!(
        "From: {} <{}>\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <seed-{index}@nomic.example>\r\n\
         Date: Mon, 5 Jan 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
        sent.from,
        samples::address(&sent.from),
        sent.lines.join("\r\n")
    )
    .into_bytes()
}

/// Every file under `dir`, in a stable order, but its manifests and licences.
fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    const NOT_MAIL: [&str; 7] = [
        "MANIFEST",
        "SOURCES",
        "LICENSE",
        "LICENCE",
        "NOTICE",
        "COPYING",
        "MIT-LICENSE",
    ];
    let mut files = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_uppercase();
            let stem = name.split('.').next().unwrap_or_default();
            if path.is_dir() && name != "LICENSES" {
                folders.push(path);
            } else if path.is_file() && !stem.is_empty() && !NOT_MAIL.contains(&stem) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}
