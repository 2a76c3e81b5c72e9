//! The player registry, under the tag `[nomic]`: who plays, under which name, from
//! which addresses. Pure: commands in, events and mail out; `apply_event` is the
//! only thing that changes the registry.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{
    Address, Audience, Ctx, Done, Mail, NotUnderstood, Refusal, Sentence, Timestamp, human_time,
    split_verb,
};

pub const TAG: &str = "nomic";

/// The numbers of the registry, from `[players]` in bot.toml.
#[derive(Debug, Clone)]
pub struct Params {
    /// How long an alias request waits for its confirmation from the new address.
    pub alias_confirm_hours: u32,
    pub max_name_chars: usize,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            alias_confirm_hours: 72,
            max_name_chars: 40,
        }
    }
}

pub type PlayerId = u32;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Player {
    pub id: PlayerId,
    pub name: String,
    /// The address the player joined from: where private mail goes.
    pub address: Address,
    /// Further confirmed addresses of the same player.
    pub aliases: Vec<Address>,
    pub joined_at: Timestamp,
    /// Set when the player left; a player who left may join again from the same address.
    pub left_at: Option<Timestamp>,
}

impl Player {
    pub fn is_active(&self) -> bool {
        self.left_at.is_none()
    }

    pub fn has_address(&self, address: &Address) -> bool {
        &self.address == address || self.aliases.contains(address)
    }
}

/// An `alias` request waiting for the new address to confirm it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingAlias {
    pub player: PlayerId,
    pub address: Address,
    pub requested_at: Timestamp,
    pub expires_at: Timestamp,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Registry {
    pub players: Vec<Player>,
    pub pending_aliases: Vec<PendingAlias>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Joined {
        id: PlayerId,
        name: String,
        address: Address,
    },
    Rejoined {
        id: PlayerId,
        name: String,
    },
    Left {
        id: PlayerId,
    },
    Renamed {
        id: PlayerId,
        name: String,
    },
    AliasRequested {
        id: PlayerId,
        address: Address,
        expires_at: Timestamp,
    },
    AliasConfirmed {
        id: PlayerId,
        address: Address,
    },
    AliasExpired {
        id: PlayerId,
        address: Address,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Join { name: String },
    Leave,
    Rename { name: String },
    Alias { address: Address },
    Confirm,
    Players,
}

/// Reads one `[nomic]` command line.
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    let usage = |usage: &str| NotUnderstood(Sentence::new("usage").arg("usage", usage));
    match verb.as_str() {
        "join" if !rest.is_empty() => Ok(Command::Join {
            name: rest.to_owned(),
        }),
        "join" => Err(usage("join NAME")),
        "leave" if rest.is_empty() => Ok(Command::Leave),
        "leave" => Err(usage("leave")),
        "rename" if !rest.is_empty() => Ok(Command::Rename {
            name: rest.to_owned(),
        }),
        "rename" => Err(usage("rename NAME")),
        "alias" if !rest.is_empty() && !rest.contains(char::is_whitespace) => Ok(Command::Alias {
            address: Address::new(rest.trim_matches(|c| c == '<' || c == '>')),
        }),
        "alias" => Err(usage("alias ADDRESS")),
        "confirm" if rest.is_empty() || rest.eq_ignore_ascii_case("alias") => Ok(Command::Confirm),
        "confirm" => Err(usage("confirm")),
        "players" | "roster" if rest.is_empty() => Ok(Command::Players),
        _ => Err(NotUnderstood(
            Sentence::new("unknown_command").arg("tag", TAG).arg(
                "commands",
                "join NAME, leave, rename NAME, alias ADDRESS, confirm, players, help",
            ),
        )),
    }
}

impl Registry {
    /// The player (active or not) known by this address, main or alias.
    pub fn by_address(&self, address: &Address) -> Option<&Player> {
        self.players.iter().find(|p| p.has_address(address))
    }

    pub fn active_by_address(&self, address: &Address) -> Option<&Player> {
        self.by_address(address).filter(|p| p.is_active())
    }

    pub fn by_id(&self, id: PlayerId) -> Option<&Player> {
        self.players.iter().find(|p| p.id == id)
    }

    pub fn active(&self) -> impl Iterator<Item = &Player> {
        self.players.iter().filter(|p| p.is_active())
    }

    fn name_taken_by_other(&self, name: &str, me: Option<PlayerId>) -> Option<&Player> {
        self.active()
            .find(|p| Some(p.id) != me && p.name.to_lowercase() == name.to_lowercase())
    }

    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Joined { id, name, address } => self.players.push(Player {
                id: *id,
                name: name.clone(),
                address: address.clone(),
                aliases: Vec::new(),
                joined_at: at,
                left_at: None,
            }),
            Event::Rejoined { id, name } => {
                if let Some(player) = self.players.iter_mut().find(|p| p.id == *id) {
                    player.name = name.clone();
                    player.joined_at = at;
                    player.left_at = None;
                }
            }
            Event::Left { id } => {
                if let Some(player) = self.players.iter_mut().find(|p| p.id == *id) {
                    player.left_at = Some(at);
                }
                self.pending_aliases.retain(|pending| pending.player != *id);
            }
            Event::Renamed { id, name } => {
                if let Some(player) = self.players.iter_mut().find(|p| p.id == *id) {
                    player.name = name.clone();
                }
            }
            Event::AliasRequested {
                id,
                address,
                expires_at,
            } => {
                self.pending_aliases
                    .retain(|pending| &pending.address != address);
                self.pending_aliases.push(PendingAlias {
                    player: *id,
                    address: address.clone(),
                    requested_at: at,
                    expires_at: *expires_at,
                });
            }
            Event::AliasConfirmed { id, address } => {
                self.pending_aliases
                    .retain(|pending| &pending.address != address);
                if let Some(player) = self.players.iter_mut().find(|p| p.id == *id) {
                    player.aliases.push(address.clone());
                }
            }
            Event::AliasExpired { address, .. } => {
                self.pending_aliases
                    .retain(|pending| &pending.address != address);
            }
        }
    }

    /// Carries out one command. On `Err` nothing happened.
    pub fn apply(
        &self,
        command: Command,
        ctx: &Ctx,
        params: &Params,
    ) -> Result<Done<Event>, Refusal> {
        let me = self.by_address(&ctx.sender);
        let active_me = me.filter(|p| p.is_active());
        let not_a_player =
            || Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()));
        match command {
            Command::Join { name } => {
                if let Some(player) = active_me {
                    return Err(Sentence::new("already_playing")
                        .arg("name", &player.name)
                        .into());
                }
                let name = self.check_name(&name, None, params)?;
                let (event, id) = match me {
                    Some(former) => (
                        Event::Rejoined {
                            id: former.id,
                            name: name.clone(),
                        },
                        former.id,
                    ),
                    None => {
                        let id = self.players.iter().map(|p| p.id).max().unwrap_or(0) + 1;
                        (
                            Event::Joined {
                                id,
                                name: name.clone(),
                                address: ctx.sender.clone(),
                            },
                            id,
                        )
                    }
                };
                let n_players = self.active().count() + 1;
                Ok(Done {
                    events: vec![event],
                    mail: vec![Mail::new(
                        Audience::List,
                        TAG,
                        "player_joined",
                        json!({ "name": name, "id": id, "at": human_time(ctx.now), "n_players": n_players }),
                    )],
                    sentence: Sentence::new("joined").arg("name", name),
                })
            }
            Command::Leave => {
                let player = active_me.ok_or_else(not_a_player)?;
                let n_players = self.active().count() - 1;
                Ok(Done {
                    events: vec![Event::Left { id: player.id }],
                    mail: vec![Mail::new(
                        Audience::List,
                        TAG,
                        "player_left",
                        json!({ "name": player.name, "at": human_time(ctx.now), "n_players": n_players }),
                    )],
                    sentence: Sentence::new("left").arg("name", &player.name),
                })
            }
            Command::Rename { name } => {
                let player = active_me.ok_or_else(not_a_player)?;
                let name = self.check_name(&name, Some(player.id), params)?;
                if name == player.name {
                    return Err(Sentence::new("same_name").arg("name", name).into());
                }
                Ok(Done {
                    events: vec![Event::Renamed {
                        id: player.id,
                        name: name.clone(),
                    }],
                    mail: vec![Mail::new(
                        Audience::List,
                        TAG,
                        "player_renamed",
                        json!({ "old_name": player.name, "new_name": name, "at": human_time(ctx.now) }),
                    )],
                    sentence: Sentence::new("renamed").arg("name", name),
                })
            }
            Command::Alias { address } => {
                let player = active_me.ok_or_else(not_a_player)?;
                if !address.looks_valid() {
                    return Err(Sentence::new("bad_address")
                        .arg("address", address.as_str())
                        .into());
                }
                if let Some(owner) = self.by_address(&address) {
                    return Err(Sentence::new("address_in_use")
                        .arg("address", address.as_str())
                        .arg("name", &owner.name)
                        .into());
                }
                let expires_at = ctx
                    .now
                    .checked_add(jiff::SignedDuration::from_hours(i64::from(
                        params.alias_confirm_hours,
                    )))
                    .unwrap_or(ctx.now);
                Ok(Done {
                    events: vec![Event::AliasRequested {
                        id: player.id,
                        address: address.clone(),
                        expires_at,
                    }],
                    mail: vec![Mail::new(
                        Audience::Address(address.clone()),
                        TAG,
                        "alias_confirm_request",
                        json!({
                            "name": player.name,
                            "address": address,
                            "main_address": player.address,
                            "expires": human_time(expires_at),
                        }),
                    )],
                    sentence: Sentence::new("alias_requested")
                        .arg("address", address.as_str())
                        .arg("expires", human_time(expires_at)),
                })
            }
            Command::Confirm => {
                let pending = self
                    .pending_aliases
                    .iter()
                    .find(|pending| pending.address == ctx.sender)
                    .ok_or_else(|| {
                        Refusal(
                            Sentence::new("no_pending_alias").arg("address", ctx.sender.as_str()),
                        )
                    })?;
                let player = self
                    .by_id(pending.player)
                    .filter(|p| p.is_active())
                    .ok_or_else(not_a_player)?;
                Ok(Done {
                    events: vec![Event::AliasConfirmed {
                        id: player.id,
                        address: ctx.sender.clone(),
                    }],
                    mail: vec![Mail::new(
                        Audience::Address(player.address.clone()),
                        TAG,
                        "alias_confirmed",
                        json!({ "name": player.name, "address": ctx.sender }),
                    )],
                    sentence: Sentence::new("alias_confirmed")
                        .arg("address", ctx.sender.as_str())
                        .arg("name", &player.name),
                })
            }
            Command::Players => Ok(Done {
                events: Vec::new(),
                mail: Vec::new(),
                sentence: Sentence::new("roster").arg("players", self.roster()),
            }),
        }
    }

    /// The active players, for the roster and `state`.
    pub fn roster(&self) -> Vec<serde_json::Value> {
        self.active()
            .map(|p| {
                json!({
                    "name": p.name,
                    "address": p.address,
                    "aliases": p.aliases,
                    "joined": human_time(p.joined_at),
                })
            })
            .collect()
    }

    fn check_name(
        &self,
        name: &str,
        me: Option<PlayerId>,
        params: &Params,
    ) -> Result<String, Refusal> {
        let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
        let allowed = |c: char| c.is_alphanumeric() || " -_.'".contains(c);
        if name.chars().count() > params.max_name_chars || !name.chars().all(allowed) {
            return Err(Sentence::new("bad_name")
                .arg("name", &name)
                .arg("max", params.max_name_chars)
                .into());
        }
        if let Some(other) = self.name_taken_by_other(&name, me) {
            return Err(Sentence::new("name_taken").arg("name", &other.name).into());
        }
        Ok(name)
    }

    /// The earliest moment something must happen without any mail: an alias request expiring.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        self.pending_aliases
            .iter()
            .map(|pending| pending.expires_at)
            .min()
    }

    /// Everything due at `now`: expired alias requests are dropped and the player told.
    pub fn tick(&self, now: Timestamp) -> (Vec<Event>, Vec<Mail>) {
        let mut events = Vec::new();
        let mut mail = Vec::new();
        for pending in self.pending_aliases.iter().filter(|p| p.expires_at <= now) {
            events.push(Event::AliasExpired {
                id: pending.player,
                address: pending.address.clone(),
            });
            if let Some(player) = self.by_id(pending.player) {
                mail.push(Mail::new(
                    Audience::Address(player.address.clone()),
                    TAG,
                    "alias_expired",
                    json!({ "name": player.name, "address": pending.address, "requested": human_time(pending.requested_at) }),
                ));
            }
        }
        (events, mail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(sender: &str, minutes: i64) -> Ctx {
        Ctx {
            now: Timestamp::from_second(1_800_000_000 + minutes * 60).unwrap(),
            sender: Address::new(sender),
            sender_name: None,
            public: true,
        }
    }

    /// Applies a line as the shell would, and returns the mail it asked for.
    fn run(registry: &mut Registry, line: &str, ctx: &Ctx) -> Result<Vec<Mail>, Refusal> {
        let command = parse(line).map_err(|NotUnderstood(s)| Refusal(s))?;
        let done = registry.apply(command, ctx, &Params::default())?;
        for event in &done.events {
            registry.apply_event(event, ctx.now);
        }
        Ok(done.mail)
    }

    #[test]
    fn join_announces_and_refuses_a_second_join() {
        let mut registry = Registry::default();
        let mail = run(&mut registry, "join Alice", &ctx("Alice@Example.org", 0)).unwrap();
        assert_eq!(mail[0].to, Audience::List);
        assert_eq!(mail[0].template, "player_joined");
        let again = run(&mut registry, "join Alice", &ctx("alice@example.org", 1)).unwrap_err();
        assert_eq!(again.0.code, "already_playing");
        let taken = run(&mut registry, "join alice", &ctx("other@example.org", 2)).unwrap_err();
        assert_eq!(taken.0.code, "name_taken");
    }

    #[test]
    fn leave_then_join_again_keeps_the_player_id() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        run(&mut registry, "leave", &ctx("a@x.org", 1)).unwrap();
        assert_eq!(registry.active().count(), 0);
        assert_eq!(
            run(&mut registry, "leave", &ctx("a@x.org", 2))
                .unwrap_err()
                .0
                .code,
            "not_a_player"
        );
        run(&mut registry, "join Alicia", &ctx("a@x.org", 3)).unwrap();
        assert_eq!(registry.players.len(), 1);
        assert_eq!(registry.players[0].name, "Alicia");
    }

    #[test]
    fn alias_needs_confirmation_from_the_new_address_and_expires() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        let mail = run(&mut registry, "alias a2@y.org", &ctx("a@x.org", 1)).unwrap();
        assert_eq!(mail[0].to, Audience::Address(Address::new("a2@y.org")));
        // Someone else cannot confirm it.
        assert_eq!(
            run(&mut registry, "confirm", &ctx("mallory@z.org", 2))
                .unwrap_err()
                .0
                .code,
            "no_pending_alias"
        );
        run(&mut registry, "confirm", &ctx("A2@y.org", 3)).unwrap();
        assert_eq!(
            registry
                .active_by_address(&Address::new("a2@y.org"))
                .unwrap()
                .name,
            "Alice"
        );

        run(&mut registry, "alias a3@y.org", &ctx("a2@y.org", 4)).unwrap();
        let deadline = registry.next_deadline().unwrap();
        assert_eq!(
            deadline,
            ctx("", 4).now + jiff::SignedDuration::from_hours(72)
        );
        let (events, mail) = registry.tick(deadline);
        assert_eq!(events.len(), 1);
        assert_eq!(mail[0].template, "alias_expired");
    }

    #[test]
    fn bad_names_and_addresses_are_refused_with_the_reason() {
        let mut registry = Registry::default();
        let long = "x".repeat(41);
        assert_eq!(
            run(&mut registry, &format!("join {long}"), &ctx("a@x.org", 0))
                .unwrap_err()
                .0
                .code,
            "bad_name"
        );
        assert_eq!(
            run(&mut registry, "join <script>", &ctx("a@x.org", 0))
                .unwrap_err()
                .0
                .code,
            "bad_name"
        );
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        assert_eq!(
            run(&mut registry, "alias nonsense", &ctx("a@x.org", 1))
                .unwrap_err()
                .0
                .code,
            "bad_address"
        );
        assert!(parse("dance").is_err());
        assert!(parse("join").is_err());
    }
}
