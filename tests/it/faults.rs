//! The fault matrix of the hardening issue: one test per fault, each injected
//! between the bot and the real Dovecot and Postfix of `../shared/mailtest/`, or
//! under its database. A proxy of the test's own, on a free port, forwards every
//! byte to the real server but the fault (a connection cut at a chosen point, a
//! reply the proxy gives itself); the database sits on a small file system of the
//! test's own, filled up, or is a damaged file. Each test asserts outcomes a
//! player or the operator sees: every message applied once, every mail delivered
//! once, and a clear word from the bot when it stops.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use tokio::net::TcpStream;

use crate::e2e::ImapBot;
use crate::hardening::{deliveries, joins_waiting};
use crate::support::{LocalBot, at, message, repo_root};

// ---------------------------------------------------------------------------
// The bot, its servers and its database.

/// Puts the bot's database at `database`.
fn database_at(config_path: &Path, database: &Path) {
    let config = std::fs::read_to_string(config_path).expect("bot.toml");
    let line = config
        .lines()
        .find(|line| line.starts_with("database = "))
        .expect("a database line")
        .to_owned();
    let config = config.replace(
        &line,
        &format!("database = {:?}", database.display().to_string()),
    );
    std::fs::write(config_path, config).expect("bot.toml");
}

/// The bot's database as `ImapBot` configures it.
fn imap_bot_database(bot: &ImapBot) -> PathBuf {
    bot.dir.path().join("var/bot.sqlite")
}

/// `nomicbot ARGS` through to its end.
fn output(bot: &ImapBot, args: &[&str]) -> Output {
    bot.command(args).output().expect("run nomicbot")
}

/// The line `nomicbot: ...` a failed command ends with, checked to be its only
/// word about the failure and no panic.
fn refusal(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "it did not fail: {stderr}");
    assert!(!stderr.contains("panicked"), "a panic: {stderr}");
    let said: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("nomicbot: "))
        .collect();
    assert_eq!(said.len(), 1, "one line of its own: {stderr}");
    said[0].to_owned()
}

/// A time an hour ahead, when every retry is due (their backoff is 2 s at most).
fn later(hours: i64) -> String {
    (Timestamp::now() + SignedDuration::from_hours(hours)).to_string()
}

/// The outbox, as `outbox --json` shows it.
fn outbox(bot: &ImapBot) -> Vec<Value> {
    let rows: Value = serde_json::from_str(&bot.cli(&["outbox", "--json"])).expect("json");
    rows.as_array().expect("outbox rows").clone()
}

/// Inbox rows by status, as `inbox --json` shows them.
fn inbox_statuses(bot: &ImapBot) -> std::collections::BTreeMap<String, usize> {
    let rows: Value = serde_json::from_str(&bot.cli(&["inbox", "--json"])).expect("json");
    let mut statuses = std::collections::BTreeMap::new();
    for row in rows.as_array().expect("inbox rows") {
        *statuses
            .entry(row["status"].as_str().unwrap_or("?").to_owned())
            .or_insert(0) += 1;
    }
    statuses
}

/// `joined` events in the log.
fn joined(bot: &ImapBot) -> usize {
    let log: Value = serde_json::from_str(&bot.cli(&["log", "--json"])).expect("json");
    log.as_array()
        .expect("log")
        .iter()
        .filter(|record| record["event"]["kind"] == "joined")
        .count()
}

/// The state is the fold of the log.
fn replay_agrees(bot: &ImapBot) {
    let replay = bot.cli(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

/// Every message in the bot's mailbox, and how many carry `\Seen` (the bot's
/// acknowledgement), read over IMAP from the real server.
async fn seen_in_mailbox(bot: &ImapBot) -> (usize, usize) {
    let tcp = TcpStream::connect((bot.servers.host.as_str(), bot.servers.imap_port))
        .await
        .expect("connect to dovecot");
    let mut client = async_imap::Client::new(tcp);
    client.read_response().await.expect("greeting");
    let mut session = client
        .login(format!("bot-{}", bot.name), &bot.servers.password)
        .await
        .map_err(|(error, _)| error)
        .expect("login");
    session.select("INBOX").await.expect("select");
    let fetched: Vec<_> = session
        .uid_fetch("1:*", "FLAGS")
        .await
        .expect("fetch flags")
        .try_collect()
        .await
        .expect("flags");
    let seen = fetched
        .iter()
        .filter(|fetch| {
            fetch
                .flags()
                .any(|flag| matches!(flag, async_imap::types::Flag::Seen))
        })
        .count();
    let _ = session.logout().await;
    (fetched.len(), seen)
}

/// Each of the bot's messages reached its reader exactly once: the `unique`
/// expected, none twice. `readers` are the players; the list is added.
async fn each_delivered_once(bot: &ImapBot, readers: &[String], unique: usize) {
    let delivered = deliveries(bot, readers, unique).await;
    assert_eq!(delivered.len(), unique, "nothing lost: {delivered:#?}");
    let twice: Vec<_> = delivered.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "nothing doubled: {twice:#?}");
}

/// `nomicbot run` as a child, its stderr kept on the side.
struct Daemon {
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
}

impl Daemon {
    /// Starts it and waits until it says it runs.
    fn spawn(mut run: Command) -> Daemon {
        let mut child = run
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn nomicbot run");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let lines = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                lines.lock().expect("log").push(line);
            }
        });
        let daemon = Daemon { child, log };
        daemon.wait_until("it says it runs", |log| log.contains("nomicbot running"));
        daemon
    }

    fn log(&self) -> String {
        self.log.lock().expect("log").join("\n")
    }

    /// Polls the daemon's log (a generous bound for a stuck daemon, not a
    /// measurement).
    fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) {
        let give_up = Instant::now() + Duration::from_secs(60);
        while !done(&self.log()) {
            assert!(
                Instant::now() < give_up,
                "the daemon: never {what}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// SIGTERM, as a service manager stops it.
    fn stop(mut self) -> (ExitStatus, String) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let status = self.child.wait().expect("reap the daemon");
        // The reader thread has the last lines once the pipe closes.
        std::thread::sleep(Duration::from_millis(100));
        (status, self.log())
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

// ---------------------------------------------------------------------------
// The database's disk.

/// A small file system of the test's own for the database: a tmpfs (the tests
/// run as root, CI too), or else a loop-mounted ext4 file. Unmounted on drop.
struct SmallDisk {
    dir: tempfile::TempDir,
    /// The loop file's folder, when it is one.
    _image: Option<tempfile::TempDir>,
}

impl SmallDisk {
    fn mount(bytes: u64) -> SmallDisk {
        let dir = tempfile::tempdir().expect("temp dir");
        let tmpfs = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .expect("run mount");
        if tmpfs.status.success() {
            return SmallDisk { dir, _image: None };
        }
        let image_dir = tempfile::tempdir().expect("temp dir");
        let image = image_dir.path().join("disk.img");
        std::fs::File::create(&image)
            .and_then(|file| file.set_len(bytes.max(8 << 20)))
            .expect("image file");
        let made = Command::new("mkfs.ext4")
            .args(["-q", "-F", "-m", "0"])
            .arg(&image)
            .output();
        let looped = Command::new("mount")
            .args(["-o", "loop"])
            .arg(&image)
            .arg(dir.path())
            .output();
        match (made, looped) {
            (Ok(made), Ok(looped)) if made.status.success() && looped.status.success() => {
                SmallDisk {
                    dir,
                    _image: Some(image_dir),
                }
            }
            (made, looped) => panic!(
                "no small disk for the database: `mount -t tmpfs` said {:?}, mkfs.ext4 {:?}, `mount -o loop` {:?}; this test needs root (CI runs as root)",
                String::from_utf8_lossy(&tmpfs.stderr),
                made.map(|o| String::from_utf8_lossy(&o.stderr).into_owned()),
                looped.map(|o| String::from_utf8_lossy(&o.stderr).into_owned()),
            ),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A file taking all the room there is but `room` bytes.
    fn fill(&self, room: u64) -> Filler {
        let path = self.path().join("filler");
        let mut file = std::fs::File::create(&path).expect("filler");
        let chunk = vec![0u8; 4096];
        let mut length: u64 = 0;
        loop {
            match file.write(&chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => length += n as u64,
            }
        }
        assert!(length > room, "the disk had only {length} bytes free");
        file.set_len(length - room).expect("free the room");
        Filler { path, file, length }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let unmounted = Command::new("umount")
            .arg(self.dir.path())
            .status()
            .is_ok_and(|s| s.success());
        if !unmounted {
            let _ = Command::new("umount")
                .arg("-l")
                .arg(self.dir.path())
                .status();
        }
    }
}

/// What fills the disk; removed on drop.
struct Filler {
    path: PathBuf,
    file: std::fs::File,
    length: u64,
}

impl Filler {
    /// Leaves `room` bytes free, of what was free when it was filled.
    fn leave(&self, room: u64) {
        self.file
            .set_len(self.length - room)
            .expect("free the room");
    }
}

impl Drop for Filler {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The clear word on a full disk: the database named, and what to do.
fn says_disk_full(said: &str, database: &Path) {
    assert!(
        said.contains(&database.display().to_string())
            && said.contains("disk is full")
            && said.contains("free some space"),
        "{said}"
    );
}

/// Fault: the database's disk fills up. With no room at all, nothing can be
/// stored, so nothing is acknowledged on the server; with a little room, the
/// pass stops between two steps. Each time `once` ends with one clear line, no
/// step is half applied (the state is the fold of the log, one answer and one
/// announcement per join), and once there is room again the next pass applies
/// every message exactly once and each player gets one answer.
#[tokio::test(flavor = "multi_thread")]
async fn database_disk_full_mid_pass_stops_cleanly_and_the_next_pass_applies_each_once() {
    let disk = SmallDisk::mount(4 << 20);
    let bot = ImapBot::new("disk-full");
    let database = disk.path().join("bot.sqlite");
    database_at(&bot.config_path(), &database);
    bot.cli(&["once"]);
    let players = joins_waiting(&bot, 20).await;

    // No room: the first batch cannot be stored, so none is acknowledged.
    let filler = disk.fill(0);
    let said = refusal(&output(&bot, &["once"]));
    says_disk_full(&said, &database);
    // Reading needs room too (SQLite's shared-memory file), and says so.
    says_disk_full(&refusal(&output(&bot, &["inbox"])), &database);
    assert_eq!(seen_in_mailbox(&bot).await, (20, 0), "nothing acknowledged");
    filler.leave(64 << 10);
    assert!(inbox_statuses(&bot).is_empty(), "nothing stored");
    assert_eq!(joined(&bot), 0);

    // A little room: every message stored and acknowledged, and the pass stops
    // partway through applying them.
    filler.leave(320 << 10);
    let said = refusal(&output(&bot, &["once"]));
    says_disk_full(&said, &database);
    let statuses = inbox_statuses(&bot);
    println!("the disk filled up with these inbox rows: {statuses:?}");
    let applied = statuses.get("applied").copied().unwrap_or(0);
    assert!(
        applied > 0 && applied < 20,
        "the disk filled up partway through the pass: {statuses:?}"
    );
    assert_eq!(statuses.values().sum::<usize>(), 20, "{statuses:?}");
    assert_eq!(seen_in_mailbox(&bot).await, (20, 20));
    assert_eq!(joined(&bot), applied, "no step half applied");
    assert_eq!(outbox(&bot).len(), 2 * applied, "no step half applied");
    replay_agrees(&bot);

    drop(filler);
    let out = bot.cli(&["once"]);
    assert!(
        out.contains(&format!("applied {},", 20 - applied)) && out.contains("sent 40,"),
        "{out}"
    );
    let out = bot.cli(&["once", "--now", &later(1)]);
    assert!(out.contains("applied 0") && out.contains("sent 0"), "{out}");
    assert_eq!(joined(&bot), 20);
    replay_agrees(&bot);
    each_delivered_once(&bot, &players, 40).await;
}

/// Fault: the database's disk is full under the embedded Maildir transport: the
/// messages stay in `new/`, and are applied once when there is room again.
#[test]
fn database_disk_full_leaves_the_maildir_messages_where_they_are() {
    let disk = SmallDisk::mount(4 << 20);
    let bot = LocalBot::new();
    let database = disk.path().join("bot.sqlite");
    database_at(&bot.config_path(), &database);
    bot.once(at("2026-01-05T09:00:00Z"));
    let start = at("2026-01-05T10:00:00Z");
    let mut waiting = Vec::new();
    for n in 0..10 {
        let raw = message(
            &format!("p{n}@nomic.example"),
            "game-list@nomic.example",
            &format!("[nomic] join P{n}"),
            &format!("p{n}@players.test"),
            "",
        );
        waiting.push(bot.deliver(&format!("p{n}"), &raw, start + SignedDuration::from_secs(n)));
    }

    let filler = disk.fill(0);
    let failed = bot.cli(&["once", "--now", "2026-01-05T11:00:00Z"]);
    says_disk_full(&refusal(&failed), &database);
    assert!(
        waiting.iter().all(|path| path.exists()),
        "every message still in new/"
    );

    drop(filler);
    let out = bot.once(at("2026-01-05T11:00:00Z"));
    assert!(out.contains("fetched 10, applied 10"), "{out}");
    assert!(waiting.iter().all(|path| !path.exists()));
    let out = bot.once(at("2026-01-05T12:00:00Z"));
    assert!(out.contains("fetched 0, applied 0"), "{out}");
    assert_eq!(bot.sent_mail().len(), 20);
}

/// Fault: the database's disk fills up under the running daemon. It does not
/// stop: each pass fails with the clear word in its log and is tried again a
/// little later, and once there is room it applies the message once. (On a disk
/// full at start-up it does not start, with the same word, as `once`.)
#[test]
fn database_disk_full_the_daemon_keeps_trying_and_resumes_once_there_is_room() {
    let disk = SmallDisk::mount(4 << 20);
    let bot = LocalBot::new();
    let database = disk.path().join("bot.sqlite");
    database_at(&bot.config_path(), &database);
    let mut run = Command::new(env!("CARGO_BIN_EXE_nomicbot"));
    run.arg("--config").arg(bot.config_path()).arg("run");
    let daemon = Daemon::spawn(run);

    let filler = disk.fill(0);
    let raw = message(
        "alice@nomic.example",
        "game-list@nomic.example",
        "[nomic] join Alice",
        "alice@players.test",
        "",
    );
    let waiting = bot.deliver("alice", &raw, Timestamp::now());
    daemon.wait_until("it says the disk is full", |log| {
        log.contains("pass failed") && log.contains("its disk is full")
    });
    assert!(waiting.exists(), "still in new/");

    drop(filler);
    let give_up = Instant::now() + Duration::from_secs(120);
    while bot.sent().len() < 2 {
        assert!(Instant::now() < give_up, "never resumed:\n{}", daemon.log());
        std::thread::sleep(Duration::from_millis(200));
    }
    let (status, log) = daemon.stop();
    assert!(status.success(), "{status}: {log}");
    assert!(!log.contains("panicked"), "{log}");
    assert!(!waiting.exists());
    assert_eq!(bot.sent().len(), 2, "one answer, one announcement");
    let log = bot.log_json();
    assert_eq!(
        log.iter()
            .filter(|record| record["event"]["kind"] == "joined")
            .count(),
        1
    );
}

// ---------------------------------------------------------------------------
// A damaged database.

/// A database of another program: an address book.
fn foreign_database(path: &Path) {
    let conn = rusqlite::Connection::open(path).expect("open");
    conn.execute_batch(
        "CREATE TABLE contacts (name TEXT, email TEXT);
         INSERT INTO contacts VALUES ('Alice', 'alice@example.test');",
    )
    .expect("an address book");
}

/// The golden database with the schema version of a release to come.
fn newer_schema(path: &Path, golden: &[u8]) {
    std::fs::write(path, golden).expect("copy");
    let conn = rusqlite::Connection::open(path).expect("open");
    conn.pragma_update(None, "user_version", 99)
        .expect("schema 99");
}

/// Fault: a database file that is not one nomicbot can use: garbage, cut short,
/// another program's SQLite database, or one of a newer schema. `once`, `run`
/// and `state` refuse it at start-up with one line naming the file and what to
/// do, exit non-zero, fetch nothing, and leave the file byte for byte as it was.
#[tokio::test(flavor = "multi_thread")]
async fn corrupt_database_is_refused_at_start_up_and_left_untouched() {
    let bot = ImapBot::new("corrupt");
    joins_waiting(&bot, 1).await;
    let database = imap_bot_database(&bot);
    let folder = database.parent().expect("var").to_owned();
    std::fs::create_dir_all(&folder).expect("var");
    let golden =
        std::fs::read(repo_root().join("tests/fixtures/golden-v1.sqlite")).expect("golden");
    let scratch = tempfile::tempdir().expect("temp dir");

    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let garbage: Vec<u8> = (0..65536)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect();
    let foreign = scratch.path().join("contacts.sqlite");
    foreign_database(&foreign);
    let newer = scratch.path().join("newer.sqlite");
    newer_schema(&newer, &golden);
    let cases: [(&str, Vec<u8>, &[&str]); 4] = [
        (
            "garbage",
            garbage,
            &["is not an SQLite database", "restore it from a backup"],
        ),
        (
            "cut short",
            golden[..golden.len() / 2].to_vec(),
            &["is cut short", "restore it from a backup"],
        ),
        (
            "another program's",
            std::fs::read(&foreign).expect("foreign"),
            &["is not a nomicbot database", "contacts", "[bot] database"],
        ),
        (
            "newer",
            std::fs::read(&newer).expect("newer"),
            &["schema version 99", "upgrade nomicbot"],
        ),
    ];
    for (what, bytes, expected) in cases {
        for entry in std::fs::read_dir(&folder).expect("var") {
            std::fs::remove_file(entry.expect("entry").path()).expect("clean");
        }
        std::fs::write(&database, &bytes).expect("the damaged file");
        for command in [&["once"][..], &["state"], &["run"]] {
            let output = run_bounded(bot.command(command));
            let said = refusal(&output);
            assert!(
                said.contains(&database.display().to_string())
                    && expected.iter().all(|words| said.contains(words)),
                "{what}, {command:?}: {said}"
            );
            assert!(
                !said.contains("second daemon"),
                "{what}, {command:?}: {said}"
            );
            assert!(
                std::fs::read(&database).expect("still there") == bytes,
                "{what}, {command:?}: the file was changed"
            );
            for suffix in ["-wal", "-journal"] {
                let beside = PathBuf::from(format!("{}{suffix}", database.display()));
                assert!(
                    std::fs::metadata(&beside)
                        .map(|m| m.len() == 0)
                        .unwrap_or(true),
                    "{what}, {command:?}: {} was written",
                    beside.display()
                );
            }
        }
    }
    assert_eq!(seen_in_mailbox(&bot).await, (1, 0), "nothing was fetched");

    // Moved aside, the bot starts afresh on a new database.
    for entry in std::fs::read_dir(&folder).expect("var") {
        std::fs::remove_file(entry.expect("entry").path()).expect("clean");
    }
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
}

/// Runs a command that should end by itself; one still running after a minute
/// (a daemon that started when it should have refused) is killed and fails the
/// test.
fn run_bounded(mut command: Command) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nomicbot");
    let give_up = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("try_wait").is_none() {
        if Instant::now() > give_up {
            let _ = child.kill();
            let output = child.wait_with_output().expect("reap");
            panic!(
                "it started instead of refusing: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}
