//! What the CLI commands print, as functions of the library so tests can call
//! them: `ingest`, `state`, `outbox`, `inbox`, `log`, `replay`, `init`, `check`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use jiff::Timestamp;
use sha2::Digest;

use crate::config::Config;
use crate::games::World;
use crate::mail::mbox;
use crate::pipeline::Bot;
use crate::store::{InboxStatus, Origin, Received, Stored};
use crate::templates::{self, Templates};

fn progress(len: u64, what: &str) -> indicatif::ProgressBar {
    if len < 2 {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({per_sec}, {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(what.to_owned());
    bar
}

/// How many messages `ingest` stores in one transaction, and how many bytes of
/// them at most (a batch closes at whichever comes first): an archive of any size
/// is stored in bounded memory.
const INGEST_BATCH: usize = 64;
const INGEST_BATCH_BYTES: usize = 16 << 20;

/// Stores the messages of `files` (single messages or mbox archives) as received at
/// `received`, then applies everything pending. Re-ingesting a file changes nothing.
/// An archive is read as a stream, its messages stored in batches as they come.
pub fn ingest(
    bot: &mut Bot,
    files: &[PathBuf],
    received: Timestamp,
    now: Timestamp,
) -> Result<String> {
    // By bytes read: one mbox archive of years of mail moves the bar too.
    let total: u64 = files
        .iter()
        .filter_map(|file| std::fs::metadata(file).ok())
        .map(|metadata| metadata.len())
        .sum();
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message("storing");
    let mut counts = IngestCounts::default();
    for file in files {
        ingest_file(bot, file, received, now, &mut counts, &bar)?;
    }
    bar.set_message("applying");
    bar.tick();
    let IngestCounts {
        messages,
        new,
        duplicate,
        again,
    } = counts;
    let processed = bot.process(now);
    bar.finish_and_clear();
    let processed = processed?;
    Ok(format!(
        "{} file(s), {messages} message(s): {new} new, {duplicate} duplicate, {again} stored before; \
         applied {}, kept aside {}, deadlines {}, mail queued {} (see `nomicbot outbox`; `nomicbot once` sends it)",
        files.len(),
        processed.applied,
        processed.aside,
        processed.deadlines,
        processed.mail_queued
    ))
}

#[derive(Default)]
struct IngestCounts {
    messages: usize,
    new: usize,
    duplicate: usize,
    again: usize,
}

fn ingest_file(
    bot: &mut Bot,
    file: &Path,
    received: Timestamp,
    now: Timestamp,
    counts: &mut IngestCounts,
    bar: &indicatif::ProgressBar,
) -> Result<()> {
    use std::io::{BufReader, Read, Seek};
    let cannot_read = || format!("cannot read {}", file.display());
    let mut input = std::fs::File::open(file).with_context(cannot_read)?;
    // The file itself, by its bytes: two different files that share a
    // Message-ID are two messages (the second kept as a duplicate, with its
    // reason). Hashed in a first pass, as a stream, before a message is stored.
    let mut hasher = sha2::Sha256::new();
    std::io::copy(&mut BufReader::new(&mut input), &mut hasher).with_context(cannot_read)?;
    let file_key: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    input.rewind().with_context(cannot_read)?;
    let mut start = Vec::new();
    (&mut input)
        .take(5)
        .read_to_end(&mut start)
        .with_context(cannot_read)?;
    input.rewind().with_context(cannot_read)?;
    let mut store = |batch: &mut Vec<Received>| -> Result<()> {
        counts.messages += batch.len();
        bar.inc(batch.iter().map(|message| message.raw.len() as u64).sum());
        for stored in bot.receive(batch, None, now)? {
            match stored {
                Stored::New(_) => counts.new += 1,
                Stored::Duplicate(_) => counts.duplicate += 1,
                Stored::AlreadyStored => counts.again += 1,
            }
        }
        batch.clear();
        Ok(())
    };
    let message = |index: usize, raw: Vec<u8>| Received {
        origin: Origin::File {
            key: format!("{file_key}#{index}"),
        },
        received_at: received,
        dedup_key: Bot::dedup_key(&raw),
        raw,
    };
    if !mbox::is_mbox(&start) {
        let mut raw = Vec::new();
        input.read_to_end(&mut raw).with_context(cannot_read)?;
        return store(&mut vec![message(0, raw)]);
    }
    let mut batch = Vec::new();
    let mut batch_bytes = 0;
    for (index, raw) in mbox::Messages::new(BufReader::new(input)).enumerate() {
        let raw = raw.with_context(cannot_read)?;
        batch_bytes += raw.len();
        batch.push(message(index, raw));
        if batch.len() >= INGEST_BATCH || batch_bytes >= INGEST_BATCH_BYTES {
            store(&mut batch)?;
            batch_bytes = 0;
        }
    }
    if !batch.is_empty() {
        store(&mut batch)?;
    }
    Ok(())
}

pub fn state(bot: &Bot, game: Option<&str>, json: bool, private: bool) -> Result<String> {
    // The live state keeps no finished history; what was is in the log.
    let history = rebuild(bot)?;
    let world = &history;
    let mut value = if private {
        world.private_view(bot.params())
    } else {
        world.public_view(bot.params())
    };
    // What the bot follows of every rule a game binds, and its numbers now.
    value["bindings"] = crate::engine::ruleset::bindings::report(
        &world.ruleset,
        &bot.params().setting.bound,
        None,
        bot.params().setting.baseline_when_unrecorded,
    );
    let names = player_names(&value);
    name_players(&mut value, &names);
    let (value, text) = match game {
        None => (value, None),
        Some("nomic") => (value["players"].clone(), None),
        Some(part) if STATE_PARTS.contains(&part) => (value[part].clone(), None),
        Some(name) => {
            let now = jiff::Timestamp::now();
            match crate::games::state_of(world, bot.params(), name, private, now) {
                Some((mut found, text)) => {
                    name_players(&mut found, &names);
                    (found, text)
                }
                None => bail!(
                    "no game or part {name:?} here; try: {}, {}",
                    STATE_PARTS.join(", "),
                    crate::games::game_names().join(", ")
                ),
            }
        }
    };
    if json {
        return Ok(format!("{}\n", serde_json::to_string_pretty(&value)?));
    }
    if let Some(text) = text {
        return Ok(text);
    }
    let mut out = String::new();
    match game {
        Some("players" | "nomic") => {
            players_text(bot, world, &mut out)?;
            return Ok(out);
        }
        Some(_) => {
            outline(&value, 0, &names, &mut out);
            return Ok(out);
        }
        None => players_text(bot, world, &mut out)?,
    }
    // Everything else, part by part, then game by game: each game in its own
    // words when it has them.
    for part in STATE_PARTS.iter().filter(|part| **part != "players") {
        writeln!(out, "\n{}:", heading(part))?;
        outline(&value[*part], 1, &names, &mut out);
    }
    let now = jiff::Timestamp::now();
    for name in crate::games::game_names() {
        let Some((mut found, text)) =
            crate::games::state_of(world, bot.params(), name, private, now)
        else {
            continue;
        };
        writeln!(out, "\n{}:", heading(name))?;
        match text {
            Some(text) => {
                for line in text.lines() {
                    writeln!(out, "  {line}")?;
                }
            }
            None => {
                name_players(&mut found, &names);
                outline(&found, 1, &names, &mut out);
            }
        }
    }
    Ok(out)
}

/// The parts of `state` besides the games, as `state PART` names them.
const STATE_PARTS: [&str; 9] = [
    "players",
    "bindings",
    "accounts",
    "ruleset",
    "schedule",
    "random",
    "sealed",
    "offices",
    "inventory",
];

/// The players as a person reads them: names, addresses, aliases pending.
fn players_text(bot: &Bot, world: &World, out: &mut String) -> Result<()> {
    let active: Vec<_> = world.players.active().collect();
    writeln!(out, "Players ({}):", active.len())?;
    for player in active {
        writeln!(
            out,
            "  {} <{}>{}",
            player.name,
            player.address,
            aliases(&player.aliases)
        )?;
    }
    for pending in &world.players.pending_aliases {
        let halves = match (pending.address_confirmed, &pending.confirmed_by) {
            (true, _) => "; the new address confirmed, the player not yet",
            (false, Some(_)) => "; the player confirmed, the new address not yet",
            (false, None) => "",
        };
        writeln!(
            out,
            "  pending alias {} (expires {}{halves})",
            pending.address,
            crate::engine::human_time(pending.expires_at)
        )?;
    }
    if let Some(at) = bot.next_deadline() {
        writeln!(out, "Next deadline: {}", crate::engine::human_time(at))?;
    }
    Ok(())
}

fn heading(name: &str) -> String {
    let mut words = name.replace('_', " ");
    if let Some(first) = words.get(..1) {
        words.replace_range(..1, &first.to_uppercase());
    }
    words
}

/// The keys whose whole number is a player's id, in every game's view.
const PLAYER_KEYS: [&str; 9] = [
    "player",
    "by",
    "called_by",
    "created_by",
    "describer",
    "last_magic_namer",
    "scholar",
    "owner",
    "proposer",
];

/// Every player ever joined, by id, from the state's view of the players.
fn player_names(value: &serde_json::Value) -> std::collections::BTreeMap<i64, String> {
    value["players"]["players"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|player| Some((player["id"].as_i64()?, player["name"].as_str()?.to_owned())))
        .collect()
}

/// Puts the player's name beside each id a person would have to look up
/// (`"player": 4` gains `"player_name": "Carol"`), unless a name is there already.
fn name_players(value: &mut serde_json::Value, names: &std::collections::BTreeMap<i64, String>) {
    match value {
        serde_json::Value::Object(object) => {
            let mut added = Vec::new();
            for (key, value) in object.iter() {
                // A holder written `{"player": 4}` is named beside it, and the
                // object itself left as readers match it.
                let id = match value {
                    serde_json::Value::Object(_) => names_one(value),
                    _ if PLAYER_KEYS.contains(&key.as_str()) => value.as_i64(),
                    _ => None,
                };
                let named = format!("{key}_name");
                // A holder object itself stays as it is: it is named beside it.
                let has_name = object.contains_key(&named)
                    || (key == "player" && (object.contains_key("name") || object.len() == 1));
                if let Some(name) = id.and_then(|id| names.get(&id)).filter(|_| !has_name) {
                    added.push((named, name.clone()));
                }
            }
            for (key, name) in added {
                object.insert(key, serde_json::Value::String(name));
            }
            for inner in object.values_mut() {
                name_players(inner, names);
            }
        }
        serde_json::Value::Array(items) => {
            for inner in items {
                name_players(inner, names);
            }
        }
        _ => {}
    }
}

/// A view as an indented outline: `key: value` lines, lists one item a line,
/// a player's id shown with the name.
fn outline(
    value: &serde_json::Value,
    depth: usize,
    names: &std::collections::BTreeMap<i64, String>,
    out: &mut String,
) {
    use serde_json::Value;
    let pad = "  ".repeat(depth);
    match value {
        Value::Object(object) => {
            for (key, inner) in object {
                // Shown with the id it names.
                if let Some(named) = key.strip_suffix("_name")
                    && object.get(named).is_some_and(|id| {
                        let player = if id.is_object() || PLAYER_KEYS.contains(&named) {
                            names_one(id)
                        } else {
                            None
                        };
                        player.is_some_and(|id| names.contains_key(&id))
                    })
                {
                    continue;
                }
                let label = key.replace('_', " ");
                let one_player = match inner {
                    Value::Object(_) => names_one(inner),
                    _ => None,
                };
                match inner {
                    _ if let Some(id) = one_player => match names.get(&id) {
                        Some(name) => {
                            let _ = writeln!(out, "{pad}{label}: {name} (#{id})");
                        }
                        None => {
                            let _ = writeln!(out, "{pad}{label}: player #{id}");
                        }
                    },
                    _ if PLAYER_KEYS.contains(&key.as_str()) && inner.is_i64() => {
                        let id = inner.as_i64().unwrap_or_default();
                        match names.get(&id) {
                            Some(name) => {
                                let _ = writeln!(out, "{pad}{label}: {name} (#{id})");
                            }
                            None => {
                                let _ = writeln!(out, "{pad}{label}: #{id}");
                            }
                        }
                    }
                    Value::Object(inner_object) if inner_object.is_empty() => {
                        let _ = writeln!(out, "{pad}{label}: none");
                    }
                    // Buried Treasure's holder or owner (rule 1217).
                    Value::Object(inner_object)
                        if inner_object.len() == 1
                            && inner_object.get("buried").is_some_and(Value::is_u64) =>
                    {
                        let _ = writeln!(
                            out,
                            "{pad}{label}: buried in Treasure {}",
                            inner_object["buried"]
                        );
                    }
                    Value::Object(_) => {
                        let _ = writeln!(out, "{pad}{label}:");
                        outline(inner, depth + 1, names, out);
                    }
                    Value::Array(items) if items.is_empty() => {
                        let _ = writeln!(out, "{pad}{label}: none");
                    }
                    Value::Array(items) if items.iter().all(is_scalar) => {
                        let line: Vec<String> = items.iter().map(scalar).collect();
                        let _ = writeln!(out, "{pad}{label}: {}", line.join(", "));
                    }
                    Value::Array(_) => {
                        let _ = writeln!(out, "{pad}{label}:");
                        outline(inner, depth + 1, names, out);
                    }
                    Value::String(text) if text.contains('\n') => {
                        let _ = writeln!(out, "{pad}{label}:");
                        for line in text.lines() {
                            let _ = writeln!(out, "{pad}  | {line}");
                        }
                    }
                    _ => {
                        let _ = writeln!(out, "{pad}{label}: {}", scalar(inner));
                    }
                }
            }
        }
        Value::Array(items) if items.is_empty() => {
            let _ = writeln!(out, "{pad}none");
        }
        Value::Array(items) => {
            for item in items {
                if is_scalar(item) {
                    let _ = writeln!(out, "{pad}- {}", scalar(item));
                    continue;
                }
                // The item's lines, the first marked as a new item.
                let mut lines = String::new();
                outline(item, depth + 1, names, &mut lines);
                let inner_pad = "  ".repeat(depth + 1);
                for (index, line) in lines.lines().enumerate() {
                    let rest = line.strip_prefix(&inner_pad).unwrap_or(line);
                    let mark = if index == 0 { "- " } else { "  " };
                    let _ = writeln!(out, "{pad}{mark}{rest}");
                }
            }
        }
        other => {
            let _ = writeln!(out, "{pad}{}", scalar(other));
        }
    }
}

/// The id of a holder written `{"player": 4}`, or a bare id.
fn names_one(value: &serde_json::Value) -> Option<i64> {
    match value {
        serde_json::Value::Object(inner) if inner.len() == 1 => inner.get("player")?.as_i64(),
        serde_json::Value::Object(_) => None,
        _ => value.as_i64(),
    }
}

fn is_scalar(value: &serde_json::Value) -> bool {
    !matches!(
        value,
        serde_json::Value::Object(_) | serde_json::Value::Array(_)
    ) && !value.as_str().is_some_and(|text| text.contains('\n'))
}

fn scalar(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "none".to_owned(),
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Array(_) | serde_json::Value::Object(_) => value.to_string(),
        other => other.to_string(),
    }
}

fn aliases(list: &[crate::engine::Address]) -> String {
    if list.is_empty() {
        String::new()
    } else {
        format!(
            " (also {})",
            list.iter()
                .map(|a| a.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

pub fn outbox(bot: &Bot, json: bool) -> Result<String> {
    let rows = bot.store.outbox()?;
    if json {
        let whole: Vec<serde_json::Value> = rows
            .iter()
            .map(|row| {
                let mut value = serde_json::to_value(row)?;
                value["message"] = whole_message(&row.raw);
                Ok(value)
            })
            .collect::<Result<_>>()?;
        return Ok(format!("{}\n", serde_json::to_string_pretty(&whole)?));
    }
    let mut out = String::new();
    for row in rows {
        let subject =
            crate::mail::parse::parse(&row.raw, &crate::mail::parse::ParseOptions::default())
                .subject;
        writeln!(
            out,
            "#{} {} to {} {:?} ({} attempt(s){})",
            row.id,
            row.status,
            row.recipients.join(", "),
            subject,
            row.attempts,
            row.last_error
                .map(|e| format!(", last error: {e}"))
                .unwrap_or_default()
        )?;
    }
    Ok(out)
}

/// Why the mail of a pass was not all sent, from the outbox: the last error
/// the server gave, and what becomes of the mail.
pub fn unsent(bot: &Bot, failed: usize, refused: usize) -> Result<String> {
    let rows = bot.store.outbox()?;
    let last_error = rows
        .iter()
        .filter(|row| row.status != "sent")
        .filter_map(|row| row.last_error.as_deref())
        .next_back()
        .unwrap_or("no reason recorded");
    let mut what = Vec::new();
    if failed > 0 {
        let waiting = rows.iter().filter(|row| row.status == "pending").count();
        what.push(format!(
            "mail not sent: {last_error}; {waiting} message(s) wait in the outbox for the next pass (`nomicbot outbox`)"
        ));
    }
    if refused > 0 {
        what.push(format!(
            "{refused} message(s) refused by the server for good, marked failed (`nomicbot outbox`)"
        ));
    }
    Ok(what.join("; "))
}

/// An outgoing message as an operator reads it: To, Cc, From and Subject decoded,
/// every header in order (encoded words decoded, folded lines joined) and the
/// body as text.
fn whole_message(raw: &[u8]) -> serde_json::Value {
    use mail_parser::{HeaderName, HeaderValue, MessageParser};
    let Some(message) = MessageParser::default().parse(raw) else {
        return serde_json::json!({ "unreadable": String::from_utf8_lossy(raw) });
    };
    let addresses = |list: Option<&mail_parser::Address<'_>>| -> Vec<String> {
        list.map(|list| {
            list.iter()
                .map(|a| match (a.name(), a.address()) {
                    (Some(name), Some(address)) => format!("{name} <{address}>"),
                    (None, Some(address)) => address.to_owned(),
                    (name, None) => name.unwrap_or_default().to_owned(),
                })
                .collect()
        })
        .unwrap_or_default()
    };
    // A header's value as written, folded lines joined.
    let raw_value = |header: &mail_parser::Header<'_>| {
        let span = raw
            .get(header.offset_start() as usize..header.offset_end() as usize)
            .unwrap_or_default();
        String::from_utf8_lossy(span)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let headers: Vec<serde_json::Value> = message
        .headers()
        .iter()
        .map(|header| {
            // Message identifiers as they stand in the header, angle brackets and
            // all: the parser hands them back bare, and an operator compares them
            // with a `void <MESSAGE-ID>` or a player's In-Reply-To.
            let identifiers = matches!(
                header.name,
                HeaderName::MessageId
                    | HeaderName::InReplyTo
                    | HeaderName::References
                    | HeaderName::ResentMessageId
            );
            let value = match header.value() {
                _ if identifiers => raw_value(header),
                HeaderValue::Address(list) => addresses(Some(list)).join(", "),
                HeaderValue::Text(_) | HeaderValue::TextList(_) => {
                    header.value().as_text_list().unwrap_or_default().join(", ")
                }
                _ => raw_value(header),
            };
            serde_json::json!({ "name": header.name(), "value": value })
        })
        .collect();
    serde_json::json!({
        "from": addresses(message.from()).join(", "),
        "to": addresses(message.to()),
        "cc": addresses(message.cc()),
        "subject": message.subject().unwrap_or_default(),
        "headers": headers,
        "body": message.body_text(0).unwrap_or_default(),
    })
}

pub fn inbox(bot: &Bot, status: Option<InboxStatus>, json: bool) -> Result<String> {
    let rows = bot.store.inbox(status)?;
    if json {
        return Ok(format!("{}\n", serde_json::to_string_pretty(&rows)?));
    }
    // What each applied message did: its events, counted by their cause.
    let mut events: std::collections::HashMap<String, usize> = Default::default();
    if rows.iter().any(|row| row.status == InboxStatus::Applied) {
        bot.store.each_event(|record| -> Result<()> {
            *events.entry(record.cause).or_default() += 1;
            Ok(())
        })?;
    }
    let mut out = String::new();
    // One line a message: its number first, its reason last after ": ".
    for row in rows {
        let what = match row.status {
            InboxStatus::Applied => match events.get(&format!("mail:{}", row.dedup_key)).copied() {
                Some(1) => "applied, 1 event".to_owned(),
                Some(n) => format!("applied, {n} events"),
                None => "applied, no event".to_owned(),
            },
            InboxStatus::Aside => "kept aside".to_owned(),
            other => other.as_str().to_owned(),
        };
        let (sender, subject) = Heads::sender_and_subject(&row.raw);
        writeln!(
            out,
            "#{} {} {sender} \"{subject}\" ({what}; {}) {}{}",
            row.id,
            crate::engine::human_time(row.received_at),
            row.source,
            row.dedup_key,
            row.reason.map(|r| format!(": {r}")).unwrap_or_default()
        )?;
    }
    Ok(out)
}

/// Who sent each stored message and its subject, by its key: what `log` shows
/// beside the events a message caused.
struct Heads(std::collections::HashMap<String, (String, String)>);

impl Heads {
    fn read(bot: &Bot) -> Result<Heads> {
        Ok(Heads(
            bot.store
                .inbox_heads()?
                .into_iter()
                .map(|(key, head)| (key, Heads::sender_and_subject(&head)))
                .collect(),
        ))
    }

    /// From (name and address) and Subject, decoded; "unknown sender" when
    /// the message has no From a reader can read.
    fn sender_and_subject(raw: &[u8]) -> (String, String) {
        let Some(message) = mail_parser::MessageParser::new().parse_headers(raw) else {
            return ("unknown sender".to_owned(), String::new());
        };
        let sender = message
            .from()
            .and_then(|list| list.first())
            .map(|from| match (from.name(), from.address()) {
                (Some(name), Some(address)) => format!("{name} <{address}>"),
                (None, Some(address)) => address.to_owned(),
                (name, None) => name.unwrap_or("unknown sender").to_owned(),
            })
            .unwrap_or_else(|| "unknown sender".to_owned());
        let subject = message
            .subject()
            .unwrap_or_default()
            .replace(['\r', '\n'], " ");
        (sender, subject)
    }
}

/// Gives messages kept aside back to the pipeline (`inbox --release ID`): the
/// next pass applies them at its time, past the flood bounds.
pub fn release(bot: &mut Bot, ids: &[i64]) -> Result<String> {
    let released = bot.store.release(ids)?;
    let mut out = format!(
        "released {} (the next `nomicbot once` or the daemon applies them)",
        released.len()
    );
    let skipped: Vec<String> = ids
        .iter()
        .filter(|id| !released.contains(id))
        .map(|id| format!("#{id}"))
        .collect();
    if !skipped.is_empty() {
        write!(
            out,
            "; not kept aside, left as they are: {}",
            skipped.join(", ")
        )?;
    }
    Ok(out)
}

/// Writes the event log to `out` as it is read, one event a line (or the JSON
/// array of them), so that a long log is never held.
pub fn log(bot: &Bot, json: bool, out: &mut impl std::io::Write) -> Result<()> {
    if json {
        use serde::ser::{SerializeSeq, Serializer};
        let mut serializer = serde_json::Serializer::pretty(&mut *out);
        let mut array = serializer.serialize_seq(None)?;
        bot.store
            .each_event(|record| -> Result<()> { Ok(array.serialize_element(&record)?) })?;
        array.end()?;
        writeln!(out)?;
        return Ok(());
    }
    // Grouped by what caused them: a message (its time, sender and subject),
    // a deadline, an import; one line an event under it.
    let heads = Heads::read(bot)?;
    let mut names = std::collections::BTreeMap::new();
    let mut last_cause: Option<(String, Timestamp)> = None;
    bot.store.each_event(|record| -> Result<()> {
        let event = serde_json::to_value(&record.event)?;
        if event["game"] == "players"
            && let (Some(id), Some(name)) = (event["id"].as_i64(), event["name"].as_str())
        {
            names.insert(id, name.to_owned());
        }
        if last_cause.as_ref() != Some(&(record.cause.clone(), record.at)) {
            let cause = match record.cause.split_once(':') {
                Some(("mail", key)) => match heads.0.get(key) {
                    Some((sender, subject)) => format!("mail from {sender} \"{subject}\""),
                    None => format!("mail {key}"),
                },
                Some(("deadline", _)) => "deadline".to_owned(),
                Some((kind, _)) => kind.to_owned(),
                None => record.cause.clone(),
            };
            writeln!(out, "{}  {cause}", crate::engine::human_time(record.at))?;
            last_cause = Some((record.cause.clone(), record.at));
        }
        writeln!(out, "  #{} {}", record.seq, event_words(&event, &names))?;
        Ok(())
    })
}

/// One event on one line: its game and kind, then its fields, a player's id
/// with the name, long values cut short (`log --json` has them whole).
fn event_words(
    event: &serde_json::Value,
    names: &std::collections::BTreeMap<i64, String>,
) -> String {
    const LONGEST: usize = 80;
    let mut line = format!(
        "{} {}",
        event["game"].as_str().unwrap_or("?"),
        event["kind"].as_str().unwrap_or("")
    )
    .trim()
    .to_owned();
    let Some(fields) = event.as_object() else {
        return line;
    };
    let mut parts = Vec::new();
    for (key, value) in fields {
        if key == "game" || key == "kind" {
            continue;
        }
        let shown = match value {
            _ if PLAYER_KEYS.contains(&key.as_str()) && value.is_i64() => {
                let id = value.as_i64().unwrap_or_default();
                match names.get(&id) {
                    Some(name) => format!("{name} (#{id})"),
                    None => format!("#{id}"),
                }
            }
            serde_json::Value::Object(object)
                if object.len() == 1 && object.get("player").is_some_and(|v| v.is_i64()) =>
            {
                let id = object["player"].as_i64().unwrap_or_default();
                match names.get(&id) {
                    Some(name) => format!("{name} (#{id})"),
                    None => format!("player #{id}"),
                }
            }
            serde_json::Value::String(text) => text.replace('\n', " "),
            other => other.to_string(),
        };
        let shown = if shown.chars().count() > LONGEST {
            format!("{}...", shown.chars().take(LONGEST).collect::<String>())
        } else {
            shown
        };
        parts.push(format!("{} {shown}", key.replace('_', " ")));
    }
    if !parts.is_empty() {
        line.push_str(": ");
        line.push_str(&parts.join(", "));
    }
    line
}

/// Rebuilds the world from the event log alone; a bar shows the events folded.
pub fn rebuild(bot: &Bot) -> Result<World> {
    Ok(rebuild_counting(bot)?.0)
}

/// The world the log folds to, and how many events it took.
fn rebuild_counting(bot: &Bot) -> Result<(World, u64)> {
    let bar = progress(bot.store.count_events()?, "replaying");
    let mut n_events = 0;
    let world = bot.rebuild_with(|| {
        n_events += 1;
        // The bar redraws at most a few times a second anyway: moving it on
        // every event of millions would cost more than the fold of some.
        if n_events % 1024 == 0 {
            bar.set_position(n_events);
        }
    })?;
    bar.finish_and_clear();
    Ok((world, n_events))
}

/// `site OUT [--full]`: the public record written as a web site, from where
/// the folder's last build stopped, or whole.
pub fn site(bot: &Bot, out: &Path, full: bool) -> Result<String> {
    let built = match full {
        true => crate::site::build_whole(bot, out)?,
        false => crate::site::build(bot, out)?,
    };
    Ok(format!(
        "site {}: {} files, {} written, {} unchanged",
        out.display(),
        built.files,
        built.written.len(),
        built.files - built.written.len()
    ))
}

/// Rebuilds the world from the event log alone and compares it with the live state.
pub fn replay(bot: &Bot) -> Result<(bool, String)> {
    let (mut rebuilt, n_events) = rebuild_counting(bot)?;
    rebuilt.retire();
    if &rebuilt == bot.world() {
        Ok((
            true,
            format!("state rebuilt from {n_events} event(s) equals the live state"),
        ))
    } else {
        Ok((
            false,
            format!(
                "state rebuilt from {n_events} event(s) DIFFERS from the live state\nrebuilt: {}\nlive:    {}",
                serde_json::to_string(&rebuilt)?,
                serde_json::to_string(bot.world())?
            ),
        ))
    }
}

/// Re-runs the draws of every finished random period, rebuilt from the event log.
pub fn verify_random(bot: &Bot) -> Result<(bool, String)> {
    let world = rebuild(bot)?;
    let mut ok = true;
    let mut out = String::new();
    for record in &world.random.past {
        match crate::engine::random::verify(record) {
            Ok(()) => writeln!(
                out,
                "period {:?}: seed matches its commitment; {} draw(s) re-run, all as recorded",
                record.label,
                record.draws.len()
            )?,
            Err(error) => {
                ok = false;
                writeln!(out, "period {:?}: FAILED: {error}", record.label)?;
            }
        }
    }
    if world.random.past.is_empty() {
        writeln!(out, "no finished random period to verify")?;
    }
    Ok((ok, out.trim_end().to_owned()))
}

/// Checks the archived commitments mail against the archived reveal mail.
pub fn verify_sealed(commitments: &Path, reveal: &Path) -> Result<(bool, String)> {
    let read = |path: &Path| -> Result<String> {
        let raw = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        Ok(crate::mail::parse::text_of(&raw))
    };
    match crate::engine::sealed::verify_sealed(&read(commitments)?, &read(reveal)?) {
        Ok(n) => Ok((
            true,
            format!(
                "{n} sealed action(s): every revealed action matches the commitment published before it"
            ),
        )),
        Err(error @ crate::engine::sealed::VerifyError::NothingSealed { mail, .. }) => {
            let path = if mail == "reveal" {
                reveal
            } else {
                commitments
            };
            Ok((false, format!("FAILED: {}: {error}", path.display())))
        }
        Err(error) => Ok((false, format!("FAILED: {error}"))),
    }
}

pub fn init(path: &Path, force: bool) -> Result<String> {
    if path.exists() && !force {
        bail!(
            "{} exists already (use --force to overwrite it)",
            path.display()
        );
    }
    std::fs::write(path, crate::config::DEFAULT_CONFIG)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let base = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let written = templates::write_defaults(&base.join("templates"))?;
    Ok(format!(
        "wrote {} and {written} template(s) under {}; edit the addresses, then `nomicbot check`",
        path.display(),
        base.join("templates").display()
    ))
}

pub fn check(config: Config) -> Result<String> {
    let templates = Templates::load(&config.resolve(&config.bot.templates))?;
    let n_templates = templates.check_syntax()?;
    let rendered = templates::check_samples(&templates)?
        .into_iter()
        .map(|(game, n_mail)| format!("{game} {n_mail}"))
        .collect::<Vec<_>>()
        .join(", ");
    let dictionary = crate::pipeline::lazy_dictionary(&config)?;
    let words = crate::pipeline::dictionary_words(&dictionary).ok_or_else(|| {
        anyhow::anyhow!("the official dictionary ([bot] dictionary) holds no word")
    })?;
    let senders = match config.identity.auth {
        crate::config::AuthMode::Dkim => {
            // Reads the pinned keys: a mistake in the file is found now, not at
            // the first officer's command.
            crate::mail::verify::Verifier::new(&config.verify_settings())?;
            format!(
                "senders: DKIM checked by the bot ({}{})",
                config
                    .identity
                    .dkim_keys
                    .as_ref()
                    .map(|path| format!("keys pinned in {}, ", config.resolve(path).display()))
                    .unwrap_or_default(),
                if config.identity.dns { "DNS on" } else { "no DNS" }
            )
        }
        crate::config::AuthMode::Dmarc => format!(
            "senders: the Authentication-Results of {}",
            config.identity.authserv_id.as_deref().unwrap_or("?")
        ),
        crate::config::AuthMode::None => "senders: WARNING: identity.auth = \"none\" believes From, so anyone who writes a moderator's address acts as the moderator".to_owned(),
    };
    let list = config
        .list_warnings()
        .into_iter()
        .map(|warning| format!("; WARNING: {warning}"))
        .collect::<String>();
    Ok(format!(
        "config ok (transport {:?}, bot {}, list {}); {n_templates} template(s) ok; \
         every game's sample rendered (its own mail: {rendered}); official dictionary: {words} words; {senders}{list}",
        config.transport, config.bot.address, config.bot.list
    ))
}

/// `check --connect`: logs in to the IMAP server and selects the mailbox, and
/// connects and logs in to the SMTP server, offering an envelope from the bot
/// to the list without sending. A line for each, and whether both worked.
pub async fn check_connect(config: &Config) -> (bool, String) {
    if config.transport == crate::config::TransportKind::Maildir {
        return (
            true,
            format!(
                "transport = \"maildir\": no server to connect to (mail in: {}, mail out: {})",
                config.resolve(&config.maildir.inbox).display(),
                config.resolve(&config.maildir.outbox).display()
            ),
        );
    }
    let mut ok = true;
    let mut lines = Vec::new();
    let imap = match &config.imap {
        Some(imap) => check_imap(config, imap).await,
        None => Err("transport = \"imap\" needs an [imap] section".to_owned()),
    };
    let smtp = match &config.smtp {
        Some(smtp) => check_smtp(config, smtp).await,
        None => Err("transport = \"imap\" needs an [smtp] section".to_owned()),
    };
    for (name, result) in [("imap", imap), ("smtp", smtp)] {
        match result {
            Ok(found) => lines.push(format!("{name} ok: {found}")),
            Err(error) => {
                ok = false;
                lines.push(format!("{name} FAILED: {error}"));
            }
        }
    }
    (ok, lines.join("\n"))
}

async fn check_imap(config: &Config, imap: &crate::config::ImapConfig) -> Result<String, String> {
    let password = crate::config::read_password(&imap.password, &imap.password_file, config)
        .map_err(|error| {
            format!(
                "cannot read [imap] password_file: {error}: write the password on its first line"
            )
        })?
        .unwrap_or_default();
    let inbound = crate::mail::imap::Inbound::connect(imap, &password)
        .await
        .map_err(|error| error.to_string())?;
    let found = format!(
        "logged in to {}:{} as {}, mailbox {} selected ({})",
        imap.host,
        imap.port,
        imap.user,
        imap.mailbox,
        if inbound.supports_idle() {
            "IDLE: new mail is seen at once"
        } else {
            "no IDLE: polled every [imap] poll_seconds"
        }
    );
    inbound.logout().await;
    Ok(found)
}

async fn check_smtp(config: &Config, smtp: &crate::config::SmtpConfig) -> Result<String, String> {
    let password = crate::config::read_password(&smtp.password, &smtp.password_file, config)
        .map_err(|error| {
            format!(
                "cannot read [smtp] password_file: {error}: write the password on its first line"
            )
        })?;
    let outbound =
        crate::mail::smtp::Outbound::new(smtp, password).map_err(|error| error.to_string())?;
    let found = outbound
        .check(&config.bot.address, &config.bot.list)
        .await
        .map_err(|error| error.to_string());
    outbound.close().await;
    found
}
