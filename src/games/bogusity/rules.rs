//! Rule 1211 §8, sentence by sentence, in the text's order and words. Each
//! function is one clause: it reads the state and answers yes, or no with the
//! sentence a player reads; it records nothing (`mod.rs` does, in the order the
//! clauses allow). Where the text leaves room, the reading is in docs/rulings.md.

use num_rational::BigRational;
use serde::{Deserialize, Serialize};

use crate::engine::accounts::{self, Accounts, Holder};
use crate::engine::players::{Player, Registry};
use crate::engine::{Address, Refusal, Sentence, Timestamp, human_time};

use super::{Description, Finding, Given, Hearing, Params};

/// "Any player [...]": whoever joined the nomic and has not left it. A player on
/// vacation or in Gaol is still a player (the rule names no exception).
pub fn a_player<'a>(players: &'a Registry, sender: &Address) -> Result<&'a Player, Refusal> {
    players
        .active_by_address(sender)
        .ok_or_else(|| Refusal(Sentence::new("not_a_player").arg("address", sender.as_str())))
}

/// "Any player may call a Bogusity Hearing within three days of a description of
/// a Must Describe Boon being posted." The three days (`call_days`) were counted
/// when the description was posted: a call at or after `call_until` is late.
pub fn any_player_may_call_within_three_days(
    description: &Description,
    now: Timestamp,
) -> Result<(), Refusal> {
    if now >= description.call_until {
        return Err(Sentence::new("bogusity_call_late")
            .arg("number", description.number)
            .arg("posted_at", human_time(description.posted_at))
            .arg("call_until", human_time(description.call_until))
            .into());
    }
    Ok(())
}

/// "Only one such Hearing may be called per Boon." A description describes one
/// Boon, so one hearing per description, whatever became of it.
pub fn only_one_hearing_per_boon(description: &Description) -> Result<(), Refusal> {
    match &description.hearing {
        None => Ok(()),
        Some(hearing) => Err(Sentence::new("bogusity_already_called")
            .arg("number", description.number)
            .arg("called_by", &hearing.called_by_name)
            .arg("called_at", human_time(hearing.called_at))
            .arg("closed", hearing.finding.is_some())
            .into()),
    }
}

/// "The player who described the Boon may not vote in the hearing." A response
/// is the hearing's vote.
pub fn describer_may_not_vote(description: &Description, player: &Player) -> Result<(), Refusal> {
    if player.id == description.describer {
        return Err(Sentence::new("bogusity_describer_may_not_vote")
            .arg("number", description.number)
            .into());
    }
    Ok(())
}

// "This takes precedence over R 360." Rule 360 is not among the texts the bot
// referees; the clause before this one is applied as written (docs/rulings.md).

/// The two responses of "The valid responses to the Bogusity Hearing are "This
/// loophole surfer is totally Bogus", and "Thats a pretty cool idea"."
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Response {
    /// "This loophole surfer is totally Bogus": the former.
    Bogus,
    /// "Thats a pretty cool idea": the latter.
    CoolIdea,
}

impl Response {
    /// The response in the rule's own words, spelling and capitals.
    pub fn words(self) -> &'static str {
        match self {
            Response::Bogus => "This loophole surfer is totally Bogus",
            Response::CoolIdea => "Thats a pretty cool idea",
        }
    }

    /// The response `written` is meant as, ignoring case, punctuation and spacing
    /// ("that's a pretty cool idea!"); `None` when it is neither. The parser reads
    /// a line as a response with it; `valid_response` then judges the spelling.
    pub fn meant_by(written: &str) -> Option<Response> {
        let meant = loosely(written);
        [Response::Bogus, Response::CoolIdea]
            .into_iter()
            .find(|response| loosely(response.words()) == meant)
    }
}

/// Letters and digits only, lower-cased, one space between words.
fn loosely(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric() || c.is_whitespace())
        .collect::<String>()
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// "The valid responses to the Bogusity Hearing are "This loophole surfer is
/// totally Bogus", and "Thats a pretty cool idea"." Read literally (the default),
/// a response is valid only as the rule writes it, character for character, with
/// or without the quotation marks around it; with `loose_responses`, any case,
/// punctuation and spacing will do.
pub fn valid_response(meant: Response, written: &str, loose: bool) -> Result<Response, Refusal> {
    if loose || unquoted(written) == meant.words() {
        return Ok(meant);
    }
    Err(Sentence::new("bogusity_not_valid")
        .arg("written", written)
        .arg("meant", meant.words())
        .into())
}

/// The response without one pair of quotation marks around it: quoting the rule's
/// words does not change them.
fn unquoted(written: &str) -> &str {
    let written = written.trim();
    for (open, close) in [('"', '"'), ('\u{201c}', '\u{201d}')] {
        if let Some(inner) = written
            .strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
        {
            return inner.trim();
        }
    }
    written
}

/// "If the result is the former, the Boon is found to be Bogus [...]": the
/// result is the former when more players' last responses are "This loophole
/// surfer is totally Bogus" than "Thats a pretty cool idea". A tie, or no
/// response at all, is no result of "Bogus" (docs/rulings.md).
pub fn result(hearing: &Hearing, forced: Option<(&Address, &str)>) -> Finding {
    let last = last_responses(hearing);
    let count = |response: Response| {
        u32::try_from(last.iter().filter(|g| g.response == response).count()).unwrap_or(u32::MAX)
    };
    let bogus = count(Response::Bogus);
    let cool = count(Response::CoolIdea);
    Finding {
        bogus,
        cool,
        found_bogus: bogus > cool,
        closed_by: forced.map(|(officer, _)| officer.clone()),
        reason: forced.map(|(_, reason)| reason.to_owned()),
    }
}

/// The responses that count: each player's last (a player may change eir mind
/// until the hearing closes), in the order they were given.
pub fn last_responses(hearing: &Hearing) -> Vec<&Given> {
    let mut last: Vec<&Given> = Vec::new();
    for given in hearing.responses.iter().rev() {
        if !last.iter().any(|seen| seen.player == given.player) {
            last.push(given);
        }
    }
    last.reverse();
    last
}

/// "[...] and the player who described it loses 11 points." A penalty the rule
/// imposes: owed even beyond the describer's balance, and destroyed (paid to
/// nowhere), since the text names no one who gains them. `None` when the
/// penalty is 0.
pub fn the_describer_loses_points(
    description: &Description,
    accounts: &Accounts,
    numbers: &Params,
) -> Result<Option<accounts::Event>, Refusal> {
    if numbers.bogus_penalty == 0 {
        return Ok(None);
    }
    accounts
        .charge(
            Holder::Player(description.describer),
            Holder::Nowhere,
            &numbers.currency,
            &BigRational::from_integer(numbers.bogus_penalty.into()),
            &format!(
                "Bogusity Hearing (rule 1211 §8): description {} ({}) found to be Bogus",
                description.number, description.boon
            ),
        )
        .map(Some)
}
