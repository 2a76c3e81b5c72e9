//! The README's sections "Buried Treasure", the `use` of an Otzma Card under
//! `[nomic]` and "Games & Contests", walked literally: every command as the
//! README writes it, and what the README says it gives (issue 26).

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, balance, message, player_id};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const ALICE: &str = "alice@nomic.example";
const BOB: &str = "bob@nomic.example";
const CAROL: &str = "carol@nomic.example";
const DAVE: &str = "dave@nomic.example";

const MAP: &str = "Find the word PAMPLEMOUSSE in a proposal that passes, then sing under the oak";

/// A bot and a clock: each message is delivered a minute after the last and
/// the bot makes a pass; `say` returns the mail that pass sent.
struct Walk {
    bot: LocalBot,
    clock: Cell<Timestamp>,
    count: Cell<u32>,
    seen: RefCell<HashSet<String>>,
}

impl Walk {
    fn new() -> Walk {
        let config = crate::support::trusting().replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        );
        Walk {
            bot: LocalBot::with_config(&config),
            clock: Cell::new(at("2026-03-02T09:00:00Z")),
            count: Cell::new(0),
            seen: RefCell::new(HashSet::new()),
        }
    }

    /// `from` mails `body` under `subject` to `to`; the bot makes a pass.
    fn say(&self, from: &str, to: &str, subject: &str, body: &str) -> Vec<SentMail> {
        let count = self.count.get() + 1;
        self.count.set(count);
        let when = self.clock.get() + SignedDuration::from_mins(1);
        self.clock.set(when);
        let id = format!("walk{count}@players.test");
        self.bot.deliver(
            &format!("walk{count}"),
            &message(from, to, subject, &id, body),
            when,
        );
        self.bot.once(when);
        self.new_mail()
    }

    fn new_mail(&self) -> Vec<SentMail> {
        let mut seen = self.seen.borrow_mut();
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| seen.insert(m.message_id.clone()))
            .collect()
    }

    /// What `address` got alone (not the list's copy).
    fn answer(mail: &[SentMail], address: &str) -> String {
        mail.iter()
            .filter(|m| m.is_to(address) && !m.is_to(LIST))
            .map(|m| m.body.clone())
            .collect::<Vec<_>>()
            .join("\n---\n")
    }

    /// The list's mail of a pass, subject and body.
    fn announced(mail: &[SentMail]) -> Vec<SentMail> {
        mail.iter().filter(|m| m.is_to(LIST)).cloned().collect()
    }

    fn owner_of(&self, id: u64) -> serde_json::Value {
        let state = self.bot.state_json();
        state["inventory"]["entities"]
            .as_array()
            .and_then(|all| all.iter().find(|e| e["id"] == id).cloned())
            .map(|e| e["owner"].clone())
            .unwrap_or_default()
    }

    /// Alice, Bob, Carol and Dave have joined; Alice holds a Trinket (#1) and
    /// 20 A$, Bob the Chartreuse Goose (#2), Carol an Otzma Card (#3).
    fn with_players() -> Walk {
        let walk = Walk::new();
        for (from, name) in [
            (ALICE, "Alice"),
            (BOB, "Bob"),
            (CAROL, "Carol"),
            (DAVE, "Dave"),
        ] {
            walk.say(from, LIST, &format!("[nomic] join {name}"), "");
        }
        walk.say(
            MODERATOR,
            BOT,
            "[nomic]",
            "create Trinket for Alice: a silver spoon because a start\n\
             create Chartreuse Goose for Bob because a start\n\
             create Otzma Card for Carol: The Fool because a Boon was bestowed\n\
             adjust Alice 20 A$ because a start",
        );
        walk
    }
}

/// The subjects, without the tag in front (`[treasure] `).
fn subjects(mail: &[SentMail]) -> Vec<String> {
    mail.iter()
        .map(|m| match m.subject.split_once("] ") {
            Some((_, rest)) if m.subject.starts_with('[') => rest.to_owned(),
            _ => m.subject.clone(),
        })
        .collect()
}

#[test]
fn the_readmes_buried_treasure_section_walked_command_by_command() {
    let walk = Walk::with_players();

    // "`help` under `[treasure]` gives the same list".
    let help = Walk::answer(&walk.say(ALICE, BOT, "[treasure]", "help"), ALICE);
    for command in [
        "bury",
        "map N",
        "disclose N",
        "found N by",
        "hand N to the Treasure-Harfer",
        "status",
    ] {
        assert!(help.contains(command), "{command:?} in the help:\n{help}");
    }

    // "bury 10 A$, #3 [as NAME] — on the list: [...] they are nobody's from
    // that instant and not the Treasury's"; "`[nomic] balance` and `[nomic]
    // inventory` list them apart, as "buried in Treasure N"".
    let mail = walk.say(ALICE, LIST, "[treasure]", "bury 10 A$, #1 as the spoon");
    let buried = Walk::announced(&mail);
    assert_eq!(
        subjects(&buried),
        ["Treasure 1 buried: the spoon"],
        "{mail:#?}"
    );
    let state = walk.bot.state_json();
    assert_eq!(balance(&state, "Alice", "A$").as_deref(), Some("10"));
    assert_eq!(walk.owner_of(1), serde_json::json!({"buried": 1}));
    let inventory = Walk::answer(&walk.say(ALICE, BOT, "[nomic]", "inventory"), ALICE);
    assert!(inventory.contains("buried in Treasure 1"), "{inventory}");
    let buried = walk.bot.cli_ok(&["state", "inventory"]);
    assert!(buried.contains("buried in Treasure 1"), "{buried}");
    // "refused with the reason for anything you do not own".
    let refused = Walk::answer(&walk.say(CAROL, LIST, "[treasure]", "bury #2"), CAROL);
    assert!(refused.contains("Refused"), "{refused}");
    assert!(refused.contains("you do not own #2"), "{refused}");

    // "map N: CONDITIONS — to the bot alone: the Treasure Map. The list gets
    // only its commitment".
    let mail = walk.say(ALICE, BOT, "[treasure]", &format!("map 1: {MAP}"));
    let sealed = Walk::announced(&mail);
    assert_eq!(
        subjects(&sealed),
        ["Treasure 1: the map is written"],
        "{mail:#?}"
    );
    assert!(!sealed[0].body.contains("PAMPLEMOUSSE"));

    // "status — every buried treasure, never a map".
    let status = Walk::answer(&walk.say(BOB, BOT, "[treasure]", "status"), BOB);
    assert!(status.contains("the spoon"), "{status}");
    assert!(status.contains("Alice"), "{status}");
    assert!(!status.contains("PAMPLEMOUSSE"), "{status}");

    // "disclose N ["PART"] [to NAME, NAME] — the writer discloses the whole map
    // or a quoted part of it, to the list or privately".
    let mail = walk.say(
        ALICE,
        BOT,
        "[treasure]",
        "disclose 1 \"sing under the oak\" to Bob",
    );
    assert!(Walk::answer(&mail, BOB).contains("sing under the oak"));
    assert!(Walk::announced(&mail).is_empty(), "{mail:#?}");
    let mail = walk.say(
        ALICE,
        LIST,
        "[treasure]",
        "disclose 1 \"a proposal that passes\"",
    );
    let disclosed = Walk::announced(&mail);
    assert_eq!(disclosed.len(), 1, "{mail:#?}");
    assert!(disclosed[0].body.contains("a proposal that passes"));
    assert!(!disclosed[0].body.contains("PAMPLEMOUSSE"));

    // "hand N to the Treasure-Harfer — the map's holder, going away, gives the
    // map to the Treasure-Harfer (or the acting one, a registry office a
    // moderator appoints under `[nomic]`), who becomes its custodian for good
    // and gets the map privately".
    walk.say(
        MODERATOR,
        BOT,
        "[nomic]",
        "appoint Treasure-Harfer Dave because Dave keeps maps",
    );
    let mail = walk.say(ALICE, BOT, "[treasure]", "hand 1 to the Treasure-Harfer");
    assert!(Walk::answer(&mail, DAVE).contains(MAP), "{mail:#?}");
    assert!(
        subjects(&Walk::announced(&mail))
            .iter()
            .any(|s| s.contains("Dave is custodian")),
        "{mail:#?}"
    );
    // "status — every treasure: what it holds, its writer, its custodians and
    // who holds the map [...]; never a map's text".
    let status = Walk::answer(&walk.say(BOB, BOT, "[treasure]", "status"), BOB);
    assert!(status.contains("the spoon"), "{status}");
    assert!(status.contains("Alice"), "{status}");
    assert!(status.contains("Dave"), "{status}");
    assert!(!status.contains("PAMPLEMOUSSE"), "{status}");
    // "`history [N|all]` — what the list was told under `[nomic]` [...]. Every
    // tag has it": under `[treasure]` too.
    let history = Walk::answer(&walk.say(BOB, BOT, "[treasure]", "history"), BOB);
    for subject in [
        "Treasure 1 buried: the spoon",
        "Treasure 1: the map is written",
        "Treasure 1: part of the map of the spoon",
        "Treasure 1: Dave is custodian of the map of the spoon",
    ] {
        assert!(history.contains(subject), "{subject:?} in {history}");
    }
    assert!(!history.contains("PAMPLEMOUSSE"), "{history}");
    // "A custodian may neither disclose the map nor find the treasure."
    let mail = walk.say(DAVE, BOT, "[treasure]", "disclose 1");
    assert!(Walk::answer(&mail, DAVE).contains("Refused"), "{mail:#?}");
    assert!(Walk::announced(&mail).is_empty());
    let mail = walk.say(DAVE, LIST, "[treasure]", "found 1 by Dave");
    assert!(Walk::answer(&mail, DAVE).contains("Refused"), "{mail:#?}");

    // "found N by BOB and CAROL [at WHEN] — achieved simultaneously: the
    // Officer in charge of Random Things draws the finder among them [...]
    // (`nomicbot verify-random`)".
    let mail = walk.say(
        DAVE,
        LIST,
        "[treasure]",
        "found 1 by Bob and Carol at 14:00",
    );
    let found = Walk::announced(&mail);
    let announcement = found
        .iter()
        .find(|m| m.subject.contains("Treasure 1 found by"))
        .unwrap_or_else(|| panic!("{mail:#?}"));
    assert!(announcement.body.contains(MAP), "{}", announcement.body);
    assert!(
        announcement.body.contains("Its salt is"),
        "{}",
        announcement.body
    );
    let finder = if announcement.subject.contains("Bob") {
        "Bob"
    } else {
        "Carol"
    };
    let state = walk.bot.state_json();
    assert_eq!(walk.owner_of(1)["player"], player_id(&state, finder));
    assert_eq!(balance(&state, finder, "A$").as_deref(), Some("10"));
    let verified = walk.bot.cli_ok(&["verify-random"]);
    assert!(verified.contains("all as recorded"), "{verified}");

    // "The writer may find eir own treasure: the Chartreuse Goose moves to em
    // from wherever it is, and sneers."
    walk.say(ALICE, LIST, "[treasure]", "bury 5 A$ as the purse");
    walk.say(ALICE, BOT, "[treasure]", "map 2: say the word");
    let mail = walk.say(ALICE, LIST, "[treasure]", "found 2 by Alice");
    let own = Walk::announced(&mail);
    assert!(
        own.iter().any(|m| m.body.contains("Goose sneers")),
        "{mail:#?}"
    );
    let state = walk.bot.state_json();
    assert_eq!(walk.owner_of(2)["player"], player_id(&state, "Alice"));
}

#[test]
fn the_readmes_use_of_an_otzma_card_walked_as_written() {
    let walk = Walk::with_players();
    // "`inventory [NAME]` — the entities that are not money (Gadgets, Otzma
    // Cards, ...) you own, or NAME owns".
    let inventory = Walk::answer(&walk.say(BOB, BOT, "[nomic]", "inventory Carol"), BOB);
    assert!(inventory.contains("#3"), "{inventory}");
    assert!(inventory.contains("The Fool"), "{inventory}");

    // "`use Otzma Card #4: Bob skips his next turn`. The card is used up (gone
    // from your inventory) and the list is told, with what you said it does".
    let mail = walk.say(
        CAROL,
        LIST,
        "[nomic]",
        "use Otzma Card #3: Bob skips his next turn",
    );
    let told = Walk::announced(&mail);
    assert_eq!(told.len(), 1, "{mail:#?}");
    assert!(told[0].body.contains("Bob skips his next turn"));
    let inventory = Walk::answer(&walk.say(CAROL, BOT, "[nomic]", "inventory"), CAROL);
    assert!(!inventory.contains("The Fool"), "{inventory}");

    // "A card already used (the answer says by whom), one you do not own, or an
    // entity that is not single-use is refused".
    let again = Walk::answer(&walk.say(CAROL, LIST, "[nomic]", "use #3"), CAROL);
    assert!(again.contains("Refused"), "{again}");
    assert!(again.contains("by Carol"), "{again}");
    let not_mine = Walk::answer(&walk.say(ALICE, LIST, "[nomic]", "use #2"), ALICE);
    assert!(not_mine.contains("Refused"), "{not_mine}");
    let not_single = Walk::answer(&walk.say(BOB, LIST, "[nomic]", "use #2"), BOB);
    assert!(not_single.contains("Refused"), "{not_single}");
    assert!(not_single.contains("not used up"), "{not_single}");
    assert_eq!(
        walk.owner_of(2)["player"],
        player_id(&walk.bot.state_json(), "Bob")
    );
}

#[test]
fn the_readmes_games_and_contests_section_walked_command_by_command() {
    let walk = Walk::with_players();
    // "`list` — the suite, by return mail"; "Ghost as shipped".
    let list = Walk::answer(&walk.say(ALICE, BOT, "[games]", "list"), ALICE);
    assert!(list.contains("Ghost"), "{list}");

    // "`add NAME players N [teams] [no winner] [referee bot|NAME] [game TAG]
    // [private] [board N] because REASON` — moderators: add a Contest (N may
    // be `any`) [...]: `add Chess players 2 referee Carol board 8 because Carol
    // offered`".
    let mail = walk.say(
        MODERATOR,
        BOT,
        "[games]",
        "add Chess players 2 referee Carol board 8 because Carol offered",
    );
    assert!(Walk::answer(&mail, MODERATOR).contains("Done"), "{mail:#?}");
    walk.say(
        MODERATOR,
        BOT,
        "[games]",
        "add Calvinball players any no winner referee Dave because Dave asked",
    );
    walk.say(
        MODERATOR,
        BOT,
        "[games]",
        "add Bridge players 4 teams referee Bob because Bob has cards",
    );
    let list = Walk::answer(&walk.say(ALICE, BOT, "[games]", "list"), ALICE);
    // "Each Contest has a name, how many players (or two teams of two) play
    // it, whether its rules name a definite winner, and who referees it";
    // "Each change is announced on the list with its reason and who made it".
    let told = walk
        .bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST) && m.body.contains("Carol offered"))
        .count();
    assert_eq!(told, 1);
    for line in [
        "Ghost: 2 players; refereed by the bot",
        "Chess: 2 players; refereed by Carol",
        "Calvinball: any number of players, no definite winner; refereed by Dave",
        "Bridge: 4 players, or two teams of two; refereed by Bob",
    ] {
        assert!(list.contains(line), "{line:?} in {list}");
    }
    // "`[duel] contests` shows the same"; "the moderators' changes are kept in
    // the state (`nomicbot state --json`, `contests`)".
    let contests = Walk::answer(&walk.say(ALICE, BOT, "[duel]", "contests"), ALICE);
    for name in ["Ghost", "Chess", "Calvinball", "Bridge"] {
        assert!(contests.contains(name), "{name:?} in {contests}");
    }
    let state = walk.bot.state_json();
    assert!(
        state["contests"].to_string().contains("Chess"),
        "{}",
        state["contests"]
    );

    // "`remove NAME because REASON` — moderators: take a Contest out of the
    // suite".
    walk.say(
        MODERATOR,
        BOT,
        "[games]",
        "remove Chess because nobody plays it",
    );
    let list = Walk::answer(&walk.say(ALICE, BOT, "[games]", "list"), ALICE);
    assert!(!list.contains("\n    Chess:"), "{list}");
    // "`[duel] contest add/remove` does the same as `add`/`remove` here".
    walk.say(
        MODERATOR,
        BOT,
        "[duel]",
        "contest add Chess players 2 referee Carol because Carol offered again",
    );
    let list = Walk::answer(&walk.say(ALICE, BOT, "[games]", "list"), ALICE);
    assert!(list.contains("\n    Chess: 2 players"), "{list}");
    let told = walk
        .bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST) && m.body.contains("Carol offered again"))
        .count();
    assert_eq!(
        told, 1,
        "a change under [duel] is announced as under [games]"
    );
    walk.say(
        MODERATOR,
        BOT,
        "[duel]",
        "contest remove Chess because nobody plays it",
    );
    let list = Walk::answer(&walk.say(ALICE, BOT, "[games]", "list"), ALICE);
    assert!(!list.contains("\n    Chess:"), "{list}");

    // Moderators only.
    let refused = Walk::answer(
        &walk.say(ALICE, BOT, "[games]", "add Go players 2 because I like it"),
        ALICE,
    );
    assert!(refused.contains("Refused"), "{refused}");
}
