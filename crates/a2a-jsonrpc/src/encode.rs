//! Encoding answers: the one error table, JSON-RPC response bodies, SSE
//! events. Everything is serialized straight into the output buffer; the
//! request id is copied as the raw JSON text the client sent.

use a2a_types::A2aError;
use a2a_types::jsonrpc::JsonRpcError;
use serde::Serialize;
use serde_json::value::RawValue;

/// The mapping of an [`A2aError`] to a JSON-RPC error object — the only one
/// this crate uses (see the crate docs for the table).
///
/// It is the identity on codes: `code` is [`A2aError::code`] (the spec codes
/// -32700…-32603 and -32001…-32007, or a peer's own code for
/// [`A2aError::Other`]), `message` is the error's message (the schema's
/// default message when it is empty) and `data` is the error's `data`,
/// omitted when absent.
#[must_use]
pub fn error_object(err: &A2aError) -> JsonRpcError {
    let message = match err.message() {
        "" => A2aError::default_message(err.code()).unwrap_or("Error"),
        m => m,
    };
    JsonRpcError {
        code: err.code(),
        message: message.to_owned(),
        data: err.data().cloned(),
    }
}

const VERSION: &str = "2.0";

/// The success envelope as `serde_json` writes it: what
/// [`write_success`] is held to in the tests.
#[cfg(test)]
#[derive(Serialize)]
struct Success<'a, R> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: &'a R,
}

#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    error: JsonRpcError,
}

/// The last resort when even an error cannot be encoded (it cannot happen
/// with `serde_json::Value` data, but no input may panic the server).
const INTERNAL_FALLBACK: &str =
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#;

/// The initial capacity of an answer's buffer (a body or an SSE frame): a
/// small task (the common answer) fits without growing it.
pub(crate) const BODY_CAPACITY: usize = 1024;

/// Appends `{"jsonrpc":"2.0","id":…,"result":…}` to `buf`: the envelope
/// written as is, the request id copied as the client's raw JSON text, the
/// result through [`a2a_types::json::to_writer`] (`serde_json`'s bytes,
/// with a faster string scan).
fn write_success<R: Serialize>(
    buf: &mut Vec<u8>,
    id: &RawValue,
    result: &R,
) -> Result<(), serde_json::Error> {
    buf.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    buf.extend_from_slice(id.get().as_bytes());
    buf.extend_from_slice(br#","result":"#);
    a2a_types::json::to_writer(buf, result)?;
    buf.push(b'}');
    Ok(())
}

/// `{"jsonrpc":"2.0","id":…,"result":…}` as bytes.
pub(crate) fn success_body<R: Serialize>(id: &RawValue, result: &R) -> Vec<u8> {
    let mut buf = Vec::with_capacity(BODY_CAPACITY);
    match write_success(&mut buf, id, result) {
        Ok(()) => buf,
        Err(e) => error_body(
            id,
            &A2aError::internal(format!("could not encode the result: {e}")),
        ),
    }
}

/// `{"jsonrpc":"2.0","id":…,"error":{…}}` as bytes.
pub(crate) fn error_body(id: &RawValue, err: &A2aError) -> Vec<u8> {
    let out = Failure {
        jsonrpc: VERSION,
        id,
        error: error_object(err),
    };
    serde_json::to_vec(&out).unwrap_or_else(|_| INTERNAL_FALLBACK.as_bytes().to_vec())
}

/// Appends one SSE event, `data: {"jsonrpc":"2.0","id":…,"result":…}` and
/// a blank line, to `buf`.
///
/// Compact JSON has no raw line break (serde_json escapes them inside
/// strings), so the response is always one `data:` line; the bytes equal
/// axum's `Event::json_data` (tested below).
pub(crate) fn push_success_event<R: Serialize>(buf: &mut Vec<u8>, id: &RawValue, result: &R) {
    let start = buf.len();
    buf.extend_from_slice(b"data: ");
    match write_success(buf, id, result) {
        Ok(()) => buf.extend_from_slice(b"\n\n"),
        Err(e) => {
            buf.truncate(start);
            push_error_event(
                buf,
                id,
                &A2aError::internal(format!("could not encode the event: {e}")),
            );
        }
    }
}

/// Appends one SSE event whose `data:` line is an error response.
pub(crate) fn push_error_event(buf: &mut Vec<u8>, id: &RawValue, err: &A2aError) {
    let start = buf.len();
    buf.extend_from_slice(b"data: ");
    let out = Failure {
        jsonrpc: VERSION,
        id,
        error: error_object(err),
    };
    if serde_json::to_writer(&mut *buf, &out).is_err() {
        buf.truncate(start + b"data: ".len());
        buf.extend_from_slice(INTERNAL_FALLBACK.as_bytes());
    }
    buf.extend_from_slice(b"\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies() {
        let id = serde_json::from_str::<&RawValue>(r#""x""#).expect("raw");
        assert_eq!(
            success_body(id, &serde_json::json!({"a": 1})),
            br#"{"jsonrpc":"2.0","id":"x","result":{"a":1}}"#
        );
        assert_eq!(
            success_body(RawValue::NULL, &()),
            br#"{"jsonrpc":"2.0","id":null,"result":null}"#
        );
        let err = A2aError::task_not_found("gone").with_data(serde_json::json!({"id": "t"}));
        assert_eq!(
            error_body(id, &err),
            br#"{"jsonrpc":"2.0","id":"x","error":{"code":-32001,"message":"gone","data":{"id":"t"}}}"#
        );
        assert_eq!(
            error_object(&A2aError::internal("")).message,
            "Internal error"
        );
        for &code in a2a_types::SPEC_ERROR_CODES {
            let e = A2aError::from_code(code, "m", None);
            assert_eq!(error_object(&e).code, code);
        }
        assert_eq!(
            error_object(&A2aError::from_code(-32050, "x", None)).code,
            -32050
        );
    }

    #[test]
    fn the_envelope_is_what_serde_json_writes() {
        let task: a2a_types::Task = serde_json::from_value(serde_json::json!({
            "kind": "task", "id": "t\"1", "contextId": "c\n",
            "status": {"state": "completed", "timestamp": "2026-11-21T05:00:00.000Z"},
            "artifacts": [{"artifactId": "a", "parts": [{"kind": "text", "text": "é\u{1}😀"}]}],
            "metadata": {"n": [1, 2.5, -3e300, null, true]},
        }))
        .expect("task");
        for raw in ["7", r#""x\"y""#, "null", "-1.5e3"] {
            let id = serde_json::from_str::<&RawValue>(raw).expect("raw");
            let expected = serde_json::to_vec(&Success {
                jsonrpc: VERSION,
                id,
                result: &task,
            })
            .expect("json");
            assert_eq!(success_body(id, &task), expected);
            let mut event = Vec::new();
            push_success_event(&mut event, id, &task);
            assert_eq!(event, [b"data: ", &expected[..], b"\n\n"].concat());
        }
    }

    #[test]
    fn events_match_json_data() {
        use axum::response::IntoResponse;
        use axum::response::sse::Event;
        let id = serde_json::from_str::<&RawValue>("7").expect("raw");
        let result = serde_json::json!({"text": "a\nb \"c\" \u{2028}", "n": [1, 2]});
        let out = Success {
            jsonrpc: VERSION,
            id,
            result: &result,
        };
        let expected = Event::default().json_data(&out).expect("event");
        let body = |e: Event| {
            let sse = axum::response::sse::Sse::new(futures::stream::iter([Ok::<
                _,
                std::convert::Infallible,
            >(e)]));
            let rt = tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("rt");
            rt.block_on(async {
                use http_body_util::BodyExt;
                sse.into_response()
                    .into_body()
                    .collect()
                    .await
                    .expect("body")
                    .to_bytes()
            })
        };
        let mut ours = Vec::new();
        push_success_event(&mut ours, id, &result);
        assert_eq!(&ours[..], &body(expected)[..]);
        // An error event is one `data:` line too.
        let mut err = Vec::new();
        push_error_event(&mut err, id, &A2aError::task_not_found_id("t\n1"));
        let text = std::str::from_utf8(&err).expect("utf-8");
        assert!(
            text.starts_with("data: {") && text.ends_with("}\n\n"),
            "{text}"
        );
        assert_eq!(text.matches('\n').count(), 2, "{text}");
    }
}
