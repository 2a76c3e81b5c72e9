//! `[gnomic]`: the Gnomic ruleset (version 73) refereed by mail: turns,
//! proposals, secret votes, scoring. Built in steps. The pure decisions come
//! first, each clause tested on its own: `scoring` (the arithmetic of the
//! rules), `hack` (the form of a hack and what adopting it does to the ruleset),
//! `judgment` (the Judge, the fees and which meta-amendment takes effect).

pub mod hack;
pub mod judgment;
pub mod scoring;
