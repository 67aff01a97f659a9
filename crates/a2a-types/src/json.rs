//! A compact JSON writer for the hot answers of the JSON and protobuf-JSON
//! adapters: the same bytes as [`serde_json::to_writer`] into a `Vec<u8>`,
//! with strings checked for escapes eight bytes at a time.
//!
//! `serde_json` looks at every byte of every string on its own; an A2A
//! answer is mostly ids and short texts, so that scan was the largest single
//! cost of writing one (about 13 % of the instructions of a streamed task on
//! the JSON-RPC path). [`to_writer`] is a complete [`serde::Serializer`]
//! (every data-model type, `serde_json::value::RawValue` included) whose
//! output is byte for byte `serde_json`'s compact form: same escapes
//! (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00XX` for the other control
//! characters, nothing else), same numbers (written by `serde_json`
//! itself; a non-finite float is `null`), same map-key rules (strings; integers, booleans, chars
//! and finite floats quoted; anything else is the error "key must be a
//! string"). The tests hold it to `serde_json` on generated values.

use serde::ser::{self, Impossible, Serialize};

/// The error of [`to_writer`]: `serde_json`'s, so callers handle one type.
pub type Error = serde_json::Error;

type Result<T = ()> = std::result::Result<T, Error>;

/// The name under which `serde_json::value::RawValue` serializes itself (a
/// struct with one field of this name holding the JSON text).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Appends `value` to `out` as compact JSON, exactly as
/// `serde_json::to_writer(&mut *out, value)` would.
///
/// # Errors
///
/// What `serde_json` refuses: a map key that is not a string, number,
/// boolean or char (or a non-finite float key), or an error raised by the
/// value's own `Serialize`. `out` then holds a partial value; truncate it.
pub fn to_writer<T: ?Sized + Serialize>(out: &mut Vec<u8>, value: &T) -> Result {
    value.serialize(&mut Writer { out })
}

/// What `serde_json` writes for byte `b` after a backslash (`u`: `\u00XX`),
/// or 0 when `b` is written as is.
const ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = b'u';
        i += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0a] = b'n';
    t[0x0c] = b'f';
    t[0x0d] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// Whether any of the 8 bytes of `x` may be a control character, `"` or
/// `\` (exact for "none": a word it passes needs no escape).
#[inline]
fn may_need_escape(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_space = x.wrapping_sub(ONES * 0x20) & !x;
    let q = x ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let bs = x ^ (ONES * u64::from(b'\\'));
    let backslash = bs.wrapping_sub(ONES) & !bs;
    (below_space | quote | backslash) & HIGH != 0
}

/// Appends `s` as a JSON string (quoted), escaped exactly as `serde_json`
/// escapes it.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(chunk) = bytes.get(i..i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            if !may_need_escape(u64::from_le_bytes(word)) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let escape = ESCAPE[usize::from(b)];
        if escape != 0 {
            out.extend_from_slice(&bytes[start..i]);
            out.push(b'\\');
            out.push(escape);
            if escape == b'u' {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(&[
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ]);
            }
            start = i + 1;
        }
        i += 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// A number exactly as `serde_json` writes it (it owns the formatting of
/// integers and floats, a non-finite float included).
fn write_number<N: Serialize>(out: &mut Vec<u8>, n: N) -> Result {
    serde_json::to_writer(out, &n)
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

/// A sequence, map or struct being written: `first` until its first element.
struct Compound<'w, 'a> {
    w: &'w mut Writer<'a>,
    first: bool,
    /// Close with `}}` (a variant's object around the value), not `}`/`]`.
    variant: bool,
    /// A `RawValue`: its one field is copied as is.
    raw: bool,
}

impl Compound<'_, '_> {
    fn comma(&mut self) {
        if self.first {
            self.first = false;
        } else {
            self.w.out.push(b',');
        }
    }
}

impl<'w, 'a> Writer<'a> {
    fn open(&'w mut self, bracket: u8) -> Compound<'w, 'a> {
        self.out.push(bracket);
        Compound {
            w: self,
            first: true,
            variant: false,
            raw: false,
        }
    }

    fn open_variant(&'w mut self, variant: &str, bracket: u8) -> Compound<'w, 'a> {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.push(b':');
        self.out.push(bracket);
        Compound {
            w: self,
            first: true,
            variant: true,
            raw: false,
        }
    }
}

impl Compound<'_, '_> {
    fn close(self, bracket: u8) {
        self.w.out.push(bracket);
        if self.variant {
            self.w.out.push(b'}');
        }
    }
}

impl<'w, 'a> ser::Serializer for &'w mut Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'w, 'a>;
    type SerializeTuple = Compound<'w, 'a>;
    type SerializeTupleStruct = Compound<'w, 'a>;
    type SerializeTupleVariant = Compound<'w, 'a>;
    type SerializeMap = Compound<'w, 'a>;
    type SerializeStruct = Compound<'w, 'a>;
    type SerializeStructVariant = Compound<'w, 'a>;

    fn serialize_bool(self, v: bool) -> Result {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result {
        write_number(self.out, v)
    }
    fn serialize_i16(self, v: i16) -> Result {
        write_number(self.out, v)
    }
    fn serialize_i32(self, v: i32) -> Result {
        write_number(self.out, v)
    }
    fn serialize_i64(self, v: i64) -> Result {
        write_number(self.out, v)
    }
    fn serialize_i128(self, v: i128) -> Result {
        write_number(self.out, v)
    }
    fn serialize_u8(self, v: u8) -> Result {
        write_number(self.out, v)
    }
    fn serialize_u16(self, v: u16) -> Result {
        write_number(self.out, v)
    }
    fn serialize_u32(self, v: u32) -> Result {
        write_number(self.out, v)
    }
    fn serialize_u64(self, v: u64) -> Result {
        write_number(self.out, v)
    }
    fn serialize_u128(self, v: u128) -> Result {
        write_number(self.out, v)
    }
    fn serialize_f32(self, v: f32) -> Result {
        write_number(self.out, v)
    }
    fn serialize_f64(self, v: f64) -> Result {
        write_number(self.out, v)
    }
    fn serialize_char(self, v: char) -> Result {
        write_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result {
        write_str(self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result {
        self.out.push(b'[');
        for (i, b) in v.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            write_number(&mut *self.out, *b)?;
        }
        self.out.push(b']');
        Ok(())
    }
    fn serialize_none(self) -> Result {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _name: &'static str, _i: u32, variant: &'static str) -> Result {
        write_str(self.out, variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.push(b':');
        value.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        Ok(self.open(b'['))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple> {
        Ok(self.open(b'['))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Ok(self.open(b'['))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Ok(self.open_variant(variant, b'['))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        Ok(self.open(b'{'))
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        if name == RAW_VALUE_TOKEN {
            return Ok(Compound {
                w: self,
                first: true,
                variant: false,
                raw: true,
            });
        }
        Ok(self.open(b'{'))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Ok(self.open_variant(variant, b'{'))
    }
}

impl ser::SerializeSeq for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        self.comma();
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result {
        self.close(b']');
        Ok(())
    }
}

impl ser::SerializeTuple for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result {
        self.comma();
        key.serialize(KeyWriter { out: self.w.out })?;
        self.w.out.push(b':');
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result {
        self.close(b'}');
        Ok(())
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result {
        if self.raw {
            return if key == RAW_VALUE_TOKEN {
                value.serialize(RawWriter { out: self.w.out })
            } else {
                Err(ser::Error::custom("expected RawValue"))
            };
        }
        self.comma();
        write_str(self.w.out, key);
        self.w.out.push(b':');
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result {
        if !self.raw {
            self.close(b'}');
        }
        Ok(())
    }
}

impl ser::SerializeStructVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result {
        ser::SerializeStruct::end(self)
    }
}

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

/// A map key: a string, or a number, boolean or char written as a string
/// (`serde_json`'s rules).
struct KeyWriter<'a> {
    out: &'a mut Vec<u8>,
}

impl KeyWriter<'_> {
    fn quoted(self, text: &[u8]) -> Result {
        self.out.push(b'"');
        self.out.extend_from_slice(text);
        self.out.push(b'"');
        Ok(())
    }

    fn quoted_number<N: Serialize>(self, n: N) -> Result {
        self.out.push(b'"');
        write_number(&mut *self.out, n)?;
        self.out.push(b'"');
        Ok(())
    }
}

macro_rules! quoted_number_keys {
    ($($name:ident: $ty:ty),*) => {$(
        fn $name(self, v: $ty) -> Result {
            self.quoted_number(v)
        }
    )*};
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result {
        write_str(self.out, v);
        Ok(())
    }
    fn serialize_unit_variant(self, _name: &'static str, _i: u32, variant: &'static str) -> Result {
        write_str(self.out, variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result {
        value.serialize(self)
    }
    fn serialize_bool(self, v: bool) -> Result {
        self.quoted(if v { b"true" } else { b"false" })
    }
    quoted_number_keys!(
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128
    );
    fn serialize_f32(self, v: f32) -> Result {
        if !v.is_finite() {
            return Err(ser::Error::custom("float key must be finite"));
        }
        self.quoted_number(v)
    }
    fn serialize_f64(self, v: f64) -> Result {
        if !v.is_finite() {
            return Err(ser::Error::custom("float key must be finite"));
        }
        self.quoted_number(v)
    }
    fn serialize_char(self, v: char) -> Result {
        write_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_must_be_a_string())
    }
}

/// The field of a `RawValue`: its JSON text, copied as is.
struct RawWriter<'a> {
    out: &'a mut Vec<u8>,
}

/// Serializer methods of `RawWriter` that refuse their one argument.
macro_rules! refuse_raw {
    ($($name:ident: $ty:ty),*) => {$(
        fn $name(self, _v: $ty) -> Result {
            Err(raw_expected())
        }
    )*};
}

impl ser::Serializer for RawWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result {
        self.out.extend_from_slice(v.as_bytes());
        Ok(())
    }
    refuse_raw!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_f32: f32, serialize_f64: f64, serialize_char: char,
        serialize_bytes: &[u8]
    );
    fn serialize_none(self) -> Result {
        Err(raw_expected())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _value: &T) -> Result {
        Err(raw_expected())
    }
    fn serialize_unit(self) -> Result {
        Err(raw_expected())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        Err(raw_expected())
    }
    fn serialize_unit_variant(self, _n: &'static str, _i: u32, _v: &'static str) -> Result {
        Err(raw_expected())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _value: &T,
    ) -> Result {
        Err(raw_expected())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result {
        Err(raw_expected())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(raw_expected())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple> {
        Err(raw_expected())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(raw_expected())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(raw_expected())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        Err(raw_expected())
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        Err(raw_expected())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(raw_expected())
    }
}

fn raw_expected() -> Error {
    ser::Error::custom("expected RawValue")
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use serde::Serialize;
    use serde_json::{Value, json};

    use super::{to_writer, write_str};
    use crate::{StreamResponse, Task};

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn string(&mut self) -> String {
            let len = self.below(40);
            (0..len)
                .map(|_| match self.below(10) {
                    0 => char::from_u32(self.below(0x20) as u32).unwrap_or('x'),
                    1 => ['"', '\\', '/', '\u{7f}', '\u{2028}'][self.below(5) as usize],
                    2 => char::from_u32(0x80 + self.below(0x780) as u32).unwrap_or('é'),
                    3 => ['😀', '中', '\u{ffff}', '\u{10ffff}'][self.below(4) as usize],
                    _ => char::from(b'a' + self.below(26) as u8),
                })
                .collect()
        }
        fn number(&mut self) -> Value {
            match self.below(5) {
                0 => json!(self.next() as i64),
                1 => json!(self.next()),
                2 => json!(self.below(1000) as i64 - 500),
                3 => json!(f64::from_bits(
                    self.next() & !(0x7ff << 52) | (self.below(0x7fe) << 52)
                )),
                _ => json!([0.1, -0.0, 1e300, 5e-324, 1.5, -2.25e-10][self.below(6) as usize]),
            }
        }
        fn value(&mut self, depth: u32) -> Value {
            match self.below(if depth == 0 { 4 } else { 6 }) {
                0 => Value::Null,
                1 => Value::Bool(self.below(2) == 0),
                2 => self.number(),
                3 => Value::String(self.string()),
                4 => (0..self.below(4)).map(|_| self.value(depth - 1)).collect(),
                _ => Value::Object(
                    (0..self.below(4))
                        .map(|_| (self.string(), self.value(depth - 1)))
                        .collect(),
                ),
            }
        }
    }

    fn same<T: Serialize + ?Sized>(v: &T) {
        let mut out = Vec::new();
        let ours = to_writer(&mut out, v)
            .map(|()| out)
            .map_err(|e| e.to_string());
        let theirs = serde_json::to_vec(v).map_err(|e| e.to_string());
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => assert_eq!(
                String::from_utf8_lossy(a),
                String::from_utf8_lossy(b),
                "bytes differ"
            ),
            (Err(_), Err(_)) => {}
            _ => panic!("ours {ours:?}, serde_json {theirs:?}"),
        }
    }

    #[test]
    fn strings_are_escaped_as_serde_json_does() {
        for c in (0u32..0x800).chain([0x2028, 0x2029, 0xfeff, 0x1f600]) {
            let c = char::from_u32(c).expect("char");
            for s in [
                c.to_string(),
                format!("abcdefg{c}"),
                format!("{c}abcdefghijklmnop{c}{c}"),
            ] {
                let mut ours = Vec::new();
                write_str(&mut ours, &s);
                assert_eq!(ours, serde_json::to_vec(&s).expect("json"), "{s:?}");
            }
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            same(&rng.string());
        }
        // Every length around the 8-byte words, escapes anywhere in them.
        let alphabet = [
            'a', 'Z', '"', '\\', '\u{0}', '\u{1f}', '\n', '\t', '\u{7f}', 'é', '日', '🎉', ' ',
            '/', '\u{2028}', '~', '!', '#', '\u{80}', '\u{ff}',
        ];
        for len in 0..48 {
            for _ in 0..100 {
                let s: String = (0..len)
                    .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
                    .collect();
                same(&s);
            }
        }
    }

    #[test]
    fn generated_values_are_written_as_serde_json_writes_them() {
        let mut rng = Rng(42);
        for _ in 0..5_000 {
            same(&rng.value(4));
        }
    }

    #[test]
    fn a2a_answers_are_written_as_serde_json_writes_them() {
        let mut rng = Rng(7);
        for i in 0..500 {
            let s = |rng: &mut Rng| Value::String(rng.string());
            let state = [
                "submitted",
                "working",
                "completed",
                "failed",
                "input-required",
            ][i % 5];
            let task = json!({
                "kind": "task",
                "id": s(&mut rng),
                "contextId": s(&mut rng),
                "status": {
                    "state": state,
                    "timestamp": "2026-11-21T05:00:00.000Z",
                    "message": {
                        "kind": "message", "role": "agent", "messageId": s(&mut rng),
                        "parts": [{"kind": "text", "text": s(&mut rng)}],
                    },
                },
                "history": [{
                    "kind": "message", "role": "user", "messageId": s(&mut rng),
                    "taskId": s(&mut rng), "contextId": s(&mut rng),
                    "referenceTaskIds": [s(&mut rng)],
                    "extensions": [s(&mut rng)],
                    "metadata": {"k": rng.value(3)},
                    "parts": [
                        {"kind": "text", "text": s(&mut rng), "metadata": {"m": rng.value(2)}},
                        {"kind": "file", "file": {"uri": s(&mut rng), "mimeType": "text/plain", "name": s(&mut rng)}},
                        {"kind": "file", "file": {"bytes": "aGVsbG8=", "name": s(&mut rng)}},
                        {"kind": "data", "data": {"d": rng.value(3), "e": rng.value(2)}},
                    ],
                }],
                "artifacts": [{
                    "artifactId": s(&mut rng), "name": s(&mut rng), "description": s(&mut rng),
                    "parts": [{"kind": "text", "text": s(&mut rng)}],
                    "metadata": {"a": rng.value(2)}, "extensions": [s(&mut rng)],
                }],
                "metadata": {"t": rng.value(3)},
            });
            let task: Task = serde_json::from_value(task).expect("a task");
            same(&task);
            let events = [
                json!({"kind": "status-update", "taskId": s(&mut rng), "contextId": s(&mut rng),
                       "status": {"state": "working"}, "final": i % 2 == 0, "metadata": {"x": rng.value(2)}}),
                json!({"kind": "artifact-update", "taskId": s(&mut rng), "contextId": s(&mut rng),
                       "artifact": {"artifactId": s(&mut rng), "parts": [{"kind": "text", "text": s(&mut rng)}]},
                       "append": i % 3 == 0, "lastChunk": i % 2 == 0}),
                json!({"kind": "message", "role": "agent", "messageId": s(&mut rng),
                       "parts": [{"kind": "text", "text": s(&mut rng)}]}),
            ];
            for e in events {
                let e: StreamResponse = serde_json::from_value(e).expect("an event");
                same(&e);
            }
            same(&StreamResponse::Task(task));
        }
    }

    #[derive(Serialize)]
    struct Unit;

    #[derive(Serialize)]
    struct Newtype(String);

    #[derive(Serialize)]
    struct Tuple(i8, u128, f32, char);

    #[derive(Serialize)]
    enum Every {
        Unit,
        Newtype(i32),
        Tuple(u8, String),
        Struct { a: Option<bool>, b: Vec<u16> },
    }

    #[derive(Serialize)]
    #[serde(tag = "kind", rename_all = "camelCase")]
    enum Tagged {
        One { x: i64 },
        Two(BTreeMap<String, f64>),
    }

    #[derive(Serialize)]
    struct Flat {
        id: &'static str,
        #[serde(flatten)]
        rest: BTreeMap<String, Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<i8>,
    }

    struct Bytes(&'static [u8]);

    impl Serialize for Bytes {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(self.0)
        }
    }

    #[test]
    fn the_whole_data_model_is_written_as_serde_json_writes_it() {
        same(&Unit);
        same(&());
        same(&Newtype("n\"t".into()));
        same(&Tuple(-8, u128::MAX, 1.5, '\n'));
        same(&(
            1u8,
            "two",
            [3.0f64, f64::NAN, f64::INFINITY],
            None::<i8>,
            Some(-0.0f32),
        ));
        same(&[Every::Unit, Every::Newtype(-1), Every::Tuple(2, "s".into())]);
        same(&Every::Struct {
            a: Some(true),
            b: vec![1, 2],
        });
        same(&Every::Struct { a: None, b: vec![] });
        same(&vec![
            Tagged::One { x: i64::MIN },
            Tagged::Two(BTreeMap::from([("k".into(), 0.25)])),
        ]);
        let rest = BTreeMap::from([
            ("a".to_owned(), json!([1, {"b": null}])),
            ("c".into(), json!("d")),
        ]);
        same(&Flat {
            id: "f",
            rest,
            skipped: None,
        });
        same(&Bytes(b"\x00\x01\xff"));
        same(&Bytes(b""));
        same(&Vec::<Value>::new());
        same(&BTreeMap::<String, i8>::new());
        same(&i128::MIN);
        // Map keys: strings, and numbers, booleans, chars written as strings.
        same(&BTreeMap::from([(-3i32, "a"), (7, "b")]));
        same(&BTreeMap::from([(u64::MAX, 1)]));
        same(&HashMap::from([(true, 1)]));
        same(&BTreeMap::from([('"', 1), ('x', 2)]));
        same(&BTreeMap::from([(Newtype("k".into()), 1)]));
        #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
        enum Key {
            Alpha,
        }
        same(&BTreeMap::from([(Key::Alpha, 1)]));
        // ... and not anything else (both refuse).
        same(&BTreeMap::from([(vec![1], 1)]));
        same(&BTreeMap::from([((), 1)]));
        // A RawValue is copied as is.
        let raw =
            serde_json::value::RawValue::from_string(r#"{"a" : [1, 2]}"#.into()).expect("raw");
        same(&json!(null));
        #[derive(Serialize)]
        struct WithRaw<'a> {
            id: &'a serde_json::value::RawValue,
            n: u8,
        }
        same(&WithRaw { id: &raw, n: 1 });
    }

    impl PartialEq for Newtype {
        fn eq(&self, other: &Self) -> bool {
            self.0 == other.0
        }
    }
    impl Eq for Newtype {}
    impl PartialOrd for Newtype {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Newtype {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            self.0.cmp(&other.0)
        }
    }
}
