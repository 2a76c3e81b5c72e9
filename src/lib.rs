//! nomicbot: the automated officer of a nomic played by e-mail.
//!
//! The pipeline (see `docs/ARCHITECTURE.md`): mail in (`mail`) → stored (`store`) →
//! parsed and routed (`games`) → applied by the pure `engine` → events, state and
//! outgoing mail committed together (`store`) → sent (`mail`).

pub mod cli;
pub mod config;
pub mod demo;
pub mod engine;
#[doc(hidden)]
pub mod fuzzing;
pub mod games;
pub mod mail;
pub mod pipeline;
pub mod rule_texts;
pub mod run;
pub mod samples;
pub mod site;
pub mod store;
pub mod templates;
