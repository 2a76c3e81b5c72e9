//! The public record as a static web site (`nomicbot site OUT/`, and `[site] dir`
//! kept current by `run` and `once`). Shell: it reads the store (the event log's
//! fold and the announcements to the list) and writes files; the engine and the
//! games never import it, and it names no game. It must never read a private
//! view, a sealed action before its reveal, or a private message's body: every
//! page is made from `record::Record`, which holds only what the public may see.
//!
//! The build is a pure function of the database: no clock, no build time, maps
//! in a fixed order, so a site rebuilt from a copy of the database is the same
//! bytes. Pages are rendered from `templates/site/` (minijinja, HTML escaping
//! on), written by `write::Writer` only when their bytes change.
//!
//! Kept current at the cost of what changed (`build`): each site folder has a
//! cursor in the database (`site_cursor`: the last event folded in, and the
//! fold with its history and the plots' series, `kept::Kept`). A build folds in
//! only the events after it, appends to the series, and renders the pages of
//! the present (the index, each game's and player's page, the feeds of the
//! latest announcements; the ruleset's, the random officer's and the sealed
//! actions' only when an event of their kind was folded in) and, of the
//! history, only the pages the new announcements fall on: history is cut into
//! pages of `[site] history_page` announcements that, once full, never change.
//! The shared history the fold finishes (a revealed sealed batch, a random
//! period whose seed is out) leaves the kept fold for rows of its own
//! (`site_archive`), paged the same way (`sealed-N.html`, `random-N.html`), so
//! the cursor stays the size of the present. `build_whole` starts from the
//! initial world and folds the whole log through the same code: both give the
//! same bytes.

mod diff;
mod feeds;
mod html;
mod kept;
mod pages;
mod plots;
pub mod record;
mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::pipeline::Bot;

pub use record::anchor;

#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error("site plot: {0}")]
    Plot(String),
    #[error("site template {name}: {source:#}")]
    Template {
        name: String,
        source: minijinja::Error,
    },
}

impl SiteError {
    fn io(path: &Path, source: std::io::Error) -> SiteError {
        SiteError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// What a build did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use = "the caller reports what was written"]
pub struct Built {
    /// Every file of the site.
    pub files: usize,
    /// The files written because their bytes changed (or were new), by name.
    pub written: Vec<String>,
    /// The files an earlier build wrote that are no longer part of the site
    /// (the picture of a game that ended), removed.
    pub removed: Vec<String>,
}

/// How many of the latest announcements the index, the record and each game's
/// page show.
const LATEST: i64 = 20;

/// Brings the site in `out` up to date, each file written only if its bytes
/// changed: from the folder's cursor when it has one (the cost of what changed
/// since), else as `build_whole`.
pub fn build(bot: &Bot, out: &Path) -> Result<Built, SiteError> {
    build_with(bot, out, false)
}

/// Builds the whole site into `out` from the whole log (`site --full`): what
/// a changed template or a folder mended by hand needs.
pub fn build_whole(bot: &Bot, out: &Path) -> Result<Built, SiteError> {
    build_with(bot, out, true)
}

/// What a build renders beside the pages of the present.
pub struct Plan {
    /// Everything: a whole build.
    pub whole: bool,
    /// How many announcements a page of history holds (`[site] history_page`).
    pub page: i64,
    /// The pages of the whole record's history the new announcements fall on.
    pub record_pages: Vec<i64>,
    /// Each game's pages of history the new announcements fall on.
    pub game_pages: BTreeMap<String, Vec<i64>>,
    /// The site folder's key in the database (its canonical path): the
    /// archive's rows are its own.
    pub dir: String,
    /// The pages of each kind of archived history (`kept::SEALED`, ...) the
    /// items retired in this build fall on.
    pub archive_pages: BTreeMap<&'static str, std::collections::BTreeSet<i64>>,
}

impl Plan {
    /// Whether a page of a part of the shared world (`kept::SEALED`, ...) is
    /// rendered: an event of its kind was folded in.
    fn part(&self, record: &record::Record, kind: &str) -> bool {
        self.whole || record.kept.touched.contains(kind)
    }

    fn plot(&self, record: &record::Record, file: &str) -> bool {
        self.whole || record.kept.dirty.contains(file)
    }

    /// Whether a feed has a new entry: the whole nomic's (`None`) or a game's.
    fn feed(&self, game: Option<&str>) -> bool {
        self.whole
            || match game {
                None => !self.record_pages.is_empty(),
                Some(game) => self.game_pages.contains_key(game),
            }
    }
}

/// The history page announcement `number` is on.
fn page_of(number: i64, page: i64) -> i64 {
    (number - 1).div_euclid(page) + 1
}

fn build_with(bot: &Bot, out: &Path, whole: bool) -> Result<Built, SiteError> {
    let mut writer = write::Writer::new(out)?;
    let key = std::fs::canonicalize(out)
        .map_err(|source| SiteError::io(out, source))?
        .to_string_lossy()
        .into_owned();
    let list = vec![bot.config.bot.list.clone()];
    bot.store
        .number_site_announcements(&list, record::game_of_mail)?;
    let fingerprint = fingerprint(bot);
    // A cursor counts only for the folder it was written for, by the same
    // release and settings, and while the folder still has its site.
    let cursor = match whole || !out.join("index.html").exists() {
        true => None,
        false => bot
            .store
            .site_cursor(&key)?
            .filter(|cursor| cursor.fingerprint == fingerprint)
            .and_then(|cursor| serde_json::from_str::<kept::Kept>(&cursor.state).ok()),
    };
    let (mut kept, mut whole) = match cursor {
        Some(kept) => (kept, false),
        None => (kept::Kept::start(bot)?, true),
    };
    if let kept::Folded::Void = kept.fold(bot, whole)? {
        kept = kept::Kept::start(bot)?;
        whole = true;
        kept.fold(bot, true)?;
    }
    let mut plan = take_announcements(bot, &mut kept, whole)?;
    plan.dir = key.clone();
    for (kind, number, _) in &kept.fresh {
        plan.archive_pages
            .entry(kind)
            .or_default()
            .insert(page_of(*number, plan.page));
    }
    // Before the files, like the announcements' numbers: a crash between
    // leaves rows the next build writes again, the same.
    let counts: Vec<(&str, i64)> = [kept::SEALED, kept::RANDOM]
        .into_iter()
        .map(|kind| (kind, kept.archived.get(kind).copied().unwrap_or(0)))
        .collect();
    if whole || !kept.fresh.is_empty() {
        bot.store
            .put_site_archive(&key, &std::mem::take(&mut kept.fresh), &counts)?;
    }
    let state = serde_json::to_string(&kept).map_err(|error| SiteError::Io {
        path: out.to_owned(),
        source: std::io::Error::other(error.to_string()),
    })?;
    let seq = kept.seq;
    let record = record::Record::new(bot, kept, LATEST.max(bot.config.site.feed_entries() as i64))?;
    let files = pages::render(bot, &record, &plan)?;
    for (name, bytes) in &files.rendered {
        writer.put(name, bytes)?;
    }
    writer.retire(&files.all)?;
    writer.finish()?;
    // After the files: a crash between leaves the cursor behind them, and the
    // next build does that part again.
    bot.store.set_site_cursor(
        &key,
        &crate::store::SiteCursor {
            fingerprint,
            event_seq: seq,
            state,
        },
    )?;
    Ok(Built {
        files: files.all.len(),
        written: writer.written,
        removed: writer.removed,
    })
}

/// The announcements numbered since the last build taken in: the tags they
/// were under, and the history pages they fall on.
fn take_announcements(bot: &Bot, kept: &mut kept::Kept, whole: bool) -> Result<Plan, SiteError> {
    let total = bot.store.site_announcement_count()?;
    let reader = record::Reader::new(bot);
    let page = bot.config.site.history_page();
    let mut plan = Plan {
        whole,
        page,
        record_pages: Vec::new(),
        game_pages: BTreeMap::new(),
        dir: String::new(),
        archive_pages: BTreeMap::new(),
    };
    while kept.announced < total {
        let from = kept.announced + 1;
        let to = (from + 999).min(total);
        for a in reader.read(bot, None, from, to)? {
            if plan.record_pages.last() != Some(&page_of(a.number, page)) {
                plan.record_pages.push(page_of(a.number, page));
            }
            if let (Some(game), Some(number)) = (a.game, a.game_number) {
                kept.game_counts.insert(game.to_owned(), number);
                let tags = kept.tags.entry(game.to_owned()).or_default();
                if let Some(tag) = &a.tag
                    && !tags.contains(tag)
                {
                    tags.push(tag.clone());
                }
                let pages = plan.game_pages.entry(game.to_owned()).or_default();
                if pages.last() != Some(&page_of(number, page)) {
                    pages.push(page_of(number, page));
                }
            }
            kept.announced = a.number;
        }
    }
    Ok(plan)
}

/// What a site's bytes depend on beside the database: the release (its
/// templates and code) and the settings the pages show.
fn fingerprint(bot: &Bot) -> String {
    use sha2::{Digest, Sha256};
    let config = &bot.config;
    let text = format!(
        "{}\n{}\n{}\n{:?}\n{:?}\n{}\n{}\n{}\n{:?}",
        env!("CARGO_PKG_VERSION"),
        config.bot.name,
        config.bot.list,
        config.site.url,
        config.bot.list_id,
        config.site.feed_entries(),
        config.site.history_page(),
        bot.params().setting.calendar.config().time_zone,
        config.resolve(&config.bot.templates),
    );
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The page an announcement under `tag` is shown on: its game's page, or the
/// whole record for the nomic's own tags. The mail's link back points here.
pub fn page_of_tag(tag: &str) -> String {
    match game_of_tag(tag) {
        Some(game) => pages::game_page(game),
        None if tag.trim().eq_ignore_ascii_case("ruleset") => "ruleset.html".to_owned(),
        None => "record.html".to_owned(),
    }
}

/// The registered game a tag (`ghost 2`) belongs to; none for the nomic's own
/// tags (`nomic`, `ruleset`, `games`), which the router knows as well.
fn game_of_tag(tag: &str) -> Option<&'static str> {
    let tag = tag.trim().to_lowercase();
    crate::games::router::game_of_tag(crate::games::base_tag(&tag))
        .filter(|game| crate::games::game_names().contains(game))
}
