//! End-to-end tests of the IMAP and SMTP adapters against the real Dovecot and
//! Postfix of `../shared/mailtest/`. Each test uses its own mailbox user, named
//! after the test and the run, so the tests run in parallel and never see mail
//! left over from an earlier run.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use nomicbot::config::{ImapConfig, SmtpConfig, Tls};
use nomicbot::mail::imap::{self, Fetched, Inbound, Wake};
use nomicbot::mail::smtp::{self, Outbound};

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: run through .ci/run or eval \"$(../shared/mailtest/start)\" first"
        )
    })
}

/// The mail servers' address and password, from the environment.
#[derive(Clone)]
struct Servers {
    host: String,
    imap_port: u16,
    smtp_port: u16,
    password: String,
    domain: String,
}

impl Servers {
    fn plain() -> Servers {
        Servers {
            host: env("MAILTEST_HOST"),
            imap_port: port(&env("MAILTEST_IMAP_PORT")),
            smtp_port: port(&env("MAILTEST_SMTP_PORT")),
            password: env("MAILTEST_PASSWORD"),
            domain: std::env::var("MAILTEST_DOMAIN").unwrap_or_else(|_| "example.test".into()),
        }
    }

    fn imap(&self, user: &str, mailbox: &str) -> ImapConfig {
        ImapConfig {
            host: self.host.clone(),
            port: self.imap_port,
            user: user.to_owned(),
            password: None,
            password_file: None,
            tls: Tls::None,
            ca_file: None,
            mailbox: mailbox.to_owned(),
            poll_seconds: 1,
        }
    }

    fn smtp(&self) -> SmtpConfig {
        SmtpConfig {
            host: self.host.clone(),
            port: self.smtp_port,
            user: None,
            password: None,
            password_file: None,
            tls: Tls::None,
            ca_file: None,
            retry_max_seconds: 60,
        }
    }

    fn address(&self, user: &str) -> String {
        format!("{user}@{}", self.domain)
    }
}

fn port(text: &str) -> u16 {
    text.parse()
        .unwrap_or_else(|_| panic!("{text:?} is not a port number"))
}

/// A local part no other test and no earlier run uses.
fn unique_user(test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_nanos();
    format!("bot-transport-{test}-{}-{nanos}", std::process::id())
}

fn message(from: &str, to: &str, subject: &str, token: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\n\
         Message-ID: <{token}@example.test>\r\nDate: Mon, 01 Jan 2024 00:00:00 +0000\r\n\
         \r\nbody {token}\r\n"
    )
    .into_bytes()
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

/// Polls until at least `count` messages above `last_uid` are there: delivery
/// through Postfix and LMTP takes a few milliseconds after SMTP says 250.
async fn fetch_until(inbound: &mut Inbound, last_uid: u32, count: usize) -> Vec<Fetched> {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let fetched = inbound.fetch_after(last_uid).await.expect("fetch_after");
        if fetched.len() >= count || Instant::now() > deadline {
            return fetched;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn smtp_send_is_fetched_with_its_internaldate_and_nothing_after_it() {
    let servers = Servers::plain();
    let user = unique_user("send");
    let mut inbound = Inbound::connect(&servers.imap(&user, "INBOX"), &servers.password)
        .await
        .expect("connect");
    assert!(
        inbound
            .fetch_after(0)
            .await
            .expect("fetch_after")
            .is_empty()
    );
    assert!(!inbound.has_after(0).await.expect("has_after"));

    let outbound = Outbound::new(&servers.smtp(), None).expect("outbound");
    let to = servers.address(&user);
    let before = jiff::Timestamp::now();
    outbound
        .send(
            "alice@example.test",
            std::slice::from_ref(&to),
            &message("alice@example.test", &to, "[ping] hello", "send-token"),
        )
        .await
        .expect("send");
    let after = jiff::Timestamp::now();

    let fetched = fetch_until(&mut inbound, 0, 1).await;
    assert_eq!(fetched.len(), 1, "one message delivered");
    let mail = &fetched[0];
    assert!(contains(&mail.raw, "Subject: [ping] hello"));
    assert!(contains(&mail.raw, "body send-token"));
    // INTERNALDATE is the delivery time (whole seconds), not the Date: header
    // of 2024.
    let slack = jiff::SignedDuration::from_secs(2);
    assert!(
        mail.internal_date >= before - slack && mail.internal_date <= after + slack,
        "internaldate {} not between {before} and {after}",
        mail.internal_date
    );

    // `UID FETCH n:*` with n above the highest UID still answers with the highest
    // message; fetch_after must not hand it back again.
    assert!(
        inbound
            .fetch_after(mail.uid)
            .await
            .expect("fetch_after")
            .is_empty()
    );
    assert!(
        inbound
            .fetch_after(mail.uid + 100)
            .await
            .expect("fetch_after")
            .is_empty()
    );
    assert!(!inbound.has_after(mail.uid).await.expect("has_after"));
    assert!(inbound.has_after(mail.uid - 1).await.expect("has_after"));

    // BODY.PEEK[] left the message unread; mark_seen flags it. Maildir keeps the
    // flags in the file name (`...:2,S`), which is what we look at.
    if let Ok(root) = std::env::var("MAILTEST_MAILDIR_ROOT") {
        let maildir = PathBuf::from(root).join(&user).join("Maildir");
        assert_eq!(
            seen_files(&maildir),
            0,
            "fetch_after must not mark anything read"
        );
        inbound.mark_seen(&[mail.uid]).await.expect("mark_seen");
        assert_eq!(seen_files(&maildir), 1, "mark_seen flags the message");
    } else {
        inbound.mark_seen(&[mail.uid]).await.expect("mark_seen");
    }
    inbound.mark_seen(&[]).await.expect("mark_seen of nothing");
    inbound.logout().await;
}

fn seen_files(maildir: &std::path::Path) -> usize {
    ["cur", "new"]
        .iter()
        .filter_map(|folder| std::fs::read_dir(maildir.join(folder)).ok())
        .flatten()
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.rsplit_once(":2,")
                .is_some_and(|(_, flags)| flags.contains('S'))
        })
        .count()
}

#[tokio::test]
async fn appended_messages_keep_their_internaldate_and_uid_order() {
    let servers = Servers::plain();
    let user = unique_user("append");
    let cfg = servers.imap(&user, "INBOX");
    let mut inbound = Inbound::connect(&cfg, &servers.password)
        .await
        .expect("connect");
    // A single-digit day checks that the date parser copes with the space or
    // zero IMAP pads it with.
    let dates: Vec<jiff::Timestamp> = [
        "2024-01-05T09:08:07Z",
        "2023-12-31T23:59:59Z",
        "2024-02-29T12:00:00Z",
    ]
    .iter()
    .map(|text| text.parse().expect("timestamp"))
    .collect();
    for (n, date) in dates.iter().enumerate() {
        let raw = message(
            "bob@example.test",
            "bot@example.test",
            "[vote] yes",
            &format!("a{n}"),
        );
        inbound
            .append("INBOX", &raw, Some(*date))
            .await
            .expect("append");
    }
    let fetched = inbound.fetch_after(0).await.expect("fetch_after");
    assert_eq!(fetched.len(), 3);
    for (n, mail) in fetched.iter().enumerate() {
        assert_eq!(mail.internal_date, dates[n], "message {n}");
        assert!(contains(&mail.raw, &format!("body a{n}")));
    }
    let uids: Vec<u32> = fetched.iter().map(|mail| mail.uid).collect();
    assert!(uids.windows(2).all(|pair| pair[0] < pair[1]), "{uids:?}");

    let after_first = inbound.fetch_after(uids[0]).await.expect("fetch_after");
    assert_eq!(
        after_first.iter().map(|mail| mail.uid).collect::<Vec<_>>(),
        uids[1..]
    );
    assert!(
        inbound
            .fetch_after(uids[2])
            .await
            .expect("fetch_after")
            .is_empty()
    );
    inbound.mark_seen(&uids).await.expect("mark_seen");
    inbound.logout().await;

    // read_mailbox sees the same messages on a session of its own.
    let all = imap::read_mailbox(&cfg, &servers.password)
        .await
        .expect("read_mailbox");
    assert_eq!(all, fetched);
}

#[tokio::test]
async fn idle_wakes_on_delivery_and_times_out_without_it() {
    let servers = Servers::plain();
    let user = unique_user("idle");
    let to = servers.address(&user);
    let inbound = Inbound::connect(&servers.imap(&user, "INBOX"), &servers.password)
        .await
        .expect("connect");
    assert!(inbound.supports_idle(), "Dovecot has IDLE");

    let started = Instant::now();
    let (inbound, wake) = inbound.wait(Duration::from_secs(1)).await.expect("wait");
    assert_eq!(wake, Wake::Timeout);
    assert!(started.elapsed() < Duration::from_secs(5));

    let sender = {
        let smtp = servers.smtp();
        let to = to.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let outbound = Outbound::new(&smtp, None).expect("outbound");
            let raw = message("carol@example.test", &to, "[ghost] g", "idle-token");
            outbound
                .send("carol@example.test", &[to], &raw)
                .await
                .expect("send");
        })
    };
    let started = Instant::now();
    let (mut inbound, wake) = inbound.wait(Duration::from_secs(60)).await.expect("wait");
    assert_eq!(wake, Wake::NewMail);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "woke after {:?}",
        started.elapsed()
    );
    sender.await.expect("sender task");
    // The session came back usable.
    let fetched = inbound.fetch_after(0).await.expect("fetch_after");
    assert_eq!(fetched.len(), 1);
    inbound.logout().await;
}

#[tokio::test]
async fn polling_without_idle_wakes_on_delivery() {
    let servers = Servers::plain();
    let user = unique_user("poll");
    let to = servers.address(&user);
    let mut inbound = Inbound::connect(&servers.imap(&user, "INBOX"), &servers.password)
        .await
        .expect("connect");
    inbound.disable_idle();
    assert!(!inbound.supports_idle());

    let (inbound, wake) = inbound
        .wait(Duration::from_millis(1500))
        .await
        .expect("wait");
    assert_eq!(wake, Wake::Timeout);

    let outbound = Outbound::new(&servers.smtp(), None).expect("outbound");
    let raw = message("dave@example.test", &to, "[donkey] d", "poll-token");
    outbound
        .send("dave@example.test", std::slice::from_ref(&to), &raw)
        .await
        .expect("send");
    // poll_seconds is 1: the NOOP after the first second sees the EXISTS.
    let started = Instant::now();
    let (mut inbound, wake) = inbound.wait(Duration::from_secs(30)).await.expect("wait");
    assert_eq!(wake, Wake::NewMail);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(fetch_until(&mut inbound, 0, 1).await.len(), 1);
    inbound.logout().await;
}

#[tokio::test]
async fn recreated_mailbox_has_a_new_uidvalidity() {
    let servers = Servers::plain();
    let user = unique_user("uidvalidity");
    let cfg = servers.imap(&user, "Game");

    let missing = Inbound::connect(&cfg, &servers.password)
        .await
        .expect_err("the mailbox does not exist yet");
    assert_eq!(missing.kind(), imap::ErrorKind::Operator, "{missing}");

    let mut account = imap::connect_no_select(&cfg, &servers.password)
        .await
        .expect("connect");
    account.create_mailbox("Game").await.expect("create");
    let raw = message(
        "alice@example.test",
        "bot@example.test",
        "[rule tag] x",
        "u1",
    );
    account.append("Game", &raw, None).await.expect("append");
    account.logout().await;

    let mut first = Inbound::connect(&cfg, &servers.password)
        .await
        .expect("connect");
    let first_validity = first.uidvalidity();
    assert_eq!(first.fetch_after(0).await.expect("fetch_after").len(), 1);
    first.logout().await;

    let mut account = imap::connect_no_select(&cfg, &servers.password)
        .await
        .expect("connect");
    account.delete_mailbox("Game").await.expect("delete");
    account.create_mailbox("Game").await.expect("create again");
    account.logout().await;

    let mut second = Inbound::connect(&cfg, &servers.password)
        .await
        .expect("connect");
    assert_ne!(second.uidvalidity(), first_validity);
    assert!(second.fetch_after(0).await.expect("fetch_after").is_empty());
    second.logout().await;
}

#[tokio::test]
async fn bad_password_is_for_the_operator_and_no_server_is_retried() {
    let servers = Servers::plain();
    let cfg = servers.imap(&unique_user("login"), "INBOX");
    let refused = Inbound::connect(&cfg, "wrong-password")
        .await
        .expect_err("wrong password");
    assert_eq!(refused.kind(), imap::ErrorKind::Operator, "{refused}");

    let closed_port = closed_port().await;
    let mut nowhere = cfg.clone();
    nowhere.port = closed_port;
    let error = Inbound::connect(&nowhere, &servers.password)
        .await
        .expect_err("nothing listens");
    assert_eq!(error.kind(), imap::ErrorKind::Retry, "{error}");
}

/// A loopback port nothing listens on (bound, then released).
async fn closed_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    listener.local_addr().expect("local address").port()
}

#[tokio::test]
async fn smtp_without_a_server_is_retried() {
    let servers = Servers::plain();
    let mut cfg = servers.smtp();
    cfg.port = closed_port().await;
    let outbound = Outbound::new(&cfg, None).expect("outbound");
    let to = servers.address("anyone");
    let error = outbound
        .send(
            "bot@example.test",
            std::slice::from_ref(&to),
            &message("bot@example.test", &to, "x", "refused"),
        )
        .await
        .expect_err("nothing listens");
    assert_eq!(error.kind(), smtp::ErrorKind::Retry, "{error}");
}

#[tokio::test]
async fn smtp_refused_recipient_is_permanent() {
    let servers = Servers::plain();
    let outbound = Outbound::new(&servers.smtp(), None).expect("outbound");
    let to = "someone@elsewhere.invalid".to_owned();
    let error = outbound
        .send(
            "bot@example.test",
            std::slice::from_ref(&to),
            &message("bot@example.test", &to, "x", "foreign"),
        )
        .await
        .expect_err("only example.test is accepted");
    assert_eq!(error.kind(), smtp::ErrorKind::Permanent, "{error}");

    let error = outbound
        .send("bot@example.test", &["not an address".to_owned()], b"x\r\n")
        .await
        .expect_err("bad address");
    assert_eq!(error.kind(), smtp::ErrorKind::Permanent, "{error}");
}

/// The TLS instance of mailtest: the one in the environment if it has TLS on,
/// else one of our own on free ports, stopped when the guard drops.
struct TlsServers {
    servers: Servers,
    imaps_port: u16,
    smtps_port: u16,
    ca: PathBuf,
    _own: Option<crate::support::OwnServers>,
}

impl TlsServers {
    fn start() -> TlsServers {
        if std::env::var("MAILTEST_TLS").as_deref() == Ok("1") {
            return TlsServers {
                servers: Servers::plain(),
                imaps_port: port(&env("MAILTEST_IMAPS_PORT")),
                smtps_port: port(&env("MAILTEST_SMTPS_PORT")),
                ca: PathBuf::from(env("MAILTEST_TLS_CA")),
                _own: None,
            };
        }
        let own = crate::support::OwnServers::start("tls", true);
        TlsServers {
            servers: Servers {
                host: own.get("MAILTEST_HOST"),
                imap_port: own.port("MAILTEST_IMAP_PORT"),
                smtp_port: own.port("MAILTEST_SMTP_PORT"),
                password: own.get("MAILTEST_PASSWORD"),
                domain: own.get("MAILTEST_DOMAIN"),
            },
            imaps_port: own.port("MAILTEST_IMAPS_PORT"),
            smtps_port: own.port("MAILTEST_SMTPS_PORT"),
            ca: PathBuf::from(own.get("MAILTEST_TLS_CA")),
            _own: Some(own),
        }
    }
}

/// STARTTLS and implicit TLS, for both IMAP and SMTP, trusting the test CA from
/// `ca_file`; and the same server refused when its CA is not trusted.
#[tokio::test]
async fn tls_and_starttls_with_a_private_ca() {
    let tls = tokio::task::spawn_blocking(TlsServers::start)
        .await
        .expect("start tls servers");
    let servers = &tls.servers;

    for (name, imap_tls, imap_port, smtp_tls, smtp_port) in [
        (
            "starttls",
            Tls::Starttls,
            servers.imap_port,
            Tls::Starttls,
            servers.smtp_port,
        ),
        ("tls", Tls::Tls, tls.imaps_port, Tls::Tls, tls.smtps_port),
    ] {
        let user = unique_user(name);
        let to = servers.address(&user);
        let mut smtp_cfg = servers.smtp();
        smtp_cfg.tls = smtp_tls;
        smtp_cfg.port = smtp_port;
        smtp_cfg.ca_file = Some(tls.ca.clone());
        // AUTH goes over the encrypted channel only.
        smtp_cfg.user = Some(user.clone());
        let outbound = Outbound::new(&smtp_cfg, Some(servers.password.clone())).expect("outbound");
        let raw = message("alice@example.test", &to, "[ping] tls", name);
        outbound
            .send("alice@example.test", std::slice::from_ref(&to), &raw)
            .await
            .unwrap_or_else(|error| panic!("{name}: send: {error}"));

        let mut imap_cfg = servers.imap(&user, "INBOX");
        imap_cfg.tls = imap_tls;
        imap_cfg.port = imap_port;
        imap_cfg.ca_file = Some(tls.ca.clone());
        let mut inbound = Inbound::connect(&imap_cfg, &servers.password)
            .await
            .unwrap_or_else(|error| panic!("{name}: connect: {error}"));
        let fetched = fetch_until(&mut inbound, 0, 1).await;
        assert_eq!(fetched.len(), 1, "{name}");
        assert!(contains(&fetched[0].raw, &format!("body {name}")), "{name}");
        inbound.logout().await;

        // Without the private CA only the public roots are trusted.
        imap_cfg.ca_file = None;
        let untrusted = Inbound::connect(&imap_cfg, &servers.password)
            .await
            .expect_err("untrusted certificate");
        assert_eq!(
            untrusted.kind(),
            imap::ErrorKind::Operator,
            "{name}: {untrusted}"
        );
        smtp_cfg.ca_file = None;
        let outbound = Outbound::new(&smtp_cfg, Some(servers.password.clone())).expect("outbound");
        let untrusted = outbound
            .send("alice@example.test", std::slice::from_ref(&to), &raw)
            .await
            .expect_err("untrusted certificate");
        assert_eq!(
            untrusted.kind(),
            smtp::ErrorKind::Operator,
            "{name}: {untrusted}"
        );
    }

    // A wrong SMTP password is the operator's problem, not the message's.
    let mut smtp_cfg = servers.smtp();
    smtp_cfg.tls = Tls::Starttls;
    smtp_cfg.ca_file = Some(tls.ca.clone());
    smtp_cfg.user = Some("bot".into());
    let outbound = Outbound::new(&smtp_cfg, Some("wrong-password".into())).expect("outbound");
    let to = servers.address("anyone");
    let error = outbound
        .send(
            "bot@example.test",
            std::slice::from_ref(&to),
            &message("bot@example.test", &to, "x", "badauth"),
        )
        .await
        .expect_err("wrong password");
    assert_eq!(error.kind(), smtp::ErrorKind::Operator, "{error}");
}
