//! The PDF object model (ISO 32000-2 §7.3) and its serialisation.

use std::fmt::Write as _;

/// An object's number and generation.
pub type ObjId = (u32, u16);

/// How a string was written: `(literal)` or `<hex>`. Kept so output looks like input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrForm {
    /// `( ... )` with escapes.
    Literal,
    /// `< ... >`.
    Hex,
}

/// A PDF object. Streams carry their (still encoded) data.
#[derive(Clone, Debug, PartialEq)]
pub enum Object {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A real number.
    Real(f64),
    /// A string's bytes (escapes and hex digits already decoded).
    Str(Vec<u8>, StrForm),
    /// A name's bytes, without the slash, `#xx` escapes decoded.
    Name(Name),
    /// `[ ... ]`
    Array(Vec<Object>),
    /// `<< ... >>`
    Dict(Dict),
    /// A stream: its dictionary and its raw (encoded, possibly encrypted) bytes. Boxed:
    /// unboxed it would make every value 56 bytes instead of 32, and a document's arrays
    /// and dictionaries hold a value per item (a 1.8 MB file's tree, 119,000 values, was
    /// most of the memory the process touched).
    Stream(Box<Stream>),
    /// `n g R`
    Ref(u32, u16),
}

/// A dictionary: keys in the order they were read (later duplicates replace earlier ones).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dict(pub Vec<(Name, Object)>);

/// A name's bytes (without the slash, `#xx` escapes decoded), kept inline up to 16
/// bytes. A document's objects hold tens of thousands of names (a 1.8 MB file: 29,000,
/// against 16,000 arrays, dictionaries and strings together), nearly all short (`/Type`,
/// `/Length`, `/FlateDecode`: 700 of those 29,000 are longer); one heap allocation each
/// was most of the allocations made reading a file. Inline, a name costs none and a
/// value stays 32 bytes.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(smallvec::SmallVec<[u8; 16]>);

impl Name {
    /// The name's bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.0
    }
}

impl std::ops::Deref for Name {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl std::borrow::Borrow<[u8]> for Name {
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Name {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<&[u8]> for Name {
    fn from(b: &[u8]) -> Name {
        Name(smallvec::SmallVec::from_slice(b))
    }
}

impl<const N: usize> From<&[u8; N]> for Name {
    fn from(b: &[u8; N]) -> Name {
        Name::from(&b[..])
    }
}

impl From<Vec<u8>> for Name {
    fn from(b: Vec<u8>) -> Name {
        Name(smallvec::SmallVec::from_vec(b))
    }
}

impl PartialEq<[u8]> for Name {
    fn eq(&self, other: &[u8]) -> bool {
        self.0[..] == *other
    }
}

impl PartialEq<&[u8]> for Name {
    fn eq(&self, other: &&[u8]) -> bool {
        self.0[..] == **other
    }
}

impl<const N: usize> PartialEq<[u8; N]> for Name {
    fn eq(&self, other: &[u8; N]) -> bool {
        self.0[..] == other[..]
    }
}

impl<const N: usize> PartialEq<&[u8; N]> for Name {
    fn eq(&self, other: &&[u8; N]) -> bool {
        self.0[..] == other[..]
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "/{}", self.0.escape_ascii())
    }
}

/// A stream object.
#[derive(Clone, Debug, PartialEq)]
pub struct Stream {
    /// The stream dictionary.
    pub dict: Dict,
    /// The bytes between `stream` and `endstream`.
    pub data: Vec<u8>,
}

impl Dict {
    /// An empty dictionary.
    pub fn new() -> Dict {
        Dict(Vec::new())
    }
    /// The value of `key`, if present.
    pub fn get(&self, key: &[u8]) -> Option<&Object> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    /// A mutable reference to the value of `key`.
    pub fn get_mut(&mut self, key: &[u8]) -> Option<&mut Object> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    /// Sets `key` (replacing any value in place, else appending).
    pub fn set(&mut self, key: &[u8], value: Object) {
        match self.get_mut(key) {
            Some(v) => *v = value,
            None => self.0.push((Name::from(key), value)),
        }
    }
    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &[u8]) -> Option<Object> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(i).1)
    }
    /// Whether `/Type` is the name `ty`.
    pub fn has_type(&self, ty: &[u8]) -> bool {
        matches!(self.get(b"Type"), Some(Object::Name(n)) if n == ty)
    }
    /// The name value of `key`.
    pub fn name(&self, key: &[u8]) -> Option<&[u8]> {
        match self.get(key) {
            Some(Object::Name(n)) => Some(n),
            _ => None,
        }
    }
    /// The integer value of `key`.
    pub fn int(&self, key: &[u8]) -> Option<i64> {
        match self.get(key) {
            Some(Object::Int(i)) => Some(*i),
            _ => None,
        }
    }
}

impl Object {
    /// The name `n` (given without its slash).
    pub fn name(n: impl AsRef<[u8]>) -> Object {
        Object::Name(Name::from(n.as_ref()))
    }
    /// The dictionary of a dictionary or of a stream.
    pub fn dict(&self) -> Option<&Dict> {
        match self {
            Object::Dict(d) => Some(d),
            Object::Stream(s) => Some(&s.dict),
            _ => None,
        }
    }
    /// The integer, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Object::Int(i) => Some(*i),
            _ => None,
        }
    }
    /// The string bytes, if this is a string.
    pub fn as_str(&self) -> Option<&[u8]> {
        match self {
            Object::Str(s, _) => Some(s),
            _ => None,
        }
    }
    /// The name bytes, if this is a name.
    pub fn as_name(&self) -> Option<&[u8]> {
        match self {
            Object::Name(n) => Some(n),
            _ => None,
        }
    }
}

/// Whether `b` is PDF white space (§7.2.3).
pub(crate) const fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'\0')
}

/// Whether `b` is a PDF delimiter (§7.2.3).
pub(crate) const fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// Bytes a name writes as `#xx`: white space and other controls, `#`, delimiters, and
/// bytes outside printable ASCII (§7.3.5).
static NAME_ESCAPED: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c <= b' ' || c >= 0x7f || c == b'#' || is_delim(c);
        b += 1;
    }
    t
};

pub(crate) fn write_name(out: &mut Vec<u8>, name: &[u8]) {
    out.push(b'/');
    // Nearly every name needs no escape: copied whole (a document writes tens of
    // thousands of them).
    if !name.iter().any(|&b| NAME_ESCAPED[usize::from(b)]) {
        out.extend_from_slice(name);
        return;
    }
    for &b in name {
        if NAME_ESCAPED[usize::from(b)] {
            let _ = write!(HexOut(out), "#{b:02X}");
        } else {
            out.push(b);
        }
    }
}

/// Adapter so `write!` can append to a `Vec<u8>`.
struct HexOut<'a>(&'a mut Vec<u8>);
impl std::fmt::Write for HexOut<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn write_string(out: &mut Vec<u8>, s: &[u8], form: StrForm) {
    match form {
        StrForm::Hex => {
            out.reserve(s.len() * 2 + 2);
            out.push(b'<');
            for &b in s {
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 15)]);
            }
            out.push(b'>');
        }
        StrForm::Literal => {
            out.reserve(s.len() + 2);
            out.push(b'(');
            // Runs between the bytes that need a backslash are copied whole (an
            // encrypted string has one such byte in 64, on average).
            let mut rest = s;
            while let Some(i) = rest
                .iter()
                .position(|&b| matches!(b, b'(' | b')' | b'\\' | b'\r'))
            {
                out.extend_from_slice(&rest[..i]);
                match rest[i] {
                    // A raw CR (or CR LF) inside a literal string reads back as LF.
                    b'\r' => out.extend_from_slice(b"\\r"),
                    b => out.extend_from_slice(&[b'\\', b]),
                }
                rest = &rest[i + 1..];
            }
            out.extend_from_slice(rest);
            out.push(b')');
        }
    }
}

/// Appends the decimal digits of `i` (the `itoa` crate: formatting integers through
/// `std::fmt` was a tenth of serialising a file).
pub(crate) fn write_int(out: &mut Vec<u8>, i: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
}

fn write_real(out: &mut Vec<u8>, r: f64) {
    if !r.is_finite() {
        out.push(b'0');
        return;
    }
    // Most reals in a PDF have at most three decimals (coordinates, widths, colours).
    // Such a value is written from its thousandths, an integer: the decimal that reads
    // back as `r` and has at most 15 digits, so the only one that does, and so what
    // `Display` prints, without its general algorithm (which was 8% of serialising a
    // file of 14,000 reals). Anything else goes to `Display`, which never uses exponents,
    // as PDF readers expect.
    let k = r * 1000.0;
    if k.abs() < 1e15 && k == k.trunc() && k / 1000.0 == r && r.to_bits() != (-0.0f64).to_bits() {
        let k = k as i64;
        if k < 0 {
            out.push(b'-');
        }
        let (whole, thousandths) = (k.unsigned_abs() / 1000, k.unsigned_abs() % 1000);
        write_int(out, whole);
        if thousandths != 0 {
            let digits = [thousandths / 100, thousandths / 10 % 10, thousandths % 10];
            let last = digits.iter().rposition(|&d| d != 0).unwrap_or(0);
            out.push(b'.');
            out.extend(digits[..=last].iter().map(|&d| b'0' + d as u8));
        }
        return;
    }
    let _ = write!(HexOut(out), "{r}");
}

/// Whether the next token written after `out` needs a separating space: after a regular
/// character, and after a bare `/` -- the empty name, which `0` would otherwise turn into
/// the name `/0` (found by fuzzing: a dictionary read back off by one key).
fn needs_space(out: &[u8]) -> bool {
    match out.last() {
        None => false,
        Some(&b) => b == b'/' || !(is_ws(b) || is_delim(b)),
    }
}

/// Appends the serialisation of `obj` (streams: the dictionary only -- the caller writes
/// `stream ... endstream`).
pub fn write_object(out: &mut Vec<u8>, obj: &Object) {
    match obj {
        Object::Null => {
            sep(out);
            out.extend_from_slice(b"null");
        }
        Object::Bool(b) => {
            sep(out);
            out.extend_from_slice(if *b { b"true" } else { b"false" });
        }
        Object::Int(i) => {
            sep(out);
            write_int(out, *i);
        }
        Object::Real(r) => {
            sep(out);
            write_real(out, *r);
        }
        Object::Str(s, f) => write_string(out, s, *f),
        Object::Name(n) => write_name(out, n),
        Object::Array(a) => {
            out.push(b'[');
            for o in a {
                write_object(out, o);
            }
            out.push(b']');
        }
        Object::Dict(d) => write_dict(out, d),
        Object::Stream(s) => write_dict(out, &s.dict),
        Object::Ref(n, g) => {
            sep(out);
            write_int(out, *n);
            out.push(b' ');
            write_int(out, *g);
            out.extend_from_slice(b" R");
        }
    }
}

fn sep(out: &mut Vec<u8>) {
    if needs_space(out) {
        out.push(b' ');
    }
}

/// Appends `<< ... >>`.
pub fn write_dict(out: &mut Vec<u8>, d: &Dict) {
    out.extend_from_slice(b"<<");
    for (k, v) in &d.0 {
        write_name(out, k);
        write_object(out, v);
    }
    out.extend_from_slice(b">>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_compactly() {
        let mut d = Dict::new();
        d.set(b"Type", Object::name(b"Page"));
        d.set(
            b"Kids",
            Object::Array(vec![Object::Ref(3, 0), Object::Int(-4)]),
        );
        d.set(b"S", Object::Str(b"a(b)\\\r".to_vec(), StrForm::Literal));
        d.set(b"H", Object::Str(vec![0xab, 1], StrForm::Hex));
        d.set(b"N a#", Object::Real(0.5));
        let mut out = Vec::new();
        write_object(&mut out, &Object::Dict(d));
        assert_eq!(
            String::from_utf8_lossy(&out),
            "<</Type/Page/Kids[3 0 R -4]/S(a\\(b\\)\\\\\\r)/H<ab01>/N#20a#23 0.5>>"
        );
    }

    #[test]
    fn any_bytes_as_string_or_name_read_back() {
        // Random bytes (every value, the ones that need escapes among them), written as a
        // literal string, a hex string and a name, read back as they were.
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for len in 0..400 {
            let s: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 24) as u8
                })
                .collect();
            for obj in [
                Object::Str(s.clone(), StrForm::Literal),
                Object::Str(s.clone(), StrForm::Hex),
                Object::name(&s),
            ] {
                let mut out = Vec::new();
                write_object(&mut out, &obj);
                let back = crate::lexer::Lexer::new(&out, 0).object(0).unwrap();
                assert_eq!(back, obj, "{:?}", String::from_utf8_lossy(&out));
            }
        }
    }

    #[test]
    fn names_inline_or_not_are_their_bytes() {
        // Kept inline up to 16 bytes, on the heap beyond: the same bytes either way, and a
        // value no larger than before.
        assert_eq!(std::mem::size_of::<Object>(), 32);
        let long = [b'x'; 300];
        for n in [
            &b""[..],
            b"Type",
            b"0123456789abcdef",
            b"0123456789abcdefg",
            &long,
        ] {
            let name = Name::from(n);
            assert_eq!(name.as_slice(), n);
            assert!(name == n && *name == *n);
            assert_eq!(Name::from(n.to_vec()), name);
            let mut d = Dict::new();
            d.set(n, Object::name(n));
            assert_eq!(d.name(n), Some(n));
            let mut out = Vec::new();
            write_object(&mut out, &Object::Dict(d.clone()));
            let back = crate::lexer::Lexer::new(&out, 0).object(0).unwrap();
            assert_eq!(back, Object::Dict(d), "{:?}", String::from_utf8_lossy(&out));
        }
    }

    #[test]
    fn empty_name_then_a_number_reads_back() {
        let mut d = Dict::new();
        d.set(b"", Object::Int(0));
        d.set(b"A", Object::Name(Name::default()));
        d.set(b"B", Object::Real(1.5));
        let mut out = Vec::new();
        write_object(&mut out, &Object::Dict(d.clone()));
        let back = crate::lexer::Lexer::new(&out, 0)
            .object(0)
            .unwrap_or(Object::Null);
        assert_eq!(back, Object::Dict(d), "{}", String::from_utf8_lossy(&out));
    }

    #[test]
    fn reals_are_written_as_display_writes_them() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut values = vec![0.0, -0.0, 0.5, -0.25, 0.1, 0.001, 0.0005, 1.0 / 3.0, 612.0];
        values.extend([
            1e14 + 0.5,
            999_999_999_999.999,
            -1e-7,
            1e300,
            f64::MIN_POSITIVE,
        ]);
        for _ in 0..20_000 {
            let k = (next() % 2_000_000_000) as i64 - 1_000_000_000;
            values.push(k as f64 / 1000.0);
            values.push(k as f64 / 100.0);
            values.push(f64::from_bits(next()));
        }
        for r in values.into_iter().filter(|r| r.is_finite()) {
            let mut out = Vec::new();
            write_real(&mut out, r);
            assert_eq!(String::from_utf8(out).unwrap(), format!("{r}"), "{r:e}");
        }
    }
}
