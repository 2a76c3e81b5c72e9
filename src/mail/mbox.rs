//! Splits an mbox file into its messages (mboxrd: a line `From ` after a blank
//! line, or at the start, begins a message; `>From ` is unescaped). Used by
//! `ingest` so an archive can be fed in whole.

/// Does this look like an mbox file rather than one message?
pub fn is_mbox(bytes: &[u8]) -> bool {
    bytes.starts_with(b"From ")
}

pub fn split(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut messages = Vec::new();
    let mut current: Option<Vec<u8>> = None;
    let mut previous_blank = true;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        if previous_blank && line.starts_with(b"From ") {
            if let Some(done) = current.take() {
                messages.push(finish(done));
            }
            current = Some(Vec::new());
            previous_blank = false;
            continue;
        }
        let body = current.get_or_insert_with(Vec::new);
        let unescaped = match line.iter().position(|b| *b != b'>') {
            Some(n) if n > 0 && line[n..].starts_with(b"From ") => &line[1..],
            _ => line,
        };
        body.extend_from_slice(unescaped);
        previous_blank = line == b"\n" || line == b"\r\n";
    }
    if let Some(done) = current {
        messages.push(finish(done));
    }
    messages.retain(|m| !m.iter().all(u8::is_ascii_whitespace));
    messages
}

/// The blank line before the next `From ` belongs to the separator, not the message.
fn finish(mut message: Vec<u8>) -> Vec<u8> {
    if message.ends_with(b"\r\n\r\n") {
        message.truncate(message.len() - 2);
    } else if message.ends_with(b"\n\n") {
        message.truncate(message.len() - 1);
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_unescapes() {
        let mbox = b"From a@x Mon Jan  1 00:00:00 2024\nSubject: one\n\n>From here\nbody\n\nFrom b@x Mon Jan  1 00:00:00 2024\nSubject: two\n\nbody two\n";
        let messages = split(mbox);
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0], b"Subject: one\n\nFrom here\nbody\n");
        assert_eq!(messages[1], b"Subject: two\n\nbody two\n");
    }
}
