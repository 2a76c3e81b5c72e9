//! The I/O shell around the engine: everything that touches a mail server or a
//! mail file. Nothing here decides anything about a game.

pub mod auth;
pub mod compose;
pub mod imap;
pub mod maildir;
pub mod mbox;
pub mod parse;
pub mod smtp;
pub mod tls;
pub mod verify;
