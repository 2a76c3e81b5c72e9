//! The forged-sender suite (issue 23): every way a player might pass for a
//! moderator or for another player, under the shipped `auth = "dkim"` (the bot
//! checks DKIM itself, against the pinned test keys) and under the README's
//! `auth = "dmarc"` setup (our server's `Authentication-Results`, stamped here
//! by mail-auth). No forgery gains an office or another player's account.
//! Signatures are real (Ed25519, mail-auth); the helpers are `auth.rs`'s.

use jiff::{SignedDuration, Timestamp};

use crate::auth::{
    ALICE, Game, LIST_DOMAIN, MALLORY, MODERATOR, OFFICER_LINES, arc_sealed,
    assert_refused_and_holder_told, config, forger_sealed, mail, munged, private, signed,
    signed_over, stamped,
};
use crate::support::{LocalBot, alias_code};

/// Both setups: the shipped default and the README's server-stamped one.
const MODES: [&str; 2] = ["dkim", "dmarc"];

/// A forgery that claims the moderator's own address: refused whole, and the
/// moderator told.
fn claims_the_moderator(raw: impl Fn(&str) -> String) {
    for mode in MODES {
        let mut game = Game::new(mode);
        let before = game.events();
        game.deliver(&stamped(&raw(mode)));
        assert_refused_and_holder_told(&game, before, MODERATOR);
    }
}

/// A forgery that reads as someone else's mail (Mallory's, or nobody's): it
/// does nothing an office could, and nothing to anyone's money or freedom.
fn gains_nothing(raw: impl Fn(&str) -> String) {
    for mode in MODES {
        let mut game = Game::new(mode);
        let before = game.events();
        game.deliver(&stamped(&raw(mode)));
        assert_eq!(
            game.events(),
            before,
            "{mode}: the forgery recorded nothing"
        );
        assert_eq!(game.balance("Mallory"), 20, "{mode}");
        assert_eq!(game.balance("Alice"), 20, "{mode}");
        assert!(!game.in_gaol("Alice"), "{mode}");
    }
}

#[test]
fn forged_from_of_the_moderator() {
    claims_the_moderator(|mode| {
        private(
            MODERATOR,
            "[nomic] fix",
            &format!("f-{mode}@t"),
            OFFICER_LINES,
        )
    });
}

#[test]
fn forged_from_of_the_moderator_in_upper_case() {
    claims_the_moderator(|mode| {
        private(
            "MOD@MOD.EXAMPLE",
            "[nomic] fix",
            &format!("f-upper-{mode}@t"),
            OFFICER_LINES,
        )
    });
}

#[test]
fn forged_from_of_the_moderator_signed_by_the_forgers_own_domain() {
    claims_the_moderator(|mode| {
        signed(
            &mail(
                &[
                    ("From", MODERATOR),
                    ("Sender", MALLORY),
                    ("To", "bot@nomic.example"),
                    ("Subject", "[nomic] fix"),
                    ("Message-ID", &format!("<f-sender-{mode}@t>")),
                ],
                OFFICER_LINES,
            ),
            "mallory.example",
        )
    });
}

#[test]
fn two_from_headers_naming_the_moderator_first() {
    for mode in MODES {
        let mut game = Game::new(mode);
        let before = game.events();
        // Mallory's own signature covers both From headers.
        let raw = signed(
            &mail(
                &[
                    ("From", MODERATOR),
                    ("From", MALLORY),
                    ("To", "bot@nomic.example"),
                    ("Subject", "[nomic] fix"),
                    ("Message-ID", &format!("<two-from-{mode}@t>")),
                ],
                OFFICER_LINES,
            ),
            "mallory.example",
        );
        game.deliver(&stamped(&raw));
        assert_eq!(game.events(), before, "{mode}: nothing recorded");
        assert_eq!(game.balance("Mallory"), 20, "{mode}");
        assert!(!game.in_gaol("Alice"), "{mode}");
    }
}

#[test]
fn sender_header_naming_the_moderator() {
    gains_nothing(|mode| {
        mail(
            &[
                ("From", MALLORY),
                ("Sender", MODERATOR),
                ("To", "bot@nomic.example"),
                ("Subject", "[nomic] fix"),
                ("Message-ID", &format!("<sender-mod-{mode}@t>")),
            ],
            OFFICER_LINES,
        )
    });
}

#[test]
fn encoded_word_display_name_spelling_the_moderators_address() {
    gains_nothing(|mode| {
        private(
            &format!("=?utf-8?q?mod=40mod=2Eexample?= <{MALLORY}>"),
            "[nomic] fix",
            &format!("ew-name-{mode}@t"),
            OFFICER_LINES,
        )
    });
}

#[test]
fn encoded_word_standing_for_the_whole_address() {
    // "mod@mod.example", base64: a display name with no address at all.
    gains_nothing(|mode| {
        private(
            "=?utf-8?b?bW9kQG1vZC5leGFtcGxl?=",
            "[nomic] fix",
            &format!("ew-addr-{mode}@t"),
            OFFICER_LINES,
        )
    });
}

#[test]
fn confusable_address_with_a_cyrillic_o() {
    gains_nothing(|mode| {
        private(
            "mod@m\u{043e}d.example",
            "[nomic] fix",
            &format!("cyr-{mode}@t"),
            OFFICER_LINES,
        )
    });
}

#[test]
fn quoted_display_name_holding_the_moderators_address() {
    gains_nothing(|mode| {
        private(
            &format!("\"{MODERATOR}\" <{MALLORY}>"),
            "[nomic] fix",
            &format!("quoted-{mode}@t"),
            OFFICER_LINES,
        )
    });
}

#[test]
fn munged_from_whose_reply_to_names_the_moderator() {
    claims_the_moderator(|mode| {
        munged(
            "Mallory",
            ("Reply-To", MODERATOR),
            "[nomic] fix",
            &format!("munged-{mode}@t"),
            OFFICER_LINES,
        )
    });
}

#[test]
fn forged_authentication_results_claiming_a_pass() {
    claims_the_moderator(|mode| {
        format!(
            "Authentication-Results: mx.nomic.example; dkim=pass header.d=mod.example; dmarc=pass header.from=mod.example\r\n{}",
            private(
                MODERATOR,
                "[nomic] fix",
                &format!("ar-{mode}@t"),
                OFFICER_LINES
            )
        )
    });
}

#[test]
fn a_genuine_signed_command_replayed_under_a_new_message_id_is_a_duplicate() {
    for mode in MODES {
        let mut game = Game::new(mode);
        // Many signers leave Message-ID out of the signature.
        let id = format!("<pay-{mode}@t>");
        let genuine = signed_over(
            &private(
                MODERATOR,
                "[nomic] pay",
                &id[1..id.len() - 1],
                "adjust Mallory 5 A$ because a prize",
            ),
            "mod.example",
            &["From", "To", "Subject", "Date"],
        );
        game.deliver(&stamped(&genuine));
        assert_eq!(
            game.balance("Mallory"),
            25,
            "{mode}: the genuine one is applied"
        );
        let before = game.events();
        // Anyone who received it re-sends it with a new Message-ID, and the
        // signature still verifies; or puts a new one on top of a signed one.
        for replayed in [
            genuine.replace(&id, &format!("<replay-{mode}@evil.example>")),
            format!("Message-ID: <replay-top-{mode}@evil.example>\r\n{genuine}"),
        ] {
            game.deliver(&stamped(&replayed));
            assert_eq!(game.events(), before, "{mode}: the replay recorded nothing");
            assert_eq!(game.balance("Mallory"), 25, "{mode}");
        }
        assert!(
            game.aside().contains("a replay"),
            "{mode}: {}",
            game.aside()
        );
    }
}

#[test]
fn an_officer_command_signed_long_before_it_arrived_is_refused() {
    for mode in MODES {
        let bot = LocalBot::with_config(&config(mode));
        let join = |name: &str, address: &str, id: &str| {
            let domain = address.split('@').nth(1).expect("domain");
            stamped(&signed(
                &private(address, "[nomic] join", id, &format!("join {name}")),
                domain,
            ))
        };
        // The signatures' t= is the signing moment: the bot reads mail that
        // arrives days later.
        let later = Timestamp::now() + SignedDuration::from_hours(96);
        bot.deliver("j1", &join("Mod", MODERATOR, "j1@t"), later);
        bot.deliver("j2", &join("Alice", ALICE, "j2@t"), later);
        let old = stamped(&signed(
            &private(
                MODERATOR,
                "[nomic] pay",
                "old@t",
                "adjust Alice 5 A$ because a prize",
            ),
            "mod.example",
        ));
        bot.deliver("old", &old, later + SignedDuration::from_mins(1));
        bot.once(later + SignedDuration::from_mins(2));
        let notice = bot
            .sent_mail()
            .into_iter()
            .find(|m| m.is_to(MODERATOR) && m.subject.contains("not applied"))
            .unwrap_or_else(|| panic!("{mode}: the moderator is told"));
        assert!(
            notice.body.contains("hours before it arrived"),
            "{mode}: {}",
            notice.body
        );
        let state = bot.state_json();
        assert!(
            state["accounts"].to_string().matches("\"5\"").count() == 0,
            "{mode}: nothing was paid: {}",
            state["accounts"]
        );
    }
}

#[test]
fn a_forged_alias_never_makes_the_forgers_address_a_players() {
    for mode in MODES {
        let mut game = Game::new(mode);
        game.deliver(&stamped(&private(
            ALICE,
            "[nomic] alias",
            &format!("al-{mode}@t"),
            "alias eve@evil.example",
        )));
        game.deliver(&stamped(&private(
            "eve@evil.example",
            "[nomic] confirm",
            &format!("co-{mode}@t"),
            "confirm",
        )));
        // Eve, now, as Alice: pays herself Alice's money.
        game.deliver(&stamped(&private(
            "eve@evil.example",
            "[nomic] give",
            &format!("gv-{mode}@t"),
            "give 10 A$ to Mallory",
        )));
        assert_eq!(game.balance("Alice"), 20, "{mode}: Alice's money is hers");
        let code_went_to = game.mail_to(ALICE);
        assert!(
            code_went_to.iter().any(|m| alias_code(m).is_some()),
            "{mode}: the code went to Alice, whom the forger cannot read"
        );
    }
}

#[test]
fn a_forged_passphrase_set_on_the_moderators_address_gives_no_office() {
    for mode in MODES {
        let mut game = Game::new(mode);
        game.deliver(&stamped(&private(
            MODERATOR,
            "[nomic] passphrase",
            &format!("pp-set-{mode}@t"),
            "passphrase set mallory knows this",
        )));
        let before = game.events();
        game.deliver(&stamped(&private(
            MODERATOR,
            "[nomic] fix",
            &format!("pp-use-{mode}@t"),
            &format!("passphrase: mallory knows this\n{OFFICER_LINES}"),
        )));
        assert_eq!(
            game.events(),
            before,
            "{mode}: the passphrase is not set, and gives nothing"
        );
        assert_eq!(game.balance("Mallory"), 20, "{mode}");
        assert!(!game.in_gaol("Alice"), "{mode}");
        let code_mail = game
            .mail_to(MODERATOR)
            .into_iter()
            .find(|m| m.subject.contains("Confirm the passphrase"));
        assert!(
            code_mail.is_some(),
            "{mode}: the code went to the moderator alone"
        );
    }
}

/// The shipped configuration exactly, moderators added: DNS on, no key pinned.
fn shipped() -> LocalBot {
    let text = nomicbot::config::DEFAULT_CONFIG.replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    assert!(
        text.contains("\nauth = \"dkim\"\n"),
        "the shipped default checks DKIM"
    );
    LocalBot::with_config(&text)
}

#[test]
fn shipped_config_a_forged_moderator_gains_nothing_and_a_real_one_learns_about_passphrases() {
    let bot = shipped();
    let start = Timestamp::from_second(1_800_000_000).expect("a time");
    let at = |minutes: i64| start + SignedDuration::from_mins(minutes);
    bot.deliver(
        "j1",
        &private(MODERATOR, "[nomic] join", "j1@t", "join Mod"),
        at(1),
    );
    bot.deliver(
        "j2",
        &private(ALICE, "[nomic] join", "j2@t", "join Alice"),
        at(2),
    );
    bot.deliver(
        "fix",
        &private(
            MODERATOR,
            "[nomic] fix",
            "fix@t",
            "adjust Alice 100 A$ because I say so",
        ),
        at(3),
    );
    bot.once(at(4));
    assert!(
        !bot.state_json()["accounts"].to_string().contains("\"100\""),
        "no office from unsigned mail"
    );
    let notice = bot
        .sent_mail()
        .into_iter()
        .find(|m| m.is_to(MODERATOR) && m.subject.contains("not applied"))
        .expect("the holder of the address is told");
    assert!(notice.body.contains("passphrase set"), "{}", notice.body);

    // The moderator (or so the mail says) sets a passphrase: a code comes back to
    // the address, and only the address's holder can send it.
    bot.deliver(
        "pp",
        &private(
            MODERATOR,
            "[nomic] passphrase",
            "pp@t",
            "passphrase set the moderators words",
        ),
        at(5),
    );
    bot.once(at(6));
    let code_mail = bot
        .sent_mail()
        .into_iter()
        .find(|m| m.is_to(MODERATOR) && m.subject.contains("Confirm the passphrase"))
        .expect("the code is mailed to the address");
    let code = code_mail
        .body
        .lines()
        .find_map(|line| line.trim().strip_prefix("passphrase confirm "))
        .expect("the code line")
        .to_owned();
    bot.deliver(
        "cf",
        &private(
            MODERATOR,
            "[nomic] passphrase",
            "cf@t",
            &format!("passphrase confirm {code}"),
        ),
        at(7),
    );
    bot.deliver(
        "fix2",
        &private(
            MODERATOR,
            "[nomic] fix",
            "fix2@t",
            "passphrase: the moderators words\nadjust Alice 100 A$ because a prize",
        ),
        at(8),
    );
    bot.once(at(9));
    assert!(
        bot.state_json()["accounts"].to_string().contains("\"100\""),
        "with the passphrase, the office"
    );
}

/// Mallory's own domain: she has a key there.
const MALLORY_DOMAIN: &str = "mallory.example";

/// The moderator's command as it reached the list, and as the list passed it on:
/// the subject tagged, a footer added, which breaks the moderator's signature.
fn through_a_munging_list(received: &str) -> String {
    let forwarded = received
        .replace("Subject: [nomic] pay", "Subject: [game-list] [nomic] pay")
        .replace(
            "because a prize\r\n",
            "because a prize\r\n_______________________________________________\r\ngame-list\r\n",
        );
    arc_sealed(received, &forwarded, LIST_DOMAIN, "mx.nomic.example")
}

#[test]
fn arc_a_post_the_list_changed_keeps_its_authors_office_by_the_lists_seal() {
    let mut game = Game::new("dkim");
    let genuine = signed(
        &private(
            MODERATOR,
            "[nomic] pay",
            "arc-pay@t",
            "adjust Mallory 5 A$ because a prize",
        ),
        "mod.example",
    );
    let sealed = through_a_munging_list(&genuine);
    assert!(sealed.contains("ARC-Seal:"), "{sealed}");
    game.deliver(&sealed);
    assert_eq!(
        game.balance("Mallory"),
        25,
        "the list's seal records the moderator's signature"
    );
}

#[test]
fn arc_a_chain_a_forger_began_is_not_the_lists_word() {
    let mut game = Game::new("dkim");
    let before = game.events();
    // Mallory seals a first set of her own that claims the moderator's pass; the
    // list, checking what it got, seals on top: the chain verifies.
    let forged = private(
        MODERATOR,
        "[nomic] pay",
        "arc-forged@t",
        "adjust Mallory 5 A$ because a prize",
    );
    let mallorys = forger_sealed(&forged, MALLORY_DOMAIN, "mod.example");
    assert!(
        mallorys.contains("dkim=pass"),
        "her set claims a pass: {mallorys}"
    );
    game.deliver(&through_a_munging_list(&mallorys));
    assert_eq!(
        game.events(),
        before,
        "no office from a set the list did not seal"
    );
    assert_eq!(game.balance("Mallory"), 20);
}

#[test]
fn check_reads_the_pinned_keys_and_names_a_bad_line() {
    let bot = LocalBot::with_config(&config("dkim"));
    let out = bot.cli_ok(&["check"]);
    assert!(
        out.contains("senders: DKIM checked by the bot (keys pinned in"),
        "{out}"
    );
    let bad = bot.dir.path().join("bad-keys.txt");
    std::fs::write(&bad, "# pinned\nnot a record\n").expect("write keys");
    let text = std::fs::read_to_string(bot.config_path()).expect("bot.toml");
    let line = text
        .lines()
        .find(|line| line.starts_with("dkim_keys = "))
        .expect("the keys line")
        .to_owned();
    std::fs::write(
        bot.config_path(),
        text.replace(&line, "dkim_keys = \"bad-keys.txt\""),
    )
    .expect("bot.toml");
    let check = bot.cli(&["check"]);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(!check.status.success());
    assert!(stderr.contains("bad-keys.txt:2:"), "{stderr}");
}

#[test]
fn check_says_loudly_that_auth_none_believes_from() {
    let bot = LocalBot::with_config(crate::support::trusting());
    let out = bot.cli_ok(&["check"]);
    assert!(
        out.contains("WARNING: identity.auth = \"none\" believes From"),
        "{out}"
    );
}
