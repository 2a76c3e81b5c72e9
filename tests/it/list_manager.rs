//! Behind a real list manager: mlmmj from Debian (`apt-get install mlmmj`, done
//! by `.ci/run`) runs the game list in front of the test Postfix, with a subject
//! prefix, a footer and `Precedence: bulk`, as the README's deployment section
//! sets it up. Mail to the list lands in the list's mailbox on the test servers;
//! what the mail server's pipe transport would do with it (hand it to
//! `mlmmj-receive`) the test does, and mlmmj sends each post to its subscribers
//! through the real Postfix. The bot reads its own subscription over IMAP.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::e2e::{ImapBot, is_from_bot};

const MLMMJ_RECEIVE: &str = "/usr/bin/mlmmj-receive";
const MLMMJ_SUB: &str = "/usr/bin/mlmmj-sub";

/// One mlmmj list, in its own spool directory, relaying through the test Postfix.
struct Mlmmj {
    _spool: tempfile::TempDir,
    dir: PathBuf,
    /// Message-IDs of the list's mail already handed to mlmmj.
    relayed: std::cell::RefCell<Vec<String>>,
}

impl Mlmmj {
    /// The README's settings: prefix, footer, the list's headers, and the bot
    /// subscribed and exempt from moderation.
    fn new(bot: &ImapBot, subscribers: &[&str], moderated: bool) -> Mlmmj {
        assert!(
            Path::new(MLMMJ_RECEIVE).exists(),
            "mlmmj is not installed: apt-get install mlmmj (.ci/run does)"
        );
        let spool = tempfile::tempdir().expect("spool");
        let dir = spool.path().join("game");
        for sub in [
            "incoming",
            "queue/discarded",
            "archive",
            "text",
            "subconf",
            "unsubconf",
            "bounce",
            "control",
            "moderation",
            "subscribers.d",
            "digesters.d",
            "requeue",
            "nomailsubs.d",
        ] {
            std::fs::create_dir_all(dir.join(sub)).expect("list dir");
        }
        std::fs::write(dir.join("index"), "").expect("index");
        let control = |name: &str, value: &str| {
            std::fs::write(dir.join("control").join(name), value).expect("control file");
        };
        control("listaddress", &format!("{}\n", bot.list()));
        control("owner", &format!("{}\n", bot.player("owner")));
        control("relayhost", &format!("{}\n", bot.servers.host));
        control("smtpport", &format!("{}\n", bot.servers.smtp_port));
        control("prefix", "[game-list]\n");
        control(
            "footer",
            "-- \nThe game list: https://nomic.example/game-list\n",
        );
        control(
            "customheaders",
            &format!(
                "Precedence: bulk\nList-Id: <game.nomic.example>\nList-Post: <mailto:{}>\n",
                bot.list()
            ),
        );
        if moderated {
            control("moderated", "");
            control("moderators", &format!("{}\n", bot.player("owner")));
            // The README's exemption: the bot's own posts are sent unmoderated.
            control(
                "access",
                &format!("send ^From:.*{}\nallow\n", regex_escape(&bot.bot())),
            );
        }
        for address in subscribers {
            let status = Command::new(MLMMJ_SUB)
                .args(["-L"])
                .arg(&dir)
                .args(["-a", address, "-f", "-q", "-s"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("mlmmj-sub");
            assert!(status.success(), "mlmmj-sub {address}");
        }
        Mlmmj {
            _spool: spool,
            dir,
            relayed: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// What Postfix's pipe transport does with mail for the list
    /// (`flags=ORhu`): it adds Return-Path and X-Original-To, then runs
    /// `mlmmj-receive`, which sends the post to every subscriber.
    fn receive(&self, envelope_from: &str, list: &str, raw: &[u8]) {
        let mut child = Command::new(MLMMJ_RECEIVE)
            .args(["-F", "-L"])
            .arg(&self.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("mlmmj-receive");
        let mut stdin = child.stdin.take().expect("stdin");
        write!(
            stdin,
            "Return-Path: <{envelope_from}>\r\nX-Original-To: {list}\r\n"
        )
        .expect("pipe");
        stdin.write_all(raw).expect("pipe");
        drop(stdin);
        assert!(child.wait().expect("mlmmj-receive").success());
    }

    /// Hands every message that reached the list's mailbox (the bot's
    /// announcements, a player's post sent by SMTP) to mlmmj, once.
    async fn relay(&self, bot: &ImapBot) -> usize {
        let mut handed = 0;
        for message in bot.mailbox_of(&bot.list()).await {
            // mlmmj's own bounces and notices come back to the list's address.
            if message.contains("List-Id: <game.nomic.example>") || !message.contains("Message-ID")
            {
                continue;
            }
            let id = header(&message, "Message-ID").unwrap_or_default();
            if self.relayed.borrow().contains(&id) {
                continue;
            }
            self.relayed.borrow_mut().push(id);
            let from = header(&message, "From").unwrap_or_default();
            let envelope = from
                .rsplit('<')
                .next()
                .unwrap_or(&from)
                .trim_end_matches('>')
                .to_owned();
            // The test servers' own trace headers are the delivery to the list's
            // mailbox, not part of the post.
            let post = message
                .split_once("\r\n")
                .filter(|_| message.starts_with("Return-Path:"))
                .map_or(message.as_str(), |(_, rest)| rest);
            self.receive(&envelope, &bot.list(), post.as_bytes());
            handed += 1;
        }
        handed
    }

    fn held_for_moderation(&self) -> usize {
        std::fs::read_dir(self.dir.join("moderation"))
            .map(|entries| entries.count())
            .unwrap_or(0)
    }
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if ".+*?()[]{}|^$\\".contains(c) {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect()
}

fn header(message: &str, name: &str) -> Option<String> {
    let prefix = format!("{}:", name.to_lowercase());
    message
        .split("\r\n\r\n")
        .next()?
        .lines()
        .find(|line| line.to_lowercase().starts_with(&prefix))
        .map(|line| line[prefix.len()..].trim().to_owned())
}

/// A player's post, as their mail client would write it.
fn post(from: &str, list: &str, subject: &str, id: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: {list}\r\nSubject: {subject}\r\nMessage-ID: <{id}@players.test>\r\n\
         Date: Tue, 24 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{}",
        body.replace('\n', "\r\n")
    )
}

fn bot_with_list_id(bot: &ImapBot) {
    let path = bot.config_path();
    let config = std::fs::read_to_string(&path).expect("config");
    let config = config.replacen("[bot]\n", "[bot]\nlist_id = \"game.nomic.example\"\n", 1);
    std::fs::write(path, config).expect("config");
}

/// Issue 11, the whole flow: players post through mlmmj (prefix, footer,
/// `Precedence: bulk`); the bot applies the posts, answers the players and
/// announces on the list; mlmmj relays the announcement to everyone, the bot
/// included, which keeps its own announcement aside.
#[tokio::test(flavor = "multi_thread")]
async fn posts_through_mlmmj_are_applied_and_announced_through_it() {
    let bot = ImapBot::new("mlmmj");
    bot_with_list_id(&bot);
    let (alice, bob) = (bot.player("alice"), bot.player("bob"));
    let list = Mlmmj::new(&bot, &[&bot.bot(), &alice, &bob], false);

    list.receive(
        &alice,
        &bot.list(),
        post(
            &format!("Alice <{alice}>"),
            &bot.list(),
            "[nomic] join Alice",
            "a1",
            "",
        )
        .as_bytes(),
    );
    let arrived = bot.wait_for(&bot.bot(), 1, |_| true).await;
    assert!(
        arrived[0].contains("Subject: [game-list] [nomic] join Alice")
            && arrived[0].contains("Precedence: bulk")
            && arrived[0].contains("The game list: https://nomic.example/game-list"),
        "mlmmj stamped the post: {}",
        arrived[0]
    );
    let out = bot.cli(&["once"]);
    assert!(
        out.contains("applied 1"),
        "a bulk-stamped post is applied: {out}"
    );
    let state = bot.cli(&["state", "--json"]);
    assert!(state.contains(&alice), "{state}");

    let answers = bot
        .wait_for(&alice, 1, |m| is_from_bot(m) && !m.contains("List-Id:"))
        .await;
    assert_eq!(answers.len(), 1, "alice's private answer: {answers:?}");

    // The bot's announcement went to the list address; mlmmj relays it.
    bot.wait_for(&bot.list(), 1, is_from_bot).await;
    assert_eq!(list.relay(&bot).await, 1);
    let relayed = bot
        .wait_for(&bob, 1, |m| is_from_bot(m) && m.contains("List-Id:"))
        .await;
    assert_eq!(
        relayed.len(),
        1,
        "bob reads the announcement through the list"
    );
    assert!(
        header(&relayed[0], "Subject").is_some_and(|s| s.starts_with("[game-list] [nomic]")),
        "{}",
        relayed[0]
    );
    // The copy that comes back to the bot is its own, and never applied or answered.
    bot.wait_for(&bot.bot(), 2, |_| true).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 0"), "{out}");
    let aside = bot.cli(&["inbox", "--status", "aside"]);
    assert!(aside.contains("the bot's own mail"), "{aside}");

    // A reply under the announcement, through the list, with a command in its body.
    list.receive(
        &bob,
        &bot.list(),
        post(
            &format!("Bob <{bob}>"),
            &bot.list(),
            "Re: [game-list] [nomic] Alice joined the game",
            "b1",
            "join Bob\n",
        )
        .as_bytes(),
    );
    bot.wait_for(&bot.bot(), 3, |_| true).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    let state = bot.cli(&["state", "--json"]);
    assert!(state.contains(&bob), "{state}");
}

/// Issue 11, "Held announcements vanish": on a moderated list the README's
/// `control/access` line lets the bot's announcements through unmoderated,
/// while a player's post waits for the moderators.
#[tokio::test(flavor = "multi_thread")]
async fn held_announcements_vanish_unless_the_bot_is_exempt_from_moderation() {
    let bot = ImapBot::new("mlmmj-mod");
    bot_with_list_id(&bot);
    let (alice, bob) = (bot.player("alice"), bot.player("bob"));
    let list = Mlmmj::new(&bot, &[&bot.bot(), &alice, &bob], true);

    // A player's post is held.
    list.receive(
        &alice,
        &bot.list(),
        post(
            &format!("Alice <{alice}>"),
            &bot.list(),
            "[nomic] join Alice",
            "h1",
            "",
        )
        .as_bytes(),
    );
    assert_eq!(list.held_for_moderation(), 1, "the player's post is held");

    // Alice joins in private; the announcement goes through unmoderated.
    bot.send(&alice, false, "[nomic] join Alice", "h2", "")
        .await;
    bot.wait_for(&bot.bot(), 1, |_| true).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    bot.wait_for(&bot.list(), 1, is_from_bot).await;
    assert_eq!(list.relay(&bot).await, 1);
    assert_eq!(
        list.held_for_moderation(),
        1,
        "the announcement was not held"
    );
    let relayed = bot
        .wait_for(&bob, 1, |m| is_from_bot(m) && m.contains("List-Id:"))
        .await;
    assert_eq!(relayed.len(), 1, "bob reads the announcement: {relayed:?}");
}

/// Mailman 3 core from Debian (`apt-get install mailman3`, done by `.ci/run`),
/// run from a directory of its own with free ports for its REST and LMTP
/// servers, delivering through the test Postfix. Its public-suffix list is the
/// one Debian ships (`publicsuffix`): the machine is offline. Stopped on drop.
struct Mailman {
    dir: tempfile::TempDir,
    list: String,
    rest: u16,
}

impl Mailman {
    fn start(bot: &ImapBot, members: &[&str]) -> Mailman {
        assert!(
            Path::new("/usr/bin/mailman").exists(),
            "Mailman 3 is not installed: apt-get install mailman3 (.ci/run does)"
        );
        let dir = tempfile::tempdir().expect("mailman dir");
        let rest = crate::support::free_port();
        let var = dir.path().join("var");
        std::fs::create_dir_all(&var).expect("var");
        let config = format!(
            "[mailman]\nsite_owner: {owner}\nlayout: here\n\
             [paths.here]\nvar_dir: {var}\npid_file: {var}/master.pid\nbin_dir: /usr/lib/mailman3/bin\n\
             [database]\nclass: mailman.database.sqlite.SQLiteDatabase\nurl: sqlite:///{var}/mailman.db\n\
             [webservice]\nhostname: 127.0.0.1\nport: {rest}\nadmin_user: restadmin\nadmin_pass: restpass\n\
             [mta]\nincoming: mailman.mta.null.NullMTA\noutgoing: mailman.mta.deliver.deliver\n\
             smtp_host: {host}\nsmtp_port: {smtp}\nlmtp_host: 127.0.0.1\nlmtp_port: {lmtp}\n\
             [archiver.prototype]\nenable: no\n[archiver.mhonarc]\nenable: no\n\
             [archiver.mail_archive]\nenable: no\n[runner.nntp]\nclass: mailman.runners.nntp.NNTPRunner\ninstances: 0\n",
            owner = bot.player("owner"),
            var = var.display(),
            rest = rest,
            lmtp = crate::support::free_port(),
            host = bot.servers.host,
            smtp = bot.servers.smtp_port,
        );
        std::fs::write(dir.path().join("mailman.cfg"), config).expect("mailman.cfg");
        // Offline: the cached copy Mailman would download, valid for a month.
        let suffixes = var.join("public_suffix_list.dat");
        std::fs::copy("/usr/share/publicsuffix/public_suffix_list.dat", &suffixes)
            .expect("Debian's public suffix list (package publicsuffix)");
        let month = std::time::SystemTime::now() + std::time::Duration::from_secs(30 * 86400);
        std::fs::File::options()
            .write(true)
            .open(&suffixes)
            .and_then(|file| file.set_modified(month))
            .expect("cache lifetime");
        // The list's settings, as a list owner sets them in Postorius: From
        // munged for DMARC on every post, the prefix, posts from anyone accepted.
        std::fs::write(
            dir.path().join("game_settings.py"),
            "from mailman.interfaces.mailinglist import DMARCMitigateAction\n\
             from mailman.interfaces.action import Action\n\
             def apply(mlist):\n\
             \x20   mlist.dmarc_mitigate_action = DMARCMitigateAction.munge_from\n\
             \x20   mlist.dmarc_mitigate_unconditionally = True\n\
             \x20   mlist.subject_prefix = '[game-list] '\n\
             \x20   mlist.default_member_action = Action.accept\n\
             \x20   mlist.default_nonmember_action = Action.accept\n\
             def moderate_everyone(mlist):\n\
             \x20   mlist.default_member_action = Action.hold\n\
             \x20   mlist.default_nonmember_action = Action.hold\n\
             \x20   for member in mlist.members.members:\n\
             \x20       member.moderation_action = None\n",
        )
        .expect("settings");
        let mailman = Mailman {
            dir,
            list: bot.list(),
            rest,
        };
        // The master stays behind with whatever it inherits: its output goes to
        // a file, not to a pipe this test would wait on for ever.
        let log = std::fs::File::create(mailman.dir.path().join("start.log")).expect("log");
        let started = Command::new("/usr/bin/mailman")
            .arg("-C")
            .arg(mailman.dir.path().join("mailman.cfg"))
            .args(["--run-as-root", "start"])
            .current_dir(mailman.dir.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .status()
            .expect("mailman start");
        assert!(started.success(), "mailman start");
        mailman.run(&["create", &mailman.list]);
        let listed = mailman.dir.path().join("members");
        std::fs::write(&listed, members.join("\n") + "\n").expect("members");
        mailman.run(&[
            "addmembers",
            "--no-welcome-msg",
            &listed.display().to_string(),
            &mailman.list,
        ]);
        mailman.run(&["withlist", "-r", "game_settings.apply", "-l", &mailman.list]);
        mailman
    }

    fn run(&self, args: &[&str]) -> String {
        let output = Command::new("/usr/bin/mailman")
            .arg("-C")
            .arg(self.dir.path().join("mailman.cfg"))
            .arg("--run-as-root")
            .args(args)
            .current_dir(self.dir.path())
            .env("PYTHONPATH", self.dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("mailman");
        assert!(
            output.status.success(),
            "mailman {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// One call to Mailman's REST API, as the README gives it, answered with the
    /// response's body. HTTP/1.0 keeps the reading simple.
    fn rest(&self, method: &str, path: &str, form: &str) -> String {
        use std::io::Read;
        // The REST server is the last of Mailman's runners to come up.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut stream = loop {
            match std::net::TcpStream::connect(("127.0.0.1", self.rest)) {
                Ok(stream) => break stream,
                Err(error) if std::time::Instant::now() > deadline => {
                    panic!("Mailman's REST server never answered: {error}")
                }
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(200)),
            }
        };
        write!(
            stream,
            "{method} {path} HTTP/1.0\r\nHost: localhost\r\n\
             Authorization: Basic cmVzdGFkbWluOnJlc3RwYXNz\r\n\
             Content-Type: application/x-www-form-urlencoded\r\n\
             Content-Length: {}\r\n\r\n{form}",
            form.len()
        )
        .expect("request");
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("response");
        assert!(
            response.starts_with("HTTP/1.0 2") || response.starts_with("HTTP/1.1 2"),
            "{method} {path}: {response}"
        );
        response
            .split_once("\r\n\r\n")
            .map_or(String::new(), |(_, body)| body.to_owned())
    }

    /// The README's exemption: `PATCH /3.1/members/<id>` with
    /// `moderation_action=accept` for the bot's subscription.
    fn exempt(&self, address: &str) {
        let found = self.rest(
            "GET",
            &format!(
                "/3.1/members/find?list_id={}&subscriber={address}",
                self.list.replace('@', ".")
            ),
            "",
        );
        let link = found
            .split("\"self_link\": \"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("the bot's member link");
        let path = link.split_once("/3.1/").map_or(link, |(_, path)| path);
        self.rest("PATCH", &format!("/3.1/{path}"), "moderation_action=accept");
    }

    /// How many posts wait for a moderator.
    fn held(&self) -> usize {
        let body = self.rest(
            "GET",
            &format!("/3.1/lists/{}/held", self.list.replace('@', ".")),
            "",
        );
        body.split("\"total_size\": ")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    /// Changes the list's settings as its owner would: `body` is the Python of a
    /// function of the list, `mlist`, run by `mailman withlist`.
    fn settle(&self, name: &str, body: &str) {
        std::fs::write(
            self.dir.path().join(format!("{name}.py")),
            format!(
                "from mailman.interfaces.mailinglist import DMARCMitigateAction, ReplyToMunging\n\
                 def apply(mlist):\n{}",
                body.lines()
                    .map(|line| format!("    {line}\n"))
                    .collect::<String>()
            ),
        )
        .expect("settings");
        self.run(&["withlist", "-r", &format!("{name}.apply"), "-l", &self.list]);
    }

    /// Hands every announcement of the bot that reached the list's mailbox to
    /// Mailman, once (`relayed`: the Message-IDs handed so far).
    async fn relay(&self, bot: &ImapBot, relayed: &mut Vec<String>) -> usize {
        let mut handed = 0;
        for message in bot.mailbox_of(&bot.list()).await {
            let id = header(&message, "Message-ID").unwrap_or_default();
            if !is_from_bot(&message) || relayed.contains(&id) {
                continue;
            }
            relayed.push(id);
            self.post(&as_posted(&message));
            handed += 1;
        }
        handed
    }

    /// What Postfix's LMTP delivery to Mailman does: the post enters the list's
    /// incoming queue.
    fn post(&self, raw: &str) {
        let file = self.dir.path().join("post.eml");
        std::fs::write(&file, raw).expect("post");
        self.run(&["inject", "-f", &file.display().to_string(), &self.list]);
    }
}

impl Drop for Mailman {
    fn drop(&mut self) {
        let _ = Command::new("/usr/bin/mailman")
            .arg("-C")
            .arg(self.dir.path().join("mailman.cfg"))
            .args(["--run-as-root", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// A reply-all as Thunderbird writes it: To the list, Cc the player answered,
/// In-Reply-To and References the post answered.
fn reply_all(
    from: &str,
    list: &str,
    cc: &str,
    subject: &str,
    id: &str,
    parent: &str,
    body: &str,
) -> String {
    post(from, list, subject, id, body).replacen(
        "Subject: ",
        &format!("Cc: {cc}\r\nIn-Reply-To: <{parent}>\r\nReferences: <{parent}>\r\nSubject: "),
        1,
    )
}

/// What Postfix hands the list of a message that reached the list's mailbox:
/// the message without the delivery's own trace headers.
fn as_posted(message: &str) -> String {
    message
        .split_once("\r\n\r\n")
        .map(|(head, body)| {
            let head: Vec<&str> = head
                .split("\r\n")
                .filter(|line| {
                    !line.starts_with("Return-Path:") && !line.starts_with("Delivered-To:")
                })
                .collect();
            format!("{}\r\n\r\n{body}", head.join("\r\n"))
        })
        .expect("a message")
}

/// Sets `[list] reply_to` in the bot's config (`None`: takes it out).
fn bot_list_reply_to(bot: &ImapBot, reply_to: Option<&str>) {
    let config = std::fs::read_to_string(bot.config_path()).expect("config");
    let config = match config.split_once("\n[list]\n") {
        Some((before, _)) => format!("{before}\n"),
        None => config,
    };
    let config = match reply_to {
        Some(address) => format!("{config}\n[list]\nreply_to = \"{address}\"\n"),
        None => config,
    };
    std::fs::write(bot.config_path(), config).expect("config");
}

/// Issues 11 and 29 behind one Mailman 3 list, with its DMARC mitigation as a
/// list owner sets it, each post as a mail client writes it:
/// - `munge_from`, no Reply-To of the list's: a post with no Reply-To of its
///   own is credited to its author; one whose own Reply-To names Bob is
///   credited to nobody, and only the moderators are told (issue 11);
/// - a reply-all (To the list, Cc Bob) is credited to its author, whom Mailman
///   put in Reply-To (issue 29 item 2);
/// - a ballot closed early by a moderator in private: its announcements reach
///   the members through the list with the time it closed, under the ballot's
///   thread (item 6, issue 29 item 4 of this part);
/// - `reply_goes_to_list = explicit_header` with `[list] reply_to`: a post is
///   credited to the author Mailman put in Cc; a reply-all, whose Cc names Bob
///   before the author, to nobody, and only the moderators are told (item 3);
/// - `wrap_message`: the post inside is read, its author, body and Message-ID
///   (the answer threads under it, the copy sent to the bot directly is a
///   duplicate), and the bot's own announcement coming back wrapped is kept
///   aside as its own (item 1).
#[tokio::test(flavor = "multi_thread")]
async fn posts_through_mailman_are_credited_as_its_dmarc_mitigation_places_the_author() {
    let bot = ImapBot::new("mailman");
    bot_with_list_id(&bot);
    let (dave, bob, moderator) = (bot.player("dave"), bot.player("bob"), bot.player("mod"));
    let discuss = bot.player("discuss");
    let mailman = Mailman::start(&bot, &[&bot.bot(), &bob]);
    let list_id = format!("<{}>", bot.list().replace('@', "."));
    let config = std::fs::read_to_string(bot.config_path()).expect("config");
    std::fs::write(
        bot.config_path(),
        config.replace(
            "list_id = \"game.nomic.example\"",
            &format!("list_id = \"{}\"", bot.list().replace('@', ".")),
        ),
    )
    .expect("config");
    let arrived_to_bot = |id: &'static str| {
        let bot = &bot;
        async move {
            let arrived = bot.wait_for(&bot.bot(), 1, |m| m.contains(id)).await;
            assert_eq!(arrived.len(), 1, "Mailman delivered {id} to the bot");
            arrived[0].replace("\r\n ", " ").replace("\r\n\t", " ")
        }
    };
    let notices_to = |address: String| {
        let bot = &bot;
        async move {
            bot.mailbox_of(&address)
                .await
                .into_iter()
                .filter(|m| is_from_bot(m) && m.contains("possible authors"))
                .count()
        }
    };
    let names = || -> Vec<String> {
        let state: serde_json::Value =
            serde_json::from_str(&bot.cli(&["state", "--json"])).expect("state");
        state["players"]["players"]
            .as_array()
            .expect("players")
            .iter()
            .filter_map(|player| player["name"].as_str().map(str::to_owned))
            .collect()
    };

    // munge_from: Dave's post, with no Reply-To of his own.
    mailman.post(&post(
        &format!("Dave <{dave}>"),
        &bot.list(),
        "[nomic] join Dave",
        "mm-join",
        "",
    ));
    let arrived = arrived_to_bot("mm-join").await;
    assert!(
        arrived.contains(&format!("Reply-To: Dave <{dave}>"))
            && arrived.contains(&format!("List-Id: {list_id}")),
        "{arrived}"
    );
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    assert_eq!(names(), ["Dave"]);

    // Dave's own Reply-To names Bob; Mailman appends Dave after it.
    mailman.post(
        &post(
            &format!("Dave <{dave}>"),
            &bot.list(),
            "[nomic] rename Bobby",
            "mm-rename",
            "",
        )
        .replacen("To: ", &format!("Reply-To: {bob}\r\nTo: "), 1),
    );
    let arrived = arrived_to_bot("mm-rename").await;
    assert!(
        arrived.contains(&format!("Reply-To: {bob}, Dave <{dave}>")),
        "Mailman's munging as read from its source: {arrived}"
    );
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 0"), "credited to nobody: {out}");
    assert_eq!(names(), ["Dave"], "nobody was renamed");
    let told = bot
        .wait_for(&moderator, 1, |m| {
            is_from_bot(m) && m.contains("possible authors")
        })
        .await;
    assert_eq!(told.len(), 1, "the moderator is told");
    assert!(told[0].contains("rename Bobby"), "{}", told[0]);
    assert_eq!(
        notices_to(dave.clone()).await,
        0,
        "Dave may not have written it"
    );
    assert_eq!(
        notices_to(bob.clone()).await,
        0,
        "Bob, named in it, is not told"
    );

    // Item 2: Bob joins in private; Dave answers Bob's post with reply-all.
    bot.send(&bob, false, "[nomic] join Bob", "mm-bob", "")
        .await;
    bot.wait_for(&bot.bot(), 1, |m| m.contains("mm-bob")).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    mailman.post(&reply_all(
        &format!("Dave <{dave}>"),
        &bot.list(),
        &format!("Bob <{bob}>"),
        "Re: [game-list] [nomic] join Bob",
        "mm-reply-all",
        &format!("mm-bob-{}@players.test", bot.name),
        "rename Davy\n\nOn 24/11/2026 10:00, Bob wrote:\n> join Bob\n",
    ));
    let arrived = arrived_to_bot("mm-reply-all").await;
    assert!(
        arrived.contains(&format!("Reply-To: Dave <{dave}>"))
            && arrived
                .to_lowercase()
                .contains(&format!("\r\ncc: bob <{bob}>")),
        "{arrived}"
    );
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    assert_eq!(names(), ["Davy", "Bob"], "credited to Dave, not to Bob");
    assert_eq!(notices_to(moderator.clone()).await, 1, "no new notice");

    // Item 6 through the list: a moderator opens a ballot and closes it early,
    // both in private; the members read the announcements through Mailman.
    let mut relayed = Vec::new();
    bot.send(&moderator, false, "[vote] open Shall we?", "mm-open", "")
        .await;
    bot.wait_for(&bot.bot(), 1, |m| m.contains("mm-open")).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    bot.wait_for(&bot.list(), 1, |m| is_from_bot(m) && m.contains("[vote]"))
        .await;
    let opened: Vec<String> = bot
        .mailbox_of(&bot.list())
        .await
        .iter()
        .filter(|m| is_from_bot(m) && m.contains("[vote]"))
        .filter_map(|m| header(m, "Message-ID"))
        .collect();
    assert!(!opened.is_empty());
    mailman.relay(&bot, &mut relayed).await;
    bot.send(&dave, false, "[vote] yes", "mm-vote", "").await;
    bot.wait_for(&bot.bot(), 1, |m| m.contains("mm-vote")).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    bot.send(
        &moderator,
        false,
        "[vote] close 1 because we agree",
        "mm-close",
        "",
    )
    .await;
    bot.wait_for(&bot.bot(), 1, |m| m.contains("mm-close"))
        .await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    let closing = bot
        .wait_for(&bot.list(), opened.len() + 3, |m| {
            is_from_bot(m) && m.contains("[vote]")
        })
        .await;
    assert_eq!(
        closing.len(),
        opened.len() + 3,
        "commitments, reveal and result"
    );
    mailman.relay(&bot, &mut relayed).await;
    let read_by_bob: Vec<String> = bot
        .wait_for(&bob, opened.len() + 3, |m| {
            is_from_bot(m) && m.contains("List-Id:") && m.contains("[vote]")
        })
        .await
        .into_iter()
        .filter(|m| !header(m, "Message-ID").is_some_and(|id| opened.contains(&id)))
        .collect();
    assert_eq!(read_by_bob.len(), 3, "{read_by_bob:?}");
    let close_id = format!("<mm-close-{}@players.test>", bot.name);
    for mail in &read_by_bob {
        let unfolded = mail.replace("\r\n ", " ").replace("\r\n\t", " ");
        let references = header(&unfolded, "References").unwrap_or_default();
        assert!(
            opened.iter().any(|id| references.contains(id.as_str()))
                && !references.contains(&close_id),
            "under the ballot's thread, not the moderator's private mail: {mail}"
        );
    }
    for mail in &read_by_bob[..2] {
        assert!(
            mail.contains("closed at ") && mail.contains(", before"),
            "{mail}"
        );
    }

    // Item 3: the list writes its own Reply-To (a discussion list), and the
    // bot is told so; Mailman puts the author in Cc.
    mailman.settle(
        "explicit",
        &format!(
            "mlist.reply_goes_to_list = ReplyToMunging.explicit_header\nmlist.reply_to_address = '{discuss}'"
        ),
    );
    bot_list_reply_to(&bot, Some(&discuss));
    mailman.post(&post(
        &format!("Dave <{dave}>"),
        &bot.list(),
        "[nomic] rename Dave",
        "mm-explicit",
        "",
    ));
    let arrived = arrived_to_bot("mm-explicit").await;
    assert!(
        arrived.contains(&format!("Reply-To: {discuss}"))
            && arrived
                .to_lowercase()
                .contains(&format!("\r\ncc: dave <{dave}>")),
        "{arrived}"
    );
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    assert_eq!(names(), ["Dave", "Bob"]);
    // A reply-all: Cc Bob, then Dave, whom Mailman added. Bob posting with
    // `Cc: Bob, Dave` would read the same, so nobody is credited.
    mailman.post(&reply_all(
        &format!("Dave <{dave}>"),
        &bot.list(),
        &format!("Bob <{bob}>"),
        "Re: [game-list] [nomic] join Bob",
        "mm-explicit-all",
        &format!("mm-bob-{}@players.test", bot.name),
        "rename Bobby\n",
    ));
    arrived_to_bot("mm-explicit-all").await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 0"), "{out}");
    assert_eq!(names(), ["Dave", "Bob"]);
    let told = bot
        .wait_for(&moderator, 2, |m| {
            is_from_bot(m) && m.contains("possible authors")
        })
        .await;
    assert_eq!(told.len(), 2, "the moderator is told again");
    assert_eq!(notices_to(bob.clone()).await, 0);
    assert_eq!(notices_to(dave.clone()).await, 0);

    // Item 1: Mailman wraps every post in a message of its own.
    mailman.settle(
        "wrap",
        "mlist.reply_goes_to_list = ReplyToMunging.no_munging\nmlist.dmarc_mitigate_action = DMARCMitigateAction.wrap_message",
    );
    bot_list_reply_to(&bot, None);
    let wrapped_post = reply_all(
        &format!("Dave <{dave}>"),
        &bot.list(),
        &format!("Bob <{bob}>"),
        "Re: [game-list] [nomic] join Bob",
        "mm-wrap",
        &format!("mm-bob-{}@players.test", bot.name),
        "rename Davide\n\nOn 24/11/2026 10:00, Bob wrote:\n> join Bob\n",
    );
    mailman.post(&wrapped_post);
    let arrived = arrived_to_bot("mm-wrap").await;
    assert!(
        arrived.contains("Content-Type: message/rfc822")
            && !header(&arrived, "Message-ID")
                .unwrap_or_default()
                .contains("mm-wrap"),
        "Mailman's wrapper: {arrived}"
    );
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    assert_eq!(names(), ["Davide", "Bob"]);
    let answers = bot
        .wait_for(&dave, 1, |m| {
            is_from_bot(m) && m.contains("Davide") && !m.contains("List-Id:")
        })
        .await;
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(
        header(&answers[0], "In-Reply-To").as_deref(),
        Some("<mm-wrap@players.test>")
    );
    // The same post, sent to the bot directly too: the same message.
    bot.smtp()
        .send(&dave, &[bot.bot()], wrapped_post.as_bytes())
        .await
        .expect("smtp");
    bot.wait_for(&bot.bot(), 2, |m| m.contains("mm-wrap")).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 0"), "{out}");
    let duplicates = bot.cli(&["inbox", "--status", "duplicate"]);
    assert!(
        duplicates.contains("<mm-wrap@players.test>"),
        "{duplicates}"
    );
    // The bot's announcement of the rename comes back wrapped: its own. On a
    // busy machine an earlier announcement may come back in the same relay:
    // every one of them is the bot's own, and none is applied.
    assert!(mailman.relay(&bot, &mut relayed).await >= 1);
    let back = bot
        .wait_for(&bot.bot(), 1, |m| {
            m.contains("Content-Type: message/rfc822") && is_from_bot(m)
        })
        .await;
    assert!(!back.is_empty(), "the announcement came back wrapped");
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 0"), "{out}");
    assert_eq!(names(), ["Davide", "Bob"]);
}

/// The corpus of real list mail under `tests/corpus/lists/`: what Mailman 3 and
/// mlmmj from Debian made of players' posts in the tests above, with the
/// addresses renamed to the shipped config's.
fn list_corpus(name: &str) -> String {
    let path = crate::support::repo_root()
        .join("tests/corpus/lists")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn shipped_bot() -> crate::support::LocalBot {
    crate::support::LocalBot::with_config(&crate::support::trusting().replace(
        "# list_id = \"game-list.nomic.example\"",
        "list_id = \"game-list.nomic.example\"",
    ))
}

/// Issue 11 item 1, from Mailman 3's own output: `From: Dave via Game-list`
/// with `Reply-To: bob@..., Dave <dave@...>` renames nobody (Bob least of
/// all). Issue 29 item 2: only the moderators are told why, never an address
/// the post named, which may be a third player's that the poster wrote.
#[test]
fn a_munged_post_is_credited_to_another_player_no_more() {
    let bot = crate::support::LocalBot::with_config(
        &crate::support::trusting()
            .replace(
                "# list_id = \"game-list.nomic.example\"",
                "list_id = \"game-list.nomic.example\"",
            )
            .replacen("moderators = []", "moderators = [\"mod@nomic.example\"]", 1),
    );
    let t0 = crate::support::at("2026-11-24T10:00:00Z");
    bot.deliver("join-dave", &list_corpus("mailman3-munged.eml"), t0);
    bot.deliver(
        "join-bob",
        &crate::support::message(
            "bob@nomic.example",
            "game-list@nomic.example",
            "[nomic] join Bob",
            "join-bob@players.test",
            "",
        ),
        t0 + jiff::SignedDuration::from_mins(1),
    );
    bot.deliver(
        "rename",
        &list_corpus("mailman3-munged-with-own-reply-to.eml"),
        t0 + jiff::SignedDuration::from_mins(2),
    );
    bot.once(t0 + jiff::SignedDuration::from_mins(3));
    let state = bot.state_json();
    assert!(
        crate::support::player_id(&state, "Dave").is_number(),
        "Dave, alone in Reply-To, joined: {state}"
    );
    assert!(crate::support::player_id(&state, "Bob").is_number());
    assert!(
        !state["players"].to_string().contains("Bobby"),
        "nobody renamed: {state}"
    );
    let notices: Vec<_> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.body.contains("possible authors"))
        .collect();
    assert_eq!(notices.len(), 1, "{notices:#?}");
    assert!(notices[0].is_to("mod@nomic.example"), "{}", notices[0].raw);
    assert!(
        notices[0].body.contains("rename Bobby"),
        "{}",
        notices[0].body
    );
    assert!(
        notices[0]
            .body
            .contains("bob@nomic.example, dave@nomic.example"),
        "{}",
        notices[0].body
    );
    let aside = bot.inbox_with_status("aside");
    assert!(aside.contains("cannot be told"), "{aside}");
}

/// Issue 29 item 1, from Mailman 3's own output with `wrap_message` (and its
/// footer, which makes the wrapper multipart/mixed): Dave's reply-all inside
/// is read, credited to him and answered under its own Message-ID; the same
/// post sent to the bot directly is the same message; the bot's announcement
/// coming back wrapped is its own.
#[test]
fn a_wrapped_post_is_read_from_the_post_inside() {
    let bot = shipped_bot();
    let t0 = crate::support::at("2026-11-24T10:00:00Z");
    bot.deliver("join-dave", &list_corpus("mailman3-munged.eml"), t0);
    bot.deliver(
        "join-bob",
        &crate::support::message(
            "bob@nomic.example",
            "game-list@nomic.example",
            "[nomic] join Bob",
            "join-bob@players.test",
            "",
        ),
        t0 + jiff::SignedDuration::from_mins(1),
    );
    let wrapped = list_corpus("mailman3-wrapped.eml");
    assert!(wrapped.contains("Content-Type: message/rfc822"));
    bot.deliver("wrapped", &wrapped, t0 + jiff::SignedDuration::from_mins(2));
    // What Dave's client sent to the bot itself: the post inside.
    let inside = wrapped
        .split("Content-Disposition: inline\n\n")
        .nth(1)
        .and_then(|rest| rest.split("\n--=").next())
        .expect("the post inside");
    assert!(
        inside.starts_with("From: Dave <dave@nomic.example>"),
        "{inside}"
    );
    bot.deliver("direct", inside, t0 + jiff::SignedDuration::from_mins(3));
    bot.deliver(
        "own",
        &list_corpus("mailman3-wrapped-own.eml"),
        t0 + jiff::SignedDuration::from_mins(4),
    );
    bot.once(t0 + jiff::SignedDuration::from_mins(5));
    let state = bot.state_json();
    assert!(
        state["players"].to_string().contains("Davide"),
        "Dave renamed himself: {state}"
    );
    let answers: Vec<_> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to("dave@nomic.example") && m.body.contains("Davide"))
        .collect();
    assert_eq!(answers.len(), 1, "{answers:#?}");
    assert_eq!(
        answers[0].in_reply_to.as_deref(),
        Some("mm-wrap@players.test")
    );
    assert!(
        answers[0]
            .references
            .iter()
            .any(|r| r == "join-bob@players.test"),
        "{}",
        answers[0].raw
    );
    let duplicates = bot.inbox_with_status("duplicate");
    assert!(
        duplicates.contains("<mm-wrap@players.test>"),
        "{duplicates}"
    );
    let aside = bot.inbox_with_status("aside");
    assert!(aside.contains("the bot's own mail"), "{aside}");
    assert!(
        bot.sent_mail()
            .iter()
            .all(|m| !m.is_to("bot@nomic.example")),
        "nothing answers the bot"
    );
}

/// Issue 29 item 3: `nomicbot check` warns when `[list] reply_to` looks
/// wrong (here: the bot's own address), and is quiet when it looks right.
#[test]
fn check_warns_when_the_lists_reply_to_looks_wrong() {
    let with = |reply_to: &str| {
        crate::support::LocalBot::with_config(&crate::support::trusting().replacen(
            "[list]\n",
            &format!("[list]\nreply_to = \"{reply_to}\"\n"),
            1,
        ))
        .cli_ok(&["check"])
    };
    let wrong = with("bot@nomic.example");
    assert!(
        wrong.contains("WARNING: [list] reply_to = \"bot@nomic.example\" is the bot's own address"),
        "{wrong}"
    );
    let right = with("discuss@nomic.example");
    assert!(!right.contains("reply_to"), "{right}");
}

/// Issue 11 item 2, from mlmmj's own output (`Precedence: bulk` in its
/// customheaders, the prefix, the footer): the post is read and applied.
#[test]
fn a_list_that_stamps_precedence_bulk_is_ignored_whole_no_more() {
    let bot = shipped_bot();
    let t0 = crate::support::at("2026-11-24T10:00:00Z");
    let post = list_corpus("mlmmj-precedence-bulk.eml");
    assert!(post.contains("Precedence: bulk"));
    bot.deliver("mlmmj", &post, t0);
    bot.once(t0 + jiff::SignedDuration::from_mins(1));
    let state = bot.state_json();
    assert!(
        crate::support::player_id(&state, "Alice").is_number(),
        "{state}"
    );
}

/// Issue 11, "Held announcements vanish", behind Mailman 3 with every member
/// moderated: the README's REST call exempts the bot, whose announcement then
/// reaches the members at once, while a player's post waits for a moderator.
#[tokio::test(flavor = "multi_thread")]
async fn held_announcements_vanish_unless_mailman_exempts_the_bot() {
    let bot = ImapBot::new("mailman-mod");
    let (alice, bob) = (bot.player("alice"), bot.player("bob"));
    let mailman = Mailman::start(&bot, &[&bot.bot(), &alice, &bob]);
    mailman.run(&[
        "withlist",
        "-r",
        "game_settings.moderate_everyone",
        "-l",
        &mailman.list,
    ]);
    mailman.exempt(&bot.bot());

    mailman.post(&post(
        &format!("Alice <{alice}>"),
        &bot.list(),
        "[nomic] join Alice",
        "mod-1",
        "",
    ));
    // Alice joins in private; the bot announces on the list.
    bot.send(&alice, false, "[nomic] join Alice", "mod-2", "")
        .await;
    bot.wait_for(&bot.bot(), 1, |m| m.contains("mod-2")).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    let announcement = bot.wait_for(&bot.list(), 1, is_from_bot).await;
    assert_eq!(announcement.len(), 1);
    // What Postfix would hand Mailman: the announcement, as it reached the list.
    let raw = announcement[0]
        .split_once("\r\n\r\n")
        .map(|(head, body)| {
            let head: Vec<&str> = head
                .split("\r\n")
                .filter(|line| {
                    !line.starts_with("Return-Path:") && !line.starts_with("Delivered-To:")
                })
                .collect();
            format!("{}\r\n\r\n{body}", head.join("\r\n"))
        })
        .expect("a message");
    mailman.post(&raw);
    let relayed = bot
        .wait_for(&bob, 1, |m| is_from_bot(m) && m.contains("List-Id:"))
        .await;
    assert_eq!(relayed.len(), 1, "bob reads the announcement at once");
    assert_eq!(mailman.held(), 1, "only the player's post waits");
}

/// Issue 29, items 4, 5 and 7 through mlmmj: a German Outlook reply and a
/// mutt reply with its `* NAME <ADDRESS> [DATE]:` attribution, both quoting
/// Alice's command post, apply only the replier's own line; neither is answered
/// "Not understood", and each answer keeps the subject `Re: [nomic] rename`.
#[tokio::test(flavor = "multi_thread")]
async fn replies_in_other_languages_through_mlmmj_apply_only_the_repliers_lines() {
    let bot = ImapBot::new("mlmmj-replies");
    bot_with_list_id(&bot);
    let (alice, bob) = (bot.player("alice"), bot.player("bob"));
    let list = Mlmmj::new(&bot, &[&bot.bot(), &alice, &bob], false);
    let mut arrived = 0;
    let mut through_list = |from: &str, name: &str, subject: &str, id: &str, body: &str| {
        list.receive(
            from,
            &bot.list(),
            post(&format!("{name} <{from}>"), &bot.list(), subject, id, body).as_bytes(),
        );
        arrived += 1;
        arrived
    };
    through_list(&alice, "Alice Example", "[nomic] join Alice", "r1", "");
    let count = through_list(&bob, "Bob Example", "[nomic] join Bob", "r2", "");
    bot.wait_for(&bot.bot(), count, |_| true).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 2"), "{out}");
    let count = through_list(
        &alice,
        "Alice Example",
        "[nomic] rename",
        "r3",
        "rename Alicia\n",
    );
    bot.wait_for(&bot.bot(), count, |_| true).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");

    let outlook = format!(
        "rename Bobby\n\n-----Ursprüngliche Nachricht-----\nVon: Alice Example <{alice}>\n\
         Gesendet: Dienstag, 24. November 2026 10:00\nAn: {list_address}\n\
         Betreff: [game-list] [nomic] rename\n\nrename Alicia\n",
        list_address = bot.list()
    );
    let count = through_list(
        &bob,
        "Bob Example",
        "AW: [game-list] [nomic] rename",
        "r4",
        &outlook,
    );
    bot.wait_for(&bot.bot(), count, |_| true).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");
    let mutt = format!(
        "* Alice Example <{alice}> [2026-11-24 10:00]:\n> rename Alicia\n\nrename Robert\n"
    );
    let count = through_list(
        &bob,
        "Bob Example",
        "Re: [game-list] [nomic] rename",
        "r5",
        &mutt,
    );
    bot.wait_for(&bot.bot(), count, |_| true).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{out}");

    let state: serde_json::Value =
        serde_json::from_str(&bot.cli(&["state", "--json"])).expect("state");
    let names: Vec<&str> = state["players"]["players"]
        .as_array()
        .expect("players")
        .iter()
        .filter_map(|player| player["name"].as_str())
        .collect();
    assert_eq!(names, ["Alicia", "Robert"], "{state}");
    // Bob's private answers to his two replies.
    let answers = bot
        .wait_for(&bob, 2, |m| {
            is_from_bot(m)
                && !m.contains("List-Id:")
                && header(m, "Subject").is_some_and(|s| s.contains("rename"))
        })
        .await;
    assert_eq!(answers.len(), 2, "{answers:?}");
    for answer in &answers {
        assert_eq!(
            header(answer, "Subject").as_deref(),
            Some("Re: [nomic] rename"),
            "{answer}"
        );
        assert!(!answer.contains("Not understood"), "{answer}");
        assert!(!answer.contains("Alicia"), "{answer}");
    }
}
