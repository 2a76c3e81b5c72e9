//! Accounts, under the tag `[nomic]`: named currencies (points, A$, money units) held
//! by players, the Treasury, or "nowhere" (where created money comes from and
//! destroyed money goes). Games pay through `transfer`; players through `give`.
//! Pure: commands in, events and mail out; `apply_event` is the only thing that
//! changes a balance.
//!
//! Amounts are exact `BigRational`s, never floats: the Space nomic pays 6 + 1/403
//! money units, and 403 such payments must sum to exactly 2419. They are stored as
//! text (`"2419/403"`, `"-10"`), never as serde tuples, so the JSON reads as a player
//! would write it and survives any serializer.

use std::cmp::Ordering;
use std::fmt;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, Zero};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::players::{Look, PlayerId, Registry};
use super::{
    Audience, Ctx, Done, Mail, NotUnderstood, Refusal, Sentence, Timestamp, human_time, split_verb,
};

pub const TAG: &str = "nomic";

/// Longest amount text the parser reads: a mail cannot make the engine build a
/// thousand-digit number by accident or on purpose.
const MAX_AMOUNT_CHARS: usize = 64;

/// Whether a currency comes in whole units only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exactness {
    /// Whole units only: points, A$. A fractional amount is refused.
    Integer,
    /// Any exact fraction: the Space nomic's money units.
    Rational,
}

/// One currency as configured (`[[accounts.currency]]` in bot.toml).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Currency {
    /// The name used in announcements: "points", "A$", "money".
    pub name: String,
    /// Other spellings a player may write: "point", "pts". Compared case-insensitively.
    #[serde(default)]
    pub aliases: Vec<String>,
    pub exactness: Exactness,
    /// Whether a player's balance may go below zero. Most rules say no.
    #[serde(default)]
    pub may_go_negative: bool,
    /// Whether the Treasury may pay out more than it holds. Defaults to yes, so that
    /// a game paying "from the Treasury" never fails on an unfunded Treasury unless
    /// the rules say it must.
    #[serde(default = "yes")]
    pub treasury_may_go_negative: bool,
    /// Whether the rules let a player hand this currency on as a tradeable
    /// entity (bury it as Treasure, rule 1217). Yes unless configured not.
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub tradeable: bool,
}

fn is_yes(value: &bool) -> bool {
    *value
}

fn yes() -> bool {
    true
}

impl Currency {
    pub fn new(name: &str, aliases: &[&str], exactness: Exactness) -> Currency {
        Currency {
            name: name.to_owned(),
            aliases: aliases.iter().map(|alias| (*alias).to_owned()).collect(),
            exactness,
            may_go_negative: false,
            treasury_may_go_negative: true,
            tradeable: true,
        }
    }

    /// Whether `written` names this currency (its name or an alias, any case).
    pub fn is_called(&self, written: &str) -> bool {
        let written = written.trim();
        self.name.eq_ignore_ascii_case(written)
            || self
                .aliases
                .iter()
                .any(|alias| alias.eq_ignore_ascii_case(written))
    }

    /// "points (point, pts)": how the currency is listed in a refusal.
    fn listing(&self) -> String {
        if self.aliases.is_empty() {
            self.name.clone()
        } else {
            format!("{} ({})", self.name, self.aliases.join(", "))
        }
    }
}

/// Who holds money.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Holder {
    Player(PlayerId),
    Treasury,
    /// Outside the game: paying from nowhere creates money, paying to nowhere
    /// destroys it. Nowhere has no balance.
    Nowhere,
    /// Buried Treasure by its number (rule 1217): nobody's, and not the
    /// Treasury's ("Buried Treasure is not considered part of the Treasury").
    Buried(u32),
}

/// One balance: text-serialized, so the state reads `{"amount": "2419/403"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Balance {
    pub currency: String,
    pub holder: Holder,
    #[serde(with = "rational_text")]
    pub amount: BigRational,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Accounts {
    pub currencies: Vec<Currency>,
    /// Invariant: at most one entry per (currency, holder), sorted by both, and never
    /// for `Holder::Nowhere`. Sorted so a rebuilt state equals the live one.
    pub balances: Vec<Balance>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A currency was configured, or its configuration changed. Balances stay.
    CurrencyDefined { currency: Currency },
    Transferred {
        /// The currency's configured name, never an alias.
        currency: String,
        from: Holder,
        to: Holder,
        /// Always positive.
        #[serde(with = "rational_text")]
        amount: BigRational,
        /// The rule that moved the money: "Rule Tag: elemental precedence, Air over Earth".
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `give 5 A$ to Bob`. The amount is checked against the currency in `apply`,
    /// because only the state knows whether the currency is whole units only.
    Give {
        amount: BigRational,
        currency: String,
        recipient: String,
    },
    /// `balance`: every balance of the sender.
    Balance,
}

/// Reads one accounts command line. `Err` for anything else, so the router can try
/// another parser; a `give` with a malformed amount gets a sentence saying so.
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    let usage =
        || NotUnderstood(Sentence::new("usage").arg("usage", "give AMOUNT CURRENCY to NAME"));
    match verb.as_str() {
        "give" => {
            let (what, recipient) = split_at_to(rest).ok_or_else(usage)?;
            let words: Vec<&str> = what.split_whitespace().collect();
            // The amount is one word ("5", "2419/403") or two for a mixed number
            // ("6 1/403"): a whole number followed by a fraction.
            let amount_words = match words.as_slice() {
                [whole, fraction, _, ..]
                    if whole
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '-' || c == '+')
                        && fraction.contains('/') =>
                {
                    2
                }
                [_, _, ..] => 1,
                _ => return Err(usage()),
            };
            let amount_text = words[..amount_words].join(" ");
            let amount = parse_amount(&amount_text).ok_or_else(|| {
                NotUnderstood(Sentence::new("accounts_bad_amount").arg("amount", &amount_text))
            })?;
            Ok(Command::Give {
                amount,
                currency: words[amount_words..].join(" "),
                recipient: recipient.to_owned(),
            })
        }
        "balance" | "balances" if rest.is_empty() => Ok(Command::Balance),
        "balance" | "balances" => Err(NotUnderstood(
            Sentence::new("usage").arg("usage", "balance"),
        )),
        _ => Err(NotUnderstood(
            Sentence::new("unknown_command")
                .arg("tag", TAG)
                .arg("commands", "give AMOUNT CURRENCY to NAME, balance"),
        )),
    }
}

/// Splits "5 A$ to Bob" at the first word "to" (any case), which must have something
/// on both sides. The first, because a player's name may contain "to" but a
/// currency name is not expected to.
fn split_at_to(rest: &str) -> Option<(&str, &str)> {
    let mut offset = 0;
    for word in rest.split_whitespace() {
        // `split_whitespace` yields slices of `rest`, so the word's position is found
        // by searching from the end of the previous one.
        let start = offset + rest[offset..].find(word)?;
        offset = start + word.len();
        if word.eq_ignore_ascii_case("to") {
            let before = rest[..start].trim();
            let after = rest[offset..].trim();
            if !before.is_empty() && !after.is_empty() {
                return Some((before, after));
            }
        }
    }
    None
}

/// Reads an exact amount as a player writes it: `5`, `-3`, `+2`, `2419/403`, `6 1/403`
/// (a mixed number: whole part, space, proper fraction; `-6 1/403` is −(6 + 1/403)),
/// or a decimal `2.5` (read exactly, as 5/2). `None` for anything else.
pub fn parse_amount(text: &str) -> Option<BigRational> {
    let text = text.trim();
    if text.is_empty() || text.len() > MAX_AMOUNT_CHARS {
        return None;
    }
    let (negative, unsigned) = match text.as_bytes()[0] {
        b'-' => (true, text[1..].trim_start()),
        b'+' => (false, text[1..].trim_start()),
        _ => (false, text),
    };
    let magnitude = match unsigned.split_whitespace().collect::<Vec<_>>().as_slice() {
        [single] => parse_unsigned(single)?,
        [whole, fraction] => {
            let whole = digits(whole)?;
            let fraction = parse_fraction(fraction)?;
            // A mixed number's fraction is proper: "6 5/4" is more likely a slip
            // than a way of writing 29/4, so it is not guessed at.
            if fraction >= BigRational::from_integer(BigInt::from(1)) {
                return None;
            }
            BigRational::from_integer(whole) + fraction
        }
        _ => return None,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// Only ASCII digits: `BigInt`'s own parser would also take a sign or underscores.
fn digits(text: &str) -> Option<BigInt> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn parse_fraction(text: &str) -> Option<BigRational> {
    let (numerator, denominator) = text.split_once('/')?;
    let denominator = digits(denominator)?;
    if denominator.is_zero() {
        return None;
    }
    Some(BigRational::new(digits(numerator)?, denominator))
}

fn parse_unsigned(text: &str) -> Option<BigRational> {
    if text.contains('/') {
        return parse_fraction(text);
    }
    if let Some((whole, decimals)) = text.split_once('.') {
        let whole = if whole.is_empty() {
            BigInt::zero()
        } else {
            digits(whole)?
        };
        let scale = BigInt::from(10).pow(u32::try_from(decimals.len()).ok()?);
        return Some(BigRational::new(whole * &scale + digits(decimals)?, scale));
    }
    digits(text).map(BigRational::from_integer)
}

/// The stored form: `2419/403`, `-10`, `0`. Lowest terms, sign on the numerator.
pub fn amount_text(amount: &BigRational) -> String {
    if amount.is_integer() {
        amount.numer().to_string()
    } else {
        format!("{}/{}", amount.numer(), amount.denom())
    }
}

/// The form a player reads: `6 1/403`, `-6 1/403`, `1/2`, `5`.
pub fn amount_human(amount: &BigRational) -> String {
    if amount.is_integer() {
        return amount.numer().to_string();
    }
    let sign = if amount.is_negative() { "-" } else { "" };
    let magnitude = amount.abs();
    let whole = magnitude.trunc();
    let fraction = magnitude.fract();
    if whole.is_zero() {
        format!("{sign}{}/{}", fraction.numer(), fraction.denom())
    } else {
        format!(
            "{sign}{} {}/{}",
            whole.numer(),
            fraction.numer(),
            fraction.denom()
        )
    }
}

/// Serde as text, for `#[serde(with = "rational_text")]` on a `BigRational`: writes
/// `amount_text`, reads anything `parse_amount` reads.
pub mod rational_text {
    use num_rational::BigRational;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(
        amount: &BigRational,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&super::amount_text(amount))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BigRational, D::Error> {
        let text = String::deserialize(deserializer)?;
        super::parse_amount(&text)
            .ok_or_else(|| D::Error::custom(format!("not an exact amount: {text:?}")))
    }
}

/// Whether a name written in a command means the Treasury: "the Treasury" or
/// "Treasury", in any case and spacing, or a name that looks like either as a
/// player's name would (`players::Look`: a Cyrillic Т is still the Treasury).
/// It always means the account: no player may take such a name (`join` and
/// `rename` refuse it), so `give`, `adjust` and the inventory never have to guess.
pub fn names_the_treasury(name: &str) -> bool {
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let look = Look::of(&name);
    look.same_as(&Look::of("Treasury")) || look.same_as(&Look::of("the Treasury"))
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holder::Player(id) => write!(f, "player {id}"),
            Holder::Treasury => f.write_str("the Treasury"),
            Holder::Nowhere => f.write_str("nowhere"),
            Holder::Buried(number) => write!(f, "buried in Treasure {number}"),
        }
    }
}

impl Accounts {
    /// A state with these currencies and no money yet (for tests and a fresh game;
    /// a running game records `CurrencyDefined` events from `sync_currencies`).
    pub fn with_currencies(currencies: Vec<Currency>) -> Accounts {
        Accounts {
            currencies,
            balances: Vec::new(),
        }
    }

    /// The events that bring the recorded currencies in line with the configured
    /// ones: one `CurrencyDefined` per new or changed currency. A currency dropped
    /// from the configuration stays, because balances in it still exist.
    pub fn sync_currencies(&self, configured: &[Currency]) -> Vec<Event> {
        configured
            .iter()
            .filter(|currency| !self.currencies.contains(currency))
            .map(|currency| Event::CurrencyDefined {
                currency: currency.clone(),
            })
            .collect()
    }

    /// The currency a player means by `written` (name or alias, any case).
    pub fn currency(&self, written: &str) -> Option<&Currency> {
        self.currencies
            .iter()
            .find(|currency| currency.is_called(written))
    }

    /// The holder's balance, zero if they never held any. Nowhere always has zero.
    pub fn balance(&self, holder: Holder, currency: &str) -> BigRational {
        let name = self
            .currency(currency)
            .map_or(currency, |currency| currency.name.as_str());
        self.position(name, holder)
            .ok()
            .map_or_else(BigRational::zero, |index| {
                self.balances[index].amount.clone()
            })
    }

    /// Every player holding an entry in `currency`, highest first (ties by id).
    pub fn scores(&self, currency: &str) -> Vec<(PlayerId, BigRational)> {
        let name = self
            .currency(currency)
            .map_or(currency, |currency| currency.name.as_str());
        let mut scores: Vec<(PlayerId, BigRational)> = self
            .balances
            .iter()
            .filter(|balance| balance.currency == name)
            .filter_map(|balance| match balance.holder {
                Holder::Player(id) => Some((id, balance.amount.clone())),
                _ => None,
            })
            .collect();
        scores.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        scores
    }

    fn position(&self, currency: &str, holder: Holder) -> Result<usize, usize> {
        self.balances
            .binary_search_by(|balance| match balance.currency.as_str().cmp(currency) {
                Ordering::Equal => balance.holder.cmp(&holder),
                other => other,
            })
    }

    fn add(&mut self, currency: &str, holder: Holder, amount: &BigRational) {
        if holder == Holder::Nowhere {
            return;
        }
        match self.position(currency, holder) {
            Ok(index) => self.balances[index].amount += amount,
            Err(index) => self.balances.insert(
                index,
                Balance {
                    currency: currency.to_owned(),
                    holder,
                    amount: amount.clone(),
                },
            ),
        }
    }

    pub fn apply_event(&mut self, event: &Event, _at: Timestamp) {
        match event {
            Event::CurrencyDefined { currency } => {
                match self.currencies.iter_mut().find(|c| c.name == currency.name) {
                    Some(existing) => *existing = currency.clone(),
                    None => self.currencies.push(currency.clone()),
                }
            }
            Event::Transferred {
                currency,
                from,
                to,
                amount,
                ..
            } => {
                self.add(currency, *from, &-amount);
                self.add(currency, *to, amount);
            }
        }
    }

    /// Moves `amount` of `currency` (name or alias) from one holder to another, for
    /// the rule named in `reason`. Checks that the currency exists, the amount is
    /// positive and whole where it must be, and the source can pay. Pure: the
    /// returned event must be applied.
    pub fn transfer(
        &self,
        from: Holder,
        to: Holder,
        currency: &str,
        amount: &BigRational,
        reason: &str,
    ) -> Result<Event, Refusal> {
        self.move_money(from, to, currency, amount, reason, false)
    }

    /// A transfer a rule imposes (a penalty, points lost to another player): owed
    /// even beyond the payer's balance, which may then go below zero.
    pub fn charge(
        &self,
        from: Holder,
        to: Holder,
        currency: &str,
        amount: &BigRational,
        reason: &str,
    ) -> Result<Event, Refusal> {
        self.move_money(from, to, currency, amount, reason, true)
    }

    fn move_money(
        &self,
        from: Holder,
        to: Holder,
        currency: &str,
        amount: &BigRational,
        reason: &str,
        imposed: bool,
    ) -> Result<Event, Refusal> {
        let currency = self.currency(currency).ok_or_else(|| {
            Refusal(
                Sentence::new("accounts_unknown_currency")
                    .arg("currency", currency)
                    .arg("currencies", self.currency_list()),
            )
        })?;
        if !amount.is_positive() {
            return Err(Sentence::new("accounts_not_positive")
                .arg("amount", amount_human(amount))
                .into());
        }
        if currency.exactness == Exactness::Integer && !amount.is_integer() {
            return Err(Sentence::new("accounts_not_integer")
                .arg("amount", amount_human(amount))
                .arg("currency", &currency.name)
                .into());
        }
        if from == to {
            return Err(Sentence::new("accounts_same_holder").into());
        }
        let may_go_negative = imposed
            || match from {
                Holder::Nowhere => true,
                Holder::Treasury => currency.treasury_may_go_negative,
                Holder::Player(_) => currency.may_go_negative,
                Holder::Buried(_) => false,
            };
        let have = self.balance(from, &currency.name);
        if !may_go_negative && &have < amount {
            return Err(Sentence::new("accounts_short")
                .arg("have", amount_human(&have))
                .arg("tried", amount_human(amount))
                .arg("currency", &currency.name)
                .into());
        }
        Ok(Event::Transferred {
            currency: currency.name.clone(),
            from,
            to,
            amount: amount.clone(),
            reason: reason.to_owned(),
        })
    }

    /// Creates money: a payment that comes from outside the game.
    pub fn pay_from_nowhere(
        &self,
        to: Holder,
        currency: &str,
        amount: &BigRational,
        reason: &str,
    ) -> Result<Event, Refusal> {
        self.transfer(Holder::Nowhere, to, currency, amount, reason)
    }

    /// "points (point, pts), A$, money": the currencies, for a refusal.
    fn currency_list(&self) -> String {
        if self.currencies.is_empty() {
            return "none yet".to_owned();
        }
        self.currencies
            .iter()
            .map(Currency::listing)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Every balance of one holder, one per configured currency (zero included),
    /// as sentence and template values.
    /// Every amount buried as Treasure: nobody's, and shown so beside the
    /// balances.
    pub fn buried(&self) -> Vec<serde_json::Value> {
        self.balances
            .iter()
            .filter_map(|balance| match balance.holder {
                Holder::Buried(number) if balance.amount.is_positive() => Some(json!({
                    "currency": balance.currency,
                    "amount": amount_human(&balance.amount),
                    "treasure": number,
                })),
                _ => None,
            })
            .collect()
    }

    fn balances_of(&self, holder: Holder) -> Vec<serde_json::Value> {
        self.currencies
            .iter()
            .map(|currency| {
                json!({
                    "currency": currency.name,
                    "amount": amount_human(&self.balance(holder, &currency.name)),
                })
            })
            .collect()
    }

    /// Carries out one command. On `Err` nothing happened.
    pub fn apply(
        &self,
        command: Command,
        ctx: &Ctx,
        players: &Registry,
    ) -> Result<Done<Event>, Refusal> {
        let me = players.active_by_address(&ctx.sender).ok_or_else(|| {
            Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
        })?;
        match command {
            Command::Give {
                amount,
                currency,
                recipient,
            } => {
                let (to, to_name) = if names_the_treasury(&recipient) {
                    (Holder::Treasury, "the Treasury".to_owned())
                } else {
                    let wanted = recipient.to_lowercase();
                    let found = players
                        .active()
                        .find(|player| player.name.to_lowercase() == wanted)
                        .ok_or_else(|| {
                            Refusal(
                                Sentence::new("accounts_unknown_player")
                                    .arg("name", &recipient)
                                    .arg(
                                        "players",
                                        players
                                            .active()
                                            .map(|player| player.name.as_str())
                                            .collect::<Vec<_>>()
                                            .join(", "),
                                    ),
                            )
                        })?;
                    if found.id == me.id {
                        return Err(Sentence::new("accounts_same_holder").into());
                    }
                    (Holder::Player(found.id), found.name.clone())
                };
                let from = Holder::Player(me.id);
                let reason = format!("a gift from {} (\"give\" under [{TAG}])", me.name);
                let event = self.transfer(from, to, &currency, &amount, &reason)?;
                // The configured name, not the alias the player wrote: `transfer`
                // has already refused an unknown currency.
                let currency = self
                    .currency(&currency)
                    .map_or(currency.clone(), |known| known.name.clone());
                // The balances after the transfer, computed on a copy so that `self`
                // changes only through `apply_event`.
                let mut after = self.clone();
                after.apply_event(&event, ctx.now);
                let from_balance = amount_human(&after.balance(from, &currency));
                let to_balance = amount_human(&after.balance(to, &currency));
                let amount = amount_human(&amount);
                Ok(Done {
                    events: vec![event],
                    mail: vec![Mail::new(
                        Audience::List,
                        TAG,
                        "accounts_transfer",
                        json!({
                            "from": me.name,
                            "to": to_name,
                            "amount": amount,
                            "currency": currency,
                            "reason": reason,
                            "at": human_time(ctx.now),
                            "from_balance": from_balance,
                            "to_balance": to_balance,
                        }),
                    )],
                    sentence: Sentence::new("accounts_given")
                        .arg("amount", amount)
                        .arg("currency", currency)
                        .arg("to", &to_name)
                        .arg("balance", from_balance),
                })
            }
            Command::Balance => {
                let balances = self.balances_of(Holder::Player(me.id));
                // The Treasury's too: it is an account like any other, which
                // players pay into, and its balance is announced with every
                // payment anyway.
                let treasury = self.balances_of(Holder::Treasury);
                let buried = self.buried();
                if ctx.public {
                    // Balances are answered privately even when asked on the list.
                    Ok(Done {
                        events: Vec::new(),
                        mail: vec![Mail::new(
                            Audience::Address(me.address.clone()),
                            TAG,
                            "accounts_balance",
                            json!({
                                "name": me.name,
                                "balances": balances,
                                "treasury": treasury,
                                "buried": buried,
                                "at": human_time(ctx.now),
                            }),
                        )],
                        sentence: Sentence::new("accounts_balance_sent"),
                    })
                } else {
                    Ok(Done {
                        events: Vec::new(),
                        mail: Vec::new(),
                        sentence: Sentence::new("accounts_balances")
                            .arg("balances", balances)
                            .arg("treasury", treasury)
                            .arg("buried", buried),
                    })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Address;
    use crate::engine::players::Event as PlayerEvent;

    fn at() -> Timestamp {
        Timestamp::from_second(1_800_000_000).unwrap()
    }

    fn rational(text: &str) -> BigRational {
        parse_amount(text).unwrap()
    }

    fn game_currencies() -> Vec<Currency> {
        vec![
            Currency::new("points", &["point", "pts"], Exactness::Integer),
            Currency::new("A$", &[], Exactness::Integer),
            Currency::new("money", &["money units", "mu"], Exactness::Rational),
        ]
    }

    fn players() -> Registry {
        let mut registry = Registry::default();
        for (id, name) in [(1, "Alice"), (2, "Bob")] {
            registry.apply_event(
                &PlayerEvent::Joined {
                    id,
                    name: name.to_owned(),
                    address: Address::new(&format!("{}@example.org", name.to_lowercase())),
                },
                at(),
            );
        }
        registry
    }

    fn ctx(sender: &str, public: bool) -> Ctx {
        Ctx {
            now: at(),
            sender: Address::new(sender),
            sender_name: None,
            public,
            entropy: [7; 32],
        }
    }

    fn run(accounts: &mut Accounts, line: &str, ctx: &Ctx) -> Result<Done<Event>, Refusal> {
        let command = parse(line).map_err(|NotUnderstood(s)| Refusal(s))?;
        let done = accounts.apply(command, ctx, &players())?;
        for event in &done.events {
            accounts.apply_event(event, ctx.now);
        }
        Ok(done)
    }

    fn fund(accounts: &mut Accounts, id: PlayerId, currency: &str, amount: &str) {
        let event = accounts
            .pay_from_nowhere(Holder::Player(id), currency, &rational(amount), "test")
            .unwrap();
        accounts.apply_event(&event, at());
    }

    #[test]
    fn four_hundred_and_three_space_payments_sum_to_exactly_2419() {
        let mut accounts = Accounts::with_currencies(game_currencies());
        let payment = rational("6 1/403");
        assert_eq!(amount_text(&payment), "2419/403");
        for _ in 0..403 {
            let event = accounts
                .pay_from_nowhere(
                    Holder::Player(1),
                    "money",
                    &payment,
                    "Space: a landing pays 6 1/403",
                )
                .unwrap();
            accounts.apply_event(&event, at());
        }
        let total = accounts.balance(Holder::Player(1), "money");
        assert_eq!(total, BigRational::from_integer(BigInt::from(2419)));
        assert_eq!(amount_text(&total), "2419");
        let json = serde_json::to_value(&accounts).unwrap();
        assert_eq!(json["balances"][0]["amount"], "2419");
    }

    #[test]
    fn amounts_parse_and_print_exactly() {
        for (written, stored, human) in [
            ("5", "5", "5"),
            ("-3", "-3", "-3"),
            ("+2", "2", "2"),
            ("6 1/403", "2419/403", "6 1/403"),
            ("2419/403", "2419/403", "6 1/403"),
            ("-6 1/403", "-2419/403", "-6 1/403"),
            ("2/4", "1/2", "1/2"),
            ("2.5", "5/2", "2 1/2"),
            ("0", "0", "0"),
        ] {
            let amount = parse_amount(written).unwrap();
            assert_eq!(amount_text(&amount), stored, "{written}");
            assert_eq!(amount_human(&amount), human, "{written}");
        }
        for bad in [
            "",
            "x",
            "1/0",
            "6 5/4",
            "1/-2",
            "--1",
            "1 2",
            "1e3",
            "6 1/403 7",
        ] {
            assert_eq!(parse_amount(bad), None, "{bad:?}");
        }
        assert_eq!(parse_amount(&"9".repeat(100)), None);
    }

    #[test]
    fn give_moves_money_and_announces_it() {
        let mut accounts = Accounts::with_currencies(game_currencies());
        fund(&mut accounts, 1, "A$", "10");
        let done = run(
            &mut accounts,
            "give 5 a$ to bob",
            &ctx("alice@example.org", true),
        )
        .unwrap();
        assert_eq!(done.sentence.code, "accounts_given");
        assert_eq!(done.sentence.args["balance"], "5");
        assert_eq!(done.mail[0].to, Audience::List);
        assert_eq!(done.mail[0].template, "accounts_transfer");
        assert_eq!(done.mail[0].values["to"], "Bob");
        assert_eq!(done.mail[0].values["to_balance"], "5");
        assert_eq!(accounts.balance(Holder::Player(1), "A$"), rational("5"));
        assert_eq!(accounts.balance(Holder::Player(2), "A$"), rational("5"));

        fund(&mut accounts, 1, "money", "1");
        let short = run(
            &mut accounts,
            "give 6 1/403 money to Bob",
            &ctx("alice@example.org", true),
        )
        .unwrap_err();
        assert_eq!(short.0.args["tried"], "6 1/403");
        fund(&mut accounts, 1, "mu", "6");
        let done = run(
            &mut accounts,
            "give 6 1/403 money to Bob",
            &ctx("alice@example.org", true),
        )
        .unwrap();
        assert_eq!(done.mail[0].values["amount"], "6 1/403");
        assert_eq!(done.mail[0].values["currency"], "money");
        assert_eq!(
            accounts.balance(Holder::Player(2), "money"),
            rational("2419/403")
        );
        assert_eq!(
            accounts.balance(Holder::Player(1), "money"),
            rational("402/403")
        );
        assert_eq!(
            accounts.scores("money"),
            vec![(2, rational("2419/403")), (1, rational("402/403"))]
        );
    }

    #[test]
    fn a_player_gives_to_the_treasury_but_never_beyond_what_they_hold() {
        let mut accounts = Accounts::with_currencies(game_currencies());
        fund(&mut accounts, 1, "A$", "3");
        let alice = ctx("alice@example.org", true);
        let short = run(&mut accounts, "give 5 A$ to the Treasury", &alice).unwrap_err();
        assert_eq!(short.0.code, "accounts_short");
        assert_eq!(accounts.balance(Holder::Treasury, "A$"), rational("0"));
        let done = run(&mut accounts, "give 2 a$ to THE  treasury", &alice).unwrap();
        assert_eq!(done.mail[0].values["to"], "the Treasury");
        assert_eq!(done.mail[0].values["to_balance"], "2");
        assert_eq!(done.sentence.args["to"], "the Treasury");
        assert!(matches!(
            done.events[0],
            Event::Transferred {
                from: Holder::Player(1),
                to: Holder::Treasury,
                ..
            }
        ));
        let done = run(&mut accounts, "give 1 A$ to Treasury", &alice).unwrap();
        assert_eq!(done.mail[0].values["to_balance"], "3");
        assert_eq!(accounts.balance(Holder::Treasury, "A$"), rational("3"));
        assert_eq!(accounts.balance(Holder::Player(1), "A$"), rational("0"));
        let balances = run(&mut accounts, "balance", &ctx("alice@example.org", false)).unwrap();
        assert_eq!(
            balances.sentence.args["treasury"][1],
            json!({"currency": "A$", "amount": "3"})
        );
    }

    #[test]
    fn the_treasury_is_named_in_any_case_and_look_but_no_other_name_is() {
        for name in [
            "the Treasury",
            "Treasury",
            "THE TREASURY",
            " the   treasury ",
            "Тreasury",
        ] {
            assert!(names_the_treasury(name), "{name:?}");
        }
        for name in [
            "Treasurer",
            "the Treasury's",
            "a Treasury",
            "Treasury Bob",
            "",
        ] {
            assert!(!names_the_treasury(name), "{name:?}");
        }
    }

    #[test]
    fn refusals_say_why() {
        let mut accounts = Accounts::with_currencies(game_currencies());
        fund(&mut accounts, 1, "points", "3");
        let alice = ctx("alice@example.org", true);
        let refused =
            |accounts: &mut Accounts, line: &str| run(accounts, line, &alice).unwrap_err().0;

        let short = refused(&mut accounts, "give 5 points to Bob");
        assert_eq!(short.code, "accounts_short");
        assert_eq!(short.args["have"], "3");
        assert_eq!(short.args["tried"], "5");
        assert_eq!(short.args["currency"], "points");

        let unknown = refused(&mut accounts, "give 1 doubloons to Bob");
        assert_eq!(unknown.code, "accounts_unknown_currency");
        assert_eq!(
            unknown.args["currencies"],
            "points (point, pts), A$, money (money units, mu)"
        );

        assert_eq!(
            refused(&mut accounts, "give 1 pts to Carol").code,
            "accounts_unknown_player"
        );
        assert_eq!(
            refused(&mut accounts, "give 1/2 point to Bob").code,
            "accounts_not_integer"
        );
        assert_eq!(
            refused(&mut accounts, "give 0 points to Bob").code,
            "accounts_not_positive"
        );
        assert_eq!(
            refused(&mut accounts, "give -2 points to Bob").code,
            "accounts_not_positive"
        );
        assert_eq!(
            refused(&mut accounts, "give 1 points to alice").code,
            "accounts_same_holder"
        );
        assert_eq!(
            refused(&mut accounts, "give lots points to Bob").code,
            "accounts_bad_amount"
        );
        assert_eq!(refused(&mut accounts, "give 1 points Bob").code, "usage");
        assert_eq!(
            run(
                &mut accounts,
                "give 1 points to Bob",
                &ctx("stranger@example.org", true)
            )
            .unwrap_err()
            .0
            .code,
            "not_a_player"
        );
        // Nothing moved.
        assert_eq!(accounts.balance(Holder::Player(1), "points"), rational("3"));
        assert!(parse("join Alice").is_err());
    }

    #[test]
    fn an_integer_currency_refuses_a_half() {
        let accounts = Accounts::with_currencies(game_currencies());
        let refusal = accounts
            .pay_from_nowhere(Holder::Player(1), "points", &rational("1/2"), "test")
            .unwrap_err();
        assert_eq!(refusal.0.code, "accounts_not_integer");
        assert_eq!(refusal.0.args["amount"], "1/2");
        assert!(
            accounts
                .pay_from_nowhere(Holder::Player(1), "money", &rational("1/2"), "test")
                .is_ok()
        );
    }

    #[test]
    fn the_treasury_and_negative_balances_follow_the_configuration() {
        let mut currencies = game_currencies();
        currencies[0].treasury_may_go_negative = false;
        currencies[1].may_go_negative = true;
        let mut accounts = Accounts::with_currencies(currencies);
        let one = rational("1");
        assert_eq!(
            accounts
                .transfer(Holder::Treasury, Holder::Player(1), "points", &one, "test")
                .unwrap_err()
                .0
                .code,
            "accounts_short"
        );
        let event = accounts
            .transfer(Holder::Player(1), Holder::Player(2), "A$", &one, "a fine")
            .unwrap();
        accounts.apply_event(&event, at());
        assert_eq!(accounts.balance(Holder::Player(1), "A$"), rational("-1"));
        let event = accounts
            .transfer(Holder::Treasury, Holder::Player(1), "money", &one, "grant")
            .unwrap();
        accounts.apply_event(&event, at());
        assert_eq!(accounts.balance(Holder::Treasury, "money"), rational("-1"));
        // Paying to nowhere destroys money; nowhere keeps no balance.
        let event = accounts
            .transfer(Holder::Player(1), Holder::Nowhere, "money", &one, "tax")
            .unwrap();
        accounts.apply_event(&event, at());
        assert!(
            accounts
                .balances
                .iter()
                .all(|b| b.holder != Holder::Nowhere)
        );
        assert_eq!(accounts.balance(Holder::Player(1), "money"), rational("0"));
    }

    #[test]
    fn balance_is_answered_privately() {
        let mut accounts = Accounts::with_currencies(game_currencies());
        fund(&mut accounts, 1, "money", "6 1/403");
        let public = run(&mut accounts, "balance", &ctx("alice@example.org", true)).unwrap();
        assert_eq!(public.sentence.code, "accounts_balance_sent");
        assert_eq!(
            public.mail[0].to,
            Audience::Address(Address::new("alice@example.org"))
        );
        assert_eq!(public.mail[0].template, "accounts_balance");
        let private = run(&mut accounts, "balance", &ctx("alice@example.org", false)).unwrap();
        assert!(private.mail.is_empty());
        assert_eq!(
            private.sentence.args["balances"],
            json!([
                {"currency": "points", "amount": "0"},
                {"currency": "A$", "amount": "0"},
                {"currency": "money", "amount": "6 1/403"},
            ])
        );
    }

    #[test]
    fn state_and_events_round_trip_through_json_as_text() {
        let mut accounts = Accounts::default();
        for event in accounts.sync_currencies(&game_currencies()) {
            accounts.apply_event(&event, at());
        }
        assert!(accounts.sync_currencies(&game_currencies()).is_empty());
        fund(&mut accounts, 1, "money", "2420/403");
        fund(&mut accounts, 2, "A$", "7");
        let event = accounts
            .transfer(
                Holder::Player(1),
                Holder::Treasury,
                "money",
                &rational("1/403"),
                "Rule 12",
            )
            .unwrap();
        let event_json = serde_json::to_value(&event).unwrap();
        assert_eq!(
            event_json,
            json!({"kind": "transferred", "currency": "money", "from": {"player": 1},
                   "to": "treasury", "amount": "1/403", "reason": "Rule 12"})
        );
        assert_eq!(serde_json::from_value::<Event>(event_json).unwrap(), event);
        accounts.apply_event(&event, at());

        let text = serde_json::to_string(&accounts).unwrap();
        assert!(text.contains("\"2419/403\""), "{text}");
        let back: Accounts = serde_json::from_str(&text).unwrap();
        assert_eq!(back, accounts);
        // A hand-edited state may write a mixed number; a float is refused.
        let edited = text.replace("\"2419/403\"", "\"5 402/403\"");
        let edited_back: Accounts = serde_json::from_str(&edited).unwrap();
        assert_eq!(
            edited_back.balance(Holder::Player(1), "mu"),
            rational("2417/403")
        );
        let edited = text.replace("\"2419/403\"", "6.0");
        assert!(serde_json::from_str::<Accounts>(&edited).is_err());
    }
}
