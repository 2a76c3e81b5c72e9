//! Rule 1209 carried out in a transaction, section by section: who may do what
//! and when, what is recorded and announced. The decisions of the text itself
//! are `truth`, `dates` and `notice`; the values of the announcements are
//! `report`'s. Where the text leaves room, the reading is in docs/rulings.md.

use std::collections::HashSet;

use jiff::civil::Date;
use num_rational::BigRational;
use serde_json::json;

use crate::engine::accounts::Holder;
use crate::engine::calendar::{self, Deadline};
use crate::engine::game::{SharedEvent, Standing, Tx};
use crate::engine::players::Player;
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence, human_time};

use super::bound::{Bound, Following};
use super::{
    Command, Event, Machine, Params, Ping, Reason, TAG, Term, Truth, dates, notice, report, truth,
};

type PingTx<'a> = Tx<'a, Ping>;

/// The deadline of the same instant that posts what a secret step may not (the
/// disguised truth, a form's ping) and carries out a teleport decided without
/// entropy.
const NOW: &str = "ping:now";
/// §III's seven days to announce the truth.
const QUACK: &str = "ping:quack";
/// The start of each calendar day while the bot pings by a form, or owes a reveal.
const DAY: &str = "ping:day";

pub(super) fn apply(tx: &mut PingTx<'_>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
    if !matches!(command, Command::Status) {
        applied(tx)?;
    }
    let sentence = match command {
        Command::Place { name, because } => place(tx, &name, &because, ctx),
        Command::Truth { text } => give_truth(tx, &text, ctx),
        Command::Form { text } => give_form(tx, &text, ctx),
        Command::Pinged { on } => announce_ping(tx, on, ctx),
        Command::Guess { text } => guess(tx, &text, ctx),
        Command::Magic { letter } => magic_letter(tx, letter, ctx),
        Command::Claim { text } => claim(tx, &text, ctx),
        Command::Remove => remove(tx, ctx),
        Command::Violation { reason } => violation(tx, &reason, ctx),
        Command::Ridicule { line } => {
            scholar(tx, ctx)?;
            tx.record(Event::RidiculeAdded { line: line.clone() });
            Ok(Sentence::new("ping_ridicule_added").arg("line", line))
        }
        Command::Status => Ok(Sentence::new("ping_status").arg(
            "machine",
            report::status(tx.state(), tx.view().players, &numbers(tx)),
        )),
    }?;
    reschedule(tx);
    Ok(sentence)
}

/// The numbers of rule 1209 as it now stands (`bound`): every number the game
/// uses from the text is read here, never from the configuration directly.
fn numbers(tx: &PingTx<'_>) -> Params {
    Bound::of(&tx.view(), tx.params()).numbers()
}

// ---- Rule 1209 as it changes ----

/// Whether the bot applies rule 1209 now: a command that applies it is refused
/// while the rule is out of effect, held for a ruling or switched off.
fn applied(tx: &PingTx<'_>) -> Result<(), Refusal> {
    let bound = Bound::of(&tx.view(), tx.params());
    match bound.following() {
        Following::Follows => Ok(()),
        Following::Stopped { why } => Err(Sentence::new("ping_rule_stopped")
            .arg("rule", bound.rule())
            .arg("why", why)
            .into()),
        Following::Held => Err(Sentence::new("ping_rule_held")
            .arg("rule", bound.rule())
            .into()),
        Following::Off { reason } => Err(Sentence::new("ping_rule_off")
            .arg("rule", bound.rule())
            .arg("reason", reason)
            .into()),
    }
}

/// What the bot follows of rule 1209 changed (`Game::bindings_changed`): out
/// of effect, the Machine ends; held or switched off, it waits; followed again,
/// it goes on, its deadlines as the state needs them. An amendment of a number
/// alone needs nothing here: the number is read from the binding when used.
pub(super) fn bindings_changed(tx: &mut PingTx<'_>) {
    let bound = Bound::of(&tx.view(), tx.params());
    let rule = bound.rule();
    match bound.following() {
        Following::Stopped { why } => end(tx, rule, &why),
        Following::Held | Following::Off { .. } => {
            if tx.state().held_since.is_none() && tx.state().ended.is_none() {
                tx.record(Event::Held { rule });
            }
        }
        Following::Follows => {
            if tx.state().held_since.is_some() {
                tx.record(Event::Resumed { rule });
            }
        }
    }
    reschedule(tx);
}

/// Rule 1209 left effect: the Machine ceases to exist (§I made it exist). Its
/// term ends; the truth stays the Scholar's secret (no rule in effect reveals
/// it), and so do truths owed after a vacation; Boons already due stay due
/// (rule 1211 bestows them), and fines and premiums paid stay paid. The list is
/// told, once, when there was a Machine to end.
fn end(tx: &mut PingTx<'_>, rule: u32, why: &str) {
    if tx.state().ended.is_some() {
        return;
    }
    let before = tx.state().clone();
    tx.record(Event::Ended {
        rule,
        why: why.to_owned(),
    });
    if before == Machine::default() {
        return;
    }
    let term = before.term.as_ref();
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "ping_ended",
        json!({
            "rule": rule,
            "why": why,
            "scholar": term.map(|t| t.scholar_name.as_str()),
            "home": term.map(|t| t.home.as_str()),
            "announced": before.announced().is_some(),
            "pings": term.map_or(0, |t| t.pings.len()),
            "owed_reveals": before.owed_reveals.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(),
            "boons_due": before.boons_due.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(),
            "at": human_time(tx.at()),
        }),
    ));
}

// ---- §I, §II: the Machine, its Home and its Scholar ----

/// A moderator places the Machine to begin (the rule says where it may be, not
/// where it starts).
fn place(tx: &mut PingTx<'_>, name: &str, because: &str, ctx: &Ctx) -> Result<Sentence, Refusal> {
    if !tx.view().is_moderator(&ctx.sender) {
        return Err(Sentence::new("moderators_only").into());
    }
    if let Some(term) = &tx.state().term {
        return Err(Sentence::new("ping_already_placed")
            .arg("scholar", &term.scholar_name)
            .arg("home", &term.home)
            .into());
    }
    let player = tx
        .view()
        .players
        .by_name(name)
        .cloned()
        .ok_or_else(|| Refusal(Sentence::new("no_such_player").arg("name", name)))?;
    may_hold_the_machine(&player, ctx.now)?;
    move_to(
        tx,
        &player,
        Reason::Placed {
            by: ctx.signature(),
            because: because.to_owned(),
        },
        None,
    )?;
    Ok(Sentence::new("ping_placed")
        .arg("scholar", &player.name)
        .arg("home", player.home_name()))
}

/// §II: "may exist in the Home of any active player, but nowhere else": not on
/// vacation, not inactive, and not in Gaol (where §IX would take it away at once).
fn may_hold_the_machine(player: &Player, now: crate::engine::Timestamp) -> Result<(), Refusal> {
    if !player.is_active_at(now) || player.in_gaol {
        return Err(Sentence::new("ping_not_active")
            .arg("name", &player.name)
            .into());
    }
    Ok(())
}

/// The Machine moves into `player`'s Home: a new term, a new quack deadline,
/// the announcement. It ceases to go *ping* until a new truth (§IX): the new
/// term has none.
fn move_to(
    tx: &mut PingTx<'_>,
    player: &Player,
    reason: Reason,
    draw: Option<serde_json::Value>,
) -> Result<(), Refusal> {
    let quack_at = days_after(tx, numbers(tx).quack_days)?;
    let previous = tx.state().term.clone();
    tx.record(Event::Moved {
        to: player.id,
        name: player.name.clone(),
        home: player.home_name(),
        reason: reason.clone(),
        quack_at,
    });
    let values = report::moved(
        previous.as_ref(),
        Some((&player.name, &player.home_name())),
        &reason,
        draw,
        tx.at(),
        quack_at,
        &numbers(tx),
    );
    tx.mail(Mail::new(Audience::List, TAG, "ping_moved", values));
    Ok(())
}

fn days_after(tx: &PingTx<'_>, days: u32) -> Result<crate::engine::Timestamp, Refusal> {
    jiff::Span::new()
        .try_days(i64::from(days))
        .ok()
        .and_then(|span| tx.view().calendar.after(tx.at(), span).ok())
        .ok_or_else(|| Refusal(Sentence::new("ping_out_of_range").arg("days", days)))
}

fn today(tx: &PingTx<'_>) -> Result<Date, Refusal> {
    tx.view()
        .calendar
        .day_of(tx.at())
        .map(|day| day.date)
        .map_err(|_| Refusal(Sentence::new("ping_out_of_range").arg("days", 0)))
}

/// The sender, who must be the Scholar.
fn scholar(tx: &PingTx<'_>, ctx: &Ctx) -> Result<Player, Refusal> {
    let term = tx
        .state()
        .term
        .as_ref()
        .ok_or_else(|| Refusal(Sentence::new("ping_no_machine")))?;
    match tx.view().players.active_by_address(&ctx.sender) {
        Some(player) if player.id == term.scholar => Ok(player.clone()),
        _ => Err(Sentence::new("ping_scholar_only")
            .arg("scholar", &term.scholar_name)
            .into()),
    }
}

fn a_player(tx: &PingTx<'_>, ctx: &Ctx) -> Result<Player, Refusal> {
    tx.view()
        .players
        .active_by_address(&ctx.sender)
        .cloned()
        .ok_or_else(|| Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str())))
}

/// "the Machine randomly teleports itself to another active player's Home", and
/// §IX's last sentence: the Officer in charge of Random Things determines where.
/// The draw is made in the running random period, or in one opened for it whose
/// seed is published at once, so that anyone can check the draw.
fn teleport(tx: &mut PingTx<'_>, entropy: [u8; 32], reason: Reason) {
    lose_title(tx, &reason);
    let scholar = tx.state().term.as_ref().map(|t| t.scholar);
    let candidates: Vec<Player> = tx
        .view()
        .players
        .active_at(tx.at())
        .filter(|p| Some(p.id) != scholar && !p.in_gaol)
        .cloned()
        .collect();
    if candidates.is_empty() {
        let previous = tx.state().term.clone();
        tx.record(Event::Homeless {
            reason: reason.clone(),
        });
        let values = report::moved(
            previous.as_ref(),
            None,
            &reason,
            None,
            tx.at(),
            tx.at(),
            &numbers(tx),
        );
        tx.mail(Mail::new(Audience::List, TAG, "ping_moved", values));
        return;
    }
    let Some((index, draw)) = draw(tx, entropy, &candidates, &reason) else {
        return;
    };
    if let Some(player) = candidates.get(index) {
        // A move the calendar cannot date leaves the Machine where it is.
        let _moved = move_to(tx, player, reason, Some(draw));
    }
    end_own_period(tx);
}

/// Draws one of `candidates` (in the registry's order), recording the draw.
fn draw(
    tx: &mut PingTx<'_>,
    entropy: [u8; 32],
    candidates: &[Player],
    reason: &Reason,
) -> Option<(usize, serde_json::Value)> {
    if tx.view().random.current.is_none() {
        let start = tx.view().random.start_period(TAG, entropy).ok()?;
        tx.record_shared(SharedEvent::Random(start));
        let started = tx
            .view()
            .random
            .current
            .as_ref()
            .map(|r| r.started_mail(TAG));
        tx.mail_all(started);
    }
    let n = u32::try_from(candidates.len()).ok()?;
    let names: Vec<&str> = candidates.iter().map(|p| p.name.as_str()).collect();
    let purpose = format!(
        "the Machine That Goes *ping* teleports ({}): one of {}",
        reason.words(),
        names.join(", ")
    );
    let random = tx.view().random;
    let label = random.current.as_ref()?.label.clone();
    let index = random.current.as_ref()?.draws.len();
    let (result, event) = random.below(n, &purpose, tx.at()).ok()?;
    tx.record_shared(SharedEvent::Random(event));
    Some((
        result as usize,
        json!({
            "label": label,
            "index": index,
            "n": n,
            "result": result,
            "candidates": names,
            "purpose": purpose,
        }),
    ))
}

/// The Machine's own random period ends with its draw: its seed is published,
/// so the draw can be checked at once. Another game's running period is left
/// to that game.
fn end_own_period(tx: &mut PingTx<'_>) {
    let random = tx.view().random;
    if random.current.as_ref().map(|p| p.label.as_str()) != Some(TAG) {
        return;
    }
    let Ok(end) = random.end_period() else {
        return;
    };
    tx.record_shared(SharedEvent::Random(end));
    let revealed = tx.view().random.past.last().map(|r| r.revealed_mail(TAG));
    tx.mail_all(revealed);
}

/// §IX: "If the Scholar loses his title for any reason other than going on
/// vacation, he must post the truth [...] in its undisguised form [...]. If he
/// loses his title by going on vacation, [...] within three days of returning".
fn lose_title(tx: &mut PingTx<'_>, reason: &Reason) {
    let Some(term) = tx.state().term.clone() else {
        return;
    };
    let Some(truth) = term.truth.filter(|t| !t.revealed) else {
        return;
    };
    if *reason == Reason::Vacation {
        tx.record(Event::RevealOwed {
            player: term.scholar,
            name: term.scholar_name,
            clause: truth.clause,
        });
    } else {
        reveal(tx, &term.scholar_name, &truth.clause, reason.code());
    }
}

fn reveal(tx: &mut PingTx<'_>, scholar: &str, clause: &str, why: &str) {
    tx.record(Event::Revealed {
        clause: clause.to_owned(),
    });
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "ping_revealed",
        json!({
            "scholar": scholar,
            "truth": truth::sentence(clause),
            "why": why,
            "pings": numbers(tx).reveal_after_pings,
        }),
    ));
}

// ---- §III: the truth ----

fn give_truth(tx: &mut PingTx<'_>, text: &str, ctx: &Ctx) -> Result<Sentence, Refusal> {
    scholar(tx, ctx)?;
    if ctx.public {
        return Err(Sentence::new("ping_truth_public").into());
    }
    if tx.state().truth().is_some() {
        return Err(Sentence::new("ping_truth_given").into());
    }
    let clause = truth::clause(text).to_owned();
    let view = tx.view();
    let rule_words: HashSet<String> = view
        .ruleset
        .rules
        .iter()
        .flat_map(|rule| truth::vocabulary(&rule.text))
        .collect();
    // `check` asks with the word normalised, as `vocabulary` wrote the rules' words.
    let known = |word: &str| view.lexicon.is_word(word) || rule_words.contains(word);
    let uttered: Vec<String> = tx
        .state()
        .uttered
        .iter()
        .map(|u| u.clause.clone())
        .collect();
    truth::check(&clause, &numbers(tx).limits(), known, &uttered).map_err(|error| {
        Refusal(Sentence::new("ping_truth_invalid").arg("why", error.to_string()))
    })?;
    tx.record(Event::TruthGiven {
        clause: clause.clone(),
    });
    Ok(Sentence::new("ping_truth_accepted")
        .arg("truth", truth::sentence(&clause))
        .arg("disguised", truth::disguised(&clause, &[])))
}

/// The machine-checkable form: checked against §III's seven and fourteen days
/// from the first day the Machine may ping by it.
fn give_form(tx: &mut PingTx<'_>, text: &str, ctx: &Ctx) -> Result<Sentence, Refusal> {
    scholar(tx, ctx)?;
    if ctx.public {
        return Err(Sentence::new("ping_truth_public").into());
    }
    let Some(truth) = tx.state().truth() else {
        return Err(Sentence::new("ping_form_before_truth").into());
    };
    if truth.form.is_some() {
        return Err(Sentence::new("ping_form_given").into());
    }
    let expr = dates::parse(text)
        .map_err(|e| Refusal(Sentence::new("ping_form_invalid").arg("why", e.to_string())))?;
    let today = today(tx)?;
    let from = match truth.announced_on {
        Some(on) if on >= today => on.tomorrow().unwrap_or(on),
        Some(_) => today,
        None => today.tomorrow().unwrap_or(today),
    };
    let bound = numbers(tx);
    dates::check(
        &expr,
        from,
        bound.horizon_days,
        bound.silent_days,
        bound.pinging_days,
    )
    .map_err(|e| Refusal(Sentence::new("ping_form_invalid").arg("why", e.to_string())))?;
    tx.record(Event::FormGiven {
        form: text.trim().to_owned(),
    });
    Ok(Sentence::new("ping_form_accepted").arg("from", from.to_string()))
}

/// Posts the disguised truth: the Scholar's announcement (§III), made by the bot
/// at once on the Scholar's behalf.
fn announce(tx: &mut PingTx<'_>) {
    let Some(term) = tx.state().term.clone() else {
        return;
    };
    let Some(truth) = term.truth.filter(|t| t.announced_at.is_none()) else {
        return;
    };
    let Ok(on) = today(tx) else {
        return;
    };
    tx.record(Event::TruthAnnounced { on });
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "ping_truth",
        json!({
            "scholar": term.scholar_name,
            "home": term.home,
            "disguised": truth::disguised(&truth.clause, &[]),
            "pings_from": on.tomorrow().map(|d| d.to_string()).unwrap_or_default(),
            "magic": [],
            "namer": null,
        }),
    ));
}

// ---- §IV: pinging ----

fn announce_ping(tx: &mut PingTx<'_>, on: Option<Date>, ctx: &Ctx) -> Result<Sentence, Refusal> {
    scholar(tx, ctx)?;
    let Some(truth) = tx.state().announced().cloned() else {
        return Err(Sentence::new("ping_not_pinging").into());
    };
    let today = today(tx)?;
    let date = on.unwrap_or(today);
    if date > today {
        return Err(Sentence::new("ping_future")
            .arg("date", date.to_string())
            .into());
    }
    let first = truth
        .announced_on
        .and_then(|d| d.tomorrow().ok())
        .unwrap_or(today);
    if date < first {
        return Err(Sentence::new("ping_before_first")
            .arg("date", date.to_string())
            .arg("first", first.to_string())
            .into());
    }
    let late_days = i64::from(numbers(tx).late_days);
    let days_late = i64::from((today - date).get_days());
    if days_late > late_days {
        return Err(Sentence::new("ping_too_late")
            .arg("date", date.to_string())
            .arg("late_days", late_days)
            .into());
    }
    if pinged_on(tx.state(), date) {
        return Err(Sentence::new("ping_already")
            .arg("date", date.to_string())
            .into());
    }
    if let Some(form) = &truth.form
        && dates::parse(form).is_ok_and(|expr| !expr.holds(date))
    {
        return Err(Sentence::new("ping_did_not_ping")
            .arg("date", date.to_string())
            .into());
    }
    let n = ping(tx, date, date < today, ctx.entropy);
    Ok(Sentence::new("ping_announced")
        .arg("date", date.to_string())
        .arg("n", n)
        .arg("late", date < today))
}

fn pinged_on(state: &Machine, date: Date) -> bool {
    state
        .term
        .as_ref()
        .is_some_and(|t| t.pings.iter().any(|p| p.date == date))
}

/// The Machine went *ping* on `date`: the notice, word for word, prefaced by the
/// apology when late; at the thirtieth, §VIII. Returns n.
fn ping(tx: &mut PingTx<'_>, date: Date, late: bool, entropy: [u8; 32]) -> u32 {
    tx.record(Event::Pinged { date, late });
    let Some(term) = tx.state().term.clone() else {
        return 0;
    };
    let n = u32::try_from(term.pings.len()).unwrap_or(u32::MAX);
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "ping_notice",
        json!({
            "scholar": term.scholar_name,
            "date": date.to_string(),
            "n": n,
            "late": late,
            "notice": notice::notice(date, n),
        }),
    ));
    if n >= numbers(tx).reveal_after_pings {
        // §VIII: the undisguised truth, and then the Machine teleports.
        if let Some(truth) = term.truth.filter(|t| !t.revealed) {
            reveal(tx, &term.scholar_name, &truth.clause, "thirty_pings");
        }
        teleport(tx, entropy, Reason::ThirtyPings);
    }
    n
}

/// The day's ping by the Scholar's form, if the form holds today.
fn form_ping_due(tx: &PingTx<'_>) -> Option<Date> {
    let truth = tx.state().announced()?;
    let expr = dates::parse(truth.form.as_deref()?).ok()?;
    let today = today(tx).ok()?;
    (today > truth.announced_on? && expr.holds(today) && !pinged_on(tx.state(), today))
        .then_some(today)
}

// ---- §VI: guesses ----

/// What a guess (§VI) and the naming of a Magic Letter (§VII) both need: a
/// player's post on the list, in a term whose disguised truth is out, by someone
/// other than the Scholar (`private` and `scholar` name the refusals).
fn a_public_post_on_the_truth(
    tx: &PingTx<'_>,
    ctx: &Ctx,
    private: &str,
    scholar: &str,
) -> Result<(Player, Term, Truth), Refusal> {
    let player = a_player(tx, ctx)?;
    if !ctx.public {
        return Err(Sentence::new(private).into());
    }
    let term = tx
        .state()
        .term
        .clone()
        .ok_or_else(|| Refusal(Sentence::new("ping_no_machine")))?;
    if player.id == term.scholar {
        return Err(Sentence::new(scholar).into());
    }
    let Some(truth) = tx.state().announced().cloned() else {
        return Err(Sentence::new("ping_too_early")
            .arg("scholar", &term.scholar_name)
            .into());
    };
    Ok((player, term, truth))
}

fn guess(tx: &mut PingTx<'_>, text: &str, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let (player, term, truth) =
        a_public_post_on_the_truth(tx, ctx, "ping_guess_private", "ping_scholar_may_not_guess")?;
    if let Some(first) = term.guesses.iter().find(|g| g.correct) {
        return Err(Sentence::new("ping_already_guessed")
            .arg("name", &first.name)
            .into());
    }
    if let Some(mine) = term.guesses.iter().find(|g| g.player == player.id) {
        return Err(Sentence::new("ping_one_guess")
            .arg("at", human_time(mine.at))
            .into());
    }
    if !player.is_active_at(ctx.now) || player.in_gaol {
        return Err(Sentence::new("ping_not_active")
            .arg("name", &player.name)
            .into());
    }
    let correct = truth::same(text, &truth.clause);
    tx.record(Event::Guessed {
        player: player.id,
        name: player.name.clone(),
        guess: text.to_owned(),
        correct,
    });
    if correct {
        tx.mail(Mail::new(
            Audience::List,
            TAG,
            "ping_guess",
            json!({
                "correct": true,
                "guesser": player.name,
                "guess": text,
                "scholar": term.scholar_name,
                "home": player.home_name(),
            }),
        ));
        tx.record(Event::BoonDue {
            player: player.id,
            name: player.name.clone(),
        });
        owe_a_boon(tx, &player);
        lose_title(tx, &Reason::CorrectGuess);
        move_to(tx, &player, Reason::CorrectGuess, None)?;
        return Ok(Sentence::new("ping_guessed_right").arg("home", player.home_name()));
    }
    let wrong = term.guesses.iter().filter(|g| !g.correct).count();
    let lines: Vec<&String> = term
        .ridicule
        .iter()
        .chain(tx.params().ridicule.iter())
        .collect();
    let ridicule = lines
        .get(wrong % lines.len().max(1))
        .map(|l| l.as_str())
        .unwrap_or_default()
        .to_owned();
    let fine = numbers(tx).guess_fine;
    let charged = fine > 0
        && charge(
            tx,
            &player,
            fine,
            "a wrong guess at the Machine's truth (rule 1209 §VI)",
        );
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "ping_guess",
        json!({
            "correct": false,
            "guesser": player.name,
            "guess": text,
            "scholar": term.scholar_name,
            "ridicule": ridicule,
            "fine": fine,
            "currency": tx.params().currency,
            "charged": charged,
        }),
    ));
    Ok(Sentence::new("ping_guessed_wrong")
        .arg("fine", fine)
        .arg("currency", &tx.params().currency)
        .arg("charged", charged))
}

/// §VI: "He shall receive one random Boon of the Ancients". Rule 1211 is
/// another game's: the Boon is handed to it on the shared schedule, as a
/// deadline it owns at this instant (`boons:due:random:…`: its `who` the
/// guesser, its `what` the reason), so this game names none of its internals.
/// A nomic without that game keeps the `BoonDue` event alone: a deadline no game
/// owns fires and does nothing.
fn owe_a_boon(tx: &mut PingTx<'_>, player: &Player) {
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
        deadline: Deadline {
            id: format!(
                "{BOONS}:due:random:{TAG}:{}:{}",
                tx.at().as_second(),
                player.id
            ),
            at: tx.at(),
            owner: BOONS.to_owned(),
            who: Some(player.id),
            what: "the correct guess of the Machine's truth (rule 1209 §VI: one random Boon of the Ancients)".to_owned(),
            remind: false,
        },
    }));
}

/// The tag of the game that bestows Boons of the Ancients (rule 1211).
const BOONS: &str = "boons";

/// A payment the rule imposes, to the Treasury, owed beyond the balance.
fn charge(tx: &mut PingTx<'_>, player: &Player, amount: u32, why: &str) -> bool {
    let event = tx.view().accounts.charge(
        Holder::Player(player.id),
        Holder::Treasury,
        &tx.params().currency,
        &BigRational::from_integer(amount.into()),
        why,
    );
    match event {
        Ok(event) => {
            tx.record_shared(SharedEvent::Accounts(event));
            true
        }
        Err(_) => false,
    }
}

// ---- §VII: Magic Letters ----

fn magic_letter(tx: &mut PingTx<'_>, letter: char, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let (player, term, truth) =
        a_public_post_on_the_truth(tx, ctx, "ping_magic_private", "ping_magic_scholar")?;
    if !player.is_active_at(ctx.now) {
        return Err(Sentence::new("ping_not_active")
            .arg("name", &player.name)
            .into());
    }
    if tx.state().last_magic_namer == Some(player.id) {
        return Err(Sentence::new("ping_magic_most_recent").into());
    }
    if term.magic.iter().any(|m| m.letter == letter) {
        return Err(Sentence::new("ping_magic_named")
            .arg("letter", letter.to_string())
            .into());
    }
    let need = numbers(tx).magic_after_pings;
    let pings = u32::try_from(term.pings.len()).unwrap_or(u32::MAX);
    let since = pings - term.magic.last().map_or(0, |m| m.after_pings.min(pings));
    if pings < need || since < need {
        return Err(Sentence::new("ping_magic_not_yet")
            .arg("pings", pings)
            .arg("since", since)
            .arg("need", need)
            .into());
    }
    tx.record(Event::MagicNamed {
        letter,
        player: player.id,
        name: player.name.clone(),
    });
    let premium = truth::premium(letter, &numbers(tx).limits());
    let premium_u32 = u32::try_from(premium).unwrap_or(0);
    let charged = premium_u32 > 0
        && charge(
            tx,
            &player,
            premium_u32,
            &format!("the Magic Letter Premium for '{letter}' (rule 1209 §VII)"),
        );
    let magic = tx.state().magic_letters();
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "ping_truth",
        json!({
            "scholar": term.scholar_name,
            "home": term.home,
            "disguised": truth::disguised(&truth.clause, &magic),
            "pings_from": null,
            "magic": magic.iter().map(char::to_string).collect::<Vec<_>>(),
            "letter": letter.to_string(),
            "namer": player.name,
            "premium": premium,
            "currency": tx.params().currency,
            "charged": charged,
        }),
    ));
    Ok(Sentence::new("ping_magic_considered")
        .arg("letter", letter.to_string())
        .arg("premium", premium)
        .arg("currency", &tx.params().currency))
}

// ---- §IX: losing the title ----

/// "I have weighter matters to research, such as the shape of the Earth",
/// claimed in a public message before the truth.
fn claim(tx: &mut PingTx<'_>, text: &str, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let words = tx.params().weightier_claim.clone();
    if !super::parse::is_claim(text, &words) {
        return Err(Sentence::new("ping_claim_words").arg("claim", words).into());
    }
    scholar(tx, ctx)?;
    if !ctx.public {
        return Err(Sentence::new("ping_claim_private").into());
    }
    if tx.state().truth().is_some() {
        return Err(Sentence::new("ping_claim_too_late").into());
    }
    teleport(tx, ctx.entropy, Reason::Weightier);
    Ok(Sentence::new("ping_claimed"))
}

/// A call for the Scholar's removal: valid when the Scholar announced a ping
/// after its day, or a moderator ruled a violation publicly knowable.
fn remove(tx: &mut PingTx<'_>, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let caller = a_player(tx, ctx)?;
    if !ctx.public {
        return Err(Sentence::new("ping_removal_private").into());
    }
    let term = tx
        .state()
        .term
        .clone()
        .ok_or_else(|| Refusal(Sentence::new("ping_no_machine")))?;
    if caller.id == term.scholar {
        return Err(Sentence::new("ping_removal_self").into());
    }
    let mut grounds: Vec<String> = term
        .pings
        .iter()
        .filter(|p| p.late)
        .map(|p| format!("the ping of {} was announced late", p.date))
        .collect();
    grounds.extend(term.violations.iter().cloned());
    if grounds.is_empty() {
        return Err(Sentence::new("ping_removal_no_grounds")
            .arg("scholar", &term.scholar_name)
            .into());
    }
    may_hold_the_machine(&caller, ctx.now)?;
    let reason = Reason::Removal {
        grounds: grounds.join("; "),
    };
    lose_title(tx, &reason);
    move_to(tx, &caller, reason, None)?;
    Ok(Sentence::new("ping_removed")
        .arg("scholar", &term.scholar_name)
        .arg("home", caller.home_name()))
}

fn violation(tx: &mut PingTx<'_>, reason: &str, ctx: &Ctx) -> Result<Sentence, Refusal> {
    if !tx.view().is_moderator(&ctx.sender) {
        return Err(Sentence::new("moderators_only").into());
    }
    let Some(term) = tx.state().term.clone() else {
        return Err(Sentence::new("ping_no_machine").into());
    };
    tx.record(Event::ViolationRuled {
        reason: reason.to_owned(),
    });
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "ping_violation",
        json!({
            "scholar": term.scholar_name,
            "reason": reason,
            "officer": ctx.signature(),
        }),
    ));
    Ok(Sentence::new("ping_violation_ruled").arg("scholar", term.scholar_name))
}

/// §IX: the Scholar in Gaol, on vacation, or gone from the nomic loses the
/// Machine at random. A change of standing has no entropy of its own, so the
/// teleport is carried out at the deadline of the same instant.
pub(super) fn standing_changed(tx: &mut PingTx<'_>, change: &Standing) {
    let Some(term) = &tx.state().term else {
        return;
    };
    let reason = match *change {
        Standing::Gaoled(id) if id == term.scholar => Reason::Gaol,
        Standing::Vacation(id) if id == term.scholar => Reason::Vacation,
        Standing::Left(id) if id == term.scholar => Reason::Left,
        _ => return,
    };
    tx.record(Event::TeleportDue { reason });
    reschedule(tx);
}

// ---- Deadlines ----

/// Whatever is due at this instant, in order: a teleport decided without
/// entropy, the disguised truth, a quack, the day's ping by the form, the
/// reveals owed by Scholars back from vacation.
pub(super) fn catch_up(tx: &mut PingTx<'_>, entropy: [u8; 32]) {
    if applied(tx).is_err() {
        reschedule(tx);
        return;
    }
    if let Some(reason) = tx.state().teleport_due.clone() {
        teleport(tx, entropy, reason);
    }
    announce(tx);
    let quack = tx.state().term.as_ref().is_some_and(|t| {
        t.truth.as_ref().is_none_or(|tr| tr.announced_at.is_none()) && tx.at() >= t.quack_at
    });
    if quack {
        teleport(tx, entropy, Reason::Quack);
    }
    if let Some(date) = form_ping_due(tx) {
        ping(tx, date, false, entropy);
    }
    let back: Vec<_> = tx
        .state()
        .owed_reveals
        .iter()
        .filter(|owed| {
            tx.view()
                .players
                .by_id(owed.player)
                .is_none_or(|p| p.vacation_until.is_none_or(|until| until <= tx.at()))
        })
        .cloned()
        .collect();
    for owed in back {
        reveal(tx, &owed.name, &owed.clause, "back_from_vacation");
    }
    reschedule(tx);
}

/// Keeps the game's deadlines as the state needs them, changing the schedule
/// only where it differs.
fn reschedule(tx: &mut PingTx<'_>) {
    // Nothing of the rule runs while it is out of effect, held or off.
    let running = applied(tx).is_ok();
    let state = tx.state();
    let at = tx.at();
    let now_due = state.teleport_due.is_some()
        || state.truth().is_some_and(|t| t.announced_at.is_none())
        || form_ping_due(tx).is_some();
    let quack = state
        .term
        .as_ref()
        .filter(|t| t.truth.is_none())
        .map(|t| t.quack_at);
    let by_form = state.announced().is_some_and(|t| t.form.is_some());
    let day = (by_form || !state.owed_reveals.is_empty())
        .then(|| tx.view().calendar.day_of(at).ok().map(|d| d.end))
        .flatten();
    let (now_due, quack, day) = if running {
        (now_due, quack, day)
    } else {
        (false, None, None)
    };
    let wanted = [
        (
            NOW,
            now_due.then_some(at),
            "the Machine's announcements of this instant",
        ),
        (
            QUACK,
            quack,
            "the Scholar's seven days to announce the Machine's truth",
        ),
        (DAY, day, "the Machine's next calendar day"),
    ];
    for (id, when, what) in wanted {
        let current = tx.view().schedule.get(id).map(|e| e.deadline.at);
        match when {
            Some(when) if current != Some(when) => {
                tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
                    deadline: Deadline {
                        id: id.to_owned(),
                        at: when,
                        owner: TAG.to_owned(),
                        who: None,
                        what: what.to_owned(),
                        remind: false,
                    },
                }));
            }
            None if current.is_some() => {
                tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled {
                    id: id.to_owned(),
                }));
            }
            _ => {}
        }
    }
}
