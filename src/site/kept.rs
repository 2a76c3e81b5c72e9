//! What a site folder's next build goes on from, kept in the database beside
//! its cursor (`site_cursor`): the log folded so far (with the past rule
//! versions, which the live rules keep too; a revealed sealed batch or a
//! finished random period moves to the site's archive, `site_archive`, one row
//! an item, as it finishes), the series the plots draw, and the tags each
//! game's announcements were under. A build folds in only the events after the cursor and appends to
//! the series, so its cost follows what changed; a whole build starts this from
//! the initial world and folds every event through the very same code, so the
//! two give the same bytes.
//!
//! Private: it holds the whole world. It lives in the database, never in the
//! site's folder, and pages read it only through the public views.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use num_traits::ToPrimitive;
use serde::{Deserialize, Serialize};

use crate::engine::accounts::{self, Holder};
use crate::engine::game::View;
use crate::engine::sealed;
use crate::games::{self, Registered, Visit, World, each_game};
use crate::pipeline::Bot;

use super::SiteError;

/// A value over time: one point where it changed, the value at the end of
/// each instant. A point is a number's text (`f64` written and read back
/// exactly), so a state read from the database draws the same as one folded
/// in memory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Series(pub Vec<(Timestamp, String)>);

impl Series {
    /// The value at `at` is now `value`. Whether a build samples the value once
    /// at the end of an instant or also midway (a build that ends between two
    /// steps of the same instant), the series comes out the same: a later
    /// sample of the same instant replaces the earlier, and a point equal to
    /// the one before it is no point.
    pub fn set(&mut self, at: Timestamp, value: String) -> bool {
        let points = &mut self.0;
        match points.last_mut() {
            Some(last) if last.0 == at => {
                if last.1 == value {
                    return false;
                }
                let n = points.len();
                if n >= 2 && points[n - 2].1 == value {
                    points.pop();
                } else {
                    points[n - 1].1 = value;
                }
                true
            }
            Some(last) if last.1 == value => false,
            _ => {
                points.push((at, value));
                true
            }
        }
    }
}

/// A game's score series: the score's name and each player's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    pub name: String,
    pub of: BTreeMap<u32, Series>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Kept {
    /// The fold of the log up to `seq`, history kept.
    pub world: World,
    /// The causes the moderators' voids leave out, as of the last whole build.
    pub voided: BTreeSet<String>,
    pub seq: i64,
    /// The time of the last event: the site's "now".
    pub as_of: Option<Timestamp>,
    /// Each player's balance in each currency: currency → player → series.
    pub balances: BTreeMap<String, BTreeMap<u32, Series>>,
    /// Each scoring game's scores over time, by game.
    pub scores: BTreeMap<String, Scores>,
    /// How many announcements the pages have taken in.
    pub announced: i64,
    /// Each game's announcements taken in, and the tags they were under, in
    /// the order first heard.
    pub game_counts: BTreeMap<String, i64>,
    pub tags: BTreeMap<String, Vec<String>>,
    /// How many items of each kind of shared history (`SEALED`, `RANDOM`)
    /// the fold has retired into the site's archive (`site_archive` rows).
    #[serde(default)]
    pub archived: BTreeMap<String, i64>,
    /// The plots whose series changed in this build (not kept).
    #[serde(skip)]
    pub dirty: BTreeSet<String>,
    /// The items retired in this build, to be put in the archive (not kept):
    /// kind, number, public JSON.
    #[serde(skip)]
    pub fresh: Vec<(&'static str, i64, String)>,
    /// The parts of the shared world an event of this build changed: the
    /// pages of the ruleset, the random officer and the sealed actions are
    /// rendered only then (not kept).
    #[serde(skip)]
    pub touched: BTreeSet<&'static str>,
}

/// The revealed sealed batches, as the site archives and pages them.
pub const SEALED: &str = "sealed";
/// The finished random periods, their seeds published.
pub const RANDOM: &str = "random";
/// The ruleset (touched only: its past versions stay in the world, which
/// the rules need).
pub const RULESET: &str = "ruleset";

/// What folding the new events found.
pub enum Folded {
    Done,
    /// A moderator's void among them: it may leave out events already folded
    /// in, so only a whole build is right.
    Void,
}

/// A currency's plot, by file.
pub fn balances_plot(currency: &str) -> String {
    format!("balances-{}.svg", super::pages::slug(currency))
}

/// A game's score plot, by file.
pub fn scores_plot(game: &str) -> String {
    format!("scores-{}.svg", super::pages::slug(game))
}

impl Kept {
    /// The start of a whole build: nothing folded, the voids of the whole log known.
    pub fn start(bot: &Bot) -> Result<Kept, SiteError> {
        let voids = bot.store.void_events()?;
        let voids: Vec<_> = voids
            .iter()
            .map(|r| (r.at, r.cause.as_str(), &r.event))
            .collect();
        Ok(Kept {
            world: bot.initial_world(),
            voided: games::voided_causes(&voids).into_iter().collect(),
            ..Kept::default()
        })
    }

    /// Folds in the events after `seq`; in a whole build (`whole`) the voids
    /// are known already, in a build that goes on a new void stops it.
    pub fn fold(&mut self, bot: &Bot, whole: bool) -> Result<Folded, SiteError> {
        let mut instant: Option<Timestamp> = None;
        let mut void = false;
        bot.store
            .each_event_after(self.seq, |record| -> Result<(), SiteError> {
                if void {
                    return Ok(());
                }
                if !whole
                    && matches!(
                        record.event,
                        games::Event::Override(games::Override::Voided { .. })
                    )
                {
                    void = true;
                    return Ok(());
                }
                if let Some(at) = instant
                    && at != record.at
                {
                    self.sample_scores(bot, at);
                }
                instant = Some(record.at);
                self.apply(record.at, &record.cause, &record.event);
                self.seq = record.seq;
                self.as_of = Some(self.as_of.map_or(record.at, |l| l.max(record.at)));
                Ok(())
            })?;
        if void {
            return Ok(Folded::Void);
        }
        if let Some(at) = instant {
            self.sample_scores(bot, at);
        }
        self.retire_games();
        Ok(Folded::Done)
    }

    /// Each game's finished history let go, as the live state does after every
    /// step (a closed ballot, a finished instance): its announcements are the
    /// record of it, and a game's page shows its state now, which then costs
    /// what the game holds now, not its past. The shared history (past random
    /// periods, revealed sealed batches, past rule versions) stays: the site
    /// has pages of its own for it.
    fn retire_games(&mut self) {
        struct Retire<'a>(&'a mut World);
        impl Visit for Retire<'_> {
            fn visit<G: Registered>(&mut self) {
                if let Some(live) = G::retire(&G::take_state(self.0)) {
                    G::put_state(self.0, std::sync::Arc::new(live));
                }
            }
        }
        each_game(&mut Retire(&mut self.world));
    }

    fn apply(&mut self, at: Timestamp, cause: &str, event: &games::Event) {
        if self.voided.contains(cause) {
            if let games::Event::Players(event) = event {
                // A voided join's id stays used (`Registry::retired_ids`).
                std::sync::Arc::make_mut(&mut self.world.shared.players).skipped_event(event);
            }
            return;
        }
        self.world.apply_event(event, at);
        self.archive(event);
        if let games::Event::Accounts(accounts::Event::Transferred {
            currency, from, to, ..
        }) = event
        {
            for holder in [from, to] {
                if let Holder::Player(id) = holder {
                    let now = self
                        .world
                        .shared
                        .accounts
                        .balance(Holder::Player(*id), currency)
                        .to_f64()
                        .unwrap_or(0.0);
                    let changed = self
                        .balances
                        .entry(currency.clone())
                        .or_default()
                        .entry(*id)
                        .or_default()
                        .set(at, now.to_string());
                    if changed {
                        self.dirty.insert(balances_plot(currency));
                    }
                }
            }
        }
    }

    /// The shared history an event finished, moved from the world into the
    /// archive as the public sees it, in the order it finished: a revealed
    /// batch, a random period whose seed is out. Every event, not every step
    /// or build, so a whole build numbers them as any sequence of builds does;
    /// the live state lets the same go after the step (`Shared::retire`).
    fn archive(&mut self, event: &games::Event) {
        let mut retired = Vec::new();
        match event {
            games::Event::Sealed(_) => {
                self.touched.insert(SEALED);
                if self.world.sealed.has_history() {
                    let view = self.world.sealed.public_view();
                    retired.extend(
                        view.batches
                            .iter()
                            .filter(|batch| batch.stage == sealed::Stage::Revealed)
                            .map(|batch| (SEALED, serde_json::to_string(batch))),
                    );
                    std::sync::Arc::make_mut(&mut self.world.shared.sealed).retire();
                }
            }
            games::Event::Random(_) => {
                self.touched.insert(RANDOM);
                if !self.world.random.past.is_empty() {
                    let random = std::sync::Arc::make_mut(&mut self.world.shared.random);
                    retired.extend(
                        random
                            .past
                            .drain(..)
                            .map(|period| (RANDOM, serde_json::to_string(&period))),
                    );
                }
            }
            games::Event::Ruleset(_) => {
                self.touched.insert(RULESET);
            }
            _ => {}
        }
        for (kind, item) in retired {
            // Plain data: it serializes.
            let Ok(item) = item else { continue };
            let count = self.archived.entry(kind.to_owned()).or_default();
            *count += 1;
            self.fresh.push((kind, *count, item));
        }
    }

    /// Each scoring game's scores at the end of the instant `at`.
    fn sample_scores(&mut self, bot: &Bot, at: Timestamp) {
        struct Sample<'a> {
            kept: &'a mut Kept,
            bot: &'a Bot,
            at: Timestamp,
        }
        impl Visit for Sample<'_> {
            fn visit<G: Registered>(&mut self) {
                let world = &self.kept.world;
                let state = G::take_state(world);
                let view = View::new(&world.shared, &self.bot.params().setting);
                let Some(scores) = G::scores(&state, &view) else {
                    return;
                };
                let kept = self.kept.scores.entry(G::NAME.to_owned()).or_default();
                kept.name = scores.name;
                let mut changed = false;
                for (id, score) in scores.of {
                    // Only a score that reads as a number can be drawn.
                    if let Some(value) = number_in(&score) {
                        changed |= kept
                            .of
                            .entry(id)
                            .or_default()
                            .set(self.at, value.to_string());
                    }
                }
                if changed {
                    self.kept.dirty.insert(scores_plot(G::NAME));
                }
            }
        }
        each_game(&mut Sample {
            kept: self,
            bot,
            at,
        });
    }
}

/// The number a score is written as: `12`, `-3`, `4.5 points`, `7/10` (its
/// first number).
pub fn number_in(text: &str) -> Option<f64> {
    let text = text.trim();
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+'))))
        .map_or(text.len(), |(i, _)| i);
    text[..end].parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(second: i64) -> Timestamp {
        Timestamp::from_second(second).unwrap()
    }

    #[test]
    fn a_series_sampled_midway_through_an_instant_is_the_series_sampled_at_its_end() {
        let mut once = Series::default();
        once.set(at(0), "5".into());
        once.set(at(1), "5".into());
        let mut midway = once.clone();
        midway.set(at(2), "6".into());
        midway.set(at(2), "5".into());
        once.set(at(2), "5".into());
        assert_eq!(midway, once);
        assert_eq!(once.0, vec![(at(0), "5".to_owned())]);
        midway.set(at(3), "7".into());
        midway.set(at(3), "8".into());
        assert_eq!(midway.0.last(), Some(&(at(3), "8".to_owned())));
    }

    #[test]
    fn a_score_reads_as_its_first_number() {
        assert_eq!(number_in("12"), Some(12.0));
        assert_eq!(number_in("-3 points"), Some(-3.0));
        assert_eq!(number_in("7/10"), Some(7.0));
        assert_eq!(number_in("none"), None);
    }
}
