//! A minimal Server-Sent Events reader, written here so that the suite does
//! not share the client's parser: `\n`, `\r\n` and `\r` line ends, comments,
//! `event:` names, and `data:` spread over several lines (joined by `\n`).

use futures::StreamExt;
use futures::stream::BoxStream;

/// One event: its `event:` name (empty when absent) and its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub(crate) event: String,
    pub(crate) data: String,
}

struct Reader {
    body: BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: Vec<u8>,
    event: String,
    data: Vec<String>,
    done: bool,
}

impl Reader {
    /// One complete line from the buffer, without its line end.
    fn line(&mut self) -> Option<String> {
        let end = self
            .buffer
            .iter()
            .position(|b| matches!(b, b'\n' | b'\r'))?;
        let mut next = end + 1;
        if self.buffer[end] == b'\r' {
            match self.buffer.get(end + 1) {
                Some(b'\n') => next += 1,
                // A `\r` at the very end may be the first half of `\r\n`.
                None if !self.done => return None,
                _ => {}
            }
        }
        let line = String::from_utf8_lossy(&self.buffer[..end]).into_owned();
        self.buffer.drain(..next);
        Some(line)
    }

    /// Applies one line; returns a complete event at a blank line.
    fn apply(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            if self.data.is_empty() {
                self.event.clear();
                return None;
            }
            return Some(SseEvent {
                event: std::mem::take(&mut self.event),
                data: std::mem::take(&mut self.data).join("\n"),
            });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "data" => self.data.push(value.to_owned()),
            "event" => value.clone_into(&mut self.event),
            _ => {}
        }
        None
    }
}

/// The events of an SSE body, in order; a transport error is the last item.
pub(crate) fn events(response: reqwest::Response) -> BoxStream<'static, Result<SseEvent, String>> {
    let reader = Reader {
        body: response.bytes_stream().boxed(),
        buffer: Vec::new(),
        event: String::new(),
        data: Vec::new(),
        done: false,
    };
    futures::stream::unfold(reader, |mut r| async move {
        loop {
            while let Some(line) = r.line() {
                if let Some(event) = r.apply(&line) {
                    return Some((Ok(event), r));
                }
            }
            if r.done {
                return None;
            }
            match r.body.next().await {
                Some(Ok(bytes)) => r.buffer.extend_from_slice(&bytes),
                Some(Err(e)) => {
                    r.done = true;
                    return Some((Err(format!("the SSE body broke: {e}")), r));
                }
                None => {
                    // A last event without its blank line is dropped, as
                    // the SSE specification says.
                    r.done = true;
                }
            }
        }
    })
    .boxed()
}
