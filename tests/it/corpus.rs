//! Robustness: every message of `../shared/corpus` (340 files from eight public
//! MIME parser test suites, 5 of them mbox files) is taken in without a panic and
//! without being lost: each is applied, or kept aside or marked duplicate with the
//! reason. The count is asserted, so an empty or unreadable folder cannot pass.

use std::path::PathBuf;

use nomicbot::mail::mbox;
use nomicbot::mail::parse::{self, ParseOptions};
use nomicbot::store::InboxStatus;

use crate::support::{LocalBot, SentMail, at, repo_root};

/// How many message files MANIFEST.tsv lists (its licence files left out).
const N_MESSAGE_FILES: usize = 340;

fn corpus_dir() -> PathBuf {
    repo_root().join("../shared/corpus")
}

/// A licence or notice file shipped with a suite's fixtures, not a message.
fn is_licence(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name).to_uppercase();
    path.starts_with("LICENSES/")
        || path.contains("/LICENSES/")
        || ["LICENSE", "LICENCE", "NOTICE", "COPYING", "MIT-LICENSE"].contains(&stem.as_str())
}

/// The message files of MANIFEST.tsv (`folder`, `repo`, `commit`, `path`, ...).
fn message_files() -> Vec<PathBuf> {
    let dir = corpus_dir();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv"))
        .unwrap_or_else(|e| panic!("cannot read {}/MANIFEST.tsv: {e}", dir.display()));
    let mut lines = manifest.lines();
    let header: Vec<&str> = lines.next().expect("a header line").split('\t').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let (folder, path) = (column("folder"), column("path"));
    lines
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.split('\t').collect::<Vec<_>>())
        .filter(|row| !is_licence(row[path]))
        .map(|row| dir.join(row[folder]).join(row[path]))
        .collect()
}

#[test]
fn every_corpus_message_is_taken_in_and_accounted_for() {
    let files = message_files();
    assert_eq!(
        files.len(),
        N_MESSAGE_FILES,
        "MANIFEST.tsv should list {N_MESSAGE_FILES} message files"
    );
    let missing: Vec<_> = files.iter().filter(|f| !f.is_file()).collect();
    assert!(missing.is_empty(), "listed but missing: {missing:#?}");

    let local = LocalBot::new();
    let mut bot = local.open();
    let when = at("2026-01-05T10:00:00Z");
    let report = nomicbot::cli::ingest(&mut bot, &files, when, when).expect("ingest the corpus");
    assert!(
        report.starts_with(&format!("{N_MESSAGE_FILES} file(s)")),
        "{report}"
    );

    // Every message is stored, even one that shares its Message-ID with another
    // (it is then a duplicate, with the reason); 5 mbox files hold several. Only
    // a file byte for byte the same as another (6 pairs) is "stored before".
    let mut contents = std::collections::HashSet::new();
    let n_messages: usize = files
        .iter()
        .map(|file| std::fs::read(file).expect("read corpus file"))
        .filter(|bytes| contents.insert(bytes.clone()))
        .map(|bytes| {
            if mbox::is_mbox(&bytes) {
                mbox::split(&bytes).len()
            } else {
                1
            }
        })
        .sum();
    let rows = bot.store.inbox(None).expect("inbox");
    assert!(
        rows.len() >= N_MESSAGE_FILES,
        "{} inbox rows for {N_MESSAGE_FILES} files: {report}",
        rows.len()
    );
    assert_eq!(
        rows.len(),
        n_messages,
        "messages lost on the way in: {report}"
    );
    let mut unaccounted = Vec::new();
    let (mut n_applied, mut n_aside, mut n_duplicate) = (0, 0, 0);
    for row in &rows {
        let has_reason = row.reason.as_deref().is_some_and(|r| !r.trim().is_empty());
        match row.status {
            InboxStatus::Applied => n_applied += 1,
            InboxStatus::Aside if has_reason => n_aside += 1,
            InboxStatus::Duplicate if has_reason => n_duplicate += 1,
            _ => unaccounted.push(format!(
                "#{} {:?} {:?} {}",
                row.id, row.status, row.reason, row.dedup_key
            )),
        }
    }
    assert!(
        unaccounted.is_empty(),
        "messages neither applied nor set aside with a reason:\n{}",
        unaccounted.join("\n")
    );
    assert_eq!(n_applied + n_aside + n_duplicate, rows.len());
    drop(bot);

    let listing = local.inbox_with_status("aside");
    assert_eq!(listing.lines().count(), n_aside, "{listing}");
    let without_reason: Vec<&str> = listing
        .lines()
        .filter(|l| {
            l.split_once(": ")
                .is_none_or(|(_, reason)| reason.trim().is_empty())
        })
        .collect();
    assert!(
        without_reason.is_empty(),
        "`inbox --status aside` shows no reason for:\n{}",
        without_reason.join("\n")
    );
}

/// `raw` with its Subject and Message-ID replaced (continuation lines too).
fn resubjected(raw: &[u8], subject: &str, message_id: &str) -> Vec<u8> {
    let split = [&b"\r\n\r\n"[..], &b"\n\n"[..]]
        .iter()
        .filter_map(|sep| raw.windows(sep.len()).position(|w| w == *sep))
        .min()
        .unwrap_or(raw.len());
    let (head, body) = raw.split_at(split);
    let mut out = format!("Subject: {subject}\r\nMessage-ID: <{message_id}>\r\n").into_bytes();
    let mut dropping = false;
    for line in head.split_inclusive(|b| *b == b'\n') {
        let continuation = line.first().is_some_and(|b| *b == b' ' || *b == b'\t');
        if !continuation {
            let lower = line.to_ascii_lowercase();
            dropping = lower.starts_with(b"subject:") || lower.starts_with(b"message-id:");
        }
        if !dropping {
            out.extend_from_slice(line);
        }
    }
    out.extend_from_slice(body);
    out
}

#[test]
fn corpus_messages_with_odd_mime_still_reach_the_engine() {
    let options = ParseOptions {
        known_tags: vec!["nomic".into()],
        list_addresses: vec!["game-list@nomic.example".into()],
        recover_from: vec!["reply-to".into(), "x-original-from".into(), "cc".into()],
        ..ParseOptions::default()
    };
    // Every single-message file with a sender and a text body, made into a
    // `[nomic] players` request: whatever its MIME, the engine must answer it.
    let mut chosen = Vec::new();
    for (index, file) in message_files().iter().enumerate() {
        let raw = std::fs::read(file).expect("read corpus file");
        if mbox::is_mbox(&raw) {
            continue;
        }
        let message_id = format!("corpus-{index}@test.example");
        let raw = resubjected(&raw, "[nomic] players", &message_id);
        let envelope = parse::parse(&raw, &options);
        let Some(sender) = envelope.sender.clone() else {
            continue;
        };
        if envelope.automatic.is_some()
            || envelope.defects.iter().any(|d| d.contains("no text body"))
            || envelope.tag.is_none()
            || !sender.address.contains('@')
        {
            continue;
        }
        chosen.push((file.clone(), raw, message_id, sender.address));
    }
    assert!(
        chosen.len() >= 100,
        "only {} corpus messages have a sender and a text body",
        chosen.len()
    );

    // Many of these come from the same few senders: the daily cap on answers
    // (hardening item 5) would gather most answers in a digest, so it is lifted.
    let local = LocalBot::with_config(
        &nomicbot::config::DEFAULT_CONFIG
            .replace("max_answers_per_day = 10", "max_answers_per_day = 0"),
    );
    let folder = local.dir.path().join("resubjected");
    std::fs::create_dir_all(&folder).expect("folder");
    let paths: Vec<PathBuf> = chosen
        .iter()
        .enumerate()
        .map(|(index, (_, raw, _, _))| {
            let path = folder.join(format!("{index}.eml"));
            std::fs::write(&path, raw).expect("write");
            path
        })
        .collect();
    let mut bot = local.open();
    let when = at("2026-01-05T10:00:00Z");
    let report = nomicbot::cli::ingest(&mut bot, &paths, when, when).expect("ingest");
    drop(bot);
    local.once(when);

    let sent: Vec<SentMail> = local.sent_mail();
    let mut unanswered = Vec::new();
    for (file, _, message_id, sender) in &chosen {
        let answered = sent.iter().any(|m| {
            m.in_reply_to.as_deref() == Some(message_id.as_str()) && m.body.contains("> players")
        });
        if !answered {
            unanswered.push(format!("{} (from {sender})", file.display()));
        }
    }
    assert!(
        unanswered.is_empty(),
        "{report}\nno answer to:\n{}",
        unanswered.join("\n")
    );
}
