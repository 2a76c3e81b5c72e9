//! The values of `[bogusity]`'s announcements (`templates/bogusity_*.txt`) and of
//! its longer answers (`templates/sentences/bogusity.txt`). Values only: the
//! wording is the templates'.

use num_rational::BigRational;
use serde_json::{Value, json};

use crate::engine::accounts::amount_human;
use crate::engine::{Timestamp, human_time};

use super::rules::{self, Response};
use super::{Description, Descriptions, Finding, Hearing, Params};

/// What became of the penalty when a hearing closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Penalty {
    /// The Boon is not Bogus, or the penalty is 0.
    None,
    /// The describer was charged.
    Charged,
    /// The accounts refused the charge (the sentence code says why: an unknown
    /// currency in bot.toml).
    Failed(String),
}

/// The two valid responses, in the rule's order and words.
fn responses() -> [&'static str; 2] {
    [Response::Bogus.words(), Response::CoolIdea.words()]
}

/// `bogusity_described`: a description was posted.
pub fn described(description: &Description, numbers: &Params) -> Value {
    json!({
        "number": description.number,
        "boon": description.boon,
        "text": description.text,
        "describer": description.describer_name,
        "at": human_time(description.posted_at),
        "call_until": human_time(description.call_until),
        "call_days": numbers.call_days.get(),
        "refereed": description.origin.is_some(),
    })
}

/// `bogusity_called`: a hearing was called.
pub fn called(description: &Description, numbers: &Params) -> Value {
    let hearing = description.hearing.as_ref();
    json!({
        "number": description.number,
        "boon": description.boon,
        "text": description.text,
        "describer": description.describer_name,
        "posted_at": human_time(description.posted_at),
        "called_by": hearing.map(|h| h.called_by_name.as_str()),
        "at": hearing.map(|h| human_time(h.called_at)),
        "closes_at": hearing.map(|h| human_time(h.closes_at)),
        "hearing_days": numbers.hearing_days.get(),
        "responses": responses(),
        "loose": numbers.loose_responses,
        "penalty": numbers.bogus_penalty,
        "currency": numbers.currency,
    })
}

/// `bogusity_result`: a hearing closed; `at` is when (its deadline, or a
/// moderator's override), `balance` the describer's afterwards.
pub fn result(
    description: &Description,
    hearing: &Hearing,
    finding: &Finding,
    penalty: &Penalty,
    balance: &BigRational,
    at: Timestamp,
    numbers: &Params,
) -> Value {
    let counted: Vec<Value> = rules::last_responses(hearing)
        .into_iter()
        .map(|given| json!({ "name": given.name, "response": given.response.words() }))
        .collect();
    json!({
        "number": description.number,
        "boon": description.boon,
        "describer": description.describer_name,
        "posted_at": human_time(description.posted_at),
        "called_by": hearing.called_by_name,
        "called_at": human_time(hearing.called_at),
        "closes_at": human_time(hearing.closes_at),
        "at": human_time(at),
        "responses": responses(),
        "bogus": finding.bogus,
        "cool": finding.cool,
        "found_bogus": finding.found_bogus,
        "tie": finding.bogus == finding.cool,
        "counted": counted,
        "forced": finding.closed_by.is_some(),
        "officer": finding.closed_by,
        "reason": finding.reason,
        "penalty": numbers.bogus_penalty,
        "currency": numbers.currency,
        "charged": *penalty == Penalty::Charged,
        "penalty_error": match penalty {
            Penalty::Failed(code) => Some(code.as_str()),
            _ => None,
        },
        "balance": amount_human(balance),
    })
}

/// Every description and where it stands, for `status`.
pub fn status(state: &Descriptions, now: Timestamp) -> Vec<Value> {
    state
        .descriptions
        .iter()
        .map(|description| {
            let (stage, hearing) = match &description.hearing {
                None if now < description.call_until => ("open_for_call", None),
                None => ("no_hearing", None),
                Some(hearing) => match &hearing.finding {
                    None => ("hearing", Some(hearing)),
                    Some(finding) if finding.found_bogus => ("bogus", Some(hearing)),
                    Some(_) => ("not_bogus", Some(hearing)),
                },
            };
            let so_far = hearing.map(rules::last_responses).unwrap_or_default();
            let count =
                |response: Response| so_far.iter().filter(|g| g.response == response).count();
            json!({
                "number": description.number,
                "boon": description.boon,
                "describer": description.describer_name,
                "posted_at": human_time(description.posted_at),
                "call_until": human_time(description.call_until),
                "stage": stage,
                "called_by": hearing.map(|h| h.called_by_name.as_str()),
                "closes_at": hearing.map(|h| human_time(h.closes_at)),
                "bogus": count(Response::Bogus),
                "cool": count(Response::CoolIdea),
            })
        })
        .collect()
}

/// Open hearings, as a refusal lists them.
pub fn hearings<'a>(open: impl Iterator<Item = &'a Description>) -> Vec<Value> {
    open.map(|description| {
        json!({
            "number": description.number,
            "boon": description.boon,
            "describer": description.describer_name,
            "closes_at": description.hearing.as_ref().map(|h| human_time(h.closes_at)),
        })
    })
    .collect()
}
