//! The bot beside the bare mail servers, in one run, on the real servers of
//! `../shared/mailtest/`: the same player messages from the same concurrent
//! senders, and on both sides the mail is seen arriving through IMAP IDLE.
//!
//! - The bare servers: SMTP 250 → the message visible in the bot's mailbox, with
//!   no bot running.
//! - The bot: the real daemon (`nomicbot run`, a child process) → its answer
//!   visible in the player's mailbox and its announcement in the list's; a
//!   message is done when both are.
//!
//! - The bare relay: the bare servers carrying the bot's own envelopes. A task
//!   with no logic, one SMTP client like the daemon's sender, watches the bot's
//!   mailbox through IDLE and answers each message with the two mails the bot
//!   sends (to the player, to the list), seen where the bot's are seen. The
//!   ratio bot/relay is what the bot adds to the mail it must send anyway.
//!
//! For 1 and 8 senders sending as fast as the server takes them it prints
//! throughput, latency (median, p90) from each acceptance to the moment a
//! watcher saw the mail, and the ratios. The latency run sends one message at a
//! time and waits until every watcher has seen its mail before the next, so no
//! message queues behind another: it prints latencies and no throughput. From
//! the daemon's log: its own share of the latency, its CPU per action, and where
//! its sender's time goes per mail (the server's content-to-250, the journal).
//! Goals are printed, never asserted; it asserts only that every message made it
//! and that the daemon stopped cleanly.
//!
//! Run: `eval "$(../shared/mailtest/start)"; cargo bench --bench pipeline`
//! (`BENCH_MESSAGES=N` for the messages of each run, default 200).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use nomicbot::config::{ImapConfig, SmtpConfig, Tls};
use nomicbot::mail::imap::{Inbound, Wake};
use nomicbot::mail::smtp::Outbound;

/// Messages per run when `BENCH_MESSAGES` is unset: the whole bench, three
/// sides in three rounds, takes under a minute on a 2-core machine.
const DEFAULT_MESSAGES: usize = 200;
const SENDER_COUNTS: [usize; 2] = [1, 8];
/// Each comparison is run this many times, the sides taking turns.
const DEFAULT_ROUNDS: usize = 3;
/// The latency run: one sender, this many messages, each sent once the one
/// before it has been seen by every watcher. One round: each message waits a
/// push of IDLE news or two (half a second each), so rounds would cost the
/// most time of the bench, and its figures are medians over its messages, not
/// ratios of runs a slow moment of the machine could skew.
const LOCKSTEP_MESSAGES: usize = 10;
/// Every mail of a run must be visible this long after the last acceptance.
const ARRIVAL_LIMIT: Duration = Duration::from_secs(60);
/// A watcher re-checks its mailbox this often even without news from IDLE, in
/// case a notification fell between two commands; such catches are counted.
const WATCH_TICK: Duration = Duration::from_secs(2);
const THROUGHPUT_GOAL: f64 = 0.5;
const OWN_SHARE_GOAL_MS: f64 = 20.0;

struct Servers {
    host: String,
    imap_port: u16,
    smtp_port: u16,
    password: String,
    domain: String,
}

fn servers() -> Servers {
    let var = |name: &str| {
        std::env::var(name)
            .unwrap_or_else(|_| panic!("{name} unset: eval \"$(../shared/mailtest/start)\" first"))
    };
    Servers {
        host: var("MAILTEST_HOST"),
        imap_port: var("MAILTEST_IMAP_PORT").parse().expect("port"),
        smtp_port: var("MAILTEST_SMTP_PORT").parse().expect("port"),
        password: var("MAILTEST_PASSWORD"),
        domain: std::env::var("MAILTEST_DOMAIN").unwrap_or_else(|_| "example.test".into()),
    }
}

fn imap_config(s: &Servers, user: &str) -> ImapConfig {
    ImapConfig {
        host: s.host.clone(),
        port: s.imap_port,
        user: user.to_owned(),
        password: Some(s.password.clone()),
        password_file: None,
        tls: Tls::None,
        ca_file: None,
        mailbox: "INBOX".into(),
        poll_seconds: 1,
    }
}

fn outbound(s: &Servers) -> Outbound {
    let cfg = SmtpConfig {
        host: s.host.clone(),
        port: s.smtp_port,
        user: None,
        password: None,
        password_file: None,
        tls: Tls::None,
        ca_file: None,
        retry_max_seconds: 2,
    };
    Outbound::new(&cfg, None).expect("smtp settings")
}

/// The mailboxes of one run: fresh ones, so nothing of an earlier run is seen.
struct Run {
    id: String,
    domain: String,
    messages: usize,
    senders: usize,
    /// One message at a time, each waiting until its mail has been seen (the
    /// latency of one message alone), rather than as fast as the server takes
    /// them (throughput, with the queueing it causes).
    lockstep: bool,
}

impl Run {
    fn bot_user(&self) -> String {
        format!("bot-{}", self.id)
    }

    fn list_user(&self) -> String {
        format!("list-{}", self.id)
    }

    fn players_user(&self) -> String {
        format!("players-{}", self.id)
    }

    fn address(&self, user: &str) -> String {
        format!("{user}@{}", self.domain)
    }

    /// Player `index`'s own address: all players share one mailbox through the
    /// `+` subaddress, but the bot knows each by its full address.
    fn player(&self, index: usize) -> String {
        format!("{}+{index}@{}", self.players_user(), self.domain)
    }

    /// The Message-ID of player `index`'s message, without the angle brackets.
    fn message_id(&self, index: usize) -> String {
        format!("join{index}-{}@bench", self.id)
    }

    /// Player `index`'s message: a `join` in the subject and nothing in the body,
    /// so that it makes one answer to the player and one announcement to the list.
    fn player_mail(&self, index: usize) -> Vec<u8> {
        format!(
            "From: {from}\r\nTo: {to}\r\nSubject: [nomic] join Player{index}\r\n\
             Message-ID: <{id}>\r\n\r\n",
            from = self.player(index),
            to = self.address(&self.list_user()),
            id = self.message_id(index),
        )
        .into_bytes()
    }
}

/// When the senders started, and when the server accepted each message (by index).
struct Sent {
    start: Instant,
    accepted: BTreeMap<usize, Instant>,
}

/// What the watchers of a lockstep run say: each Message-ID as a watcher sees
/// it, so the sender knows when every watcher has seen a message's mail.
struct Lockstep {
    news: tokio::sync::mpsc::UnboundedReceiver<String>,
    watchers: usize,
}

/// `run.senders` tasks, each with its own SMTP client, send the run's messages
/// between them, to the bot and the list at once (as a list's member does).
/// In a lockstep run one client sends each message once the one before it has
/// been seen by every watcher.
async fn send_all(s: &Servers, run: &Run, lockstep: Option<Lockstep>) -> Sent {
    let recipients = vec![run.address(&run.bot_user()), run.address(&run.list_user())];
    let start = Instant::now();
    if let Some(Lockstep { mut news, watchers }) = lockstep {
        let client = outbound(s);
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut accepted = BTreeMap::new();
        for index in 1..=run.messages {
            client
                .send(&run.player(index), &recipients, &run.player_mail(index))
                .await
                .unwrap_or_else(|error| panic!("sending message {index}: {error}"));
            accepted.insert(index, Instant::now());
            let id = run.message_id(index);
            while seen.get(&id).copied().unwrap_or(0) < watchers {
                // A message that never shows is named by `measure`.
                match tokio::time::timeout(ARRIVAL_LIMIT, news.recv()).await {
                    Ok(Some(seen_id)) => *seen.entry(seen_id).or_insert(0) += 1,
                    Ok(None) | Err(_) => return Sent { start, accepted },
                }
            }
        }
        return Sent { start, accepted };
    }
    let mut jobs = Vec::new();
    for sender in 0..run.senders {
        let client = outbound(s);
        let mails: Vec<(usize, String, Vec<u8>)> = (1..=run.messages)
            .filter(|index| index % run.senders == sender)
            .map(|index| (index, run.player(index), run.player_mail(index)))
            .collect();
        let recipients = recipients.clone();
        jobs.push(tokio::spawn(async move {
            let mut accepted = Vec::with_capacity(mails.len());
            for (index, from, raw) in mails {
                client
                    .send(&from, &recipients, &raw)
                    .await
                    .unwrap_or_else(|error| panic!("sending message {index}: {error}"));
                accepted.push((index, Instant::now()));
            }
            accepted
        }));
    }
    let mut accepted = BTreeMap::new();
    for job in jobs {
        accepted.extend(job.await.expect("sender task"));
    }
    Sent { start, accepted }
}

/// Which header ties a mail to the player message it stands for.
#[derive(Clone, Copy)]
enum Key {
    /// The player's message itself (the bare servers).
    MessageId,
    /// The bot's mail answering it; the player's own copy on the list has none.
    InReplyTo,
}

impl Key {
    fn of(self, raw: &[u8]) -> Option<String> {
        let message = mail_parser::MessageParser::default().parse_headers(raw)?;
        let id = match self {
            Key::MessageId => message.message_id(),
            Key::InReplyTo => message.in_reply_to().as_text(),
        };
        id.map(|id| id.trim_matches(['<', '>']).to_owned())
    }
}

/// What one watcher saw: when each expected mail became visible.
struct Seen {
    user: String,
    at: HashMap<String, Instant>,
    /// Mail found by the periodic re-check, not announced by IDLE.
    late_wakes: usize,
}

/// One IMAP connection idling on one mailbox. It is logged in and has looked
/// once before `start` returns, so nothing sent afterwards can be missed.
struct Watcher {
    job: tokio::task::JoinHandle<Seen>,
}

impl Watcher {
    /// Each expected mail seen is also told to `news`, when given.
    async fn start(
        s: &Servers,
        user: &str,
        key: Key,
        expected: Vec<String>,
        news: Option<tokio::sync::mpsc::UnboundedSender<String>>,
    ) -> Watcher {
        let cfg = imap_config(s, user);
        let mut inbound = Inbound::connect(&cfg, &s.password)
            .await
            .unwrap_or_else(|error| panic!("watching {user}: {error}"));
        assert!(inbound.supports_idle(), "the imap server has no IDLE");
        let mut last_uid = inbound
            .fetch_after(0)
            .await
            .expect("first look")
            .iter()
            .map(|f| f.uid)
            .max()
            .unwrap_or(0);
        let user = user.to_owned();
        let job = tokio::spawn(async move {
            let expected: std::collections::HashSet<String> = expected.into_iter().collect();
            let mut seen = Seen {
                user: user.clone(),
                at: HashMap::new(),
                late_wakes: 0,
            };
            // The limit is pushed back while mail keeps coming.
            let mut give_up = Instant::now() + ARRIVAL_LIMIT * 2;
            let mut woke_by_tick = false;
            loop {
                let fetched = inbound
                    .fetch_after(last_uid)
                    .await
                    .unwrap_or_else(|error| panic!("fetching {user}: {error}"));
                let now = Instant::now();
                if !fetched.is_empty() {
                    give_up = now + ARRIVAL_LIMIT;
                    seen.late_wakes += usize::from(woke_by_tick);
                }
                for mail in fetched {
                    last_uid = last_uid.max(mail.uid);
                    if let Some(id) = key.of(&mail.raw).filter(|id| expected.contains(id))
                        && !seen.at.contains_key(&id)
                    {
                        if let Some(news) = &news {
                            let _ = news.send(id.clone());
                        }
                        seen.at.insert(id, now);
                    }
                }
                if seen.at.len() == expected.len() || now >= give_up {
                    break;
                }
                let news = inbound
                    .has_after(last_uid)
                    .await
                    .unwrap_or_else(|error| panic!("searching {user}: {error}"));
                if news {
                    woke_by_tick = false;
                    continue;
                }
                let (back, wake) = inbound
                    .wait(WATCH_TICK.min(give_up - now))
                    .await
                    .unwrap_or_else(|error| panic!("idling on {user}: {error}"));
                inbound = back;
                woke_by_tick = wake == Wake::Timeout;
            }
            inbound.logout().await;
            seen
        });
        Watcher { job }
    }

    async fn finish(self) -> Seen {
        self.job.await.expect("watcher task")
    }
}

/// One side's figures for one run.
struct Side {
    /// Messages per second: all of them, from the first send to the last visible.
    throughput: f64,
    /// Per message, SMTP acceptance to visible, in milliseconds.
    latency_ms: Vec<f64>,
    late_wakes: usize,
    /// The relay's SMTP time per mail, envelope to 250 (empty on other sides).
    smtp_ms: Vec<f64>,
}

impl Side {
    /// Rounds of one side together: the median throughput, every latency.
    fn combine(rounds: Vec<Side>) -> Side {
        let mut throughputs: Vec<f64> = rounds.iter().map(|side| side.throughput).collect();
        throughputs.sort_by(f64::total_cmp);
        Side {
            throughput: percentile(&throughputs, 0.5),
            latency_ms: sorted(
                rounds
                    .iter()
                    .flat_map(|side| side.latency_ms.iter().copied()),
            ),
            late_wakes: rounds.iter().map(|side| side.late_wakes).sum(),
            smtp_ms: sorted(rounds.iter().flat_map(|side| side.smtp_ms.iter().copied())),
        }
    }
}

/// The bot's rounds together: every own share, the mean mails and CPU per action.
fn combine_bot(rounds: Vec<(Side, BotLog)>) -> (Side, BotLog) {
    let n = rounds.len() as f64;
    let (sides, logs): (Vec<Side>, Vec<BotLog>) = rounds.into_iter().unzip();
    let own: Vec<f64> = logs
        .iter()
        .flat_map(|log| log.own_ms.iter().flatten().copied())
        .collect();
    let cpu: Vec<f64> = logs
        .iter()
        .filter_map(|log| log.cpu_ms_per_action)
        .collect();
    let mean = |values: Vec<f64>| {
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let log = BotLog {
        sender_ms_per_mail: mean(
            logs.iter()
                .filter_map(|log| log.sender_ms_per_mail)
                .collect(),
        ),
        database_ms_per_mail: mean(
            logs.iter()
                .filter_map(|log| log.database_ms_per_mail)
                .collect(),
        ),
        content_ms: sorted(logs.iter().flat_map(|log| log.content_ms.iter().copied())),
        journal_ms: sorted(logs.iter().flat_map(|log| log.journal_ms.iter().copied())),
        own_ms: (!own.is_empty()).then(|| sorted(own.into_iter())),
        mails_per_action: logs.iter().map(|log| log.mails_per_action).sum::<f64>() / n,
        cpu_ms_per_action: (!cpu.is_empty()).then(|| cpu.iter().sum::<f64>() / cpu.len() as f64),
    };
    (Side::combine(sides), log)
}

fn sorted(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    values
}

/// Joins what was sent with what the watchers saw: a message is done when every
/// watcher has seen its mail. Panics, naming them, if any message never made it.
fn measure(run: &Run, sent: &Sent, seen: &[Seen], log: Option<&Path>) -> Side {
    let mut latency_ms = Vec::with_capacity(run.messages);
    let mut missing = Vec::new();
    let mut last = sent.start;
    for (&index, &accepted) in &sent.accepted {
        let id = run.message_id(index);
        let visible: Option<Vec<Instant>> = seen.iter().map(|w| w.at.get(&id).copied()).collect();
        match visible.and_then(|at| at.into_iter().max()) {
            Some(visible) => {
                last = last.max(visible);
                latency_ms.push(visible.saturating_duration_since(accepted).as_secs_f64() * 1e3);
            }
            None => missing.push(
                seen.iter()
                    .filter(|w| !w.at.contains_key(&id))
                    .map(|w| format!("{id} in {}", w.user))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        }
    }
    if !missing.is_empty() {
        let tail = log
            .and_then(|path| std::fs::read_to_string(path).ok())
            .map(|text| {
                let lines: Vec<&str> = text.lines().collect();
                lines[lines.len().saturating_sub(30)..].join("\n")
            })
            .unwrap_or_default();
        panic!(
            "{} of {} messages never made it ({} senders): {}\n{tail}",
            missing.len(),
            run.messages,
            run.senders,
            missing.join("; ")
        );
    }
    assert_eq!(
        sent.accepted.len(),
        run.messages,
        "not every message was sent"
    );
    latency_ms.sort_by(f64::total_cmp);
    Side {
        throughput: run.messages as f64 / (last - sent.start).as_secs_f64(),
        latency_ms,
        late_wakes: seen.iter().map(|w| w.late_wakes).sum(),
        smtp_ms: Vec::new(),
    }
}

/// (a) The bare servers: the players' messages, seen arriving in the bot's
/// mailbox, with no bot running.
async fn bare(s: &Servers, run: &Run) -> Side {
    let expected: Vec<String> = (1..=run.messages).map(|i| run.message_id(i)).collect();
    let (news, lockstep) = lockstep(run, 1);
    let watcher = Watcher::start(s, &run.bot_user(), Key::MessageId, expected, news).await;
    let sent = send_all(s, run, lockstep).await;
    let seen = watcher.finish().await;
    measure(run, &sent, &[seen], None)
}

/// The channel between a lockstep run's watchers and its sender; none otherwise.
fn lockstep(
    run: &Run,
    watchers: usize,
) -> (
    Option<tokio::sync::mpsc::UnboundedSender<String>>,
    Option<Lockstep>,
) {
    if !run.lockstep {
        return (None, None);
    }
    let (tx, news) = tokio::sync::mpsc::unbounded_channel();
    (Some(tx), Some(Lockstep { news, watchers }))
}

/// (c) The bare relay: the bare servers carrying the bot's envelopes. One SMTP
/// client, as the daemon's sender has, answers each message in the bot's
/// mailbox with an answer to the player and an announcement to the list, one
/// after the other, with no logic and no record between them.
async fn relay(s: &Servers, run: &Run) -> Side {
    let expected: Vec<String> = (1..=run.messages).map(|i| run.message_id(i)).collect();
    let (news, lockstep) = lockstep(run, 2);
    let answers = Watcher::start(
        s,
        &run.players_user(),
        Key::InReplyTo,
        expected.clone(),
        news.clone(),
    )
    .await;
    let announcements = Watcher::start(s, &run.list_user(), Key::InReplyTo, expected, news).await;
    let relaying = Relay::start(s, run).await;
    let sent = send_all(s, run, lockstep).await;
    let seen = [answers.finish().await, announcements.finish().await];
    let smtp_ms = relaying.finish().await;
    let mut side = measure(run, &sent, &seen, None);
    side.smtp_ms = sorted(smtp_ms.into_iter());
    side
}

/// The relay's task: logged in and looked once before `start` returns.
struct Relay {
    job: tokio::task::JoinHandle<Vec<f64>>,
}

impl Relay {
    async fn start(s: &Servers, run: &Run) -> Relay {
        let user = run.bot_user();
        let mut inbound = Inbound::connect(&imap_config(s, &user), &s.password)
            .await
            .unwrap_or_else(|error| panic!("relaying from {user}: {error}"));
        let mut last_uid = inbound
            .fetch_after(0)
            .await
            .expect("first look")
            .iter()
            .map(|f| f.uid)
            .max()
            .unwrap_or(0);
        let client = outbound(s);
        let bot = run.address(&run.bot_user());
        let list = run.address(&run.list_user());
        let messages = run.messages;
        let job = tokio::spawn(async move {
            let mut smtp_ms = Vec::with_capacity(messages * 2);
            let give_up = Instant::now() + ARRIVAL_LIMIT * 4;
            while smtp_ms.len() < messages * 2 && Instant::now() < give_up {
                let fetched = inbound
                    .fetch_after(last_uid)
                    .await
                    .unwrap_or_else(|error| panic!("relay fetching: {error}"));
                for mail in fetched {
                    last_uid = last_uid.max(mail.uid);
                    let Some(parsed) =
                        mail_parser::MessageParser::default().parse_headers(&mail.raw)
                    else {
                        continue;
                    };
                    let (Some(id), Some(player)) = (
                        parsed.message_id().map(str::to_owned),
                        parsed
                            .from()
                            .and_then(|from| from.first())
                            .and_then(|from| from.address())
                            .map(str::to_owned),
                    ) else {
                        continue;
                    };
                    for to in [player, list.clone()] {
                        let raw = relayed_mail(&bot, &to, &id, smtp_ms.len());
                        let began = Instant::now();
                        client
                            .send(&bot, std::slice::from_ref(&to), &raw)
                            .await
                            .unwrap_or_else(|error| panic!("relaying {id}: {error}"));
                        smtp_ms.push(began.elapsed().as_secs_f64() * 1e3);
                    }
                }
                if smtp_ms.len() >= messages * 2 {
                    break;
                }
                if !inbound
                    .has_after(last_uid)
                    .await
                    .unwrap_or_else(|error| panic!("relay searching: {error}"))
                {
                    let (back, _) = inbound
                        .wait(WATCH_TICK)
                        .await
                        .unwrap_or_else(|error| panic!("relay idling: {error}"));
                    inbound = back;
                }
            }
            inbound.logout().await;
            smtp_ms
        });
        Relay { job }
    }

    /// Each mail's SMTP time, envelope to 250, in milliseconds.
    async fn finish(self) -> Vec<f64> {
        self.job.await.expect("relay task")
    }
}

/// A mail of about the size of the bot's answers, in reply to `id`.
fn relayed_mail(from: &str, to: &str, id: &str, seq: usize) -> Vec<u8> {
    let body = "Welcome to the game. This line stands for the bot's sentence.\r\n".repeat(12);
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: [nomic] join\r\n\
         Message-ID: <relay-{seq}-{id}>\r\nIn-Reply-To: <{id}>\r\nReferences: <{id}>\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}",
        id = id.trim_matches(['<', '>']),
    )
    .into_bytes()
}

/// The daemon as a child process. Dropping it stops it, so a failed run leaves
/// nothing behind.
struct Daemon {
    child: Child,
    log: PathBuf,
}

impl Daemon {
    /// User and system time the daemon has used so far (`/proc/PID/stat`,
    /// fields 14 and 15, in ticks of 1/100 s, the Linux default), if readable.
    fn cpu_time(&self) -> Option<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).ok()?;
        // The command name may hold spaces: the fields count from its closing paren.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let ticks: u64 =
            fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(Duration::from_millis(ticks * 10))
    }

    fn start(dir: &Path) -> Daemon {
        let log = dir.join("nomicbot.log");
        let stderr = std::fs::File::create(&log).expect("log file");
        let child = Command::new(env!("CARGO_BIN_EXE_nomicbot"))
            .arg("--config")
            .arg(dir.join("bot.toml"))
            .arg("run")
            .current_dir(dir)
            .env("RUST_LOG", "info")
            // Plain text in the log file, whatever the terminal.
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("start the daemon");
        let mut daemon = Daemon { child, log };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let text = std::fs::read_to_string(&daemon.log).unwrap_or_default();
            if text.contains("nomicbot running") {
                return daemon;
            }
            if let Ok(Some(status)) = daemon.child.try_wait() {
                panic!("the daemon exited at start ({status}):\n{text}");
            }
            assert!(
                Instant::now() < deadline,
                "the daemon did not start:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGTERM (the `kill` command: no unsafe code here), then waits; returns the log.
    fn stop(mut self) -> String {
        let status = self.terminate();
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        if let Ok(keep) = std::env::var("BENCH_KEEP_LOG") {
            let _ = std::fs::write(keep, &text);
        }
        assert!(
            status.is_some_and(|status| status.success()),
            "the daemon did not stop cleanly ({status:?}):\n{text}"
        );
        text
    }

    fn terminate(&mut self) -> Option<std::process::ExitStatus> {
        if let Ok(Some(status)) = self.child.try_wait() {
            return Some(status);
        }
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        self.child.wait().ok()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// What the bot's side adds to [`Side`], from the daemon's log.
struct BotLog {
    /// Per player message, the largest `own_ms` of the mail it caused; `None`
    /// when the log has none at all.
    own_ms: Option<Vec<f64>>,
    /// Mails the bot sent, per player message.
    mails_per_action: f64,
    /// The daemon's processor time (user and system), per player message.
    cpu_ms_per_action: Option<f64>,
    /// Per mail the bot sent: the server's time from the content to its 250,
    /// and the time to put the acceptance in the journal (`content_ms`,
    /// `journal_ms` of its `accepted` lines).
    content_ms: Vec<f64>,
    journal_ms: Vec<f64>,
    /// The sender's passes (`sending done`): their time over the mails they
    /// sent, and the part of it spent in the database.
    sender_ms_per_mail: Option<f64>,
    database_ms_per_mail: Option<f64>,
}

/// (b) The bot: the daemon running, its answers seen arriving in the players'
/// mailbox and its announcements in the list's.
async fn bot(s: &Servers, run: &Run) -> (Side, BotLog) {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = format!(
        "transport = \"imap\"\n[bot]\naddress = \"{bot}\"\nlist = \"{list}\"\ndatabase = \"bot.sqlite\"\n\
         [imap]\nhost = \"{h}\"\nport = {ip}\nuser = \"{bot_user}\"\npassword = \"{pw}\"\ntls = \"none\"\n\
         [smtp]\nhost = \"{h}\"\nport = {sp}\ntls = \"none\"\n\
         [limits]\nmax_outgoing_per_hour = 0\nmax_outgoing_bytes_per_hour = 0\n",
        bot = run.address(&run.bot_user()),
        list = run.address(&run.list_user()),
        bot_user = run.bot_user(),
        h = s.host,
        ip = s.imap_port,
        sp = s.smtp_port,
        pw = s.password
    );
    // The hourly bound on the bot's mail is lifted: a run measures how fast the
    // bot answers a burst, and `BENCH_MESSAGES` may ask for more than it lets
    // through in an hour (each sender sends one message, under the daily bound).
    std::fs::write(dir.path().join("bot.toml"), config).expect("config");
    nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");

    let expected: Vec<String> = (1..=run.messages).map(|i| run.message_id(i)).collect();
    let (news, lockstep) = lockstep(run, 2);
    let answers = Watcher::start(
        s,
        &run.players_user(),
        Key::InReplyTo,
        expected.clone(),
        news.clone(),
    )
    .await;
    let announcements = Watcher::start(s, &run.list_user(), Key::InReplyTo, expected, news).await;
    let daemon = Daemon::start(dir.path());
    let sent = send_all(s, run, lockstep).await;
    let seen = [answers.finish().await, announcements.finish().await];
    // Every message is checked before the daemon is: a missing one says more.
    let side = measure(run, &sent, &seen, Some(&daemon.log));
    let cpu = daemon.cpu_time();
    let log = daemon.stop();

    let own = own_shares(&log);
    let own_ms = (!own.is_empty()).then(|| {
        let mut own_ms: Vec<f64> = (1..=run.messages)
            .filter_map(|i| own.get(&run.message_id(i)).copied())
            .collect();
        own_ms.sort_by(f64::total_cmp);
        own_ms
    });
    let sent_by_bot: usize = log
        .lines()
        .filter(|line| line.contains("sending done"))
        .filter_map(|line| field(line, "sent")?.parse::<usize>().ok())
        .sum();
    let timing = |name: &str| {
        sorted(
            log.lines()
                .filter(|line| line.contains("accepted"))
                .filter_map(|line| field(&without_ansi(line), name)?.parse::<f64>().ok()),
        )
    };
    let (passes_ms, database_ms, passes_sent) = log
        .lines()
        .filter(|line| line.contains("sending done"))
        .filter_map(|line| {
            let line = without_ansi(line);
            Some((
                field(&line, "ms")?.parse::<f64>().ok()?,
                field(&line, "database_ms")?.parse::<f64>().ok()?,
                field(&line, "sent")?.parse::<f64>().ok()?,
            ))
        })
        .fold((0.0, 0.0, 0.0), |(ms, db, sent), (m, d, n)| {
            (ms + m, db + d, sent + n)
        });
    let bot_log = BotLog {
        sender_ms_per_mail: (passes_sent > 0.0).then(|| passes_ms / passes_sent),
        database_ms_per_mail: (passes_sent > 0.0).then(|| database_ms / passes_sent),
        content_ms: timing("content_ms"),
        journal_ms: timing("journal_ms"),
        own_ms,
        mails_per_action: sent_by_bot as f64 / run.messages as f64,
        cpu_ms_per_action: cpu.map(|cpu| cpu.as_secs_f64() * 1e3 / run.messages as f64),
    };
    (side, bot_log)
}

/// The daemon's account of its own share, per player message (Message-ID
/// without brackets): the largest `own_ms` among its `accepted` lines, that is
/// the time from the server's news of the message to the server's 250 for the
/// last of the mail it caused.
fn own_shares(log: &str) -> HashMap<String, f64> {
    let mut own = HashMap::new();
    for line in log.lines() {
        let line = without_ansi(line);
        if !line.contains("accepted") {
            continue;
        }
        let (Some(cause), Some(own_ms)) = (field(&line, "cause"), field(&line, "own_ms")) else {
            continue;
        };
        let (Some(id), Ok(own_ms)) = (cause.strip_prefix("mail:"), own_ms.parse::<f64>()) else {
            continue;
        };
        let slot = own
            .entry(id.trim_matches(['<', '>']).to_owned())
            .or_insert(own_ms);
        *slot = slot.max(own_ms);
    }
    own
}

/// The value of `name=value` in a tracing line, quoted (`name="a b"`) or not.
fn field(line: &str, name: &str) -> Option<String> {
    let key = format!("{name}=");
    let mut from = 0;
    while let Some(found) = line[from..].find(&key) {
        let at = from + found;
        from = at + key.len();
        // `xcause=` is another field.
        if line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| !c.is_whitespace())
        {
            continue;
        }
        let rest = &line[from..];
        return Some(match rest.strip_prefix('"') {
            Some(quoted) => {
                let mut value = String::new();
                let mut chars = quoted.chars();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => value.extend(chars.next()),
                        c => value.push(c),
                    }
                }
                value
            }
            None => rest.split_whitespace().next().unwrap_or("").to_owned(),
        });
    }
    None
}

/// The line without terminal colour codes (`ESC [ ... m`).
fn without_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (fraction * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "not met" }
}

fn report(run: &Run, bare: &Side, relay: &Side, bot: &Side, bot_log: &BotLog) {
    println!();
    if run.lockstep {
        println!(
            "== {} messages, one at a time, each sent once the one before it was seen \
             (the latency of one message, with no queue; no throughput)",
            run.messages
        );
    } else {
        println!(
            "== {} messages, {} concurrent sender{}",
            run.messages,
            run.senders,
            if run.senders == 1 { "" } else { "s" }
        );
    }
    println!(
        "{:<28}{:>10}{:>10}{:>10}{:>10}{:>10}   goal",
        "", "bare", "relay", "bot", "bot/bare", "bot/relay"
    );
    if !run.lockstep {
        let ratio = bot.throughput / bare.throughput;
        println!(
            "{:<28}{:>10.1}{:>10.1}{:>10.1}{:>10.2}{:>10.2}   bot/bare ≥ {THROUGHPUT_GOAL:.2} ({})",
            "throughput (msg/s)",
            bare.throughput,
            relay.throughput,
            bot.throughput,
            ratio,
            bot.throughput / relay.throughput,
            verdict(ratio >= THROUGHPUT_GOAL)
        );
    }
    for (name, fraction) in [("latency median (ms)", 0.5), ("latency p90 (ms)", 0.9)] {
        let (a, r, b) = (
            percentile(&bare.latency_ms, fraction),
            percentile(&relay.latency_ms, fraction),
            percentile(&bot.latency_ms, fraction),
        );
        println!(
            "{name:<28}{a:>10.1}{r:>10.1}{b:>10.1}{:>10.2}{:>10.2}",
            b / a,
            b / r
        );
    }
    println!(
        "{:<28}{:>10}{:>10.2}{:>10.2}   relay: envelope to 250; bot: content to 250",
        "SMTP per mail median (ms)",
        "",
        percentile(&relay.smtp_ms, 0.5),
        percentile(&bot_log.content_ms, 0.5),
    );
    println!(
        "{:<28}{:>10}{:>10}{:>10.2}   one fdatasync per acceptance",
        "bot's journal per mail (ms)",
        "",
        "",
        percentile(&bot_log.journal_ms, 0.5),
    );
    if let Some(per_mail) = bot_log.sender_ms_per_mail {
        println!(
            "{:<28}{:>10}{:>10}{per_mail:>10.2}   its passes' time over the mails they sent",
            "bot's sender per mail (ms)", "", "",
        );
    }
    if let Some(per_mail) = bot_log.database_ms_per_mail {
        println!(
            "{:<28}{:>10}{:>10}{per_mail:>10.2}   of which reading the outbox and folding the journal",
            "bot's sender database (ms)", "", "",
        );
    }
    match &bot_log.own_ms {
        Some(own_ms) => {
            let median = percentile(own_ms, 0.5);
            println!(
                "{:<28}{:>10}{:>10}{median:>10.1}{:>10}{:>10}   ≤ {OWN_SHARE_GOAL_MS:.0} ms ({})",
                "bot's own share median",
                "",
                "",
                "",
                "",
                verdict(median <= OWN_SHARE_GOAL_MS)
            );
            println!(
                "{:<28}{:>10}{:>10}{:>10.1}",
                "bot's own share p90",
                "",
                "",
                percentile(own_ms, 0.9)
            );
            if own_ms.len() < run.messages {
                println!(
                    "  (own_ms found for {} of {} messages)",
                    own_ms.len(),
                    run.messages
                );
            }
        }
        None => println!(
            "{:<28}n/a (the log has no own_ms)   goal: median ≤ {OWN_SHARE_GOAL_MS:.0} ms",
            "bot's own share"
        ),
    }
    println!(
        "{:<28}{:>10}{:>10}{:>10.1}",
        "bot's mails per action", "", "", bot_log.mails_per_action
    );
    if let Some(cpu) = bot_log.cpu_ms_per_action {
        println!(
            "{:<28}{:>10}{:>10}{cpu:>10.2}",
            "bot's CPU per action (ms)", "", ""
        );
    }
    if bare.late_wakes + relay.late_wakes + bot.late_wakes > 0 {
        println!(
            "  (mail found by the watchers' {}s re-check, not announced by IDLE: bare {}, \
             relay {}, bot {})",
            WATCH_TICK.as_secs(),
            bare.late_wakes,
            relay.late_wakes,
            bot.late_wakes
        );
    }
}

fn main() {
    let messages: usize = std::env::var("BENCH_MESSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(DEFAULT_MESSAGES);
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(DEFAULT_ROUNDS);
    let s = servers();
    let stamp = format!("{:x}", Timestamp::now().as_millisecond() % 0xff_ffff);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    println!(
        "pipeline: SMTP 250 → visible through IMAP IDLE; the bare servers, the bare relay \
         (the bot's envelopes, no logic) and the bot, same messages, same senders"
    );
    let began = Instant::now();
    runtime.block_on(async {
        let lockstep = (LOCKSTEP_MESSAGES, 1, true);
        let flat_out = SENDER_COUNTS.map(|senders| (messages, senders, false));
        for (messages, senders, lockstep) in flat_out.into_iter().chain([lockstep]) {
            let run = |side: &str, round: usize| Run {
                id: format!(
                    "{stamp}{side}{senders}{}r{round}",
                    if lockstep { "l" } else { "f" }
                ),
                domain: s.domain.clone(),
                messages,
                senders,
                lockstep,
            };
            // The sides take turns, round after round, so a slow moment of the
            // machine falls on each; each figure is the median of the rounds.
            let (mut bares, mut relays, mut bots) = (Vec::new(), Vec::new(), Vec::new());
            for round in 0..if lockstep { 1 } else { rounds } {
                bares.push(bare(&s, &run("a", round)).await);
                relays.push(relay(&s, &run("c", round)).await);
                bots.push(bot(&s, &run("b", round)).await);
            }
            let per_round: Vec<String> = bares
                .iter()
                .zip(&relays)
                .zip(&bots)
                .map(|((bare, relay), (bot, _))| {
                    format!(
                        "{:.2}/{:.2}",
                        bot.throughput / bare.throughput,
                        bot.throughput / relay.throughput
                    )
                })
                .collect();
            let bare_side = Side::combine(bares);
            let relay_side = Side::combine(relays);
            let (bot_side, bot_log) = combine_bot(bots);
            report(&run("b", 0), &bare_side, &relay_side, &bot_side, &bot_log);
            if !lockstep {
                println!(
                    "  bot/bare and bot/relay throughput in each round: {}",
                    per_round.join(", ")
                );
            }
        }
    });
    println!();
    println!(
        "(bare: the player's message in the bot's mailbox; relay and bot: the answer in the \
         player's mailbox and the announcement in the list's, the later of the two; {:.0} s in all)",
        began.elapsed().as_secs_f64()
    );
}
