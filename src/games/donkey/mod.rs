//! `[donkey]`: Grab-a-Donkey (Ackanomic rule 1213/9, "Habeous Corpus"), the bot
//! keeping the Wrangler's books. The Wrangler calls a game; after the call's
//! notice every active player but the Wrangler, those away or in Gaol and those
//! who declined is on the GAL (A) and is issued a donkey, a lariat and a blanket
//! from the Game Box; each round every player on the GAL mails the bot (the bot
//! stands for "a private message to the Wrangler") and the latest action before
//! the round's end counts (B); at the end the bot reports what each did and
//! applies C, D, G, F and H; the Wrangler's title passes as I says.
//!
//! Secrecy: a round action is sealed in the round's batch of the sealed box
//! (`donkey:GAME:ROUND`), declared secret through `Game::secrecy`, and copied
//! privately to the human Wrangler alone; the list learns it with the round's
//! report, after the commitments and the reveal. Who has acted is public, never
//! what.
//!
//! `parse` reads command lines, `rules` carries out the commands and the
//! deadlines, `bound` reads the rule's numbers from the registry, `sample` is
//! the demo.

pub mod bound;
mod parse;
mod rules;
mod sample;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Running, Secrecy, Standing, Tick, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::{Ctx, NotUnderstood, Refusal, Sentence, Timestamp};

pub const TAG: &str = "donkey";

/// The titles the rule creates, as the roster names them.
pub const WRANGLER: &str = "Wrangler";
pub const BELT_HOLDER: &str = "Belt-Holder";

/// Where the equipment is kept between games (rule 1213: "issued from the Game
/// Box at the start of play").
pub const GAME_BOX: &str = "the Game Box";

/// Grab-a-Donkey (rule 1213/9).
pub struct Donkey;

/// The numbers of rule 1213, from `[donkey]` in bot.toml; every default is the
/// text's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The rule Grab-a-Donkey follows (1213 in the text).
    pub rule: u32,
    /// "A game of Grab-a-Donkey may only be called once per calendar month".
    pub calls_per_month: u32,
    /// "If it has been at least 60 days since the most recent game [...] ended".
    pub claim_after_days: u32,
    /// B: "Rounds will last no less than one full day".
    pub min_round_days: u32,
    /// B: "and no more than 3 full days from the start of the round".
    pub max_round_days: u32,
    /// H: "The Belt Holder shall be awarded 3 Points plus the number of donkeys".
    pub belt_points: i64,
    /// The currency of H's award.
    pub currency: String,
    /// I: "If no player not on the GAL does so within three days".
    pub successor_days: u32,
    /// How long after a call the game starts, in hours, so that players may
    /// decline publicly before it does (A). Not a number of the text.
    pub notice_hours: u32,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            rule: bound::RULE,
            calls_per_month: 1,
            claim_after_days: 60,
            min_round_days: 1,
            max_round_days: 3,
            belt_points: 3,
            currency: "points".to_owned(),
            successor_days: 3,
            notice_hours: 24,
        }
    }
}

/// A player holding a title, by id and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Titled {
    pub player: PlayerId,
    pub name: String,
}

/// The titles, the calls and the game in progress.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Corral {
    pub wrangler: Option<Titled>,
    pub belt_holder: Option<Titled>,
    /// H: the Belt Holder's right to propose one amendment, until a moderator
    /// records it used.
    #[serde(default)]
    pub amendment_right: Option<Titled>,
    /// The calls so far ("once per calendar month"): when each was made.
    #[serde(default)]
    pub calls: Vec<Timestamp>,
    /// When the most recent game ended (the 60 days count from it).
    #[serde(default)]
    pub last_ended: Option<Timestamp>,
    /// How many games were called: the number of the next.
    #[serde(default)]
    pub games: u32,
    pub game: Option<Round>,
}

/// One player on the GAL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OnGal {
    pub player: PlayerId,
    pub name: String,
    /// Donkeys successfully grabbed this game (H).
    #[serde(default)]
    pub grabbed: u32,
}

/// The game in progress, from its call to its end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round {
    pub number: u32,
    pub called_by: String,
    pub called_at: Timestamp,
    pub starts_at: Timestamp,
    pub round_days: u32,
    /// Those who publicly declined before the start (A).
    #[serde(default)]
    pub declined: Vec<Titled>,
    /// 0 until the game starts.
    pub round: u32,
    pub round_ends: Option<Timestamp>,
    #[serde(default)]
    pub gal: Vec<OnGal>,
    /// Who has acted this round: public; what, never.
    #[serde(default)]
    pub acted: Vec<String>,
    /// I: a transfer offered by the Wrangler, waiting for the player's consent.
    #[serde(default)]
    pub offered_to: Option<Titled>,
    /// I: the Wrangler went on vacation or left; the successor's deadline.
    #[serde(default)]
    pub wrangler_gone_until: Option<Timestamp>,
}

/// What one player did in a round, as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Did {
    pub name: String,
    /// "cover", "grab Bob", "admire", "resign", "rock", ... or "left the nomic".
    pub action: String,
    /// Whether the player chose an action (none: admire, or no move in G).
    pub chose: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A title changed hands (`to: None`: nobody holds it). `why` in words.
    Title {
        title: String,
        to: Option<Titled>,
        why: String,
    },
    AmendmentUsed,
    Called {
        number: u32,
        called_by: String,
        round_days: u32,
        starts_at: Timestamp,
    },
    Declined {
        who: Titled,
    },
    /// A round began with this GAL (the first round: the game started).
    RoundBegan {
        round: u32,
        ends: Timestamp,
        gal: Vec<OnGal>,
    },
    Acted {
        name: String,
    },
    /// The round's report was published: what each did, and the result.
    Reported {
        round: u32,
        did: Vec<Did>,
        removed: Vec<String>,
        grabs: Vec<(String, String)>,
    },
    Offered {
        to: Option<Titled>,
    },
    WranglerGone {
        until: Option<Timestamp>,
    },
    Ended {
        belt_holder: Option<String>,
        why: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Cover,
    Grab(String),
    Admire,
    Resign,
    Rock,
    Scissors,
    Paper,
}

impl Action {
    /// The sealed text: what the reveal shows and the report reads back.
    pub fn text(&self) -> String {
        match self {
            Action::Cover => "cover".to_owned(),
            Action::Grab(name) => format!("grab {name}"),
            Action::Admire => "admire".to_owned(),
            Action::Resign => "resign".to_owned(),
            Action::Rock => "rock".to_owned(),
            Action::Scissors => "scissors".to_owned(),
            Action::Paper => "paper".to_owned(),
        }
    }

    pub fn from_text(text: &str) -> Option<Action> {
        parse::action(text)
    }

    pub fn is_throw(&self) -> bool {
        matches!(self, Action::Rock | Action::Scissors | Action::Paper)
    }

    /// G: whether this throw beats that one.
    pub fn beats(&self, other: &Action) -> bool {
        matches!(
            (self, other),
            (Action::Rock, Action::Scissors)
                | (Action::Scissors, Action::Paper)
                | (Action::Paper, Action::Rock)
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `claim wrangler` (also `claim wrangler and belt-holder`).
    Claim,
    /// The Wrangler's `call N days`.
    Call {
        days: u32,
    },
    Decline,
    Act(Action),
    /// The Wrangler's `transfer wrangler to NAME` (I).
    Transfer {
        name: String,
    },
    /// The named player's `accept wrangler`.
    Accept,
    Status,
    /// A moderator's `close round because REASON`.
    Close {
        reason: String,
    },
    /// A moderator's `title wrangler|belt-holder NAME|nobody because REASON`.
    SetTitle {
        title: String,
        name: Option<String>,
        reason: String,
    },
    /// A moderator's `amendment used because REASON` (H).
    AmendmentUsed {
        reason: String,
    },
}

/// The batch and the deadline of a round.
pub fn batch_id(game: u32, round: u32) -> String {
    format!("{TAG}:{game}:{round}")
}

impl Corral {
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Title { title, to, .. } => {
                if title == WRANGLER {
                    self.wrangler = to.clone();
                    if let Some(game) = &mut self.game {
                        game.wrangler_gone_until = None;
                        game.offered_to = None;
                    }
                } else {
                    self.belt_holder = to.clone();
                }
            }
            Event::AmendmentUsed => self.amendment_right = None,
            Event::Called {
                number,
                called_by,
                round_days,
                starts_at,
            } => {
                self.games = self.games.max(*number);
                self.calls.push(at);
                self.game = Some(Round {
                    number: *number,
                    called_by: called_by.clone(),
                    called_at: at,
                    starts_at: *starts_at,
                    round_days: *round_days,
                    declined: Vec::new(),
                    round: 0,
                    round_ends: None,
                    gal: Vec::new(),
                    acted: Vec::new(),
                    offered_to: None,
                    wrangler_gone_until: None,
                });
            }
            Event::Declined { who } => {
                if let Some(game) = &mut self.game
                    && !game.declined.contains(who)
                {
                    game.declined.push(who.clone());
                }
            }
            Event::RoundBegan { round, ends, gal } => {
                if let Some(game) = &mut self.game {
                    game.round = *round;
                    game.round_ends = Some(*ends);
                    game.gal = gal.clone();
                    game.acted.clear();
                }
            }
            Event::Acted { name } => {
                if let Some(game) = &mut self.game
                    && !game.acted.contains(name)
                {
                    game.acted.push(name.clone());
                }
            }
            Event::Reported { grabs, .. } => {
                if let Some(game) = &mut self.game {
                    for (grabber, _) in grabs {
                        if let Some(on) = game.gal.iter_mut().find(|p| &p.name == grabber) {
                            on.grabbed += 1;
                        }
                    }
                    game.round_ends = None;
                }
            }
            Event::Offered { to } => {
                if let Some(game) = &mut self.game {
                    game.offered_to = to.clone();
                }
            }
            Event::WranglerGone { until } => {
                if let Some(game) = &mut self.game {
                    game.wrangler_gone_until = *until;
                }
            }
            Event::Ended { belt_holder, .. } => {
                if let (Some(name), Some(game)) = (belt_holder, &self.game)
                    && let Some(on) = game.gal.iter().find(|p| &p.name == name)
                {
                    self.amendment_right = Some(Titled {
                        player: on.player,
                        name: on.name.clone(),
                    });
                }
                self.game = None;
                self.last_ended = Some(at);
            }
        }
    }

    /// Whether `player` is on the GAL of the game in progress.
    pub fn on_gal(&self, player: PlayerId) -> bool {
        self.game
            .as_ref()
            .is_some_and(|g| g.gal.iter().any(|p| p.player == player))
    }
}

impl Game for Donkey {
    const NAME: &'static str = "donkey";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = Corral;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    /// Rule 1250: a Contest of the Games & Contests suite the bot referees.
    fn contests(_params: &Params) -> Vec<crate::engine::contests::Contest> {
        vec![crate::engine::contests::Contest::by_the_bot(
            "Grab-a-Donkey",
            0,
            TAG,
        )]
    }

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        parse::parse(line)
    }

    fn begins(command: &Command) -> bool {
        matches!(command, Command::Call { .. })
    }

    fn apply(tx: &mut Tx<'_, Donkey>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        rules::apply(tx, command, ctx)
    }

    fn apply_event(state: &mut Corral, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    fn on_deadline(tx: &mut Tx<'_, Donkey>, deadline: &Deadline, _tick: &Tick) {
        rules::on_deadline(tx, &deadline.id);
    }

    fn standing_changed(tx: &mut Tx<'_, Donkey>, change: &Standing) {
        rules::standing_changed(tx, change);
    }

    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        bound::declared(params)
    }

    /// Rule 1213 was decided again: repealed, a game in progress ends.
    fn bindings_changed(tx: &mut Tx<'_, Donkey>, _rules: &[u32]) {
        rules::bindings_changed(tx);
    }

    /// A round action is secret until the round's report, wherever it is sent
    /// (one sent to the list does not count, and the list is not told of it by
    /// the bot either).
    fn secrecy(command: &Command, _ctx: &Ctx) -> Secrecy {
        match command {
            Command::Act(_) => Secrecy::Secret {
                shown_as: "a Grab-a-Donkey round action (revealed with the round's report)",
            },
            _ => Secrecy::Public,
        }
    }

    /// A round's report tells what each player did.
    fn hidden_from_preview(event: &Event) -> bool {
        matches!(event, Event::Reported { .. } | Event::Ended { .. })
    }

    fn running(state: &Corral, _view: &View<'_>) -> Vec<Running> {
        let Some(game) = &state.game else {
            return Vec::new();
        };
        let what = if game.round == 0 {
            format!("Grab-a-Donkey game {} called, starting soon", game.number)
        } else {
            format!("Grab-a-Donkey game {}, round {}", game.number, game.round)
        };
        vec![Running {
            tag: TAG.to_owned(),
            what,
            players: game.gal.iter().map(|p| p.name.clone()).collect(),
            turn: None,
            deadline: game
                .round_ends
                .or(Some(game.starts_at).filter(|_| game.round == 0)),
        }]
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        sample::sample(script);
    }
}
