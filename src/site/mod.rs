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
//! Later instalments slot in as more `Page`s: plots of scores over time, the
//! games' own pictures (SVG) as files beside their game page.

mod diff;
mod feeds;
mod html;
mod pages;
mod plots;
pub mod record;
mod write;

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
}

/// Writes the whole site into `out`, each file only if its bytes changed.
pub fn build(bot: &Bot, out: &Path) -> Result<Built, SiteError> {
    let record = record::Record::read(bot)?;
    let files = pages::render(bot, &record)?;
    let mut writer = write::Writer::new(out)?;
    for (name, bytes) in &files {
        writer.put(name, bytes)?;
    }
    writer.finish()?;
    Ok(Built {
        files: files.len(),
        written: writer.written,
    })
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
