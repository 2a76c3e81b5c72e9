//! Issue 28: the public record as a web site. Every registered game's sample is
//! played through the real pipeline, the site built after every pass, and every
//! file scanned for each secret the game holds then (what its private view has
//! and neither its public view nor the list's mail has shown); the site rebuilt
//! from a copy of the database is the same bytes; a build with nothing new
//! rewrites nothing; `once` keeps `[site] dir` current; `[site] url` links each
//! announcement to its page. Every build after a pass goes on from the last
//! (the incremental path), and a whole build at the end gives the same bytes;
//! after one new message only the pages it changed are written; the finished
//! random periods and revealed sealed batches are paged from the site's archive
//! alike whether built in steps or whole.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use nomicbot::config::{Config, DEFAULT_CONFIG};
use nomicbot::engine::game::Script;
use nomicbot::pipeline::Bot;
use nomicbot::run::{Transport, once};
use nomicbot::samples::{self, Stage};

/// A folder with the samples' bot.toml (the moderator keeps the rules) and
/// the templates, as `demo` makes it; `[site]` as `site` says (its lines).
fn setup(dir: &Path, site: &[(&str, &str)]) -> Config {
    let moderator = samples::address(samples::PLAYERS[0]);
    let text = nomicbot::config::believing_from(DEFAULT_CONFIG)
        .replace(
            "moderators = []",
            &format!("moderators = [\"{moderator}\"]"),
        )
        .replace("\nrules = []", &format!("\nrules = [\"{moderator}\"]"));
    let text = site
        .iter()
        .fold(text, |text, (shipped, ours)| text.replace(shipped, ours));
    std::fs::write(dir.join("bot.toml"), text).unwrap();
    nomicbot::templates::write_defaults(&dir.join("templates")).unwrap();
    let config = Config::load(&dir.join("bot.toml")).unwrap();
    nomicbot::mail::maildir::ensure(&config.resolve(&config.maildir.inbox)).unwrap();
    config
}

/// Every file of a site, by name.
/// The site's files, as a web server serves them: its own dot file (the
/// list of what the build wrote) is not one.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|entry| {
            !entry
                .as_ref()
                .is_ok_and(|entry| entry.file_name().to_string_lossy().starts_with('.'))
        })
        .map(|entry| {
            let entry = entry.unwrap();
            (
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read(entry.path()).unwrap(),
            )
        })
        .collect()
}

/// A site's text as a reader gets it: HTML and XML entities read, iCalendar's
/// folded lines joined and its escapes read, in lower case.
fn readable(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .replace("\r\n ", "")
        .replace("\\,", ",")
        .replace("\\;", ";")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
        .to_lowercase()
}

/// Every string in a JSON value.
fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// The real pipeline as a sample's stage, the site built after every pass and
/// scanned for every secret of the moment.
struct OnSite {
    bot: Bot,
    config: Config,
    runtime: tokio::runtime::Runtime,
    site: PathBuf,
    delivered: usize,
    /// Lines sent to the bot alone: secret until the list or the public view
    /// shows them.
    private_lines: Vec<String>,
    builds: usize,
    /// Secrets checked, summed over the builds (so an empty scan cannot pass).
    checked: usize,
    /// Every secret looked for, once each.
    seen: std::collections::BTreeSet<String>,
    /// The scan's own check: the private view is put in the site before each scan.
    plant: bool,
    leaks: Vec<String>,
    /// What the last build did.
    built: nomicbot::site::Built,
}

impl OnSite {
    fn new(dir: &Path) -> OnSite {
        OnSite::with(dir, &[])
    }

    fn with(dir: &Path, site: &[(&str, &str)]) -> OnSite {
        let config = setup(dir, site);
        OnSite {
            bot: Bot::open(config.clone()).unwrap(),
            config,
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            site: dir.join("site"),
            delivered: 0,
            private_lines: Vec::new(),
            builds: 0,
            checked: 0,
            seen: Default::default(),
            plant: false,
            leaks: Vec::new(),
            built: Default::default(),
        }
    }

    fn pass(&mut self, at: Timestamp, step: &str) {
        let (bot, config) = (&mut self.bot, &self.config);
        self.runtime
            .block_on(async move {
                let mut transport = Transport::new(config);
                once(bot, &mut transport, at).await
            })
            .unwrap();
        self.scan(step);
    }

    /// Builds the site and looks in every file for each secret of now.
    fn scan(&mut self, step: &str) {
        let built = nomicbot::site::build(&self.bot, &self.site).unwrap();
        assert!(built.files > 0);
        self.built = built;
        self.builds += 1;
        let params = self.bot.params();
        if self.plant {
            let private = self.bot.world().private_view(params).to_string();
            std::fs::write(self.site.join("planted.html"), private).unwrap();
        }
        let public = self
            .bot
            .world()
            .public_view(params)
            .to_string()
            .to_lowercase();
        let mut told = String::new();
        for row in self.bot.store.outbox().unwrap() {
            if row.recipients == [self.config.bot.list.clone()] {
                told.push_str(&nomicbot::mail::parse::text_of(&row.raw).to_lowercase());
                told.push('\n');
            }
        }
        let mut candidates = Vec::new();
        strings(&self.bot.world().private_view(params), &mut candidates);
        candidates.extend(self.private_lines.iter().cloned());
        let secrets: Vec<String> = candidates
            .into_iter()
            .map(|s| s.trim().to_lowercase())
            .filter(|s| s.chars().filter(|c| c.is_alphanumeric()).count() >= 4)
            // Times are no secret, and a private view writes some as the
            // public one does not (a clock's deadline in words).
            .filter(|s| s.parse::<Timestamp>().is_err() && !starts_with_a_date(s))
            .filter(|s| !public.contains(&json_text(s)) && !told.contains(s.as_str()))
            .collect();
        let site: Vec<(String, String)> = files(&self.site)
            .into_iter()
            .map(|(name, bytes)| (name, readable(&bytes)))
            .collect();
        for secret in &secrets {
            self.checked += 1;
            self.seen.insert(secret.clone());
            for (name, text) in &site {
                if text.contains(secret.as_str()) {
                    self.leaks.push(format!("{step}: {secret:?} in {name}"));
                }
            }
        }
    }
}

fn starts_with_a_date(s: &str) -> bool {
    let head: Vec<char> = s.chars().take(10).collect();
    head.len() == 10
        && head.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == '-'
            } else {
                c.is_ascii_digit()
            }
        })
}

/// A string as it stands inside JSON text (quotes and backslashes escaped).
fn json_text(s: &str) -> String {
    let quoted = serde_json::to_string(s).unwrap();
    quoted[1..quoted.len() - 1].to_owned()
}

impl Script for OnSite {
    fn send(&mut self, minutes: i64, from: &str, public: bool, tag: &str, lines: &[&str]) {
        let at = samples::at(minutes);
        let to = if public {
            self.config.bot.list.clone()
        } else {
            self.config.bot.address.clone()
        };
        if !public {
            self.private_lines
                .extend(lines.iter().map(|line| (*line).to_owned()));
        }
        let raw = format!(
            "From: {from} <{}>\r\nTo: {to}\r\nSubject: [{tag}]\r\nMessage-ID: <site-{}@nomic.example>\r\n\
             Date: {}\r\n\r\n{}\r\n",
            samples::address(from),
            self.delivered,
            at.strftime("%a, %d %b %Y %H:%M:%S +0000"),
            lines.join("\r\n")
        );
        let inbox = self.config.resolve(&self.config.maildir.inbox);
        let path =
            inbox
                .join("new")
                .join(format!("{}.site{}.local", at.as_second(), self.delivered));
        std::fs::write(&path, raw).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(at.into())
            .unwrap();
        self.delivered += 1;
        self.pass(at, &format!("[{tag}] {from}: {}", lines.join(" | ")));
    }

    fn wait(&mut self, minutes: i64) {
        self.pass(samples::at(minutes), &format!("minute {minutes}"));
    }

    fn view(&self, game: &str) -> serde_json::Value {
        nomicbot::games::state_of(
            self.bot.world(),
            self.bot.params(),
            game,
            true,
            Timestamp::UNIX_EPOCH,
        )
        .map_or(serde_json::Value::Null, |(view, _)| view)
    }

    fn say(&mut self, _text: &str) {}
}

impl Stage for OnSite {
    fn import_rules(&mut self, minutes: i64, text: &str) {
        let at = samples::at(minutes);
        self.bot.import_rules(text, at).unwrap().unwrap();
        self.scan("import");
    }
}

/// Plays one game's sample after the samples' setup, the site built after every pass.
fn play(game: &str) -> (tempfile::TempDir, OnSite) {
    let sample = nomicbot::games::samples()
        .into_iter()
        .find(|s| s.name == game)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut stage = OnSite::new(dir.path());
    samples::setup(&mut stage);
    (sample.play)(&mut stage);
    (dir, stage)
}

#[test]
fn no_page_shows_a_secret_before_the_list_is_told_it_in_any_game() {
    let mut checked = 0;
    let mut builds = 0;
    let mut leaks = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for sample in nomicbot::games::samples() {
        let (_dir, stage) = play(sample.name);
        checked += stage.checked;
        builds += stage.builds;
        leaks.extend(stage.leaks.iter().map(|l| format!("{}: {l}", sample.name)));
        seen.extend(stage.seen.iter().cloned());
        // Every build above went on from the one before; the whole site built
        // from the whole log at the end is the same bytes, file for file.
        let kept = files(&stage.site);
        let whole = nomicbot::site::build_whole(&stage.bot, &stage.site).unwrap();
        assert_eq!(whole.written, Vec::<String>::new(), "{}", sample.name);
        assert_eq!(
            whole.files,
            kept.len(),
            "{}: {:?}",
            sample.name,
            kept.keys().collect::<Vec<_>>()
        );
    }
    // The secrets the brief names were among those looked for while secret: a
    // Treasure map, a Ghost word in mind, a Rule Tag action sent privately, a
    // sealed action's salt, a running random period's seed.
    let looked_for = |what: &str, found: &dyn Fn(&str) -> bool| {
        assert!(seen.iter().any(|s| found(s)), "no {what} was looked for");
    };
    looked_for("Treasure map", &|s| s.contains("haiku about acorns"));
    looked_for("private Rule Tag action", &|s| {
        s.starts_with("move ") || s.starts_with("element ")
    });
    looked_for("hex secret (salt or seed)", &|s| {
        s.len() == 64 && s.chars().all(|c| c.is_ascii_hexdigit())
    });
    assert!(
        leaks.is_empty(),
        "secrets on the site:\n{}",
        leaks.join("\n")
    );
    // Every game played, every pass built, and secrets there were to look for.
    assert!(builds > 100, "{builds} builds");
    assert!(checked > 100, "{checked} secrets checked");
}

#[test]
fn a_site_rebuilt_from_a_copy_of_the_database_is_the_same_bytes() {
    let (dir, stage) = play("vote");
    let live = files(&stage.site);
    assert!(live.contains_key("index.html") && live.contains_key("game-vote.html"));
    // A second build with nothing new rewrites no file.
    let again = nomicbot::site::build(&stage.bot, &stage.site).unwrap();
    assert_eq!(again.written, Vec::<String>::new());
    assert_eq!(again.files, live.len());
    drop(stage);
    // The database copied elsewhere, under another folder, and built by the binary.
    let other = tempfile::tempdir().unwrap();
    let config = setup(other.path(), &[]);
    let from = dir.path().join("var/nomicbot.sqlite");
    let to = config.resolve(&config.bot.database);
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(&from, &to).unwrap();
    let run = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_nomicbot"))
            .arg("--config")
            .arg(other.path().join("bot.toml"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    run(&["replay"]);
    let out = other.path().join("copy");
    let said = run(&["site", out.to_str().unwrap()]);
    assert!(said.contains("written"), "{said}");
    let copied = files(&out);
    assert_eq!(
        copied.keys().collect::<Vec<_>>(),
        live.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &live {
        assert!(copied[name] == *bytes, "{name} differs");
    }
}

#[test]
fn the_pages_show_the_game_its_history_linked_to_its_cause_and_the_feeds() {
    let (_dir, stage) = play("vote");
    let site = files(&stage.site);
    let text = |name: &str| String::from_utf8(site[name].clone()).unwrap();
    let index = text("index.html");
    assert!(index.contains("<meta name=\"viewport\""));
    assert!(index.contains("player-2.html\">Alice</a>"));
    assert!(!index.contains("<script"));
    let game = text("game-vote.html");
    // Each announcement links to the post that caused it: no Archived-At was
    // stamped here, so its Message-ID.
    assert!(game.contains("href=\"mid:site-"), "{game}");
    // The site adds no player's address to what the list was told, though the
    // game's view holds some: they are shown as the players' names.
    let details = &game[game.find("<details").unwrap()..game.find("</details>").unwrap()];
    assert!(!details.contains("mod@nomic.example"), "{details}");
    assert!(
        details.contains("<dt>opened by</dt><dd>Mod</dd>"),
        "{details}"
    );
    for name in [
        "player-1.html",
        "ruleset.html",
        "sealed.html",
        "random.html",
    ] {
        for address in [
            "mod@nomic.example",
            "alice@nomic.example",
            "bob@nomic.example",
        ] {
            assert!(!text(name).contains(address), "{address} in {name}");
        }
    }
    // Balances over time: an SVG drawn from the record, with its words beside it.
    let plot = text("balances-points.svg");
    assert!(
        plot.starts_with("<svg") && plot.contains("<polyline"),
        "{plot}"
    );
    assert!(index.contains("<img src=\"balances-points.svg\" alt=\"Balances in points over time: Mod from 20 to 20, Alice from 20"));
    assert!(text("ruleset.html").contains("Rule 1: Points"));
    assert!(
        text("sealed-1.html").contains("Revealed."),
        "{:?}",
        site.keys()
    );
    assert!(text("sealed.html").contains("href=\"sealed-1.html\""));
    let feed = text("feed.atom");
    assert!(feed.starts_with("<?xml"));
    assert!(feed.contains("<entry>"));
    let calendar = text("deadlines.ics");
    assert!(calendar.starts_with("BEGIN:VCALENDAR"));
}

#[test]
fn once_keeps_the_site_folder_current_and_rewrites_only_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(
        dir.path(),
        &[
            ("# dir = \"var/site\"", "dir = \"public\""),
            (
                "# url = \"https://nomic.example/record/\"",
                "url = \"https://nomic.example/record/\"",
            ),
        ],
    );
    let inbox = config.resolve(&config.maildir.inbox);
    // The list stamps the archive's address of each post (RFC 5064), as
    // Mailman 3 does: the inbox keeps the whole message, that header with it.
    let deliver = |n: usize, from: &str, body: &str, at: Timestamp| {
        let raw = format!(
            "From: {from}\r\nTo: {}\r\nSubject: [nomic]\r\nMessage-ID: <once-{n}@nomic.example>\r\n\
             Archived-At: <https://lists.nomic.example/archive/{n}/>\r\n\r\n{body}\r\n",
            config.bot.list
        );
        let path = inbox.join("new").join(format!("{n}.once.local"));
        std::fs::write(&path, raw).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(at.into())
            .unwrap();
    };
    let run = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_nomicbot"))
            .arg("--config")
            .arg(dir.path().join("bot.toml"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let start = samples::at(0);
    deliver(1, "Alice <alice@nomic.example>", "join Alice", start);
    run(&["once", "--now", &start.to_string()]);
    let site = dir.path().join("public");
    let first = files(&site);
    assert!(String::from_utf8_lossy(&first["index.html"]).contains("Alice"));
    let mtimes = |names: &[&str]| -> Vec<std::time::SystemTime> {
        names
            .iter()
            .map(|n| std::fs::metadata(site.join(n)).unwrap().modified().unwrap())
            .collect()
    };
    let before = mtimes(&["index.html", "style.css", "player-1.html"]);
    // Nothing new: nothing rewritten.
    run(&[
        "once",
        "--now",
        &(start + jiff::SignedDuration::from_mins(1)).to_string(),
    ]);
    assert_eq!(files(&site), first);
    assert_eq!(
        mtimes(&["index.html", "style.css", "player-1.html"]),
        before
    );
    // A second player: the index changes, the style sheet does not.
    deliver(
        2,
        "Bob <bob@nomic.example>",
        "join Bob",
        start + jiff::SignedDuration::from_mins(2),
    );
    run(&[
        "once",
        "--now",
        &(start + jiff::SignedDuration::from_mins(2)).to_string(),
    ]);
    let second = files(&site);
    assert_ne!(second["index.html"], first["index.html"]);
    assert_eq!(second["style.css"], first["style.css"]);
    assert!(second.contains_key("player-2.html"));
    // Each announcement links to the post that caused it, in the list's archive.
    let record = String::from_utf8_lossy(&second["record.html"]).into_owned();
    assert!(
        record.contains("href=\"https://lists.nomic.example/archive/2/\""),
        "{record}"
    );
    // Every announcement to the list ends with the link to its page.
    let sent = nomicbot::mail::maildir::read_all(&config.resolve(&config.maildir.outbox)).unwrap();
    let to_list: Vec<String> = sent
        .iter()
        .map(|(_, raw)| nomicbot::mail::parse::text_of(raw))
        .filter(|_| true)
        .collect();
    let announcements: Vec<&String> = to_list
        .iter()
        .filter(|text| text.contains("has joined") || text.contains("joined"))
        .collect();
    assert!(!announcements.is_empty());
    assert!(
        to_list
            .iter()
            .any(|text| text.contains("https://nomic.example/record/record.html#m-")),
        "{to_list:?}"
    );
}

#[test]
fn the_scan_finds_a_secret_put_in_the_site() {
    // The check of the scan itself: the private view written into the site's
    // folder is found, so a clean scan means something.
    let sample = nomicbot::games::samples()
        .into_iter()
        .find(|s| s.name == "treasure")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut stage = OnSite::new(dir.path());
    samples::setup(&mut stage);
    stage.plant = true;
    (sample.play)(&mut stage);
    assert!(!stage.leaks.is_empty());
    assert!(
        stage
            .leaks
            .iter()
            .all(|leak| leak.ends_with("in planted.html")),
        "{:?}",
        stage.leaks
    );
    assert!(
        stage
            .leaks
            .iter()
            .any(|leak| leak.contains("haiku about acorns"))
    );
}

#[test]
fn the_site_is_shell_that_names_no_game_and_nothing_inside_imports_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources = |folder: &str| -> Vec<(PathBuf, String)> {
        let mut out = Vec::new();
        let mut stack = vec![root.join(folder)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    out.push((path, text));
                }
            }
        }
        out
    };
    let inside: Vec<_> = sources("src/engine")
        .into_iter()
        .chain(sources("src/games"))
        .filter(|(_, text)| text.contains("crate::site"))
        .map(|(path, _)| path)
        .collect();
    assert!(
        inside.is_empty(),
        "the engine and the games import the site: {inside:?}"
    );
    let site = sources("src/site");
    assert!(site.len() >= 5);
    for game in nomicbot::games::game_names() {
        for (path, text) in &site {
            for named in [format!("games::{game}"), format!("\"{game}\"")] {
                assert!(!text.contains(&named), "{} names {named}", path.display());
            }
        }
    }
}

#[test]
fn a_game_that_draws_its_state_has_its_picture_on_its_page_with_the_same_in_words() {
    // Issue 28, 3: "the Space graph where the Space Nomic runs ... each with a
    // text alternative". The Space Nomic's sample buys vertices and moves.
    let (_dir, stage) = play("space");
    let site = files(&stage.site);
    let text = |name: &str| String::from_utf8(site[name].clone()).unwrap();
    let picture = text("game-space-space.svg");
    assert!(picture.contains("<svg"), "{picture}");
    assert!(picture.contains("Alice"), "{picture}");
    let page = text("game-space.html");
    assert!(
        page.contains("<img src=\"game-space-space.svg\" alt=\""),
        "{page}"
    );
    // The words name the vertices the picture draws, with who owns them.
    let figure = &page[page.find("<figure>").unwrap()..page.find("</figure>").unwrap()];
    assert!(figure.contains("(0, 0)"), "{figure}");
    assert!(figure.contains("Alice"), "{figure}");
    // A game that draws nothing has no picture.
    assert!(!text("game-vote.html").contains("<figure>"));
}

#[test]
fn after_one_new_message_only_the_pages_it_changed_are_rewritten() {
    // Pages of history of three announcements, so a sample fills several.
    let dir = tempfile::tempdir().unwrap();
    let mut stage = OnSite::with(dir.path(), &[("# history_page = 100", "history_page = 3")]);
    samples::setup(&mut stage);
    let sample = nomicbot::games::samples()
        .into_iter()
        .find(|s| s.name == "vote")
        .unwrap();
    (sample.play)(&mut stage);
    let before = files(&stage.site);
    let pages = before
        .keys()
        .filter(|n| n.starts_with("record-") && n.ends_with(".html"))
        .count();
    assert!(pages >= 3, "{pages} pages of history: {:?}", before.keys());
    // One new message, answered on the list: someone joins.
    stage.send(100_000, "Zed", true, "nomic", &["join Zed"]);
    let written = stage.built.written.clone();
    let after = files(&stage.site);
    let changed: Vec<&String> = after
        .iter()
        .filter(|(name, bytes)| before.get(*name) != Some(*bytes))
        .map(|(name, _)| name)
        .collect();
    // `written` names exactly the files whose bytes changed or are new.
    let mut named: Vec<&String> = written.iter().collect();
    named.sort();
    assert_eq!(named, changed);
    assert!(written.contains(&"index.html".to_owned()), "{written:?}");
    assert!(written.contains(&"record.html".to_owned()), "{written:?}");
    let newest = after
        .keys()
        .filter_map(|n| {
            n.strip_prefix("record-")?
                .strip_suffix(".html")?
                .parse::<i64>()
                .ok()
        })
        .max()
        .unwrap();
    assert!(
        written.contains(&format!("record-{newest}.html")),
        "{written:?}"
    );
    // A page of old history, the game's own and the style sheet are as they
    // were; so are the pages of the parts of the world a join does not touch
    // (rendered only when an event of their kind is folded in) and the pages
    // of the revealed ballots.
    assert!(before.contains_key("sealed-1.html"), "{:?}", before.keys());
    for old in [
        "record-1.html",
        "game-vote-history-1.html",
        "style.css",
        "ruleset.html",
        "random.html",
        "sealed.html",
        "sealed-1.html",
    ] {
        assert!(before.contains_key(old), "{old}");
        assert!(!written.contains(&old.to_owned()), "{old} in {written:?}");
    }
    assert!(written.len() < after.len() / 2, "{written:?}");
    // And the whole site from the whole log is what the builds made.
    let whole = nomicbot::site::build_whole(&stage.bot, &stage.site).unwrap();
    assert_eq!(whole.written, Vec::<String>::new());
}

#[test]
fn a_scoring_game_has_its_scores_over_time_drawn_on_its_page() {
    let (_dir, stage) = play("gnomic");
    let site = files(&stage.site);
    let text = |name: &str| String::from_utf8(site[name].clone()).unwrap();
    let plots: Vec<&String> = site.keys().filter(|n| n.starts_with("scores-")).collect();
    assert!(!plots.is_empty(), "{:?}", site.keys());
    let plot = text(plots[0]);
    assert!(
        plot.starts_with("<svg") && plot.contains("<polyline"),
        "{plot}"
    );
    let page = text("game-gnomic.html");
    assert!(
        page.contains(&format!("<img src=\"{}\" alt=\"", plots[0])),
        "{page}"
    );
    assert!(page.contains("over time: "), "{page}");
}

#[test]
fn finished_random_periods_and_revealed_batches_are_paged_and_built_alike_either_way() {
    // A page of one item, so the samples fill several: every build after a
    // pass puts its new items in their rows and renders only their pages, and
    // the whole build from the whole log at the end gives the same bytes.
    let mut pages = std::collections::BTreeSet::new();
    for game in ["ruletag", "treasure", "vote", "ghost", "boons", "ping"] {
        let dir = tempfile::tempdir().unwrap();
        let mut stage = OnSite::with(dir.path(), &[("# history_page = 100", "history_page = 1")]);
        samples::setup(&mut stage);
        let sample = nomicbot::games::samples()
            .into_iter()
            .find(|s| s.name == game)
            .unwrap();
        (sample.play)(&mut stage);
        assert!(stage.leaks.is_empty(), "{game}: {:?}", stage.leaks);
        let site = files(&stage.site);
        for name in site.keys() {
            for kind in ["random", "sealed"] {
                if name.starts_with(&format!("{kind}-")) {
                    pages.insert(format!("{game}: {name}"));
                    // A page of the archive links back, and holds what is out.
                    let text = String::from_utf8_lossy(&site[name]).into_owned();
                    assert!(text.contains(&format!("href=\"{kind}.html\"")), "{name}");
                    assert!(
                        !text.contains("(sealed)") && !text.contains("secret until"),
                        "{name}: {text}"
                    );
                }
            }
        }
        let whole = nomicbot::site::build_whole(&stage.bot, &stage.site).unwrap();
        assert_eq!(whole.written, Vec::<String>::new(), "{game}");
        assert_eq!(whole.files, site.len(), "{game}");
    }
    let has = |what: &str| pages.iter().any(|p| p.ends_with(what));
    assert!(has("random-2.html"), "{pages:?}");
    assert!(has("sealed-1.html"), "{pages:?}");
}
