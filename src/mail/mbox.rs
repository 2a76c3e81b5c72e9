//! Splits an mbox file into its messages (mboxrd: a line `From ` after a blank
//! line, or at the start, begins a message; `>From ` is unescaped). Used by
//! `ingest` so an archive can be fed in whole: `Messages` reads it as a stream,
//! one message in memory at a time, however large the archive.

use std::io::BufRead;

/// Does this look like an mbox file rather than one message? `bytes` is the
/// file's beginning (five bytes are enough).
pub fn is_mbox(bytes: &[u8]) -> bool {
    bytes.starts_with(b"From ")
}

/// Every message of an mbox held in memory, in order.
pub fn split(bytes: &[u8]) -> Vec<Vec<u8>> {
    // Reading from a slice cannot fail: no message is lost to `flatten`.
    Messages::new(bytes).flatten().collect()
}

/// The messages of an mbox read from `input`, one at a time, in order. An
/// archive's messages that are only white space are left out.
pub struct Messages<R> {
    input: R,
    /// The message being read; none before the first line or after the end.
    current: Option<Vec<u8>>,
    previous_blank: bool,
    line: Vec<u8>,
    done: bool,
}

impl<R: BufRead> Messages<R> {
    pub fn new(input: R) -> Messages<R> {
        Messages {
            input,
            current: None,
            previous_blank: true,
            line: Vec::new(),
            done: false,
        }
    }

    /// The next message whole, or `None` at the end of the input.
    fn next_message(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        while !self.done {
            self.line.clear();
            if self.input.read_until(b'\n', &mut self.line)? == 0 {
                self.done = true;
                break;
            }
            let line = self.line.as_slice();
            if self.previous_blank && line.starts_with(b"From ") {
                self.previous_blank = false;
                if let Some(done) = self.current.replace(Vec::new()) {
                    return Ok(Some(finish(done)));
                }
                continue;
            }
            let body = self.current.get_or_insert_with(Vec::new);
            let unescaped = match line.iter().position(|b| *b != b'>') {
                Some(n) if n > 0 && line[n..].starts_with(b"From ") => &line[1..],
                _ => line,
            };
            body.extend_from_slice(unescaped);
            self.previous_blank = line == b"\n" || line == b"\r\n";
        }
        Ok(self.current.take().map(finish))
    }
}

impl<R: BufRead> Iterator for Messages<R> {
    type Item = std::io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.next_message() {
                Ok(Some(message)) if message.iter().all(u8::is_ascii_whitespace) => continue,
                Ok(Some(message)) => return Some(Ok(message)),
                Ok(None) => return None,
                Err(error) => {
                    // A read that failed once is not retried: the stream ends here.
                    self.done = true;
                    self.current = None;
                    return Some(Err(error));
                }
            }
        }
    }
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

    /// The splitting rules as they were when `split` held the whole file: the
    /// reader must agree with them on every input.
    fn split_whole(bytes: &[u8]) -> Vec<Vec<u8>> {
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

    #[test]
    fn the_reader_agrees_with_the_whole_file_split_on_awkward_archives() {
        let cases: &[&[u8]] = &[
            b"",
            b"From ",
            b"From a\n",
            b"From a\n\n\nFrom b\n \n",
            b"Subject: before any From line\n\nFrom a\nSubject: x\n\nbody",
            b"From a\r\nSubject: crlf\r\n\r\n>>From twice\r\n\r\nFrom b\r\nSubject: y\r\n\r\nno newline at the end",
            b"From a\nSubject: one\nFrom not after a blank line\n\nFrom b\n\n\n\nFrom c\nlast\n\n",
            b"From a\n>From\n>>From x\n>Fromage\n\nFrom b\nx\n",
        ];
        for case in cases {
            let streamed: Vec<Vec<u8>> = Messages::new(*case)
                .collect::<std::io::Result<_>>()
                .expect("a slice reads");
            assert_eq!(
                streamed,
                split_whole(case),
                "{:?}",
                String::from_utf8_lossy(case)
            );
        }
    }

    /// A buffer smaller than a line: lines still come whole.
    #[test]
    fn a_small_buffer_reads_the_same_messages() {
        let mut mbox = Vec::new();
        for i in 0..50 {
            mbox.extend_from_slice(
                format!("From m{i}@x Mon Jan  1 00:00:00 2024\nSubject: message {i}\n\n>From the body of {i}\n\n").as_bytes(),
            );
        }
        let reader = std::io::BufReader::with_capacity(7, mbox.as_slice());
        let streamed: Vec<Vec<u8>> = Messages::new(reader)
            .collect::<std::io::Result<_>>()
            .expect("a slice reads");
        assert_eq!(streamed.len(), 50);
        assert_eq!(streamed, split_whole(&mbox));
        assert_eq!(
            streamed[49],
            b"Subject: message 49\n\nFrom the body of 49\n"
        );
    }
}
