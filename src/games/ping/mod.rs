//! `[ping]`: the Machine That Goes *ping* (Ackanomic rule 1209/14), refereed by
//! mail. The Machine lives in one active player's Home; that player is the
//! Scholar for the term. The Scholar mails the truth to the bot privately; the bot
//! checks it (§III) and posts it disguised; from the next calendar day the Scholar
//! tells the bot of each ping (`pinged today`), or gives it a machine-checkable
//! form of the clause and the bot pings by itself; the bot posts each notice word
//! for word (§IV), answers every guess at once (§VI), reveals Magic Letters (§VII),
//! and moves the Machine when the rule says so (§III, §VI, §VIII, §IX), at random
//! through the Officer in charge of Random Things where the rule says "randomly".
//!
//! Built through the game seam alone (`engine::game::Game`). Pure, like the
//! engine. The pure decisions are `notice` (the ping notice), `truth` (the
//! truth's form, words and disguise), `dates` (the date language and §III's seven
//! and fourteen days); `rules` carries out the sections in the transaction,
//! `parse` reads command lines, `report` gives the announcements their values.
//!
//! Secrecy: the truth and its form are secret (`Game::secrecy`), so their own
//! step sends nothing to the list; the disguised truth and the pings they cause
//! are posted at a deadline of the same instant (`ping:now`). The live state
//! holds the truth, and `public_view` blanks it. Boons of the Ancients (rule 1211)
//! are not bestowed here: a correct guess records that a Boon is due
//! (`Event::BoonDue`) and hands it to `[boons]` on the shared schedule.

pub mod bound;
pub mod dates;
pub mod notice;
mod parse;
mod report;
mod rules;
mod sample;
#[cfg(test)]
mod tests;
pub mod truth;

use jiff::civil::Date;
use serde::{Deserialize, Serialize};

use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Running, Secrecy, Standing, Tick, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::{Ctx, NotUnderstood, Refusal, Sentence, Timestamp};

/// The subject tag: the Machine's own sound.
pub const TAG: &str = "ping";

/// The Machine That Goes *ping* (Ackanomic rule 1209/14).
pub struct Ping;

/// The numbers of rule 1209, from `[ping]` in bot.toml; every default is the
/// text's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The rule the Machine follows (1209 in the text): the bot stops when it
    /// leaves effect, takes new numbers when an amendment changes only the
    /// numbers below, and waits for a moderator's ruling on any other change.
    pub rule: u32,
    /// §III: "Within seven days of a player receiving this title [...] he is
    /// deemed to be a quack".
    pub quack_days: u32,
    /// §III: "no more than twelve words".
    pub max_words: usize,
    /// §III: "shall not fail to go *ping* for any seven consecutive calendar days".
    pub silent_days: u32,
    /// §III: "nor shall it go *ping* without fail for any fourteen consecutive
    /// calendar days".
    pub pinging_days: u32,
    /// How far ahead a machine-checkable form is checked against §III (the term
    /// has no end the bot can know).
    pub horizon_days: u32,
    /// §IV: "either in the day in which it occurred or during the next two days".
    pub late_days: u32,
    /// §VI: "he shall pay a fine of A$ 10".
    pub guess_fine: u32,
    /// The currency of the fine and of the Magic Letter Premium.
    pub currency: String,
    /// §VII: "at least six times since a Magic Letter was named, and at least six
    /// times during the current Scholar's term".
    pub magic_after_pings: u32,
    /// §VII: "Common vowels ('a', 'e', 'i', 'o') cost A$25".
    pub premium_vowel: i64,
    /// §VII: "Common consonants ('d', 'l', 'n', 'r', 's', 't') cost A$15".
    pub premium_consonant: i64,
    /// §VII: "all other letters cost A$5".
    pub premium_other: i64,
    /// §VIII: "If the Machine has gone *ping* thirty times".
    pub reveal_after_pings: u32,
    /// §IX: the claim, word for word as the rule writes it ("weighter" included).
    pub weightier_claim: String,
    /// The ridicule of a wrong guess (§VI), chosen in turn by the number of wrong
    /// guesses of the term; a Scholar's own lines (`ridicule LINE`) come first.
    pub ridicule: Vec<String>,
}

impl Default for Params {
    fn default() -> Params {
        let limits = truth::Limits::default();
        Params {
            rule: bound::RULE,
            quack_days: 7,
            max_words: limits.max_words,
            silent_days: 7,
            pinging_days: 14,
            horizon_days: 366,
            late_days: 2,
            guess_fine: 10,
            currency: "A$".to_owned(),
            magic_after_pings: 6,
            premium_vowel: limits.premium_vowel,
            premium_consonant: limits.premium_consonant,
            premium_other: limits.premium_other,
            reveal_after_pings: 30,
            weightier_claim: "I have weighter matters to research, such as the shape of the Earth"
                .to_owned(),
            ridicule: vec![
                "Heretic! The Machine hums with scorn at so feeble a guess.".to_owned(),
                "The lights of the Machine blink in pity. Even Phoebe would have done better."
                    .to_owned(),
                "The Machine does not go *ping* for that. It goes *pfft*.".to_owned(),
            ],
        }
    }
}

impl Params {
    pub fn limits(&self) -> truth::Limits {
        truth::Limits {
            max_words: self.max_words,
            premium_vowel: self.premium_vowel,
            premium_consonant: self.premium_consonant,
            premium_other: self.premium_other,
        }
    }
}

/// Where the Machine is and what it has said. The current term is live; a past
/// term's guesses and pings stay in the event log, but every truth the Machine
/// ever uttered is kept, since it may never utter one again (§III).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// The current Scholar's term; `None` before a moderator places the Machine,
    /// or when no active player's Home could take it.
    pub term: Option<Term>,
    /// Every truth of a past term, and whether it was revealed.
    #[serde(default)]
    pub uttered: Vec<Utterance>,
    /// "the most recent player to ever name a Magic Letter" (§VII).
    #[serde(default)]
    pub last_magic_namer: Option<PlayerId>,
    /// Truths a Scholar who went on vacation owes the list on return (§IX).
    #[serde(default)]
    pub owed_reveals: Vec<OwedReveal>,
    /// Boons of the Ancients due to correct guessers (§VI), for the Boons step.
    #[serde(default)]
    pub boons_due: Vec<BoonDue>,
    /// A random teleport decided in a step without entropy (a change of standing),
    /// carried out at the deadline `ping:now` of the same instant.
    #[serde(default)]
    pub teleport_due: Option<Reason>,
    /// Since when rule 1209 is held for a moderator's ruling (or switched off):
    /// nothing of the rule runs until it is followed again.
    #[serde(default)]
    pub held_since: Option<Timestamp>,
    /// Rule 1209 left effect: the Machine is no more.
    #[serde(default)]
    pub ended: Option<Ended>,
}

/// How the Machine ceased to exist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ended {
    pub rule: u32,
    /// "repealed", "void", "not in the ruleset".
    pub why: String,
    pub at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Term {
    pub scholar: PlayerId,
    pub scholar_name: String,
    pub home: String,
    pub began_at: Timestamp,
    /// Why the Machine came here.
    pub reason: Reason,
    /// "Within seven days of a player receiving this title": the quack deadline.
    pub quack_at: Timestamp,
    pub truth: Option<Truth>,
    #[serde(default)]
    pub pings: Vec<Pinged>,
    #[serde(default)]
    pub guesses: Vec<Guess>,
    #[serde(default)]
    pub magic: Vec<MagicLetter>,
    /// The Scholar's own ridicule lines for this term.
    #[serde(default)]
    pub ridicule: Vec<String>,
    /// Violations of the rule a moderator ruled publicly knowable (§IX).
    #[serde(default)]
    pub violations: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Truth {
    /// The if clause, as the Scholar wrote it. Secret until revealed.
    pub clause: String,
    pub given_at: Timestamp,
    /// When the disguised truth was posted, and on which calendar day: pings
    /// begin the day after (§IV).
    pub announced_at: Option<Timestamp>,
    pub announced_on: Option<Date>,
    /// The machine-checkable form (`dates`), if the Scholar gave one. Secret.
    pub form: Option<String>,
    /// The undisguised truth was posted.
    #[serde(default)]
    pub revealed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pinged {
    /// The calendar day of the ping.
    pub date: Date,
    /// Its number in the term: "the Machine has gone *ping* n times".
    pub n: u32,
    pub announced_at: Timestamp,
    /// Announced after its day, with the apology.
    pub late: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Guess {
    pub player: PlayerId,
    pub name: String,
    pub guess: String,
    pub at: Timestamp,
    pub correct: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MagicLetter {
    pub letter: char,
    pub player: PlayerId,
    pub name: String,
    pub at: Timestamp,
    /// The pings of the term when it was named.
    pub after_pings: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Utterance {
    pub clause: String,
    pub revealed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OwedReveal {
    pub player: PlayerId,
    pub name: String,
    pub clause: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoonDue {
    pub player: PlayerId,
    pub name: String,
    pub at: Timestamp,
}

/// Why the Machine moved, in the rule's terms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Reason {
    /// A moderator placed it, to begin.
    Placed { by: String, because: String },
    /// §III: no truth announced within seven days.
    Quack,
    /// §VIII: the undisguised truth posted after thirty pings.
    ThirtyPings,
    /// §IX: the Scholar was placed in Gaol.
    Gaol,
    /// §IX: the Scholar went on vacation.
    Vacation,
    /// §II: the Scholar left the nomic, so eir Home is no active player's.
    Left,
    /// §IX: "I have weighter matters to research, such as the shape of the Earth".
    Weightier,
    /// §VI: to the home of the first correct guesser.
    CorrectGuess,
    /// §IX: to the home of the player calling for the Scholar's removal.
    Removal { grounds: String },
}

impl Reason {
    /// The reason in a player's words, for what the list reads (a random
    /// draw's purpose heads its subject): never the code.
    pub fn words(&self) -> &'static str {
        match self {
            Reason::Placed { .. } => "placed by a moderator",
            Reason::Quack => "the Scholar is a quack",
            Reason::ThirtyPings => "after thirty pings",
            Reason::Gaol => "the Scholar went to Gaol",
            Reason::Vacation => "the Scholar went on vacation",
            Reason::Left => "the Scholar left",
            Reason::Weightier => "the Scholar has weightier matters to research",
            Reason::CorrectGuess => "a correct guess",
            Reason::Removal { .. } => "the Scholar was removed",
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Reason::Placed { .. } => "placed",
            Reason::Quack => "quack",
            Reason::ThirtyPings => "thirty_pings",
            Reason::Gaol => "gaol",
            Reason::Vacation => "vacation",
            Reason::Left => "left",
            Reason::Weightier => "weightier",
            Reason::CorrectGuess => "correct_guess",
            Reason::Removal { .. } => "removal",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// The Machine is now in `home`; a new term begins.
    Moved {
        to: PlayerId,
        name: String,
        home: String,
        reason: Reason,
        quack_at: Timestamp,
    },
    /// No active player's Home could take it: it waits for a moderator.
    Homeless {
        reason: Reason,
    },
    TruthGiven {
        clause: String,
    },
    FormGiven {
        form: String,
    },
    TruthAnnounced {
        on: Date,
    },
    Pinged {
        date: Date,
        late: bool,
    },
    Guessed {
        player: PlayerId,
        name: String,
        guess: String,
        correct: bool,
    },
    MagicNamed {
        letter: char,
        player: PlayerId,
        name: String,
    },
    /// The undisguised truth `clause` was posted.
    Revealed {
        clause: String,
    },
    RevealOwed {
        player: PlayerId,
        name: String,
        clause: String,
    },
    /// A Boon of the Ancients is due to the player (rule 1211 bestows it).
    BoonDue {
        player: PlayerId,
        name: String,
    },
    RidiculeAdded {
        line: String,
    },
    ViolationRuled {
        reason: String,
    },
    TeleportDue {
        reason: Reason,
    },
    /// Rule `rule` changed otherwise than in its numbers (or a moderator
    /// switched it off): the Machine waits for a ruling.
    Held {
        rule: u32,
    },
    /// The ruling is made: the Machine goes on, and the Scholar's seven days
    /// to announce the truth are moved on by the time held.
    Resumed {
        rule: u32,
    },
    /// Rule `rule` left effect (`why`: repealed, void, not in the ruleset):
    /// the Machine ceases to exist, its term ends, and its truth stays secret.
    Ended {
        rule: u32,
        why: String,
    },
}

/// One command line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A moderator's `place NAME because REASON`: the Machine's first Home.
    Place {
        name: String,
        because: String,
    },
    /// The Scholar's `truth ...`: the whole sentence or the clause. Secret.
    Truth {
        text: String,
    },
    /// The Scholar's `form ...`: the clause in the date language. Secret.
    Form {
        text: String,
    },
    /// The Scholar's `pinged today` (`None`) or `pinged on YYYY-MM-DD`.
    Pinged {
        on: Option<Date>,
    },
    /// `guess ...`: a guess at the undisguised truth.
    Guess {
        text: String,
    },
    /// `magic letter X`.
    Magic {
        letter: char,
    },
    /// A line beginning "I ...": the Scholar's claim of §IX, if it is word for
    /// word the rule's.
    Claim {
        text: String,
    },
    /// `remove the scholar`: a call for the Scholar's removal (§IX).
    Remove,
    /// A moderator's `violation REASON`: the Scholar's violation is publicly
    /// knowable, so a call for removal is valid.
    Violation {
        reason: String,
    },
    /// The Scholar's `ridicule LINE`: a line for the wrong guesses of the term.
    Ridicule {
        line: String,
    },
    Status,
}

impl Machine {
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Moved {
                to,
                name,
                home,
                reason,
                quack_at,
            } => {
                self.end_term();
                self.teleport_due = None;
                self.ended = None;
                self.term = Some(Term {
                    scholar: *to,
                    scholar_name: name.clone(),
                    home: home.clone(),
                    began_at: at,
                    reason: reason.clone(),
                    quack_at: *quack_at,
                    truth: None,
                    pings: Vec::new(),
                    guesses: Vec::new(),
                    magic: Vec::new(),
                    ridicule: Vec::new(),
                    violations: Vec::new(),
                });
            }
            Event::Homeless { .. } => {
                self.end_term();
                self.teleport_due = None;
            }
            Event::TruthGiven { clause } => {
                if let Some(term) = &mut self.term {
                    term.truth = Some(Truth {
                        clause: clause.clone(),
                        given_at: at,
                        announced_at: None,
                        announced_on: None,
                        form: None,
                        revealed: false,
                    });
                }
            }
            Event::FormGiven { form } => {
                if let Some(truth) = self.truth_mut() {
                    truth.form = Some(form.clone());
                }
            }
            Event::TruthAnnounced { on } => {
                if let Some(truth) = self.truth_mut() {
                    truth.announced_at = Some(at);
                    truth.announced_on = Some(*on);
                }
            }
            Event::Pinged { date, late } => {
                if let Some(term) = &mut self.term {
                    let n = u32::try_from(term.pings.len()).unwrap_or(u32::MAX - 1) + 1;
                    term.pings.push(Pinged {
                        date: *date,
                        n,
                        announced_at: at,
                        late: *late,
                    });
                }
            }
            Event::Guessed {
                player,
                name,
                guess,
                correct,
            } => {
                if let Some(term) = &mut self.term {
                    term.guesses.push(Guess {
                        player: *player,
                        name: name.clone(),
                        guess: guess.clone(),
                        at,
                        correct: *correct,
                    });
                }
            }
            Event::MagicNamed {
                letter,
                player,
                name,
            } => {
                if let Some(term) = &mut self.term {
                    let after_pings = u32::try_from(term.pings.len()).unwrap_or(u32::MAX);
                    term.magic.push(MagicLetter {
                        letter: *letter,
                        player: *player,
                        name: name.clone(),
                        at,
                        after_pings,
                    });
                }
                self.last_magic_namer = Some(*player);
            }
            Event::Revealed { clause } => {
                if let Some(truth) = self.truth_mut()
                    && truth.clause == *clause
                {
                    truth.revealed = true;
                }
                for past in &mut self.uttered {
                    if past.clause == *clause {
                        past.revealed = true;
                    }
                }
                self.owed_reveals.retain(|owed| owed.clause != *clause);
            }
            Event::RevealOwed {
                player,
                name,
                clause,
            } => self.owed_reveals.push(OwedReveal {
                player: *player,
                name: name.clone(),
                clause: clause.clone(),
            }),
            Event::BoonDue { player, name } => self.boons_due.push(BoonDue {
                player: *player,
                name: name.clone(),
                at,
            }),
            Event::RidiculeAdded { line } => {
                if let Some(term) = &mut self.term {
                    term.ridicule.push(line.clone());
                }
            }
            Event::ViolationRuled { reason } => {
                if let Some(term) = &mut self.term {
                    term.violations.push(reason.clone());
                }
            }
            Event::TeleportDue { reason } => self.teleport_due = Some(reason.clone()),
            Event::Held { .. } => {
                if self.held_since.is_none() {
                    self.held_since = Some(at);
                }
            }
            Event::Resumed { .. } => {
                let Some(since) = self.held_since.take() else {
                    return;
                };
                if let Some(term) = &mut self.term
                    && term.truth.as_ref().is_none_or(|t| t.announced_at.is_none())
                {
                    let held = at.duration_since(since);
                    term.quack_at = term.quack_at.checked_add(held).unwrap_or(term.quack_at);
                }
            }
            Event::Ended { rule, why } => {
                self.end_term();
                self.teleport_due = None;
                self.owed_reveals.clear();
                self.held_since = None;
                self.ended = Some(Ended {
                    rule: *rule,
                    why: why.clone(),
                    at,
                });
            }
        }
    }

    /// The term ends: its truth joins those the Machine has uttered.
    fn end_term(&mut self) {
        if let Some(truth) = self.term.take().and_then(|term| term.truth) {
            self.uttered.push(Utterance {
                clause: truth.clause,
                revealed: truth.revealed,
            });
        }
    }

    fn truth_mut(&mut self) -> Option<&mut Truth> {
        self.term.as_mut().and_then(|term| term.truth.as_mut())
    }

    /// The current truth, once the Scholar gave it.
    pub fn truth(&self) -> Option<&Truth> {
        self.term.as_ref().and_then(|term| term.truth.as_ref())
    }

    /// The current truth once the list has seen it disguised.
    pub fn announced(&self) -> Option<&Truth> {
        self.truth().filter(|truth| truth.announced_at.is_some())
    }

    /// The Magic Letters of the term, in the order named.
    pub fn magic_letters(&self) -> Vec<char> {
        self.term
            .as_ref()
            .map(|term| term.magic.iter().map(|m| m.letter).collect())
            .unwrap_or_default()
    }
}

impl Game for Ping {
    const NAME: &'static str = "ping";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = Machine;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        parse::parse(line)
    }

    /// The Machine has no start: a moderator's first `place` brings it into
    /// a Home, and the game into play.
    fn begins(command: &Command) -> bool {
        matches!(command, Command::Place { .. })
    }

    fn apply(tx: &mut Tx<'_, Ping>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        rules::apply(tx, command, ctx)
    }

    fn apply_event(state: &mut Machine, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    fn on_deadline(tx: &mut Tx<'_, Ping>, deadline: &Deadline, tick: &Tick) {
        if deadline.id.starts_with(TAG) {
            rules::catch_up(tx, tick.entropy);
        }
    }

    /// Where the Machine is and who is its Scholar, as the list was told; its
    /// truth stays the Scholar's secret. The Machine keeps no score.
    fn running(state: &Machine, _view: &View<'_>) -> Vec<Running> {
        if state.ended.is_some() {
            return Vec::new();
        }
        let Some(term) = &state.term else {
            return Vec::new();
        };
        vec![Running {
            tag: TAG.to_owned(),
            what: format!(
                "the Machine That Goes *ping* is in {}, its Scholar {}",
                term.home, term.scholar_name
            ),
            players: Vec::new(),
            turn: Some(term.scholar_name.clone()),
            deadline: None,
        }]
    }

    fn standing_changed(tx: &mut Tx<'_, Ping>, change: &Standing) {
        rules::standing_changed(tx, change);
    }

    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        bound::declared(params)
    }

    /// Rule 1209 was decided again: the Machine ends, waits or goes on.
    fn bindings_changed(tx: &mut Tx<'_, Ping>, _rules: &[u32]) {
        rules::bindings_changed(tx);
    }

    /// The truth and its form are the Scholar's secret: the list sees the truth
    /// disguised, and the form never.
    fn secrecy(command: &Command, _ctx: &Ctx) -> Secrecy {
        match command {
            Command::Truth { .. } => Secrecy::Secret {
                shown_as: "the Machine's truth, which the list sees disguised until it is revealed",
            },
            Command::Form { .. } => Secrecy::Secret {
                shown_as: "a machine-checkable form of the Machine's truth, never published",
            },
            _ => Secrecy::Public,
        }
    }

    /// A guess is found right or wrong against the secret truth, and a Magic
    /// Letter against the truth's words: a preview would answer either without
    /// the guess being made.
    fn hidden_from_preview(event: &Event) -> bool {
        matches!(
            event,
            Event::Guessed { .. }
                | Event::MagicNamed { .. }
                | Event::Revealed { .. }
                | Event::RevealOwed { .. }
                | Event::BoonDue { .. }
        )
    }

    fn public_view(
        state: &Machine,
        _view: &crate::engine::game::View<'_>,
        _params: &Params,
    ) -> serde_json::Value {
        report::public_state(state)
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        sample::sample(script);
    }
}
