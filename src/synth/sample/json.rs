//! The sample's records as Python wrote them: objects keep their keys in insertion
//! order (setting a key already there keeps its place), and the text is what
//! `json.dumps(record, ensure_ascii=…, separators=(", ", ": "))` prints, floats in
//! Python's `repr`.

use std::fmt::Write;

/// A JSON value whose objects keep insertion order.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum J {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Obj),
}

/// A JSON object in insertion order. Keys starting with `_` are the generator's own
/// (never written).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Obj(Vec<(String, J)>);

impl Obj {
    pub(super) fn new() -> Self {
        Obj(Vec::new())
    }

    /// `d[key] = value`: replaced in place, or added last.
    pub(super) fn set(&mut self, key: &str, value: impl Into<J>) {
        let value = value.into();
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value,
            None => self.0.push((key.to_string(), value)),
        }
    }

    /// `d[key] = value` for each pair, in order.
    pub(super) fn with(mut self, pairs: Vec<(&str, J)>) -> Self {
        for (k, v) in pairs {
            self.set(k, v);
        }
        self
    }

    pub(super) fn get(&self, key: &str) -> Option<&J> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub(super) fn get_mut(&mut self, key: &str) -> Option<&mut J> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The text at `key` ("" when absent or not text).
    pub(super) fn s(&self, key: &str) -> &str {
        match self.get(key) {
            Some(J::Str(s)) => s,
            _ => "",
        }
    }

    /// The integer at `key` (0 when absent or not an integer).
    pub(super) fn i(&self, key: &str) -> i64 {
        match self.get(key) {
            Some(J::Int(n)) => *n,
            _ => 0,
        }
    }

    /// The array at `key` (empty when absent).
    pub(super) fn arr(&self, key: &str) -> &[J] {
        match self.get(key) {
            Some(J::Arr(a)) => a,
            _ => &[],
        }
    }

    /// Python's truth of `d.get(key)`: present, not null, false, 0 or empty.
    pub(super) fn truthy(&self, key: &str) -> bool {
        match self.get(key) {
            None | Some(J::Null) | Some(J::Bool(false)) | Some(J::Int(0)) => false,
            Some(J::Str(s)) => !s.is_empty(),
            Some(J::Arr(a)) => !a.is_empty(),
            Some(J::Obj(o)) => !o.0.is_empty(),
            _ => true,
        }
    }

    /// `d.get("is_active", True)`.
    pub(super) fn active(&self) -> bool {
        !matches!(self.get("is_active"), Some(J::Bool(false)))
    }

    /// The record without the generator's own keys, as one line of JSON.
    pub(super) fn line(&self, ascii: bool) -> String {
        let public = Obj(self
            .0
            .iter()
            .filter(|(k, _)| !k.starts_with('_'))
            .cloned()
            .collect());
        let mut out = String::new();
        dump(&J::Obj(public), ascii, &mut out);
        out.push('\n');
        out
    }
}

/// An object from its pairs, in order: `obj! { "a" => 1, "b" => "x" }`.
macro_rules! obj {
    ($($k:expr => $v:expr),* $(,)?) => {
        $crate::synth::sample::json::Obj::new().with(vec![$(($k, $crate::synth::sample::json::J::from($v))),*])
    };
}
pub(super) use obj;

/// `From` for the values a field is set from: `$x` of type `$t` becomes `$j`.
macro_rules! j_from {
    ($($t:ty => |$x:ident| $j:expr;)*) => {
        $(impl From<$t> for J {
            fn from($x: $t) -> J {
                $j
            }
        })*
    };
}
j_from! {
    &str => |s| J::Str(s.to_string());
    String => |s| J::Str(s);
    &String => |s| J::Str(s.clone());
    i64 => |n| J::Int(n);
    usize => |n| J::Int(n as i64);
    f64 => |x| J::Float(x);
    bool => |b| J::Bool(b);
    Obj => |o| J::Obj(o);
}
impl<T: Into<J>> From<Vec<T>> for J {
    fn from(v: Vec<T>) -> J {
        J::Arr(v.into_iter().map(Into::into).collect())
    }
}
impl<T: Into<J>> From<Option<T>> for J {
    fn from(v: Option<T>) -> J {
        v.map_or(J::Null, Into::into)
    }
}

/// Python's `json.dumps` of `v` with the separators `", "` and `": "`; `ascii` is
/// `ensure_ascii`.
pub(super) fn dump(v: &J, ascii: bool, out: &mut String) {
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Int(n) => {
            let _ = write!(out, "{n}");
        }
        J::Float(x) => out.push_str(&float_repr(*x)),
        J::Str(s) => string(s, ascii, out),
        J::Arr(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                dump(item, ascii, out);
            }
            out.push(']');
        }
        J::Obj(o) => {
            out.push('{');
            for (n, (k, item)) in o.0.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                string(k, ascii, out);
                out.push_str(": ");
                dump(item, ascii, out);
            }
            out.push('}');
        }
    }
}

/// A JSON string as Python writes it: `\"`, `\\`, the five short escapes, other
/// control characters as `\u00XX`; with `ascii`, everything beyond `~` as `\uXXXX`
/// (UTF-16 pairs above the BMP).
fn string(s: &str, ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c < ' ' || (ascii && c > '~') => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Python's `repr(float)`: the shortest digits that read back, fixed notation from
/// 1e-4 up to 1e16 (with at least one decimal), exponent notation beyond.
pub(super) fn float_repr(x: f64) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    if !x.is_finite() {
        // Python's json writes these bare; the sample never holds one.
        return if x.is_nan() {
            "NaN"
        } else if x > 0.0 {
            "Infinity"
        } else {
            "-Infinity"
        }
        .to_string();
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if x < 0.0 { "-" } else { "" };
    let decpt = exp + 1;
    if !(-4 < decpt && decpt <= 16) {
        let rest = &digits[1..];
        let dot = if rest.is_empty() { "" } else { "." };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{}{dot}{rest}e{esign}{:02}", &digits[..1], exp.abs());
    }
    let len = digits.len() as i32;
    if decpt <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt >= len {
        format!("{sign}{digits}{}.0", "0".repeat((decpt - len) as usize))
    } else {
        let (a, b) = digits.split_at(decpt as usize);
        format!("{sign}{a}.{b}")
    }
}

/// Python's `round(x, 2)`: the nearest float to the decimal rounding of `x`'s exact
/// value.
pub(super) fn round2(x: f64) -> f64 {
    format!("{x:.2}").parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        for (x, want) in [
            (77.209, "77.209"),
            (-0.1278, "-0.1278"),
            (100.0, "100.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345.6, "123456789012345.6"),
        ] {
            assert_eq!(float_repr(x), want);
        }
    }

    #[test]
    fn strings_escape_as_python_json() {
        let mut out = String::new();
        string("a\"\\\n\u{1}é😀", false, &mut out);
        assert_eq!(out, "\"a\\\"\\\\\\n\\u0001é😀\"");
        out.clear();
        string("é😀\u{7f}", true, &mut out);
        assert_eq!(out, "\"\\u00e9\\ud83d\\ude00\\u007f\"");
    }

    #[test]
    fn setting_a_key_keeps_its_place() {
        let mut o = obj! { "a" => 1i64, "b" => "x" };
        o.set("a", J::Null);
        o.set("c", true);
        assert_eq!(o.line(false), "{\"a\": null, \"b\": \"x\", \"c\": true}\n");
    }
}
