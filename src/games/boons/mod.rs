//! The Boons of the Ancients (Ackanomic rule 1211/3). Built in steps; first the
//! list of §9 as data and §4's weighted choice (`list`). The entities a Boon
//! bestows go into the substrate's inventory (`engine::inventory`); §8's hearing
//! is the `[bogusity]` game.

pub mod list;
