//! The one integration-test binary: scenario tests on the embedded Maildir
//! transport, the corpus, and end-to-end tests through the real IMAP and SMTP
//! servers of `../shared/mailtest/` (started by `.ci/run`).

mod alias_takeover;
mod architecture;
mod auth;
mod automatic;
mod bogusity;
mod boons;
mod corpus;
mod daemon;
mod demo;
mod dictionary;
mod e2e;
mod e2e_auth;
mod e2e_ghost;
mod e2e_gnomic;
mod e2e_ping;
mod e2e_ruletag;
mod faults;
mod floods;
mod forged_senders;
mod fuzz;
mod fuzz_regressions;
mod ghost;
mod gnomic;
mod gnomic_rules;
mod golden;
mod hardening;
mod hardening_engine;
mod hardening_mail;
mod inventory;
mod list_manager;
mod list_reading;
mod offices;
mod ping;
mod postfix_filter;
mod quick_start;
mod ruletag;
mod ruletag_issue12;
mod samples;
mod scenarios;
mod secrecy;
mod substrate;
mod support;
mod transport;
mod vote;
