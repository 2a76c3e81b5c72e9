//! `preview`: a message whose first line is `preview` is carried out on a
//! scratch copy of the world, as the real one would be at its arrival, and
//! answered privately with what each following line would do; the step commits
//! that answer and the inbox record alone, never an event. What the preview
//! shows is what the real action would show its sender, less anything it would
//! reveal of what is hidden (`games::hidden_from_preview`): a preview must not
//! let a player peek without acting.

use jiff::Timestamp;
use serde_json::{Value, json};

use super::{Bot, PipelineError, Result};
use crate::engine::{Address, Audience, Ctx, Mail, Sentence, Status};
use crate::games::{self, LineStart, Message, Outcome};
use crate::mail::compose::{Kind, Thread};
use crate::mail::parse::Envelope;
use crate::store::{InboxRow, InboxStatus, Step};

/// The inbox's reason for a previewed message: applied as a preview, nothing done.
pub const PREVIEWED: &str = "preview: answered with what it would do; nothing was applied";

/// Takes the `preview` line off a message: the first line of its body that is
/// not blank, or the rest of its subject (`[nomic] preview`). `true` when the
/// message asks for a preview.
pub fn take(mut message: Message) -> (Message, bool) {
    let is_preview = |line: &str| line.trim().eq_ignore_ascii_case("preview");
    if is_preview(&message.subject_rest) {
        message.subject_rest.clear();
        return (message, true);
    }
    let first = message
        .body_lines
        .iter()
        .position(|line| !line.trim().is_empty());
    match first {
        Some(index) if is_preview(&message.body_lines[index]) => {
            message.body_lines.drain(..=index);
            (message, true)
        }
        _ => (message, false),
    }
}

/// What the preview's answer needs beyond the outcome.
pub(super) struct Asked<'a> {
    pub row: &'a InboxRow,
    pub at: Timestamp,
    pub cause: &'a str,
    pub message: &'a Message,
    pub envelope: &'a Envelope,
    pub ctx: &'a Ctx,
    pub thread: &'a Thread,
    pub trusted: bool,
    /// The first line of the report that is a passphrase command: what it
    /// mails (a code) would not work, so it is never shown.
    pub passphrase_lines_from: usize,
}

impl Bot {
    /// Answers a preview and records that it was one; the world is not touched.
    pub(super) fn preview(
        &mut self,
        asked: Asked<'_>,
        outcome: &Outcome,
        now: Timestamp,
    ) -> Result<(bool, usize)> {
        let values = self.preview_values(&asked, outcome)?;
        let Asked {
            row,
            at,
            cause,
            message,
            ctx,
            thread,
            trusted,
            ..
        } = asked;
        let answer = Mail::new(
            Audience::Address(ctx.sender.clone()),
            &message.tag,
            "preview",
            values,
        );
        let mut mail = match self.render_one(&answer, cause, 0, thread, Kind::Reply, now) {
            Ok(one) => vec![one],
            Err(error @ (PipelineError::Template(_) | PipelineError::Compose(_))) => {
                tracing::error!(inbox = row.id, %error, "cannot write the answer to a preview");
                return self.keep_aside(
                    row,
                    at,
                    cause,
                    format!("its preview cannot be written: {error}"),
                    now,
                );
            }
            Err(other) => return Err(other),
        };
        let limit = self.config.limits.max_answer_bytes;
        let bytes: usize = mail.iter().map(|one| one.raw.len()).sum();
        if bytes > limit {
            let reason = format!(
                "its preview would be {bytes} bytes long, and the bot sends up to {limit} bytes for one message"
            );
            return self.not_read(row, at, cause, reason, message, ctx, thread, trusted, now);
        }
        self.apply_quota(&mut mail, &ctx.sender, at, trusted)?;
        let queued = mail.len();
        self.store.commit(Step {
            inbox: Some((row.id, InboxStatus::Applied, Some(PREVIEWED.to_owned()))),
            cause: cause.to_owned(),
            at,
            events: Vec::new(),
            world: &self.world,
            mail,
            now,
        })?;
        self.clock = Some(at);
        Ok((true, queued))
    }

    fn preview_values(&self, asked: &Asked<'_>, outcome: &Outcome) -> Result<Value> {
        let Asked {
            message,
            envelope,
            ctx,
            passphrase_lines_from,
            ..
        } = asked;
        let officers = self.params.with_offices(&self.world.shared.offices);
        let officers = officers.officers();
        // Who a private mail goes to, as the sender may be told: the role that
        // receives it, never the address.
        let to_whom = |address: &Address| -> &'static str {
            if officers.is_moderator(address) {
                "moderators"
            } else if super::holds_an_office(officers, address) {
                "officer"
            } else {
                "other"
            }
        };
        let end = LineStart {
            events: outcome.events.len(),
            mail: outcome.mail.len(),
        };
        let mut lines = Vec::new();
        let mut any_hidden = false;
        for (index, report) in outcome.report.iter().enumerate() {
            let start = outcome.line_starts.get(index).copied().unwrap_or(end);
            let next = outcome.line_starts.get(index + 1).copied().unwrap_or(end);
            let events = outcome.events.get(start.events..next.events).unwrap_or(&[]);
            let sent = outcome.mail.get(start.mail..next.mail).unwrap_or(&[]);
            let hidden = events.iter().any(games::hidden_from_preview);
            let passphrase = index >= *passphrase_lines_from;
            let mut sentence = report.sentence.clone();
            if report.status == Status::Done && hidden {
                sentence = Sentence::new("preview_hidden");
            }
            if sentence.code == "moderators_only" {
                sentence = sentence.arg("none_configured", self.config.bot.moderators.is_empty());
            }
            let mut would = Vec::new();
            // What a hidden line would send is not even counted: how many
            // mails, and to whom, differ between a right guess and a wrong one.
            let sent = if hidden { &[][..] } else { sent };
            any_hidden |= hidden;
            for mail in sent {
                let own = mail.to == Audience::Address(ctx.sender.clone());
                let to = match &mail.to {
                    Audience::List => "list",
                    Audience::Address(_) if own => "you",
                    Audience::Address(address) => to_whom(address),
                };
                let withheld = if passphrase {
                    Some("code")
                } else if !own && mail.to != Audience::List {
                    Some("private")
                } else {
                    None
                };
                would.push(match withheld {
                    Some(why) => json!({ "to": to, "withheld": why }),
                    None => {
                        let rendered = self.templates.render(&mail.template, &mail.values)?;
                        // The signature is the bot's, the same under every mail.
                        let body = rendered
                            .body
                            .split("\n-- \n")
                            .next()
                            .unwrap_or_default()
                            .trim_end()
                            .to_owned();
                        json!({
                            "to": to,
                            "subject": format!("[{}] {}", mail.tag, rendered.subject),
                            "body": body,
                        })
                    }
                });
            }
            lines.push(json!({
                "line": report.line,
                "status": report.status,
                "sentence": sentence,
                "would": would,
            }));
        }
        // The copies of the answer the real message would send, as `answer` decides.
        let (done, judged) = outcome.acted();
        let mut copies: Vec<&'static str> = Vec::new();
        if !ctx.public && judged {
            let asked_for = self
                .config
                .officers
                .copy_private_to
                .iter()
                .map(|a| Address::new(a))
                .filter(|_| done);
            for officer in asked_for.chain(outcome.copies.iter().cloned()) {
                let role = to_whom(&officer);
                if officer != ctx.sender && !copies.contains(&role) {
                    copies.push(role);
                }
            }
        }
        // A deadline the lines would bring due at once (the last vote of a turn
        // brings its count): the real message would be followed by it, so the
        // preview says one follows, and nothing of what it would reveal.
        let mut next = self.world.clone();
        for event in &outcome.events {
            next.apply_event(event, ctx.now);
        }
        let due_now = |world: &games::World| {
            world
                .next_deadline(&self.params)
                .is_some_and(|deadline| deadline <= ctx.now)
        };
        // Said only when no line is hidden: what falls due after a hidden line
        // (the Machine moving after a right guess) would tell what it hides.
        let follows = !any_hidden && !due_now(&self.world) && due_now(&next);
        let summary = |status| outcome.report.iter().filter(|r| r.status == status).count();
        Ok(json!({
            "tag": message.tag,
            "subject": envelope.subject,
            "subject_rest": message.subject_rest,
            "lines": lines,
            "done": summary(Status::Done),
            "refused": summary(Status::Refused),
            "not_understood": summary(Status::NotUnderstood),
            "help": outcome.help,
            "public": ctx.public,
            "at": crate::engine::human_time(ctx.now),
            "copies": copies,
            "follows": follows,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(rest: &str, body: &[&str]) -> Message {
        Message {
            tag: "nomic".into(),
            subject_rest: rest.into(),
            body_lines: body.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn the_first_line_that_is_not_blank_asks_for_a_preview() {
        let (taken, asked) = take(message("", &["", "  Preview ", "join Alice"]));
        assert!(asked);
        assert_eq!(taken.body_lines, ["join Alice"]);
        let (taken, asked) = take(message("preview", &["join Alice"]));
        assert!(asked);
        assert_eq!(taken.subject_rest, "");
        let (_, asked) = take(message("", &["join Alice", "preview"]));
        assert!(!asked);
    }
}
