//! `[gnomic]`: the Gnomic ruleset (version 73) refereed by mail: turns,
//! proposals, secret votes, scoring. Built in steps; this step is the arithmetic
//! of the rules (`scoring`), each clause tested on its own.

pub mod hack;
pub mod scoring;
