//! The entities of the nomic that are not money: Gadgets, Otzma Cards, Bonus
//! Votes, Trinkets, Blueprints, pointy ears, the Chartreuse Goose, buried
//! Treasure. A game creates, transfers and destroys them by events; every one has
//! a number, a kind, an owner and, where the rules ask for one, a description and
//! a value. Under `[nomic]`: `inventory` lists what a player owns; a moderator
//! corrects it (`create`, `transfer`, `destroy`, each with a reason, announced).
//!
//! A unique entity (the Chartreuse Goose) exists at most once: creating it again
//! is refused, and a game that bestows it transfers the one there is.
//!
//! A single-use entity (an Otzma Card, rule 1240: "They can be used only once")
//! is used by its owner under `[nomic]` (`use #N: WHAT IT DOES`): the use
//! destroys it and is announced, and the inventory remembers it so that a
//! second use is refused as such. What the card does is its text, applied by a
//! moderator; the bot guarantees only the once and the announcement.

use serde::{Deserialize, Serialize};

use super::accounts::names_the_treasury;
use super::players::{PlayerId, Registry};
use super::{
    Audience, Ctx, Done, Mail, NotUnderstood, Refusal, Sentence, human_time, split_reason,
    split_verb,
};

/// Where an entity is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Owner {
    Player(PlayerId),
    Treasury,
    /// A place the rules name that is nobody's: the Blueprint Archive, a rule
    /// suite.
    Place(String),
    /// Nobody's and nowhere.
    Unowned,
    /// Buried Treasure by its number (rule 1217): nobody's, not the Treasury's.
    Buried(u32),
}

impl Owner {
    /// Where an entity is, in words: `name` gives a player's name.
    pub fn describe(&self, name: impl Fn(PlayerId) -> Option<String>) -> String {
        match self {
            Owner::Player(id) => name(*id).unwrap_or_else(|| format!("player {id}")),
            Owner::Treasury => "the Treasury".to_owned(),
            Owner::Place(place) => place.clone(),
            Owner::Unowned => "nobody".to_owned(),
            Owner::Buried(number) => format!("buried in Treasure {number}"),
        }
    }
}

/// The kinds no player may hand on, as the shipped rule texts say (bot.toml
/// `[accounts] untradeable_kinds` replaces the list): the Machine That Goes
/// *ping*, whose "location may change only as specified in" rule 1209.
pub const UNTRADEABLE_KINDS: &[&str] = &["The Machine That Goes *ping*"];

/// Whether an entity of `kind` is tradeable, given the untradeable kinds.
pub fn is_tradeable(kind: &str, untradeable: &[String]) -> bool {
    !untradeable
        .iter()
        .any(|k| k.eq_ignore_ascii_case(kind.trim()))
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entity {
    pub id: u32,
    /// As the rules name it: "Qualified Gadget", "Otzma Card", "Trinket".
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub owner: Owner,
    /// The player the rules say created it ("said to be created by the player").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<PlayerId>,
    /// Its value, as the rules state it ("A$75").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default)]
    pub unique: bool,
}

impl Entity {
    /// A new entity of `kind` for `owner`, not unique, with no value or creator
    /// (set those fields as the rules need); numbered when created.
    pub fn new(kind: &str, owner: Owner, description: &str) -> Entity {
        Entity {
            id: 0,
            kind: kind.to_owned(),
            description: description.to_owned(),
            owner,
            created_by: None,
            value: None,
            unique: false,
        }
    }
}

/// The kinds the rules say can be used only once (rule 1240, Otzma Cards).
pub const SINGLE_USE_KINDS: &[&str] = &["Otzma Card"];

pub fn is_single_use(kind: &str) -> bool {
    SINGLE_USE_KINDS
        .iter()
        .any(|k| k.eq_ignore_ascii_case(kind))
}

/// A single-use entity that was used: gone from `entities`, kept here so that a
/// second use is refused with who used it, and what for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Used {
    pub entity: Entity,
    pub by: PlayerId,
    /// What the player said it does.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub what: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Inventory {
    pub entities: Vec<Entity>,
    /// Numbers are never given twice, even after a destruction.
    pub next_id: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub used: Vec<Used>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Created {
        entity: Entity,
        reason: String,
    },
    Transferred {
        id: u32,
        to: Owner,
        reason: String,
    },
    Destroyed {
        id: u32,
        reason: String,
    },
    /// Its owner used a single-use entity: it is destroyed, and remembered.
    Used {
        id: u32,
        by: PlayerId,
        what: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `inventory [NAME]`.
    Show { name: Option<String> },
    /// `create KIND for NAME [: DESCRIPTION] because REASON`.
    Create {
        kind: String,
        name: String,
        description: String,
        reason: String,
    },
    /// `transfer #ID to NAME because REASON` (NAME may be "the Treasury").
    Transfer { id: u32, to: String, reason: String },
    /// `destroy #ID because REASON`.
    Destroy { id: u32, reason: String },
    /// `use [KIND] #ID [: WHAT IT DOES]`, by the owner of a single-use entity.
    Use { id: u32, what: String },
}

fn usage(text: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", text))
}

fn entity_number(word: &str) -> Option<u32> {
    word.trim().trim_start_matches('#').parse().ok()
}

/// Reads an inventory line under `[nomic]`; `None` when the verb is none of its.
pub fn parse(line: &str) -> Option<Result<Command, NotUnderstood>> {
    let (verb, rest) = split_verb(line);
    let rest = rest.trim();
    Some(match verb.as_str() {
        "inventory" => Ok(Command::Show {
            name: (!rest.is_empty()).then(|| rest.to_owned()),
        }),
        "create" => {
            let form = "create KIND for PLAYER [: DESCRIPTION] because REASON";
            split_reason(rest, form).and_then(|(what, reason)| {
                let (what, description) = match what.split_once(':') {
                    Some((what, description)) => (what, description.trim()),
                    None => (what, ""),
                };
                let at = what
                    .to_ascii_lowercase()
                    .rfind(" for ")
                    .ok_or_else(|| usage(form))?;
                let (kind, name) = (what[..at].trim(), what[at + 5..].trim());
                if kind.is_empty() || name.is_empty() {
                    return Err(usage(form));
                }
                Ok(Command::Create {
                    kind: kind.to_owned(),
                    name: name.to_owned(),
                    description: description.to_owned(),
                    reason,
                })
            })
        }
        "transfer" => {
            let form = "transfer #NUMBER to PLAYER because REASON";
            split_reason(rest, form).and_then(|(what, reason)| {
                let (id, to) = what.split_once(" to ").ok_or_else(|| usage(form))?;
                Ok(Command::Transfer {
                    id: entity_number(id).ok_or_else(|| usage(form))?,
                    to: to.trim().to_owned(),
                    reason,
                })
            })
        }
        "destroy" => {
            let form = "destroy #NUMBER because REASON";
            split_reason(rest, form).and_then(|(id, reason)| {
                Ok(Command::Destroy {
                    id: entity_number(id).ok_or_else(|| usage(form))?,
                    reason,
                })
            })
        }
        "use" => {
            let form = "use #NUMBER: WHAT IT DOES";
            let (card, what) = match rest.split_once(':') {
                Some((card, what)) => (card, what.trim()),
                None => (rest, ""),
            };
            // "use Otzma Card #3" reads as "use #3": the number decides.
            card.split_whitespace()
                .last()
                .and_then(entity_number)
                .map(|id| Command::Use {
                    id,
                    what: what.to_owned(),
                })
                .ok_or_else(|| usage(form))
        }
        _ => return None,
    })
}

impl Inventory {
    pub fn get(&self, id: u32) -> Option<&Entity> {
        self.entities.iter().find(|e| e.id == id)
    }

    pub fn owned_by(&self, owner: &Owner) -> impl Iterator<Item = &Entity> {
        self.entities.iter().filter(move |e| e.owner == *owner)
    }

    /// The unique entity of a kind, if it exists (the Chartreuse Goose).
    pub fn unique(&self, kind: &str) -> Option<&Entity> {
        self.entities
            .iter()
            .find(|e| e.unique && e.kind.eq_ignore_ascii_case(kind))
    }

    /// The event creating `new` (numbered next: its `id` is ignored), for a game
    /// to record, or `None`.
    /// A kind that exists as a unique entity is never created again, whoever
    /// asks: a moderator's `create` of a second Chartreuse Goose is refused too.
    pub fn create(&self, new: Entity, reason: &str) -> Option<Event> {
        if self.unique(&new.kind).is_some() {
            return None;
        }
        Some(Event::Created {
            entity: Entity {
                id: self.next_id.max(1),
                ..new
            },
            reason: reason.to_owned(),
        })
    }

    pub fn apply_event(&mut self, event: &Event) {
        match event {
            Event::Created { entity, .. } => {
                self.next_id = self.next_id.max(entity.id.saturating_add(1)).max(2);
                self.entities.push(entity.clone());
            }
            Event::Transferred { id, to, .. } => {
                if let Some(entity) = self.entities.iter_mut().find(|e| e.id == *id) {
                    entity.owner = to.clone();
                }
            }
            Event::Destroyed { id, .. } => self.entities.retain(|e| e.id != *id),
            Event::Used { id, by, what } => {
                if let Some(at) = self.entities.iter().position(|e| e.id == *id) {
                    let entity = self.entities.remove(at);
                    self.used.push(Used {
                        entity,
                        by: *by,
                        what: what.clone(),
                    });
                }
            }
        }
    }

    /// A command under `[nomic]`: anyone reads an inventory; a moderator corrects it.
    pub fn apply(
        &self,
        command: Command,
        ctx: &Ctx,
        players: &Registry,
        is_moderator: bool,
    ) -> Result<Done<Event>, Refusal> {
        let player = |name: &str| {
            players
                .by_name(name)
                .ok_or_else(|| Refusal(Sentence::new("no_such_player").arg("name", name)))
        };
        let owner_of = |name: &str| -> Result<Owner, Refusal> {
            if names_the_treasury(name) {
                Ok(Owner::Treasury)
            } else {
                player(name).map(|p| Owner::Player(p.id))
            }
        };
        let describe =
            |owner: &Owner| owner.describe(|id| players.by_id(id).map(|p| p.name.clone()));
        let listed = |entity: &Entity| {
            serde_json::json!({
                "id": entity.id, "kind": entity.kind, "description": entity.description,
                "value": entity.value, "owner": describe(&entity.owner),
            })
        };
        if let Command::Show { name } = &command {
            let owner = match name {
                Some(name) => owner_of(name)?,
                None => players
                    .active_by_address(&ctx.sender)
                    .map(|p| Owner::Player(p.id))
                    .ok_or_else(|| {
                        Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
                    })?,
            };
            return Ok(Done {
                events: Vec::new(),
                mail: Vec::new(),
                sentence: Sentence::new("inventory_list")
                    .arg("owner", describe(&owner))
                    .arg(
                        "entities",
                        self.owned_by(&owner).map(listed).collect::<Vec<_>>(),
                    )
                    .arg(
                        "buried",
                        self.entities
                            .iter()
                            .filter(|e| matches!(e.owner, Owner::Buried(_)))
                            .map(listed)
                            .collect::<Vec<_>>(),
                    ),
            });
        }
        if let Command::Use { id, what } = command {
            let player = players.active_by_address(&ctx.sender).ok_or_else(|| {
                Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
            })?;
            if let Some(used) = self.used.iter().find(|u| u.entity.id == id) {
                return Err(Refusal(
                    Sentence::new("inventory_used_already")
                        .arg("entity", listed(&used.entity))
                        .arg("by", describe(&Owner::Player(used.by)))
                        .arg("what", &used.what),
                ));
            }
            let entity = self
                .get(id)
                .ok_or_else(|| Refusal(Sentence::new("inventory_no_entity").arg("id", id)))?;
            if entity.owner != Owner::Player(player.id) {
                return Err(Refusal(
                    Sentence::new("inventory_not_yours").arg("entity", listed(entity)),
                ));
            }
            if !is_single_use(&entity.kind) {
                return Err(Refusal(
                    Sentence::new("inventory_not_single_use")
                        .arg("entity", listed(entity))
                        .arg("kinds", SINGLE_USE_KINDS.join(", ")),
                ));
            }
            let values = serde_json::json!({
                "player": player.name, "entity": listed(entity), "what": what,
                "at": human_time(ctx.now),
            });
            return Ok(Done {
                events: vec![Event::Used {
                    id,
                    by: player.id,
                    what,
                }],
                mail: vec![Mail::new(
                    Audience::List,
                    super::players::TAG,
                    "inventory_used",
                    values,
                )],
                sentence: Sentence::new("inventory_card_used").arg("entity", listed(entity)),
            });
        }
        if !is_moderator {
            return Err(Refusal(Sentence::new("moderators_only")));
        }
        let why = |reason: &str| format!("Override by {}: {reason}", ctx.sender);
        let (event, reason) = match command {
            Command::Show { .. } | Command::Use { .. } => unreachable!("answered above"),
            Command::Create {
                kind,
                name,
                description,
                reason,
            } => {
                let owner = owner_of(&name)?;
                let event = self
                    .create(Entity::new(&kind, owner, &description), &why(&reason))
                    .ok_or_else(|| Refusal(Sentence::new("inventory_unique").arg("kind", &kind)))?;
                (event, reason)
            }
            Command::Transfer { id, to, reason } => {
                self.get(id)
                    .ok_or_else(|| Refusal(Sentence::new("inventory_no_entity").arg("id", id)))?;
                let to = owner_of(&to)?;
                (
                    Event::Transferred {
                        id,
                        to,
                        reason: why(&reason),
                    },
                    reason,
                )
            }
            Command::Destroy { id, reason } => {
                self.get(id)
                    .ok_or_else(|| Refusal(Sentence::new("inventory_no_entity").arg("id", id)))?;
                (
                    Event::Destroyed {
                        id,
                        reason: why(&reason),
                    },
                    reason,
                )
            }
        };
        let (what, entity) = match &event {
            Event::Created { entity, .. } => ("created", entity.clone()),
            Event::Transferred { id, to, .. } => {
                let mut entity = self.get(*id).cloned().expect("checked above");
                entity.owner = to.clone();
                ("transferred", entity)
            }
            Event::Destroyed { id, .. } => {
                ("destroyed", self.get(*id).cloned().expect("checked above"))
            }
            Event::Used { .. } => unreachable!("a use is answered above"),
        };
        let values = serde_json::json!({
            "officer": ctx.signature(), "what": what, "entity": listed(&entity),
            "reason": reason, "at": human_time(ctx.now),
        });
        Ok(Done {
            events: vec![event],
            mail: vec![Mail::new(
                Audience::List,
                super::players::TAG,
                "inventory_override",
                values,
            )],
            sentence: Sentence::new("inventory_changed")
                .arg("what", what)
                .arg("entity", listed(&entity)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inventory_commands_read_as_written() {
        assert_eq!(
            parse(
                "create Trinket for Alice: a brass astrolabe because the Boon was bestowed by hand"
            ),
            Some(Ok(Command::Create {
                kind: "Trinket".into(),
                name: "Alice".into(),
                description: "a brass astrolabe".into(),
                reason: "the Boon was bestowed by hand".into(),
            }))
        );
        assert_eq!(
            parse("transfer #3 to the Treasury because lost"),
            Some(Ok(Command::Transfer {
                id: 3,
                to: "the Treasury".into(),
                reason: "lost".into()
            }))
        );
        assert!(matches!(parse("destroy 3"), Some(Err(_))));
        assert_eq!(
            parse("use Otzma Card #4: Bob skips his next turn"),
            Some(Ok(Command::Use {
                id: 4,
                what: "Bob skips his next turn".into()
            }))
        );
        assert_eq!(
            parse("use #4"),
            Some(Ok(Command::Use {
                id: 4,
                what: String::new()
            }))
        );
        assert!(matches!(parse("use the card"), Some(Err(_))));
        assert_eq!(parse("join Alice"), None);
    }

    #[test]
    fn a_unique_entity_exists_once_and_numbers_are_never_reused() {
        let mut inventory = Inventory::default();
        let unique = |kind: &str, owner| Entity {
            unique: true,
            ..Entity::new(kind, owner, "")
        };
        let goose = inventory
            .create(unique("Chartreuse Goose", Owner::Player(1)), "boon")
            .expect("created");
        inventory.apply_event(&goose);
        assert!(
            inventory
                .create(unique("chartreuse goose", Owner::Player(2)), "boon")
                .is_none()
        );
        // Not even as a plain entity of the same kind.
        assert!(
            inventory
                .create(
                    Entity::new("Chartreuse Goose", Owner::Player(2), ""),
                    "by hand"
                )
                .is_none()
        );
        let ears = inventory
            .create(Entity::new("pointy ears", Owner::Player(2), ""), "boon")
            .expect("created");
        inventory.apply_event(&ears);
        inventory.apply_event(&Event::Destroyed {
            id: 1,
            reason: "test".into(),
        });
        let next = inventory
            .create(Entity::new("Bonus Vote", Owner::Player(2), ""), "boon")
            .expect("created");
        let Event::Created { entity, .. } = next else {
            panic!()
        };
        assert_eq!(entity.id, 3);
    }
}
