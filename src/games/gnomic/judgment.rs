//! Judgment (rules 212, 373) and meta-amendments (rule 401), as pure decisions
//! over the order of play and the votes: who is the Judge, what the fees come
//! to, and which hack of a tree of meta-amendments takes effect. The game keeps
//! the record; these functions decide.

use serde::{Deserialize, Serialize};

/// The numbers of rule 373, with the text's values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Fees {
    /// "will instantly lose 20 points".
    pub invoke: i64,
    /// "If the Judge agrees with him, the player will earn 30 points."
    pub upheld: i64,
    /// "If he accused a player, this player will lose 30 points."
    pub accused: i64,
    /// "None of these losses will apply if the player has got less than 30 points".
    pub exempt_below: i64,
}

impl Default for Fees {
    fn default() -> Fees {
        Fees {
            invoke: 20,
            upheld: 30,
            accused: 30,
            exempt_below: 30,
        }
    }
}

/// Rule 212: the Judge is "the player preceding the one moving"; each overrule
/// passes the question to the player preceding the last Judge, "except that no
/// player is to be Judge during his or her own turn". `order` is the order of
/// play (names), `mover` the player whose turn it is, `overruled` how many Judges
/// were overruled on this question. `None` when no player is left to judge.
pub fn judge<'a>(order: &'a [String], mover: &str, overruled: usize) -> Option<&'a str> {
    let at = order.iter().position(|p| p == mover)?;
    let n = order.len();
    // The players before the mover, nearest first; the mover never judges.
    (1..n)
        .map(|back| order[(at + n - back) % n].as_str())
        .nth(overruled)
}

/// What rule 373 moves, player by player, as (name, change in points).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeeChanges {
    pub changes: Vec<(String, i64)>,
    /// Why a loss was not applied, if one was not.
    pub exempt: Option<Exemption>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exemption {
    /// "if the player has got less than 30 points".
    FewPoints,
    /// "or if the loss would cause any other player to win the game".
    WouldMakeAWinner,
}

/// The fee on invoking Judgment (rule 373), charged at once: the invoker loses
/// `invoke` points unless ey has fewer than `exempt_below`, or the loss would
/// make another player win (every other score at or above `threshold`, the n of
/// rule 310 after the loss; the caller passes n as it would be after it).
pub fn invoking(
    fees: &Fees,
    invoker: &str,
    invoker_score: i64,
    others_reach_threshold_after: bool,
) -> FeeChanges {
    if invoker_score < fees.exempt_below {
        return FeeChanges {
            changes: Vec::new(),
            exempt: Some(Exemption::FewPoints),
        };
    }
    if others_reach_threshold_after {
        return FeeChanges {
            changes: Vec::new(),
            exempt: Some(Exemption::WouldMakeAWinner),
        };
    }
    FeeChanges {
        changes: vec![(invoker.to_owned(), -fees.invoke)],
        exempt: None,
    }
}

/// When the Judge has ruled (rule 373): the invoker earns `upheld` if the Judge
/// agrees with em, and the player ey accused loses `accused` unless that loss is
/// exempt as above (`accused_exempt` says which, from the accused's score).
pub fn ruled(
    fees: &Fees,
    invoker: &str,
    agreed: bool,
    accused: Option<(&str, Option<Exemption>)>,
) -> FeeChanges {
    let mut changes = Vec::new();
    let mut exempt = None;
    if agreed {
        changes.push((invoker.to_owned(), fees.upheld));
        if let Some((name, exemption)) = accused {
            match exemption {
                None => changes.push((name.to_owned(), -fees.accused)),
                Some(why) => exempt = Some(why),
            }
        }
    }
    FeeChanges { changes, exempt }
}

/// Rule 212: "The Judge's Judgment may be overruled only by a unanimous vote of
/// the other players": every player but the Judge votes to overrule.
pub fn overruled(players: &[String], judge: &str, voting_to_overrule: &[String]) -> bool {
    players
        .iter()
        .filter(|p| *p != judge)
        .all(|p| voting_to_overrule.contains(p))
        && players.iter().any(|p| p != judge)
}

/// One hack in a tree of meta-amendments (rule 401), as counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub number: u32,
    /// The hack it meta-amends; `None` for a proposal.
    pub parent: Option<u32>,
    pub adopted: bool,
    /// Votes in favour, to choose between two adopted meta-amendments of one hack.
    pub favour: u32,
}

/// Rule 401: "The meta-amendment will take effect instead of the original
/// amendment if both the meta-amendment and the amendment it is about are
/// adopted." Follows the tree down from an adopted proposal: at each hack, an
/// adopted meta-amendment of it takes effect instead, and so on. Two adopted
/// meta-amendments of one hack: the one with more votes in favour, then the one
/// posted first (the rule is silent; docs/rulings.md). `None` when the proposal
/// failed.
pub fn taking_effect(nodes: &[Node], proposal: u32) -> Option<u32> {
    let root = nodes.iter().find(|n| n.number == proposal)?;
    if !root.adopted {
        return None;
    }
    let mut current = root.number;
    loop {
        let next = nodes
            .iter()
            .filter(|n| n.parent == Some(current) && n.adopted)
            .max_by(|a, b| a.favour.cmp(&b.favour).then(b.number.cmp(&a.number)));
        match next {
            Some(node) => current = node.number,
            None => return Some(current),
        }
    }
}

/// The level kappa of a meta-amendment (rule 421): 1 for one of a proposal, 2
/// for one of a meta-amendment, ...; 0 for a proposal.
pub fn level(nodes: &[Node], number: u32) -> u32 {
    let mut level = 0;
    let mut at = nodes.iter().find(|n| n.number == number);
    while let Some(node) = at.and_then(|n| n.parent) {
        level += 1;
        at = nodes.iter().find(|n| n.number == node);
    }
    level
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order() -> Vec<String> {
        ["Alice", "Bob", "Carol", "Dave"].map(String::from).to_vec()
    }

    #[test]
    fn rule_212_the_judge_is_the_player_preceding_the_mover_and_then_the_one_before() {
        let order = order();
        assert_eq!(judge(&order, "Carol", 0), Some("Bob"));
        assert_eq!(judge(&order, "Alice", 0), Some("Dave"));
        // Overruled once, twice: further back, never the mover.
        assert_eq!(judge(&order, "Carol", 1), Some("Alice"));
        assert_eq!(judge(&order, "Carol", 2), Some("Dave"));
        assert_eq!(judge(&order, "Carol", 3), None);
        assert_eq!(judge(&order, "Zed", 0), None);
    }

    #[test]
    fn rule_212_an_overrule_needs_every_other_player() {
        let order = order();
        let all = ["Alice", "Carol", "Dave"].map(String::from);
        assert!(overruled(&order, "Bob", &all));
        assert!(!overruled(&order, "Bob", &all[..2]));
    }

    #[test]
    fn rule_373_invoking_judgment_costs_20_unless_exempt_and_an_upheld_claim_earns_30() {
        let fees = Fees::default();
        assert_eq!(
            invoking(&fees, "Alice", 50, false).changes,
            [("Alice".to_owned(), -20)]
        );
        assert_eq!(
            invoking(&fees, "Alice", 29, false).exempt,
            Some(Exemption::FewPoints)
        );
        assert_eq!(
            invoking(&fees, "Alice", 50, true).exempt,
            Some(Exemption::WouldMakeAWinner)
        );
        assert_eq!(
            ruled(&fees, "Alice", true, Some(("Bob", None))).changes,
            [("Alice".to_owned(), 30), ("Bob".to_owned(), -30)]
        );
        assert_eq!(
            ruled(
                &fees,
                "Alice",
                true,
                Some(("Bob", Some(Exemption::FewPoints)))
            )
            .changes,
            [("Alice".to_owned(), 30)]
        );
        assert!(
            ruled(&fees, "Alice", false, Some(("Bob", None)))
                .changes
                .is_empty()
        );
    }

    #[test]
    fn rule_401_an_adopted_meta_amendment_takes_effect_instead_of_what_it_amends() {
        let node = |number, parent, adopted, favour| Node {
            number,
            parent,
            adopted,
            favour,
        };
        let tree = [
            node(441, None, true, 3),
            node(442, Some(441), true, 2),
            node(443, Some(442), false, 1),
            node(444, Some(441), true, 3),
            node(445, None, false, 1),
            node(446, Some(445), true, 4),
        ];
        // 444 has more votes than 442 among 441's adopted meta-amendments.
        assert_eq!(taking_effect(&tree, 441), Some(444));
        // A failed proposal takes nothing into effect, whatever its meta-amendments.
        assert_eq!(taking_effect(&tree, 445), None);
        assert_eq!(level(&tree, 443), 2);
        assert_eq!(level(&tree, 441), 0);
    }
}
