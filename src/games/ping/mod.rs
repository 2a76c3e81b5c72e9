//! `[ping]`: the Machine That Goes *ping* (Ackanomic rule 1209/14), refereed by
//! mail. Built in steps. The pure decisions come first, each section tested on
//! its own: `notice` (the ping notice of §IV, word for word), `truth` (§III's
//! form, words and disguise, §VI's guesses, §VII's Magic Letters) and `dates`
//! (the machine-checkable form of a clause, and §III's seven and fourteen days).

pub mod dates;
pub mod notice;
pub mod truth;
