//! What one hostile message costs: a `[nomic]` message of 16k, 32k and 64k
//! command lines, 100k `players` lines, a 19 MB HTML message, and a backlog of
//! twelve 28 MB messages, each taken in, applied (or kept aside) and answered by
//! one pass of the real pipeline (`run::once`) on the embedded transport. Each
//! case runs in a child process of its own, so its peak memory (`VmHWM`) is its
//! own; a case that runs past `BENCH_TIMEOUT` seconds (default 300) is stopped
//! and reported as such.
//!
//! Run: `cargo bench --bench big_mail` (`BENCH_CASES=lines16k,html19mb` to
//! choose). Prints figures; asserts nothing about time.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use nomicbot::config::{Config, DEFAULT_CONFIG, believing_from};
use nomicbot::pipeline::Bot;
use nomicbot::run::{Transport, once};

const CASES: [&str; 10] = [
    "lines16k",
    "lines32k",
    "lines64k",
    "players100k",
    "html19mb",
    "backlog12x28mb",
    // The same with the limits lifted: what reading it whole costs.
    "lines16k-nolimit",
    "lines32k-nolimit",
    "lines64k-nolimit",
    "html19mb-nolimit",
];

fn main() {
    if let Ok(case) = std::env::var("BIG_MAIL_CASE") {
        run_case(&case);
        return;
    }
    let wanted: Vec<String> = std::env::var("BENCH_CASES")
        .map(|cases| cases.split(',').map(|c| c.trim().to_owned()).collect())
        .unwrap_or_else(|_| CASES.iter().map(|c| (*c).to_owned()).collect());
    let timeout = Duration::from_secs(
        std::env::var("BENCH_TIMEOUT")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(300),
    );
    let me = std::env::current_exe().expect("own path");
    println!(
        "{:<18} {:>10} {:>12} {:>10} {:>9} {:>12}  inbox",
        "case", "input MB", "seconds", "peak MB", "answers", "answer KB"
    );
    for case in wanted {
        let started = Instant::now();
        let mut child = Command::new(&me)
            .env("BIG_MAIL_CASE", &case)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run the case");
        let finished = loop {
            if child.try_wait().expect("wait").is_some() {
                break true;
            }
            if started.elapsed() > timeout {
                let _ = child.kill();
                let _ = child.wait();
                break false;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let output = child.wait_with_output().expect("output");
        if finished {
            print!("{}", String::from_utf8_lossy(&output.stdout));
        } else {
            println!("{case:<18} stopped after {} s", timeout.as_secs());
        }
        std::io::stdout().flush().ok();
    }
}

/// Runs one case in this process and prints its line.
fn run_case(case_name: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (case, lifted) = match case_name.strip_suffix("-nolimit") {
        Some(case) => (case, true),
        None => (case_name, false),
    };
    let mut config_text = believing_from(DEFAULT_CONFIG);
    if lifted {
        for key in ["max_message_bytes", "max_command_lines", "max_answer_bytes"] {
            config_text = config_text
                .lines()
                .map(|line| match line.starts_with(key) {
                    true => format!("{key} = 1_000_000_000"),
                    false => line.to_owned(),
                })
                .collect::<Vec<_>>()
                .join("\n");
        }
    }
    std::fs::write(dir.path().join("bot.toml"), config_text).expect("config");
    nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
    let config = Config::load(&dir.path().join("bot.toml")).expect("config");
    let t0: Timestamp = "2026-01-05T10:00:00Z".parse().expect("time");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");

    // Alice and Bob play already, so the lines have someone to act on.
    deliver(
        &config,
        "join-a",
        &plain("alice", "[nomic] join Alice", ""),
        t0,
    );
    deliver(&config, "join-b", &plain("bob", "[nomic] join Bob", ""), t0);
    {
        let mut bot = Bot::open(config.clone()).expect("open");
        let mut transport = Transport::new(&config);
        runtime
            .block_on(once(&mut bot, &mut transport, t0))
            .expect("setup pass");
    }
    let outbox = config.resolve(&config.maildir.outbox);
    let answers_before = count_files(&outbox);
    let bytes_before = dir_bytes(&outbox);

    let at = t0 + SignedDuration::from_mins(1);
    let input: usize = match case {
        "lines16k" | "lines32k" | "lines64k" => {
            let n: usize = case
                .trim_start_matches("lines")
                .trim_end_matches('k')
                .parse::<usize>()
                .expect("size")
                * 1024;
            deliver(
                &config,
                case,
                &plain("alice", "[nomic]", &mixed_lines(n)),
                at,
            )
        }
        "players100k" => {
            let body = "players\n".repeat(100_000);
            deliver(&config, case, &plain("alice", "[nomic]", &body), at)
        }
        "html19mb" => deliver(&config, case, &html(19 << 20), at),
        "backlog12x28mb" => (0..12)
            .map(|i| {
                deliver(
                    &config,
                    &format!("big{i}"),
                    &with_attachment(28 << 20, i),
                    at,
                )
            })
            .sum(),
        other => panic!("no case {other}"),
    };

    let started = Instant::now();
    let mut bot = Bot::open(config.clone()).expect("open");
    let mut transport = Transport::new(&config);
    let pass = runtime
        .block_on(once(
            &mut bot,
            &mut transport,
            at + SignedDuration::from_mins(1),
        ))
        .expect("pass");
    let seconds = started.elapsed().as_secs_f64();
    let answers = count_files(&outbox) - answers_before;
    let answer_kb = (dir_bytes(&outbox) - bytes_before) as f64 / 1024.0;
    println!(
        "{case_name:<18} {:>10.1} {seconds:>12.2} {:>10} {answers:>9} {answer_kb:>12.1}  applied {}, aside {}",
        input as f64 / 1_048_576.0,
        peak_mb().map_or_else(|| "n/a".to_owned(), |mb| format!("{mb:.0}")),
        pass.processed.applied,
        pass.processed.aside,
    );
}

/// Lines a player could write: refused, not understood and done, in turn (none
/// of them sends mail of its own, so the figure is the reading and the answer).
fn mixed_lines(n: usize) -> String {
    let kinds = ["give 1 A$ to Nobody", "dance a jig", "officers"];
    let mut body = String::with_capacity(n * 16);
    for i in 0..n {
        body.push_str(kinds[i % kinds.len()]);
        body.push('\n');
    }
    body
}

fn plain(user: &str, subject: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {user}@example.org\r\nTo: game-list@nomic.example\r\nSubject: {subject}\r\n\
         Message-ID: <{}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}",
        unique(user),
        body.replace('\n', "\r\n")
    )
    .into_bytes()
}

/// An HTML-only message of about `bytes` bytes, one `<div>` per line.
fn html(bytes: usize) -> Vec<u8> {
    let mut raw = format!(
        "From: alice@example.org\r\nTo: game-list@nomic.example\r\nSubject: [nomic]\r\n\
         Message-ID: <{}@example.org>\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body>",
        unique("html")
    )
    .into_bytes();
    let lines = ["<div>dance a <b>jig</b></div>\r\n", "<p>officers</p>\r\n"];
    let mut i = 0;
    while raw.len() < bytes {
        raw.extend_from_slice(lines[i % 2].as_bytes());
        i += 1;
    }
    raw.extend_from_slice(b"</body></html>\r\n");
    raw
}

/// One short command and a base64 attachment of about `bytes` bytes.
fn with_attachment(bytes: usize, index: usize) -> Vec<u8> {
    let mut raw = format!(
        "From: alice@example.org\r\nTo: game-list@nomic.example\r\nSubject: [nomic] balance\r\n\
         Message-ID: <big{index}.{}@example.org>\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
         --b\r\nContent-Type: text/plain\r\n\r\nbalance\r\n\
         --b\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\
         Content-Disposition: attachment; filename=\"big.bin\"\r\n\r\n",
        unique("big")
    )
    .into_bytes();
    let line = [b'Q'; 76];
    while raw.len() < bytes {
        raw.extend_from_slice(&line);
        raw.extend_from_slice(b"\r\n");
    }
    raw.extend_from_slice(b"--b--\r\n");
    raw
}

fn unique(user: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    format!("{user}.{}", COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// Drops a message into the inbox Maildir, delivered at `at`; its size.
fn deliver(config: &Config, name: &str, raw: &[u8], at: Timestamp) -> usize {
    let inbox = config.resolve(&config.maildir.inbox);
    nomicbot::mail::maildir::ensure(&inbox).expect("maildir");
    let path = inbox
        .join("new")
        .join(format!("{}.{name}.bench", at.as_second()));
    std::fs::write(&path, raw).expect("write message");
    std::fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_modified(at.into()))
        .expect("set mtime");
    raw.len()
}

fn count_files(maildir: &Path) -> usize {
    ["new", "cur"]
        .iter()
        .filter_map(|sub| std::fs::read_dir(maildir.join(sub)).ok())
        .map(Iterator::count)
        .sum()
}

fn dir_bytes(maildir: &Path) -> u64 {
    ["new", "cur"]
        .iter()
        .filter_map(|sub| std::fs::read_dir(maildir.join(sub)).ok())
        .flat_map(|entries| entries.flatten())
        .filter_map(|entry| entry.metadata().ok())
        .map(|metadata| metadata.len())
        .sum()
}

/// This process's peak resident memory (Linux `VmHWM`), in MB.
fn peak_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
