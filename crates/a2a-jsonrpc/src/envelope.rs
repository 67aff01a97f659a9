//! Decoding the JSON-RPC request envelope.
//!
//! The body is read once, without building a `serde_json::Value` tree: the
//! four members are borrowed as [`RawValue`] slices of the body, and only the
//! `params` of a known method are later deserialized into their typed struct.
//! The `id` is echoed as the exact JSON text the client sent.

use std::borrow::Cow;
use std::fmt;

use a2a_types::A2aError;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// A well-formed request: what is left to decide is the method and params.
#[derive(Debug)]
pub(crate) struct Envelope<'a> {
    /// The id to echo: a string, an integer or `null` (also when absent).
    pub(crate) id: &'a RawValue,
    /// The method name.
    pub(crate) method: Cow<'a, str>,
    /// The raw params, if any.
    pub(crate) params: Option<&'a RawValue>,
}

/// A request refused before dispatch: the error and the id to echo.
#[derive(Debug)]
pub(crate) struct Rejected<'a> {
    pub(crate) id: &'a RawValue,
    pub(crate) error: A2aError,
}

/// Parses and validates the envelope, in the order of the Python SDK:
/// invalid JSON (-32700, id `null`), then the envelope (-32600: not an
/// object, an `id` of the wrong type, `jsonrpc` not `"2.0"`, `method` not a
/// string). The method name itself is checked by the dispatcher (-32601).
pub(crate) fn parse(body: &[u8]) -> Result<Envelope<'_>, Rejected<'_>> {
    let members: Members<'_> = match serde_json::from_slice(body) {
        Ok(m) => m,
        Err(e) => {
            return Err(Rejected {
                id: RawValue::NULL,
                error: classify(body, &e),
            });
        }
    };
    let id = match members.id {
        None => RawValue::NULL,
        Some(raw) if is_valid_id(raw) => raw,
        Some(_) => {
            return Err(Rejected {
                id: RawValue::NULL,
                error: A2aError::invalid_request(
                    "Invalid request: `id` must be a string, an integer or null",
                ),
            });
        }
    };
    let reject = |msg: &str| Rejected {
        id,
        error: A2aError::invalid_request(format!("Invalid request: {msg}")),
    };
    match members.jsonrpc {
        Some(v) if is_version_2(v) => {}
        Some(_) => return Err(reject("`jsonrpc` must be exactly \"2.0\"")),
        None => return Err(reject("`jsonrpc` is required and must be \"2.0\"")),
    }
    let Some(method) = members.method else {
        return Err(reject("`method` is required"));
    };
    let Some(method) = as_str(method) else {
        return Err(reject("`method` must be a string"));
    };
    Ok(Envelope {
        id,
        method,
        params: members.params,
    })
}

/// Tells invalid JSON (-32700) from valid JSON that is not a request
/// object (-32600).
fn classify(body: &[u8], e: &serde_json::Error) -> A2aError {
    if e.classify() == serde_json::error::Category::Data {
        // The visitor stops at the first token of a non-object; make sure the
        // rest is well-formed before calling it a request-shape error.
        if let Err(e) = serde_json::from_slice::<IgnoredAny>(body) {
            return A2aError::json_parse(format!("Invalid JSON payload: {e}"));
        }
        let first = body.iter().find(|b| !b.is_ascii_whitespace());
        if first == Some(&b'[') {
            return A2aError::invalid_request(
                "Invalid request: batch requests are not supported; send one request object",
            );
        }
        return A2aError::invalid_request("Invalid request: the request must be a JSON object");
    }
    A2aError::json_parse(format!("Invalid JSON payload: {e}"))
}

/// A string, `null`, or an integer (a JSON number without fraction or
/// exponent); the JSON grammar was already checked by the parser. A string
/// with escapes must decode (no lone surrogates), since it is echoed as is.
fn is_valid_id(raw: &RawValue) -> bool {
    let s = raw.get();
    match s.as_bytes().first() {
        Some(b'"') => !s.contains('\\') || serde_json::from_str::<String>(s).is_ok(),
        Some(b'-' | b'0'..=b'9') => !s.contains(['.', 'e', 'E']),
        _ => s == "null",
    }
}

fn is_version_2(raw: &RawValue) -> bool {
    raw.get() == "\"2.0\"" || as_str(raw).is_some_and(|s| s == "2.0")
}

/// The string a raw value holds, borrowed when it has no escapes.
fn as_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    let s = raw.get();
    if !s.starts_with('"') {
        return None;
    }
    match serde_json::from_str::<&str>(s) {
        Ok(b) => Some(Cow::Borrowed(b)),
        Err(_) => serde_json::from_str::<String>(s).ok().map(Cow::Owned),
    }
}

/// The members of the request object, borrowed from the body.
#[derive(Default)]
struct Members<'a> {
    jsonrpc: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
}

enum Field {
    Jsonrpc,
    Id,
    Method,
    Params,
    Other,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl Visitor<'_> for FieldVisitor {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
                Ok(match v {
                    "jsonrpc" => Field::Jsonrpc,
                    "id" => Field::Id,
                    "method" => Field::Method,
                    "params" => Field::Params,
                    _ => Field::Other,
                })
            }
        }
        d.deserialize_identifier(FieldVisitor)
    }
}

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC request object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut m = Members::default();
                // Duplicate members: the last one wins, as in most JSON parsers.
                while let Some(key) = map.next_key::<Field>()? {
                    match key {
                        Field::Jsonrpc => m.jsonrpc = Some(map.next_value()?),
                        Field::Id => m.id = Some(map.next_value()?),
                        Field::Method => m.method = Some(map.next_value()?),
                        Field::Params => m.params = Some(map.next_value()?),
                        Field::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(m)
            }
        }
        d.deserialize_map(MembersVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> (i32, String) {
        match parse(body.as_bytes()) {
            Ok(_) => (0, String::new()),
            Err(r) => (r.error.code(), r.id.get().to_owned()),
        }
    }

    #[test]
    fn envelope_validation() {
        let ok =
            parse(br#"{"jsonrpc":"2.0","id":"a\"b","method":"tasks/get","params":{"id":"x"}}"#)
                .expect("valid");
        assert_eq!(ok.id.get(), r#""a\"b""#);
        assert_eq!(ok.method, "tasks/get");
        assert_eq!(ok.params.map(RawValue::get), Some(r#"{"id":"x"}"#));
        let escaped =
            parse(br#"{"jsonrpc":"2\u002e0","id":1,"method":"tasks\/get"}"#).expect("valid");
        assert_eq!(escaped.method, "tasks/get");
        assert_eq!(escaped.id.get(), "1");
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","method":"m"}"#)
                .expect("valid")
                .id
                .get(),
            "null"
        );

        assert_eq!(code(""), (-32700, "null".into()));
        assert_eq!(code("{"), (-32700, "null".into()));
        assert_eq!(code("[1,"), (-32700, "null".into()));
        assert_eq!(code("{} x"), (-32700, "null".into()));
        assert_eq!(code("[]"), (-32600, "null".into()));
        assert_eq!(code("7"), (-32600, "null".into()));
        assert_eq!(code("null"), (-32600, "null".into()));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#),
            (-32600, "null".into())
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#),
            (-32600, "null".into())
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#),
            (-32600, "null".into())
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":"\ud800","method":"m"}"#),
            (-32600, "null".into())
        );
        assert_eq!(
            code(r#"{"jsonrpc":"1","id":"\u00e9","method":"m"}"#),
            (-32600, r#""\u00e9""#.into())
        );
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":7,"method":"m"}"#),
            (-32600, "7".into())
        );
        assert_eq!(
            code(r#"{"jsonrpc":2,"id":7,"method":"m"}"#),
            (-32600, "7".into())
        );
        assert_eq!(
            code(r#"{"id":"x","method":"m"}"#),
            (-32600, r#""x""#.into())
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":-3,"method":5}"#),
            (-32600, "-3".into())
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":-3}"#), (-32600, "-3".into()));
    }
}
