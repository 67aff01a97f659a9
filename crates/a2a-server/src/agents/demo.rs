//! The demo agent (`a2a serve --agent demo`).
//!
//! | the user sends | the agent does |
//! |---|---|
//! | any text (skill `echo`) | `working`, the text back as chunks of the artifact `echo` (one per word, `append` after the first, `lastChunk` on the last; the chunks join to exactly the text), `completed` |
//! | file or data parts | as `echo`, plus one more chunk describing them: `[file report.pdf, application/pdf, 1234 bytes]`, `[data {"a":1}]` |
//! | metadata `"reply": "message"` (request or message), on a new task | one agent `Message` with the text, and no task (ignored on a follow-up: a task exists) |
//! | `interview` | `input-required` asking "What is your name?"; the answer completes the task with the artifact `Nice to meet you, <answer>!` |
//! | `countdown N` | `working` with the remaining count once per second, `completed` after N s (N ≤ 600, default 10); stops at once when canceled |

use std::time::Duration;

use a2a_core::{AgentExecutor, EventSink, RequestContext, TaskUpdater, new_id};
use a2a_types::{A2aError, FileContent, Message, Part, Role, StreamResponse, Task};
use async_trait::async_trait;
use tokio::time::Instant;

use super::{AgentDescription, FILE_INPUT_MODES, skill};

/// The question of the `interview` skill.
pub const INTERVIEW_QUESTION: &str = "What is your name?";
/// The longest countdown, in seconds.
pub const MAX_COUNTDOWN_SECS: u64 = 600;
/// The countdown length when `countdown` has no number.
pub const DEFAULT_COUNTDOWN_SECS: u64 = 10;
/// The artifact id (and name) of the echo.
pub const ECHO_ARTIFACT: &str = "echo";

/// The demo agent's card description.
#[must_use]
pub fn description() -> AgentDescription {
    AgentDescription::new(
        "A2A demo agent",
        "Echoes text back as a streamed artifact, asks for your name, and counts down.",
        env!("CARGO_PKG_VERSION"),
    )
    .input_modes(FILE_INPUT_MODES.iter().copied())
    .skill(skill(
        "echo",
        "Echo",
        "Streams the text back as chunks of the artifact `echo`; file and data parts are \
         described in an extra chunk. With metadata `\"reply\": \"message\"` it answers \
         with a single message instead of a task.",
        &["echo", "streaming"],
        &["hello world"],
    ))
    .skill(skill(
        "interview",
        "Interview",
        "Asks for your name (input-required), then greets you.",
        &["multi-turn", "input-required"],
        &["interview"],
    ))
    .skill(skill(
        "countdown",
        "Countdown",
        "Counts down N seconds (at most 600), one status update per second; cancel it \
         with tasks/cancel.",
        &["long-running", "cancel"],
        &["countdown 5"],
    ))
}

/// The demo agent; see the [module docs](self).
#[derive(Debug, Clone, Copy, Default)]
pub struct DemoAgent;

/// What the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Command {
    Echo,
    Interview,
    Countdown(u64),
}

impl Command {
    fn parse(text: &str) -> Self {
        let mut words = text.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some(w), None, None) if w.eq_ignore_ascii_case("interview") => Self::Interview,
            (Some(w), None, None) if w.eq_ignore_ascii_case("countdown") => {
                Self::Countdown(DEFAULT_COUNTDOWN_SECS)
            }
            (Some(w), Some(n), None) if w.eq_ignore_ascii_case("countdown") => n
                .parse::<u64>()
                .map_or(Self::Echo, |n| Self::Countdown(n.min(MAX_COUNTDOWN_SECS))),
            _ => Self::Echo,
        }
    }
}

#[async_trait]
impl AgentExecutor for DemoAgent {
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        let Some(message) = ctx.message.clone() else {
            return Err(A2aError::invalid_params("no message to answer"));
        };
        if ctx.task.is_none() && super::wants_message_reply(&ctx) {
            let mut reply = Message::agent_text(new_id(), message.text());
            reply.context_id = Some(ctx.context_id.clone());
            return events.publish(StreamResponse::Message(reply)).await;
        }
        let task = ctx.updater(events);
        if ctx.task.as_ref().is_some_and(awaits_interview_answer) {
            return interview_answer(&task, &message).await;
        }
        match Command::parse(&message.text()) {
            Command::Echo => echo(&task, &message).await,
            Command::Interview => {
                task.start_work(None).await?;
                task.requires_input(task.agent_text(INTERVIEW_QUESTION))
                    .await
            }
            Command::Countdown(n) => countdown(&ctx, &task, n).await,
        }
    }
}

/// The task's latest agent message (its status message, else the last agent
/// message of its history) is the interview question. The history is checked
/// because the engine archives the question there and moves the task back to
/// `submitted` when the answer arrives.
fn awaits_interview_answer(task: &Task) -> bool {
    let latest_agent = task.status.message.iter().chain(
        task.history
            .iter()
            .flatten()
            .rev()
            .filter(|m| m.role == Role::Agent),
    );
    latest_agent.take(1).any(|m| m.text() == INTERVIEW_QUESTION) && !task.status.state.is_terminal()
}

/// Splits `text` into word chunks (each word with the whitespace after it;
/// leading whitespace stays with the first word). The chunks join to `text`.
#[must_use]
pub fn word_chunks(text: &str) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut prev_ws = false;
    for (i, c) in text.char_indices() {
        let ws = c.is_whitespace();
        if prev_ws && !ws && i > 0 && text[start..i].chars().any(|c| !c.is_whitespace()) {
            chunks.push(&text[start..i]);
            start = i;
        }
        prev_ws = ws;
    }
    if start < text.len() {
        chunks.push(&text[start..]);
    }
    chunks
}

/// A one-line description of a file or data part, `None` for text.
#[must_use]
pub fn describe_part(part: &Part) -> Option<String> {
    match part {
        Part::Text(_) => None,
        Part::File(f) => {
            let name = f.file.name().unwrap_or("unnamed");
            let mime = f.file.mime_type().unwrap_or("application/octet-stream");
            Some(match &f.file {
                FileContent::Bytes(b) => {
                    format!("[file {name}, {mime}, {} bytes]", base64_len(&b.bytes))
                }
                FileContent::Uri(u) => format!("[file {name}, {mime}, {}]", u.uri),
            })
        }
        Part::Data(d) => Some(format!(
            "[data {}]",
            serde_json::Value::Object(d.data.clone())
        )),
    }
}

/// The decoded length of base64 (standard or URL-safe, padded or not),
/// without decoding it.
fn base64_len(b64: &str) -> usize {
    let n = b64
        .bytes()
        .filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'))
        .count();
    n * 3 / 4
}

async fn echo(task: &TaskUpdater, message: &Message) -> Result<(), A2aError> {
    task.start_work(None).await?;
    let text = message.text();
    let mut chunks: Vec<String> = word_chunks(&text).into_iter().map(str::to_owned).collect();
    let described: Vec<String> = message.parts.iter().filter_map(describe_part).collect();
    if !described.is_empty() {
        let mut extra = described.join("\n");
        if !text.is_empty() {
            extra.insert(0, '\n');
        }
        chunks.push(extra);
    }
    if chunks.is_empty() {
        chunks.push(String::new());
    }
    let last = chunks.len() - 1;
    for (i, chunk) in chunks.into_iter().enumerate() {
        task.add_artifact(
            vec![Part::text(chunk)],
            ECHO_ARTIFACT,
            Some(ECHO_ARTIFACT),
            i > 0,
            i == last,
        )
        .await?;
    }
    task.complete(None).await
}

async fn interview_answer(task: &TaskUpdater, message: &Message) -> Result<(), A2aError> {
    let text = message.text();
    let name = text.trim();
    if name.is_empty() {
        return task
            .requires_input(task.agent_text(INTERVIEW_QUESTION))
            .await;
    }
    task.start_work(None).await?;
    task.add_artifact(
        vec![Part::text(format!("Nice to meet you, {name}!"))],
        "greeting",
        Some("greeting"),
        false,
        true,
    )
    .await?;
    task.complete(None).await
}

async fn countdown(ctx: &RequestContext, task: &TaskUpdater, n: u64) -> Result<(), A2aError> {
    let cancel = &ctx.cancellation;
    // A publish that fails because the task was canceled meanwhile is not
    // an error of this execution.
    let quiet = |r: Result<(), A2aError>| if cancel.is_cancelled() { Ok(()) } else { r };
    let start = Instant::now();
    quiet(task.start_work(Some(task.agent_text(n.to_string()))).await)?;
    for k in 1..=n {
        tokio::select! {
            biased;
            () = cancel.cancelled() => return Ok(()),
            () = tokio::time::sleep_until(start + Duration::from_secs(k)) => {}
        }
        let remaining = n - k;
        if remaining > 0 {
            quiet(
                task.start_work(Some(task.agent_text(remaining.to_string())))
                    .await,
            )?;
        }
    }
    if cancel.is_cancelled() {
        return Ok(());
    }
    quiet(task.complete(Some(task.agent_text("Liftoff!"))).await)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_join_to_the_text() {
        for text in [
            "",
            "one",
            "hello interop \u{e9}\u{e8} \u{1f30d} from the python sdk",
            "  leading and trailing  ",
            "tabs\tand\nnewlines\n",
            "   ",
        ] {
            let chunks = word_chunks(text);
            assert_eq!(chunks.concat(), text, "{text:?}");
            assert!(chunks.iter().all(|c| !c.is_empty()));
        }
        assert_eq!(word_chunks("a b  c"), vec!["a ", "b  ", "c"]);
        assert_eq!(word_chunks("  a b"), vec!["  a ", "b"]);
    }

    #[test]
    fn commands() {
        assert_eq!(Command::parse("interview"), Command::Interview);
        assert_eq!(Command::parse(" Interview "), Command::Interview);
        assert_eq!(Command::parse("countdown 3"), Command::Countdown(3));
        assert_eq!(Command::parse("countdown 99999"), Command::Countdown(600));
        assert_eq!(Command::parse("countdown"), Command::Countdown(10));
        assert_eq!(Command::parse("countdown to launch"), Command::Echo);
        assert_eq!(Command::parse("interview me"), Command::Echo);
        assert_eq!(Command::parse("hello"), Command::Echo);
    }

    #[test]
    fn part_descriptions() {
        let file: Part = serde_json::from_value(serde_json::json!({
            "kind": "file", "file": {"name": "report.pdf", "mimeType": "application/pdf", "bytes": "aGVsbG8="}
        }))
        .unwrap();
        assert_eq!(
            describe_part(&file).unwrap(),
            "[file report.pdf, application/pdf, 5 bytes]"
        );
        let data: Part =
            serde_json::from_value(serde_json::json!({"kind": "data", "data": {"a": 1}})).unwrap();
        assert_eq!(describe_part(&data).unwrap(), r#"[data {"a":1}]"#);
        assert_eq!(describe_part(&Part::text("x")), None);
    }
}
