//! End to end through the real servers of `../shared/mailtest/` (Dovecot IMAP,
//! Postfix SMTP): players send with SMTP, the bot binary reads over IMAP and
//! sends over SMTP, the tests read every mailbox back over IMAP. No mocks.
//! Every test uses its own mailboxes (any local part is a mailbox), so they run
//! in parallel.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nomicbot::config::{ImapConfig, SmtpConfig, Tls};
use nomicbot::mail::imap::{self, Fetched};
use nomicbot::mail::smtp::Outbound;

use crate::support::{OwnServers, Servers, message};

/// A bot on the IMAP+SMTP transport, with its own bot and list mailboxes.
pub struct ImapBot {
    pub dir: tempfile::TempDir,
    pub servers: Servers,
    pub name: String,
}

impl ImapBot {
    pub fn new(name: &str) -> ImapBot {
        ImapBot::on(Servers::from_env(), name, "INBOX")
    }

    pub fn on(servers: Servers, name: &str, mailbox: &str) -> ImapBot {
        // The servers keep their mailboxes between runs: a fresh suffix per run.
        let name = &format!("{name}-{}", run_id());
        let dir = tempfile::tempdir().expect("temp dir");
        let config = format!(
            r#"transport = "imap"
[bot]
address = "bot-{name}@{domain}"
list = "list-{name}@{domain}"
database = "var/bot.sqlite"
moderators = ["mod-{name}@{domain}"]
# The games start on a fresh registry (the import has tests of its own).
unrecorded_rules = "baseline"
[imap]
host = "{host}"
port = {imap_port}
user = "bot-{name}"
password = "{password}"
tls = "none"
mailbox = "{mailbox}"
poll_seconds = 600
[smtp]
host = "{host}"
port = {smtp_port}
tls = "none"
retry_max_seconds = 2
# The players' test mail is not signed: From is believed.
[identity]
auth = "none"
# The crash tests send hundreds of actions from one player.
[limits]
max_actions_per_day = 0
"#,
            domain = servers.domain,
            host = servers.host,
            imap_port = servers.imap_port,
            smtp_port = servers.smtp_port,
            password = servers.password,
        );
        std::fs::write(dir.path().join("bot.toml"), config).expect("config");
        nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
        ImapBot {
            dir,
            servers,
            name: name.to_owned(),
        }
    }

    pub fn config_path(&self) -> PathBuf {
        self.dir.path().join("bot.toml")
    }

    /// Replaces the test's `[identity]` section (From believed) with `section`.
    pub fn set_identity(&self, section: &str) {
        let config = std::fs::read_to_string(self.config_path()).expect("bot.toml");
        let ours = "[identity]\nauth = \"none\"\n";
        assert!(config.contains(ours), "{config}");
        std::fs::write(self.config_path(), config.replace(ours, section)).expect("bot.toml");
    }

    pub fn bot(&self) -> String {
        self.servers.address(&format!("bot-{}", self.name))
    }

    pub fn list(&self) -> String {
        self.servers.address(&format!("list-{}", self.name))
    }

    /// A player's address, unique to this test.
    pub fn player(&self, who: &str) -> String {
        self.servers.address(&format!("{who}-{}", self.name))
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_nomicbot"));
        command.arg("--config").arg(self.config_path()).args(args);
        command.env_remove("NOMICBOT_FAILPOINT");
        command
    }

    /// Runs the binary and fails the test unless it succeeded; a `once` whose
    /// mail could not all be sent exits 69 by design, and its summary line,
    /// returned, says how much.
    pub fn cli(&self, args: &[&str]) -> String {
        let output = self.command(args).output().expect("run nomicbot");
        let not_sent = args.first() == Some(&"once") && output.status.code() == Some(69);
        assert!(
            output.status.success() || not_sent,
            "nomicbot {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    pub fn imap(&self, user: &str, mailbox: &str) -> ImapConfig {
        ImapConfig {
            host: self.servers.host.clone(),
            port: self.servers.imap_port,
            user: user.to_owned(),
            password: Some(self.servers.password.clone()),
            password_file: None,
            tls: Tls::None,
            ca_file: None,
            mailbox: mailbox.to_owned(),
            poll_seconds: 1,
        }
    }

    pub fn smtp(&self) -> Outbound {
        Outbound::new(
            &SmtpConfig {
                host: self.servers.host.clone(),
                port: self.servers.smtp_port,
                user: None,
                password: None,
                password_file: None,
                tls: Tls::None,
                ca_file: None,
                retry_max_seconds: 2,
            },
            None,
        )
        .expect("smtp")
    }

    /// A player mails the list (the list, which the bot is subscribed to, hands a
    /// copy to the bot: the envelope goes to both) or the bot privately.
    pub async fn send(&self, from: &str, public: bool, subject: &str, id: &str, body: &str) {
        let to = if public { self.list() } else { self.bot() };
        let raw = message(
            from,
            &to,
            subject,
            &format!("{id}-{}@players.test", self.name),
            body,
        );
        let mut recipients = vec![self.bot()];
        if public {
            recipients.push(self.list());
        }
        self.smtp()
            .send(from, &recipients, raw.as_bytes())
            .await
            .expect("player's smtp send");
    }

    /// Every message in a user's INBOX, read over IMAP.
    pub async fn mailbox_of(&self, address: &str) -> Vec<String> {
        let user = address.split('@').next().unwrap_or(address);
        read(&self.imap(user, "INBOX")).await
    }

    /// Waits until `address`'s INBOX holds at least `n` messages matching `filter`.
    pub async fn wait_for(
        &self,
        address: &str,
        n: usize,
        filter: impl Fn(&str) -> bool,
    ) -> Vec<String> {
        // A limit, not a measure: mail relayed by a list manager's queue
        // runners on a busy 2-core machine can take tens of seconds.
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let found: Vec<String> = self
                .mailbox_of(address)
                .await
                .into_iter()
                .filter(|m| filter(m))
                .collect();
            if found.len() >= n || Instant::now() > deadline {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn run_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| format!("{:x}", jiff::Timestamp::now().as_millisecond() % 0xff_ffff))
}

async fn read(cfg: &ImapConfig) -> Vec<String> {
    match imap::read_mailbox(cfg, cfg.password.as_deref().unwrap_or("")).await {
        Ok(messages) => messages
            .into_iter()
            .map(|f: Fetched| String::from_utf8_lossy(&f.raw).into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

fn subject_of(message: &str) -> &str {
    message
        .lines()
        .find_map(|l| l.strip_prefix("Subject: "))
        .unwrap_or("")
}

pub fn is_from_bot(message: &str) -> bool {
    message.contains("X-Nomicbot:")
}

/// Runs the bot until `stderr` says `marker`, then kills it with SIGKILL.
pub fn run_until_failpoint(mut command: Command, failpoint: &str) {
    command
        .env("NOMICBOT_FAILPOINT", failpoint)
        .stderr(Stdio::piped())
        .stdout(Stdio::null());
    let mut child: Child = command.spawn().expect("spawn nomicbot");
    let stderr = child.stderr.take().expect("stderr");
    let marker = format!("failpoint {failpoint} reached");
    let mut seen = Vec::new();
    let mut reached = false;
    for line in BufReader::new(stderr).lines() {
        let line = line.expect("stderr line");
        if line.contains(&marker) {
            reached = true;
            break;
        }
        seen.push(line);
    }
    // Child::kill is SIGKILL on Unix: no destructor, no flush, no goodbye.
    let _ = child.kill();
    child.wait().expect("reap");
    assert!(
        reached,
        "the bot ended without reaching {failpoint}: {}",
        seen.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_join_sent_by_smtp_is_confirmed_to_the_player_and_announced_on_the_list() {
    let bot = ImapBot::new("join");
    let alice = bot.player("alice");
    bot.send(&alice, true, "[nomic] join Alice", "m1", "").await;
    bot.wait_for(&bot.bot(), 1, |_| true).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    assert!(out.contains("sent 2"), "{out}");

    let confirmations = bot.wait_for(&alice, 1, is_from_bot).await;
    assert_eq!(confirmations.len(), 1, "alice's mailbox: {confirmations:?}");
    let confirmation = &confirmations[0];
    // Issue "Headers of the bot's own mail": `Re:` first, as mail clients write it.
    assert_eq!(subject_of(confirmation), "Re: [nomic] join Alice");
    assert!(confirmation.contains("Welcome, Alice"), "{confirmation}");
    assert!(
        confirmation.contains(&format!("In-Reply-To: <m1-{}@players.test>", bot.name)),
        "{confirmation}"
    );
    assert!(
        confirmation.contains("Auto-Submitted: auto-replied"),
        "{confirmation}"
    );

    let announcements = bot.wait_for(&bot.list(), 1, is_from_bot).await;
    assert_eq!(announcements.len(), 1);
    assert_eq!(
        subject_of(&announcements[0]),
        "[nomic] Alice joined the game"
    );
    // An announcement a player's action caused is no answer to that player
    // (RFC 3834): auto-generated, not auto-replied.
    assert!(
        announcements[0].contains("Auto-Submitted: auto-generated"),
        "{}",
        announcements[0]
    );

    let state = bot.cli(&["state", "--json"]);
    assert!(state.contains(&alice), "{state}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_daemon_answers_within_seconds_of_delivery_through_idle() {
    let bot = ImapBot::new("idle");
    // Polling is every 600 s in this config: only IDLE can make the answer quick.
    let mut daemon = bot
        .command(&["run"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run");
    let stderr = daemon.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // The first pass (an empty mailbox) is over when the daemon starts waiting.
    wait_for_line(&rx, "nomicbot running");
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let alice = bot.player("alice");
    let sent_at = Instant::now();
    bot.send(&alice, false, "[nomic] join Alice", "m1", "")
        .await;
    let answers = bot.wait_for(&alice, 1, is_from_bot).await;
    let latency = sent_at.elapsed();
    daemon.kill().expect("stop daemon");
    let _ = daemon.wait();
    assert_eq!(answers.len(), 1, "no answer within 30 s");
    assert!(answers[0].contains("Welcome, Alice"));
    println!("run (IDLE) answered {latency:?} after the player's SMTP send");
}

fn wait_for_line(rx: &std::sync::mpsc::Receiver<String>, needle: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(200))
            && line.contains(needle)
        {
            return;
        }
    }
    panic!("the daemon never said {needle:?}");
}

async fn crash_and_restart(name: &str, failpoint: &str) {
    let bot = ImapBot::new(name);
    let alice = bot.player("alice");
    bot.send(&alice, true, "[nomic] join Alice", "m1", "").await;
    bot.wait_for(&bot.bot(), 1, |_| true).await;

    run_until_failpoint(bot.command(&["once"]), failpoint);
    // Restarted, twice for good measure.
    bot.cli(&["once"]);
    bot.cli(&["once"]);

    let log = bot.cli(&["log", "--json"]);
    assert_eq!(log.matches("\"joined\"").count(), 1, "applied once: {log}");
    let announcements = bot.wait_for(&bot.list(), 1, is_from_bot).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let announcements_later: Vec<_> = bot
        .mailbox_of(&bot.list())
        .await
        .into_iter()
        .filter(|m| is_from_bot(m))
        .collect();
    assert_eq!(announcements.len(), 1, "announced once");
    assert_eq!(announcements_later.len(), 1, "announced once, even later");
    let replies: Vec<_> = bot
        .mailbox_of(&alice)
        .await
        .into_iter()
        .filter(|m| is_from_bot(m))
        .collect();
    assert_eq!(replies.len(), 1, "answered once");
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_after_the_message_is_stored_and_before_it_is_applied_nothing_is_lost_or_doubled() {
    crash_and_restart("crash-store", "after-store").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_after_the_action_is_committed_and_before_its_mail_is_sent_it_is_applied_and_announced_once()
 {
    crash_and_restart("crash-send", "before-send").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recreated_mailbox_with_a_new_uidvalidity_applies_nothing_twice() {
    let bot = ImapBot::on(Servers::from_env(), "uidvalidity", "Game");
    let account = bot.imap(&format!("bot-{}", bot.name), "Game");
    let password = bot.servers.password.clone();
    let alice = bot.player("alice");
    let bob = bot.player("bob");
    let carol = bot.player("carol");
    let m = |from: &str, name: &str, id: &str| {
        message(
            from,
            &bot.list(),
            &format!("[nomic] join {name}"),
            &format!("{id}-{}@players.test", bot.name),
            "",
        )
    };
    let first = [m(&alice, "Alice", "uv1"), m(&bob, "Bob", "uv2")];

    let mut session = imap::connect_no_select(&account, &password)
        .await
        .expect("login");
    let _ = session.delete_mailbox("Game").await;
    session.create_mailbox("Game").await.expect("create");
    for raw in &first {
        session
            .append("Game", raw.as_bytes(), None)
            .await
            .expect("append");
    }
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 2"), "{out}");
    let validity_before = imap::connect_no_select(&account, &password)
        .await
        .expect("login")
        .select("Game")
        .await
        .expect("select")
        .uidvalidity();

    // The mailbox is recreated (as a server migration or a careless admin would):
    // same messages, new UIDs, new UIDVALIDITY; and one message that is really new.
    session.delete_mailbox("Game").await.expect("delete");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    session.create_mailbox("Game").await.expect("create again");
    for raw in first.iter().chain([&m(&carol, "Carol", "uv3")]) {
        session
            .append("Game", raw.as_bytes(), None)
            .await
            .expect("append");
    }
    session.logout().await;
    let validity_after = imap::connect_no_select(&account, &password)
        .await
        .expect("login")
        .select("Game")
        .await
        .expect("select")
        .uidvalidity();
    assert_ne!(
        validity_before, validity_after,
        "the server must have changed UIDVALIDITY"
    );

    let out = bot.cli(&["once"]);
    assert!(
        out.contains("fetched 1"),
        "only Carol's message is new: {out}"
    );
    assert!(out.contains("applied 1"), "{out}");
    let log = bot.cli(&["log", "--json"]);
    assert_eq!(log.matches("\"joined\"").count(), 3, "{log}");
    let announcements = bot.wait_for(&bot.list(), 3, is_from_bot).await;
    assert_eq!(announcements.len(), 3);
    let inbox = bot.cli(&["inbox", "--status", "duplicate"]);
    assert_eq!(
        inbox.lines().count(),
        2,
        "the two re-appended messages are kept as duplicates: {inbox}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_auto_replied_message_with_a_bad_command_gets_no_answer() {
    let bot = ImapBot::new("autoreply");
    let alice = bot.player("alice");
    let raw = format!(
        "From: {alice}\r\nTo: {}\r\nSubject: [nomic] Out of office\r\nMessage-ID: <ooo-{}@players.test>\r\n\
         Auto-Submitted: auto-replied\r\n\r\nI am away until Monday. dance a jig\r\n",
        bot.bot(),
        bot.name
    );
    bot.smtp()
        .send(&alice, &[bot.bot()], raw.as_bytes())
        .await
        .expect("send");
    bot.wait_for(&bot.bot(), 1, |_| true).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("kept aside 1"), "{out}");
    assert!(out.contains("sent 0"), "{out}");
    let aside = bot.cli(&["inbox", "--status", "aside"]);
    assert!(aside.contains("automatic"), "{aside}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        bot.mailbox_of(&alice).await.is_empty(),
        "no answer to an automatic message"
    );
}

fn postfix(dir: &Path, verb: &str) {
    let status = Command::new("/usr/sbin/postfix")
        .arg("-c")
        .arg(dir.join("postfix/etc"))
        .arg(verb)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("postfix");
    assert!(status.success(), "postfix {verb}");
}

fn smtp_answers(port: u16) -> bool {
    std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
}

#[tokio::test(flavor = "multi_thread")]
async fn with_the_smtp_server_down_every_announcement_is_delivered_once_it_is_back() {
    // A pair of servers of our own, so that stopping its SMTP server leaves the
    // other tests' server alone.
    let own = tokio::task::spawn_blocking(|| OwnServers::start("outage", false))
        .await
        .expect("start the servers");
    let servers = own.servers();
    let dir = servers.dir.clone();
    let smtp_port = servers.smtp_port;
    let bot = ImapBot::on(servers, "outage", "INBOX");
    postfix(&dir, "stop");
    let deadline = Instant::now() + Duration::from_secs(20);
    while smtp_answers(smtp_port) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!smtp_answers(smtp_port), "postfix did not stop");

    // Players' mail still reaches the bot's mailbox (delivered by IMAP APPEND,
    // as SMTP is down); the bot applies it and cannot send.
    let account = bot.imap(&format!("bot-{}", bot.name), "INBOX");
    let mut session = imap::connect_no_select(&account, &bot.servers.password)
        .await
        .expect("login");
    for who in ["alice", "bob", "carol"] {
        let raw = message(
            &bot.player(who),
            &bot.list(),
            &format!("[nomic] join {who}"),
            &format!("{who}-{}@players.test", bot.name),
            "",
        );
        session
            .append("INBOX", raw.as_bytes(), None)
            .await
            .expect("append");
    }
    session.logout().await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 3"), "{out}");
    assert!(out.contains("sent 0"), "{out}");
    let outbox = bot.cli(&["outbox"]);
    assert_eq!(outbox.matches("pending").count(), 6, "{outbox}");

    postfix(&dir, "start");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !smtp_answers(smtp_port) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The retries fall due (backoff is capped at 2 s in this config).
    let later = (jiff::Timestamp::now() + jiff::SignedDuration::from_mins(5)).to_string();
    let out = bot.cli(&["once", "--now", &later]);
    assert!(out.contains("sent 6"), "{out}");
    let out = bot.cli(&["once", "--now", &later]);
    assert!(out.contains("sent 0"), "nothing twice: {out}");

    let announcements = bot.wait_for(&bot.list(), 3, is_from_bot).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let all: Vec<_> = bot
        .mailbox_of(&bot.list())
        .await
        .into_iter()
        .filter(|m| is_from_bot(m))
        .collect();
    assert_eq!(announcements.len(), 3);
    assert_eq!(all.len(), 3, "every announcement delivered, none twice");
    for who in ["alice", "bob", "carol"] {
        let replies: Vec<_> = bot
            .mailbox_of(&bot.player(who))
            .await
            .into_iter()
            .filter(|m| is_from_bot(m))
            .collect();
        assert_eq!(replies.len(), 1, "{who} answered once");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_daemon_fires_a_deadline_three_days_after_a_message_at_exactly_that_instant() {
    let bot = ImapBot::new("deadline");
    let moderator = bot.player("mod");
    // The ballot was opened (server time) three days ago less a few seconds: its
    // deadline falls while the daemon runs. INTERNALDATE has whole seconds.
    let now = jiff::Timestamp::from_second(jiff::Timestamp::now().as_second()).expect("now");
    let opened = now - jiff::SignedDuration::from_hours(72) + jiff::SignedDuration::from_secs(6);
    let account = bot.imap(&format!("bot-{}", bot.name), "INBOX");
    let mut session = imap::connect_no_select(&account, &bot.servers.password)
        .await
        .expect("login");
    let alice = bot.player("alice");
    let join = message(
        &alice,
        &bot.list(),
        "[nomic] join Alice",
        &format!("j-{}@players.test", bot.name),
        "",
    );
    session
        .append(
            "INBOX",
            join.as_bytes(),
            Some(opened - jiff::SignedDuration::from_mins(1)),
        )
        .await
        .expect("append");
    let open = message(
        &moderator,
        &bot.list(),
        "[vote] open Shall we?",
        &format!("o-{}@players.test", bot.name),
        "",
    );
    session
        .append("INBOX", open.as_bytes(), Some(opened))
        .await
        .expect("append");
    session.logout().await;

    let mut daemon = bot
        .command(&["run"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run");
    let results = bot
        .wait_for(&bot.list(), 1, |m| m.contains("Ballot 1 result"))
        .await;
    daemon.kill().expect("stop daemon");
    let _ = daemon.wait();
    assert_eq!(results.len(), 1, "the ballot was resolved by the daemon");

    let log: serde_json::Value = serde_json::from_str(&bot.cli(&["log", "--json"])).expect("json");
    let closed = log
        .as_array()
        .expect("log")
        .iter()
        .find(|r| r["event"]["kind"] == "closed")
        .expect("closed event")
        .clone();
    let deadline = opened + jiff::SignedDuration::from_hours(72);
    assert_eq!(
        closed["at"],
        deadline.to_string().as_str(),
        "fired at the deadline itself, not when the bot woke"
    );
}

#[test]
fn item11_a_test_with_servers_of_its_own_starts_them_beside_anything_on_the_old_fixed_ports() {
    // The SMTP-outage test once started its pair on 11143/11025 and failed when
    // anything else held them. Hold them (when free) and start a pair all the same.
    let _held: Vec<std::net::TcpListener> = [11143, 11025]
        .into_iter()
        .filter_map(|port| std::net::TcpListener::bind(("127.0.0.1", port)).ok())
        .collect();
    let own = OwnServers::start("busy-ports", false);
    let servers = own.servers();
    assert!(
        ![11143, 11025].contains(&servers.imap_port)
            && ![11143, 11025].contains(&servers.smtp_port),
        "{} {}",
        servers.imap_port,
        servers.smtp_port
    );
    let mut banner = String::new();
    let stream = std::net::TcpStream::connect(("127.0.0.1", servers.smtp_port)).expect("smtp");
    std::io::BufRead::read_line(&mut std::io::BufReader::new(stream), &mut banner).expect("banner");
    assert!(banner.starts_with("220"), "{banner}");
}
