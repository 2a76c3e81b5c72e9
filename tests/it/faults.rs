//! The fault matrix of the hardening issue: one test per fault, each injected
//! between the bot and the real Dovecot and Postfix of `../shared/mailtest/`, or
//! under its database. A proxy of the test's own, on a free port, forwards every
//! byte to the real server but the fault (a connection cut at a chosen point, a
//! reply the proxy gives itself); the database sits on a small file system of the
//! test's own, filled up, or is a damaged file. Each test asserts outcomes a
//! player or the operator sees: every message applied once, every mail delivered
//! once, and a clear word from the bot when it stops.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener as StdListener;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader as AsyncBufReader};
use tokio::net::TcpStream;

use crate::e2e::{ImapBot, is_from_bot};
use crate::hardening::{deliveries, joins_waiting, outbox_ids};
use crate::support::{LocalBot, at, message, repo_root};

// ---------------------------------------------------------------------------
// The proxies.

/// What a proxy counts, for the test to check that its fault really happened.
#[derive(Debug, Default)]
struct Counters {
    /// Connections accepted.
    sessions: AtomicUsize,
    /// Connections that reached the point where the fault waits (IMAP: every
    /// pattern seen).
    armed: AtomicUsize,
    /// Faults injected.
    injected: AtomicUsize,
}

/// Where an IMAP proxy cuts a connection: once the server has said each of
/// `after`, in order, `then` more of its bytes go through and both sides are
/// closed. Only the connections numbered in `connections` (0: the first) are
/// cut; the others pass untouched.
#[derive(Debug, Clone)]
struct ImapCut {
    after: Vec<&'static str>,
    then: usize,
    connections: Range<usize>,
}

/// A reply the SMTP proxy gives itself instead of the server's.
#[derive(Debug, Clone)]
enum SmtpFault {
    /// The greeting of the first `sessions` sessions, which then end.
    Greeting {
        reply: &'static str,
        sessions: usize,
    },
    /// The answer to the end of DATA of the first `times` messages. The server
    /// never gets their final dot and its connection is dropped, so it delivers
    /// nothing.
    DataEnd { reply: &'static str, times: usize },
    /// The answer to RCPT TO for this address, every time.
    Rcpt {
        address: String,
        reply: &'static str,
    },
    /// Every session is closed right after the server's 250 for its first
    /// `messages` messages, as a server closes on a client it finds idle too long.
    CloseAfter { messages: usize },
}

#[derive(Debug, Clone)]
enum Fault {
    Imap(ImapCut),
    Smtp(Vec<SmtpFault>),
}

/// A TCP proxy on a free loopback port in front of a real server, on a thread
/// and runtime of its own (so the test may block on the bot's process while it
/// works). Stopped, with every connection it holds, on drop.
struct Proxy {
    port: u16,
    counters: Arc<Counters>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Proxy {
    fn imap(upstream: u16, cut: ImapCut) -> Proxy {
        Proxy::start(upstream, Fault::Imap(cut))
    }

    fn smtp(upstream: u16, faults: Vec<SmtpFault>) -> Proxy {
        Proxy::start(upstream, Fault::Smtp(faults))
    }

    fn start(upstream: u16, fault: Fault) -> Proxy {
        let listener = StdListener::bind(("127.0.0.1", 0)).expect("a free port for the proxy");
        let port = listener.local_addr().expect("proxy address").port();
        listener.set_nonblocking(true).expect("nonblocking");
        let counters = Arc::new(Counters::default());
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let shared = Arc::clone(&counters);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("proxy runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                let smtp_counts = Arc::new(Mutex::new(Vec::<usize>::new()));
                loop {
                    let client = tokio::select! {
                        _ = &mut stopped => break,
                        accepted = listener.accept() => match accepted {
                            Ok((client, _)) => client,
                            Err(_) => continue,
                        },
                    };
                    let index = shared.sessions.fetch_add(1, Ordering::SeqCst);
                    let counters = Arc::clone(&shared);
                    let fault = fault.clone();
                    let smtp_counts = Arc::clone(&smtp_counts);
                    tokio::spawn(async move {
                        match fault {
                            Fault::Imap(cut) => {
                                let cut = cut.connections.contains(&index).then_some(cut);
                                imap_session(client, upstream, cut, &counters).await;
                            }
                            Fault::Smtp(faults) => {
                                smtp_session(client, upstream, &faults, &smtp_counts, &counters)
                                    .await;
                            }
                        }
                    });
                }
                // Dropping the runtime closes every connection still open.
            });
        });
        Proxy {
            port,
            counters,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    fn sessions(&self) -> usize {
        self.counters.sessions.load(Ordering::SeqCst)
    }

    fn armed(&self) -> usize {
        self.counters.armed.load(Ordering::SeqCst)
    }

    fn injected(&self) -> usize {
        self.counters.injected.load(Ordering::SeqCst)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Watches the server's bytes for the patterns of an [`ImapCut`].
struct Watch {
    patterns: Vec<Vec<u8>>,
    next: usize,
    window: Vec<u8>,
    then: usize,
    /// Bytes still to forward once every pattern was seen.
    left: Option<usize>,
}

impl Watch {
    fn new(cut: &ImapCut) -> Watch {
        Watch {
            patterns: cut.after.iter().map(|p| p.as_bytes().to_vec()).collect(),
            next: 0,
            window: Vec::new(),
            then: cut.then,
            left: None,
        }
    }

    fn armed(&self) -> bool {
        self.left.is_some()
    }

    /// How much of `chunk` goes through before the cut, or `None` for all of it
    /// and no cut yet.
    fn feed(&mut self, chunk: &[u8]) -> Option<usize> {
        for (index, &byte) in chunk.iter().enumerate() {
            match self.left {
                Some(0) => return Some(index),
                Some(left) => self.left = Some(left - 1),
                None => {
                    self.window.push(byte);
                    let pattern = &self.patterns[self.next];
                    if self.window.ends_with(pattern) {
                        self.window.clear();
                        self.next += 1;
                        if self.next == self.patterns.len() {
                            self.left = Some(self.then);
                        }
                    } else if self.window.len() > pattern.len() {
                        self.window.remove(0);
                    }
                }
            }
        }
        (self.left == Some(0)).then_some(chunk.len())
    }
}

/// One IMAP connection: both ways byte for byte, and, if it is to be cut, the
/// server's bytes watched and both sides closed at the cut.
async fn imap_session(
    mut client: TcpStream,
    upstream: u16,
    cut: Option<ImapCut>,
    counters: &Counters,
) {
    let Ok(mut server) = TcpStream::connect(("127.0.0.1", upstream)).await else {
        return;
    };
    let Some(cut) = cut else {
        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
        return;
    };
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let upward = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut client_read, &mut server_write).await;
    });
    let mut watch = Watch::new(&cut);
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let n = match server_read.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let was_armed = watch.armed();
        let cut_at = watch.feed(&buffer[..n]);
        if !was_armed && watch.armed() {
            counters.armed.fetch_add(1, Ordering::SeqCst);
        }
        let forward = cut_at.unwrap_or(n);
        if client_write.write_all(&buffer[..forward]).await.is_err() {
            break;
        }
        if cut_at.is_some() {
            counters.injected.fetch_add(1, Ordering::SeqCst);
            break;
        }
    }
    // Both connections close here: the client reads an end of stream.
    upward.abort();
    let _ = upward.await;
}

/// Reads one SMTP reply (all its lines) from the server and passes it on; the
/// last line, or `None` when the server hung up.
async fn relay_reply(
    server: &mut AsyncBufReader<tokio::net::tcp::OwnedReadHalf>,
    client: &mut tokio::net::tcp::OwnedWriteHalf,
) -> Option<String> {
    let mut line = String::new();
    loop {
        line.clear();
        if server.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        client.write_all(line.as_bytes()).await.ok()?;
        // "250-more follows", "250 last line".
        if line.as_bytes().get(3) != Some(&b'-') {
            return Some(line);
        }
    }
}

/// One SMTP session, command by command (lettre does not pipeline): forwarded to
/// the server, except where a fault answers instead.
async fn smtp_session(
    client: TcpStream,
    upstream: u16,
    faults: &[SmtpFault],
    counts: &Mutex<Vec<usize>>,
    counters: &Counters,
) {
    // How often each fault has been injected so far, over every session.
    let take = |index: usize, limit: usize| -> bool {
        let mut counts = counts.lock().expect("counts");
        counts.resize(faults.len(), 0);
        if counts[index] < limit {
            counts[index] += 1;
            counters.injected.fetch_add(1, Ordering::SeqCst);
            true
        } else {
            false
        }
    };
    let (client_read, mut client_write) = client.into_split();
    let mut client_read = AsyncBufReader::new(client_read);
    for (index, fault) in faults.iter().enumerate() {
        if let SmtpFault::Greeting { reply, sessions } = fault
            && take(index, *sessions)
        {
            let _ = client_write.write_all(reply.as_bytes()).await;
            return;
        }
    }
    let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)).await else {
        return;
    };
    let (server_read, mut server_write) = server.into_split();
    let mut server_read = AsyncBufReader::new(server_read);
    if relay_reply(&mut server_read, &mut client_write)
        .await
        .is_none()
    {
        return;
    }
    let mut in_data = false;
    let mut carried = 0;
    let mut line = Vec::new();
    loop {
        line.clear();
        match client_read.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if in_data {
            if line == b".\r\n" {
                in_data = false;
                let refusal = faults
                    .iter()
                    .enumerate()
                    .find_map(|(index, fault)| match fault {
                        SmtpFault::DataEnd { reply, times } if take(index, *times) => Some(*reply),
                        _ => None,
                    });
                if let Some(reply) = refusal {
                    let _ = client_write.write_all(reply.as_bytes()).await;
                    // The server never sees the dot: without it, it delivers nothing.
                    drop(server_write);
                    drop(server_read);
                    closing(&mut client_read, &mut client_write).await;
                    return;
                }
                if server_write.write_all(&line).await.is_err()
                    || relay_reply(&mut server_read, &mut client_write)
                        .await
                        .is_none()
                {
                    return;
                }
                carried += 1;
                let closing_now = faults.iter().any(|fault| {
                    matches!(fault, SmtpFault::CloseAfter { messages } if *messages == carried)
                });
                if closing_now {
                    counters.injected.fetch_add(1, Ordering::SeqCst);
                    return;
                }
            } else if server_write.write_all(&line).await.is_err() {
                return;
            }
            continue;
        }
        let command = String::from_utf8_lossy(&line).to_ascii_lowercase();
        let refusal = faults.iter().find_map(|fault| match fault {
            SmtpFault::Rcpt { address, reply }
                if command.starts_with("rcpt to:")
                    && command.contains(&format!("<{}>", address.to_ascii_lowercase())) =>
            {
                counters.injected.fetch_add(1, Ordering::SeqCst);
                Some(*reply)
            }
            _ => None,
        });
        if let Some(reply) = refusal {
            if client_write.write_all(reply.as_bytes()).await.is_err() {
                return;
            }
            continue;
        }
        if server_write.write_all(&line).await.is_err() {
            return;
        }
        let Some(reply) = relay_reply(&mut server_read, &mut client_write).await else {
            return;
        };
        if command.starts_with("data") && reply.starts_with("354") {
            in_data = true;
        }
        if command.starts_with("quit") {
            return;
        }
    }
}

/// After a refusal the proxy gave in the server's stead: QUIT is answered, and
/// anything else ends the session.
async fn closing(
    client_read: &mut AsyncBufReader<tokio::net::tcp::OwnedReadHalf>,
    client_write: &mut tokio::net::tcp::OwnedWriteHalf,
) {
    let mut line = String::new();
    if client_read.read_line(&mut line).await.unwrap_or(0) == 0 {
        return;
    }
    let reply = if line.to_ascii_lowercase().starts_with("quit") {
        "221 2.0.0 Bye\r\n"
    } else {
        "421 4.4.2 closing the connection\r\n"
    };
    let _ = client_write.write_all(reply.as_bytes()).await;
}

// ---------------------------------------------------------------------------
// The bot, its servers and its database.

/// Points the bot's IMAP or SMTP at a proxy instead of the real server (the
/// test itself still reads and writes mailboxes on the real one).
fn through(bot: &ImapBot, imap: Option<u16>, smtp: Option<u16>) {
    let path = bot.config_path();
    let mut config = std::fs::read_to_string(&path).expect("bot.toml");
    for (real, proxy) in [(bot.servers.imap_port, imap), (bot.servers.smtp_port, smtp)] {
        if let Some(proxy) = proxy {
            let line = format!("port = {real}\n");
            assert_eq!(config.matches(&line).count(), 1, "{config}");
            config = config.replace(&line, &format!("port = {proxy}\n"));
        }
    }
    std::fs::write(&path, config).expect("bot.toml");
}

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
    /// `nomicbot run` for this bot.
    fn start(bot: &ImapBot) -> Daemon {
        Daemon::spawn(bot.command(&["run"]))
    }

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

/// Polls `done` (a generous bound, not a measurement).
async fn eventually(what: &str, done: impl Fn() -> bool) {
    let give_up = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < give_up, "never: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

// ---------------------------------------------------------------------------
// IMAP.

/// Fault: the IMAP connection is cut in the middle of a FETCH response: inside
/// the literal of the tenth message (the second batch of eight), between the
/// tenth and the eleventh, or after the last of the batch but before the
/// server's OK. `once` stops with one clear line; nothing is acknowledged
/// before it is stored; the next pass fetches the rest and applies each message
/// once, and in the end every message is acknowledged.
#[tokio::test(flavor = "multi_thread")]
async fn imap_connection_cut_mid_fetch_once_stops_and_the_next_pass_applies_each_once() {
    let tenth = vec!["BODY[] {"; 10];
    let mut after_tenth = tenth.clone();
    after_tenth.push(")\r\n");
    let mut after_twelfth = vec!["BODY[] {"; 12];
    after_twelfth.push(")\r\n");
    // (where, the cut, messages stored by the cut pass)
    let cases = [
        ("in a literal", tenth, 40, 8),
        ("between two responses", after_tenth, 0, 8),
        ("before the OK", after_twelfth, 0, 12),
    ];
    for (n, (what, after, then, stored)) in cases.into_iter().enumerate() {
        let bot = ImapBot::new(&format!("cut-fetch{n}"));
        let players = joins_waiting(&bot, 12).await;
        let proxy = Proxy::imap(
            bot.servers.imap_port,
            ImapCut {
                after,
                then,
                connections: 0..1,
            },
        );
        through(&bot, Some(proxy.port), None);

        let said = refusal(&output(&bot, &["once"]));
        assert_eq!(proxy.injected(), 1, "{what}: the connection was cut");
        assert!(
            said.contains("imap server closed the connection"),
            "{what}: {said}"
        );
        // Stored before acknowledged: never the other way round.
        assert_eq!(inbox_statuses(&bot).get("pending"), Some(&stored), "{what}");
        // Flagged once applied, so not by the pass the cut stopped: the next
        // connection flags what was stored before it.
        assert_eq!(seen_in_mailbox(&bot).await, (12, 0), "{what}");

        let out = bot.cli(&["once"]);
        assert!(
            out.contains(&format!("fetched {}, applied 12,", 12 - stored)),
            "{what}: {out}"
        );
        assert!(out.contains("sent 24,"), "{what}: {out}");
        let out = bot.cli(&["once", "--now", &later(1)]);
        assert!(out.contains("fetched 0, applied 0,"), "{what}: {out}");
        assert_eq!(joined(&bot), 12, "{what}");
        assert_eq!(seen_in_mailbox(&bot).await, (12, 12), "{what}");
        replay_agrees(&bot);
        each_delivered_once(&bot, &players, 24).await;
    }
}

/// Fault: the same cut under the daemon. It reconnects by itself and applies
/// and answers every message once.
#[tokio::test(flavor = "multi_thread")]
async fn imap_connection_cut_mid_fetch_the_daemon_reconnects_and_applies_each_once() {
    let bot = ImapBot::new("cut-fetch-run");
    let players = joins_waiting(&bot, 12).await;
    let proxy = Proxy::imap(
        bot.servers.imap_port,
        ImapCut {
            after: vec!["BODY[] {"; 3],
            then: 40,
            connections: 0..1,
        },
    );
    through(&bot, Some(proxy.port), None);

    let daemon = Daemon::start(&bot);
    eventually("the daemon applies the twelve", || {
        inbox_statuses(&bot).get("applied") == Some(&12)
    })
    .await;
    each_delivered_once(&bot, &players, 24).await;
    let (status, log) = daemon.stop();
    assert!(status.success(), "{status}: {log}");
    assert_eq!(proxy.injected(), 1, "the connection was cut: {log}");
    assert!(proxy.sessions() >= 2, "it reconnected: {log}");
    assert!(!log.contains("panicked"), "{log}");
    assert_eq!(joined(&bot), 12);
    assert_eq!(seen_in_mailbox(&bot).await, (12, 12));
    replay_agrees(&bot);
}

/// Fault: the IMAP connection is cut while the daemon idles, just as the server
/// announces new mail (the announcement is lost with the connection). The
/// daemon reconnects, finds the message, and idles again on the new connection:
/// a second message is answered too, each once.
#[tokio::test(flavor = "multi_thread")]
async fn imap_connection_cut_mid_idle_the_daemon_reconnects_and_misses_nothing() {
    let bot = ImapBot::new("cut-idle");
    let proxy = Proxy::imap(
        bot.servers.imap_port,
        ImapCut {
            after: vec!["+ idling"],
            then: 1,
            connections: 0..1,
        },
    );
    through(&bot, Some(proxy.port), None);
    let daemon = Daemon::start(&bot);
    eventually("the daemon idles", || proxy.armed() == 1).await;

    let alice = bot.player("alice");
    bot.send(&alice, true, "[nomic] join Alice", "a1", "").await;
    eventually("the connection is cut", || proxy.injected() == 1).await;
    let answers = bot.wait_for(&alice, 1, is_from_bot).await;
    assert_eq!(answers.len(), 1, "Alice is answered: {}", daemon.log());

    // On the new connection, which is not cut.
    eventually("the daemon idles again", || proxy.sessions() >= 2).await;
    let bob = bot.player("bob");
    bot.send(&bob, true, "[nomic] join Bob", "b1", "").await;
    let answers = bot.wait_for(&bob, 1, is_from_bot).await;
    assert_eq!(answers.len(), 1, "Bob is answered: {}", daemon.log());

    let (status, log) = daemon.stop();
    assert!(status.success(), "{status}: {log}");
    assert!(!log.contains("panicked"), "{log}");
    assert_eq!(joined(&bot), 2);
    replay_agrees(&bot);
    each_delivered_once(&bot, &[alice, bob], 4).await;
}

// ---------------------------------------------------------------------------
// SMTP.

/// Fault: SMTP 451 at the end of DATA, three times. The message it refused
/// stays pending with the reason, and every message after it waits with it,
/// without an attempt counted against them: none overtakes it. Each pass tries
/// it again; once the server takes it, the rest go, and every message reaches
/// its reader once.
#[tokio::test(flavor = "multi_thread")]
async fn smtp_4xx_at_the_end_of_data_is_retried_and_delivered_once() {
    let bot = ImapBot::new("smtp-451");
    let players = joins_waiting(&bot, 4).await;
    let proxy = Proxy::smtp(
        bot.servers.smtp_port,
        vec![SmtpFault::DataEnd {
            reply: "451 4.3.0 Error: queue file write error\r\n",
            times: 3,
        }],
    );
    through(&bot, None, Some(proxy.port));

    let out = bot.cli(&["once"]);
    assert!(out.contains("sent 0, not sent yet 1"), "{out}");
    assert_eq!(proxy.injected(), 1);
    let rows = outbox(&bot);
    assert_eq!(rows.len(), 8);
    for row in &rows {
        assert_eq!(row["status"], "pending", "{row}");
        assert!(
            row["last_error"]
                .as_str()
                .is_some_and(|e| e.contains("451")),
            "{row}"
        );
    }
    let tried: Vec<&Value> = rows.iter().filter(|row| row["attempts"] == 1).collect();
    assert_eq!(tried.len(), 1, "{rows:#?}");
    assert_eq!(tried[0]["id"], rows[0]["id"], "the first in the outbox");

    for pass in 1..=2 {
        let out = bot.cli(&["once", "--now", &later(pass)]);
        assert!(out.contains("sent 0, not sent yet 1"), "{out}");
    }
    let out = bot.cli(&["once", "--now", &later(3)]);
    assert!(out.contains("sent 8, not sent yet 0"), "{out}");
    assert_eq!(proxy.injected(), 3);
    let out = bot.cli(&["once", "--now", &later(4)]);
    assert!(out.contains("sent 0, not sent yet 0"), "{out}");
    assert_eq!(outbox_ids(&bot, "sent").len(), 8);
    each_delivered_once(&bot, &players, 8).await;
}

/// The SMTP connections are kept between messages: twelve joins make 24
/// mails, and they go over no more connections than the pool holds, each
/// message after the first on a connection reset with RSET.
#[tokio::test(flavor = "multi_thread")]
async fn smtp_connections_are_reused_across_messages() {
    let bot = ImapBot::new("smtp-pool");
    let players = joins_waiting(&bot, 12).await;
    let proxy = Proxy::smtp(bot.servers.smtp_port, Vec::new());
    through(&bot, None, Some(proxy.port));

    let out = bot.cli(&["once"]);
    assert!(out.contains("sent 24, not sent yet 0"), "{out}");
    assert!(
        proxy.sessions() <= nomicbot::mail::smtp::POOL_SIZE,
        "24 mails over {} connections",
        proxy.sessions()
    );
    each_delivered_once(&bot, &players, 24).await;
}

/// Fault: the server closes every connection after one message, as a server
/// does with a client idle too long. The RSET before the next message finds
/// out, a fresh connection takes its place, and nothing is lost, doubled or
/// counted as a failed attempt.
#[tokio::test(flavor = "multi_thread")]
async fn smtp_connection_closed_between_messages_is_replaced_and_nothing_is_lost() {
    let bot = ImapBot::new("smtp-closed");
    let players = joins_waiting(&bot, 12).await;
    let proxy = Proxy::smtp(
        bot.servers.smtp_port,
        vec![SmtpFault::CloseAfter { messages: 1 }],
    );
    through(&bot, None, Some(proxy.port));

    let out = bot.cli(&["once"]);
    assert!(out.contains("sent 24, not sent yet 0"), "{out}");
    assert_eq!(proxy.injected(), 24, "every connection carried one message");
    assert!(outbox(&bot).iter().all(|row| row["attempts"] == 1));
    each_delivered_once(&bot, &players, 24).await;
}

/// Fault: SMTP 451 at the end of DATA for the first message. Mail queued after
/// the failure, while the message waits for its retry, waits behind it: the
/// outbox is a queue, so a reveal can never reach the server before the
/// commitment queued ahead of it. At the retry everything goes, in order, once.
#[tokio::test(flavor = "multi_thread")]
async fn smtp_a_message_waiting_for_its_retry_is_not_overtaken_by_mail_queued_since() {
    let bot = ImapBot::new("smtp-queue");
    let mut players = joins_waiting(&bot, 1).await;
    let proxy = Proxy::smtp(
        bot.servers.smtp_port,
        vec![SmtpFault::DataEnd {
            reply: "451 4.3.0 Error: queue file write error\r\n",
            times: 1,
        }],
    );
    through(&bot, None, Some(proxy.port));
    let first = Timestamp::now().to_string();
    let out = bot.cli(&["once", "--now", &first]);
    assert!(out.contains("sent 0, not sent yet 1"), "{out}");

    // A second join, applied while the first answer waits for its retry.
    let late = bot.player("late");
    let account = bot.imap(&format!("bot-{}", bot.name), "INBOX");
    let mut session = nomicbot::mail::imap::connect_no_select(&account, &bot.servers.password)
        .await
        .expect("login");
    let raw = message(
        &late,
        &bot.list(),
        "[nomic] join Late",
        &format!("late-{}@players.test", bot.name),
        "",
    );
    session
        .append("INBOX", raw.as_bytes(), None)
        .await
        .expect("append");
    session.logout().await;
    players.push(late);
    let out = bot.cli(&["once", "--now", &first]);
    assert!(out.contains("applied 1,"), "{out}");
    assert!(out.contains("sent 0, not sent yet 0"), "{out}");
    let rows = outbox(&bot);
    assert_eq!(rows.len(), 4);
    assert!(
        rows.iter().all(|row| row["status"] == "pending"),
        "{rows:#?}"
    );

    let out = bot.cli(&["once", "--now", &later(1)]);
    assert!(out.contains("sent 4, not sent yet 0"), "{out}");
    assert_eq!(proxy.injected(), 1);
    each_delivered_once(&bot, &players, 4).await;
}

/// Fault: SMTP 421 at connect (a server turning everyone away). The first
/// message is put off, and the messages after it wait with it without an
/// attempt counted against them; all are delivered once on the next pass.
#[tokio::test(flavor = "multi_thread")]
async fn smtp_4xx_at_connect_defers_the_outbox_and_delivers_it_once() {
    let bot = ImapBot::new("smtp-421");
    let players = joins_waiting(&bot, 10).await;
    let proxy = Proxy::smtp(
        bot.servers.smtp_port,
        vec![SmtpFault::Greeting {
            reply: "421 4.3.2 Service shutting down, try again later\r\n",
            sessions: 1,
        }],
    );
    through(&bot, None, Some(proxy.port));

    let out = bot.cli(&["once"]);
    assert!(out.contains("sent 0, not sent yet 1"), "{out}");
    assert_eq!(proxy.injected(), 1);
    let rows = outbox(&bot);
    assert_eq!(rows.len(), 20);
    let tried: Vec<&Value> = rows.iter().filter(|row| row["attempts"] == 1).collect();
    let put_off: Vec<&Value> = rows.iter().filter(|row| row["attempts"] == 0).collect();
    assert_eq!((tried.len(), put_off.len()), (1, 19), "{rows:#?}");
    for row in &rows {
        assert_eq!(row["status"], "pending", "{row}");
        assert!(
            row["last_error"]
                .as_str()
                .is_some_and(|e| e.contains("421")),
            "{row}"
        );
    }

    let out = bot.cli(&["once", "--now", &later(1)]);
    assert!(out.contains("sent 20, not sent yet 0"), "{out}");
    let out = bot.cli(&["once", "--now", &later(2)]);
    assert!(out.contains("sent 0, not sent yet 0"), "{out}");
    each_delivered_once(&bot, &players, 20).await;
}

/// Fault: SMTP 550 at RCPT for one player. That one mail is marked failed with
/// the server's reason, for the operator (`nomicbot outbox`), and is never
/// tried again; every other mail goes, once.
#[tokio::test(flavor = "multi_thread")]
async fn smtp_5xx_at_rcpt_marks_that_mail_failed_and_the_others_go() {
    let bot = ImapBot::new("smtp-550");
    let players = joins_waiting(&bot, 3).await;
    let refused = players[1].clone();
    let proxy = Proxy::smtp(
        bot.servers.smtp_port,
        vec![SmtpFault::Rcpt {
            address: refused.clone(),
            reply: "550 5.1.1 Recipient address rejected: User unknown\r\n",
        }],
    );
    through(&bot, None, Some(proxy.port));

    let out = bot.cli(&["once"]);
    assert!(out.contains("sent 5, not sent yet 0, refused 1"), "{out}");
    assert_eq!(proxy.injected(), 1);
    let failed: Vec<Value> = outbox(&bot)
        .into_iter()
        .filter(|row| row["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["recipients"][0], refused.as_str());
    let reason = failed[0]["last_error"].as_str().unwrap_or_default();
    assert!(
        reason.contains("550") && reason.contains("User unknown"),
        "{reason}"
    );
    let shown = bot.cli(&["outbox"]);
    assert!(
        shown
            .lines()
            .any(|line| line.contains("failed") && line.contains(&refused) && line.contains("550")),
        "{shown}"
    );

    // Never tried again.
    let out = bot.cli(&["once", "--now", &later(1)]);
    assert!(out.contains("sent 0, not sent yet 0, refused 0"), "{out}");
    assert_eq!(proxy.injected(), 1);
    each_delivered_once(&bot, &players, 5).await;
    assert!(
        !bot.mailbox_of(&refused)
            .await
            .iter()
            .any(|raw| is_from_bot(raw)),
        "the refused mail did not arrive"
    );
}

/// Fault: SMTP 554 at the end of DATA for one message (the server refuses its
/// content). It is marked failed with the reason and never tried again; the
/// others go, once.
#[tokio::test(flavor = "multi_thread")]
async fn smtp_5xx_at_the_end_of_data_marks_that_mail_failed_and_the_others_go() {
    let bot = ImapBot::new("smtp-554");
    let players = joins_waiting(&bot, 3).await;
    let proxy = Proxy::smtp(
        bot.servers.smtp_port,
        vec![SmtpFault::DataEnd {
            reply: "554 5.7.1 Message content rejected\r\n",
            times: 1,
        }],
    );
    through(&bot, None, Some(proxy.port));

    let out = bot.cli(&["once"]);
    assert!(out.contains("sent 5, not sent yet 0, refused 1"), "{out}");
    let failed: Vec<Value> = outbox(&bot)
        .into_iter()
        .filter(|row| row["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1);
    let reason = failed[0]["last_error"].as_str().unwrap_or_default();
    assert!(
        reason.contains("554") && reason.contains("content rejected"),
        "{reason}"
    );
    let out = bot.cli(&["once", "--now", &later(1)]);
    assert!(out.contains("sent 0, not sent yet 0, refused 0"), "{out}");
    each_delivered_once(&bot, &players, 5).await;
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
    // partway through applying them (between two batches of steps).
    filler.leave(224 << 10);
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
