//! The `[ghost]` game (Ackanomic rule 103): turn order, clocks, dictionary
//! look-ups, protests, removals, reports and rewards, refereed by mail.

pub const TAG: &str = "ghost";
