//! Counting server-sent events across arbitrarily split body chunks.

/// Counts the events (blocks with at least one field line) and the comment
/// blocks (only `:` lines, e.g. `: keep-alive`) of an SSE body fed in
/// chunks. A `\r` is treated as an ordinary byte; servers here end lines
/// with `\n`.
#[derive(Debug, Default, Clone)]
pub struct SseCounter {
    /// Complete events seen.
    pub events: u64,
    /// Complete comment-only blocks seen.
    pub comments: u64,
    line_len: usize,
    block_lines: usize,
    block_has_field: bool,
}

impl SseCounter {
    /// Feeds the next chunk; returns how many events it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> u64 {
        let before = self.events;
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', chunk) {
            self.partial(&chunk[start..nl]);
            self.end_line();
            start = nl + 1;
        }
        self.partial(&chunk[start..]);
        self.events - before
    }

    fn partial(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if self.line_len == 0 && bytes[0] != b':' {
            self.block_has_field = true;
        }
        self.line_len += bytes.len();
    }

    fn end_line(&mut self) {
        if self.line_len == 0 {
            if self.block_lines > 0 {
                if self.block_has_field {
                    self.events += 1;
                } else {
                    self.comments += 1;
                }
            }
            self.block_lines = 0;
            self.block_has_field = false;
        } else {
            self.block_lines += 1;
        }
        self.line_len = 0;
    }

    /// Splits a whole SSE body into its blocks, each with its trailing blank
    /// line (`…\n\n`), comments included.
    #[must_use]
    pub fn split_blocks(body: &[u8]) -> Vec<&[u8]> {
        let mut out = Vec::new();
        let mut start = 0;
        while let Some(i) = memchr::memmem::find(&body[start..], b"\n\n") {
            out.push(&body[start..start + i + 2]);
            start += i + 2;
        }
        if start < body.len() {
            out.push(&body[start..]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_across_chunks() {
        let body = b": keep-alive\n\ndata: {\"a\":1}\n\nevent: x\ndata: 2\n\n";
        for split in 0..body.len() {
            let mut c = SseCounter::default();
            c.feed(&body[..split]);
            c.feed(&body[split..]);
            assert_eq!((c.events, c.comments), (2, 1), "split at {split}");
        }
        assert_eq!(SseCounter::split_blocks(body).len(), 3);
    }
}
