//! The driver: fetches mail from the configured transport, lets the pipeline apply
//! it, and sends the outbox. `once` is one pass (for cron and tests); `run` is the
//! daemon: one loop over new mail, the next deadline, the next retry and shutdown.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};

use crate::config::{Config, TransportKind, read_password};
use crate::mail::imap::{Inbound, Wake};
use crate::mail::maildir;
use crate::mail::smtp::{Outbound, POOL_SIZE};
use crate::pipeline::{Bot, Processed, failpoint};
use crate::store::sent::SentJournal;
use crate::store::{Origin, OutRow, Received, Store, Stored};

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Pipeline(#[from] crate::pipeline::PipelineError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Maildir(#[from] maildir::MaildirError),
    #[error(transparent)]
    Imap(#[from] crate::mail::imap::ImapError),
    #[error(transparent)]
    Smtp(#[from] crate::mail::smtp::SmtpError),
    /// `[imap]` or `[smtp]` `password_file`, or the section itself missing.
    #[error("{0}")]
    Password(String),
}

/// A password file that cannot be read, named by its key.
fn password_file(section: &str, path: &Option<PathBuf>, error: &std::io::Error) -> RunError {
    let shown = path
        .as_deref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    RunError::Password(format!(
        "cannot read [{section}] password_file = {shown:?} ({error}): write the password on its first line, or set [{section}] password"
    ))
}

/// What one pass did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Pass {
    pub fetched: usize,
    pub processed: Processed,
    pub sent: usize,
    /// Not sent yet: tried again later.
    pub failed: usize,
    /// Refused by the server for good (5xx): marked failed, never tried again.
    pub refused: usize,
    /// Where the pass's time went: fetching and storing, applying, sending.
    pub fetch_time: Duration,
    pub apply_time: Duration,
    pub send_time: Duration,
}

/// The mail side of the bot, for the configured transport.
pub struct Transport {
    config: Config,
    imap: Option<Inbound>,
    sender: Sender,
    /// Stored this pass, not yet flagged `\Seen` on the server.
    unseen: Vec<u32>,
    /// When the server announced new mail, if it did since the last fetch.
    woken_at: Option<Instant>,
    /// What a pass is at, for the operator at a terminal (hidden otherwise).
    progress: indicatif::ProgressBar,
}

impl Transport {
    pub fn new(config: &Config) -> Transport {
        Transport {
            config: config.clone(),
            imap: None,
            sender: Sender::new(config, Arrivals::default()),
            unseen: Vec::new(),
            woken_at: None,
            progress: indicatif::ProgressBar::hidden(),
        }
    }

    /// Shows what a pass is at (fetching, applying, sending, with counts) on
    /// stderr while it runs, if stderr is a terminal: a long `once` is seen to
    /// move. Never drawn into a file or a pipe.
    pub fn show_progress(&mut self) {
        use std::io::IsTerminal;
        if !std::io::stderr().is_terminal() {
            return;
        }
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        self.sender.progress = bar.clone();
        self.progress = bar;
    }

    /// Takes the progress line off the terminal.
    pub fn hide_progress(&self) {
        self.progress.finish_and_clear();
    }

    fn inbox_dir(&self) -> PathBuf {
        self.config.resolve(&self.config.maildir.inbox)
    }

    /// Stores every new message; acknowledges it on the server only once stored.
    pub async fn fetch(&mut self, bot: &mut Bot, now: Timestamp) -> Result<usize, RunError> {
        self.fetch_some(bot, now, None).await
    }

    /// Stores new messages, over IMAP `at_most` about this many (whole batches):
    /// the daemon applies them and hands their answers to its sending side
    /// before it fetches more, so a stream of mail is answered as it comes.
    async fn fetch_some(
        &mut self,
        bot: &mut Bot,
        now: Timestamp,
        at_most: Option<usize>,
    ) -> Result<usize, RunError> {
        match self.config.transport {
            TransportKind::Maildir => {
                let dir = self.inbox_dir();
                maildir::ensure(&dir)?;
                let waiting = maildir::waiting(&dir)?;
                // A backlog is read, stored and acknowledged one batch at a time,
                // so it never sits in memory whole.
                let mut new = 0;
                let sizes: Vec<u64> = waiting.iter().map(|w| w.size).collect();
                for batch in fetch_batches(&sizes) {
                    let messages = &waiting[batch];
                    let mut received = Vec::with_capacity(messages.len());
                    for message in messages {
                        let raw = message.read()?;
                        received.push(Received {
                            origin: Origin::Maildir {
                                unique: message.unique.clone(),
                            },
                            received_at: message.delivered_at,
                            dedup_key: Bot::dedup_key(&raw),
                            raw,
                        });
                    }
                    let stored = bot.receive(&received, None, now)?;
                    drop(received);
                    for message in messages {
                        maildir::mark_seen(&dir, message)?;
                    }
                    new += count_new(&stored);
                    self.progress
                        .set_message(format!("fetching: {new} new message(s) stored"));
                }
                Ok(new)
            }
            TransportKind::Imap => {
                let Some(cfg) = self.config.imap.clone() else {
                    return Ok(0);
                };
                let fresh = self.imap.is_none();
                if fresh {
                    let password = read_password(&cfg.password, &cfg.password_file, &self.config)
                        .map_err(|error| password_file("imap", &cfg.password_file, &error))?
                        .unwrap_or_default();
                    self.imap = Some(Inbound::connect(&cfg, &password).await?);
                }
                let Some(session) = self.imap.as_mut() else {
                    return Ok(0);
                };
                self.progress.set_message("fetching over IMAP");
                let fetch = Fetch {
                    mailbox: &cfg.mailbox,
                    now,
                    fresh,
                    since: self.woken_at.take().unwrap_or_else(Instant::now),
                    arrivals: &self.sender.arrivals,
                    unseen: &mut self.unseen,
                    at_most,
                };
                let result = fetch_imap(session, bot, fetch).await;
                if result.is_err() {
                    // A failed command may leave the session out of step: start afresh.
                    self.imap = None;
                }
                result
            }
        }
    }

    /// Sends every outgoing message that is due (see [`Sender::send`]).
    pub async fn send(
        &mut self,
        bot: &mut Bot,
        now: Timestamp,
    ) -> Result<(usize, usize, usize), RunError> {
        self.sender.send(&mut bot.store, now).await
    }

    /// Flags `\Seen` what this pass stored, once it is applied: a courtesy to
    /// whoever reads the mailbox, left to the end because the server may make it
    /// wait while it delivers into the same mailbox.
    pub async fn acknowledge(&mut self) {
        let uids = std::mem::take(&mut self.unseen);
        if let Some(session) = self.imap.as_mut()
            && let Err(error) = session.mark_seen(&uids).await
        {
            tracing::warn!(%error, "cannot flag the messages stored as seen");
            self.imap = None;
        }
    }

    /// Says goodbye to the servers (the SMTP connections kept open).
    pub async fn close(&mut self) {
        self.sender.close().await;
    }

    /// Waits for new mail (IMAP IDLE, or a Maildir poll) for at most `timeout`.
    async fn wait(&mut self, bot: &Bot, timeout: Duration) -> Result<(), RunError> {
        match (self.config.transport, self.imap.take()) {
            (TransportKind::Imap, Some(mut session)) => {
                // Mail that arrived between the last fetch and now would not wake IDLE
                // on every server: look once more before idling.
                let mailbox = self
                    .config
                    .imap
                    .as_ref()
                    .map_or("INBOX", |i| i.mailbox.as_str());
                let last_uid = bot.store.imap_mark(mailbox)?.map_or(0, |(_, uid)| uid);
                if session.has_after(last_uid).await? {
                    self.imap = Some(session);
                    return Ok(());
                }
                let (session, wake) = session.wait(timeout).await?;
                tracing::debug!(?wake, "imap wait ended");
                if matches!(wake, Wake::NewMail) {
                    self.woken_at = Some(Instant::now());
                    tracing::info!("new mail announced by the server");
                }
                self.imap = Some(session);
            }
            _ => tokio::time::sleep(timeout.min(Duration::from_secs(1))).await,
        }
        Ok(())
    }
}

/// When the bot learnt of each message it is answering, by the message's cause
/// (`mail:<Message-ID>`): the start of the bot's own share of an answer's
/// latency, logged when the server accepts the answer.
#[derive(Debug, Clone, Default)]
pub struct Arrivals(Arc<Mutex<HashMap<String, Instant>>>);

impl Arrivals {
    fn note<'a>(&self, dedup_keys: impl Iterator<Item = &'a str>, at: Instant) {
        let mut known = self.lock();
        // An answer goes within seconds of its message, or waits for a retry
        // whose latency is the server's: older arrivals are of no more use.
        known.retain(|_, since| since.elapsed() < ARRIVALS_KEPT);
        for key in dedup_keys {
            known.entry(format!("mail:{key}")).or_insert(at);
        }
    }

    fn since(&self, cause: &str) -> Option<Instant> {
        self.lock().get(cause).copied()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Instant>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

const ARRIVALS_KEPT: Duration = Duration::from_secs(60);

/// The outbox read a page at a time, so a backlog never sits in memory whole.
const OUTBOX_PAGE: usize = 64;

/// The sending side: the outbox, in its order, to the SMTP server (or the
/// outbox Maildir). `once` uses it after applying; the daemon runs it beside
/// the fetching and applying, on a connection of its own to the database.
pub struct Sender {
    config: Config,
    smtp: Option<Outbound>,
    arrivals: Arrivals,
    /// Where each acceptance is recorded the moment it comes (`store::sent`).
    journal: Option<SentJournal>,
    /// Shown by `once` at a terminal (see [`Transport::show_progress`]).
    progress: indicatif::ProgressBar,
    /// Time spent since the last report folding the journal into the outbox
    /// and reading the outbox: the sender's database share of its pace.
    database_time: Duration,
}

impl Sender {
    fn new(config: &Config, arrivals: Arrivals) -> Sender {
        Sender {
            config: config.clone(),
            smtp: None,
            arrivals,
            journal: None,
            progress: indicatif::ProgressBar::hidden(),
            database_time: Duration::ZERO,
        }
    }

    /// Sends every outgoing message that is due, in the outbox's order;
    /// failures are retried with backoff. Returns how many were sent, are to
    /// be tried again, and were refused for good.
    ///
    /// Each message is marked sent the moment the server accepts it, and the
    /// next message's content is not sent before that: a crash can send again
    /// only the one message whose acceptance was not yet recorded. After a
    /// failure a later attempt may get past (the server's trouble, not the
    /// message's), every message after it waits for the same retry: none
    /// overtakes it, so the commitments of sealed actions always reach the
    /// server before their reveal.
    pub async fn send(
        &mut self,
        store: &mut Store,
        now: Timestamp,
    ) -> Result<(usize, usize, usize), RunError> {
        let mut journal = match self.journal.take() {
            Some(journal) => journal,
            None => SentJournal::open(store)?,
        };
        let result = self.send_recorded(store, &mut journal, now).await;
        self.journal = Some(journal);
        result
    }

    async fn send_recorded(
        &mut self,
        store: &mut Store,
        journal: &mut SentJournal,
        now: Timestamp,
    ) -> Result<(usize, usize, usize), RunError> {
        // What an earlier pass recorded but did not fold (it crashed, or its
        // database was busy) is marked sent before the outbox is read.
        let began = Instant::now();
        journal.fold(store)?;
        self.database_time += began.elapsed();
        let mut tally = Tally {
            now,
            retry_max: self.retry_max(),
            sent: 0,
            failed: 0,
            refused: 0,
            server_trouble: None,
        };
        let mut after = 0;
        loop {
            let began = Instant::now();
            let page = store.due_outbox_page(now, after, OUTBOX_PAGE)?;
            self.database_time += began.elapsed();
            let Some(last) = page.last() else { break };
            if after == 0 {
                failpoint("before-send");
            }
            after = last.id;
            let delivered = self.deliver(&page, store, journal, &mut tally).await;
            self.progress.set_message(format!(
                "sending: {} sent, {} not sent",
                tally.sent,
                tally.failed + tally.refused
            ));
            let began = Instant::now();
            journal.fold(store)?;
            self.database_time += began.elapsed();
            delivered?;
            if let Some((id, error, retry_at)) = tally.server_trouble.take() {
                // The server is down or refusing: the rest would fail the same way.
                // They wait for the same retry, without an attempt counted against them.
                self.smtp = None;
                store.defer_after(id, &error, now, retry_at)?;
                break;
            }
        }
        Ok((tally.sent, tally.failed, tally.refused))
    }

    /// One attempt at each message of a page, stopping at the first the server
    /// may take later. Over SMTP the envelopes of the next few messages are
    /// given, each on a connection of the pool, while a content is on the wire.
    async fn deliver<'r>(
        &mut self,
        rows: &'r [OutRow],
        store: &mut Store,
        journal: &mut SentJournal,
        tally: &mut Tally,
    ) -> Result<(), RunError> {
        let arrivals = self.arrivals.clone();
        // Records one attempt; says whether the server is in trouble.
        let mut record = |row: &OutRow, result, content| -> Result<bool, RunError> {
            tally.record(store, journal, row, result, content, &arrivals)?;
            Ok(tally.server_trouble.is_some())
        };
        match self.config.transport {
            TransportKind::Maildir => {
                let dir = self.config.resolve(&self.config.maildir.outbox);
                for row in rows {
                    let began = Instant::now();
                    let result = maildir::deliver(&dir, &row.message_id, &row.raw)
                        .map(|_| ())
                        .map_err(|e| (e.to_string(), true));
                    if record(row, result, began.elapsed())? {
                        break;
                    }
                }
            }
            TransportKind::Imap => {
                let outbound = match self.outbound() {
                    Ok(outbound) => outbound,
                    Err(e) => {
                        if let Some(first) = rows.first() {
                            record(first, Err((e.to_string(), true)), Duration::ZERO)?;
                        }
                        return Ok(());
                    }
                };
                // Contents go strictly in the outbox's order: each waits for its
                // turn, which comes once the one before it is recorded.
                let (turn, turns) = tokio::sync::watch::channel(0usize);
                let start = |(index, row): (usize, &'r OutRow)| {
                    let mut turns = turns.clone();
                    async move {
                        let prepared = outbound
                            .prepare(&row.envelope_from, &row.recipients, &row.raw)
                            .await;
                        let _ = turns.wait_for(|&next| next == index).await;
                        let began = Instant::now();
                        let result = match prepared {
                            Ok(prepared) => prepared.finish(&row.raw).await,
                            Err(e) => Err(e),
                        };
                        (index, row, result.map_err(|e| failure(&e)), began.elapsed())
                    }
                };
                let mut waiting = rows.iter().enumerate();
                let mut sending: futures::stream::FuturesUnordered<_> =
                    waiting.by_ref().take(POOL_SIZE).map(start).collect();
                while let Some((index, row, result, content)) =
                    futures::StreamExt::next(&mut sending).await
                {
                    if record(row, result, content)? {
                        // The envelopes given after it are dropped with their connections.
                        return Ok(());
                    }
                    let _ = turn.send(index + 1);
                    sending.extend(waiting.next().map(start));
                }
            }
        }
        Ok(())
    }

    fn retry_max(&self) -> u64 {
        self.config
            .smtp
            .as_ref()
            .map_or(600, |s| s.retry_max_seconds)
    }

    fn outbound(&mut self) -> Result<&Outbound, RunError> {
        if self.smtp.is_none() {
            let Some(cfg) = self.config.smtp.clone() else {
                return Err(RunError::Password(
                    "transport = \"imap\" needs an [smtp] section".to_owned(),
                ));
            };
            let password = read_password(&cfg.password, &cfg.password_file, &self.config)
                .map_err(|error| password_file("smtp", &cfg.password_file, &error))?;
            self.smtp = Some(Outbound::new(&cfg, password)?);
        }
        match &self.smtp {
            Some(outbound) => Ok(outbound),
            None => Err(RunError::Password(
                "transport = \"imap\" needs an [smtp] section".to_owned(),
            )),
        }
    }

    async fn close(&mut self) {
        if let Some(outbound) = self.smtp.take() {
            outbound.close().await;
        }
    }

    /// The daemon's sending side: sends what is due whenever the applying side
    /// says it queued mail, or a retry falls due; after `stop`, sends what is
    /// due one last time and says goodbye.
    async fn serve(
        mut self,
        mut store: Store,
        queued: Arc<tokio::sync::Notify>,
        mut stop: tokio::sync::watch::Receiver<bool>,
    ) {
        let mut failures: u32 = 0;
        loop {
            let stopping = *stop.borrow_and_update();
            let started = Instant::now();
            let wait = match self.send(&mut store, Timestamp::now()).await {
                Ok((sent, failed, refused)) => {
                    failures = 0;
                    if sent + failed + refused > 0 {
                        tracing::info!(
                            sent,
                            failed,
                            refused,
                            ms = started.elapsed().as_secs_f64() * 1000.0,
                            database_ms = self.database_time.as_secs_f64() * 1000.0,
                            "sending done"
                        );
                        self.database_time = Duration::ZERO;
                    }
                    match store.next_retry() {
                        Ok(Some(at)) => Duration::try_from(at.duration_since(Timestamp::now()))
                            .unwrap_or(Duration::ZERO)
                            .min(SENDER_NAP),
                        Ok(None) => SENDER_NAP,
                        Err(error) => {
                            tracing::warn!(%error, "cannot read the outbox");
                            SENDER_NAP
                        }
                    }
                }
                Err(error) => {
                    let delay = after_failure(&mut failures);
                    tracing::warn!(%error, retry_in = ?delay, "sending failed");
                    delay
                }
            };
            if stopping {
                break;
            }
            tokio::select! {
                () = queued.notified() => {}
                () = tokio::time::sleep(wait) => {}
                changed = stop.changed() => {
                    if changed.is_err() {
                        break;
                    }
                }
            }
        }
        self.close().await;
    }
}

/// How long the daemon's side waits after one more failure in a row: 2 s,
/// doubling up to 64 s.
fn after_failure(failures: &mut u32) -> Duration {
    *failures = failures.saturating_add(1);
    Duration::from_secs(1u64 << (*failures).min(6))
}

/// The longest the sending side sleeps without looking at the outbox.
const SENDER_NAP: Duration = Duration::from_secs(60);

/// What a failed SMTP attempt means for its row: the error, and whether a later
/// attempt may succeed.
fn failure(e: &crate::mail::smtp::SmtpError) -> (String, bool) {
    // Only a refusal of this very message is final; a bad password or
    // certificate is the operator's to fix, and the mail must still go once
    // it is fixed.
    if e.kind() == crate::mail::smtp::ErrorKind::Operator {
        tracing::error!(error = %e, "smtp needs the operator: check [smtp] in the config");
    }
    (
        e.to_string(),
        e.kind() != crate::mail::smtp::ErrorKind::Permanent,
    )
}

/// What the sending of one pass came to, recorded row by row.
struct Tally {
    now: Timestamp,
    retry_max: u64,
    sent: usize,
    failed: usize,
    refused: usize,
    /// A failure that a later attempt may get past (the server's, not the
    /// message's): which message, the error, and the retry.
    server_trouble: Option<(i64, String, Timestamp)>,
}

impl Tally {
    /// Records one attempt in the outbox at once: the at-least-once window of a
    /// message is from the server's acceptance to this commit.
    fn record(
        &mut self,
        store: &mut Store,
        journal: &mut SentJournal,
        row: &OutRow,
        result: Result<(), (String, bool)>,
        content: Duration,
        arrivals: &Arrivals,
    ) -> Result<(), RunError> {
        match result {
            Ok(()) => {
                failpoint("accepted");
                let journalling = Instant::now();
                journal.accepted(row.id, self.now)?;
                // Where the sender's pace goes, for the pipeline benchmark: the
                // server's time from the content to its 250, and the journal's.
                let content_ms = content.as_secs_f64() * 1000.0;
                let journal_ms = journalling.elapsed().as_secs_f64() * 1000.0;
                self.sent += 1;
                // The bot's own share of the answer's latency: from the server's
                // word of the message to its acceptance of the answer.
                match arrivals.since(&row.cause) {
                    Some(since) => tracing::info!(
                        outbox = row.id,
                        cause = %row.cause,
                        own_ms = since.elapsed().as_secs_f64() * 1000.0,
                        content_ms,
                        journal_ms,
                        "accepted"
                    ),
                    None => tracing::info!(
                        outbox = row.id,
                        cause = %row.cause,
                        content_ms,
                        journal_ms,
                        "accepted"
                    ),
                }
            }
            Err((error, false)) => {
                tracing::error!(outbox = row.id, %error, "the server refused this mail for good: marked failed (nomicbot outbox)");
                store.mark_failed(row.id, &error, None)?;
                self.refused += 1;
            }
            Err((error, true)) => {
                let retry_at = self.now + backoff(row.attempts, self.retry_max);
                tracing::warn!(outbox = row.id, %error, %retry_at, "sending failed");
                store.mark_failed(row.id, &error, Some(retry_at))?;
                self.failed += 1;
                self.server_trouble = Some((row.id, error, retry_at));
            }
        }
        Ok(())
    }
}

/// What one IMAP fetch needs besides the session and the bot.
struct Fetch<'a> {
    mailbox: &'a str,
    now: Timestamp,
    /// A new connection: flag first what was stored before, in case the last
    /// connection was cut between storing and flagging.
    fresh: bool,
    /// When the bot learnt of this mail: the server's announcement, or now.
    since: Instant,
    arrivals: &'a Arrivals,
    /// Where the UIDs stored go, to be flagged `\Seen` once applied.
    unseen: &'a mut Vec<u32>,
    /// Stop after about this many messages (whole batches); `None`: all.
    at_most: Option<usize>,
}

/// Stores every new message of the mailbox and remembers its UID for
/// [`Transport::acknowledge`].
async fn fetch_imap(
    session: &mut Inbound,
    bot: &mut Bot,
    fetch: Fetch<'_>,
) -> Result<usize, RunError> {
    let Fetch {
        mailbox,
        now,
        fresh,
        since,
        arrivals,
        unseen,
        at_most,
    } = fetch;
    let uidvalidity = session.uidvalidity();
    let last_uid = match bot.store.imap_mark(mailbox)? {
        Some((validity, last)) if validity == uidvalidity => last,
        Some((validity, _)) => {
            // The mailbox was recreated: every UID is new again. Message-ID dedup keeps
            // the messages seen before from being applied twice.
            tracing::warn!(
                old = validity,
                new = uidvalidity,
                "UIDVALIDITY changed: fetching the whole mailbox again"
            );
            0
        }
        None => 0,
    };
    if fresh && let Err(error) = session.mark_seen_through(last_uid).await {
        // Only a courtesy to whoever reads the mailbox: the high-water mark is
        // what keeps a message from being stored twice.
        tracing::warn!(%error, "cannot flag the messages stored before as seen");
    }
    // A backlog is fetched and stored a few messages at a time, so it never
    // sits in memory whole; each batch moves the high-water mark.
    let mut last_uid = last_uid;
    let mut new = 0;
    loop {
        let fetched = session.fetch_after_at_most(last_uid, IMAP_BATCH).await?;
        if fetched.is_empty() {
            if last_uid == 0 {
                bot.receive(&[], Some((mailbox, uidvalidity, 0)), now)?;
            }
            return Ok(new);
        }
        let high = fetched.iter().map(|f| f.uid).max().unwrap_or(last_uid);
        unseen.extend(fetched.iter().map(|f| f.uid));
        let batch: Vec<Received> = fetched
            .into_iter()
            .map(|f| Received {
                origin: Origin::Imap {
                    mailbox: mailbox.to_owned(),
                    uidvalidity,
                    uid: f.uid,
                },
                received_at: f.internal_date,
                dedup_key: Bot::dedup_key(&f.raw),
                raw: f.raw,
            })
            .collect();
        arrivals.note(batch.iter().map(|r| r.dedup_key.as_str()), since);
        let stored = bot.receive(&batch, Some((mailbox, uidvalidity, high)), now)?;
        drop(batch);
        tracing::info!(
            count = stored.len(),
            new = count_new(&stored),
            "fetched over imap"
        );
        new += count_new(&stored);
        last_uid = high;
        if at_most.is_some_and(|at_most| unseen.len() >= at_most) {
            return Ok(new);
        }
    }
}

/// Messages the daemon fetches before it applies them and fetches more.
const DAEMON_FETCH: usize = 16;

/// Messages fetched over IMAP and stored at once.
const IMAP_BATCH: usize = 8;

/// Bytes of Maildir messages read and stored in one transaction (a larger
/// message is a batch of its own), and the most messages in one.
const MAILDIR_BATCH_BYTES: u64 = 16 << 20;
const MAILDIR_BATCH_MESSAGES: usize = 64;

/// Consecutive ranges of messages of the given sizes, each within the batch limits.
fn fetch_batches(sizes: &[u64]) -> Vec<std::ops::Range<usize>> {
    let mut batches = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (index, &size) in sizes.iter().enumerate() {
        if index > start
            && (bytes + size > MAILDIR_BATCH_BYTES || index - start == MAILDIR_BATCH_MESSAGES)
        {
            batches.push(start..index);
            (start, bytes) = (index, 0);
        }
        bytes += size;
    }
    if start < sizes.len() {
        batches.push(start..sizes.len());
    }
    batches
}

fn count_new(stored: &[Stored]) -> usize {
    stored
        .iter()
        .filter(|s| matches!(s, Stored::New(_)))
        .count()
}

/// 2^attempts seconds, capped.
fn backoff(attempts: i64, max_seconds: u64) -> SignedDuration {
    let seconds = 1u64
        .checked_shl(u32::try_from(attempts.clamp(0, 30)).unwrap_or(30))
        .unwrap_or(u64::MAX);
    SignedDuration::from_secs(i64::try_from(seconds.min(max_seconds.max(1))).unwrap_or(600))
}

/// One pass: fetch, apply, fire deadlines due by `now`, send.
pub async fn once(
    bot: &mut Bot,
    transport: &mut Transport,
    now: Timestamp,
) -> Result<Pass, RunError> {
    let mut pass = apply(bot, transport, now, None, None).await?;
    let started = Instant::now();
    (pass.sent, pass.failed, pass.refused) = transport.send(bot, now).await?;
    pass.send_time = started.elapsed();
    Ok(pass)
}

/// Fetch and apply: the part of a pass the daemon runs while its sending side
/// sends.
async fn apply(
    bot: &mut Bot,
    transport: &mut Transport,
    now: Timestamp,
    at_most: Option<usize>,
    queued: Option<&tokio::sync::Notify>,
) -> Result<Pass, RunError> {
    let started = Instant::now();
    let fetched = transport.fetch_some(bot, now, at_most).await;
    let fetch_time = started.elapsed();
    // The daemon's sending side starts on each batch's mail as it is committed.
    let mut committed = |_queued: usize| {
        if let Some(queued) = queued {
            queued.notify_one();
        }
    };
    transport.progress.set_message("applying");
    let processed = match fetched {
        Ok(_) => bot
            .process_with(now, &mut committed)
            .map_err(RunError::from),
        Err(_) => Ok(Processed::default()),
    };
    let apply_time = started.elapsed() - fetch_time;
    // What was stored is flagged whatever came after: storing is what counts.
    transport.acknowledge().await;
    let (fetched, processed) = (fetched?, processed?);
    keep_site(bot, &processed);
    Ok(Pass {
        fetched,
        processed,
        fetch_time,
        apply_time,
        ..Pass::default()
    })
}

/// `[site] dir`: the web record rewritten after a pass that committed anything
/// (only its changed files are written), or when the folder has no site yet. A
/// site that cannot be written is the operator's to fix: it is logged, and the
/// mail goes on.
fn keep_site(bot: &Bot, processed: &Processed) {
    let Some(dir) = &bot.config.site.dir else {
        return;
    };
    let dir = bot.config.resolve(dir);
    let changed = processed.applied + processed.aside + processed.deadlines > 0;
    if !changed && dir.join("index.html").exists() {
        return;
    }
    match crate::site::build(bot, &dir) {
        Ok(built) if !built.written.is_empty() => {
            tracing::info!(site = %dir.display(), written = built.written.len(), "site updated");
        }
        Ok(_) => {}
        Err(error) => tracing::error!(site = %dir.display(), %error, "cannot write the site"),
    }
}

/// Completes at the first SIGINT (ctrl-c) or SIGTERM (what systemd and `kill`
/// send), for `run`'s `shutdown`. Must be called inside the runtime.
///
/// The handlers are installed here, not when the future is first polled: `run`
/// polls it only between passes, and a signal during the first pass would
/// otherwise take the default action and end the process on the spot.
pub fn stop_signal() -> std::io::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        Ok(async move {
            let name = tokio::select! {
                _ = interrupt.recv() => "SIGINT",
                _ = terminate.recv() => "SIGTERM",
            };
            tracing::info!(
                signal = name,
                "stop asked for: finishing the pass in progress"
            );
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!(
                signal = "ctrl-c",
                "stop asked for: finishing the pass in progress"
            );
        })
    }
}

/// The daemon. Returns when `shutdown` completes, never in the middle of a pass:
/// `shutdown` is only polled between passes, so everything fetched is stored and
/// applied, and everything due is sent and marked sent, before it returns.
///
/// The sending side runs beside the fetching and applying, on its own database
/// connection: the next messages are fetched and applied while the answers to
/// the last ones are on the wire.
pub async fn run(bot: &mut Bot, shutdown: impl Future<Output = ()>) -> Result<(), RunError> {
    let mut transport = Transport::new(&bot.config);
    let queued = Arc::new(tokio::sync::Notify::new());
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let sender = Sender::new(&bot.config, transport.sender.arrivals.clone());
    let sending = tokio::spawn(sender.serve(bot.store.reopen()?, Arc::clone(&queued), stopped));
    let result = apply_until(bot, &mut transport, &queued, shutdown).await;
    let _ = stop.send(true);
    if let Err(error) = sending.await {
        tracing::error!(%error, "the sending side ended abnormally");
    }
    transport.close().await;
    result
}

/// The daemon's fetching and applying side, until `shutdown`.
async fn apply_until(
    bot: &mut Bot,
    transport: &mut Transport,
    queued: &tokio::sync::Notify,
    shutdown: impl Future<Output = ()>,
) -> Result<(), RunError> {
    let poll = Duration::from_secs(
        bot.config
            .imap
            .as_ref()
            .map_or(60, |i| i.poll_seconds.max(1)),
    );
    let mut failures: u32 = 0;
    tokio::pin!(shutdown);
    loop {
        let now = Timestamp::now();
        let pass = apply(bot, transport, now, Some(DAEMON_FETCH), Some(queued)).await;
        let pause = match pass {
            Ok(pass) => {
                failures = 0;
                if pass.fetched + pass.processed.deadlines > 0 {
                    tracing::info!(
                        fetched = pass.fetched,
                        applied = pass.processed.applied,
                        aside = pass.processed.aside,
                        deadlines = pass.processed.deadlines,
                        queued = pass.processed.mail_queued,
                        fetch_ms = pass.fetch_time.as_secs_f64() * 1000.0,
                        apply_ms = pass.apply_time.as_secs_f64() * 1000.0,
                        "pass done"
                    );
                }
                // Sleep until the next deadline, or until new mail.
                let mut until = poll;
                if let Some(at) = bot.next_deadline() {
                    let left = at.duration_since(Timestamp::now());
                    until = until.min(Duration::try_from(left).unwrap_or(Duration::ZERO));
                }
                Pause::ForMail(until)
            }
            Err(error) => {
                let delay = after_failure(&mut failures);
                tracing::warn!(%error, retry_in = ?delay, "pass failed");
                Pause::Retry(delay)
            }
        };
        if pause.is_zero() {
            // More is due at once: still stop here, between passes, if asked to.
            if futures::FutureExt::now_or_never(&mut shutdown).is_some() {
                tracing::info!("shutting down");
                return Ok(());
            }
            continue;
        }
        tokio::select! {
            // A stop asked for while mail was ready is honoured before the next pass.
            biased;
            _ = &mut shutdown => {
                tracing::info!("shutting down");
                return Ok(());
            }
            result = pause.wait(bot, transport) => {
                if let Err(error) = result {
                    tracing::warn!(%error, "waiting for mail failed: reconnecting");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }
}

/// What the applying side does between two passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pause {
    /// Waits for new mail (IDLE, or a Maildir poll) for at most this long.
    ForMail(Duration),
    /// A pass failed: sleeps the whole delay the log announced. Waiting for mail
    /// here would not wait at all when the server is down (no session to idle
    /// on, so only the one-second Maildir poll), and the daemon would knock
    /// every second for as long as the server stays down.
    Retry(Duration),
}

impl Pause {
    fn is_zero(self) -> bool {
        match self {
            Pause::ForMail(wait) | Pause::Retry(wait) => wait.is_zero(),
        }
    }

    async fn wait(self, bot: &Bot, transport: &mut Transport) -> Result<(), RunError> {
        match self {
            Pause::ForMail(timeout) => transport.wait(bot, timeout).await,
            Pause::Retry(delay) => {
                tokio::time::sleep(delay).await;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 24: the delay logged as `retry_in` doubles from 2 s to 64 s, and
    /// is the delay slept, not a hint.
    #[test]
    fn a_failed_pass_sleeps_the_delay_it_logs() {
        let mut failures = 0;
        let delays: Vec<u64> = (0..8)
            .map(|_| after_failure(&mut failures).as_secs())
            .collect();
        assert_eq!(delays, [2, 4, 8, 16, 32, 64, 64, 64]);
        let pause = Pause::Retry(Duration::from_secs(2));
        assert!(!pause.is_zero());
        assert_ne!(pause, Pause::ForMail(Duration::from_secs(2)));
    }

    /// The sleep of a `Retry` is the whole delay, on a clock the test drives.
    #[tokio::test(start_paused = true)]
    async fn a_retry_pause_is_not_cut_to_the_poll_second() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("bot.toml"),
            crate::config::believing_from(crate::config::DEFAULT_CONFIG),
        )
        .expect("config");
        crate::templates::write_defaults(&dir.path().join("templates")).expect("templates");
        let config = Config::load(&dir.path().join("bot.toml")).expect("config");
        let bot = Bot::open(config.clone()).expect("bot");
        let mut transport = Transport::new(&config);
        let started = tokio::time::Instant::now();
        Pause::Retry(Duration::from_secs(64))
            .wait(&bot, &mut transport)
            .await
            .expect("wait");
        assert_eq!(started.elapsed().as_secs(), 64);
        let started = tokio::time::Instant::now();
        Pause::ForMail(Duration::from_secs(64))
            .wait(&bot, &mut transport)
            .await
            .expect("wait");
        // The Maildir transport looks at its folder every second.
        assert_eq!(started.elapsed().as_secs(), 1);
    }

    #[test]
    fn a_backlog_is_read_in_batches_of_bounded_bytes() {
        let big = MAILDIR_BATCH_BYTES;
        assert_eq!(fetch_batches(&[]), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(fetch_batches(&[10, 20, 30]).len(), 1);
        assert_eq!(fetch_batches(&[10, 20, 30])[0], 0..3);
        // A message larger than a batch is a batch of its own.
        assert_eq!(fetch_batches(&[10, big * 2, 10]), [0..1, 1..2, 2..3]);
        assert_eq!(fetch_batches(&[big / 2, big / 2, 1]), [0..2, 2..3]);
        let many = vec![1; MAILDIR_BATCH_MESSAGES + 1];
        assert_eq!(
            fetch_batches(&many),
            [
                0..MAILDIR_BATCH_MESSAGES,
                MAILDIR_BATCH_MESSAGES..MAILDIR_BATCH_MESSAGES + 1
            ]
        );
    }
}
