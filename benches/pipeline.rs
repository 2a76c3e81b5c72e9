//! Messages per second through the whole pipeline on the real servers of
//! `../shared/mailtest/` (players' SMTP → Postfix → Dovecot → the bot's IMAP
//! fetch → engine → SQLite → the bot's SMTP → Dovecot → IMAP read-back of every
//! announcement), and the same figure for the bare servers (SMTP in, IMAP out,
//! no bot), so the ratio to the physical limit can be read off.
//!
//! Run: `eval "$(../shared/mailtest/start)"; cargo bench --bench pipeline`
//! (`BENCH_MESSAGES=N` to change the count, default 200). Prints figures; asserts
//! only that every message made it.

use std::time::{Duration, Instant};

use jiff::Timestamp;
use nomicbot::config::{Config, ImapConfig, SmtpConfig, Tls};
use nomicbot::mail::imap;
use nomicbot::mail::smtp::Outbound;
use nomicbot::pipeline::Bot;
use nomicbot::run::{Transport, once};

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

fn smtp(s: &Servers) -> Outbound {
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
    Outbound::new(&cfg, None).expect("smtp")
}

fn player_mail(from: &str, to: &str, subject: &str, id: &str) -> Vec<u8> {
    format!("From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n\r\nhello\r\n")
        .into_bytes()
}

/// Waits until `user`'s INBOX holds `n` messages; returns when it did.
async fn wait_count(s: &Servers, user: &str, n: usize) -> Instant {
    let cfg = imap_config(s, user);
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        if let Ok(inbound) = imap::Inbound::connect(&cfg, &s.password).await {
            let mut inbound = inbound;
            if let Ok(all) = inbound.fetch_after(0).await
                && all.len() >= n
            {
                inbound.logout().await;
                return Instant::now();
            }
            inbound.logout().await;
        }
        assert!(Instant::now() < deadline, "{user} never got {n} messages");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn bare(s: &Servers, n: usize, run: &str) -> f64 {
    let user = format!("bare-{run}");
    let to = format!("{user}@{}", s.domain);
    let sender = smtp(s);
    let start = Instant::now();
    for i in 0..n {
        let from = format!("p{i}-{run}@{}", s.domain);
        let raw = player_mail(&from, &to, "[nomic] join", &format!("bare{i}-{run}@bench"));
        sender
            .send(&from, std::slice::from_ref(&to), &raw)
            .await
            .expect("send");
    }
    let end = wait_count(s, &user, n).await;
    n as f64 / (end - start).as_secs_f64()
}

async fn pipeline(s: &Servers, n: usize, run: &str) -> (f64, Duration) {
    let dir = tempfile::tempdir().expect("tempdir");
    let bot_user = format!("bot-bench-{run}");
    let list_user = format!("list-bench-{run}");
    let config = format!(
        "transport = \"imap\"\n[bot]\naddress = \"{bot_user}@{d}\"\nlist = \"{list_user}@{d}\"\ndatabase = \"bot.sqlite\"\n\
         [imap]\nhost = \"{h}\"\nport = {ip}\nuser = \"{bot_user}\"\npassword = \"{pw}\"\ntls = \"none\"\n\
         [smtp]\nhost = \"{h}\"\nport = {sp}\ntls = \"none\"\n",
        d = s.domain,
        h = s.host,
        ip = s.imap_port,
        sp = s.smtp_port,
        pw = s.password
    );
    std::fs::write(dir.path().join("bot.toml"), config).expect("config");
    nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
    let config = Config::load(&dir.path().join("bot.toml")).expect("config");
    let mut bot = Bot::open(config.clone()).expect("bot");
    let mut transport = Transport::new(&config);

    let bot_address = format!("{bot_user}@{}", s.domain);
    let list_address = format!("{list_user}@{}", s.domain);
    let sender = smtp(s);
    let start = Instant::now();
    let players = tokio::spawn({
        let (bot_address, list_address, run) =
            (bot_address.clone(), list_address.clone(), run.to_owned());
        let domain = s.domain.clone();
        async move {
            for i in 0..n {
                let from = format!("p{i}-{run}@{domain}");
                let raw = player_mail(
                    &from,
                    &list_address,
                    &format!("[nomic] join Player{i}"),
                    &format!("pipe{i}-{run}@bench"),
                );
                sender
                    .send(&from, &[bot_address.clone(), list_address.clone()], &raw)
                    .await
                    .expect("send");
            }
        }
    });
    let mut sent = 0;
    let mut busy = Duration::ZERO;
    while sent < 2 * n {
        let pass_start = Instant::now();
        let pass = once(&mut bot, &mut transport, Timestamp::now())
            .await
            .expect("pass");
        if pass.fetched > 0 || pass.sent > 0 {
            busy += pass_start.elapsed();
        }
        sent += pass.sent;
        if pass.fetched == 0 && pass.sent == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    players.await.expect("players");
    // The list receives the players' n messages and the bot's n announcements.
    let end = wait_count(s, &list_user, 2 * n).await;
    drop(transport);
    (n as f64 / (end - start).as_secs_f64(), busy)
}

fn main() {
    let n: usize = std::env::var("BENCH_MESSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let s = servers();
    let run = format!("{:x}", Timestamp::now().as_millisecond() % 0xff_ffff);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let bare_rate = bare(&s, n, &run).await;
        let (pipeline_rate, busy) = pipeline(&s, n, &run).await;
        println!("messages: {n}");
        println!("bare servers (SMTP in, IMAP out, no bot):        {bare_rate:8.1} messages/s");
        println!("whole pipeline (SMTP in, bot, SMTP out, IMAP):   {pipeline_rate:8.1} messages/s");
        println!(
            "ratio pipeline / bare:                           {:8.2}",
            pipeline_rate / bare_rate
        );
        println!(
            "bot's own time (fetch+apply+send passes):       {:8.1} ms total, {:.2} ms per message",
            busy.as_secs_f64() * 1000.0,
            busy.as_secs_f64() * 1000.0 / n as f64
        );
    });
}
