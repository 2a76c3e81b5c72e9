//! Sender authentication (hardening issue, item 3: "Anyone gets moderator powers
//! through sender recovery"). Every message here is really DKIM-signed with
//! mail-auth (Ed25519 test keys), verified by mail-auth against an in-memory
//! resolver cache holding the test keys (no DNS), and stamped with the
//! `Authentication-Results` the receiving server would write; then it goes through
//! the real pipeline (`LocalBot`). Each regression test is named after a forgery.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use mail_auth::common::crypto::Ed25519Key;
use mail_auth::common::headers::HeaderWriter;
use mail_auth::common::parse::TxtRecordParser;
use mail_auth::common::verify::DomainKey;
use mail_auth::dkim::DkimSigner;
use mail_auth::hickory_resolver::config::{ResolverConfig, ResolverOpts};
use mail_auth::{AuthenticatedMessage, AuthenticationResults, MessageAuthenticator, Parameters};
use mail_auth::{ResolverCache, Txt};

use crate::support::{LocalBot, SentMail, at};

/// Our receiving server's authserv-id.
pub(crate) const OURS: &str = "mx.nomic.example";
pub(crate) const LIST: &str = "game-list@nomic.example";
pub(crate) const LIST_DOMAIN: &str = "nomic.example";
pub(crate) const MODERATOR: &str = "mod@mod.example";
pub(crate) const RULES_OFFICER: &str = "keeper@rules.example";
pub(crate) const ALICE: &str = "alice@alice.example";
pub(crate) const BOB: &str = "bob@bob.example";
pub(crate) const MALLORY: &str = "mallory@mallory.example";
/// The domains that have a test key.
const DOMAINS: &[&str] = &[
    "mod.example",
    "rules.example",
    "alice.example",
    "bob.example",
    "mallory.example",
    LIST_DOMAIN,
];

// ---------------------------------------------------------------------------
// DKIM: test keys, signing, verifying, stamping
// ---------------------------------------------------------------------------

/// An in-memory DNS cache: the TXT records of the test keys.
#[derive(Default)]
struct Records(Mutex<HashMap<Box<str>, Txt>>);

impl ResolverCache<Box<str>, Txt> for Records {
    fn get<Q>(&self, name: &Q) -> Option<Txt>
    where
        Box<str>: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.0.lock().expect("lock").get(name).cloned()
    }

    fn remove<Q>(&self, name: &Q) -> Option<Txt>
    where
        Box<str>: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.0.lock().expect("lock").remove(name)
    }

    fn insert(&self, key: Box<str>, value: Txt, _valid_until: std::time::Instant) {
        self.0.lock().expect("lock").insert(key, value);
    }
}

struct Keys {
    /// PKCS#8 of each domain's Ed25519 key.
    private: HashMap<&'static str, Vec<u8>>,
    records: Records,
    /// The same records as the bot's `identity.dkim_keys` file.
    file: std::path::PathBuf,
    /// Each domain's record, as published.
    published: HashMap<&'static str, String>,
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0_u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

pub(crate) fn keys_file() -> &'static Path {
    &keys().file
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let records = Records::default();
        let mut private = HashMap::new();
        let mut lines = String::from("# the test keys\n");
        let mut published = HashMap::new();
        for domain in DOMAINS {
            let pkcs8 = Ed25519Key::generate_pkcs8().expect("generate a test key");
            let key = Ed25519Key::from_pkcs8_der(&pkcs8).expect("read the test key");
            let record = format!("v=DKIM1; k=ed25519; p={}", base64(&key.public_key()));
            let domain_key = DomainKey::parse(record.as_bytes()).expect("a DKIM record");
            records.insert(
                format!("test._domainkey.{domain}.").into_boxed_str(),
                Txt::from(domain_key),
                std::time::Instant::now() + std::time::Duration::from_secs(3600),
            );
            lines.push_str(&format!("test._domainkey.{domain}.  {record}\n"));
            private.insert(*domain, pkcs8);
            published.insert(*domain, record.clone());
        }
        // Under the target's own scratch folder, not /tmp: the keys live as
        // long as the test process and nothing would remove them from /tmp.
        let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("dkim-keys-{}.txt", std::process::id()));
        std::fs::write(&file, lines).expect("the keys file");
        Keys {
            private,
            records,
            file,
            published,
        }
    })
}

/// The message with a DKIM-Signature of `domain` (selector `test`) on top.
pub(crate) fn signed(raw: &str, domain: &str) -> String {
    signed_over(
        raw,
        domain,
        &[
            "From",
            "To",
            "Cc",
            "Reply-To",
            "X-Original-From",
            "Subject",
            "Message-ID",
            "Date",
        ],
    )
}

/// The message with a DKIM-Signature of `domain` over these headers.
pub(crate) fn signed_over(raw: &str, domain: &str, headers: &[&str]) -> String {
    let keys = keys();
    let key = Ed25519Key::from_pkcs8_der(&keys.private[domain]).expect("the test key");
    let signature = DkimSigner::from_key(key)
        .domain(domain)
        .selector("test")
        .headers(headers.iter().copied())
        .sign(raw.as_bytes())
        .expect("sign");
    format!("{}{raw}", signature.to_header())
}

/// What a list with ARC does (RFC 8617): it checks `received` (its signatures
/// and chain) as the server `authserv_id`, then seals `forwarded`, the message
/// it passes on (with its subject prefix or footer), as `sealer`.
pub(crate) fn arc_sealed(
    received: &str,
    forwarded: &str,
    sealer: &str,
    authserv_id: &str,
) -> String {
    arc_sealed_believing(received, forwarded, sealer, authserv_id, &keys().records)
}

/// A forger's seal: she "checks" what she got against key records of her own
/// making: `impostor`'s key published as `victim`'s.
pub(crate) fn forger_sealed(raw: &str, forger: &str, victim: &str) -> String {
    let records = Records::default();
    let record = DomainKey::parse(keys().published[forger].as_bytes()).expect("a DKIM record");
    records.insert(
        format!("test._domainkey.{victim}.").into_boxed_str(),
        Txt::from(record),
        std::time::Instant::now() + std::time::Duration::from_secs(3600),
    );
    // Signed with the forger's key, as the victim's domain.
    let key = Ed25519Key::from_pkcs8_der(&keys().private[forger]).expect("the test key");
    let signature = DkimSigner::from_key(key)
        .domain(victim)
        .selector("test")
        .headers(["From", "To", "Subject", "Message-ID", "Date"])
        .sign(raw.as_bytes())
        .expect("sign");
    let signed = format!("{}{raw}", signature.to_header());
    arc_sealed_believing(&signed, &signed, forger, &format!("mx.{victim}"), &records)
}

fn arc_sealed_believing(
    received: &str,
    forwarded: &str,
    sealer: &str,
    authserv_id: &str,
    believed: &Records,
) -> String {
    let message = AuthenticatedMessage::parse(received.as_bytes()).expect("a message");
    let authenticator = MessageAuthenticator::new(
        ResolverConfig::from_name_servers(Vec::new()),
        ResolverOpts::default(),
    )
    .expect("a resolver with no server");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (dkim, arc) = runtime.block_on(async {
        let dkim = authenticator
            .verify_dkim(Parameters::new(&message).with_txt_cache(believed))
            .await;
        let arc = authenticator
            .verify_arc(Parameters::new(&message).with_txt_cache(believed))
            .await;
        (dkim, arc)
    });
    let results = AuthenticationResults::new(authserv_id)
        .with_dkim_results(&dkim, message.from())
        .with_arc_result(&arc, std::net::Ipv4Addr::LOCALHOST.into());
    let forwarded_message = AuthenticatedMessage::parse(forwarded.as_bytes()).expect("a message");
    let key = Ed25519Key::from_pkcs8_der(&keys().private[sealer]).expect("the test key");
    let set = mail_auth::arc::ArcSealer::from_key(key)
        .domain(sealer)
        .selector("test")
        .headers(["From", "To", "Subject", "Message-ID", "DKIM-Signature"])
        .seal(&forwarded_message, &results, &arc)
        .expect("seal");
    format!("{}{forwarded}", set.to_header())
}

/// What our receiving server does: verify every DKIM signature (mail-auth, the
/// test keys only) and put its `Authentication-Results` on top.
pub(crate) fn stamped(raw: &str) -> String {
    let message = AuthenticatedMessage::parse(raw.as_bytes()).expect("an authenticated message");
    let authenticator = MessageAuthenticator::new(
        ResolverConfig::from_name_servers(Vec::new()),
        ResolverOpts::default(),
    )
    .expect("a resolver with no server");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let outputs = runtime.block_on(
        authenticator.verify_dkim(Parameters::new(&message).with_txt_cache(&keys().records)),
    );
    let results = AuthenticationResults::new(OURS).with_dkim_results(&outputs, message.from());
    format!("{}{raw}", results.to_header())
}

/// A message with these headers (CRLF), as a mail program writes it.
pub(crate) fn mail(headers: &[(&str, &str)], body: &str) -> String {
    let mut raw = String::new();
    for (name, value) in headers {
        raw.push_str(&format!("{name}: {value}\r\n"));
    }
    raw.push_str(
        "Date: Mon, 5 Jan 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n",
    );
    raw.push_str(&body.replace('\n', "\r\n"));
    raw.push_str("\r\n");
    raw
}

/// A private message from `from` to the bot.
pub(crate) fn private(from: &str, subject: &str, id: &str, body: &str) -> String {
    mail(
        &[
            ("From", from),
            ("To", "bot@nomic.example"),
            ("Subject", subject),
            ("Message-ID", &format!("<{id}>")),
        ],
        body,
    )
}

/// A message through the list that rewrote From to itself (DMARC munging), with
/// the author in `author_header`, signed by the list.
pub(crate) fn munged(
    display: &str,
    author_header: (&str, &str),
    subject: &str,
    id: &str,
    body: &str,
) -> String {
    let from = format!("\"{display} via game-list\" <{LIST}>");
    signed(
        &mail(
            &[
                ("From", &from),
                author_header,
                ("To", LIST),
                ("List-Id", "<game-list.nomic.example>"),
                ("Subject", subject),
                ("Message-ID", &format!("<{id}>")),
            ],
            body,
        ),
        LIST_DOMAIN,
    )
}

// ---------------------------------------------------------------------------
// The bot
// ---------------------------------------------------------------------------

pub(crate) fn config(auth: &str) -> String {
    nomicbot::config::DEFAULT_CONFIG
        .replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        )
        .replace("rules = []", &format!("rules = [\"{RULES_OFFICER}\"]"))
        .replace("auth = \"dkim\"", &format!("auth = \"{auth}\""))
        .replace(
            "# authserv_id = \"mx.nomic.example\"",
            &format!("authserv_id = \"{OURS}\""),
        )
        .replace(
            "# dkim_keys = \"dkim-keys.txt\"",
            &format!("dkim_keys = {:?}", keys().file.display().to_string()),
        )
        .replace("\ndns = true\n", "\ndns = false\n")
}

pub(crate) struct Game {
    pub(crate) bot: LocalBot,
    pub(crate) minute: i64,
}

impl Game {
    /// A bot under `auth = "dmarc"`; Mod (the moderator), Alice and Bob have joined
    /// with signed mail, Mallory with mail that is not.
    pub(crate) fn new(auth: &str) -> Game {
        let mut game = Game {
            bot: LocalBot::with_config(&config(auth)),
            minute: 0,
        };
        for (address, name) in [(MODERATOR, "Mod"), (ALICE, "Alice"), (BOB, "Bob")] {
            let domain = address.split('@').nth(1).expect("domain");
            game.deliver(&stamped(&signed(
                &private(
                    address,
                    "[nomic] join",
                    &format!("join-{name}@test"),
                    &format!("join {name}"),
                ),
                domain,
            )));
        }
        game.deliver(&private(
            MALLORY,
            "[nomic] join",
            "join-mallory@test",
            "join Mallory",
        ));
        game.deliver(&stamped(&signed(
            &private(
                MODERATOR,
                "[nomic] money",
                "money@test",
                "adjust Alice 20 A$ because a start\nadjust Mallory 20 A$ because a start",
            ),
            "mod.example",
        )));
        assert_eq!(
            game.balance("Mallory"),
            20,
            "the signed moderator's adjust is applied"
        );
        game
    }

    pub(crate) fn deliver(&mut self, raw: &str) {
        self.minute += 1;
        let when = at("2026-01-05T10:00:00Z") + jiff::SignedDuration::from_mins(self.minute);
        self.bot.deliver(&format!("m{}", self.minute), raw, when);
        self.bot.once(when);
    }

    pub(crate) fn events(&self) -> usize {
        self.bot.log_json().len()
    }

    pub(crate) fn balance(&self, name: &str) -> i64 {
        let state = self.bot.state_json();
        let id = state["players"]["players"]
            .as_array()
            .and_then(|players| players.iter().find(|p| p["name"] == name))
            .map(|p| p["id"].clone())
            .expect("the player");
        let text = state["accounts"].to_string();
        // Amounts are exact numbers written as text.
        let balance = state["accounts"]["balances"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|b| b["holder"]["player"] == id && b["currency"] == "A$")
            .and_then(|b| b["amount"].as_str().map(str::to_owned))
            .unwrap_or_else(|| "0".to_owned());
        balance
            .parse()
            .unwrap_or_else(|_| panic!("a whole balance in {text}"))
    }

    pub(crate) fn in_gaol(&self, name: &str) -> bool {
        self.bot.state_json()["players"]["players"]
            .as_array()
            .and_then(|players| players.iter().find(|p| p["name"] == name))
            .is_some_and(|p| p["in_gaol"] == true)
    }

    pub(crate) fn mail_to(&self, address: &str) -> Vec<SentMail> {
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(address))
            .collect()
    }

    pub(crate) fn notices_to(&self, address: &str) -> Vec<SentMail> {
        self.mail_to(address)
            .into_iter()
            .filter(|m| m.subject.contains("A message in your name was not applied"))
            .collect()
    }

    pub(crate) fn aside(&self) -> String {
        self.bot.inbox_with_status("aside")
    }
}

pub(crate) const OFFICER_LINES: &str = "adjust Mallory 100 A$ because I say so\ngaol Alice because I say so\nas Alice because she asked: give 10 A$ to Mallory";

/// The forgery did nothing: no event, the moderator told, the attempt on record.
pub(crate) fn assert_refused_and_holder_told(game: &Game, events_before: usize, holder: &str) {
    assert_eq!(game.events(), events_before, "the forgery recorded nothing");
    assert_eq!(game.balance("Mallory"), 20);
    assert_eq!(game.balance("Alice"), 20);
    assert!(!game.in_gaol("Alice"));
    let notices = game.notices_to(holder);
    assert_eq!(notices.len(), 1, "the holder of {holder} is told once");
    let notice = &notices[0];
    assert!(
        notice.body.contains("could not be authenticated"),
        "{}",
        notice.body
    );
    assert!(
        notice.body.contains("adjust Mallory 100 A$"),
        "{}",
        notice.body
    );
    assert!(
        notice.body.contains("From:"),
        "the headers are summarised: {}",
        notice.body
    );
    assert!(
        game.aside()
            .contains("officer commands from a sender who is not authenticated")
    );
}

// ---------------------------------------------------------------------------
// The forgeries
// ---------------------------------------------------------------------------

#[test]
fn forged_from_of_the_moderator_is_refused_and_the_moderator_told() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    // Mallory writes the moderator's address in From; her server signs nothing
    // for mod.example, so ours stamps no pass.
    game.deliver(&stamped(&private(
        MODERATOR,
        "[nomic] fix",
        "forged@test",
        OFFICER_LINES,
    )));
    assert_refused_and_holder_told(&game, before, MODERATOR);
}

#[test]
fn munged_from_with_reply_to_of_the_moderator_is_refused() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    game.deliver(&stamped(&munged(
        "Mallory",
        ("Reply-To", MODERATOR),
        "[nomic] fix",
        "munged-reply-to@test",
        OFFICER_LINES,
    )));
    assert_refused_and_holder_told(&game, before, MODERATOR);
}

#[test]
fn munged_from_with_cc_of_the_moderator_is_refused() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    game.deliver(&stamped(&munged(
        "Mallory",
        ("Cc", MODERATOR),
        "[nomic] fix",
        "munged-cc@test",
        OFFICER_LINES,
    )));
    assert_refused_and_holder_told(&game, before, MODERATOR);
}

#[test]
fn munged_from_with_x_original_from_of_the_moderator_is_refused() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    game.deliver(&stamped(&munged(
        "Mallory",
        ("X-Original-From", MODERATOR),
        "[nomic] fix",
        "munged-x-original-from@test",
        OFFICER_LINES,
    )));
    assert_refused_and_holder_told(&game, before, MODERATOR);
}

#[test]
fn authentication_results_of_another_authserv_id_are_ignored() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    // Mallory adds her own verdict; ours (on top) has none for mod.example.
    let forged = private(
        MODERATOR,
        "[nomic] fix",
        "other-authserv@test",
        OFFICER_LINES,
    );
    let with_hers = format!(
        "Authentication-Results: mx.mallory.example; dkim=pass header.d=mod.example; dmarc=pass header.from=mod.example\r\n{forged}"
    );
    game.deliver(&stamped(&with_hers));
    assert_refused_and_holder_told(&game, before, MODERATOR);
}

/// Mallory's own header claiming our authserv-id, a pass for the moderator.
const FORGED_OURS: &str = "Authentication-Results: mx.nomic.example; dkim=pass header.d=mod.example; dmarc=pass header.from=mod.example\r\n";

#[test]
fn forged_authentication_results_right_below_ours_is_not_believed() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    // Our server (which forgot to remove it) stamps its fail right above it.
    let forged = format!(
        "{FORGED_OURS}{}",
        private(MODERATOR, "[nomic] fix", "forged-below@test", OFFICER_LINES)
    );
    game.deliver(&stamped(&forged));
    assert_refused_and_holder_told(&game, before, MODERATOR);
}

#[test]
fn forged_authentication_results_right_above_ours_is_not_believed() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    let genuine = stamped(&private(
        MODERATOR,
        "[nomic] fix",
        "forged-above@test",
        OFFICER_LINES,
    ));
    game.deliver(&format!("{FORGED_OURS}{genuine}"));
    assert_refused_and_holder_told(&game, before, MODERATOR);
}

#[test]
fn forged_authentication_results_further_down_is_never_read() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    let forged = format!(
        "Received: from mallory.example by relay.mallory.example; Mon, 5 Jan 2026 10:00:00 +0000\r\n{FORGED_OURS}{}",
        private(
            MODERATOR,
            "[nomic] fix",
            "forged-further@test",
            OFFICER_LINES
        )
    );
    game.deliver(&stamped(&forged));
    assert_refused_and_holder_told(&game, before, MODERATOR);
}

#[test]
fn the_lists_own_signature_does_not_authenticate_a_moderator_of_its_domain() {
    // The moderator's address is of the list's own domain, which the list signs with.
    const BOSS: &str = "boss@nomic.example";
    let mut game = Game::new("dmarc");
    game.bot = LocalBot::with_config(&config("dmarc").replace(
        &format!("moderators = [\"{MODERATOR}\"]"),
        &format!("moderators = [\"{MODERATOR}\", \"{BOSS}\"]"),
    ));
    game.minute = 0;
    for (address, name) in [(MODERATOR, "Mod"), (ALICE, "Alice")] {
        let domain = address.split('@').nth(1).expect("domain");
        game.deliver(&stamped(&signed(
            &private(
                address,
                "[nomic] join",
                &format!("join-{name}@again"),
                &format!("join {name}"),
            ),
            domain,
        )));
    }
    game.deliver(&private(
        MALLORY,
        "[nomic] join",
        "join-mallory@again",
        "join Mallory",
    ));
    game.deliver(&stamped(&signed(
        &private(
            MODERATOR,
            "[nomic] money",
            "money@again",
            "adjust Alice 20 A$ because a start\nadjust Mallory 20 A$ because a start",
        ),
        "mod.example",
    )));
    let before = game.events();
    // Mallory posts to the list as the boss; the list relays it, unchanged, and
    // signs it with d=nomic.example, which is aligned with the boss's From.
    let relayed = signed(
        &mail(
            &[
                ("From", BOSS),
                ("To", LIST),
                ("List-Id", "<game-list.nomic.example>"),
                ("Subject", "[nomic] fix"),
                ("Message-ID", "<as-the-boss@test>"),
            ],
            OFFICER_LINES,
        ),
        LIST_DOMAIN,
    );
    let relayed = stamped(&relayed);
    assert!(
        relayed.contains("dkim=pass"),
        "the list's signature passes: {relayed}"
    );
    game.deliver(&relayed);
    assert_refused_and_holder_told(&game, before, BOSS);
    let notice = &game.notices_to(BOSS)[0].body;
    assert!(notice.contains("list's own signature"), "{notice}");
}

#[test]
fn dkim_pass_for_an_unaligned_domain_is_no_authentication() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    // A real, passing signature, but by mallory.example for a From of mod.example.
    let forged = signed(
        &private(MODERATOR, "[nomic] fix", "unaligned@test", OFFICER_LINES),
        "mallory.example",
    );
    let stamped = stamped(&forged);
    assert!(
        stamped.contains("dkim=pass"),
        "mail-auth verified it: {stamped}"
    );
    game.deliver(&stamped);
    assert_refused_and_holder_told(&game, before, MODERATOR);
}

#[test]
fn dmarc_fail_is_a_forgery_even_for_player_commands() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    let forged = private(
        ALICE,
        "[nomic] pay",
        "dmarc-fail@test",
        "give 5 A$ to Mallory",
    );
    game.deliver(&format!(
        "Authentication-Results: {OURS}; dkim=none; dmarc=fail (p=reject) header.from=alice.example\r\n{forged}"
    ));
    assert_eq!(game.events(), before);
    assert_eq!(game.balance("Alice"), 20);
    assert_eq!(game.notices_to(ALICE).len(), 1);
}

#[test]
fn the_signed_moderator_and_the_other_officers_keep_their_offices() {
    let mut game = Game::new("dmarc");
    game.deliver(&stamped(&signed(
        &private(
            MODERATOR,
            "[nomic] fix",
            "real@test",
            "gaol Alice because a test",
        ),
        "mod.example",
    )));
    assert!(game.in_gaol("Alice"));
    // dmarc=pass counts as much as an aligned DKIM pass.
    let release = private(
        MODERATOR,
        "[nomic] fix",
        "real-dmarc@test",
        "release Alice because a test",
    );
    game.deliver(&format!(
        "Authentication-Results: {OURS}; dmarc=pass header.from=mod.example\r\n{release}"
    ));
    assert!(!game.in_gaol("Alice"));
    assert!(game.notices_to(MODERATOR).is_empty());
}

#[test]
fn forged_rules_officer_is_refused() {
    let mut game = Game::new("dmarc");
    let events = game.events();
    let enact = "enact 900 Forged\nMallory wins.\nend";
    game.deliver(&stamped(&private(
        RULES_OFFICER,
        "[ruleset] x",
        "forged-rules@test",
        enact,
    )));
    assert_eq!(game.events(), events);
    assert_eq!(game.notices_to(RULES_OFFICER).len(), 1);
    // Signed, the same enactment is the keeper's.
    game.deliver(&stamped(&signed(
        &private(RULES_OFFICER, "[ruleset] x", "real-rules@test", enact),
        "rules.example",
    )));
    assert!(game.events() > events);
}

#[test]
fn unauthenticated_player_commands_are_applied_without_office() {
    let mut game = Game::new("dmarc");
    // Mallory's own mail is not signed: as a player she may still pay.
    game.deliver(&stamped(&private(
        MALLORY,
        "[nomic] pay",
        "mallory-pays@test",
        "give 5 A$ to Alice",
    )));
    assert_eq!(game.balance("Alice"), 25);
    assert_eq!(game.balance("Mallory"), 15);
}

#[test]
fn unauthenticated_mail_is_refused_whole_when_so_configured() {
    let mut game = Game::new("dmarc");
    let config = config("dmarc").replace(
        "unauthenticated = \"players\"",
        "unauthenticated = \"refuse\"",
    );
    std::fs::write(game.bot.config_path(), config).expect("config");
    let before = game.events();
    game.deliver(&stamped(&private(
        MALLORY,
        "[nomic] pay",
        "mallory-refused@test",
        "give 5 A$ to Alice",
    )));
    assert_eq!(game.events(), before);
    assert_eq!(game.notices_to(MALLORY).len(), 1);
}

#[test]
fn munged_from_of_a_known_player_through_the_signed_list_is_applied() {
    let mut game = Game::new("dmarc");
    game.deliver(&stamped(&munged(
        "Alice",
        ("Reply-To", ALICE),
        "[nomic] home",
        "munged-alice@test",
        "home The Old Mill",
    )));
    let state = game.bot.state_json();
    let alice = state["players"]["players"]
        .as_array()
        .and_then(|players| players.iter().find(|p| p["name"] == "Alice"))
        .cloned()
        .expect("Alice");
    assert_eq!(alice["home"], "The Old Mill");
}

#[test]
fn munged_from_without_the_list_signature_is_kept_aside_and_the_sender_told() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    // The same rewritten From, but not signed by the list: anyone could write it.
    let unsigned = mail(
        &[
            ("From", &format!("\"Alice via game-list\" <{LIST}>")),
            ("Reply-To", ALICE),
            ("To", LIST),
            ("Subject", "[nomic] home"),
            ("Message-ID", "<munged-unsigned@test>"),
        ],
        "home The Old Mill",
    );
    game.deliver(&stamped(&unsigned));
    assert_eq!(game.events(), before);
    assert!(game.aside().contains("did not pass"));
    assert_eq!(game.notices_to(ALICE).len(), 1);
}

#[test]
fn munged_from_of_a_stranger_is_kept_aside() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    game.deliver(&stamped(&munged(
        "Eve",
        ("Reply-To", "eve@eve.example"),
        "[nomic] join",
        "munged-stranger@test",
        "join Eve",
    )));
    assert_eq!(game.events(), before);
    assert!(game.aside().contains("no known player"));
}

// ---------------------------------------------------------------------------
// Passphrases
// ---------------------------------------------------------------------------

const SECRET: &str = "correct horse battery";

/// Alice requires a passphrase; her mail is not signed (a list without DKIM).
fn with_passphrase(auth: &str) -> Game {
    let mut game = Game::new(auth);
    game.deliver(&private(
        ALICE,
        "[nomic] secret",
        "set-passphrase@test",
        &format!("passphrase set {SECRET}"),
    ));
    let answer = game.mail_to(ALICE).pop().expect("an answer");
    assert!(
        answer.body.contains("passphrase set ********"),
        "{}",
        answer.body
    );
    confirm_passphrase(&mut game, ALICE);
    let answer = game.mail_to(ALICE).pop().expect("an answer");
    assert!(
        answer.body.contains("now requires this passphrase"),
        "{}",
        answer.body
    );
    game
}

/// Sends back, from `address`, the code the bot mailed it for a first
/// passphrase asked for by unsigned mail.
pub(crate) fn confirm_passphrase(game: &mut Game, address: &str) {
    let code = game
        .mail_to(address)
        .into_iter()
        .rev()
        .filter(|mail| mail.subject.contains("Confirm the passphrase"))
        .find_map(|mail| {
            mail.body
                .lines()
                .find_map(|line| line.trim().strip_prefix("passphrase confirm "))
                .map(str::to_owned)
        })
        .expect("the code mailed to the address");
    game.minute += 1;
    let id = format!("confirm-{}@test", game.minute);
    game.deliver(&private(
        address,
        "[nomic] secret",
        &id,
        &format!("passphrase confirm {code}"),
    ));
}

fn assert_never_shown(game: &Game) {
    for mail in game.bot.sent() {
        assert!(
            !mail.contains("horse"),
            "a passphrase in the mail sent:\n{mail}"
        );
    }
    let log = game.bot.cli_ok(&["log", "--json"]);
    assert!(!log.contains("horse"), "a passphrase in the log");
    assert!(!game.aside().contains("horse"));
    let public = game.bot.cli_ok(&["state", "--json"]);
    assert!(
        public.contains(ALICE) && public.contains("(hidden)"),
        "{public}"
    );
    assert!(!public.contains("horse"));
}

#[test]
fn passphrase_missing_is_refused_and_the_holder_told() {
    let mut game = with_passphrase("dmarc");
    let before = game.events();
    game.deliver(&private(
        ALICE,
        "[nomic] pay",
        "no-passphrase@test",
        "give 5 A$ to Mallory",
    ));
    assert_eq!(game.events(), before);
    assert_eq!(game.balance("Alice"), 20);
    let notices = game.notices_to(ALICE);
    assert_eq!(notices.len(), 1);
    assert!(notices[0].body.contains("carried no passphrase"));
    assert_never_shown(&game);
}

#[test]
fn passphrase_wrong_is_refused_and_the_holder_told() {
    let mut game = with_passphrase("dmarc");
    let before = game.events();
    game.deliver(&private(
        ALICE,
        "[nomic] pay",
        "wrong-passphrase@test",
        "passphrase: correct horse staple\ngive 5 A$ to Mallory",
    ));
    assert_eq!(game.events(), before);
    let notices = game.notices_to(ALICE);
    assert_eq!(notices.len(), 1);
    assert!(notices[0].body.contains("wrong passphrase"));
    assert_never_shown(&game);
}

#[test]
fn passphrase_right_is_applied_and_never_echoed() {
    let mut game = with_passphrase("dmarc");
    game.deliver(&private(
        ALICE,
        "[nomic] pay",
        "right-passphrase@test",
        "Passphrase:   correct   horse battery\ngive 5 A$ to Bob",
    ));
    assert_eq!(game.balance("Alice"), 15);
    assert!(game.notices_to(ALICE).is_empty());
    let answer = game.mail_to(ALICE).pop().expect("an answer");
    assert!(answer.body.contains("give 5 A$ to Bob"), "{}", answer.body);
    assert_never_shown(&game);
}

#[test]
fn passphrase_on_the_list_is_refused_and_the_holder_told() {
    let mut game = with_passphrase("dmarc");
    let before = game.events();
    let public = mail(
        &[
            ("From", ALICE),
            ("To", LIST),
            ("Subject", "[nomic] pay"),
            ("Message-ID", "<public-passphrase@test>"),
        ],
        &format!("passphrase: {SECRET}\ngive 5 A$ to Bob"),
    );
    game.deliver(&public);
    assert_eq!(game.events(), before);
    let notices = game.notices_to(ALICE);
    assert_eq!(notices.len(), 1);
    assert!(notices[0].body.contains("change it at once"));
}

#[test]
fn passphrase_not_needed_with_an_aligned_signature() {
    let mut game = with_passphrase("dmarc");
    game.deliver(&stamped(&signed(
        &private(
            ALICE,
            "[nomic] pay",
            "signed-no-passphrase@test",
            "give 5 A$ to Bob",
        ),
        "alice.example",
    )));
    assert_eq!(game.balance("Alice"), 15);
}

#[test]
fn passphrase_protects_the_moderator_on_a_list_without_dkim() {
    // auth = "none": From is believed, except for an address with a passphrase.
    let mut game = Game::new("none");
    game.deliver(&private(
        MODERATOR,
        "[nomic] secret",
        "mod-passphrase@test",
        &format!("passphrase set {SECRET}"),
    ));
    confirm_passphrase(&mut game, MODERATOR);
    let before = game.events();
    game.deliver(&private(
        MODERATOR,
        "[nomic] fix",
        "forged-none@test",
        OFFICER_LINES,
    ));
    assert_eq!(game.events(), before);
    assert_eq!(game.balance("Mallory"), 20);
    assert!(!game.in_gaol("Alice"));
    assert_eq!(game.notices_to(MODERATOR).len(), 1);
    // With the passphrase, the moderator's own line is applied.
    game.deliver(&private(
        MODERATOR,
        "[nomic] fix",
        "real-none@test",
        &format!("passphrase: {SECRET}\ngaol Alice because a test"),
    ));
    assert!(game.in_gaol("Alice"));
    // A moderator clears a player's forgotten passphrase; the player is told.
    game.deliver(&private(
        ALICE,
        "[nomic] secret",
        "alice-passphrase@test",
        "passphrase set another secret",
    ));
    confirm_passphrase(&mut game, ALICE);
    game.deliver(&private(
        MODERATOR,
        "[nomic] fix",
        "clear-alice@test",
        &format!("passphrase: {SECRET}\npassphrase clear {ALICE} because she forgot it"),
    ));
    let cleared = game.mail_to(ALICE).pop().expect("the notice");
    assert!(
        cleared.subject.contains("requires no passphrase"),
        "{}",
        cleared.subject
    );
    game.deliver(&private(
        ALICE,
        "[nomic] home",
        "alice-free@test",
        "home The Old Mill",
    ));
    assert!(game.notices_to(ALICE).is_empty());
    assert_never_shown(&game);
}

#[test]
fn passphrase_set_on_the_list_or_short_is_refused() {
    let mut game = Game::new("dmarc");
    let before = game.events();
    game.deliver(&mail(
        &[
            ("From", BOB),
            ("To", LIST),
            ("Subject", "[nomic] secret"),
            ("Message-ID", "<set-on-list@test>"),
        ],
        "passphrase set everybody reads this",
    ));
    game.deliver(&private(
        BOB,
        "[nomic] secret",
        "set-short@test",
        "passphrase set short",
    ));
    assert_eq!(game.events(), before);
    let answers = game.mail_to(BOB);
    assert!(answers.iter().any(|m| m.body.contains("read by everybody")));
    assert!(
        answers
            .iter()
            .any(|m| m.body.contains("at least 8 characters"))
    );
    for mail in game.bot.sent() {
        assert!(!mail.contains("everybody reads this"));
    }
}

#[test]
fn forged_game_officer_is_refused() {
    // The Rule Tag Moderator named in the game's own section, not in [bot]: ey
    // adjusts the game's points.
    let mut game = Game::new("dmarc");
    let config = std::fs::read_to_string(game.bot.config_path())
        .expect("config")
        .replace(
            "# moderator = \"rtm@nomic.example\"",
            "moderator = \"rtm@mod.example\"",
        );
    std::fs::write(game.bot.config_path(), config).expect("config");
    let before = game.events();
    let adjust = "adjust Mallory 50 points because Mallory says so";
    game.deliver(&stamped(&private(
        "rtm@mod.example",
        "[rule tag] points",
        "forged-rtm@test",
        adjust,
    )));
    assert_eq!(game.events(), before);
    assert_eq!(game.notices_to("rtm@mod.example").len(), 1);
    game.deliver(&stamped(&signed(
        &private(
            "rtm@mod.example",
            "[rule tag] points",
            "real-rtm@test",
            adjust,
        ),
        "mod.example",
    )));
    assert!(
        game.events() > before,
        "the signed Rule Tag Moderator adjusts the points"
    );
}
