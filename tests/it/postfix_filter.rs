//! Issue 23, item 2: the README's Postfix filter for forged `Authentication-Results`
//! headers, run on a real Postfix (`../shared/mailtest/`, servers of this test's
//! own). The filter's lines are taken from README.md, so the documented filter is
//! the tested one. Every form a forger tried is sent by SMTP, and what Dovecot
//! delivered is read as the bot reads it: no header may be taken for ours.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nomicbot::mail::auth::Headers;

use crate::support::{OwnServers, repo_root};

/// The authserv-id of the README's examples.
const AUTHSERV_ID: &str = "mx.nomic.example";

/// A forged result: a DKIM pass for the From domain.
const FORGED: &str = "dkim=pass header.d=nomic.example header.s=sel";

/// The forms of the header the tester sent past the old filter, the plain one,
/// folding, a tab before the colon, and two that Postfix reads as no header at
/// all (it starts the body there, with a blank line of its own): the bot must
/// not read those as headers either.
fn variants() -> Vec<(&'static str, String)> {
    vec![
        (
            "plain",
            format!("Authentication-Results: {AUTHSERV_ID}; {FORGED}"),
        ),
        (
            "comment",
            format!("Authentication-Results: (x) {AUTHSERV_ID}; {FORGED}"),
        ),
        (
            "quoted",
            format!("Authentication-Results: \"{AUTHSERV_ID}\"; {FORGED}"),
        ),
        (
            "upper-id",
            format!("Authentication-Results: MX.NOMIC.EXAMPLE; {FORGED}"),
        ),
        (
            "upper-name",
            format!("AUTHENTICATION-RESULTS: {AUTHSERV_ID}; {FORGED}"),
        ),
        (
            "no-space",
            format!("Authentication-Results:{AUTHSERV_ID}; {FORGED}"),
        ),
        (
            "space-before-colon",
            format!("Authentication-results : {AUTHSERV_ID}; {FORGED}"),
        ),
        (
            "tab-before-colon",
            format!("Authentication-Results\t: {AUTHSERV_ID}; {FORGED}"),
        ),
        (
            "version",
            format!("Authentication-Results: {AUTHSERV_ID} 1; {FORGED}"),
        ),
        (
            "folded",
            format!("Authentication-Results:\r\n {AUTHSERV_ID};\r\n\t{FORGED}"),
        ),
        (
            "after-a-line-that-is-no-header",
            format!("X-Not a header\r\nAuthentication-Results: {AUTHSERV_ID}; {FORGED}"),
        ),
        (
            "form-feed-before-colon",
            format!("Authentication-Results\x0c: {AUTHSERV_ID}; {FORGED}"),
        ),
    ]
}

/// A moderator's forged order, with `header` among its headers.
fn forged_message(name: &str, header: &str) -> String {
    format!(
        "From: Moderator <mod@nomic.example>\r\nTo: bot@example.test\r\n\
         Subject: [nomic] forged {name}\r\nMessage-ID: <{name}@forger.test>\r\n\
         Date: Mon, 5 Jan 2026 10:00:00 +0000\r\n{header}\r\n\
         ARC-Authentication-Results: i=1; {AUTHSERV_ID}; {FORGED}\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\nrename Mallory Moderator\r\n"
    )
}

/// The README's line that starts with `starts_with` and ends with `ends_with`:
/// exactly one, or the test names what it could not find.
fn readme_line(starts_with: &str, ends_with: &str) -> String {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("read README.md");
    let lines: Vec<&str> = readme
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with(starts_with) && line.ends_with(ends_with))
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "README.md must hold one line `{starts_with}...{ends_with}`: {lines:?}"
    );
    lines[0].to_owned()
}

/// One message by SMTP, byte for byte (dot-stuffed), as a forger would send it.
fn send(port: u16, raw: &str) {
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to SMTP");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    let mut expect = |code: &str| {
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).expect("read an SMTP reply");
            assert!(
                line.starts_with(code),
                "SMTP: expected {code}, got {line:?}"
            );
            if line.as_bytes().get(3) != Some(&b'-') {
                break;
            }
        }
    };
    expect("220");
    for (command, code) in [
        ("EHLO forger.test\r\n", "250"),
        ("MAIL FROM:<mallory@forger.test>\r\n", "250"),
        ("RCPT TO:<bot@example.test>\r\n", "250"),
        ("DATA\r\n", "354"),
    ] {
        writer.write_all(command.as_bytes()).expect("write");
        expect(code);
    }
    let mut data = String::new();
    for line in raw.split("\r\n") {
        if line.starts_with('.') {
            data.push('.');
        }
        data.push_str(line);
        data.push_str("\r\n");
    }
    data.push_str(".\r\n");
    writer.write_all(data.as_bytes()).expect("write data");
    expect("250");
    writer.write_all(b"QUIT\r\n").expect("write");
}

/// The delivered message with this Message-ID, waited for up to 20 s.
fn delivered(maildir: &Path, message_id: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        for folder in ["new", "cur"] {
            let Ok(entries) = std::fs::read_dir(maildir.join(folder)) else {
                continue;
            };
            for entry in entries.flatten() {
                let raw = std::fs::read(entry.path()).unwrap_or_default();
                let raw = String::from_utf8_lossy(&raw).into_owned();
                if raw.contains(&format!("Message-ID: <{message_id}>")) {
                    return raw;
                }
            }
        }
        assert!(
            Instant::now() < deadline,
            "{message_id} was not delivered to {} in 20 s",
            maildir.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn postfix(config: &Path, args: &[&str]) {
    let output = std::process::Command::new("/usr/sbin/postfix")
        .arg("-c")
        .arg(config)
        .args(args)
        .output()
        .expect("run postfix");
    assert!(
        output.status.success(),
        "postfix {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn issue_23_item_2_the_readme_filter_lets_no_forged_authentication_results_through() {
    let servers = OwnServers::start("postfix-filter", false);
    let port = servers.port("MAILTEST_SMTP_PORT");
    let maildir = PathBuf::from(servers.get("MAILTEST_MAILDIR_ROOT")).join("bot/Maildir");
    let config = PathBuf::from(servers.get("MAILTEST_DIR")).join("postfix/etc");
    let believed = |raw: &str| {
        Headers::read(raw.as_bytes())
            .ours(AUTHSERV_ID)
            .results
            .len()
    };

    // Without the filter the forgery reaches the mailbox and is believed: the
    // test can see a forgery that gets through.
    let (_, plain) = &variants()[0];
    send(port, &forged_message("unfiltered", plain));
    assert_eq!(believed(&delivered(&maildir, "unfiltered@forger.test")), 1);

    // The README's filter, as an operator sets it up.
    let main_cf = readme_line("header_checks = regexp:", "header_checks");
    let rule = readme_line("/^Authentication-Results", "IGNORE");
    let table = config.join("header_checks");
    std::fs::write(&table, format!("{rule}\n")).expect("write header_checks");
    let setting = main_cf.replace("/etc/postfix/header_checks", &table.display().to_string());
    let output = std::process::Command::new("/usr/sbin/postconf")
        .arg("-c")
        .arg(&config)
        .arg("-e")
        .arg(&setting)
        .output()
        .expect("run postconf");
    assert!(
        output.status.success(),
        "postconf -e {setting:?}: {output:?}"
    );
    postfix(&config, &["reload"]);

    // A reload lets running processes finish first: probe until the filter is on.
    let deadline = Instant::now() + Duration::from_secs(30);
    for probe in 0.. {
        let id = format!("probe-{probe}");
        send(port, &forged_message(&id, plain));
        if believed(&delivered(&maildir, &format!("{id}@forger.test"))) == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the filter never took effect after the reload"
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    let variants = variants();
    for (name, header) in &variants {
        send(port, &forged_message(name, header));
    }
    for (name, header) in &variants {
        let raw = delivered(&maildir, &format!("{name}@forger.test"));
        assert_eq!(
            believed(&raw),
            0,
            "{name}: sent {header:?}, the bot believes what was delivered:\n{raw}"
        );
        assert!(
            raw.contains("ARC-Authentication-Results: i=1;"),
            "{name}: the filter left ARC-Authentication-Results alone:\n{raw}"
        );
    }
}
