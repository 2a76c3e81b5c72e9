//! The Contests by mail carried out in the transaction: a referee's start and
//! rulings, the players' moves, and the deadlines of the shared schedule.

use serde_json::{Value, json};

use super::board::{Board, Impossible, Piece};
use super::bound::{Bound, PARTY_CHESS, PARTY_CHESS_RULE, SUITE_RULE};
use super::{Command, Entry, Event, Match, Move, Play, Refereed, Ruling, Seal, TAG};
use crate::engine::calendar::{self, Deadline};
use crate::engine::contests::Contest;
use crate::engine::game::{SharedEvent, Tx};
use crate::engine::players::{Player, PlayerId};
use crate::engine::sealed::{self, commitment_hash};
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence, human_time};

type ContestTx<'a> = Tx<'a, Refereed>;

fn refuse(code: &str) -> Sentence {
    Sentence::new(code)
}

fn is_party_chess(contest: &str) -> bool {
    contest.eq_ignore_ascii_case(PARTY_CHESS)
}

/// Refused, naming the rule and why, while `rule` is not followed.
fn stopped(tx: &ContestTx<'_>, rule: u32) -> Result<(), Refusal> {
    match Bound::of(&tx.view(), tx.params(), rule).stopped() {
        None => Ok(()),
        Some(why) => Err(refuse("contest_rule_stopped")
            .arg("rule", rule)
            .arg("why", why)
            .into()),
    }
}

pub fn apply(tx: &mut ContestTx<'_>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
    // A rule not in effect imposes nothing: without rule 1250 no Contest is
    // started, played or ruled on by mail; the record stays readable.
    if !matches!(command, Command::Status | Command::Record { .. }) {
        stopped(tx, SUITE_RULE)?;
    }
    match command {
        Command::Start {
            contest,
            players,
            teams,
            any_order,
            duel,
        } => start(tx, ctx, &contest, &players, &teams, any_order, duel),
        Command::Play { number, play, text } => play_move(tx, ctx, number, play, text),
        Command::Referee { number, ruling } => {
            let game = a_game(tx, ctx, number)?;
            if !is_referee(tx, &game.referee, ctx) {
                return Err(refuse("contest_referee_only")
                    .arg("number", game.number)
                    .arg("referee", referee_name(&game))
                    .into());
            }
            if game.ended.is_some() {
                return Err(refuse("contest_over").arg("number", game.number).into());
            }
            rule(tx, ctx, &game, ruling)
        }
        Command::Record { number } => {
            let game = a_game(tx, ctx, number)?;
            let full = is_referee(tx, &game.referee, ctx);
            Ok(Sentence::new("contest_record")
                .arg("number", game.number)
                .arg("contest", &game.contest)
                .arg("record", record(tx, &game, full, ctx)))
        }
        Command::Status => Ok(status(tx)),
    }
}

/// Who referees a game, as the mail names em.
pub fn referee_name(game: &Match) -> String {
    if game.referee.is_empty() {
        "the moderators".to_owned()
    } else {
        game.referee.clone()
    }
}

/// The referee the suite names (authenticated, as any officer), or a
/// moderator: the moderators referee a Contest that names nobody, and stay
/// the final arbiters of every other.
fn is_referee(tx: &ContestTx<'_>, referee: &str, ctx: &Ctx) -> bool {
    let view = tx.view();
    if view.is_moderator(&ctx.sender) {
        return true;
    }
    !referee.is_empty()
        && !view.officers.is_withdrawn(&ctx.sender)
        && view
            .players
            .active_by_address(&ctx.sender)
            .is_some_and(|p| p.name.eq_ignore_ascii_case(referee))
}

fn name_of(tx: &ContestTx<'_>, id: PlayerId) -> String {
    tx.view()
        .players
        .by_id(id)
        .map_or_else(|| format!("player {id}"), |p| p.name.clone())
}

fn active_named(tx: &ContestTx<'_>, name: &str) -> Result<Player, Refusal> {
    tx.view()
        .players
        .by_name(name)
        .filter(|p| p.is_active())
        .cloned()
        .ok_or_else(|| refuse("contest_no_player").arg("name", name).into())
}

/// The game a command is about: the number in the tag, or the only game in
/// play the sender plays or referees.
fn a_game(tx: &ContestTx<'_>, ctx: &Ctx, number: Option<u32>) -> Result<Match, Refusal> {
    if let Some(number) = number {
        return tx
            .state()
            .get(number)
            .cloned()
            .ok_or_else(|| refuse("contest_no_such_game").arg("number", number).into());
    }
    let me = tx.view().players.active_by_address(&ctx.sender).cloned();
    let mine: Vec<&Match> = tx
        .state()
        .matches
        .iter()
        .filter(|m| m.ended.is_none())
        .filter(|m| {
            me.as_ref().is_some_and(|me| {
                m.players.contains(&me.id) || m.referee.eq_ignore_ascii_case(&me.name)
            })
        })
        .collect();
    match mine.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(refuse("contest_no_game").into()),
        many => Err(refuse("contest_which_game")
            .arg("numbers", many.iter().map(|m| m.number).collect::<Vec<_>>())
            .into()),
    }
}

fn diagram(game: &Match, public: bool) -> Option<String> {
    let board = game.board(public)?;
    Some(board.diagram(|p| game.seat(p)))
}

/// The players by seat, for the diagram's legend.
fn seats(tx: &ContestTx<'_>, game: &Match) -> Vec<Value> {
    game.players
        .iter()
        .enumerate()
        .map(|(i, p)| json!({"seat": i + 1, "name": name_of(tx, *p)}))
        .collect()
}

/// What every mail about a game carries: its number, Contest, referee,
/// players, whose turn, and the board as the public sees it.
fn about(tx: &ContestTx<'_>, game: &Match) -> Value {
    json!({
        "number": game.number,
        "contest": game.contest,
        "referee": referee_name(game),
        "seats": seats(tx, game),
        "turn": game.whose_turn().map(|p| name_of(tx, p)),
        "diagram": diagram(game, true),
        "private_moves": game.private_moves,
        "teams": game.teams.iter()
            .map(|t| t.iter().map(|p| name_of(tx, *p)).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
    })
}

fn merged(mut base: Value, more: Value) -> Value {
    if let (Some(base), Value::Object(more)) = (base.as_object_mut(), more) {
        base.extend(more);
    }
    base
}

fn tag_of(number: u32) -> String {
    format!("{TAG} {number}")
}

fn announce(tx: &mut ContestTx<'_>, number: u32, template: &str, values: Value) {
    tx.mail(Mail::new(Audience::List, &tag_of(number), template, values));
}

/// Rule 1250: the referee starts a game of a Contest of the suite.
fn start(
    tx: &mut ContestTx<'_>,
    ctx: &Ctx,
    written: &str,
    names: &[String],
    team_names: &[Vec<String>],
    any_order: bool,
    duel: Option<u32>,
) -> Result<Sentence, Refusal> {
    let suite = tx.view().suite();
    let Some(contest) = suite
        .iter()
        .find(|c| c.name.eq_ignore_ascii_case(written))
        .cloned()
    else {
        return Err(refuse("contest_not_in_suite")
            .arg("name", written)
            .arg(
                "suite",
                suite.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
            )
            .into());
    };
    let board = if is_party_chess(&contest.name) {
        stopped(tx, PARTY_CHESS_RULE)?;
        Bound::of(&tx.view(), tx.params(), PARTY_CHESS_RULE)
            .board()
            .unwrap_or(contest.board)
    } else {
        contest.board
    };
    if contest.refereed_by_the_bot() {
        return Err(refuse("contest_by_the_bot")
            .arg("name", &contest.name)
            .arg("game", contest.game.clone().unwrap_or_default())
            .into());
    }
    if !is_referee(tx, &contest.referee, ctx) {
        return Err(refuse("contest_referee_starts")
            .arg("name", &contest.name)
            .arg("referee", referee_of(&contest))
            .into());
    }
    let mut players: Vec<PlayerId> = Vec::new();
    for name in names {
        let player = active_named(tx, name)?;
        if !players.contains(&player.id) {
            players.push(player.id);
        }
    }
    let mut teams: Vec<Vec<PlayerId>> = Vec::new();
    for team in team_names {
        let mut members = Vec::new();
        for name in team {
            members.push(active_named(tx, name)?.id);
        }
        teams.push(members);
    }
    if !teams.is_empty() {
        // Rule 1250 (and 1215 §2) knows one kind of team play: "two teams of
        // two players each", four different players.
        if !contest.teams {
            return Err(refuse("contest_no_teams").arg("name", &contest.name).into());
        }
        if teams.len() != 2 || teams.iter().any(|t| t.len() != 2) || players.len() != 4 {
            return Err(refuse("contest_two_teams_of_two").into());
        }
    } else if contest.players != 0 && players.len() != contest.players as usize {
        return Err(refuse("contest_how_many")
            .arg("name", &contest.name)
            .arg("players", contest.players)
            .arg("given", players.len())
            .into());
    }
    let number = tx
        .state()
        .matches
        .iter()
        .map(|m| m.number)
        .max()
        .unwrap_or(0)
        + 1;
    tx.record(Event::Started {
        number,
        contest: contest.name.clone(),
        referee: contest.referee.clone(),
        players,
        teams,
        any_order,
        private_moves: contest.private_moves,
        board,
        duel,
    });
    let Some(game) = tx.state().get(number).cloned() else {
        return Err(refuse("contest_no_such_game").arg("number", number).into());
    };
    let values = merged(about(tx, &game), json!({"duel": duel}));
    announce(tx, number, "contest_started", values);
    Ok(Sentence::new("contest_started")
        .arg("number", number)
        .arg("contest", &contest.name))
}

fn referee_of(contest: &Contest) -> String {
    if contest.referee.is_empty() {
        "the moderators".to_owned()
    } else {
        contest.referee.clone()
    }
}

fn impossible(tx: &ContestTx<'_>, why: Impossible) -> Refusal {
    match why {
        Impossible::OffBoard(square) => {
            refuse("contest_off_board").arg("square", square.to_string())
        }
        Impossible::Empty(square) => {
            refuse("contest_empty_square").arg("square", square.to_string())
        }
        Impossible::NotYours { square, owner } => refuse("contest_not_your_piece")
            .arg("square", square.to_string())
            .arg("owner", name_of(tx, owner)),
        Impossible::Taken(square) => {
            refuse("contest_square_taken").arg("square", square.to_string())
        }
        Impossible::OwnPiece(square) => {
            refuse("contest_own_piece").arg("square", square.to_string())
        }
        Impossible::NowhereToGo(square) => {
            refuse("contest_nowhere_to_go").arg("square", square.to_string())
        }
    }
    .into()
}

/// How long a batch of sealed moves stays open at most: the referee
/// publishes it long before (a batch needs a deadline; this one never acts).
const SEALED_FOR_DAYS: i64 = 3650;

/// A private move into the game's open batch of the sealed box (opened with
/// the first one): the box keeps its text and salt until the reveal, and its
/// commitment is what the list may see.
fn seal_move(
    tx: &mut ContestTx<'_>,
    ctx: &Ctx,
    game: &Match,
    me: &Player,
    text: &str,
) -> Result<Seal, Refusal> {
    let batch = game.batch();
    let unsealable = || Refusal::from(refuse("contest_cannot_seal").arg("number", game.number));
    if tx.view().sealed.batch(&batch).is_none() {
        let deadline = tx.at() + jiff::SignedDuration::from_hours(24 * SEALED_FOR_DAYS);
        let title = format!("game {} of {}", game.number, game.contest);
        let opened = tx
            .view()
            .sealed
            .open_titled(&batch, &tag_of(game.number), &title, deadline)
            .map_err(|_| unsealable())?;
        tx.record_shared(SharedEvent::Sealed(opened));
    }
    let event = tx
        .view()
        .sealed
        .seal(&batch, me.id, &me.name, text, tx.at(), &ctx.entropy)
        .map_err(|_| unsealable())?;
    let seal = match &event {
        sealed::Event::Sealed { sealed, .. } => Seal {
            salt_hex: sealed.salt_hex.clone(),
            commitment: commitment_hash(&sealed.salt_hex, &sealed.player_name, &sealed.action_text),
        },
        _ => return Err(unsealable()),
    };
    tx.record_shared(SharedEvent::Sealed(event));
    Ok(seal)
}

/// A player's move: refused out of turn, from a non-player, after the end,
/// or when impossible on the board; recorded, and echoed or sealed.
fn play_move(
    tx: &mut ContestTx<'_>,
    ctx: &Ctx,
    number: Option<u32>,
    play: Play,
    text: String,
) -> Result<Sentence, Refusal> {
    let me = tx
        .view()
        .players
        .active_by_address(&ctx.sender)
        .cloned()
        .ok_or_else(|| refuse("not_a_player").arg("address", ctx.sender.as_str()))?;
    let game = a_game(tx, ctx, number)?;
    if game.ended.is_some() {
        return Err(refuse("contest_over").arg("number", game.number).into());
    }
    if is_party_chess(&game.contest) {
        stopped(tx, PARTY_CHESS_RULE)?;
    }
    if !game.players.contains(&me.id) {
        return Err(refuse("contest_not_playing")
            .arg("number", game.number)
            .arg("contest", &game.contest)
            .into());
    }
    if let Some(turn) = game.whose_turn()
        && turn != me.id
    {
        return Err(refuse("contest_not_your_turn")
            .arg("number", game.number)
            .arg("turn", name_of(tx, turn))
            .into());
    }
    if game.private_moves && ctx.public {
        return Err(refuse("contest_move_private")
            .arg("number", game.number)
            .into());
    }
    if !game.private_moves && !ctx.public {
        return Err(refuse("contest_move_public")
            .arg("number", game.number)
            .into());
    }
    let act = match (game.board, play) {
        (0, _) => None,
        (_, Play::Board(act)) => Some(act),
        (_, Play::Text(_)) => {
            return Err(refuse("contest_board_move")
                .arg("number", game.number)
                .into());
        }
    };
    let mut captured = None;
    if let (Some(act), Some(mut board)) = (&act, game.board(false)) {
        captured = board.apply(act, me.id).map_err(|why| impossible(tx, why))?;
    }
    let move_number = game.moves().count() as u32 + 1;
    let seal = if game.private_moves {
        Some(seal_move(tx, ctx, &game, &me, &text)?)
    } else {
        None
    };
    tx.record(Event::Moved {
        number: game.number,
        mv: Move {
            number: move_number,
            player: me.id,
            text: text.clone(),
            act,
            at: tx.at(),
            seal: seal.clone(),
            published: !game.private_moves,
            struck: None,
        },
    });
    let Some(game) = tx.state().get(game.number).cloned() else {
        return Err(refuse("contest_no_such_game").into());
    };
    let captured = captured.map(|p| json!({"kind": p.kind, "owner": name_of(tx, p.owner)}));
    let values = merged(
        about(tx, &game),
        json!({"player": me.name, "move_number": move_number, "move": text,
               "captured": captured}),
    );
    if game.private_moves {
        // The referee sees the move at once, on the board as it now stands;
        // the list gets its commitment by a deadline of this instant, since a
        // sealed step sends nothing to the list.
        let referee_view = merged(values, json!({"diagram": diagram(&game, false)}));
        for address in referee_addresses(tx, &game) {
            tx.mail(Mail::new(
                Audience::Address(address),
                &tag_of(game.number),
                "contest_sealed_move",
                referee_view.clone(),
            ));
        }
        tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
            deadline: Deadline {
                id: format!("{TAG}:{}:sealed:{move_number}", game.number),
                at: tx.at(),
                owner: tag_of(game.number),
                who: None,
                what: format!("the commitment of move {move_number}"),
                remind: false,
            },
        }));
    } else {
        announce(tx, game.number, "contest_move", values);
    }
    pace(tx, &game);
    Ok(Sentence::new(if game.private_moves {
        "contest_move_sealed"
    } else {
        "contest_move_recorded"
    })
    .arg("number", game.number)
    .arg("move_number", move_number))
}

/// The referee's addresses: the named player's, or the moderators'.
fn referee_addresses(tx: &ContestTx<'_>, game: &Match) -> Vec<crate::engine::Address> {
    let view = tx.view();
    if !game.referee.is_empty()
        && let Some(referee) = view.players.by_name(&game.referee)
    {
        return vec![referee.address.clone()];
    }
    view.officers.moderators.clone()
}

fn turn_deadline_id(number: u32) -> String {
    format!("{TAG}:{number}:turn")
}

/// The pace the referee set: the player whose turn it is has so many hours,
/// on the shared schedule (with its reminder); no pace, no deadline.
fn pace(tx: &mut ContestTx<'_>, game: &Match) {
    let id = turn_deadline_id(game.number);
    let Some(hours) = game.hours.filter(|_| game.ended.is_none()) else {
        if tx
            .view()
            .schedule
            .entries
            .iter()
            .any(|e| e.deadline.id == id)
        {
            tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled { id }));
        }
        return;
    };
    let at = tx.at() + jiff::SignedDuration::from_hours(i64::from(hours));
    let who = game.whose_turn();
    let what = match who {
        Some(_) => format!("your move in [{}]", tag_of(game.number)),
        None => format!("the moves of [{}]", tag_of(game.number)),
    };
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
        deadline: Deadline {
            id,
            at,
            owner: tag_of(game.number),
            who,
            what,
            remind: who.is_some(),
        },
    }));
}

fn rule(
    tx: &mut ContestTx<'_>,
    ctx: &Ctx,
    game: &Match,
    ruling: Ruling,
) -> Result<Sentence, Refusal> {
    let number = game.number;
    let by = ctx.signature();
    match ruling {
        Ruling::Publish => {
            if !has_sealed(game) {
                return Err(refuse("contest_nothing_sealed")
                    .arg("number", number)
                    .into());
            }
            publish_now(tx, game);
            Ok(Sentence::new("contest_publishing").arg("number", number))
        }
        Ruling::Turn(name) => {
            let seat = match name {
                None => None,
                Some(name) => {
                    let player = active_named(tx, &name)?;
                    let Some(seat) = game.players.iter().position(|p| *p == player.id) else {
                        return Err(refuse("contest_not_in_game")
                            .arg("name", player.name)
                            .arg("number", number)
                            .into());
                    };
                    Some(seat)
                }
            };
            tx.record(Event::Turn { number, seat });
            ruled(tx, number, json!({"kind": "turn", "by": by}));
            Ok(Sentence::new("contest_ruled").arg("number", number))
        }
        Ruling::Pace(hours) => {
            tx.record(Event::Paced { number, hours });
            if let Some(game) = tx.state().get(number).cloned() {
                pace(tx, &game);
            }
            ruled(
                tx,
                number,
                json!({"kind": "pace", "hours": hours, "by": by}),
            );
            Ok(Sentence::new("contest_ruled").arg("number", number))
        }
        Ruling::Undo {
            move_number,
            reason,
        } => {
            let mv = a_move(game, move_number)?;
            if mv.struck.is_some() {
                return Err(refuse("contest_already_undone")
                    .arg("number", number)
                    .arg("move_number", move_number)
                    .into());
            }
            tx.record(Event::Struck {
                number,
                move_number,
                reason: reason.clone(),
            });
            ruled(
                tx,
                number,
                json!({"kind": "undo", "move_number": move_number, "player": name_of(tx, mv.player),
                       "move": if mv.published { mv.text.clone() } else { String::new() },
                       "reason": reason, "by": by}),
            );
            Ok(Sentence::new("contest_ruled").arg("number", number))
        }
        Ruling::Correct {
            move_number,
            play,
            text,
            reason,
        } => {
            let mv = a_move(game, move_number)?;
            let act = match (game.board, play) {
                (0, _) => None,
                (_, Play::Board(act)) => Some(act),
                (_, Play::Text(_)) => {
                    return Err(refuse("contest_board_move").arg("number", number).into());
                }
            };
            if let Some(act) = &act {
                let mut before = game.clone();
                before.record.retain(|e| match e {
                    Entry::Move(m) => m.number < move_number,
                    Entry::Set { .. } => true,
                });
                // The rulings after the move stay where they are: the board
                // the corrected move meets is the one of the moves before it.
                let mut board = before
                    .board(false)
                    .unwrap_or_else(|| Board::new(game.board));
                board
                    .apply(act, mv.player)
                    .map_err(|why| impossible(tx, why))?;
            }
            tx.record(Event::Corrected {
                number,
                move_number,
                text: text.clone(),
                act,
                reason: reason.clone(),
            });
            ruled(
                tx,
                number,
                json!({"kind": "correct", "move_number": move_number, "player": name_of(tx, mv.player),
                       "was": if mv.published { mv.text.clone() } else { String::new() },
                       "move": if mv.published { text } else { String::new() },
                       "reason": reason, "by": by}),
            );
            Ok(Sentence::new("contest_ruled").arg("number", number))
        }
        Ruling::Set {
            square,
            piece,
            reason,
        } => {
            if game.board == 0 {
                return Err(refuse("contest_no_board").arg("number", number).into());
            }
            let board = Board::new(game.board);
            board.check(square).map_err(|why| impossible(tx, why))?;
            let piece = match piece {
                None => None,
                Some((kind, owner)) => {
                    let owner = active_named(tx, &owner)?;
                    if !game.players.contains(&owner.id) {
                        return Err(refuse("contest_not_in_game")
                            .arg("name", owner.name)
                            .arg("number", number)
                            .into());
                    }
                    Some(Piece {
                        kind,
                        owner: owner.id,
                    })
                }
            };
            tx.record(Event::Set {
                number,
                square,
                piece: piece.clone(),
                reason: reason.clone(),
            });
            let piece = piece.map(|p| json!({"kind": p.kind, "owner": name_of(tx, p.owner)}));
            ruled(
                tx,
                number,
                json!({"kind": "set", "square": square.to_string(), "piece": piece,
                       "reason": reason, "by": by}),
            );
            Ok(Sentence::new("contest_ruled").arg("number", number))
        }
        Ruling::Result { winner, points } => result(tx, ctx, game, winner, points),
    }
}

fn a_move(game: &Match, move_number: u32) -> Result<Move, Refusal> {
    game.moves()
        .find(|m| m.number == move_number)
        .cloned()
        .ok_or_else(|| {
            refuse("contest_no_such_move")
                .arg("number", game.number)
                .arg("move_number", move_number)
                .into()
        })
}

/// A ruling, announced with the board as it now stands.
fn ruled(tx: &mut ContestTx<'_>, number: u32, ruling: Value) {
    let Some(game) = tx.state().get(number).cloned() else {
        return;
    };
    // Every ruling carries every blank its template may read.
    let ruling = merged(
        json!({"kind": null, "by": null, "reason": null, "move_number": null, "player": null,
               "move": null, "was": null, "hours": null, "square": null, "piece": null}),
        ruling,
    );
    let values = merged(about(tx, &game), json!({"ruling": ruling}));
    announce(tx, number, "contest_ruling", values);
}

fn has_sealed(game: &Match) -> bool {
    game.moves().any(|m| !m.published)
}

/// The sealed moves are revealed by a deadline of this instant, as every
/// sealed batch is: the commitments, the reveal, then the board.
fn publish_now(tx: &mut ContestTx<'_>, game: &Match) {
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
        deadline: Deadline {
            id: format!("{TAG}:{}:publish", game.number),
            at: tx.at(),
            owner: tag_of(game.number),
            who: None,
            what: format!("the sealed moves of game {}", game.number),
            remind: false,
        },
    }));
}

/// The sealed moves not yet published, to the list: the sealed box's
/// commitments and reveal, then the moves with the board.
fn publish(tx: &mut ContestTx<'_>, game: &Match) {
    let sealed: Vec<Move> = game.moves().filter(|m| !m.published).cloned().collect();
    if sealed.is_empty() {
        return;
    }
    let batch = game.batch();
    let sealed_box = tx.view().sealed;
    if let Ok((event, mail)) = sealed_box.commit(&batch) {
        tx.record_shared(SharedEvent::Sealed(event));
        tx.mail(mail);
    }
    if let Ok((event, mail)) = tx.view().sealed.reveal(&batch) {
        tx.record_shared(SharedEvent::Sealed(event));
        tx.mail(mail);
    }
    tx.record(Event::Published {
        number: game.number,
        moves: sealed.iter().map(|m| m.number).collect(),
    });
    let Some(after) = tx.state().get(game.number).cloned() else {
        return;
    };
    let moves: Vec<Value> = sealed
        .iter()
        .map(|m| {
            json!({"move_number": m.number, "player": name_of(tx, m.player),
                   "move": if m.struck.is_some() { String::new() } else { m.text.clone() },
                   "struck": m.struck,
                   "commitment": m.seal.as_ref().map(|s| s.commitment.clone())})
        })
        .collect();
    let values = merged(about(tx, &after), json!({"moves": moves}));
    announce(tx, game.number, "contest_published", values);
}

/// The referee's result: the winner (or none) and the points; a Duel this
/// game decides is told on the schedule, as the Duel expects
/// (`duel:won:N:WINNER`).
fn result(
    tx: &mut ContestTx<'_>,
    ctx: &Ctx,
    game: &Match,
    winner: Option<String>,
    points: Vec<(String, i64)>,
) -> Result<Sentence, Refusal> {
    let number = game.number;
    let in_game = |tx: &ContestTx<'_>, name: &str| -> Result<Player, Refusal> {
        let player = active_named(tx, name)?;
        if game.players.contains(&player.id) {
            Ok(player)
        } else {
            Err(refuse("contest_not_in_game")
                .arg("name", player.name)
                .arg("number", number)
                .into())
        }
    };
    let winner = winner.map(|w| in_game(tx, &w)).transpose()?;
    let mut awarded: Vec<(PlayerId, i64)> = Vec::new();
    for (name, n) in &points {
        awarded.push((in_game(tx, name)?.id, *n));
    }
    if has_sealed(game) {
        publish_now(tx, game);
    }
    tx.record(Event::Ended {
        number,
        winner: winner.as_ref().map(|w| w.id),
        points: awarded.clone(),
    });
    if let Some(after) = tx.state().get(number).cloned() {
        pace(tx, &after);
        let points: Vec<Value> = awarded
            .iter()
            .map(|(p, n)| json!({"name": name_of(tx, *p), "points": n}))
            .collect();
        let values = merged(
            about(tx, &after),
            json!({"winner": winner.as_ref().map(|w| w.name.clone()), "points": points,
                   "winning_team": winner.as_ref().and_then(|w| game.teams.iter().find(|t| t.contains(&w.id)))
                       .map(|t| t.iter().map(|p| name_of(tx, *p)).collect::<Vec<_>>()),
                   "by": ctx.signature(), "duel": game.duel}),
        );
        announce(tx, number, "contest_result", values);
    }
    if let Some(duel) = game.duel {
        let told = winner
            .as_ref()
            .map_or_else(|| "none".to_owned(), |w| w.id.to_string());
        tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
            deadline: Deadline {
                id: format!("duel:won:{duel}:{told}"),
                at: tx.at(),
                owner: "duel".to_owned(),
                who: None,
                what: format!("the winner of the Contest of Duel {duel}"),
                remind: false,
            },
        }));
    }
    Ok(Sentence::new("contest_result").arg("number", number))
}

/// The record of a game: every move and ruling; a sealed move's text only
/// for its referee.
fn record(tx: &ContestTx<'_>, game: &Match, full: bool, ctx: &Ctx) -> Vec<Value> {
    let me = tx
        .view()
        .players
        .active_by_address(&ctx.sender)
        .map(|p| p.id);
    game.record
        .iter()
        .map(|entry| match entry {
            Entry::Move(m) => {
                let shown = m.published || full || me == Some(m.player);
                json!({"move_number": m.number, "player": name_of(tx, m.player),
                       "move": if shown { m.text.clone() } else { String::new() },
                       "sealed": !m.published, "struck": m.struck, "at": human_time(m.at),
                       "set": null, "piece": null, "reason": null})
            }
            Entry::Set {
                square,
                piece,
                reason,
            } => json!({"set": square.to_string(),
                        "piece": piece.as_ref().map(|p| format!("{} of {}", p.kind, name_of(tx, p.owner))),
                        "reason": reason, "move_number": null, "player": null, "move": null,
                        "sealed": false, "struck": null, "at": null}),
        })
        .collect()
}

fn status(tx: &ContestTx<'_>) -> Sentence {
    let games: Vec<Value> = tx
        .state()
        .matches
        .iter()
        .filter(|m| m.ended.is_none())
        .map(|m| {
            json!({"number": m.number, "contest": m.contest, "referee": referee_name(m),
                   "players": m.players.iter().map(|p| name_of(tx, *p)).collect::<Vec<_>>(),
                   "turn": m.whose_turn().map(|p| name_of(tx, p)),
                   "moves": m.moves().count()})
        })
        .collect();
    Sentence::new("contest_status").arg("games", games)
}

/// A deadline of the shared schedule fired: a sealed move's commitment goes
/// to the list, or a move's time is up (the referee decides what follows).
pub fn on_deadline(tx: &mut ContestTx<'_>, deadline: &Deadline) {
    let Some(rest) = deadline.id.strip_prefix(&format!("{TAG}:")) else {
        return;
    };
    let parts: Vec<&str> = rest.split(':').collect();
    let Some(game) = parts
        .first()
        .and_then(|n| n.parse::<u32>().ok())
        .and_then(|n| tx.state().get(n).cloned())
    else {
        return;
    };
    match parts.as_slice() {
        [_, "sealed", move_number] => {
            let Some(mv) = move_number
                .parse::<u32>()
                .ok()
                .and_then(|n| game.moves().find(|m| m.number == n).cloned())
            else {
                return;
            };
            let values = merged(
                about(tx, &game),
                json!({"player": name_of(tx, mv.player), "move_number": mv.number,
                       "commitment": mv.seal.as_ref().map(|s| s.commitment.clone())}),
            );
            announce(tx, game.number, "contest_sealed", values);
        }
        [_, "publish"] => publish(tx, &game),
        [_, "turn"] if game.ended.is_none() => {
            let values = merged(about(tx, &game), json!({"hours": game.hours}));
            announce(tx, game.number, "contest_time_up", values);
        }
        _ => {}
    }
}
