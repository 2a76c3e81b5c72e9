//! Every outgoing text comes from `templates/` (minijinja), loaded at start-up so
//! a moderator can restyle a message without recompiling. A template's first line
//! is `Subject: ...`; the rest, after one blank line, is the body.

use std::path::{Path, PathBuf};

use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;

#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("templates folder {0} is missing")]
    MissingFolder(PathBuf),
    #[error("template {name}: {source:#}")]
    Render {
        name: String,
        source: minijinja::Error,
    },
    #[error("template {name}: the first line must be `Subject: ...`")]
    NoSubject { name: String },
    #[error("templates/sentences.txt has no wording for a sentence: {0}")]
    MissingWording(String),
}

/// A rendered message text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub subject: String,
    pub body: String,
}

pub struct Templates {
    env: Environment<'static>,
    dir: PathBuf,
}

impl Templates {
    pub fn load(dir: &Path) -> Result<Templates, TemplateError> {
        if !dir.is_dir() {
            return Err(TemplateError::MissingFolder(dir.to_owned()));
        }
        let mut env = Environment::new();
        env.set_loader(minijinja::path_loader(dir));
        // A typo in a template must fail loudly, never print an empty blank.
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        if let Ok(syntax) = minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .build()
        {
            env.set_syntax(syntax);
        }
        let mut templates = Templates {
            env,
            dir: dir.to_owned(),
        };
        // The modules whose sentences have a file of their own, found by name:
        // templates/sentences.txt hands a code to sentences/<first word>.txt.
        let modules: Vec<String> = templates
            .names()
            .iter()
            .filter_map(|name| name.strip_prefix("sentences/")?.strip_suffix(".txt"))
            .map(str::to_owned)
            .collect();
        templates
            .env
            .add_global("sentence_modules", minijinja::Value::from(modules));
        Ok(templates)
    }

    /// Every template file under the folder, by name relative to it.
    pub fn names(&self) -> Vec<String> {
        let mut names = Vec::new();
        collect(&self.dir, &self.dir, &mut names);
        names.sort();
        names
    }

    /// Parses every template: a syntax error is reported at start-up, not as a broken mail.
    pub fn check_syntax(&self) -> Result<usize, TemplateError> {
        let names = self.names();
        for name in &names {
            self.env
                .get_template(name)
                .map_err(|source| TemplateError::Render {
                    name: name.clone(),
                    source,
                })?;
        }
        Ok(names.len())
    }

    pub fn render(&self, name: &str, values: impl Serialize) -> Result<Rendered, TemplateError> {
        let file = format!("{name}.txt");
        let render_error = |source| TemplateError::Render {
            name: file.clone(),
            source,
        };
        let text = self
            .env
            .get_template(&file)
            .and_then(|t| t.render(minijinja::Value::from(minijinja::value::Serde(values))))
            .map_err(render_error)?;
        let (first, body) = text.split_once('\n').unwrap_or((&text, ""));
        let subject = first
            .strip_prefix("Subject:")
            .ok_or_else(|| TemplateError::NoSubject { name: file.clone() })?
            .trim()
            .to_owned();
        let body = body.strip_prefix('\n').unwrap_or(body);
        Ok(Rendered {
            subject,
            body: tidy(body),
        })
    }
}

impl Templates {
    /// A template with no `Subject:` line (a piece of a message, such as the
    /// link to the web record), rendered and trimmed.
    pub fn render_piece(
        &self,
        name: &str,
        values: impl Serialize,
    ) -> Result<String, TemplateError> {
        let file = format!("{name}.txt");
        let values = minijinja::Value::from(minijinja::value::Serde(values));
        let rendered = match self.env.get_template(&file) {
            Ok(template) => template.render(values),
            // A templates folder written before this piece was shipped: the
            // shipped text.
            Err(error) if error.kind() == minijinja::ErrorKind::TemplateNotFound => {
                match DEFAULTS.iter().find(|(shipped, _)| *shipped == file) {
                    Some((_, text)) => self.env.render_str(text, values),
                    None => Err(error),
                }
            }
            Err(error) => Err(error),
        };
        rendered
            .map(|text| text.trim().to_owned())
            .map_err(|source| TemplateError::Render { name: file, source })
    }
}

/// Trailing spaces off every line, at most one blank line in a row, one final newline:
/// template control blocks leave stray blank lines that no reader wants.
fn tidy(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut blank_run = 0;
    for line in body.lines() {
        // The signature separator keeps its space (RFC 3676): "-- ".
        let line = if line == "-- " { line } else { line.trim_end() };
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn collect(root: &Path, dir: &Path, names: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, names);
        } else if path.extension().is_some_and(|e| e == "txt")
            && let Ok(relative) = path.strip_prefix(root)
        {
            names.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

// `DEFAULTS: &[(&str, &str)]`, (name, text) of every file of `templates/`: the
// list is written by `build.rs`, so a new template is picked up by adding its file.
include!(concat!(env!("OUT_DIR"), "/templates.rs"));

/// Writes the shipped templates that are missing under `dir`; never overwrites a
/// moderator's edits. Returns how many were written.
pub fn write_defaults(dir: &Path) -> std::io::Result<usize> {
    let mut written = 0;
    for (name, text) in DEFAULTS {
        let path = dir.join(name);
        if path.exists() {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text)?;
        written += 1;
    }
    Ok(written)
}

/// Every sentence code the engine can produce, with sample blanks: `check` renders
/// each through `reply.txt` so a missing or broken wording shows at start-up.
pub const SENTENCE_SAMPLES: &[(&str, &[(&str, &str)])] = &[
    ("joined", &[("name", "Alice")]),
    ("left", &[("name", "Alice")]),
    ("renamed", &[("name", "Alice")]),
    (
        "alias_requested",
        &[
            ("address", "a2@x.org"),
            ("main_address", "a@x.org"),
            ("expires", "2026-01-01 00:00 UTC"),
        ],
    ),
    (
        "alias_confirmed",
        &[("address", "a@x.org"), ("name", "Alice")],
    ),
    (
        "alias_address_confirmed",
        &[
            ("address", "a2@x.org"),
            ("name", "Alice"),
            ("main_address", "a@x.org"),
        ],
    ),
    ("alias_player_confirmed", &[("address", "a2@x.org")]),
    (
        "alias_waiting_for_player",
        &[("address", "a2@x.org"), ("main_address", "a@x.org")],
    ),
    ("alias_waiting_for_address", &[("address", "a2@x.org")]),
    ("alias_code_wrong", &[]),
    (
        "alias_code_burnt",
        &[("address", "a2@x.org"), ("reason", "code_public")],
    ),
    ("alias_request_outdated", &[("address", "a2@x.org")]),
    ("alias_pending_elsewhere", &[("address", "a2@x.org")]),
    ("help_sent", &[("tag", "nomic")]),
    ("already_playing", &[("name", "Alice")]),
    ("not_a_player", &[("address", "a@x.org")]),
    ("name_taken", &[("name", "Alice")]),
    ("bad_name", &[("name", "<x>"), ("max", "40")]),
    ("same_name", &[("name", "Alice")]),
    ("bad_address", &[("address", "nonsense")]),
    (
        "alias_own_address",
        &[("address", "game-list@nomic.example")],
    ),
    (
        "address_in_use",
        &[("address", "a@x.org"), ("name", "Alice")],
    ),
    ("no_pending_alias", &[("address", "a@x.org")]),
    ("usage", &[("usage", "join NAME")]),
    (
        "reason_required",
        &[("usage", "gaol PLAYER because REASON")],
    ),
    ("reason_too_long", &[("chars", "1001"), ("max", "1000")]),
    (
        "name_reserved",
        &[("name", "the Treasury"), ("reserved", "treasury")],
    ),
    (
        "name_reserved",
        &[("name", "Eve because"), ("reserved", "because")],
    ),
    (
        "unknown_command",
        &[("tag", "nomic"), ("commands", "join NAME")],
    ),
    (
        "unknown_command",
        &[
            ("tag", "nomic"),
            ("commands", "join NAME, give AMOUNT CURRENCY to NAME"),
            ("closest", "give"),
        ],
    ),
    ("unknown_tag", &[("tag", "chess")]),
    ("vacation_started", &[("date", "2027-03-01")]),
    ("vacation_ended", &[]),
    ("vacation_in_past", &[("date", "2020-01-01")]),
    (
        "vacation_too_long",
        &[
            ("date", "9999-12-31"),
            ("max_days", "366"),
            ("latest", "2027-01-01"),
        ],
    ),
    ("not_on_vacation", &[]),
    ("home_set", &[("home", "The Old Mill")]),
    ("moderators_only", &[]),
    ("moderators_only", &[("none_configured", "true")]),
    ("no_such_player", &[("name", "Nobody")]),
    ("gaoled", &[("name", "Alice")]),
    ("already_in_gaol", &[("name", "Alice")]),
    ("released", &[("name", "Alice")]),
    ("not_in_gaol", &[("name", "Alice")]),
    ("standing_changed", &[("name", "Alice"), ("active", "")]),
    ("standing_unchanged", &[("name", "Alice")]),
    (
        "accounts_short",
        &[("have", "3"), ("tried", "5"), ("currency", "A$")],
    ),
    ("accounts_not_positive", &[("amount", "0")]),
    ("ruleset_not_officer", &[("action", "amend")]),
    (
        "ruleset_amended",
        &[("number", "325"), ("name", "A turn"), ("version", "2")],
    ),
    ("random_no_period", &[]),
    ("voided", &[("message_id", "abc@x.org")]),
    ("office_only", &[("office", "Referee")]),
    ("void_nothing", &[("message_id", "abc@x.org")]),
    ("void_already", &[("message_id", "abc@x.org")]),
    (
        "void_restored",
        &[("message_id", "abc@x.org"), ("restored", "def@x.org")],
    ),
    (
        "void_random",
        &[
            ("message_id", "abc@x.org"),
            ("what", "started"),
            ("label", "nweek 1"),
        ],
    ),
    (
        "random_started",
        &[("label", "nweek 1"), ("commitment", "ab")],
    ),
    (
        "random_drew",
        &[("purpose", "order"), ("n", "6"), ("result", "4")],
    ),
    ("random_ended", &[("label", "nweek 1")]),
    (
        "adjusted",
        &[("name", "Bob"), ("amount", "-10"), ("currency", "points")],
    ),
];

/// The sample blanks a module's sentence file gives each code: a comment line
/// `{#- sample: key=JSON key=JSON #}` (or `(no args)`) just before the branch
/// `{%- elif s.code == "CODE" -%}`. A sample that does not read is left out, and
/// the code is then rendered with no blanks, which fails loudly if it needs any.
fn module_samples(text: &str) -> Vec<(String, serde_json::Value)> {
    let mut samples = Vec::new();
    let mut pending: Option<serde_json::Map<String, serde_json::Value>> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(sample) = line
            .strip_prefix("{#- sample:")
            .and_then(|rest| rest.strip_suffix("#}"))
        {
            pending = Some(parse_sample(sample.trim()));
        } else if let Some(code) = line
            .strip_prefix("{%- elif s.code == \"")
            .and_then(|rest| rest.split_once('"'))
            .map(|(code, _)| code.to_owned())
        {
            samples.push((
                code,
                serde_json::Value::Object(pending.take().unwrap_or_default()),
            ));
        }
    }
    samples
}

fn parse_sample(mut text: &str) -> serde_json::Map<String, serde_json::Value> {
    let mut args = serde_json::Map::new();
    if text == "(no args)" {
        return args;
    }
    while let Some((key, rest)) = text.split_once('=') {
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
        match values.next() {
            Some(Ok(value)) => {
                args.insert(key.trim().to_owned(), value);
                text = rest[values.byte_offset()..].trim_start();
            }
            _ => break,
        }
    }
    args
}

/// Renders every template with sample values and fails on the first that breaks;
/// for each registered game, how many of its own announcements its sample sent
/// (all of them rendered).
pub fn check_samples(templates: &Templates) -> Result<Vec<(&'static str, usize)>, TemplateError> {
    let mut lines: Vec<serde_json::Value> = SENTENCE_SAMPLES
        .iter()
        .map(|(code, args)| {
            let args: serde_json::Map<String, serde_json::Value> =
                args.iter().map(|(k, v)| (k.to_string(), serde_json::Value::from(*v))).collect();
            serde_json::json!({ "line": code, "status": "refused", "sentence": { "code": code, "args": args } })
        })
        .collect();
    for name in templates.names() {
        if name.starts_with("sentences/") {
            let text = std::fs::read_to_string(templates.dir.join(&name)).unwrap_or_default();
            lines.extend(module_samples(&text).into_iter().map(|(code, args)| {
                serde_json::json!({ "line": code, "status": "done", "sentence": { "code": code, "args": args } })
            }));
        }
    }
    lines.push(serde_json::json!({ "line": "officers", "status": "done", "sentence": { "code": "officers", "args": {
        "offices": [{ "office": "Referee", "holders": ["r@x.org"] }, { "office": "Wrangler", "holders": [] }] } } }));
    lines.push(serde_json::json!({ "line": "players", "status": "done", "sentence": { "code": "roster", "args": {
        "players": [{ "name": "Alice", "address": "a@x.org", "aliases": [], "joined": "2026-01-01 00:00 UTC",
        "home": "Alice's Home", "vacation_until": null, "in_gaol": true, "inactive": false }],
        "count": 51, "more": 50, "full_roster": null } } }));
    let reply = templates.render(
        "reply",
        serde_json::json!({ "tag": "nomic", "subject": "[nomic] test", "subject_rest": "test", "lines": lines, "done": 1, "refused": 1,
            "not_understood": 0, "help": ["nomic"], "public": true, "at": "2026-01-01 00:00 UTC", "copy_of": null }),
    )?;
    if let Some(missing) = reply.body.lines().find(|l| l.contains("[no wording for")) {
        return Err(TemplateError::MissingWording(missing.trim().to_owned()));
    }
    // The answer to untagged private mail: the tags, then each tag's help.
    templates.render(
        "reply",
        serde_json::json!({ "tag": "help", "subject": "help", "subject_rest": "", "lines": [], "done": 0, "refused": 0,
            "not_understood": 0, "help": ["nomic"], "public": false, "at": "2026-01-01 00:00 UTC", "copy_of": null,
            "untagged": true, "tags": ["nomic", "vote"] }),
    )?;
    let samples = serde_json::json!({
        "name": "Alice", "id": 1, "at": "2026-01-01 00:00 UTC", "n_players": 2, "old_name": "Al", "new_name": "Alice",
        "address": "a2@x.org", "main_address": "a@x.org", "expires": "2026-01-04 00:00 UTC", "requested": "2026-01-01 00:00 UTC",
        "until": "2027-03-01", "officer": "mod@x.org", "active": false,
        "message_id": "abc@x.org", "reason": "asked by phone", "command": "join Alice",
        "amount": "-10", "currency": "points", "purpose": "the turn order", "n": 6, "result": 4, "index": 0,
        "label": "nweek 1", "restored": ["def@x.org"],
        "requested_by": "Alice <a@x.org>", "public": false, "code": "K7QM-2XHD-9PWA-RT3F", "sender": "eve@evil.example",
        "address_confirmed": true, "player_confirmed": false,
    });
    for name in [
        "player_joined",
        "player_left",
        "player_renamed",
        "alias_confirm_request",
        "alias_player_request",
        "alias_confirmed",
        "alias_cancelled",
        "alias_expired",
        "player_vacation",
        "player_back",
        "player_gaoled",
        "player_released",
        "player_standing",
        "override_adjust",
        "override_on_behalf",
        "override_void",
        "random_drew",
        "passphrase_confirm_request",
    ] {
        templates.render(name, &samples)?;
    }
    // The sender-authentication notices (`mail::auth`), one per reason.
    for why in [
        "officer",
        "forged",
        "passphrase_missing",
        "passphrase_wrong",
        "passphrase_public",
        "list_unsigned",
        "recovered_unknown",
        "recovered_uncertain",
        "unauthenticated",
    ] {
        templates.render(
            "auth_notice",
            serde_json::json!({ "why": why, "address": "mod@x.org", "reason": "no DKIM or DMARC pass for x.org",
                "trust": "not authenticated (no DKIM or DMARC pass for x.org)",
                "headers": [{ "name": "From", "value": "Mallory <mod@x.org>" }],
                "lines": ["adjust Mallory 100 points because I can"], "public": false, "at": "2026-01-01 00:00 UTC",
                "passphrase_help": true, "candidates": ["bob@x.org", "mod@x.org"] }),
        )?;
    }
    // The officers' periodic reports, one per office (`games::reports`); a
    // templates folder written before them has none, and sends none.
    if templates.names().iter().any(|name| name == "report.txt") {
        let report = serde_json::json!({ "at": "2026-01-12 12:00 UTC", "since": "2026-01-05 12:00 UTC", "every_days": 7,
            "players": null, "balances": null, "changes": null, "standings": null, "games": null });
        let parts = [
            (
                "Registrar",
                "registrar",
                "players",
                serde_json::json!([{ "name": "Alice", "joined": "2026-01-01 00:00 UTC",
                "vacation_until": null, "in_gaol": false, "inactive": false }]),
            ),
            (
                "Treasuror",
                "treasuror",
                "balances",
                serde_json::json!([{ "currency": "points", "treasury": "0",
                "holders": [{ "name": "Alice", "amount": "20" }] }]),
            ),
            (
                "Rulekeepor",
                "rulekeepor",
                "changes",
                serde_json::json!([{ "number": 301, "name": "Singing", "kind": "enacted",
                "version": 1, "at": "2026-01-06 10:00 UTC", "by": "mod@x.org" }]),
            ),
            (
                "Scorekeepor",
                "scorekeepor",
                "standings",
                serde_json::json!({ "currencies": ["points"],
                "scores": [{ "game": "gnomic", "name": "Gnomic score" }],
                "players": [{ "name": "Alice", "balances": ["20"], "scores": [null] }], "unscored": ["vote"] }),
            ),
        ];
        for (office, kind, key, value) in parts {
            let mut values = report.clone();
            values["office"] = office.into();
            values["kind"] = kind.into();
            values[key] = value;
            if kind == "scorekeepor" {
                values["games"] = serde_json::json!([{ "game": "vote", "tag": "vote", "what": "ballot 1: Shall we?",
                    "players": [], "turn": null, "deadline": "2026-01-13 12:00 UTC", "deadline_what": null }]);
            }
            templates.render("report", &values)?;
        }
    }
    templates.render(
        "passphrase_cleared",
        serde_json::json!({ "address": "a@x.org", "officer": "mod@x.org", "reason": "she forgot it" }),
    )?;
    templates.render(
        "not_read",
        serde_json::json!({ "tag": "nomic", "subject": "[nomic] test", "subject_rest": "test",
            "at": "2026-01-01 00:00 UTC", "reason": "it has 1,500 command lines; the bot reads at most 1,000" }),
    )?;
    for bound in [
        serde_json::json!({ "bound": "actions", "cap": 100, "day": "2026-01-01" }),
        serde_json::json!({ "bound": "outgoing", "cap": 500, "cap_bytes": 10_000_000, "count": 500,
            "bytes": 2_000_000, "day": "2026-01-01", "hour": "2026-01-01 10:00 UTC", "until": "2026-01-01 11:00 UTC" }),
    ] {
        let mut values = bound;
        values["sender"] = serde_json::json!("a@x.org");
        values["tag"] = serde_json::json!("nomic");
        values["subject_rest"] = serde_json::json!("rename Bob");
        values["at"] = serde_json::json!("2026-01-01 10:30 UTC");
        values["inbox"] = serde_json::json!(12);
        templates.render("flood_held", &values)?;
        templates.render("flood_alert", &values)?;
    }
    templates.render(
        "went_public",
        serde_json::json!({ "subject": "[vote] yes", "first_at": "2026-01-01 00:00 UTC",
            "at": "2026-01-01 00:05 UTC" }),
    )?;
    templates.render(
        "chatter",
        serde_json::json!({ "tag": "nomic", "subject_rest": "", "at": "2026-01-01 00:00 UTC" }),
    )?;
    templates.render(
        "digest",
        serde_json::json!({ "day": "2026-01-01", "cap": 10, "count": 2, "omitted": 1,
            "answers": [{ "subject": "Re: [nomic] balance", "body": "> balance
Done. You have 5 A$." }] }),
    )?;
    // Every game's announcements, with the values its sample really sends.
    let mut rendered = Vec::new();
    for (sample, mail) in crate::samples::played() {
        for one in &mail {
            templates.render(&one.template, &one.values)?;
        }
        rendered.push((
            sample.name,
            mail.iter().filter(|m| sample.is_own(m)).count(),
        ));
    }
    Ok(rendered)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{DEFAULTS, Templates};

    /// `init` and `demo` write the built-in copies: they must be the files of
    /// `templates/`, every one and no other, as they are on disk.
    #[test]
    fn the_built_in_templates_are_the_files_of_the_templates_folder() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
        let on_disk = Templates::load(&dir).unwrap().names();
        assert!(
            !on_disk.is_empty(),
            "no template found under {}",
            dir.display()
        );
        let built_in: Vec<&str> = DEFAULTS.iter().map(|(name, _)| *name).collect();
        let not_built_in: Vec<&String> = on_disk
            .iter()
            .filter(|name| !built_in.contains(&name.as_str()))
            .collect();
        let not_on_disk: Vec<&&str> = built_in
            .iter()
            .filter(|name| !on_disk.iter().any(|file| file == *name))
            .collect();
        assert!(
            not_built_in.is_empty() && not_on_disk.is_empty(),
            "under templates/ but not in DEFAULTS: {not_built_in:?}; \
             in DEFAULTS but not under templates/: {not_on_disk:?}"
        );
        assert_eq!(built_in, on_disk, "DEFAULTS is sorted by name, once each");
        for (name, text) in DEFAULTS {
            let file = std::fs::read_to_string(dir.join(name)).unwrap();
            assert!(
                *text == file,
                "the built-in templates/{name} differs from the file"
            );
        }
    }

    #[test]
    fn every_sample_renders_with_the_shipped_templates() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
        let rendered = super::check_samples(&Templates::load(&dir).unwrap()).unwrap();
        assert_eq!(rendered.len(), crate::games::game_names().len());
    }
}
