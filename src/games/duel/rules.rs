//! Rule 1215's sections and lettered conditions, in the text's order and
//! words: who may challenge whom (4a-4e, 4g, 4h, 4j), the answer and its
//! forfeit (§2, §3), the Contest (§2, the suite of rule 1250), the end and its
//! points (§2), and the forfeits and cancellations by standing (4f, 4i).

use num_bigint::BigInt;
use num_rational::BigRational;
use serde_json::json;

use super::report;
use super::{
    Challenge, Command, Contest, Duel, Duels, End, Event, Params, Stage, TAG, Who, announce,
    answer_deadline_id, days_after, numbers, schedule, when,
};
use crate::engine::accounts::Holder;
use crate::engine::calendar;
use crate::engine::game::{SharedEvent, Standing, Tx, View};
use crate::engine::players::{Player, PlayerId, Registry};
use crate::engine::{Ctx, Refusal, Sentence, Timestamp};

pub(super) fn apply(
    tx: &mut Tx<'_, Duel>,
    command: Command,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    match command {
        Command::Challenge {
            challenger,
            challenged,
            reason,
        } => challenge(tx, &challenger, &challenged, reason, ctx),
        Command::Accept {
            number,
            contest,
            teams,
        } => accept(tx, number, contest, teams, ctx),
        Command::Decline { number } => decline(tx, number, ctx),
        Command::Choose {
            number,
            contest,
            teams,
        } => choose(tx, number, &contest, teams, ctx),
        Command::Winner { number, name } => winner(tx, number, &name, ctx),
        Command::Commit { number, text } => commit(tx, number, text, ctx),
        Command::Vacation { date } => {
            let player = a_player(tx.view().players, ctx)?.clone();
            tx.record(Event::VacationAnnounced {
                player: player.id,
                name: player.name,
                date: date.clone(),
            });
            let until = days_after(tx, ctx.now, numbers(tx).announced_vacation_days);
            Ok(Sentence::new("duel_vacation_announced")
                .arg("date", date)
                .arg("until", when(until)))
        }
        // The suite is the shared world's: changed, and announced with the
        // reason, exactly as under `[games]`.
        Command::AddContest { contest, reason } => {
            moderator(tx, ctx)?;
            let name = contest.name.clone();
            crate::games::suite::add(tx, contest, &reason, ctx);
            Ok(Sentence::new("duel_contest_added").arg("name", name))
        }
        Command::RemoveContest { name, reason } => {
            moderator(tx, ctx)?;
            let name = crate::games::suite::remove(tx, &name, &reason, ctx)?;
            Ok(Sentence::new("duel_contest_removed").arg("name", name))
        }
        Command::Cancel { number, reason } => {
            moderator(tx, ctx)?;
            let duel = open_duel(tx.state(), Some(number))?.clone();
            end(
                tx,
                &duel,
                End::Cancelled {
                    why: reason.clone(),
                },
            );
            Ok(Sentence::new("duel_cancelled").arg("number", number))
        }
        Command::Contests => {
            Ok(Sentence::new("duel_contests").arg("suite", report::suite(&the_suite(tx))))
        }
        Command::Status => {
            let view = tx.view();
            Ok(Sentence::new("duel_status")
                .arg("duels", report::open_duels(tx.state()))
                .arg(
                    "untouchable",
                    untouchable_players(tx.state(), &view, &numbers(tx), ctx.now),
                ))
        }
    }
}

fn moderator(tx: &Tx<'_, Duel>, ctx: &Ctx) -> Result<(), Refusal> {
    if tx.view().is_moderator(&ctx.sender) {
        Ok(())
    } else {
        Err(Sentence::new("moderators_only").into())
    }
}

fn a_player<'r>(players: &'r Registry, ctx: &Ctx) -> Result<&'r Player, Refusal> {
    players
        .active_by_address(&ctx.sender)
        .ok_or_else(|| Sentence::new("duel_not_a_player").into())
}

fn named<'r>(players: &'r Registry, name: &str) -> Result<&'r Player, Refusal> {
    players
        .by_name(name)
        // Joined and not left: one on vacation or in Gaol is named all the
        // same, and 4d decides what may be done to em.
        .filter(|p| p.is_active())
        .ok_or_else(|| {
            Sentence::new("duel_no_such_player")
                .arg("name", name)
                .into()
        })
}

fn who(player: &Player) -> Who {
    Who {
        id: player.id,
        name: player.name.clone(),
    }
}

/// The duel a line names, or the one open duel when it names none.
fn open_duel(state: &Duels, number: Option<u32>) -> Result<&Challenge, Refusal> {
    match number {
        Some(number) => state.get(number).ok_or_else(|| {
            Sentence::new("duel_no_such_duel")
                .arg("number", number)
                .into()
        }),
        None => {
            let open: Vec<&Challenge> = state.duels.iter().filter(|d| d.is_open()).collect();
            match open.as_slice() {
                [only] => Ok(only),
                _ => Err(Sentence::new("duel_which")
                    .arg("open", open.iter().map(|d| d.number).collect::<Vec<_>>())
                    .into()),
            }
        }
    }
}

/// Why a player is Untouchable at `now`, and until when (None: until an event).
pub(super) fn untouchable(
    state: &Duels,
    view: &View<'_>,
    numbers: &Params,
    player: &Player,
    now: Timestamp,
) -> Option<(String, Option<Timestamp>)> {
    // 4b: "A Player who Challenged another Player to a Duel or a Player who has
    // been Challenged by another Player to a Duel is Untouchable until the Duel
    // procedures are resolved."
    if let Some(duel) = state
        .duels
        .iter()
        .find(|d| d.is_open() && d.duellists().contains(&player.id))
    {
        return Some((
            format!("4b: in Duel {}, not yet resolved", duel.number),
            None,
        ));
    }
    // 4d: "Players on Vacation or in Gaol are Untouchable."
    if let Some(until) = player.vacation_until.filter(|until| *until > now) {
        return Some(("4d: on vacation".to_owned(), Some(until)));
    }
    if player.in_gaol {
        return Some(("4d: in Gaol".to_owned(), None));
    }
    // 4c: the Challengee of an accepted duel, "until the end of the Calendar
    // month in which the duel ended".
    for duel in &state.duels {
        if duel.challenged.id == player.id
            && duel.started_at.is_some()
            && let Some(ended) = duel.ended_at
        {
            let month_end = month_end(view, ended);
            if now < month_end {
                return Some((
                    format!("4c: the Challengee of Duel {}", duel.number),
                    Some(month_end),
                ));
            }
        }
    }
    // 4e: an announced vacation: until the return (4d above), "or for three
    // days if they do not go on that vacation within 3 days".
    if let Some(announced) = state.announced.iter().find(|a| a.player == player.id) {
        let until = after_days(view, announced.at, numbers.announced_vacation_days);
        if now < until {
            return Some((
                format!("4e: announced a vacation on {}", announced.date),
                Some(until),
            ));
        }
    }
    // 4h: "A player who has declined a Duel, or failed to respond to a
    // Challenge, is Untouchable until 3 days after [...]".
    for duel in &state.duels {
        if duel.challenged.id == player.id
            && let (Some(End::Forfeited { by, why }), Some(ended)) = (&duel.end, duel.ended_at)
            && *by == player.id
            && (why == "declined" || why == "silence")
        {
            let until = after_days(view, ended, numbers.declined_days);
            if now < until {
                return Some((
                    format!(
                        "4h: {} Duel {}",
                        if why == "declined" {
                            "declined"
                        } else {
                            "did not answer"
                        },
                        duel.number
                    ),
                    Some(until),
                ));
            }
        }
    }
    None
}

fn after_days(view: &View<'_>, at: Timestamp, days: u32) -> Timestamp {
    jiff::Span::new()
        .try_days(i64::from(days))
        .ok()
        .and_then(|span| view.calendar.after(at, span).ok())
        .unwrap_or(at)
}

/// The first moment of the calendar month after the one `at` falls in.
fn month_end(view: &View<'_>, at: Timestamp) -> Timestamp {
    view.calendar
        .month_start(at)
        .ok()
        .and_then(|start| view.calendar.after(start, jiff::Span::new().months(1)).ok())
        .unwrap_or(at)
}

fn untouchable_players(
    state: &Duels,
    view: &View<'_>,
    numbers: &Params,
    now: Timestamp,
) -> serde_json::Value {
    view.players
        .active()
        .filter_map(|player| {
            let (why, until) = untouchable(state, view, numbers, player, now)?;
            Some(json!({"name": player.name, "why": why, "until": until.map(when)}))
        })
        .collect()
}

/// §2: the Challenger's Second posts the challenge publicly.
fn challenge(
    tx: &mut Tx<'_, Duel>,
    challenger: &str,
    challenged: &str,
    reason: String,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let view = tx.view();
    let n = numbers(tx);
    // "The Second posts a public message".
    if !ctx.public {
        return Err(Sentence::new("duel_post_publicly").into());
    }
    let second = a_player(view.players, ctx)?.clone();
    let challenger = named(view.players, challenger)?.clone();
    let challenged = named(view.players, challenged)?.clone();
    if challenger.id == challenged.id {
        return Err(Sentence::new("duel_not_yourself").into());
    }
    // "finds another player who agrees to be their Second".
    if second.id == challenger.id || second.id == challenged.id {
        return Err(Sentence::new("duel_second_another_player").into());
    }
    // 4a: "It is impermissible to Challenge an Untouchable Player to a Duel."
    if let Some((why, until)) = untouchable(tx.state(), &view, &n, &challenged, ctx.now) {
        return Err(Sentence::new("duel_untouchable")
            .arg("name", &challenged.name)
            .arg("why", why)
            .arg("until", until.map(when))
            .into());
    }
    // 4b: the Challenger is Untouchable too while eir duel is unresolved;
    // one duel at a time (docs/rulings.md).
    if let Some(duel) = tx
        .state()
        .duels
        .iter()
        .find(|d| d.is_open() && d.duellists().contains(&challenger.id))
    {
        return Err(Sentence::new("duel_challenger_engaged")
            .arg("name", &challenger.name)
            .arg("number", duel.number)
            .into());
    }
    // 4g: "A Player running for Office may not Challenge another Player
    // running for the same Office to a duel."
    // Who runs for what is the registry's (`[nomic] running for OFFICE`).
    let offices = |id: PlayerId| {
        tx.view()
            .players
            .by_id(id)
            .map(|p| p.running_for.clone())
            .unwrap_or_default()
            .into_iter()
            .map(|o| o.to_lowercase())
    };
    if let Some(office) = offices(challenger.id).find(|o| offices(challenged.id).any(|p| p == *o)) {
        return Err(Sentence::new("duel_same_office")
            .arg("challenger", &challenger.name)
            .arg("challenged", &challenged.name)
            .arg("office", office)
            .into());
    }
    // 4j: "No player may make more than 3 challenges per calendar month. No
    // more than 6 duels may be called per calendar month."
    let month = view.calendar.month_start(ctx.now).ok();
    let this_month: Vec<&Challenge> = tx
        .state()
        .duels
        .iter()
        .filter(|d| view.calendar.month_start(d.challenged_at).ok() == month)
        .collect();
    let by_challenger = this_month
        .iter()
        .filter(|d| d.challenger.id == challenger.id)
        .count();
    if by_challenger >= usize::try_from(n.challenges_per_month).unwrap_or(usize::MAX) {
        return Err(Sentence::new("duel_too_many_challenges")
            .arg("name", &challenger.name)
            .arg("limit", n.challenges_per_month)
            .into());
    }
    if this_month.len() >= usize::try_from(n.duels_per_month).unwrap_or(usize::MAX) {
        return Err(Sentence::new("duel_too_many_duels")
            .arg("limit", n.duels_per_month)
            .into());
    }
    let number = tx.state().next_number();
    let answer_until = days_after(tx, ctx.now, n.answer_days.get());
    tx.record(Event::Challenged {
        number,
        challenger: who(&challenger),
        challenged: who(&challenged),
        second: who(&second),
        reason,
        answer_until,
    });
    schedule(
        tx,
        answer_deadline_id(number),
        answer_until,
        TAG,
        Some(challenged.id),
        format!("the answer to the challenge of Duel {number}"),
    );
    if let Some(duel) = tx.state().get(number).cloned() {
        let suite = the_suite(tx);
        announce(tx, "duel_challenged", report::challenged(&duel, &suite, &n));
    }
    Ok(Sentence::new("duel_challenge_posted")
        .arg("number", number)
        .arg("until", when(answer_until)))
}

/// §2: "a Game or Contest chosen by the Challenged player for the Duel, or an
/// explicit waiver". The Contest must be in the suite, playable by exactly
/// two players (or two teams of two, when the four are different players),
/// with definitive rules for a winner.
fn conforming<'s>(
    suite: &'s [Contest],
    name: &str,
    teams: bool,
    duel: &Challenge,
    challenged_second: Option<PlayerId>,
) -> Result<&'s Contest, Refusal> {
    let contest = suite
        .iter()
        .find(|c| c.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            Refusal(
                Sentence::new("duel_not_in_suite")
                    .arg("name", name)
                    .arg("suite", report::suite_names(suite)),
            )
        })?;
    if !contest.definite_winner {
        return Err(Sentence::new("duel_no_definite_winner")
            .arg("name", &contest.name)
            .into());
    }
    if teams {
        let mut four = vec![
            duel.challenger.id,
            duel.challenged.id,
            duel.challenger_second.id,
        ];
        four.extend(challenged_second);
        four.sort_unstable();
        four.dedup();
        if !contest.teams {
            return Err(Sentence::new("duel_not_for_teams")
                .arg("name", &contest.name)
                .into());
        }
        if four.len() != 4 {
            return Err(Sentence::new("duel_teams_not_four").into());
        }
    } else if contest.players != 2 {
        return Err(Sentence::new("duel_not_two_players")
            .arg("name", &contest.name)
            .arg("players", contest.players)
            .into());
    }
    Ok(contest)
}

fn accept(
    tx: &mut Tx<'_, Duel>,
    number: Option<u32>,
    contest: Option<String>,
    teams: bool,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let duel = open_duel(tx.state(), number)?.clone();
    if duel.stage != Stage::Challenged {
        return Err(Sentence::new("duel_already_answered")
            .arg("number", duel.number)
            .into());
    }
    // "have the Second respond to the message publically".
    if !ctx.public {
        return Err(Sentence::new("duel_post_publicly").into());
    }
    let second = a_player(tx.view().players, ctx)?.clone();
    if duel.duellists().contains(&second.id) {
        return Err(Sentence::new("duel_second_another_player").into());
    }
    if ctx.now >= duel.answer_until {
        return Err(Sentence::new("duel_answer_late")
            .arg("number", duel.number)
            .arg("until", when(duel.answer_until))
            .into());
    }
    let suite = the_suite(tx);
    let chosen = match &contest {
        Some(name) => Some(conforming(&suite, name, teams, &duel, Some(second.id))?.clone()),
        None => None,
    };
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled {
        id: answer_deadline_id(duel.number),
    }));
    tx.record(Event::Accepted {
        number: duel.number,
        second: who(&second),
        contest: chosen.as_ref().map(|c| c.name.clone()),
        teams,
    });
    let duel = tx.state().get(duel.number).cloned().unwrap_or(duel);
    announce(
        tx,
        "duel_accepted",
        report::accepted(&duel, chosen.as_ref()),
    );
    if let Some(contest) = &chosen {
        begin_contest(tx, &duel, contest);
    }
    Ok(Sentence::new("duel_accepted")
        .arg("number", duel.number)
        .arg("contest", chosen.map(|c| c.name)))
}

/// "If the Challenging player waived [...], the Challenging player may choose a Contest."
fn choose(
    tx: &mut Tx<'_, Duel>,
    number: Option<u32>,
    name: &str,
    teams: bool,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let duel = open_duel(tx.state(), number)?.clone();
    let player = a_player(tx.view().players, ctx)?.clone();
    if player.id != duel.challenger.id && !tx.view().is_moderator(&ctx.sender) {
        return Err(Sentence::new("duel_challenger_chooses")
            .arg("name", &duel.challenger.name)
            .into());
    }
    if duel.stage != Stage::Waived {
        return Err(Sentence::new("duel_no_waiver")
            .arg("number", duel.number)
            .into());
    }
    let suite = the_suite(tx);
    let contest = conforming(
        &suite,
        name,
        teams,
        &duel,
        duel.challenged_second.as_ref().map(|w| w.id),
    )?
    .clone();
    tx.record(Event::Chosen {
        number: duel.number,
        contest: contest.name.clone(),
        teams,
    });
    let duel = tx.state().get(duel.number).cloned().unwrap_or(duel);
    announce(tx, "duel_accepted", report::accepted(&duel, Some(&contest)));
    begin_contest(tx, &duel, &contest);
    Ok(Sentence::new("duel_chosen")
        .arg("number", duel.number)
        .arg("contest", contest.name))
}

/// A Contest the bot referees starts at once: handed to its game on the
/// shared schedule (`TAG:duel:duel:N:A:B`, its `who` the referee if a player).
fn begin_contest(tx: &mut Tx<'_, Duel>, duel: &Challenge, contest: &Contest) {
    let Some(game) = contest
        .game
        .as_deref()
        .filter(|_| contest.refereed_by_the_bot())
    else {
        return;
    };
    schedule(
        tx,
        format!(
            "{game}:duel:{TAG}:{}:{}:{}",
            duel.number, duel.challenger.id, duel.challenged.id
        ),
        tx.at(),
        game,
        None,
        format!(
            "Duel {}: {} against {}",
            duel.number, duel.challenger.name, duel.challenged.name
        ),
    );
}

/// §2: "or the Challenged player declines the Challenge".
fn decline(tx: &mut Tx<'_, Duel>, number: Option<u32>, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let duel = open_duel(tx.state(), number)?.clone();
    let player = a_player(tx.view().players, ctx)?.clone();
    if player.id != duel.challenged.id {
        return Err(Sentence::new("duel_only_the_challenged_declines")
            .arg("name", &duel.challenged.name)
            .into());
    }
    if duel.stage != Stage::Challenged {
        return Err(Sentence::new("duel_already_answered")
            .arg("number", duel.number)
            .into());
    }
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled {
        id: answer_deadline_id(duel.number),
    }));
    forfeit(tx, &duel, duel.challenged.id, "declined");
    Ok(Sentence::new("duel_declined").arg("number", duel.number))
}

/// §2: "If there is no response to the Challenge within the 3 days [...] he is
/// considered to have forfeited the Duel."
pub(super) fn no_answer_in_time(tx: &mut Tx<'_, Duel>, number: u32) {
    let Some(duel) = tx.state().get(number).cloned() else {
        return;
    };
    if duel.stage == Stage::Challenged {
        forfeit(tx, &duel, duel.challenged.id, "silence");
    }
}

/// §3: "Whenever a duel is forfeited, the Challenged player loses 6 points,
/// and the Challenging player gains 6 points. The Seconds scores are not
/// changed in this case."
fn forfeit(tx: &mut Tx<'_, Duel>, duel: &Challenge, by: PlayerId, why: &str) {
    let n = numbers(tx);
    let (loser, gainer) = if n.forfeit_by_role || by == duel.challenged.id {
        (&duel.challenged, &duel.challenger)
    } else {
        (&duel.challenger, &duel.challenged)
    };
    let reason = format!("rule 1215 §3: Duel {} forfeited", duel.number);
    let lost = pay(tx, loser.id, -i64::from(n.forfeit_loss), &reason);
    let gained = pay(tx, gainer.id, i64::from(n.forfeit_gain), &reason);
    tx.record(Event::Ended {
        number: duel.number,
        end: End::Forfeited {
            by,
            why: why.to_owned(),
        },
    });
    announce(
        tx,
        "duel_forfeited",
        json!({
            "number": duel.number,
            "challenger": duel.challenger.name,
            "challenged": duel.challenged.name,
            "by": duel.name_of(by),
            "why": why,
            "loser": loser.name,
            "loss": n.forfeit_loss,
            "lost": lost,
            "gainer": gainer.name,
            "gain": n.forfeit_gain,
            "gained": gained,
            "currency": n.currency,
            "commitments": report::commitments(duel),
        }),
    );
}

/// Moves points for the rule (positive: from nowhere; negative: charged even
/// below zero). Whether it was made.
fn pay(tx: &mut Tx<'_, Duel>, player: PlayerId, amount: i64, reason: &str) -> bool {
    if amount == 0 {
        return true;
    }
    let currency = tx.params().currency.clone();
    let value = BigRational::from_integer(BigInt::from(amount.abs()));
    let accounts = tx.view().accounts;
    let event = if amount > 0 {
        accounts.transfer(
            Holder::Nowhere,
            Holder::Player(player),
            &currency,
            &value,
            reason,
        )
    } else {
        accounts.charge(
            Holder::Player(player),
            Holder::Nowhere,
            &currency,
            &value,
            reason,
        )
    };
    match event {
        Ok(event) => {
            tx.record_shared(SharedEvent::Accounts(event));
            true
        }
        Err(_) => false,
    }
}

/// A Contest's referee reports the winner (or a moderator does).
fn winner(
    tx: &mut Tx<'_, Duel>,
    number: Option<u32>,
    name: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let duel = open_duel(tx.state(), number)?.clone();
    if duel.stage != Stage::Started {
        return Err(Sentence::new("duel_not_started")
            .arg("number", duel.number)
            .into());
    }
    let suite = the_suite(tx);
    let contest = suite
        .iter()
        .find(|c| Some(c.name.as_str()) == duel.contest.as_deref());
    let is_moderator = tx.view().is_moderator(&ctx.sender);
    let sender = tx.view().players.active_by_address(&ctx.sender).cloned();
    let is_referee = contest.is_some_and(|c| {
        !c.refereed_by_the_bot()
            && !c.referee.is_empty()
            && sender
                .as_ref()
                .is_some_and(|p| p.name.eq_ignore_ascii_case(&c.referee))
    });
    if !is_moderator && !is_referee {
        return Err(Sentence::new("duel_referee_reports").into());
    }
    let player = named(tx.view().players, name)?.clone();
    if !duel.duellists().contains(&player.id) {
        return Err(Sentence::new("duel_not_a_duellist")
            .arg("name", &player.name)
            .into());
    }
    let by = sender.map_or_else(|| ctx.sender.to_string(), |p| p.name);
    contest_won(tx, duel.number, Some(player.id), &by);
    Ok(Sentence::new("duel_winner_reported")
        .arg("number", duel.number)
        .arg("name", player.name))
}

/// The Contest of duel `number` has its winner (None: it ended with none).
/// §2: "the winner of the Duel receives 6 points in addition to any rewards
/// or penalties he may have received as part of the Contest itself [...]".
pub(super) fn contest_won(tx: &mut Tx<'_, Duel>, number: u32, winner: Option<PlayerId>, by: &str) {
    let Some(duel) = tx.state().get(number).cloned() else {
        return;
    };
    if duel.stage != Stage::Started {
        return;
    }
    let Some(winner) = winner.filter(|w| duel.duellists().contains(w)) else {
        end(tx, &duel, End::NoWinner { by: by.to_owned() });
        return;
    };
    end(
        tx,
        &duel,
        End::Won {
            winner,
            by: by.to_owned(),
        },
    );
}

/// Ends a duel: the points of its end and the announcement with the commitments.
fn end(tx: &mut Tx<'_, Duel>, duel: &Challenge, end: End) {
    let n = numbers(tx);
    if duel.stage == Stage::Challenged {
        tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled {
            id: answer_deadline_id(duel.number),
        }));
    }
    let mut points = Vec::new();
    if let End::Won { winner, .. } = &end {
        let reason = format!("rule 1215 §2: the end of Duel {}", duel.number);
        let loser = duel.other(*winner).id;
        let (winner_second, loser_second) = if *winner == duel.challenger.id {
            (
                Some(duel.challenger_second.clone()),
                duel.challenged_second.clone(),
            )
        } else {
            (
                duel.challenged_second.clone(),
                Some(duel.challenger_second.clone()),
            )
        };
        let mut moves = vec![
            (duel.name_of(*winner), *winner, i64::from(n.winner_points)),
            (duel.name_of(loser), loser, -i64::from(n.loser_points)),
        ];
        if let Some(second) = winner_second {
            moves.push((second.name, second.id, i64::from(n.second_winner_points)));
        }
        if let Some(second) = loser_second {
            moves.push((second.name, second.id, -i64::from(n.second_loser_points)));
        }
        for (name, id, amount) in moves {
            let made = pay(tx, id, amount, &reason);
            points.push(json!({"name": name, "amount": amount, "made": made}));
        }
    }
    tx.record(Event::Ended {
        number: duel.number,
        end: end.clone(),
    });
    let template = match end {
        End::Cancelled { .. } => "duel_cancelled",
        _ => "duel_result",
    };
    announce(tx, template, report::ended(duel, &end, &points, &n));
}

/// A duellist's public commitment, recorded with the duel (§2).
fn commit(
    tx: &mut Tx<'_, Duel>,
    number: Option<u32>,
    text: String,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    if !ctx.public {
        return Err(Sentence::new("duel_post_publicly").into());
    }
    let duel = open_duel(tx.state(), number)?.clone();
    let player = a_player(tx.view().players, ctx)?.clone();
    if !duel.duellists().contains(&player.id) || !duel.is_open() {
        return Err(Sentence::new("duel_not_a_duellist")
            .arg("name", &player.name)
            .into());
    }
    tx.record(Event::Committed {
        number: duel.number,
        name: player.name,
        text,
    });
    Ok(Sentence::new("duel_committed").arg("number", duel.number))
}

/// 4f: "If a player who is currently engaged in Duel procedures goes on
/// Vacation or to Gaol he forfeits the duel." 4i: "If both the Challenger and
/// the Challenged go on Vacation simultaneously, then the Duel is cancelled."
pub(super) fn standing_changed(tx: &mut Tx<'_, Duel>, change: &Standing) {
    let (player, vacation) = match change {
        Standing::Vacation(id) => (*id, true),
        Standing::Gaoled(id) => (*id, false),
        Standing::Left(id) => {
            let open: Vec<Challenge> = engaged(tx.state(), *id);
            for duel in open {
                end(
                    tx,
                    &duel,
                    End::Cancelled {
                        why: format!("{} left the nomic", duel.name_of(*id)),
                    },
                );
            }
            return;
        }
        Standing::Joined(_) => return,
    };
    let now = tx.at();
    for duel in engaged(tx.state(), player) {
        let other = duel.other(player).id;
        let other_away = tx
            .view()
            .players
            .by_id(other)
            .and_then(|p| p.vacation_until)
            .is_some_and(|until| until > now);
        if vacation && other_away {
            end(
                tx,
                &duel,
                End::Cancelled {
                    why: "4i: the Challenger and the Challenged are both on vacation".to_owned(),
                },
            );
        } else {
            if duel.stage == Stage::Challenged {
                tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled {
                    id: answer_deadline_id(duel.number),
                }));
            }
            forfeit(
                tx,
                &duel,
                player,
                if vacation { "vacation" } else { "gaol" },
            );
        }
    }
}

fn engaged(state: &Duels, player: PlayerId) -> Vec<Challenge> {
    state
        .duels
        .iter()
        .filter(|d| d.is_open() && d.duellists().contains(&player))
        .cloned()
        .collect()
}

/// The Games & Contests suite as it stands: bot.toml's `[[duel.contests]]`, the
/// changes recorded by the duel clerk before the suite was shared (old logs),
/// then the shared suite's.
fn the_suite(tx: &Tx<'_, Duel>) -> Vec<Contest> {
    let view = tx.view();
    view.contests
        .suite(&tx.state().suite(view.shipped_contests))
}
