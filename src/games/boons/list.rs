//! Rule 1211/3 §9, the Boon list, as data (`[[boons.list]]` in bot.toml: the
//! rule's list is the default, weights summing to anything), and §4's random
//! method: "the probability of receiving a particular Boon on the list is the
//! number in parentheses after that Boon divided by the sum".

use serde::{Deserialize, Serialize};

use crate::engine::inventory::{Entity, Owner};

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
    /// The particular kinds a random one is drawn from, all equally likely (a:
    /// "A random Qualified Gadget", b: "A random Otzma Card"). The texts list
    /// none: empty, the entity is created as its kind alone (docs/rulings.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<String>,
}

impl Boon {
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
    };
    vec![
        boon(
            "a",
            "The player has found an ancient artifact. A random Qualified Gadget, such that no instance limits are exceeded for any particular Gadgets, is bestowed",
            45,
            "Qualified Gadget",
        ),
        boon(
            "b",
            "The player has found an ancient scroll. A random Otzma Card, all cards having the same probability, such that no instance limits are exceeded for any particular Otzma Card, is bestowed",
            25,
            "Otzma Card",
        ),
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
