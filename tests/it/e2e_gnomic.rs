//! A full circuit of Gnomic turns through the real servers (issue 13): four
//! players each post a turn on the list by SMTP, the others vote privately to
//! the bot, the bot reads over IMAP, counts when all have voted, and posts each
//! score update to the list, read back over IMAP. The scores are checked against
//! a computation written out below, rule by rule; no vote reaches the list before
//! its count, and `verify-sealed` accepts every turn's commitments and reveal.

use crate::e2e::ImapBot;
use crate::support::SentMail;

async fn delivered(bot: &ImapBot, n: usize) {
    let got = bot.wait_for(&bot.bot(), n, |_| true).await;
    assert!(got.len() >= n, "only {} of {n} messages arrived", got.len());
}

fn from_bot(raw: &str) -> bool {
    raw.contains("X-Nomicbot:")
}

async fn list_mail(bot: &ImapBot) -> Vec<SentMail> {
    bot.mailbox_of(&bot.list())
        .await
        .iter()
        .filter(|raw| from_bot(raw))
        .map(|raw| SentMail::parse(raw))
        .collect()
}

/// The score update of turn `n`, once it is in the list's mailbox.
async fn counted(bot: &ImapBot, n: u32) -> SentMail {
    let subject = format!("Turn {n} counted");
    let found = bot
        .wait_for(&bot.list(), 1, |raw| {
            from_bot(raw) && SentMail::parse(raw).subject.contains(&subject)
        })
        .await;
    if found.is_empty() {
        let mut seen: Vec<String> = Vec::new();
        for who in [bot.list(), bot.player("bob"), bot.player("alice")] {
            for raw in bot.mailbox_of(&who).await {
                let mail = SentMail::parse(&raw);
                seen.push(format!("[{who}] {}\n{}", mail.subject, mail.body));
            }
        }
        panic!("no \"{subject}\" on the list:\n{}", seen.join("\n----\n"));
    }
    SentMail::parse(&found[0])
}

fn assert_lines(mail: &SentMail, lines: &[&str]) {
    for line in lines {
        assert!(
            mail.body.contains(line),
            "{line:?} is not in {}:\n{}",
            mail.subject,
            mail.body
        );
    }
}

/// One turn: an id for its messages, the proponent, the hack, a meta-amendment
/// (its author and its post) and the votes, privately.
type Turn<'a> = (
    &'a str,
    &'a String,
    &'a str,
    Option<(&'a String, &'a str)>,
    Vec<(&'a String, &'a str)>,
);

#[tokio::test(flavor = "multi_thread")]
async fn four_players_play_a_circuit_of_turns_by_mail_and_the_scores_follow_the_rules() {
    let bot = ImapBot::new("gnomic");
    // Hacks numbered from 301 would enact rules under the mechanics' numbers.
    let config = std::fs::read_to_string(bot.config_path()).expect("config");
    std::fs::write(
        bot.config_path(),
        crate::support::gnomic_rules_elsewhere(&config),
    )
    .expect("config");
    let moderator = bot.player("mod");
    let [alice, bob, carol, dave] = ["alice", "bob", "carol", "dave"].map(|p| bot.player(p));
    let mut sent = 0;
    for (who, name) in [
        (&alice, "Alice"),
        (&bob, "Bob"),
        (&carol, "Carol"),
        (&dave, "Dave"),
    ] {
        bot.send(
            who,
            true,
            &format!("[nomic] join {name}"),
            &format!("j-{name}"),
            "",
        )
        .await;
        sent += 1;
    }
    bot.send(&moderator, true, "[gnomic] start", "start", "")
        .await;
    sent += 1;
    delivered(&bot, sent).await;
    bot.cli(&["once"]);

    // Each turn: the post on the list, then the other players' votes, privately.
    let turns: [Turn<'_>; 4] = [
        (
            "t1",
            &alice,
            "hack 301 \"Singing\"\nenact\nPlayers may sing.\nend",
            None,
            vec![
                (&bob, "vote 301 for"),
                (&carol, "vote 301 for"),
                (&dave, "vote 301 against"),
            ],
        ),
        (
            "t2",
            &bob,
            "hack 302 \"Quiet\"\nenact\nPlayers may not sing.\nend",
            None,
            vec![
                (&alice, "vote 302 against"),
                (&carol, "vote 302 against"),
                (&dave, "vote 302 against"),
            ],
        ),
        (
            "t3",
            &carol,
            "hack 303 \"Jig\"\nenact\nFolk jigs: fun.\nend",
            // Dave meta-amends Carol's hack (401); it takes the next ordinal.
            Some((
                &dave,
                "hack 304 \"Jig, slowly\"\nenact\nFolk jigs: slow fun.\nend",
            )),
            vec![
                (&alice, "vote 303 for\nvote 304 for"),
                (&bob, "vote 303 for\nvote 304 against"),
                (&dave, "vote 303 for"),
                (&carol, "vote 304 against"),
            ],
        ),
        (
            "t4",
            &dave,
            "hack 305 \"No singing\" repeals 301",
            None,
            vec![
                (&alice, "vote 305 against"),
                (&bob, "vote 305 for"),
                (&carol, "vote 305 for"),
            ],
        ),
    ];
    let mut updates = Vec::new();
    for (n, (id, proponent, hack, meta, votes)) in turns.iter().enumerate() {
        bot.send(proponent, true, "[gnomic] turn", id, hack).await;
        sent += 1;
        delivered(&bot, sent).await;
        bot.cli(&["once"]);
        if let Some((author, meta)) = meta {
            bot.send(
                author,
                true,
                "[gnomic] meta 303",
                &format!("{id}-meta"),
                meta,
            )
            .await;
            sent += 1;
            delivered(&bot, sent).await;
            bot.cli(&["once"]);
        }
        for (i, (voter, vote)) in votes.iter().enumerate() {
            bot.send(voter, false, "[gnomic]", &format!("{id}-v{i}"), vote)
                .await;
            sent += 1;
        }
        delivered(&bot, sent).await;
        // Before the count, the votes are sealed: no reveal, no count on the list.
        let batch = format!("gnomic:turn:{}", n + 1);
        let before = list_mail(&bot).await;
        assert!(
            before.iter().all(|m| {
                let counted = m.subject.contains(&format!("Turn {} counted", n + 1));
                let revealed = m.raw.contains(&batch) && m.body.contains("salt");
                !(counted || revealed)
            }),
            "turn {} was revealed before its last vote",
            n + 1
        );
        bot.cli(&["once"]);
        updates.push(counted(&bot, n as u32 + 1).await);
    }

    // Turn 1, Alice's hack 301: Alice (the proponent, 402), Bob and Carol for,
    // Dave against. Adopted (322); 304: (301 − 291) × 3/4 = 7.5, rounded to 8
    // (407). 372 on the only proposal, "Singing" and "Players may sing.": the
    // commonest vowel is i (3 times); V = 3 < P/2 = 4, so 2 × (8 − 3) = 10
    // more. 204: Dave voted against a winning proposal: +10.
    assert_lines(
        &updates[0],
        &[
            "Alice: +8, hack 301 adopted (rule 304)",
            "Alice: +10, the vowel bonus on hack 301 (rule 372)",
            "Dave: +10, voted against hack 301, which won (rule 204)",
            "Alice: 18",
            "Bob: 0",
            "Carol: 0",
            "Dave: 10",
            "n, the winning threshold (rules 112, 310 and 431): 100.",
            "Next to play: Bob (rule 325).",
        ],
    );
    // Turn 2, Bob's hack 302: Bob for, the three others against: not adopted.
    // 304 scores each proposal: (302 − 291) × 1/4 = 2.75, rounded to 3; 421:
    // Bob loses (302 − 291) × 3/4 = 8.25, rounded to 8; 372 on "Quiet" and
    // "Players may not sing.": V = 2, P/2 < V < P, so P − V = 1.
    assert_lines(
        &updates[1],
        &[
            "Bob: +3, the favourable votes on hack 302, not adopted (rule 304)",
            "Bob: -8, hack 302 failed (rule 421)",
            "Bob: +1, the vowel bonus on hack 302 (rule 372)",
            "Alice: 18",
            "Bob: -4",
            "Carol: 0",
            "Dave: 10",
            "Next to play: Carol (rule 325).",
        ],
    );
    // Turn 3, Carol's hack 303: all four for: 304: (303 − 291) × 4/4 = 12. 372:
    // the commonest vowel of "Jig" and "Folk jigs: fun." is i, twice: V = 2 <
    // P/2 = 6, so 2 × (12 − 2) = 20 more. Dave's
    // meta-amendment 304: Dave (its author, 402) and Alice for, Bob and Carol
    // against: a tie adopts (392), so 304 takes effect instead of 303 (401) and
    // Dave receives half of Carol's 12 points, 6. 204 and 372 are the
    // proposals' (434): nobody voted against 303, and a meta-amendment's
    // opponents get nothing.
    assert_lines(
        &updates[2],
        &[
            "Carol: +12, hack 303 adopted (rule 304)",
            "Carol: +20, the vowel bonus on hack 303 (rule 372)",
            "Dave: +6, half the points",
            "meta-amendment 304 takes effect instead (rule 401)",
            "Alice: 18",
            "Bob: -4",
            "Carol: 32",
            "Dave: 16",
            "Next to play: Dave (rule 325).",
        ],
    );
    assert!(
        !updates[2].body.contains("voted against hack 304"),
        "{}",
        updates[2].body
    );
    // Turn 4, Dave's hack 305 repeals 301: Dave, Bob and Carol for, Alice
    // against: adopted, (305 − 291) × 3/4 = 10.5, rounded to 11 (407); a repeal
    // has no vowel bonus (372); Alice voted against the winner: +10. n stays 100:
    // twice the average of 28, −4 (as 0), 32 and 27 is 43.5, rounded up 44 (310).
    assert_lines(
        &updates[3],
        &[
            "Dave: +11, hack 305 adopted (rule 304)",
            "Alice: +10, voted against hack 305, which won (rule 204)",
            "Alice: 28",
            "Bob: -4",
            "Carol: 32",
            "Dave: 27",
            "n, the winning threshold (rules 112, 310 and 431): 100.",
            "Next to play: Alice (rule 325).",
        ],
    );
    assert!(
        !updates[3].body.contains("vowel bonus"),
        "{}",
        updates[3].body
    );

    // The ruleset followed: 301 enacted then repealed, 302 never, 304 in
    // effect instead of 303.
    let state: serde_json::Value =
        serde_json::from_str(&bot.cli(&["state", "--json"])).expect("state");
    let rules = state["ruleset"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        rules
            .iter()
            .any(|r| r["number"] == 304 && r["text"] == "Folk jigs: slow fun.")
    );
    assert!(
        !rules
            .iter()
            .any(|r| [301, 302, 303].contains(&r["number"].as_u64().unwrap_or(0)))
    );

    // Every turn's archived commitments and reveal pass verify-sealed.
    let list = list_mail(&bot).await;
    // Each batch as the subjects name it (issue 24: no internal id in a subject).
    let batches = [
        "the votes of turn 1",
        "the votes of turn 2",
        "the votes of turn 3",
        "the votes on hack 304 of turn 3",
        "the votes of turn 4",
    ];
    for (turn, batch) in batches.iter().enumerate() {
        let commitments = list
            .iter()
            .find(|m| m.subject.contains(&format!("of {batch}: ")))
            .unwrap_or_else(|| panic!("the commitments of {batch}"));
        let reveal = list
            .iter()
            .find(|m| m.subject.contains(&format!("of {batch} revealed")))
            .unwrap_or_else(|| panic!("the reveal of {batch}"));
        let dir = bot.dir.path();
        let (c, r) = (
            dir.join(format!("c{turn}.eml")),
            dir.join(format!("r{turn}.eml")),
        );
        std::fs::write(&c, &commitments.raw).expect("write");
        std::fs::write(&r, &reveal.raw).expect("write");
        let out = bot.cli(&[
            "verify-sealed",
            &c.display().to_string(),
            &r.display().to_string(),
        ]);
        assert!(out.contains("3 sealed action(s)"), "{batch}: {out}");
    }
}
