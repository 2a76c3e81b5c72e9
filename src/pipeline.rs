//! The shell's heart, the same for every transport: stored messages are applied
//! in arrival order, deadlines fire at their time in between, and each step's
//! events, state and outgoing mail are committed in one transaction. It reads no
//! clock: `now` is always an argument.

use std::path::PathBuf;

use jiff::Timestamp;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::engine::{Address, Audience, Ctx, Mail, Status};
use crate::games::driver::Next;
use crate::games::{self, Message, Outcome, World};
use crate::mail::auth;
use crate::mail::compose::{self, Kind, Outgoing, Thread};
use crate::mail::parse::{self, Envelope, ParseOptions};
use crate::store::{
    InboxRow, InboxStatus, NewMail, Quota, Received, Step, Store, StoreError, Stored, WrittenFrom,
};
use crate::templates::{TemplateError, Templates};

mod preview;
pub use preview::PREVIEWED;

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error(transparent)]
    Compose(#[from] compose::ComposeError),
    #[error("cannot read the dictionary {path}: {source}")]
    Dictionary {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Another nomicbot is applying or sending for the same database.
    #[error(transparent)]
    Lock(#[from] crate::store::lock::LockError),
    #[error("cannot create {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `[bot] database` names a folder, not the database file.
    #[error(
        "[bot] database = {setting:?} is a folder ({path}): name a file in it, e.g. database = \"{example}\""
    )]
    DatabaseIsFolder {
        setting: String,
        path: PathBuf,
        example: String,
    },
    /// The bot's own DKIM check cannot start (`auth = "dkim"`).
    #[error(transparent)]
    Verifier(#[from] crate::mail::verify::VerifyError),
}

pub type Result<T> = std::result::Result<T, PipelineError>;

fn is_void(event: &games::Event) -> bool {
    matches!(
        event,
        games::Event::Override(games::Override::Voided { .. })
    )
}

/// The answer line of the void of this Message-ID.
fn names_void(line: &crate::engine::LineReport, message_id: &str) -> bool {
    line.sentence.code == "voided"
        && line
            .sentence
            .args
            .get("message_id")
            .is_some_and(|v| v == message_id)
}

/// A named point where a test can stop the process dead (`NOMICBOT_FAILPOINT=name`,
/// or `name:N` for the N-th time the process reaches it): the process says so on
/// stderr and waits to be killed, so the test can SIGKILL it exactly there. Never
/// set in production.
/// Steps committed in one transaction (see `Store::begin_batch`): few enough
/// that an answer waits for little else, many enough that a burst of mail costs
/// few commits.
const BATCH_STEPS: usize = 16;

pub fn failpoint(name: &str) {
    static REACHED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let Ok(wanted) = std::env::var("NOMICBOT_FAILPOINT") else {
        return;
    };
    let (wanted_name, nth) = match wanted.split_once(':') {
        Some((wanted_name, nth)) => (wanted_name, nth.parse::<usize>().unwrap_or(1)),
        None => (wanted.as_str(), 1),
    };
    if wanted_name != name {
        return;
    }
    let reached = REACHED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
    if reached == nth {
        eprintln!("failpoint {wanted} reached");
        loop {
            std::thread::park();
        }
    }
}

/// The time a message is applied at: its arrival, but never later than `now`. A
/// server clock, an IMAP APPEND or a Maildir file dated in the future must not
/// fire the deadlines before that date now, nor set the world's clock ahead.
fn arrival(row: &InboxRow, now: Timestamp) -> Timestamp {
    row.received_at.min(now)
}

/// What one `process` pass did, for the log and the CLI.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Processed {
    pub applied: usize,
    pub aside: usize,
    pub deadlines: usize,
    pub mail_queued: usize,
}

/// What `Bot::import_rules_as` put in the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// Events recorded: the import, and every binding it changed.
    pub changes: usize,
    /// The text's rules, by number and name.
    pub rules: Vec<(u32, String)>,
}

pub struct Bot {
    pub config: Config,
    pub store: Store,
    templates: Templates,
    params: games::Params,
    parse_options: ParseOptions,
    /// Who is believed to be the sender (`identity` in bot.toml).
    auth: auth::Policy,
    /// The bot's own DKIM check, under `auth = "dkim"`.
    verifier: Option<crate::mail::verify::Verifier>,
    world: World,
    /// The time the world has been brought up to.
    clock: Option<Timestamp>,
    /// The bot's own secret, from the database (see `Store::secret`).
    secret: [u8; 32],
    /// The database's lock, for a bot that applies or sends (`open_exclusive`).
    _lock: Option<crate::store::lock::DatabaseLock>,
}

impl Bot {
    /// Opens the bot to read, or to apply and send in a process that holds the
    /// database's lock otherwise (tests, the demo). See `open_exclusive`.
    pub fn open(config: Config) -> Result<Bot> {
        let database = Bot::database(&config)?;
        Bot::open_at(config, &database, None)
    }

    /// Opens the bot to apply and send: first takes the database's lock (waiting
    /// up to `wait` for another process to finish), so that no two processes
    /// apply the same message. Held until the bot is dropped. The lock comes
    /// before the state is read, so the state read is the last one committed.
    pub fn open_exclusive(config: Config, wait: std::time::Duration) -> Result<Bot> {
        let database = Bot::database(&config)?;
        let lock = crate::store::lock::acquire(&database, wait)?;
        Bot::open_at(config, &database, Some(lock))
    }

    /// The database file, its folder created if missing.
    fn database(config: &Config) -> Result<PathBuf> {
        let database = config.resolve(&config.bot.database);
        if database.is_dir() {
            let setting = config.bot.database.display().to_string();
            return Err(PipelineError::DatabaseIsFolder {
                example: format!("{}/nomicbot.sqlite", setting.trim_end_matches('/')),
                setting,
                path: database,
            });
        }
        if let Some(parent) = database.parent() {
            std::fs::create_dir_all(parent).map_err(|source| PipelineError::Io {
                path: parent.to_owned(),
                source,
            })?;
        }
        Ok(database)
    }

    fn open_at(
        config: Config,
        database: &std::path::Path,
        lock: Option<crate::store::lock::DatabaseLock>,
    ) -> Result<Bot> {
        let mut store = Store::open(database)?;
        let secret = store.secret()?;
        let templates = Templates::load(&config.resolve(&config.bot.templates))?;
        templates.check_syntax()?;
        let (snapshot, clock) = store.load_world()?;
        let params = game_params(&config, official_dictionary(&config)?);
        let parse_options = ParseOptions {
            known_tags: games::known_tags(),
            list_addresses: vec![config.bot.list.to_lowercase()],
            recover_from: config.identity.recover_from.clone(),
            list_id: config.bot.list_id.as_ref().map(|id| id.to_lowercase()),
            footer_markers: config.list.footer_markers.clone(),
            bot_address: config.bot.address.to_lowercase(),
            list_reply_to: config
                .list
                .reply_to
                .as_ref()
                .map(|address| address.trim().to_lowercase()),
        };
        let auth = auth::Policy::new(
            &config.identity,
            &config.bot.list,
            config.list_dkim_domain(),
        );
        let verifier = match auth.mode {
            crate::config::AuthMode::Dkim => Some(crate::mail::verify::Verifier::new(
                &config.verify_settings(),
            )?),
            _ => None,
        };
        let mut bot = Bot {
            config,
            store,
            templates,
            params,
            parse_options,
            auth,
            verifier,
            world: World::default(),
            clock,
            secret,
            _lock: lock,
        };
        bot.world = match snapshot {
            Some(world) => world,
            // No snapshot in today's format (a new database, or one an older or newer
            // release wrote): the event log is the source of truth.
            None => bot.rebuild()?,
        };
        // The currencies are configuration, not history: the world takes them as
        // they are configured now (replay starts from the same configured world).
        std::sync::Arc::make_mut(&mut bot.world.shared.accounts).currencies =
            bot.config.accounts.currency.clone();
        // A snapshot written before history retired from the live state.
        bot.world.retire();
        Ok(bot)
    }

    /// Commits an outcome that no message caused (a deadline, an import by the operator): its events, the new state and its mail, in one transaction.
    pub fn commit_local(
        &mut self,
        cause: &str,
        at: Timestamp,
        mut outcome: Outcome,
        now: Timestamp,
    ) -> Result<usize> {
        // Before anything reads them: the batches' commitments and reveals with
        // every action the log holds, replaced ones included.
        games::sealed_log::complete(&mut outcome, &mut &self.store)?;
        let mut next = self.world.clone();
        for event in &outcome.events {
            next.apply_event(event, at);
        }
        next.retire();
        let mut mail = self.render_all(&outcome, cause, None, Kind::Notice, now)?;
        let copies = self.observer_copies(&outcome, cause, mail.len(), now)?;
        mail.extend(copies);
        let queued = mail.len();
        self.store.commit(Step {
            inbox: None,
            cause: cause.to_owned(),
            at,
            events: outcome.events,
            world: &next,
            mail,
            now,
        })?;
        self.world = next;
        self.clock = Some(self.clock.map_or(at, |c| c.max(at)));
        Ok(queued)
    }

    /// Imports a ruleset text (a ruleset page, or "Create a new rule" blocks numbered
    /// from the next free number) as the operator's act, announced on the list.
    pub fn import_rules(
        &mut self,
        text: &str,
        now: Timestamp,
    ) -> Result<std::result::Result<usize, String>> {
        Ok(self
            .import_rules_as(text, None, now)?
            .map(|imported| imported.changes))
    }

    /// `import_rules`, a text of one rule perhaps under another number
    /// (`number`, `nomicbot import-rules ghost --number 441`). A shipped text
    /// (`rule_texts`), by name or as a copy of its file, is read by its layout.
    /// A rule of the text whose number the registry gives a rule of another
    /// name is refused, naming both and the fix: an import never silently
    /// replaces another rule.
    /// A shipped text that numbers none of its rules takes the numbers bot.toml
    /// gives the game that follows it (Rule Tag's `[ruletag.rules]`), each rule
    /// found by its text among the game's, when every one of them is free: the
    /// operator then has nothing to set. Otherwise they keep the next free numbers.
    fn number_as_the_game_follows(&self, text: &str, rules: &mut [crate::engine::ruleset::Rule]) {
        let baselines: Vec<(u32, &str)> = self
            .params
            .setting
            .bound
            .iter()
            .filter(|declared| declared.text == text)
            .flat_map(|declared| declared.baseline.iter().copied())
            .collect();
        let numbers: Option<Vec<u32>> = rules
            .iter()
            .map(|rule| {
                baselines
                    .iter()
                    .find(|(_, baseline)| baseline.trim() == rule.text.trim())
                    .map(|(number, _)| *number)
            })
            .collect();
        let Some(numbers) = numbers else { return };
        let mut distinct = numbers.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let free = numbers.iter().zip(rules.iter()).all(|(number, rule)| {
            self.world
                .ruleset
                .get(*number)
                .is_none_or(|held| held.name == rule.name)
                && !self.world.ruleset.was_repealed(*number)
        });
        if distinct.len() == rules.len() && free {
            for (number, rule) in numbers.into_iter().zip(rules.iter_mut()) {
                rule.number = number;
            }
        }
    }

    pub fn import_rules_as(
        &mut self,
        text: &str,
        number: Option<u32>,
        now: Timestamp,
    ) -> Result<std::result::Result<Imported, String>> {
        let first = self.world.ruleset.next_free_number();
        let shipped = crate::rule_texts::matching(text);
        let parsed = match shipped {
            Some(shipped) => shipped.parse(first),
            None => crate::engine::ruleset::parse_ruleset_with(text, first),
        };
        let mut rules = match parsed {
            Ok(rules) => rules,
            Err(error) => return Ok(Err(error.to_string())),
        };
        let label = shipped.map_or_else(|| "FILE".to_owned(), |t| t.name.to_owned());
        // A text that numbers none of its rules (a proposal's "Create a new
        // rule" blocks, the Space Nomic's paragraphs) reads the same from any
        // first number.
        let unnumbered = match shipped {
            Some(shipped) => shipped.parse(first.saturating_add(1)),
            None => crate::engine::ruleset::parse_ruleset_with(text, first.saturating_add(1)),
        }
        .is_ok_and(|again| again.first().map(|r| r.number) != rules.first().map(|r| r.number));
        if let Some(number) = number {
            if rules.len() != 1 && !unnumbered {
                return Ok(Err(format!(
                    "--number gives a text of one rule its number, or numbers a text that numbers none of its rules from it; this text numbers its {} rules itself",
                    rules.len()
                )));
            }
            for (offset, rule) in (0u32..).zip(rules.iter_mut()) {
                rule.number = number.saturating_add(offset);
            }
        } else if unnumbered && let Some(shipped) = shipped {
            self.number_as_the_game_follows(shipped.name, &mut rules);
        }
        for rule in &rules {
            let Some(held) = self.world.ruleset.get(rule.number) else {
                continue;
            };
            if held.name == rule.name {
                continue;
            }
            let fix = if rules.len() == 1 {
                let free = self.world.ruleset.next_free_number();
                let key = shipped
                    .and_then(|t| t.number_key)
                    .map(|key| {
                        format!(", then set {key} = {free} in bot.toml so that the game follows it")
                    })
                    .unwrap_or_default();
                format!(
                    "import it under a free number: nomicbot import-rules {label} --number {free}{key}"
                )
            } else {
                format!(
                    "repeal or renumber rule {} in the registry first ([ruleset] repeal {})",
                    rule.number, rule.number
                )
            };
            return Ok(Err(format!(
                "rule {} in the registry is \"{}\", and the text's rule {} is \"{}\": an import does not replace a rule of another name; {fix}",
                rule.number, held.name, rule.number, rule.name
            )));
        }
        let names: Vec<(u32, String)> = rules
            .iter()
            .map(|rule| (rule.number, rule.name.clone()))
            .collect();
        let at = self.clock.map_or(now, |c| c.max(now));
        let done = match self.world.ruleset.import(rules, at) {
            Ok(done) => done,
            Err(refusal) => return Ok(Err(refusal.0.code)),
        };
        let digest = Sha256::digest(text.as_bytes());
        let cause = format!(
            "import:{}",
            digest
                .iter()
                .take(16)
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        );
        let mut outcome = Outcome {
            events: done.events.into_iter().map(games::Event::Ruleset).collect(),
            mail: done.mail,
            ..Outcome::default()
        };
        // The games follow the imported rules in the same step.
        let mut imported = self.world.clone();
        for event in &outcome.events {
            imported.apply_event(event, at);
        }
        let followed = imported.after_rules_changed(at, &self.params);
        outcome.events.extend(followed.events);
        outcome.mail.extend(followed.mail);
        let n_events = outcome.events.len();
        self.commit_local(&cause, at, outcome, now)?;
        Ok(Ok(Imported {
            changes: n_events,
            rules: names,
        }))
    }

    /// The world the event log describes: every event, in today's format, folded
    /// onto `initial_world`.
    pub fn rebuild(&self) -> Result<World> {
        self.rebuild_with(|| {})
    }

    /// `rebuild`, calling `folded` after each event. The log is read as it streams
    /// by, never held: its voids first (`games::voided_causes` needs them before
    /// the first event is folded), then every event, both in one read transaction
    /// so that they see the same log.
    pub fn rebuild_with(&self, mut folded: impl FnMut()) -> Result<World> {
        self.store.reading(|store| {
            let voids = store.void_events()?;
            let voids: Vec<_> = voids
                .iter()
                .map(|r| (r.at, r.cause.as_str(), &r.event))
                .collect();
            let mut folding =
                games::Folding::new(self.initial_world(), games::voided_causes(&voids));
            store.each_event(|record| -> Result<()> {
                folding.apply(record.at, &record.cause, &record.event);
                folded();
                Ok(())
            })?;
            Ok(folding.finish())
        })
    }

    /// The world before any event: empty, with the configured currencies.
    pub fn initial_world(&self) -> World {
        let mut world = World::default();
        std::sync::Arc::make_mut(&mut world.shared.accounts).currencies =
            self.config.accounts.currency.clone();
        world
    }

    /// A message voids another's actions. A void the log does not allow
    /// (`overrides::judge_void`: no message with actions, one already void, one
    /// whose random draws were published) is refused instead (the engine cannot
    /// see the log; the shell can). Otherwise the new world is the log folded
    /// again without the voided message's events, or with the message a voided
    /// void had voided restored.
    fn after_void(&self, outcome: &mut Outcome, cause: &str, at: Timestamp) -> Result<World> {
        let recorded = self.store.events()?;
        let mut records: Vec<_> = recorded
            .iter()
            .map(|r| (r.at, r.cause.as_str(), &r.event))
            .collect();
        let events = std::mem::take(&mut outcome.events);
        let mut judged = Vec::new();
        for event in &events {
            if let games::Event::Override(games::Override::Voided { message_id, .. }) = event {
                // Each void is judged on the log with this message's events before it.
                let mut so_far = records.clone();
                so_far.extend(judged.iter().map(|e| (at, cause, e)));
                match games::overrides::judge_void(&so_far, message_id) {
                    Ok(restored) => {
                        self.word_restore(outcome, message_id, &restored);
                        judged.push(event.clone());
                    }
                    Err(refusal) => self.refuse_void(outcome, message_id, refusal),
                }
            } else {
                judged.push(event.clone());
            }
        }
        outcome.events = judged;
        records.extend(outcome.events.iter().map(|e| (at, cause, e)));
        Ok(games::fold(self.initial_world(), &records))
    }

    /// A void the log does not allow: no announcement, and its line refused with the reason.
    fn refuse_void(
        &self,
        outcome: &mut Outcome,
        message_id: &str,
        refusal: crate::engine::Sentence,
    ) {
        outcome.mail.retain(|mail| {
            !(mail.template == "override_void" && mail.values["message_id"] == message_id)
        });
        for line in outcome
            .report
            .iter_mut()
            .filter(|line| names_void(line, message_id))
        {
            line.status = Status::Refused;
            line.sentence = refusal.clone();
        }
    }

    /// A void of a void says so, in the answer and the announcement, naming what it restores.
    fn word_restore(&self, outcome: &mut Outcome, message_id: &str, restored: &[String]) {
        if restored.is_empty() {
            return;
        }
        for mail in outcome.mail.iter_mut().filter(|mail| {
            mail.template == "override_void" && mail.values["message_id"] == message_id
        }) {
            mail.values["restored"] = json!(restored);
        }
        for line in outcome
            .report
            .iter_mut()
            .filter(|line| names_void(line, message_id))
        {
            line.sentence = crate::engine::Sentence::new("void_restored")
                .arg("message_id", message_id)
                .arg("restored", restored.join(">, <"));
        }
    }

    /// The secret bytes of one step: SHA-256 of the bot's secret and the step's cause.
    /// Unpredictable to players, the same whenever the same step is replayed.
    fn entropy(&self, cause: &str) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(self.secret);
        hasher.update(cause.as_bytes());
        hasher.finalize().into()
    }

    pub fn params(&self) -> &games::Params {
        &self.params
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    pub fn templates(&self) -> &Templates {
        &self.templates
    }

    /// Stores received messages (and the IMAP high-water mark) in one transaction.
    pub fn receive(
        &mut self,
        batch: &[Received],
        imap_mark: Option<(&str, u32, u32)>,
        now: Timestamp,
    ) -> Result<Vec<Stored>> {
        let stored = self.store.store_received(batch, imap_mark, now)?;
        if stored.iter().any(|s| matches!(s, Stored::New(_))) {
            failpoint("after-store");
        }
        Ok(stored)
    }

    /// The key that makes a message "the same message" however it reached us.
    pub fn dedup_key(raw: &[u8]) -> String {
        // The Message-ID is a header: the body, however large, is not read,
        // but for the post a list wrapped (`parse::dedup_message_id`).
        match parse::dedup_message_id(raw) {
            Some(id) if !id.trim().is_empty() => format!("<{}>", id.trim()),
            _ => {
                let digest = Sha256::digest(raw);
                format!(
                    "sha256:{}",
                    digest
                        .iter()
                        .map(|b| format!("{b:02x}"))
                        .collect::<String>()
                )
            }
        }
    }

    /// Applies every stored message in arrival order, firing each deadline that falls
    /// before a message's arrival first, then every deadline due by `now`.
    pub fn process(&mut self, now: Timestamp) -> Result<Processed> {
        self.process_with(now, &mut |_| {})
    }

    /// [`Bot::process`], calling `committed` with the mail queued so far each
    /// time a batch of steps is durable, so a sending side can start on it.
    /// The first batch is one step and each next one twice as long, up to
    /// [`BATCH_STEPS`]: the first answer goes out as soon as it can, and a
    /// burst still costs few commits.
    pub fn process_with(
        &mut self,
        now: Timestamp,
        committed: &mut dyn FnMut(usize),
    ) -> Result<Processed> {
        let mut done = Processed::default();
        // A deadline reported due that fires nothing (a bug) must not spin forever.
        let mut stuck: Option<Timestamp> = None;
        let mut steps = 1;
        loop {
            // The steps of a batch become durable together: if they cannot, the
            // world goes back to the last durable one and they are applied again.
            let durable = (self.world.clone(), self.clock);
            self.store.begin_batch()?;
            let result = self.process_batch(now, steps, &mut done, &mut stuck);
            let ended = self.store.end_batch(&self.world);
            if ended.is_err() {
                (self.world, self.clock) = durable;
            }
            let more = result?;
            ended?;
            if done.mail_queued > 0 {
                committed(done.mail_queued);
            }
            if !more {
                break;
            }
            steps = (steps * 2).min(BATCH_STEPS);
        }
        let before_echoes = done.mail_queued;
        while let Some((echo, first)) = self.store.next_echo()? {
            done.mail_queued += self.look_at_echo(&echo, &first, now)?;
        }
        if done.mail_queued > before_echoes {
            committed(done.mail_queued);
        }
        Ok(done)
    }

    /// Up to `steps` steps (messages, deadlines, digests) in time order. Says
    /// whether more may be waiting.
    fn process_batch(
        &mut self,
        now: Timestamp,
        steps: usize,
        done: &mut Processed,
        stuck: &mut Option<Timestamp>,
    ) -> Result<bool> {
        for _ in 0..steps {
            let pending = self.store.next_pending()?;
            let arrival = pending.as_ref().map(|row| arrival(row, now));
            // A day's digest of folded answers goes out once the day is over,
            // in time order with the messages and deadlines around it.
            if let Some(due) = self.store.next_digest()?
                && due <= now
                && arrival.is_none_or(|arrival| due <= arrival)
                && self
                    .world
                    .next_deadline(&self.params)
                    .is_none_or(|deadline| due <= deadline)
            {
                done.mail_queued += self.send_digests(due, now)?;
                continue;
            }
            match games::driver::next(&self.world, &self.params, arrival, now, *stuck) {
                Next::Deadline(at) => match self.fire(at, now)? {
                    Some(queued) => {
                        done.mail_queued += queued;
                        done.deadlines += 1;
                    }
                    None => *stuck = Some(at),
                },
                Next::Message => {
                    let Some(row) = pending else {
                        return Ok(false);
                    };
                    let (applied, queued) = self.handle(&row, now)?;
                    if applied {
                        done.applied += 1;
                    } else {
                        done.aside += 1;
                    }
                    done.mail_queued += queued;
                }
                Next::Idle => return Ok(false),
            }
        }
        Ok(true)
    }

    /// A second copy of a message already handled is never applied again. One
    /// that came through the list when the first came to the bot alone tells
    /// its sender: the list showed everyone what they meant to be private (a
    /// vote sent with the list in Bcc, say). What it did stands (rulings.md).
    fn look_at_echo(&mut self, echo: &InboxRow, first: &InboxRow, now: Timestamp) -> Result<usize> {
        let reason = echo.reason.clone();
        let first_envelope = parse::parse(&first.raw, &self.parse_options);
        let echo_envelope = parse::parse(parse::header_block(&echo.raw), &self.parse_options);
        let went_public = first.status == InboxStatus::Applied
            && !self.store.echo_told(&first.dedup_key)?
            && !self.is_public(&first_envelope)
            && self.is_public(&echo_envelope)
            && first_envelope.automatic.is_none();
        let sender = first_envelope
            .sender
            .as_ref()
            .filter(|sender| went_public && can_write_to(&sender.address));
        let at = self.clock.map_or(now, |clock| clock.max(now));
        let cause = format!("echo:{}", echo.id);
        let mut mail = Vec::new();
        if let (Some(sender), Some(tag)) = (sender, &first_envelope.tag) {
            let notice = Mail::new(
                Audience::Address(Address::new(&sender.address)),
                &tag.tag,
                "went_public",
                json!({
                    "subject": first_envelope.subject,
                    "first_at": crate::engine::human_time(first.received_at),
                    "at": crate::engine::human_time(echo.received_at),
                }),
            );
            let thread = Thread {
                message_id: first_envelope.message_id.clone(),
                references: first_envelope.references.clone(),
            };
            match self.render_one(&notice, &cause, 0, &thread, Kind::Reply, now) {
                Ok(rendered) => mail.push(rendered),
                Err(error @ (PipelineError::Template(_) | PipelineError::Compose(_))) => {
                    tracing::error!(inbox = echo.id, %error, "cannot write the notice of a private message gone public");
                }
                Err(other) => return Err(other),
            }
        }
        let reason = match (&reason, mail.is_empty()) {
            (Some(reason), false) => Some(format!("{reason}; {}", crate::store::ECHO_TOLD)),
            _ => reason,
        };
        if !mail.is_empty() {
            tracing::info!(
                inbox = echo.id,
                "a private message came back through the list: its sender is told"
            );
        }
        let queued = mail.len();
        self.store.commit(Step {
            inbox: Some((echo.id, InboxStatus::Duplicate, reason)),
            cause,
            at,
            events: Vec::new(),
            world: &self.world,
            mail,
            now,
        })?;
        Ok(queued)
    }

    /// The next moment the world changes by itself, or a digest of folded
    /// answers is due.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        let digest = self.store.next_digest().ok().flatten();
        self.world
            .next_deadline(&self.params)
            .into_iter()
            .chain(digest)
            .min()
    }

    /// Fires what is due at `at`, one phase per step. `None` when nothing was due
    /// after all (then the loop must not ask again for the same instant).
    fn fire(&mut self, at: Timestamp, now: Timestamp) -> Result<Option<usize>> {
        // Several steps may be taken at one instant (two turns counted in the
        // same second, around a message): each has a cause of its own, or the
        // second's mail would be taken for the first's and never sent, and an
        // entropy of its own, or its random draws would repeat the first's. The
        // first keeps the names every earlier release gave it.
        let taken = self.store.steps_with_prefix(&format!("deadline:{at}:"))?;
        let entropy = match taken {
            0 => self.entropy(&format!("deadline:{at}")),
            k => self.entropy(&format!("deadline:{at}#{k}")),
        };
        let outcome = self.world.tick(at, &self.params, now, entropy);
        if outcome.events.is_empty() {
            tracing::error!(%at, "a deadline was due but nothing fired: skipped");
            return Ok(None);
        }
        let mut cause = format!("deadline:{at}:{}", outcome.phase);
        if self.store.has_cause(&cause)? {
            cause = format!("{cause}:{taken}");
        }
        self.commit_local(&cause, at, outcome, now).map(Some)
    }

    /// Handles one stored message: applied and answered, or kept aside with the reason.
    fn handle(&mut self, row: &InboxRow, now: Timestamp) -> Result<(bool, usize)> {
        let limits = self.config.limits.clone();
        // A message too large to read is not parsed whole: its headers say who
        // sent it and under which tag, and that is all the answer needs.
        let too_large = row.raw.len() > limits.max_message_bytes;
        let envelope = if too_large {
            parse::parse(parse::header_block(&row.raw), &self.parse_options)
        } else {
            parse::parse(&row.raw, &self.parse_options)
        };
        let arrived = arrival(row, now);
        if arrived != row.received_at {
            tracing::warn!(
                inbox = row.id,
                arrival = %row.received_at,
                %now,
                "a message's arrival time is later than now: taken as now"
            );
        }
        // Invariant: the world's time never runs backwards, even for a message whose
        // server time is older than a deadline already fired.
        let at = self.clock.map_or(arrived, |c| c.max(arrived));
        let cause = format!("mail:{}", row.dedup_key);
        match self.classify(&envelope)? {
            Err(reason) => match &envelope.sender_doubt {
                // The list named several possible authors: none is credited, and
                // only the moderators are told. Any of the addresses may be a
                // third player's that the poster wrote, who must not receive
                // the post's lines as if they were theirs.
                Some(doubt) if envelope.sender.is_none() && envelope.automatic.is_none() => {
                    self.uncredited(row, at, &cause, &envelope, doubt, now)
                }
                _ => self.keep_aside(row, at, &cause, reason, now),
            },
            Ok((sender, message)) => {
                // A signature already received makes a message a replay, whatever
                // its Message-ID: a signed message re-sent by one who got it.
                let signatures: Vec<String> = crate::mail::verify::signatures(&row.raw)
                    .into_iter()
                    .map(|tags| tags.replay_key)
                    .collect();
                if let Some(earlier) = self.store.claim_signatures(row.id, &signatures)? {
                    return self.keep_aside(
                        row,
                        at,
                        &cause,
                        format!(
                            "a replay: it carries a DKIM signature of {earlier}, received before"
                        ),
                        now,
                    );
                }
                let public = self.is_public(&envelope);
                let claim = auth::Claim {
                    raw: &row.raw,
                    envelope: &envelope,
                    sender: &sender,
                    public,
                    arrived: at,
                };
                let evidence = || self.evidence(&row.raw);
                let (mut trust, message, passphrase_commands) = match auth::check(
                    &self.auth,
                    &claim,
                    &self.world.shared.players,
                    message,
                    &evidence,
                ) {
                    auth::Checked::Accepted {
                        trust,
                        message,
                        commands,
                    } => (trust, message, commands),
                    auth::Checked::Refused(refused) => {
                        return self.refuse_sender(row, at, &cause, &envelope, refused, &[], now);
                    }
                };
                let (message, preview) = preview::take(message);
                let ctx = Ctx {
                    now: at,
                    sender: Address::new(&sender.address),
                    sender_name: sender.name.clone(),
                    public,
                    // A preview draws apart from any real step, so it foretells no draw.
                    entropy: if preview {
                        self.entropy(&format!("preview:{cause}"))
                    } else {
                        self.entropy(&cause)
                    },
                };
                let thread = Thread {
                    message_id: envelope.message_id.clone(),
                    references: envelope.references.clone(),
                };
                let over_limit = if too_large {
                    Some(format!(
                        "it is {} bytes long, and the bot reads messages of up to {} bytes",
                        row.raw.len(),
                        limits.max_message_bytes
                    ))
                } else if message.body_lines.len() > limits.max_command_lines {
                    Some(format!(
                        "it has {} lines, and the bot reads up to {} lines in one message",
                        message.body_lines.len(),
                        limits.max_command_lines
                    ))
                } else {
                    None
                };
                if let Some(reason) = over_limit {
                    return self.not_read(
                        row,
                        at,
                        &cause,
                        reason,
                        &message,
                        &ctx,
                        &thread,
                        trust.is_full(),
                        now,
                    );
                }
                // A message of passphrase lines alone has no command for the games
                // (which would answer it with the tag's help).
                let only_passphrases = message.body_lines.iter().all(|l| l.trim().is_empty())
                    && message.subject_rest.is_empty()
                    && !passphrase_commands.is_empty();
                let mut outcome = if only_passphrases {
                    Outcome::default()
                } else if trust.is_full() {
                    self.world.handle(&message, &ctx, &self.params)
                } else {
                    // Unauthenticated: carried out with no office; refused whole if
                    // it needed one, and the holder of the address told.
                    match auth::handle_limited(&self.world, &message, &ctx, &self.params) {
                        Ok(outcome) => outcome,
                        Err(lines) => {
                            if trust == auth::Trust::Unchecked {
                                trust = auth::settle(&self.auth, &claim, &evidence());
                            }
                            if trust.is_full() {
                                self.world.handle(&message, &ctx, &self.params)
                            } else {
                                let refused = auth::Refused::officer(&ctx.sender, &trust);
                                return self.refuse_sender(
                                    row, at, &cause, &envelope, refused, &lines, now,
                                );
                            }
                        }
                    }
                };
                let passphrase_lines_from = outcome.report.len();
                if let Err(line) = auth::apply_commands(
                    passphrase_commands,
                    &ctx,
                    &trust,
                    &self.auth,
                    &self.world.shared.players,
                    self.params
                        .with_offices(&self.world.shared.offices)
                        .officers(),
                    &mut outcome,
                ) {
                    let refused = auth::Refused::officer(&ctx.sender, &trust);
                    return self.refuse_sender(row, at, &cause, &envelope, refused, &[line], now);
                }
                // Talk in a tagged thread ("How generous of you!" under `Re:
                // [nomic] ...`) is no attempt at a command: no "not understood"
                // and no help, at most one line (`bot.chatter_answer`).
                let is_reply = envelope.tag.as_ref().is_some_and(|tag| tag.reply);
                if is_reply
                    && !preview
                    && outcome.chatter
                    && outcome.events.is_empty()
                    && outcome.mail.is_empty()
                    && outcome
                        .report
                        .iter()
                        .all(|line| line.status == Status::NotUnderstood)
                {
                    return self.chatter(
                        row,
                        at,
                        &cause,
                        &message,
                        &ctx,
                        &thread,
                        trust.is_full(),
                        now,
                    );
                }
                if let Some(held) = self.flood_gate(
                    row,
                    at,
                    &cause,
                    &message,
                    &ctx,
                    &thread,
                    trust.is_full(),
                    now,
                )? {
                    return Ok(held);
                }
                if preview {
                    // A void is judged on the log, as the real one would be.
                    if outcome.events.iter().any(is_void) {
                        let _judged = self.after_void(&mut outcome, &cause, at)?;
                    }
                    let asked = preview::Asked {
                        row,
                        at,
                        cause: &cause,
                        message: &message,
                        envelope: &envelope,
                        ctx: &ctx,
                        thread: &thread,
                        trusted: trust.is_full(),
                        passphrase_lines_from,
                    };
                    return self.preview(asked, &outcome, now);
                }
                games::sealed_log::complete(&mut outcome, &mut &self.store)?;
                let mut next = self.world.clone();
                for event in &outcome.events {
                    next.apply_event(event, at);
                }
                if outcome.events.iter().any(is_void) {
                    next = self.after_void(&mut outcome, &cause, at)?;
                }
                next.retire();
                let rendered = self
                    .render_caused(&outcome, &cause, &thread, ctx.public, now)
                    .and_then(|mut mail| {
                        let answer = self.answer(
                            &outcome,
                            &message,
                            &envelope,
                            &ctx,
                            &cause,
                            mail.len(),
                            &thread,
                            now,
                        )?;
                        mail.extend(answer);
                        Ok(mail)
                    });
                let mail = match rendered {
                    Ok(mail) => mail,
                    // One message whose mail cannot be written (an address lettre
                    // refuses, a template that fails on its values) must not stop the
                    // messages behind it: it is kept aside, unapplied, with the reason.
                    Err(error @ (PipelineError::Template(_) | PipelineError::Compose(_))) => {
                        tracing::error!(inbox = row.id, %error, "cannot write the mail of a message");
                        return self.keep_aside(
                            row,
                            at,
                            &cause,
                            format!("its mail cannot be written: {error}"),
                            now,
                        );
                    }
                    Err(other) => return Err(other),
                };
                let mail_bytes: usize = mail.iter().map(|one| one.raw.len()).sum();
                if mail_bytes > limits.max_answer_bytes {
                    let reason = format!(
                        "its answer would be {mail_bytes} bytes long, and the bot sends up to {} bytes for one message",
                        limits.max_answer_bytes
                    );
                    return self.not_read(
                        row,
                        at,
                        &cause,
                        reason,
                        &message,
                        &ctx,
                        &thread,
                        trust.is_full(),
                        now,
                    );
                }
                let mut mail = mail;
                self.apply_quota(&mut mail, &ctx.sender, at, trust.is_full())?;
                let copies = self.observer_copies(&outcome, &cause, mail.len(), now)?;
                mail.extend(copies);
                let queued = mail.len();
                self.store.commit(Step {
                    inbox: Some((row.id, InboxStatus::Applied, None)),
                    cause,
                    at,
                    events: outcome.events,
                    world: &next,
                    mail,
                    now,
                })?;
                self.world = next;
                self.clock = Some(at);
                failpoint("after-commit");
                Ok((true, queued))
            }
        }
    }

    /// What is known of a message's signatures: our server's verdict, or the
    /// bot's own check.
    fn evidence(&self, raw: &[u8]) -> auth::Evidence {
        match &self.verifier {
            Some(verifier) => auth::Evidence::from_verified(&self.auth, verifier.verify(raw), raw),
            None => auth::Evidence::from_headers(&self.auth, raw),
        }
    }

    /// Keeps aside a message whose sender is not believed, and tells the holder of
    /// the address it claims (when that address can be written to): a short notice
    /// with the message's headers, never its passphrase.
    #[allow(clippy::too_many_arguments)]
    fn refuse_sender(
        &mut self,
        row: &InboxRow,
        at: Timestamp,
        cause: &str,
        envelope: &Envelope,
        refused: auth::Refused,
        lines: &[String],
        now: Timestamp,
    ) -> Result<(bool, usize)> {
        let reason = format!("sender not believed: {}", refused.reason);
        let holder = refused
            .tell
            .as_ref()
            .filter(|address| address.as_str().parse::<lettre::Address>().is_ok());
        let Some(holder) = holder else {
            return self.keep_aside(row, at, cause, reason, now);
        };
        let values = auth::notice_values(
            &refused,
            holder,
            &self.world.shared.players,
            &row.raw,
            lines,
            self.is_public(envelope),
            &crate::engine::human_time(at),
        );
        let notice = Mail::new(
            Audience::Address(holder.clone()),
            crate::engine::players::TAG,
            "auth_notice",
            values,
        );
        let thread = Thread {
            message_id: envelope.message_id.clone(),
            references: envelope.references.clone(),
        };
        let mail = match self.render_one(&notice, cause, 0, &thread, Kind::Reply, now) {
            Ok(mail) => vec![mail],
            Err(error) => {
                tracing::error!(inbox = row.id, %error, "cannot write the notice to the holder of an address");
                Vec::new()
            }
        };
        tracing::info!(inbox = row.id, %reason, "kept aside");
        let queued = mail.len();
        self.store.commit(Step {
            inbox: Some((row.id, InboxStatus::Aside, Some(reason))),
            cause: cause.to_owned(),
            at,
            events: Vec::new(),
            world: &self.world,
            mail,
            now,
        })?;
        self.clock = Some(at);
        Ok((false, queued))
    }

    /// A post through the list whose author cannot be told (`SenderDoubt`):
    /// kept aside, and each moderator told with the possible authors and its
    /// lines; none of those named is.
    fn uncredited(
        &mut self,
        row: &InboxRow,
        at: Timestamp,
        cause: &str,
        envelope: &Envelope,
        doubt: &parse::SenderDoubt,
        now: Timestamp,
    ) -> Result<(bool, usize)> {
        let reason = format!("sender not believed: {}", doubt.reason);
        let refused = auth::Refused {
            why: "recovered_uncertain",
            reason: doubt.reason.clone(),
            tell: None,
            trust: "none: the author is not known".to_owned(),
        };
        let thread = Thread {
            message_id: envelope.message_id.clone(),
            references: envelope.references.clone(),
        };
        let candidates: Vec<&str> = doubt
            .candidates
            .iter()
            .map(|c| c.address.as_str())
            .collect();
        let mut mail = Vec::new();
        let moderators = self.config.bot.moderators.clone();
        for (index, moderator) in moderators.iter().enumerate() {
            let moderator = Address::new(moderator.trim());
            if moderator.as_str().parse::<lettre::Address>().is_err() {
                continue;
            }
            let mut values = auth::notice_values(
                &refused,
                &moderator,
                &self.world.shared.players,
                &row.raw,
                &envelope.command_lines,
                self.is_public(envelope),
                &crate::engine::human_time(at),
            );
            values["candidates"] = json!(candidates);
            let notice = Mail::new(
                Audience::Address(moderator),
                crate::engine::players::TAG,
                "auth_notice",
                values,
            );
            match self.render_one(&notice, cause, index, &thread, Kind::Reply, now) {
                Ok(rendered) => mail.push(rendered),
                Err(error) => {
                    tracing::error!(inbox = row.id, %error, "cannot write the notice to a moderator");
                }
            }
        }
        tracing::info!(inbox = row.id, %reason, "kept aside");
        let queued = mail.len();
        self.store.commit(Step {
            inbox: Some((row.id, InboxStatus::Aside, Some(reason))),
            cause: cause.to_owned(),
            at,
            events: Vec::new(),
            world: &self.world,
            mail,
            now,
        })?;
        self.clock = Some(at);
        Ok((false, queued))
    }

    /// A reply whose lines are all talk: nothing to apply; kept aside with the
    /// reason, and answered with one short line only if `bot.chatter_answer` says so.
    #[allow(clippy::too_many_arguments)]
    fn chatter(
        &mut self,
        row: &InboxRow,
        at: Timestamp,
        cause: &str,
        message: &Message,
        ctx: &Ctx,
        thread: &Thread,
        trusted: bool,
        now: Timestamp,
    ) -> Result<(bool, usize)> {
        let reason = "chatter: a reply in which no line reads as a command".to_string();
        let mut mail = Vec::new();
        if self.config.bot.chatter_answer == crate::config::ChatterAnswer::Short {
            let answer = Mail::new(
                Audience::Address(ctx.sender.clone()),
                &message.tag,
                "chatter",
                json!({
                    "tag": message.tag,
                    "subject_rest": answered_subject(&parse::subject_of(&row.raw), message),
                    "at": crate::engine::human_time(ctx.now),
                }),
            );
            match self.render_one(&answer, cause, 0, thread, Kind::Reply, now) {
                Ok(one) => mail.push(one),
                Err(error @ (PipelineError::Template(_) | PipelineError::Compose(_))) => {
                    tracing::error!(inbox = row.id, %error, "cannot write the answer to chatter");
                }
                Err(other) => return Err(other),
            }
            self.apply_quota(&mut mail, &ctx.sender, at, trusted)?;
        }
        tracing::info!(inbox = row.id, %reason, "kept aside");
        let queued = mail.len();
        self.store.commit(Step {
            inbox: Some((row.id, InboxStatus::Aside, Some(reason))),
            cause: cause.to_owned(),
            at,
            events: Vec::new(),
            world: &self.world,
            mail,
            now,
        })?;
        self.clock = Some(at);
        Ok((false, queued))
    }

    /// A message beyond a limit (`[limits]`): kept aside, unapplied, with the
    /// reason, and its sender told so in one short answer.
    #[allow(clippy::too_many_arguments)]
    fn not_read(
        &mut self,
        row: &InboxRow,
        at: Timestamp,
        cause: &str,
        reason: String,
        message: &Message,
        ctx: &Ctx,
        thread: &Thread,
        trusted: bool,
        now: Timestamp,
    ) -> Result<(bool, usize)> {
        let answer = Mail::new(
            Audience::Address(ctx.sender.clone()),
            &message.tag,
            "not_read",
            json!({
                "tag": message.tag,
                "subject_rest": answered_subject(&parse::subject_of(&row.raw), message),
                "at": crate::engine::human_time(ctx.now),
                "reason": reason,
            }),
        );
        let mut mail = match self.render_one(&answer, cause, 0, thread, Kind::Reply, now) {
            Ok(mail) => vec![mail],
            Err(error @ (PipelineError::Template(_) | PipelineError::Compose(_))) => {
                tracing::error!(inbox = row.id, %error, "cannot write the answer to a message not read");
                Vec::new()
            }
            Err(other) => return Err(other),
        };
        tracing::info!(inbox = row.id, %reason, "kept aside, not read");
        self.apply_quota(&mut mail, &ctx.sender, at, trusted)?;
        let queued = mail.len();
        self.store.commit(Step {
            inbox: Some((
                row.id,
                InboxStatus::Aside,
                Some(format!("not read: {reason}")),
            )),
            cause: cause.to_owned(),
            at,
            events: Vec::new(),
            world: &self.world,
            mail,
            now,
        })?;
        self.clock = Some(at);
        Ok((false, queued))
    }

    /// The daily cap on answers (Mailman's `max_autoresponses_per_day`): every
    /// mail a message of `sender` sends to a person (its answer, a balance, an
    /// alias request) counts against the sender's cap for the day of `at`; past
    /// the cap it is folded into its recipient's digest of that day, and so are
    /// the officers' copies of a folded answer. Announcements are never held. What
    /// the message does is done either way: only the mail waits.
    ///
    /// Deterministic: the count is of the answers already committed for the
    /// messages of that day, which are applied in arrival order, so a bot that
    /// catches up after a downtime folds exactly what one that never stopped did.
    ///
    /// Moderators and officers (their mail authenticated) are never capped: a
    /// moderator's busy first day is all answers they need. The answer that
    /// reaches the cap says so (`quota_notice.txt`).
    fn apply_quota(
        &self,
        mail: &mut [NewMail],
        sender: &Address,
        at: Timestamp,
        trusted: bool,
    ) -> Result<()> {
        let reached = self.quota_of(mail, sender, at, trusted)?;
        self.note_cap(mail, reached)
    }

    /// [`Self::apply_quota`] but the notice: marks each mail, and returns the
    /// index of the one that reaches the cap, if one does.
    fn quota_of(
        &self,
        mail: &mut [NewMail],
        sender: &Address,
        at: Timestamp,
        trusted: bool,
    ) -> Result<Option<usize>> {
        let cap = self.config.limits.max_answers_per_day;
        let officers = self.params.with_offices(&self.world.shared.offices);
        if cap == 0 || (trusted && holds_an_office(officers.officers(), sender)) {
            return Ok(None);
        }
        let Ok(day) = self.params.setting.calendar.day_of(at) else {
            return Ok(None);
        };
        let date = day.date.to_string();
        let sender = sender.as_str();
        let list = self.config.bot.list.to_lowercase();
        let is_to = |one: &NewMail, address: &str| {
            one.recipients
                .iter()
                .any(|recipient| recipient.eq_ignore_ascii_case(address))
        };
        let mut counted = self.store.answers_on(sender, &date)?;
        let mut answer_folded = false;
        let mut reached = None;
        for (index, one) in mail.iter_mut().enumerate() {
            if is_to(one, &list) {
                continue;
            }
            // An officer's copy of the answer goes where the answer goes.
            if one.template == "reply" && !is_to(one, sender) {
                if answer_folded {
                    one.quota = Quota::Folded { digest_at: day.end };
                }
                continue;
            }
            if counted < cap {
                counted += 1;
                if counted == cap {
                    reached = Some(index);
                }
                one.quota = Quota::Counted {
                    sender: sender.to_owned(),
                    day: date.clone(),
                };
            } else {
                answer_folded |= one.template == "reply";
                one.quota = Quota::Folded { digest_at: day.end };
            }
        }
        Ok(reached)
    }

    /// Sends the digests due at `at` (the end of a day): one per recipient, of
    /// the answers folded that day, in the order they were written. Each is
    /// committed with the folded mail it gathers and the clock moved to `at`.
    fn send_digests(&mut self, at: Timestamp, now: Timestamp) -> Result<usize> {
        let folded = self.store.folded(at)?;
        let mut by_recipient: Vec<(String, Vec<&crate::store::OutRow>)> = Vec::new();
        for row in &folded {
            let recipient = row.recipients.join(", ");
            match by_recipient
                .iter_mut()
                .find(|(known, _)| *known == recipient)
            {
                Some((_, rows)) => rows.push(row),
                None => by_recipient.push((recipient, vec![row])),
            }
        }
        let day = self
            .params
            .setting
            .calendar
            .day_of(at - jiff::SignedDuration::from_nanos(1))
            .map(|day| day.date.to_string())
            .unwrap_or_default();
        let limit = self.config.limits.max_answer_bytes;
        let mut digests = Vec::new();
        for (recipient, rows) in &by_recipient {
            let (mut answers, mut bytes, mut omitted) = (Vec::new(), 0, 0);
            for row in rows {
                let subject = parse::subject_of(&row.raw);
                let text = parse::text_of(&row.raw).replace("\r\n", "\n");
                // Each answer's own signature would end the digest for a mail reader.
                let body = text.split("\n-- \n").next().unwrap_or_default().trim_end();
                if bytes + body.len() + subject.len() > limit {
                    omitted += 1;
                    continue;
                }
                bytes += body.len() + subject.len();
                answers.push(json!({ "subject": subject, "body": body }));
            }
            let mail = Mail::new(
                Audience::Address(Address::new(recipient)),
                "nomic",
                "digest",
                json!({
                    "day": day,
                    "cap": self.config.limits.max_answers_per_day,
                    "count": rows.len(),
                    "answers": answers,
                    "omitted": omitted,
                }),
            );
            let cause = format!("digest:{at}:{recipient}");
            digests.push(self.render_one(
                &mail,
                &cause,
                0,
                &Thread::default(),
                Kind::Reply,
                now,
            )?);
        }
        let ids: Vec<i64> = folded.iter().map(|row| row.id).collect();
        let clock = self.clock.map_or(at, |clock| clock.max(at));
        self.store.commit_digests(clock, &ids, &digests, now)?;
        self.clock = Some(clock);
        tracing::info!(%at, digests = digests.len(), answers = ids.len(), "digests of folded answers queued");
        Ok(digests.len())
    }

    /// The flood bounds (`[limits] max_actions_per_day`, `max_outgoing_per_hour`,
    /// `max_outgoing_bytes_per_hour`), once the games have said what a message
    /// would do and before any of it is committed: talk in a tagged thread
    /// (chatter) is told apart first, so it never draws a notice. A message
    /// past a bound is kept aside, unapplied, with the bound in its reason;
    /// the first one held for its sender on the day tells them, and the first
    /// held on a crossing (the sender's day, or the hour) alerts the
    /// moderators. `Some` when it was held (what `handle` returns), `None` when
    /// it goes on. Moderators, officers and messages the operator released are
    /// never held; deadlines do not come through here.
    ///
    /// Deterministic as `apply_quota` is: the counts are of what is committed
    /// for the messages of that day or hour, applied in arrival order, and the
    /// hour is the step's own, however late the bot runs it.
    #[allow(clippy::too_many_arguments)]
    fn flood_gate(
        &mut self,
        row: &InboxRow,
        at: Timestamp,
        cause: &str,
        message: &Message,
        ctx: &Ctx,
        thread: &Thread,
        trusted: bool,
        now: Timestamp,
    ) -> Result<Option<(bool, usize)>> {
        let limits = &self.config.limits;
        let officers = self.params.with_offices(&self.world.shared.offices);
        if row
            .reason
            .as_deref()
            .is_some_and(|reason| reason.starts_with(crate::store::RELEASED))
            || (trusted && holds_an_office(officers.officers(), &ctx.sender))
        {
            return Ok(None);
        }
        let Ok(day) = self.params.setting.calendar.day_of(at) else {
            return Ok(None);
        };
        let date = day.date.to_string();
        let actor = ctx.sender.as_str().to_owned();
        let hour_start = at
            .round(
                jiff::TimestampRound::new()
                    .smallest(jiff::Unit::Hour)
                    .mode(jiff::RoundMode::Trunc),
            )
            .unwrap_or(at);
        let hour_end = hour_start + jiff::SignedDuration::from_hours(1);
        let actions = self.store.actions_on(&actor, &date)?;
        let (count, bytes) = self.store.outgoing_between(hour_start, hour_end)?;
        let outgoing = format!("outgoing:{hour_start}");
        let (held, told, alerted, values) =
            if limits.max_actions_per_day > 0 && actions >= limits.max_actions_per_day {
                let told = self.store.was_held(&actor, &date, "actions", row.id)?;
                let values = json!({
                    "bound": "actions",
                    "cap": limits.max_actions_per_day,
                    "day": date,
                });
                ("actions".to_owned(), told, told, values)
            } else if (limits.max_outgoing_per_hour > 0 && count >= limits.max_outgoing_per_hour)
                || (limits.max_outgoing_bytes_per_hour > 0
                    && bytes >= limits.max_outgoing_bytes_per_hour)
            {
                let told = self.store.was_held(&actor, &date, "outgoing:", row.id)?;
                let alerted = self.store.held_as(&outgoing, row.id)?;
                let values = json!({
                    "bound": "outgoing",
                    "cap": limits.max_outgoing_per_hour,
                    "cap_bytes": limits.max_outgoing_bytes_per_hour,
                    "count": count,
                    "bytes": bytes,
                    "day": date,
                    "hour": crate::engine::human_time(hour_start),
                    "until": crate::engine::human_time(hour_end),
                });
                (outgoing, told, alerted, values)
            } else {
                self.store.mark_actor(row.id, &actor, &date, None)?;
                return Ok(None);
            };
        let reason = match values["bound"].as_str() {
            Some("actions") => format!(
                "held: {actor} has had {actions} messages applied on {date}, and the bot applies up to {} a day from one sender (`[limits] max_actions_per_day`)",
                limits.max_actions_per_day
            ),
            _ => format!(
                "held: the bot wrote {count} mails ({bytes} bytes) in the hour from {}, and applies players' messages up to {} mails and {} bytes an hour, 0 for no bound (`[limits] max_outgoing_per_hour`, `max_outgoing_bytes_per_hour`)",
                crate::engine::human_time(hour_start),
                limits.max_outgoing_per_hour,
                limits.max_outgoing_bytes_per_hour
            ),
        };
        let mut values = values;
        values["sender"] = json!(actor);
        values["subject_rest"] = json!(answered_subject(&parse::subject_of(&row.raw), message));
        values["tag"] = json!(message.tag);
        values["at"] = json!(crate::engine::human_time(at));
        values["inbox"] = json!(row.id);
        let mut notices = Vec::new();
        if !told {
            notices.push(Mail::new(
                Audience::Address(ctx.sender.clone()),
                &message.tag,
                "flood_held",
                values.clone(),
            ));
        }
        if !alerted {
            let moderators = &officers.officers().moderators;
            if moderators.is_empty() {
                tracing::warn!(
                    inbox = row.id,
                    "a flood bound holds messages, and no moderator is configured to be alerted"
                );
            }
            for moderator in moderators {
                notices.push(Mail::new(
                    Audience::Address(moderator.clone()),
                    &message.tag,
                    "flood_alert",
                    values.clone(),
                ));
            }
        }
        // Named apart from the message's own mail: once released, its answer
        // must not take a notice's Message-ID (and be dropped as sent already).
        let notice_cause = format!("held:{cause}");
        let mut mail = Vec::new();
        for (index, notice) in notices.iter().enumerate() {
            match self.render_one(notice, &notice_cause, index, thread, Kind::Reply, now) {
                Ok(one) => mail.push(one),
                Err(error @ (PipelineError::Template(_) | PipelineError::Compose(_))) => {
                    tracing::error!(inbox = row.id, %error, "cannot write the notice of a held message");
                }
                Err(other) => return Err(other),
            }
        }
        tracing::info!(inbox = row.id, %reason, "kept aside by a flood bound");
        self.store.mark_actor(row.id, &actor, &date, Some(&held))?;
        let queued = mail.len();
        self.store.commit(Step {
            inbox: Some((row.id, InboxStatus::Aside, Some(reason))),
            cause: cause.to_owned(),
            at,
            events: Vec::new(),
            world: &self.world,
            mail,
            now,
        })?;
        self.clock = Some(at);
        Ok(Some((false, queued)))
    }

    /// Records that a message is not acted on, and why; nothing else changes.
    fn keep_aside(
        &mut self,
        row: &InboxRow,
        at: Timestamp,
        cause: &str,
        reason: String,
        now: Timestamp,
    ) -> Result<(bool, usize)> {
        tracing::info!(inbox = row.id, %reason, "kept aside");
        self.store.commit(Step {
            inbox: Some((row.id, InboxStatus::Aside, Some(reason))),
            cause: cause.to_owned(),
            at,
            events: Vec::new(),
            world: &self.world,
            mail: Vec::new(),
            now,
        })?;
        self.clock = Some(at);
        Ok((false, 0))
    }

    /// Is this a message to act on? `Err` holds the reason it is kept aside.
    fn classify(
        &self,
        envelope: &Envelope,
    ) -> Result<std::result::Result<(parse::Mailbox, Message), String>> {
        let bot = self.config.bot.address.to_lowercase();
        if let Some(id) = &envelope.message_id
            && (self.store.is_own_message(id)?
                || id.ends_with(&format!(".nomicbot@{}", self.config.bot_domain())))
        {
            return Ok(Err("the bot's own mail".into()));
        }
        if let Some(automatic) = &envelope.automatic {
            return Ok(Err(format!(
                "automatic mail, never answered: {automatic:?}"
            )));
        }
        let Some(sender) = envelope.sender.clone() else {
            return Ok(Err("no sender address could be found".into()));
        };
        if sender.address == bot {
            return Ok(Err("the bot's own mail".into()));
        }
        if !can_write_to(&sender.address) {
            return Ok(Err(format!(
                "the sender address {:?} cannot be answered",
                sender.address
            )));
        }
        let Some(tag) = &envelope.tag else {
            // Untagged mail on the list is talk among the players. Written to the
            // bot alone (`help`, or anything else), it can only have been meant
            // for the bot: it is answered once, as `[help]` is, with every tag.
            // Automatic mail never reaches here, and the answer carries
            // Auto-Submitted, so two bots cannot keep answering each other.
            if self.is_public(envelope) {
                return Ok(Err("no game tag in the subject".into()));
            }
            return Ok(Ok((
                sender,
                Message {
                    tag: "help".into(),
                    subject_rest: String::new(),
                    body_lines: Vec::new(),
                },
            )));
        };
        Ok(Ok((
            sender,
            tagged_message(tag, envelope.command_lines.clone()),
        )))
    }

    /// Came through the list (its List-Id, or the list address in To/Cc), or to the bot alone.
    fn is_public(&self, envelope: &Envelope) -> bool {
        let list = self.config.bot.list.to_lowercase();
        let by_id = match (&self.config.bot.list_id, &envelope.list_id) {
            (Some(ours), Some(theirs)) => ours.eq_ignore_ascii_case(theirs),
            _ => false,
        };
        by_id
            || envelope
                .to
                .iter()
                .chain(&envelope.cc)
                .any(|m| m.address == list)
    }

    /// The address of an announcement's place in the web record, when
    /// `[site] url` is set.
    fn site_link(&self, tag: &str, message_id: &str) -> Option<String> {
        self.config.site.url.as_ref()?;
        let page = crate::site::page_of_tag(tag);
        let url = self.config.site.link(&page)?;
        Some(format!("{url}#{}", crate::site::anchor(message_id)))
    }

    /// Renders the mail the engine asked for.
    fn render_all(
        &self,
        outcome: &Outcome,
        cause: &str,
        thread: Option<&Thread>,
        kind: Kind,
        now: Timestamp,
    ) -> Result<Vec<NewMail>> {
        let no_thread = Thread::default();
        outcome
            .mail
            .iter()
            .enumerate()
            .map(|(index, mail)| {
                self.render_one(mail, cause, index, thread.unwrap_or(&no_thread), kind, now)
            })
            .collect()
    }

    /// The mail a player's message caused, each threaded under that message;
    /// but an announcement caused by a private message (a moderator's close)
    /// goes under the latest announcement of its game, as the list never saw
    /// the message itself (`list_thread`).
    fn render_caused(
        &self,
        outcome: &Outcome,
        cause: &str,
        thread: &Thread,
        public: bool,
        now: Timestamp,
    ) -> Result<Vec<NewMail>> {
        outcome
            .mail
            .iter()
            .enumerate()
            .map(|(index, mail)| {
                if !public && mail.to == Audience::List {
                    let own = self.list_thread(&mail.tag)?;
                    self.render_one(mail, cause, index, &own, Kind::Reply, now)
                } else {
                    self.render_one(mail, cause, index, thread, Kind::Reply, now)
                }
            })
            .collect()
    }

    /// The latest mail the bot sent to the list under `tag` (`[tag] ...` or
    /// `Re: [tag] ...`), as the thread to join; none yet: a thread of its own.
    fn list_thread(&self, tag: &str) -> Result<Thread> {
        let prefix = format!("[{}]", tag.to_lowercase());
        let mut thread = Thread::default();
        self.store
            .each_mail_to(std::slice::from_ref(&self.config.bot.list), |_, raw| {
                let Some(message) = mail_parser::MessageParser::default().parse_headers(raw) else {
                    return true;
                };
                let subject = message.subject().unwrap_or_default().to_lowercase();
                let subject = subject.strip_prefix("re:").unwrap_or(&subject).trim_start();
                if !subject.starts_with(&prefix) {
                    return true;
                }
                thread.message_id = message.message_id().map(str::to_owned);
                thread.references = match message.references() {
                    mail_parser::HeaderValue::Text(id) => vec![id.to_string()],
                    mail_parser::HeaderValue::TextList(ids) => {
                        ids.iter().map(|id| id.to_string()).collect()
                    }
                    _ => Vec::new(),
                };
                false
            })?;
        Ok(thread)
    }

    /// The observers of a game (`observe GAME`) get each of its announcements
    /// privately: only what the list gets, so no secret; never to the list.
    /// Numbered from `index` on, after the step's other mail. Not counted in
    /// the size of a message's answer: observers cannot make a player's
    /// message too costly to read.
    fn observer_copies(
        &self,
        outcome: &Outcome,
        cause: &str,
        mut index: usize,
        now: Timestamp,
    ) -> Result<Vec<NewMail>> {
        let no_thread = Thread::default();
        let mut rendered = Vec::new();
        for mail in outcome.mail.iter().filter(|m| m.to == Audience::List) {
            let game = games::router::game_of_tag(&mail.tag).map(|_| games::base_tag(&mail.tag));
            let Some(game) = game else { continue };
            // One who joined since gets the list itself.
            let observers = self.world.players.observers_of(game);
            let not_playing = observers
                .into_iter()
                .filter(|a| self.world.players.active_by_address(a).is_none());
            for observer in not_playing {
                let copy = Mail {
                    to: Audience::Address(observer.clone()),
                    ..mail.clone()
                };
                rendered.push(self.render_one(
                    &copy,
                    cause,
                    index,
                    &no_thread,
                    Kind::Notice,
                    now,
                )?);
                index += 1;
            }
        }
        Ok(rendered)
    }

    fn render_one(
        &self,
        mail: &Mail,
        cause: &str,
        index: usize,
        thread: &Thread,
        kind: Kind,
        now: Timestamp,
    ) -> Result<NewMail> {
        self.render_noted(mail, cause, index, thread, kind, now, None)
    }

    /// [`Self::render_one`], with `notice` added to the body above the signature.
    #[allow(clippy::too_many_arguments)]
    fn render_noted(
        &self,
        mail: &Mail,
        cause: &str,
        index: usize,
        thread: &Thread,
        kind: Kind,
        now: Timestamp,
        notice: Option<&str>,
    ) -> Result<NewMail> {
        let mut rendered = self.templates.render(&mail.template, &mail.values)?;
        let message_id = compose::message_id(cause, index, self.config.bot_domain());
        // `[site] url`: an announcement's last line links to its place in the
        // web record (its game's page, at its anchor).
        let link = match (&mail.to, self.site_link(&mail.tag, &message_id)) {
            (Audience::List, Some(url)) => Some(
                self.templates
                    .render_piece("site/mail_link", json!({ "url": url }))?,
            ),
            _ => None,
        };
        for notice in notice.into_iter().map(str::to_owned).chain(link) {
            let at = rendered
                .body
                .find("\n-- \n")
                .map_or(rendered.body.len(), |at| at + 1);
            rendered
                .body
                .insert_str(at, &format!("\n{}\n", notice.trim_end()));
        }
        let to = match &mail.to {
            Audience::List => self.config.bot.list.clone(),
            Audience::Address(address) => address.as_str().to_owned(),
        };
        let raw = compose::compose(&Outgoing {
            from_name: &self.config.bot.name,
            from_address: &self.config.bot.address,
            to: &to,
            to_list: mail.to == Audience::List,
            tag: &mail.tag,
            subject: &rendered.subject,
            body: &rendered.body,
            message_id: &message_id,
            kind,
            thread,
            cause,
            date: now,
            attachments: &mail.attachments,
        })?;
        Ok(NewMail {
            message_id,
            template: mail.template.clone(),
            envelope_from: self.config.bot.address.clone(),
            recipients: vec![to],
            raw,
            quota: Quota::Free,
            written_from: Some(Box::new(WrittenFrom {
                mail: mail.clone(),
                cause: cause.to_owned(),
                index,
                thread: thread.clone(),
                kind,
                now,
            })),
        })
    }

    /// Writes the answer that reached its sender's daily cap again, with the
    /// notice that further answers of the day come in one digest: a player who
    /// goes on should not think the bot stopped listening. Without the template
    /// (a templates folder older than it) the answer goes as it was.
    fn note_cap(&self, mail: &mut [NewMail], reached: Option<usize>) -> Result<()> {
        let Some(one) = reached.and_then(|index| mail.get_mut(index)) else {
            return Ok(());
        };
        let Some(from) = one.written_from.take() else {
            return Ok(());
        };
        let notice = match self.templates.render(
            "quota_notice",
            json!({ "cap": self.config.limits.max_answers_per_day }),
        ) {
            Ok(notice) => notice.body,
            Err(error) => {
                tracing::warn!(%error, "the answer that reaches the daily cap goes without its notice");
                return Ok(());
            }
        };
        let quota = one.quota.clone();
        *one = self.render_noted(
            &from.mail,
            &from.cause,
            from.index,
            &from.thread,
            from.kind,
            from.now,
            Some(&notice),
        )?;
        one.quota = quota;
        Ok(())
    }

    /// `history` under a tag: the latest `count` announcements the list had
    /// under it, oldest first, each with its date and subject. Only what went to
    /// the list, so nothing secret.
    fn tag_history(&self, tag: &str, count: usize) -> Result<Vec<serde_json::Value>> {
        let prefix = format!("[{}]", tag.to_lowercase());
        let mut entries = Vec::new();
        self.store
            .each_mail_to(std::slice::from_ref(&self.config.bot.list), |at, raw| {
                let subject = mail_parser::MessageParser::default()
                    .parse_headers(raw)
                    .and_then(|message| message.subject().map(str::to_owned))
                    .unwrap_or_default();
                if let Some(rest) = subject
                    .get(..prefix.len())
                    .filter(|head| head.eq_ignore_ascii_case(&prefix))
                    .and_then(|_| subject.get(prefix.len()..))
                {
                    entries.push(json!({
                        "at": crate::engine::human_time(at),
                        "subject": rest.trim(),
                    }));
                }
                entries.len() < count
            })?;
        entries.reverse();
        Ok(entries)
    }

    /// The answer to the sender: every command line with its result, and the help asked for.
    #[allow(clippy::too_many_arguments)]
    fn answer(
        &self,
        outcome: &Outcome,
        message: &Message,
        envelope: &Envelope,
        ctx: &Ctx,
        cause: &str,
        index: usize,
        thread: &Thread,
        now: Timestamp,
    ) -> Result<Vec<NewMail>> {
        if outcome.report.is_empty() && outcome.help.is_empty() {
            return Ok(Vec::new());
        }
        let summary = |status| outcome.report.iter().filter(|r| r.status == status).count();
        // With no moderator in bot.toml nobody can ever do what only a moderator may:
        // the refusal says so and where to name one, wherever in the engine it came from.
        let mut lines = outcome.report.clone();
        for line in &mut lines {
            if line.sentence.code == "moderators_only" {
                line.sentence = line
                    .sentence
                    .clone()
                    .arg("none_configured", self.config.bot.moderators.is_empty());
            }
            if line.sentence.code == crate::games::router::TAG_HISTORY {
                let count = line.sentence.args.get("count").and_then(|c| c.as_u64());
                let entries = self.tag_history(&message.tag, count.unwrap_or(0) as usize)?;
                line.sentence = line.sentence.clone().arg("entries", entries);
            }
        }
        let values = |copy_of: Option<&Address>| {
            json!({
                "tag": message.tag,
                "subject": envelope.subject,
                "subject_rest": answered_subject(&envelope.subject, message),
                "lines": lines,
                "done": summary(Status::Done),
                "refused": summary(Status::Refused),
                "not_understood": summary(Status::NotUnderstood),
                "help": outcome.help,
                "public": ctx.public,
                "at": crate::engine::human_time(ctx.now),
                "copy_of": copy_of,
                "untagged": envelope.tag.is_none(),
                "tags": crate::games::known_tags()
                    .into_iter()
                    .filter(|tag| tag != "help")
                    .collect::<Vec<_>>(),
            })
        };
        // The answer keeps the instance: a reply to [ghost 2] is under [ghost 2].
        let tag = message.tag.as_str();
        let mut to = vec![(ctx.sender.clone(), None)];
        // The officers who asked for them get a copy of what players do privately
        // (a Rule Tag moderator must see the private actions); the game's own
        // officers (`Game::private_copies`) also of what was refused, since they
        // judge what is valid. The copy goes to each officer privately. A line
        // that only asked (`help`, `status`) is the asker's alone (issue 24).
        let (done, judged) = outcome.acted();
        if !ctx.public && judged {
            let asked = self
                .config
                .officers
                .copy_private_to
                .iter()
                .map(|a| Address::new(a))
                .filter(|_| done);
            for officer in asked.chain(outcome.copies.iter().cloned()) {
                if to.iter().any(|(known, _)| *known == officer) {
                    continue;
                }
                if officer != ctx.sender {
                    to.push((officer, Some(&ctx.sender)));
                }
            }
        }
        to.iter()
            .enumerate()
            .map(|(n, (address, copy_of))| {
                let mail = Mail::new(
                    Audience::Address(address.clone()),
                    tag,
                    "reply",
                    values(*copy_of),
                );
                self.render_one(&mail, cause, index + n, thread, Kind::Reply, now)
            })
            .collect()
    }
}

/// Whether `address` holds an office of any kind: a moderator, a keeper of the
/// rules, an office of bot.toml or one a game names. Their mail is never held
/// by a flood bound: an override or a ruling must get through a flood.
fn holds_an_office(officers: &crate::engine::game::Officers, address: &Address) -> bool {
    officers.is_moderator(address)
        || officers.rules.contains(address)
        || officers
            .offices
            .values()
            .chain(officers.of_games.iter().map(|(_, holders)| holders))
            .any(|holders| holders.contains(address))
}

/// What an answer's subject repeats after its `Re:` and tag: the rest the
/// router read, or for a reply (whose subject is no command, so the router read
/// none) the rest of its subject, its own reply prefixes aside: `AW: [nomic]
/// rename` is answered `Re: [nomic] rename`, as mail clients expect of an
/// answer. A passphrase line is never repeated.
fn answered_subject(subject: &str, message: &Message) -> String {
    if !message.subject_rest.is_empty() {
        return message.subject_rest.clone();
    }
    parse::subject_tag(subject, &games::known_tags())
        .filter(|tag| tag.reply && tag.tag == normalize_answer_tag(&message.tag))
        .map(|tag| tag.rest)
        .filter(|rest| !crate::mail::auth::is_passphrase_line(rest))
        .unwrap_or_default()
}

/// The router's tag as `parse::subject_tag` reports it: lower-cased, inner
/// whitespace collapsed.
fn normalize_answer_tag(tag: &str) -> String {
    tag.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// What the router reads of a tagged message: its tag, the rest of its subject and
/// its command lines.
pub fn tagged_message(tag: &parse::SubjectTag, body_lines: Vec<String>) -> Message {
    Message {
        tag: tag.tag.clone(),
        // The subject of a reply or a forward repeats someone else's: it is no
        // command of the person replying (nor of an auto-responder that sends no
        // RFC 3834 header). The tag still routes the body's lines.
        subject_rest: if tag.reply {
            String::new()
        } else {
            tag.rest.clone()
        },
        body_lines,
    }
}

/// Whether `mail::compose` can put this address in a To header: the same reading
/// of it as the compose step's, so that what the engine accepts can be answered.
pub fn can_write_to(address: &str) -> bool {
    address.parse::<lettre::message::Mailbox>().is_ok()
}

/// The engine's parameters from the configuration: the registry's, the
/// officers, the calendar, the official dictionary and every game's section.
pub fn game_params(
    config: &Config,
    lexicon: std::sync::Arc<dyn crate::engine::dictionary::Lexicon>,
) -> games::Params {
    let addresses = |list: &[String]| list.iter().map(|a| Address::new(a)).collect::<Vec<_>>();
    let mut params = games::Params::new(
        crate::engine::players::Params {
            alias_confirm_hours: config.players.alias_confirm_hours,
            max_name_chars: config.players.max_name_chars,
            max_vacation_days: config.players.max_vacation_days,
            roster_names: config.players.roster_names,
            own_addresses: vec![
                Address::new(&config.bot.address),
                Address::new(&config.bot.list),
            ],
            can_write_to,
        },
        crate::engine::game::Officers {
            moderators: addresses(&config.bot.moderators),
            rules: addresses(&config.officers.rules),
            offices: config
                .officers
                .offices
                .iter()
                .map(|(office, holders)| (office.clone(), addresses(holders)))
                .collect(),
            of_games: Vec::new(),
            withdrawn: Vec::new(),
            known: config.officers.names.clone(),
        },
        config.calendar.clone(),
        lexicon,
        config.games.clone(),
    );
    params.setting.untradeable_kinds =
        std::sync::Arc::new(config.accounts.untradeable_kinds.clone());
    params.setting.baseline_when_unrecorded =
        config.bot.unrecorded_rules != crate::config::UnrecordedRules::Absent;
    params.setting.rules_required =
        config.bot.unrecorded_rules == crate::config::UnrecordedRules::Required;
    params.reports = config.reports.clone();
    params
}

/// The shipped word list (dict/english.txt, from Debian's wamerican: see dict/README.md).
pub const SHIPPED_WORDS: &str = include_str!("../dict/english.txt");

/// The official dictionary: the list named by `[ghost] dictionary`, else the
/// shipped one. Its index is built the first time a game asks, so a pass of the
/// bot that plays no word game does not pay for it.
pub fn official_dictionary(
    config: &Config,
) -> Result<std::sync::Arc<dyn crate::engine::dictionary::Lexicon>> {
    Ok(std::sync::Arc::new(lazy_dictionary(config)?))
}

/// How many words the dictionary holds, building its index now; `None` when it
/// holds none.
pub fn dictionary_words(dictionary: &LazyDictionary) -> Option<usize> {
    dictionary.index().map(|index| index.len())
}

/// The official dictionary, not yet indexed.
pub fn lazy_dictionary(config: &Config) -> Result<LazyDictionary> {
    let text: std::borrow::Cow<'static, str> = match &config.bot.dictionary {
        Some(path) => {
            let path = config.resolve(path);
            std::fs::read_to_string(&path)
                .map_err(|source| PipelineError::Dictionary { path, source })?
                .into()
        }
        None => SHIPPED_WORDS.into(),
    };
    Ok(LazyDictionary {
        text,
        index: std::sync::OnceLock::new(),
    })
}

/// A word list whose index is built on first use.
pub struct LazyDictionary {
    text: std::borrow::Cow<'static, str>,
    index: std::sync::OnceLock<Option<crate::engine::dictionary::Dictionary>>,
}

impl LazyDictionary {
    /// The index, built now if it was not yet. `None`: the list holds no word
    /// (`check` reports that at start-up).
    pub fn index(&self) -> Option<&crate::engine::dictionary::Dictionary> {
        self.index
            .get_or_init(|| crate::engine::dictionary::Dictionary::from_text(&self.text).ok())
            .as_ref()
    }
}

impl std::fmt::Debug for LazyDictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyDictionary")
            .field("bytes", &self.text.len())
            .field("built", &self.index.get().is_some())
            .finish()
    }
}

impl crate::engine::dictionary::Lexicon for LazyDictionary {
    fn is_word(&self, word: &str) -> bool {
        self.index().is_some_and(|index| index.is_word(word))
    }

    fn is_inside_a_word(&self, fragment: &str) -> bool {
        self.index()
            .is_some_and(|index| index.is_inside_a_word(fragment))
    }
}
