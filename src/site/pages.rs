//! Every file of the site, rendered from the record: each page's values are
//! made here, its words and markup are in `templates/site/`. A page is a file
//! name and its bytes; which of them changed is the writer's business.

use std::collections::BTreeMap;

use jiff::Timestamp;
use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value as Jinja};
use serde_json::{Value, json};

use crate::engine::game::View;
use crate::engine::{Address, human_time};
use crate::games::{self, Registered, Visit, each_game};
use crate::pipeline::Bot;

use super::kept::{RANDOM, RULESET, SEALED};
use super::record::{Announcement, Record};
use super::{SiteError, diff, feeds, html, plots};

/// A game's page, by the game's name.
pub fn game_page(game: &str) -> String {
    format!("game-{}.html", slug(game))
}

fn player_page(id: u64) -> String {
    format!("player-{id}.html")
}

/// A name as a file name: letters and digits, the rest `-`.
pub fn slug(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// The site's templates: the operator's `templates/site/` where a file is there,
/// the shipped one otherwise (a templates folder written before the site was).
fn environment(bot: &Bot) -> Environment<'static> {
    let dir = bot.config.resolve(&bot.config.bot.templates);
    let mut env = Environment::new();
    env.set_loader(move |name: &str| {
        if let Ok(text) = std::fs::read_to_string(dir.join(name)) {
            return Ok(Some(text));
        }
        Ok(crate::templates::DEFAULTS
            .iter()
            .find(|(shipped, _)| *shipped == name)
            .map(|(_, text)| (*text).to_owned()))
    });
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    // minijinja's HTML escaping writes `/` as `&#x2f;`: right, but a page's
    // addresses then read badly in its source. The five characters that matter.
    env.set_formatter(|out, state, value| match value.as_str() {
        Some(text) if matches!(state.auto_escape(), AutoEscape::Html) && !value.is_safe() => out
            .write_str(&html::escape(text))
            .map_err(|_| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, "cannot write")),
        _ => minijinja::escape_formatter(out, state, value),
    });
    // The files end in `.txt` like every template; the pages are HTML all the same.
    env.set_auto_escape_callback(|name| {
        if name.ends_with(".html.txt") {
            AutoEscape::Html
        } else {
            AutoEscape::None
        }
    });
    env
}

fn render_template(
    env: &Environment<'_>,
    name: &str,
    values: &Value,
) -> Result<Vec<u8>, SiteError> {
    let file = format!("site/{name}.txt");
    env.get_template(&file)
        .and_then(|template| template.render(Jinja::from(minijinja::value::Serde(values))))
        .map(String::into_bytes)
        .map_err(|source| SiteError::Template { name: file, source })
}

/// An instant in UTC and on the nomic's clock.
fn when(bot: &Bot, at: Timestamp) -> Value {
    json!({
        "utc": human_time(at),
        "local": bot.params().setting.calendar.local_time(at),
        "iso": at.to_string(),
    })
}

/// The files a build renders, and the names of every file the site has.
pub struct Files {
    pub rendered: Vec<(String, Vec<u8>)>,
    pub all: std::collections::BTreeSet<String>,
}

/// A page of a history: the whole record's (`record-N.html`) or a game's.
fn history_page(game: Option<&str>, number: i64) -> String {
    match game {
        Some(game) => format!("game-{}-history-{number}.html", slug(game)),
        None => format!("record-{number}.html"),
    }
}

/// The pages of a history of `count` announcements, oldest first.
fn history_pages(game: Option<&str>, count: i64, page: i64) -> Vec<Value> {
    (1..=super::page_of(count.max(0), page).max(0))
        .filter(|_| count > 0)
        .map(|number| {
            let first = (number - 1) * page + 1;
            json!({
                "file": history_page(game, number),
                "number": number,
                "first": first,
                "last": (first + page - 1).min(count),
            })
        })
        .collect()
}

/// A page of archived history: `sealed-N.html`, `random-N.html`.
fn archive_page(kind: &str, number: i64) -> String {
    format!("{kind}-{number}.html")
}

/// The pages of `count` archived items of `kind`, oldest first.
fn archive_pages(kind: &str, count: i64, page: i64) -> Vec<Value> {
    history_pages(None, count, page)
        .into_iter()
        .map(|mut p| {
            p["file"] = json!(archive_page(kind, p["number"].as_i64().unwrap_or_default()));
            p
        })
        .collect()
}

/// The files of the site `plan` asks for, by name, in a fixed order: the pages
/// of the present always, of the history and the plots only where they changed.
pub fn render(bot: &Bot, record: &Record, plan: &super::Plan) -> Result<Files, SiteError> {
    let env = environment(bot);
    let mut site = Site::new(bot, record);
    let mut files = Vec::new();
    let mut all: std::collections::BTreeSet<String> = Default::default();
    files.push((
        "style.css".to_owned(),
        render_template(&env, "style.css", &json!({}))?,
    ));
    let names: BTreeMap<u32, String> = site
        .players
        .iter()
        .filter_map(|p| {
            Some((
                u32::try_from(p["id"].as_u64()?).ok()?,
                p["name"].as_str()?.to_owned(),
            ))
        })
        .collect();
    let name_of = |id: u32| {
        names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| "a former player".to_owned())
    };
    let mut plots = plots::balances(record, &name_of, &|file| plan.plot(record, file))?;
    site.plots = plots
        .iter()
        .map(|plot| json!({ "file": plot.file, "title": plot.title, "alt": plot.alt }))
        .collect();
    let score_plots = plots::scores(record, &name_of, &|file| plan.plot(record, file))?;
    site.score_plots = score_plots
        .iter()
        .map(|(game, plot)| {
            (
                game.clone(),
                json!({ "file": plot.file, "title": plot.title, "alt": plot.alt }),
            )
        })
        .collect();
    plots.extend(score_plots.into_iter().map(|(_, plot)| plot));
    for plot in plots {
        all.insert(plot.file.clone());
        if let Some(svg) = plot.svg {
            files.push((plot.file, svg));
        }
    }
    files.push((
        "index.html".to_owned(),
        render_template(&env, "index.html", &site.index())?,
    ));
    let mut latest: Vec<Value> = record.latest.iter().map(|a| site.announcement(a)).collect();
    latest.reverse();
    latest.truncate(super::LATEST as usize);
    files.push((
        "record.html".to_owned(),
        render_template(
            &env,
            "record.html",
            &site.dated_page(
                "The whole record",
                json!({
                    "announcements": latest,
                    "pages": history_pages(None, record.kept.announced, plan.page),
                }),
            ),
        )?,
    ));
    let reader = super::record::Reader::new(bot);
    let history = |game: Option<&str>, number: i64, files: &mut Vec<_>| {
        let first = (number - 1) * plan.page + 1;
        let announcements: Vec<Value> = reader
            .read(bot, game, first, first + plan.page - 1)?
            .iter()
            .map(|a| site.announcement(a))
            .collect();
        let title = match game {
            Some(game) => format!("Game: {game}, history page {number}"),
            None => format!("The whole record, page {number}"),
        };
        let values = site.page(
            &title,
            json!({
                "announcements": announcements,
                "up": game.map_or("record.html".to_owned(), game_page),
            }),
        );
        files.push((
            history_page(game, number),
            render_template(&env, "history.html", &values)?,
        ));
        Ok::<_, SiteError>(())
    };
    for page in history_pages(None, record.kept.announced, plan.page) {
        all.insert(page["file"].as_str().unwrap_or_default().to_owned());
    }
    for (game, count) in &record.kept.game_counts {
        for page in history_pages(Some(game), *count, plan.page) {
            all.insert(page["file"].as_str().unwrap_or_default().to_owned());
        }
    }
    for &number in &plan.record_pages {
        history(None, number, &mut files)?;
    }
    for (game, numbers) in &plan.game_pages {
        for &number in numbers {
            history(Some(game), number, &mut files)?;
        }
    }
    for game in &mut site.games {
        // The drawings are files of their own; the page keeps file and words.
        for picture in game["pictures"].as_array_mut().into_iter().flatten() {
            let svg = picture["svg"].take();
            if let (Some(file), Some(svg)) = (picture["file"].as_str(), svg.as_str()) {
                files.push((file.to_owned(), svg.as_bytes().to_vec()));
            }
        }
    }
    for game in &site.games {
        let name = game["name"].as_str().unwrap_or_default().to_owned();
        let values = site.game(&name);
        files.push((
            game_page(&name),
            render_template(&env, "game.html", &values)?,
        ));
    }
    for player in &site.players {
        let id = player["id"].as_u64().unwrap_or_default();
        files.push((
            player_page(id),
            render_template(&env, "player.html", &site.player(player))?,
        ));
    }
    // The parts of the shared world have pages of their own, rendered only
    // when an event of their kind was folded in: the ruleset whole (its past
    // versions are the live rules' too), the random officer's and the sealed
    // box's present, with their finished history in pages of the archive of
    // which only those that new items fall on are rendered.
    all.insert("ruleset.html".to_owned());
    if plan.part(record, RULESET) {
        files.push((
            "ruleset.html".to_owned(),
            render_template(&env, "ruleset.html", &site.ruleset())?,
        ));
    }
    for kind in [RANDOM, SEALED] {
        let count = record.kept.archived.get(kind).copied().unwrap_or(0);
        let pages = archive_pages(kind, count, plan.page);
        all.insert(format!("{kind}.html"));
        all.extend(
            pages
                .iter()
                .map(|p| p["file"].as_str().unwrap_or_default().to_owned()),
        );
        let template = format!("{kind}.html");
        if plan.part(record, kind) {
            let present = match kind {
                RANDOM => site.random(&[], pages, None),
                _ => site.sealed(&[], pages, None),
            };
            files.push((
                template.clone(),
                render_template(&env, &template, &present)?,
            ));
        }
        for &number in plan.archive_pages.get(kind).into_iter().flatten() {
            let first = (number - 1) * plan.page + 1;
            let items: Vec<Value> = bot
                .store
                .site_archive(&plan.dir, kind, first, first + plan.page - 1)?
                .iter()
                .filter_map(|item| serde_json::from_str(item).ok())
                .collect();
            let values = match kind {
                RANDOM => site.random(&items, Vec::new(), Some(number)),
                _ => site.sealed(&items, Vec::new(), Some(number)),
            };
            files.push((
                archive_page(kind, number),
                render_template(&env, &template, &values)?,
            ));
        }
    }
    let (feeds, feed_names) = feeds::all(bot, record, &site.deadlines, plan)?;
    files.extend(feeds);
    all.extend(feed_names);
    all.extend(files.iter().map(|(name, _)| name.clone()));
    Ok(Files {
        rendered: files,
        all,
    })
}

/// The values the pages share, made once.
struct Site<'a> {
    bot: &'a Bot,
    record: &'a Record,
    /// The players, from the public registry, with their page.
    players: Vec<Value>,
    /// Each registered game: its name, page, instances, deadlines.
    games: Vec<Value>,
    /// Every pending public deadline, soonest first.
    pub deadlines: Vec<feeds::Deadline>,
    standings: Value,
    /// The plots drawn: file, title and text alternative.
    plots: Vec<Value>,
    /// Each scoring game's plot of its scores over time, by game.
    score_plots: BTreeMap<String, Value>,
}

impl<'a> Site<'a> {
    fn new(bot: &'a Bot, record: &'a Record) -> Site<'a> {
        let players: Vec<Value> = record.public["players"]["players"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .map(|mut player| {
                let id = player["id"].as_u64().unwrap_or_default();
                player["page"] = json!(player_page(id));
                player["standing"] = json!(standing(&player));
                player
            })
            .collect();
        let deadlines = deadlines(bot, record);
        let mut site = Site {
            bot,
            record,
            players,
            games: Vec::new(),
            deadlines,
            standings: games::summary::standings(record.world(), bot.params()),
            plots: Vec::new(),
            score_plots: BTreeMap::new(),
        };
        site.games = site.games_values();
        site
    }

    /// A page's values with the frame's: the nomic, and no date, so a page
    /// that nothing new touched stays the same file.
    fn page(&self, title: &str, mut values: Value) -> Value {
        values["title"] = json!(title);
        values["nomic"] = json!({
            "name": self.bot.config.bot.name,
            "list": self.bot.config.bot.list,
            "zone": self.bot.params().setting.calendar.config().time_zone,
            "as_of": null,
            "dated": false,
        });
        values
    }

    /// A page that says how current the site is: the index and the record's
    /// latest, which every new event changes anyway.
    fn dated_page(&self, title: &str, values: Value) -> Value {
        let mut values = self.page(title, values);
        values["nomic"]["as_of"] = json!(self.record.as_of().map(|at| when(self.bot, at)));
        values["nomic"]["dated"] = json!(true);
        values
    }

    fn when(&self, at: Timestamp) -> Value {
        when(self.bot, at)
    }

    fn announcement(&self, a: &Announcement) -> Value {
        json!({
            "number": a.number,
            "anchor": a.anchor,
            "at": self.when(a.at),
            "subject": a.subject,
            "tag": a.tag,
            "page": a.tag.as_deref().map_or("record.html".to_owned(), super::page_of_tag),
            "body": a.body,
            "message_id": a.message_id,
            "cause": a.cause,
        })
    }

    /// Each registered game with its running instances, its finished ones (tags
    /// the list heard of that run no longer), its deadlines and scores.
    fn games_values(&self) -> Vec<Value> {
        struct Collect<'b> {
            site: &'b Site<'b>,
            out: Vec<Value>,
        }
        impl Visit for Collect<'_> {
            fn visit<G: Registered>(&mut self) {
                let site = self.site;
                let world = site.record.world();
                let state = G::take_state(world);
                let view = View::new(&world.shared, &site.bot.params().setting);
                let running: Vec<Value> = G::running(&state, &view)
                    .into_iter()
                    .map(|instance| {
                        let deadline = instance.deadline.or_else(|| {
                            site.deadlines
                                .iter()
                                .find(|d| d.owner == instance.tag)
                                .map(|d| d.at)
                        });
                        json!({
                            "tag": instance.tag,
                            "what": instance.what,
                            "players": instance.players,
                            "turn": instance.turn,
                            "deadline": deadline.map(|at| site.when(at)),
                        })
                    })
                    .collect();
                let finished: Vec<&String> = site
                    .record
                    .kept
                    .tags
                    .get(G::NAME)
                    .into_iter()
                    .flatten()
                    .filter(|tag| !running.iter().any(|r| r["tag"].as_str() == Some(tag)))
                    .collect();
                let pictures: Vec<Value> = G::pictures(&state, &view)
                    .into_iter()
                    .map(|picture| {
                        json!({
                            "file": format!("game-{}-{}.svg", slug(G::NAME), slug(&picture.name)),
                            "alt": picture.alt,
                            "svg": picture.svg,
                        })
                    })
                    .collect();
                let heard = site
                    .record
                    .kept
                    .game_counts
                    .get(G::NAME)
                    .copied()
                    .unwrap_or(0);
                self.out.push(json!({
                    "name": G::NAME,
                    "tags": G::TAGS,
                    "page": game_page(G::NAME),
                    "running": running,
                    "finished": finished,
                    "pictures": pictures,
                    "announcements": heard,
                }));
            }
        }
        let mut collect = Collect {
            site: self,
            out: Vec::new(),
        };
        each_game(&mut collect);
        collect.out
    }

    /// Who holds which office: bot.toml's with the appointments by mail applied.
    fn offices(&self) -> Vec<Value> {
        let world = self.record.world();
        let params = self.bot.params().with_offices(&world.offices);
        let officers = params.officers();
        let mut out = Vec::new();
        let mut add = |office: &str, holders: &[Address]| {
            if holders.is_empty() {
                return;
            }
            let names: Vec<Value> = holders.iter().map(|a| self.holder(a)).collect();
            out.push(json!({ "office": office, "holders": names }));
        };
        add("Moderator", &officers.moderators);
        // The keepers of the rules are the first of `office_names`.
        for office in officers.office_names() {
            add(&office, &officers.holders_of(&office));
        }
        out
    }

    /// An office holder as the public knows em: a player by name and page, or
    /// someone who does not play (no address on the web).
    fn holder(&self, address: &Address) -> Value {
        match self.record.world().players.active_by_address(address) {
            Some(player) => json!({
                "name": player.name,
                "page": player_page(u64::from(player.id)),
            }),
            None => json!({ "name": "someone not playing", "page": null }),
        }
    }

    fn index(&self) -> Value {
        let mut latest: Vec<Value> = self
            .record
            .latest
            .iter()
            .map(|a| self.announcement(a))
            .collect();
        latest.reverse();
        latest.truncate(super::LATEST as usize);
        self.dated_page(
            "The public record",
            json!({
                "players": self.players,
                "standings": self.standings_rows(),
                "plots": self.plots,
                "offices": self.offices(),
                "games": self.games,
                "latest": latest,
                "deadlines": self.deadline_values(|_| true),
            }),
        )
    }

    /// The standings table: each active player's balances and scores, by page.
    fn standings_rows(&self) -> Value {
        let mut table = self.standings.clone();
        if let Some(scores) = table["scores"].as_array_mut() {
            for score in scores {
                score["page"] = json!(game_page(score["game"].as_str().unwrap_or_default()));
            }
        }
        if let Some(rows) = table["players"].as_array_mut() {
            for row in rows {
                let page = self
                    .players
                    .iter()
                    .find(|p| p["name"] == row["name"] && p["standing"] != "left")
                    .map(|p| p["page"].clone())
                    .unwrap_or(Value::Null);
                row["page"] = page;
            }
        }
        table
    }

    fn deadline_values(&self, keep: impl Fn(&feeds::Deadline) -> bool) -> Vec<Value> {
        self.deadlines
            .iter()
            .filter(|d| keep(d))
            .map(|d| {
                json!({
                    "owner": d.owner,
                    "what": d.what,
                    "at": self.when(d.at),
                    "page": d.page,
                })
            })
            .collect()
    }

    fn game(&self, name: &str) -> Value {
        let game = self
            .games
            .iter()
            .find(|g| g["name"] == name)
            .cloned()
            .unwrap_or_default();
        let state = self.record.game(name);
        let column = self.standings["scores"]
            .as_array()
            .and_then(|scores| scores.iter().position(|s| s["game"] == name));
        let scores: Vec<Value> = match column {
            Some(column) => self.standings["players"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter(|row| !row["scores"][column].is_null())
                .map(|row| json!({ "name": row["name"], "score": row["scores"][column] }))
                .collect(),
            None => Vec::new(),
        };
        let score_name = column.map(|c| self.standings["scores"][c]["name"].clone());
        let mut latest: Vec<Value> = self
            .record
            .game_latest
            .get(name)
            .into_iter()
            .flatten()
            .map(|a| self.announcement(a))
            .collect();
        latest.reverse();
        latest.truncate(super::LATEST as usize);
        self.page(
            &format!("Game: {name}"),
            json!({
                "game": game,
                "state_text": state.and_then(|s| s.text.clone()),
                "state_html": state.map(|s| html::view(&self.without_addresses(&s.view))).unwrap_or_default(),
                "score_name": score_name,
                "scores": scores,
                "deadlines": self.deadline_values(|d| d.game.as_deref() == Some(name)),
                "announcements": latest,
                "pages": history_pages(Some(name), self.record.kept.game_counts.get(name).copied().unwrap_or(0), self.bot.config.site.history_page()),
                "plot": self.score_plots.get(name),
                "feed": format!("game-{}.atom", slug(name)),
            }),
        )
    }

    /// A view with every e-mail address in it replaced by its player's name,
    /// or withheld: the site is on the web, where addresses are harvested.
    fn without_addresses(&self, value: &Value) -> Value {
        match value {
            Value::String(text) if looks_like_an_address(text) => {
                let address = Address::new(text);
                match self
                    .record
                    .world()
                    .players
                    .players
                    .iter()
                    .find(|p| p.address == address || p.aliases.contains(&address))
                {
                    Some(player) => json!(player.name),
                    None => json!("(an address, withheld)"),
                }
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.without_addresses(v)).collect())
            }
            Value::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.clone(), self.without_addresses(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn player(&self, player: &Value) -> Value {
        let id = player["id"].as_u64().unwrap_or_default();
        let name = player["name"].as_str().unwrap_or_default();
        let is_this = |holder: &Value| holder.get("player").and_then(Value::as_u64) == Some(id);
        let balances: Vec<Value> = self.record.public["accounts"]["balances"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| is_this(&b["holder"]))
            .map(|b| json!({ "currency": b["currency"], "amount": b["amount"] }))
            .collect();
        let inventory: Vec<Value> = self.record.public["inventory"]["entities"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| is_this(&e["owner"]))
            .cloned()
            .collect();
        let offices: Vec<Value> = self
            .offices()
            .into_iter()
            .filter(|o| {
                o["holders"]
                    .as_array()
                    .is_some_and(|h| h.iter().any(|h| h["page"] == player["page"]))
            })
            .map(|o| o["office"].clone())
            .collect();
        let scores: Vec<Value> = self.standings["players"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|row| row["name"] == name && player["standing"] != "left")
            .flat_map(|row| {
                row["scores"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .zip(self.standings["scores"].as_array().cloned().unwrap_or_default())
                    .filter(|(score, _)| !score.is_null())
                    .map(|(score, of)| {
                        json!({ "name": of["name"], "game": of["game"], "page": game_page(of["game"].as_str().unwrap_or_default()), "score": score })
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let playing: Vec<Value> = self
            .games
            .iter()
            .flat_map(|game| {
                game["running"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|r| {
                        r["players"]
                            .as_array()
                            .is_some_and(|p| p.iter().any(|p| p == name))
                    })
                    .map(|r| json!({ "tag": r["tag"], "what": r["what"], "page": game["page"] }))
                    .collect::<Vec<_>>()
            })
            .collect();
        let joined = player["joined_at"]
            .as_str()
            .and_then(|at| at.parse::<Timestamp>().ok())
            .map(|at| self.when(at));
        self.page(
            &format!("Player: {name}"),
            json!({
                "player": {
                    "name": name,
                    "standing": player["standing"],
                    "joined": joined,
                },
                "balances": balances,
                "inventory": html::view(&self.without_addresses(&Value::Array(inventory))),
                "offices": offices,
                "scores": scores,
                "playing": playing,
            }),
        )
    }

    fn ruleset(&self) -> Value {
        let ruleset = &self.record.public["ruleset"];
        // Every version of every rule, by number: the past ones oldest first,
        // then the one in effect.
        let mut versions: BTreeMap<u64, Vec<Value>> = BTreeMap::new();
        for rule in ruleset["past"].as_array().into_iter().flatten() {
            let number = rule["number"].as_u64().unwrap_or_default();
            versions.entry(number).or_default().push(rule.clone());
        }
        let in_effect: Vec<u64> = ruleset["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|rule| {
                let number = rule["number"].as_u64().unwrap_or_default();
                versions.entry(number).or_default().push(rule.clone());
                number
            })
            .collect();
        let rules: Vec<Value> = versions
            .into_iter()
            .map(|(number, mut list)| {
                list.sort_by_key(|rule| rule["version"].as_u64().unwrap_or_default());
                let mut shown = Vec::new();
                let mut before: Option<String> = None;
                for rule in &list {
                    let text = rule["text"].as_str().unwrap_or_default().to_owned();
                    let changes = before.as_deref().map(|old| diff::lines(old, &text));
                    shown.push(json!({
                        "version": rule["version"],
                        "name": rule["name"],
                        "text": text,
                        "note": rule.get("note"),
                        "diff": changes,
                    }));
                    before = Some(text);
                }
                let last = list.last().cloned().unwrap_or_default();
                json!({
                    "number": number,
                    "name": last["name"],
                    "in_effect": in_effect.contains(&number),
                    "versions": shown,
                })
            })
            .collect();
        let changes: Vec<Value> = ruleset["changes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|change| {
                let mut change = change.clone();
                if let Some(at) = change["at"]
                    .as_str()
                    .and_then(|at| at.parse::<Timestamp>().ok())
                {
                    change["at"] = self.when(at);
                }
                change
            })
            .collect();
        self.page("The ruleset", json!({ "rules": rules, "changes": changes }))
    }

    /// The random officer's page: the running period with the pages of the
    /// finished ones (`items` empty, `number` none), or page `number` of the
    /// finished periods, `items`.
    fn random(&self, items: &[Value], pages: Vec<Value>, number: Option<i64>) -> Value {
        let period = |p: &Value, running: bool| {
            let at = |key: &str| {
                p[key]
                    .as_str()
                    .and_then(|at| at.parse::<Timestamp>().ok())
                    .map(|at| self.when(at))
            };
            json!({
                "label": p["label"],
                "commitment": p["commitment"],
                // A running period's seed is blanked by the public view already;
                // said here again so no template can show it.
                "seed": if running { Value::Null } else { p["seed"].clone() },
                "started": at("started_at"),
                "revealed": at("revealed_at"),
                "draws": p["draws"],
                "running": running,
            })
        };
        let random = &self.record.public["random"];
        let mut periods: Vec<Value> = items.iter().map(|p| period(p, false)).collect();
        if number.is_none() {
            // The world's finished periods are in the archive; none are left here.
            periods.extend(
                random["past"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|p| period(p, false)),
            );
            if !random["current"].is_null() {
                periods.push(period(&random["current"], true));
            }
        }
        let title = match number {
            Some(number) => format!("The Officer in charge of Random Things, page {number}"),
            None => "The Officer in charge of Random Things".to_owned(),
        };
        self.page(
            &title,
            json!({
                "periods": periods,
                "pages": pages,
                "up": number.map(|_| "random.html"),
            }),
        )
    }

    /// The sealed actions' page: the batches not yet revealed with the pages
    /// of those revealed (`items` empty, `number` none), or page `number` of
    /// the revealed batches, `items`.
    fn sealed(&self, items: &[Value], pages: Vec<Value>, number: Option<i64>) -> Value {
        let present: Vec<Value>;
        let shown = match number {
            Some(_) => items,
            None => {
                present = self.record.public["sealed"]["batches"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                &present
            }
        };
        let batches: Vec<Value> = shown
            .iter()
            .map(|batch| sealed_batch(self.bot, batch))
            .collect();
        let title = match number {
            Some(number) => format!("Sealed actions, page {number}"),
            None => "Sealed actions".to_owned(),
        };
        self.page(
            &title,
            json!({
                "batches": batches,
                "pages": pages,
                "up": number.map(|_| "sealed.html"),
            }),
        )
    }
}

/// A sealed batch as its page shows it.
fn sealed_batch(bot: &Bot, batch: &Value) -> Value {
    let revealed = batch["stage"] == "revealed";
    let deadline = batch["deadline"]
        .as_str()
        .and_then(|at| at.parse::<Timestamp>().ok())
        .map(|at| when(bot, at));
    let actions: Vec<Value> = batch["actions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|action| {
            json!({
                "player": action["player_name"],
                // Blanked by the public view until the reveal; not
                // even the blank is passed on before it.
                "text": if revealed { action["action_text"].clone() } else { Value::Null },
                "salt": if revealed { action["salt_hex"].clone() } else { Value::Null },
            })
        })
        .collect();
    let title = match batch["title"].as_str() {
        Some(title) if !title.is_empty() => title.to_owned(),
        _ => batch["id"].as_str().unwrap_or_default().replace(':', " "),
    };
    json!({
        "title": title,
        "owner": batch["owner"],
        "page": super::page_of_tag(batch["owner"].as_str().unwrap_or_default()),
        "stage": batch["stage"],
        "deadline": deadline,
        "commitments": batch["commitments"],
        "actions": actions,
    })
}

/// A string that is one e-mail address and nothing else.
fn looks_like_an_address(text: &str) -> bool {
    let text = text.trim();
    match text.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && domain.contains('.')
                && !domain.contains('@')
                && !text.contains(char::is_whitespace)
        }
        None => false,
    }
}

/// A player's standing, in a word.
fn standing(player: &Value) -> &'static str {
    if !player["left_at"].is_null() {
        "left"
    } else if player["in_gaol"] == true {
        "in Gaol"
    } else if !player["vacation_until"].is_null() {
        "on vacation"
    } else if player["inactive"] == true {
        "inactive"
    } else {
        "active"
    }
}

/// Every pending deadline of the public schedule, soonest first.
fn deadlines(bot: &Bot, record: &Record) -> Vec<feeds::Deadline> {
    let mut out: Vec<feeds::Deadline> = record.public["schedule"]["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let deadline = &entry["deadline"];
            let at = deadline["at"].as_str()?.parse::<Timestamp>().ok()?;
            let owner = deadline["owner"].as_str().unwrap_or_default().to_owned();
            let game = super::game_of_tag(&owner).map(str::to_owned);
            Some(feeds::Deadline {
                id: deadline["id"].as_str().unwrap_or_default().to_owned(),
                at,
                page: super::page_of_tag(&owner),
                what: deadline["what"].as_str().unwrap_or_default().to_owned(),
                owner,
                game,
            })
        })
        .collect();
    out.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.id.cmp(&b.id)));
    let _ = bot;
    out
}
