//! The fast path of `SendMessageRequest` bodies: the common shape read
//! straight into [`MessageSendParams`], with no `Value` tree and no `a2a_pb`
//! message in between.
//!
//! It takes only bodies it reads exactly as the general path (lenient
//! cleaning → pbjson → `a2a_pb::convert`) does, and gives what that path
//! gives; anything else (a backslash anywhere, an unknown or snake_case key,
//! a duplicate, a `null` where pbjson wants a value, a role given as a
//! number, a file or data part, a push config, any error) is `None`: the
//! general path then decides, and produces the exact error.
//!
//! Taken: `{"message": {…}, "configuration": {…}, "metadata": {…}}` (only
//! `message` required) where the message has `messageId`, `contextId`,
//! `taskId`, `role` (`"ROLE_USER"` or `"ROLE_AGENT"`, required), `content`
//! (text parts, each with an optional `metadata`), `extensions` and
//! `metadata`; the configuration has `acceptedOutputModes`, `historyLength`
//! (a JSON integer) and `blocking`.

use a2a_types::{
    Message, MessageSendConfiguration, MessageSendParams, Metadata, Part, Role, TextPart,
};
use serde::Deserialize;
use serde_json::Value;

/// The `MessageSendParams` of a body of the common shape, or `None` (take
/// the general path).
pub(crate) fn decode_send(bytes: &[u8]) -> Option<MessageSendParams> {
    // Without a backslash every string (key or value) is literal, so it can
    // be borrowed from the body.
    if memchr::memchr(b'\\', bytes).is_some() {
        return None;
    }
    let request: Request<'_> = serde_json::from_slice(bytes).ok()?;
    Some(MessageSendParams {
        message: request.message.into_message()?,
        configuration: request.configuration.map(|c| MessageSendConfiguration {
            accepted_output_modes: non_empty_vec(
                c.accepted_output_modes
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
            ),
            history_length: (c.history_length != 0).then_some(c.history_length),
            push_notification_config: None,
            blocking: Some(c.blocking),
        }),
        metadata: opt_struct(request.metadata)?,
    })
}

/// `SendMessageRequest`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request<'a> {
    #[serde(borrow)]
    message: WireMessage<'a>,
    #[serde(default, borrow)]
    configuration: Option<Configuration<'a>>,
    #[serde(default)]
    metadata: Option<Metadata>,
}

/// `SendMessageConfiguration` without `pushNotification`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Configuration<'a> {
    #[serde(default, borrow)]
    accepted_output_modes: Vec<&'a str>,
    #[serde(default)]
    history_length: i32,
    #[serde(default)]
    blocking: bool,
}

/// `Message` with text parts only.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireMessage<'a> {
    #[serde(default)]
    message_id: &'a str,
    #[serde(default)]
    context_id: &'a str,
    #[serde(default)]
    task_id: &'a str,
    role: WireRole,
    #[serde(default, borrow)]
    content: Vec<TextOnly<'a>>,
    #[serde(default, borrow)]
    extensions: Vec<&'a str>,
    #[serde(default)]
    metadata: Option<Metadata>,
}

impl WireMessage<'_> {
    /// The message, or `None` when pbjson would refuse a metadata number.
    fn into_message(self) -> Option<Message> {
        Some(Message {
            role: match self.role {
                WireRole::User => Role::User,
                WireRole::Agent => Role::Agent,
            },
            parts: self
                .content
                .into_iter()
                .map(|p| {
                    Some(Part::Text(TextPart {
                        text: p.text.to_owned(),
                        metadata: opt_struct(p.metadata)?,
                    }))
                })
                .collect::<Option<_>>()?,
            message_id: self.message_id.to_owned(),
            task_id: non_empty(self.task_id),
            context_id: non_empty(self.context_id),
            reference_task_ids: None,
            extensions: non_empty_vec(self.extensions.into_iter().map(str::to_owned).collect()),
            metadata: opt_struct(self.metadata)?,
        })
    }
}

/// The two roles `a2a_pb::convert` accepts, by name (a string only: not the
/// `{"ROLE_USER": null}` a derived enum would also take).
enum WireRole {
    User,
    Agent,
}

impl<'de> Deserialize<'de> for WireRole {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match <&'de str>::deserialize(d)? {
            "ROLE_USER" => Ok(Self::User),
            "ROLE_AGENT" => Ok(Self::Agent),
            other => Err(serde::de::Error::unknown_variant(
                other,
                &["ROLE_USER", "ROLE_AGENT"],
            )),
        }
    }
}

/// A text `Part`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextOnly<'a> {
    text: &'a str,
    #[serde(default)]
    metadata: Option<Metadata>,
}

/// What a JSON object becomes through a `google.protobuf.Struct` and back
/// (`a2a_pb::convert`): every number a double, then an integer again when
/// integral within ±2^53. `None` when pbjson refuses a number of it (an
/// integer of magnitude 2^53 or more).
fn from_struct(mut map: Metadata) -> Option<Metadata> {
    map.values_mut().all(through_double).then_some(map)
}

/// [`from_struct`] of an optional object: `None` when it refuses.
fn opt_struct(map: Option<Metadata>) -> Option<Option<Metadata>> {
    match map {
        None => Some(None),
        Some(map) => from_struct(map).map(Some),
    }
}

fn through_double(v: &mut Value) -> bool {
    match v {
        Value::Number(n) => {
            const LIMIT: u64 = 1 << f64::MANTISSA_DIGITS;
            let taken = match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => u < LIMIT,
                (None, Some(i)) => i.unsigned_abs() < LIMIT,
                (None, None) => true,
            };
            *v = a2a_pb::convert::json_number(n.as_f64().unwrap_or(0.0));
            taken
        }
        Value::Array(a) => a.iter_mut().all(through_double),
        Value::Object(o) => o.values_mut().all(through_double),
        Value::Null | Value::Bool(_) | Value::String(_) => true,
    }
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

fn non_empty_vec<T>(v: Vec<T>) -> Option<Vec<T>> {
    (!v.is_empty()).then_some(v)
}

#[cfg(test)]
mod tests {
    //! The fast path against the general one (`server::decode_send_general`
    //! and `a2a_pb::convert`).

    use super::*;
    use crate::server::decode_send_general;

    struct Gen(u64);

    impl Gen {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            usize::try_from(self.0 % n as u64).expect("small")
        }

        fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
            xs[self.below(xs.len())]
        }

        /// Members in a random order, some left out, sometimes one twice.
        fn object(&mut self, members: Vec<(&str, String)>) -> String {
            let mut chosen: Vec<String> = members
                .into_iter()
                .filter(|_| self.below(6) != 0)
                .map(|(k, v)| format!("\"{k}\":{v}"))
                .collect();
            if !chosen.is_empty() && self.rare() {
                let twice = chosen[self.below(chosen.len())].clone();
                chosen.push(twice);
            }
            for i in (1..chosen.len()).rev() {
                let j = self.below(i + 1);
                chosen.swap(i, j);
            }
            let sep = if self.below(6) == 0 { " , " } else { "," };
            format!("{{{}}}", chosen.join(sep))
        }

        /// Whether to make something unusual (about one time in 16).
        fn rare(&mut self) -> bool {
            self.below(16) == 0
        }

        fn string(&mut self) -> String {
            if self.rare() {
                self.pick(&[
                    r#""with \"escape\"""#,
                    r#""tab\tnewline\n""#,
                    r#""\u0041""#,
                    "null",
                    "5",
                ])
            } else {
                self.pick(&[
                    r#""""#,
                    r#""a""#,
                    r#""hello world""#,
                    r#""héllo ✓ 日本語 🎉""#,
                    r#""text/plain""#,
                    r#""ROLE_USER""#,
                ])
            }
            .to_owned()
        }

        fn value(&mut self, depth: u32) -> String {
            match self.below(if depth > 2 { 4 } else { 6 }) {
                0 => self
                    .pick(&[
                        "null",
                        "true",
                        "false",
                        "0",
                        "-0",
                        "1",
                        "1.0",
                        "-1",
                        "2.5",
                        "1e300",
                        "1E2",
                        "9007199254740993",
                        "9007199254740992",
                        "9007199254740991",
                        "-9007199254740992",
                        "-9007199254740991",
                        "18446744073709551615",
                        "18446744073709551616",
                        "-9223372036854775808",
                        "0.1",
                        "123456.789",
                    ])
                    .to_owned(),
                1..=3 => self.string(),
                4 => {
                    let items: Vec<String> =
                        (0..self.below(4)).map(|_| self.value(depth + 1)).collect();
                    format!("[{}]", items.join(","))
                }
                _ => self.map(depth + 1),
            }
        }

        fn map(&mut self, depth: u32) -> String {
            let members = (0..self.below(4))
                .map(|i| {
                    (
                        ["k", "data", "file", "a b", "k"][(i + self.below(5)) % 5],
                        self.value(depth),
                    )
                })
                .collect();
            self.object(members)
        }

        fn metadata(&mut self) -> String {
            if !self.rare() {
                return self.map(0);
            }
            match self.below(4) {
                0 => "null".to_owned(),
                1 => "[]".to_owned(),
                2 => r#""x""#.to_owned(),
                _ => self.map(0),
            }
        }

        fn part(&mut self) -> String {
            match if self.rare() { self.below(5) } else { 5 } {
                0 => "{}".to_owned(),
                1 => r#"{"file":{"fileWithUri":"http://x/y"}}"#.to_owned(),
                2 => r#"{"data":{"data":{"a":1}}}"#.to_owned(),
                3 => r#"{"kind":"text","text":"x"}"#.to_owned(),
                4 => "null".to_owned(),
                _ => {
                    let text = self.string();
                    let metadata = self.metadata();
                    self.object(vec![("text", text), ("metadata", metadata)])
                }
            }
        }

        fn list(&mut self, item: fn(&mut Self) -> String) -> String {
            match if self.rare() { self.below(2) } else { 2 } {
                0 => "null".to_owned(),
                1 => r#""x""#.to_owned(),
                _ => {
                    let items: Vec<String> = (0..self.below(4)).map(|_| item(self)).collect();
                    format!("[{}]", items.join(","))
                }
            }
        }

        fn message(&mut self) -> String {
            let role = if self.rare() {
                self.pick(&[
                    r#""ROLE_UNSPECIFIED""#,
                    r#""user""#,
                    "1",
                    "null",
                    r#"{"ROLE_USER":null}"#,
                ])
            } else {
                self.pick(&[r#""ROLE_USER""#, r#""ROLE_AGENT""#])
            }
            .to_owned();
            let id_key = if self.rare() {
                "message_id"
            } else {
                "messageId"
            };
            let members = vec![
                (id_key, self.string()),
                ("contextId", self.string()),
                ("taskId", self.string()),
                ("role", role),
                ("content", self.list(Self::part)),
                ("extensions", self.list(Self::string)),
                ("metadata", self.metadata()),
            ];
            let mut members = members;
            if self.rare() {
                let key = self.pick(&["referenceTaskIds", "kind", "extensions"]);
                members.push((key, self.list(Self::string)));
            }
            self.object(members)
        }

        fn configuration(&mut self) -> String {
            if self.rare() {
                return "null".to_owned();
            }
            let blocking = if self.rare() {
                self.pick(&["null", r#""true""#, "1"])
            } else {
                self.pick(&["true", "false"])
            };
            let history_length = if self.rare() {
                self.pick(&["2.0", r#""3""#, "null", "3000000000", "1e1"])
            } else {
                self.pick(&["0", "2", "-1", "2147483647", "-2147483648"])
            };
            let mut members = vec![
                ("blocking", blocking.to_owned()),
                ("historyLength", history_length.to_owned()),
                ("acceptedOutputModes", self.list(Self::string)),
            ];
            if self.rare() {
                let key = self.pick(&["pushNotification", "blocking", "historyLength"]);
                members.push((key, r#"{"url":"http://h/"}"#.to_owned()));
            }
            self.object(members)
        }

        fn body(&mut self) -> String {
            match self.below(30) {
                0 => return "[]".to_owned(),
                1 => return "null".to_owned(),
                2 => return String::new(),
                _ => {}
            }
            let message = self.message();
            let configuration = self.configuration();
            let metadata = self.metadata();
            let key = if self.rare() { "request" } else { "message" };
            let mut members = vec![
                (key, message),
                ("configuration", configuration),
                ("metadata", metadata),
            ];
            if self.rare() {
                let extra = self.value(0);
                members.push((self.pick(&["unknown", "metadata", "tenant"]), extra));
            }
            let mut body = self.object(members);
            if self.rare() {
                body.push_str(self.pick(&[" x", " ", "\n", "}"]));
            }
            body
        }
    }

    #[test]
    fn the_fast_send_decoding_is_the_general_one() {
        let mut g = Gen(0x2545_F491_4F6C_DD1D);
        let mut fast_hits = 0;
        let mut general_ok = 0;
        for _ in 0..60_000 {
            let body = g.body();
            let general = decode_send_general(body.as_bytes())
                .and_then(MessageSendParams::try_from)
                .map_err(|e| e.to_string());
            general_ok += usize::from(general.is_ok());
            if let Some(fast) = decode_send(body.as_bytes()) {
                fast_hits += 1;
                assert_eq!(Ok(fast), general, "{body}");
            }
        }
        // The comparison covers many bodies, and most of those the general
        // path takes.
        assert!(
            fast_hits > 5_000 && fast_hits * 3 > general_ok,
            "{fast_hits} of {general_ok}"
        );
    }

    #[test]
    fn the_common_bodies_take_the_fast_path() {
        for body in [
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"hi"}]}}"#,
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"hi"}]},"metadata":{"reply":"message"}}"#,
            r#"{"message":{"messageId":"m","contextId":"c","taskId":"t","role":"ROLE_AGENT","content":[{"text":"hi","metadata":{"n":1.0}}],"extensions":["urn:x"],"metadata":{"a":[1,2.5]}},"configuration":{"blocking":true,"historyLength":2,"acceptedOutputModes":["text/plain"]}}"#,
        ] {
            let general = decode_send_general(body.as_bytes())
                .and_then(MessageSendParams::try_from)
                .expect("general");
            assert_eq!(decode_send(body.as_bytes()), Some(general), "{body}");
        }
    }
}
