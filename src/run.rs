//! The driver: fetches mail from the configured transport, lets the pipeline apply
//! it, and sends the outbox. `once` is one pass (for cron and tests); `run` is the
//! daemon: one loop over new mail, the next deadline, the next retry and shutdown.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

use crate::config::{Config, TransportKind, read_password};
use crate::mail::imap::{Inbound, Wake};
use crate::mail::maildir;
use crate::mail::smtp::Outbound;
use crate::pipeline::{Bot, Processed, failpoint};
use crate::store::{Origin, OutRow, Received, Store, Stored};

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Pipeline(#[from] crate::pipeline::PipelineError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Maildir(#[from] maildir::MaildirError),
    #[error("imap: {0}")]
    Imap(#[from] crate::mail::imap::ImapError),
    #[error("smtp: {0}")]
    Smtp(#[from] crate::mail::smtp::SmtpError),
    #[error("cannot read password file: {0}")]
    Password(std::io::Error),
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
}

/// The mail side of the bot, for the configured transport.
pub struct Transport {
    config: Config,
    imap: Option<Inbound>,
    smtp: Option<Outbound>,
}

impl Transport {
    pub fn new(config: &Config) -> Transport {
        Transport {
            config: config.clone(),
            imap: None,
            smtp: None,
        }
    }

    fn inbox_dir(&self) -> PathBuf {
        self.config.resolve(&self.config.maildir.inbox)
    }

    fn outbox_dir(&self) -> PathBuf {
        self.config.resolve(&self.config.maildir.outbox)
    }

    /// Stores every new message; acknowledges it on the server only once stored.
    pub async fn fetch(&mut self, bot: &mut Bot, now: Timestamp) -> Result<usize, RunError> {
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
                        .map_err(RunError::Password)?
                        .unwrap_or_default();
                    self.imap = Some(Inbound::connect(&cfg, &password).await?);
                }
                let Some(session) = self.imap.as_mut() else {
                    return Ok(0);
                };
                let result = fetch_imap(session, bot, &cfg.mailbox, now, fresh).await;
                if result.is_err() {
                    // A failed command may leave the session out of step: start afresh.
                    self.imap = None;
                }
                result
            }
        }
    }

    /// Sends every outgoing message that is due; failures are retried with backoff.
    /// Each message is marked sent the moment the server accepts it, so a crash
    /// can send again only the messages in flight at that moment. Returns how
    /// many were sent, are to be tried again, and were refused for good.
    pub async fn send(
        &mut self,
        bot: &mut Bot,
        now: Timestamp,
    ) -> Result<(usize, usize, usize), RunError> {
        let due = bot.store.due_outbox(now)?;
        if due.is_empty() {
            return Ok((0, 0, 0));
        }
        failpoint("before-send");
        let mut tally = Tally {
            now,
            retry_max: self.retry_max(),
            sent: 0,
            failed: 0,
            refused: 0,
            server_trouble: None,
        };
        let batches = send_batches(&due);
        let mut chunks = batches.iter().map(|range| &due[range.clone()]);
        for chunk in chunks.by_ref() {
            self.deliver(chunk, &mut bot.store, &mut tally).await?;
            if let Some((error, retry_at)) = tally.server_trouble.take() {
                // The server is down or refusing: the rest would fail the same way.
                // They wait for the same retry, without an attempt counted against them.
                self.smtp = None;
                for later in chunks.flatten() {
                    bot.store.defer(later.id, &error, retry_at)?;
                }
                break;
            }
        }
        Ok((tally.sent, tally.failed, tally.refused))
    }

    /// One attempt at each message of a batch. Over SMTP the envelopes are given
    /// several at once, but the contents are finished one at a time and each
    /// acceptance is recorded before the next message may be finished: a crash
    /// between a server's acceptance and its record can send again only that
    /// one message.
    async fn deliver(
        &mut self,
        rows: &[OutRow],
        store: &mut Store,
        tally: &mut Tally,
    ) -> Result<(), RunError> {
        match self.config.transport {
            TransportKind::Maildir => {
                let dir = self.outbox_dir();
                for row in rows {
                    let result = maildir::deliver(&dir, &row.message_id, &row.raw)
                        .map(|_| ())
                        .map_err(|e| (e.to_string(), true));
                    tally.record(store, row, result)?;
                }
            }
            TransportKind::Imap => {
                let outbound = match self.outbound() {
                    Ok(outbound) => outbound,
                    Err(e) => {
                        for row in rows {
                            tally.record(store, row, Err((e.to_string(), true)))?;
                        }
                        return Ok(());
                    }
                };
                let finishing = tokio::sync::Mutex::new(());
                let mut sends: futures::stream::FuturesUnordered<_> = rows
                    .iter()
                    .map(|row| {
                        let finishing = &finishing;
                        async move {
                            let prepared = outbound
                                .prepare(&row.envelope_from, &row.recipients, &row.raw)
                                .await;
                            let turn = finishing.lock().await;
                            let result = match prepared {
                                Ok(prepared) => prepared.finish(&row.raw).await,
                                Err(e) => Err(e),
                            };
                            (row, result.map_err(|e| failure(&e)), turn)
                        }
                    })
                    .collect();
                while let Some((row, result, turn)) = futures::StreamExt::next(&mut sends).await {
                    tally.record(store, row, result)?;
                    drop(turn);
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
                return Err(RunError::Password(std::io::Error::other(
                    "no [smtp] section",
                )));
            };
            let password = read_password(&cfg.password, &cfg.password_file, &self.config)
                .map_err(RunError::Password)?;
            self.smtp = Some(Outbound::new(&cfg, password)?);
        }
        match &self.smtp {
            Some(outbound) => Ok(outbound),
            None => Err(RunError::Password(std::io::Error::other(
                "no smtp transport",
            ))),
        }
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
                    tracing::info!("new mail announced by the server");
                }
                self.imap = Some(session);
            }
            _ => tokio::time::sleep(timeout.min(Duration::from_secs(1))).await,
        }
        Ok(())
    }
}

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
    /// A failure that a later attempt may get past: the server's, not the message's.
    server_trouble: Option<(String, Timestamp)>,
}

impl Tally {
    /// Records one attempt in the outbox at once: the at-least-once window of a
    /// message is from the server's acceptance to this commit.
    fn record(
        &mut self,
        store: &mut Store,
        row: &OutRow,
        result: Result<(), (String, bool)>,
    ) -> Result<(), RunError> {
        match result {
            Ok(()) => {
                failpoint("accepted");
                store.mark_sent(row.id, self.now)?;
                self.sent += 1;
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
                self.server_trouble = Some((error, retry_at));
            }
        }
        Ok(())
    }
}

/// Stores every new message of `mailbox`, then flags it `\Seen`. On a `fresh`
/// connection, what was stored before is flagged first, in case the last
/// connection was cut between the two.
async fn fetch_imap(
    session: &mut Inbound,
    bot: &mut Bot,
    mailbox: &str,
    now: Timestamp,
    fresh: bool,
) -> Result<usize, RunError> {
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
    // A backlog is fetched, stored and acknowledged a few messages at a time, so
    // it never sits in memory whole; each batch moves the high-water mark.
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
        let uids: Vec<u32> = fetched.iter().map(|f| f.uid).collect();
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
        let stored = bot.receive(&batch, Some((mailbox, uidvalidity, high)), now)?;
        drop(batch);
        session.mark_seen(&uids).await?;
        tracing::info!(
            count = uids.len(),
            new = count_new(&stored),
            "fetched over imap"
        );
        new += count_new(&stored);
        last_uid = high;
    }
}

/// Messages fetched over IMAP, stored and acknowledged at once.
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

/// Messages handed to the SMTP server at once: each is its own connection.
const SMTP_PARALLEL: usize = 8;

/// The outbox in batches sent one after another, up to `SMTP_PARALLEL` each. A
/// batch ends after a message a deadline caused, so such a message (the
/// commitments of sealed actions) is accepted by the server before anything that
/// came after it (their reveal) is even handed over.
fn send_batches(due: &[OutRow]) -> Vec<std::ops::Range<usize>> {
    let mut batches = Vec::new();
    let mut start = 0;
    for (index, row) in due.iter().enumerate() {
        let end = index + 1;
        if end - start == SMTP_PARALLEL || row.cause.starts_with("deadline:") {
            batches.push(start..end);
            start = end;
        }
    }
    if start < due.len() {
        batches.push(start..due.len());
    }
    batches
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
    let fetched = transport.fetch(bot, now).await?;
    let processed = bot.process(now)?;
    let (sent, failed, refused) = transport.send(bot, now).await?;
    Ok(Pass {
        fetched,
        processed,
        sent,
        failed,
        refused,
    })
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
/// applied, and everything sent is marked sent, before it returns.
pub async fn run(bot: &mut Bot, shutdown: impl Future<Output = ()>) -> Result<(), RunError> {
    let mut transport = Transport::new(&bot.config);
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
        let pass = once(bot, &mut transport, now).await;
        let wait = match pass {
            Ok(pass) => {
                failures = 0;
                if pass.fetched + pass.processed.deadlines + pass.sent + pass.failed + pass.refused
                    > 0
                {
                    tracing::info!(
                        fetched = pass.fetched,
                        applied = pass.processed.applied,
                        aside = pass.processed.aside,
                        deadlines = pass.processed.deadlines,
                        sent = pass.sent,
                        failed = pass.failed,
                        refused = pass.refused,
                        "pass done"
                    );
                }
                // Sleep until the next deadline or retry, or until new mail.
                let mut until = poll;
                let wake_at = [bot.next_deadline(), bot.store.next_retry()?]
                    .into_iter()
                    .flatten()
                    .min();
                if let Some(at) = wake_at {
                    let left = at.duration_since(Timestamp::now());
                    until = until.min(Duration::try_from(left).unwrap_or(Duration::ZERO));
                }
                until
            }
            Err(error) => {
                failures = failures.saturating_add(1);
                let delay = Duration::from_secs(1u64 << failures.min(6));
                tracing::warn!(%error, retry_in = ?delay, "pass failed");
                delay
            }
        };
        if wait.is_zero() {
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
            result = transport.wait(bot, wait) => {
                if let Err(error) = result {
                    tracing::warn!(%error, "waiting for mail failed: reconnecting");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
