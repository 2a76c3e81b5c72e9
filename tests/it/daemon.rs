//! The daemon as a service manager runs it: `nomicbot run` on the embedded
//! Maildir transport as a child process, stopped by a signal.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use jiff::Timestamp;

use crate::support::{LocalBot, message};

const LIST: &str = "game-list@nomic.example";
const ALICE: &str = "alice@nomic.example";
/// The Message-ID of Alice's join.
const JOIN: &str = "m1@players.example";

/// systemd stops a service with SIGTERM: the daemon finishes the pass in hand,
/// says so and exits 0, and what it did is recorded once.
#[test]
fn sigterm_stops_the_daemon_cleanly_after_the_message_in_hand() {
    let bot = LocalBot::new();
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_nomicbot"))
        .arg("--config")
        .arg(bot.config_path())
        .arg("run")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nomicbot run");
    // Read stderr on the side, so a chatty daemon never blocks on a full pipe.
    let mut stderr = daemon.stderr.take().expect("stderr");
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });

    let join = message(ALICE, LIST, "[nomic] join Alice", JOIN, "");
    bot.deliver("join", &join, Timestamp::now());

    // The answer in the outbox Maildir means the message was fetched, applied and
    // sent. The bound is for a stuck daemon, not a measurement.
    let give_up = Instant::now() + Duration::from_secs(60);
    while !answered(&bot) {
        if Instant::now() > give_up || daemon.try_wait().ok().flatten().is_some() {
            let _ = daemon.kill();
            let _ = daemon.wait();
            panic!(
                "the daemon never answered the join:\n{}",
                log.join().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }

    let kill = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status()
        .expect("run kill");
    assert!(kill.success(), "kill -TERM failed: {kill}");
    let status = daemon.wait().expect("reap the daemon");
    let log = log.join().unwrap_or_default();
    assert!(
        status.success(),
        "SIGTERM must end the daemon with status 0, not {status}:\n{log}"
    );
    assert!(log.contains("SIGTERM"), "no word of the signal:\n{log}");
    assert!(log.contains("nomicbot stopped"), "no goodbye:\n{log}");

    let answers: Vec<_> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(ALICE) && m.in_reply_to.as_deref() == Some(JOIN))
        .collect();
    assert_eq!(answers.len(), 1, "one answer to the join: {answers:#?}");
    // Nothing left half-done: another pass finds the answer marked sent and the
    // message applied, so it sends nothing again.
    let pass = bot.once(Timestamp::now());
    assert!(
        pass.contains("applied 0") && pass.contains("sent 0"),
        "{pass}"
    );
    // The outbox Maildir names a file after its Message-ID, so a second sending
    // would not show there: the outbox table says what was sent, and how often.
    let outbox: serde_json::Value =
        serde_json::from_str(&bot.cli_ok(&["outbox", "--json"])).expect("outbox --json");
    let rows = outbox.as_array().expect("a list of outbox rows");
    assert_eq!(rows.len(), 2, "the answer and the announcement: {outbox:#}");
    assert!(
        rows.iter()
            .all(|row| row["status"] == "sent" && row["attempts"] == 1),
        "each sent once: {outbox:#}"
    );
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

fn answered(bot: &LocalBot) -> bool {
    bot.sent_mail()
        .iter()
        .any(|m| m.is_to(ALICE) && m.in_reply_to.as_deref() == Some(JOIN))
}
