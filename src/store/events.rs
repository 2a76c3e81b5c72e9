//! The event log's format, a contract: a database written by any release loads
//! and replays to the same state in every later one. Each row of `events` carries
//! the format its payload was written in; `upgrade` brings an older payload to the
//! current format before it is deserialized. Pure: no SQL here, the store calls it.
//!
//! Why a format per row, not one for the database: the log is append-only, so
//! rows written by an old release are never rewritten. After an upgrade the log
//! holds old rows in their old format and new rows in the new one, and each row
//! says which it is. Rewriting the old rows in place instead would destroy the
//! record as it was written and make a crash halfway through a migration leave a
//! log that is neither.
//!
//! When a change to `games::Event` (or to a type inside it) changes the JSON that
//! an existing event serializes to, or that it needs to deserialize (a renamed
//! variant or field, a field without `#[serde(default)]`, a moved enum), then:
//! 1. bump `EVENT_FORMAT`;
//! 2. append to `STEPS` a function that turns a payload of the previous format
//!    into one of the new format (on `serde_json::Value`, never on today's types,
//!    which will change again);
//! 3. add a `tests/fixtures/golden-vN.sqlite` written by the new release (see
//!    `tests/it/golden.rs`), and keep the old ones: they must still pass;
//! 4. check the partial indexes that read the payload's JSON (migration 11,
//!    `store::sealed_log`: a sealed batch's `Sealed` events and the voids) still
//!    find those events as the new format writes them.

use serde_json::Value;

/// The format `commit` writes today. Format 1 is the JSON of `games::Event` as of
/// the first release with a golden fixture (`tests/fixtures/golden-v1.sqlite`);
/// every event written before this column existed is format 1 too.
pub const EVENT_FORMAT: i64 = 1;

/// One migration: a payload of format `n` (at index `n - 1`) to format `n + 1`.
type Step = fn(Value) -> Result<Value, String>;

/// The migrations, in order. Invariant: `STEPS.len() == EVENT_FORMAT - 1`.
const STEPS: &[Step] = &[];

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// Written by a newer nomicbot: this one must not guess at its meaning.
    #[error(
        "{what} is in event format {format}, but this nomicbot ({version}) reads event formats up to {known}: the database was written by {written_by}; upgrade nomicbot to open it"
    )]
    Newer {
        what: String,
        format: i64,
        known: i64,
        version: &'static str,
        /// `nomicbot X.Y.Z` as recorded in the database, or "a newer nomicbot".
        written_by: String,
    },
    /// A format no release ever wrote (zero, negative): the row was damaged.
    #[error("{what} claims event format {format}, which no nomicbot ever wrote")]
    Unknown { what: String, format: i64 },
    /// A migration could not make sense of an old payload.
    #[error("{what} cannot be brought from event format {from} to {to}: {reason}")]
    Migration {
        what: String,
        from: i64,
        to: i64,
        reason: String,
    },
}

/// Brings `payload`, written in event format `format`, to `EVENT_FORMAT`. `what`
/// names the row in errors (`event #12`).
pub fn upgrade(what: &str, format: i64, payload: Value) -> Result<Value, FormatError> {
    upgrade_with(STEPS, what, format, payload)
}

/// Refuses a format this binary cannot read, before any row is deserialized.
/// `written_by` is the version the database says wrote it last, if it says.
pub fn check_readable(
    what: &str,
    format: i64,
    written_by: Option<&str>,
) -> Result<(), FormatError> {
    check_with(STEPS, what, format, written_by)
}

fn known(steps: &[Step]) -> i64 {
    i64::try_from(steps.len()).unwrap_or(i64::MAX - 1) + 1
}

fn check_with(
    steps: &[Step],
    what: &str,
    format: i64,
    written_by: Option<&str>,
) -> Result<(), FormatError> {
    let known = known(steps);
    if format < 1 {
        return Err(FormatError::Unknown {
            what: what.to_owned(),
            format,
        });
    }
    if format > known {
        return Err(FormatError::Newer {
            what: what.to_owned(),
            format,
            known,
            version: env!("CARGO_PKG_VERSION"),
            written_by: match written_by {
                Some(version) if version != env!("CARGO_PKG_VERSION") => {
                    format!("nomicbot {version}")
                }
                _ => "a newer nomicbot".to_owned(),
            },
        });
    }
    Ok(())
}

fn upgrade_with(
    steps: &[Step],
    what: &str,
    format: i64,
    mut payload: Value,
) -> Result<Value, FormatError> {
    check_with(steps, what, format, None)?;
    let mut at = format;
    // `check_with` bounds `at` to 1..=steps.len() + 1, so the index is in range.
    while let Some(step) = usize::try_from(at - 1).ok().and_then(|i| steps.get(i)) {
        payload = step(payload).map_err(|reason| FormatError::Migration {
            what: what.to_owned(),
            from: at,
            to: at + 1,
            reason,
        })?;
        at += 1;
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_steps_match_the_current_format() {
        assert_eq!(known(STEPS), EVENT_FORMAT);
    }

    #[test]
    fn a_current_payload_comes_back_unchanged() {
        let payload = json!({"game": "players", "kind": "joined"});
        assert_eq!(
            upgrade("event #1", EVENT_FORMAT, payload.clone()),
            Ok(payload)
        );
    }

    /// A made-up format 2 that renamed the tag `players` to `registry`: the hook
    /// runs each step from the row's format up, in order.
    fn players_to_registry(mut payload: Value) -> Result<Value, String> {
        if payload["game"] == "players" {
            payload["game"] = json!("registry");
        }
        Ok(payload)
    }

    fn add_version(mut payload: Value) -> Result<Value, String> {
        payload["v3"] = json!(true);
        Ok(payload)
    }

    fn refuse(_: Value) -> Result<Value, String> {
        Err("no field \"kind\"".to_owned())
    }

    #[test]
    fn an_old_payload_goes_through_every_step_from_its_format_up() {
        let steps: &[Step] = &[players_to_registry, add_version];
        let old = json!({"game": "players", "kind": "joined"});
        assert_eq!(
            upgrade_with(steps, "event #1", 1, old),
            Ok(json!({"game": "registry", "kind": "joined", "v3": true}))
        );
        let middle = json!({"game": "registry", "kind": "left"});
        assert_eq!(
            upgrade_with(steps, "event #2", 2, middle),
            Ok(json!({"game": "registry", "kind": "left", "v3": true}))
        );
    }

    #[test]
    fn a_newer_format_is_refused_naming_the_version_that_wrote_it() {
        let error = check_readable("event #7", EVENT_FORMAT + 1, Some("9.9.9"))
            .expect_err("a newer format is refused");
        let text = error.to_string();
        assert!(
            text.contains("event #7")
                && text.contains(&format!("event format {}", EVENT_FORMAT + 1))
                && text.contains("written by nomicbot 9.9.9")
                && text.contains("upgrade nomicbot"),
            "{text}"
        );
        assert!(matches!(
            upgrade("event #7", EVENT_FORMAT + 1, json!({})),
            Err(FormatError::Newer { .. })
        ));
    }

    #[test]
    fn a_format_below_one_or_a_failing_step_is_a_typed_error() {
        assert!(matches!(
            upgrade("event #1", 0, json!({})),
            Err(FormatError::Unknown { format: 0, .. })
        ));
        let steps: &[Step] = &[refuse];
        assert_eq!(
            upgrade_with(steps, "event #3", 1, json!({})),
            Err(FormatError::Migration {
                what: "event #3".into(),
                from: 1,
                to: 2,
                reason: "no field \"kind\"".into()
            })
        );
    }
}
