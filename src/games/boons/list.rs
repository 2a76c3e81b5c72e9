//! Rule 1211/3 §9, the Boon list, as data (`[[boons.list]]` in bot.toml: the
//! rule's list is the default, weights summing to anything), and §4's random
//! method: "the probability of receiving a particular Boon on the list is the
//! number in parentheses after that Boon divided by the sum".

use serde::{Deserialize, Serialize};

use crate::engine::inventory::{Entity, Inventory, Owner};

/// One Boon of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Boon {
    /// Its letter in the rule ("a" to "h"): how a player chooses it (§3).
    pub key: String,
    /// The rule's words for it, for the announcement.
    pub text: String,
    /// "(45)": its weight under the random method.
    pub weight: u32,
    /// The entity it bestows, by the rules' name ("Qualified Gadget").
    pub entity: String,
    /// §6: "A Boon is of type Must Describe if the words 'Must Describe' appear
    /// in its description". Read from `text` when not given.
    #[serde(default)]
    pub must_describe: Option<bool>,
    /// Where the entity goes, when not to the player: "Blueprint Archive",
    /// "Otzma Card Rule Suite".
    #[serde(default)]
    pub place: Option<String>,
    /// A$ taken from the Treasury into the entity (d: "A$75 in the Treasury is
    /// transmuted into the Trinket").
    #[serde(default)]
    pub from_treasury: Option<i64>,
    /// There is one of it, transferred rather than created (h: the Chartreuse Goose).
    #[serde(default)]
    pub unique: bool,
    /// Particular kinds a random one is drawn from, no instance limit on them
    /// (the first form of (a), (b), kept so that a bot.toml or an event log that
    /// names them still reads; `[[boons.kinds]]` gives kinds with their limits).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<String>,
    /// (a): "A random Qualified Gadget", (b): "A random Otzma Card": the entity
    /// is one particular kind of it, drawn among the kinds of `[[boons.kinds]]`
    /// "such that no instance limits are exceeded".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub random_kind: bool,
}

/// A particular Gadget or Otzma Card, and its instance limit (§9 a, b: "such
/// that no instance limits are exceeded for any particular Gadgets"). The texts
/// name none: they come from bot.toml's `[[boons.kinds]]` and a moderator's
/// `limit` under `[boons]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kind {
    /// The entity of the list it is a kind of: "Qualified Gadget", "Otzma Card".
    pub entity: String,
    /// Its name: what an instance's description says ("Whoopee Cushion").
    pub name: String,
    /// How many instances of it may exist at once; none: no limit.
    #[serde(default)]
    pub limit: Option<u32>,
}

impl Kind {
    fn is(&self, entity: &str, name: &str) -> bool {
        self.entity.eq_ignore_ascii_case(entity) && same_name(&self.name, name)
    }
}

/// Two names of one kind: any case, spaces around ignored.
fn same_name(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

impl Boon {
    /// Whether the Boon bestows one particular kind of its entity, drawn at
    /// random (a, b).
    pub fn draws_a_kind(&self) -> bool {
        self.random_kind || !self.kinds.is_empty()
    }

    pub fn must_describe(&self) -> bool {
        self.must_describe
            .unwrap_or_else(|| self.text.contains("Must Describe"))
    }

    /// The entity bestowing it creates for `player`, with `description` for a
    /// Must Describe Boon (the Blueprint is "said to be created by the player").
    pub fn entity(&self, player: u32, description: &str) -> Entity {
        let owner = match &self.place {
            Some(place) => Owner::Place(place.clone()),
            None => Owner::Player(player),
        };
        Entity {
            created_by: Some(player),
            value: self.from_treasury.map(|a| format!("A${a}")),
            unique: self.unique,
            ..Entity::new(&self.entity, owner, description)
        }
    }
}

/// The list of §9, with the rule's weights.
pub fn rule_list() -> Vec<Boon> {
    let boon = |key: &str, text: &str, weight: u32, entity: &str| Boon {
        key: key.to_owned(),
        text: text.to_owned(),
        weight,
        entity: entity.to_owned(),
        must_describe: None,
        place: None,
        from_treasury: None,
        unique: false,
        kinds: Vec::new(),
        random_kind: false,
    };
    vec![
        Boon {
            random_kind: true,
            ..boon(
                "a",
                "The player has found an ancient artifact. A random Qualified Gadget, such that no instance limits are exceeded for any particular Gadgets, is bestowed",
                45,
                "Qualified Gadget",
            )
        },
        Boon {
            random_kind: true,
            ..boon(
                "b",
                "The player has found an ancient scroll. A random Otzma Card, all cards having the same probability, such that no instance limits are exceeded for any particular Otzma Card, is bestowed",
                25,
                "Otzma Card",
            )
        },
        boon(
            "c",
            "The gods smile upon the player. 1 Bonus Vote is bestowed",
            10,
            "Bonus Vote",
        ),
        Boon {
            from_treasury: Some(75),
            ..boon(
                "d",
                "An ancient relic. A Trinket of value A$75 which the player Must Describe. In this case, A$75 in the Treasury is transmuted into the Trinket when it is bestowed as above",
                7,
                "Trinket",
            )
        },
        Boon {
            place: Some("Blueprint Archive".to_owned()),
            ..boon(
                "e",
                "Ancient knowledge. A Blueprint is created in the Blueprint Archive (not owned by the player, but said to be created by the player), as described by the player (Must Describe)",
                5,
                "Blueprint",
            )
        },
        Boon {
            place: Some("Otzma Card Rule Suite".to_owned()),
            ..boon(
                "f",
                "Ancient wisdom. An Otzma Card is added to the Otzma Card Rule Suite, which the player Must Describe",
                5,
                "Otzma Card",
            )
        },
        boon(
            "g",
            "The gods are bored. The player is given pointy ears",
            2,
            "pointy ears",
        ),
        Boon {
            unique: true,
            ..boon(
                "h",
                "The gods are grouchy. The Chartreuse Goose is transferred to the player.",
                1,
                "Chartreuse Goose",
            )
        },
    ]
}

/// The sum of the weights: the random officer draws below it.
pub fn total_weight(list: &[Boon]) -> u64 {
    list.iter().map(|b| u64::from(b.weight)).sum()
}

/// §4: the Boon a draw in `0..total_weight` falls on, each Boon taking as many
/// numbers as its weight, in the list's order.
pub fn chosen(list: &[Boon], draw: u64) -> Option<&Boon> {
    let mut left = draw;
    list.iter().find(|boon| {
        let weight = u64::from(boon.weight);
        if left < weight {
            true
        } else {
            left -= weight;
            false
        }
    })
}

/// §3: the Boon a player names, by its letter or its entity, any case.
pub fn named<'a>(list: &'a [Boon], name: &str) -> Option<&'a Boon> {
    let name = name.trim().trim_end_matches(')').trim_start_matches('(');
    list.iter()
        .find(|b| b.key.eq_ignore_ascii_case(name) || b.entity.eq_ignore_ascii_case(name))
}

/// The kinds in force: bot.toml's, then a moderator's `limit` commands in
/// their order, each setting the limit of a kind it names again (any case) or
/// adding a new one. A kind named twice in bot.toml takes the later limit.
pub fn kinds_in_force(configured: &[Kind], set_by_mail: &[Kind]) -> Vec<Kind> {
    let mut kinds: Vec<Kind> = Vec::new();
    for kind in configured.iter().chain(set_by_mail) {
        match kinds.iter_mut().find(|k| k.is(&kind.entity, &kind.name)) {
            Some(known) => {
                known.name = kind.name.clone();
                known.limit = kind.limit;
            }
            None => kinds.push(kind.clone()),
        }
    }
    kinds
}

/// The kinds a Boon draws among, whatever their instances: the kinds in force
/// of its entity, then the list's own `kinds` the table does not name (with
/// no limit). Empty: the bot knows no particular kind of it.
pub fn kinds_of(boon: &Boon, in_force: &[Kind]) -> Vec<Kind> {
    if !boon.draws_a_kind() {
        return Vec::new();
    }
    let mut kinds: Vec<Kind> = in_force
        .iter()
        .filter(|k| k.entity.eq_ignore_ascii_case(&boon.entity))
        .cloned()
        .collect();
    for name in &boon.kinds {
        if !kinds.iter().any(|k| same_name(&k.name, name)) {
            kinds.push(Kind {
                entity: boon.entity.clone(),
                name: name.clone(),
                limit: None,
            });
        }
    }
    kinds
}

/// The instances of a kind that exist: every entity of its entity whose
/// description is its name, wherever it is, except in a place where the list
/// puts its entities ((f)'s "Otzma Card Rule Suite" holds the cards' texts,
/// which the player describes, not instances a player could exceed a limit
/// with).
pub fn instances(kind: &Kind, inventory: &Inventory, list: &[Boon]) -> usize {
    let places: Vec<&str> = list.iter().filter_map(|b| b.place.as_deref()).collect();
    inventory
        .entities
        .iter()
        .filter(|e| {
            e.kind.eq_ignore_ascii_case(&kind.entity) && same_name(&e.description, &kind.name)
        })
        .filter(|e| !matches!(&e.owner, Owner::Place(place) if places.contains(&place.as_str())))
        .count()
}

/// §9 a, b: whether one more instance of the kind exceeds no instance limit:
/// fewer than its limit exist (a limit of 0: none may).
pub fn under_limit(kind: &Kind, inventory: &Inventory, list: &[Boon]) -> bool {
    kind.limit
        .is_none_or(|limit| instances(kind, inventory, list) < limit as usize)
}

/// What a Boon that draws a kind may draw now.
pub enum Lawful {
    /// It draws no kind, or the bot knows none of its entity: the entity is
    /// created as its kind alone (docs/rulings.md).
    NoKinds,
    /// The kinds under their limit, in the table's order.
    Among(Vec<Kind>),
    /// Every kind known is at its limit: "such that no instance limits are
    /// exceeded" cannot be met.
    None,
}

pub fn lawful(boon: &Boon, in_force: &[Kind], inventory: &Inventory, list: &[Boon]) -> Lawful {
    let kinds = kinds_of(boon, in_force);
    if kinds.is_empty() {
        return Lawful::NoKinds;
    }
    let under: Vec<Kind> = kinds
        .into_iter()
        .filter(|k| under_limit(k, inventory, list))
        .collect();
    if under.is_empty() {
        Lawful::None
    } else {
        Lawful::Among(under)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_9_the_rules_list_weighs_100_and_marks_its_must_describe_boons() {
        let list = rule_list();
        assert_eq!(total_weight(&list), 100);
        let must: Vec<&str> = list
            .iter()
            .filter(|b| b.must_describe())
            .map(|b| b.key.as_str())
            .collect();
        assert_eq!(must, ["d", "e", "f"]);
        assert!(list.iter().filter(|b| b.unique).all(|b| b.key == "h"));
    }

    #[test]
    fn section_4_each_boon_is_drawn_in_proportion_to_its_weight() {
        let list = rule_list();
        let mut counts = std::collections::BTreeMap::new();
        for draw in 0..total_weight(&list) {
            *counts
                .entry(chosen(&list, draw).expect("a boon").key.clone())
                .or_insert(0u32) += 1;
        }
        for boon in &list {
            assert_eq!(counts[&boon.key], boon.weight, "{}", boon.key);
        }
        assert!(chosen(&list, 100).is_none());
    }

    #[test]
    fn section_3_a_player_names_a_boon_by_letter_or_entity() {
        let list = rule_list();
        assert_eq!(named(&list, "(c)").map(|b| b.key.as_str()), Some("c"));
        assert_eq!(
            named(&list, "chartreuse goose").map(|b| b.key.as_str()),
            Some("h")
        );
        assert!(named(&list, "z").is_none());
    }

    #[test]
    fn section_9_what_each_boon_creates_and_where() {
        let list = rule_list();
        let trinket = named(&list, "d").unwrap().entity(7, "a brass astrolabe");
        assert_eq!(trinket.owner, Owner::Player(7));
        assert_eq!(trinket.value.as_deref(), Some("A$75"));
        let blueprint = named(&list, "e")
            .unwrap()
            .entity(7, "a perpetual motion engine");
        assert_eq!(blueprint.owner, Owner::Place("Blueprint Archive".into()));
        assert_eq!(blueprint.created_by, Some(7));
    }
}
