//! Tokeniser and object parser (ISO 32000-2 §7.2, §7.3), written for hostile input:
//! every read is bounds-checked, nesting is limited, and errors carry the byte offset.

use std::borrow::Cow;

use crate::error::{Error, Result, syntax};
use crate::limits::{Limits, Which, exceeded};
use crate::object::{Dict, Name, ObjId, Object, StrForm, Stream, is_delim, is_ws};

/// What [`Lexer::skim`] reports of an object, in order.
#[derive(Debug, PartialEq)]
pub(crate) enum Token<'a> {
    /// `<<`
    DictStart,
    /// A dictionary key (its value follows).
    Key(Cow<'a, [u8]>),
    /// `>>`
    DictEnd,
    /// `[`
    ArrayStart,
    /// `]`
    ArrayEnd,
    /// `n g R`: the object number.
    Ref(u32),
    /// An integer.
    Int(i64),
    /// A name that is a value.
    Name(Cow<'a, [u8]>),
    /// Any other value: a real number, string, boolean or null.
    Other,
}

/// A real of at most 15 digits with one optional sign and one dot ("-12.5", ".5", "5."),
/// read without building a string: its digits are an integer m < 2^53 and it is
/// m / 10^k, k < 16, both exact in an `f64`, so the one rounding of the division gives
/// the nearest `f64`, what `str::parse` gives. `None` for anything else (left to the
/// general reading in [`Lexer::number`]).
fn short_real(run: &[u8]) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let (neg, body) = match run.first()? {
        b'-' => (true, &run[1..]),
        b'+' => (false, &run[1..]),
        _ => (false, run),
    };
    let dot = body.iter().position(|&b| b == b'.')?;
    let (int, frac) = (&body[..dot], &body[dot + 1..]);
    let digits = int.len() + frac.len();
    if digits == 0 || digits > 15 {
        return None;
    }
    let mut m = 0u64;
    for &d in int.iter().chain(frac) {
        if !d.is_ascii_digit() {
            return None;
        }
        m = m * 10 + u64::from(d - b'0');
    }
    let v = m as f64 / POW10[frac.len()];
    Some(if neg { -v } else { v })
}

/// A cursor over PDF bytes.
pub struct Lexer<'a> {
    /// The bytes.
    pub buf: &'a [u8],
    /// The current position.
    pub pos: usize,
    /// Deepest nesting accepted ([`Limits::depth`]).
    max_depth: usize,
    /// Values that may still be parsed ([`Limits::values`]; unlimited unless set).
    values_left: usize,
    /// The entries of the dictionaries being parsed, innermost last, and the items of the
    /// arrays: each is gathered here and moved into an allocation of its exact size when
    /// it closes. Grown one push at a time, a page's dictionary would be reallocated
    /// three or four times and keep a quarter of its room unused; for a file of 65,000
    /// objects that was a fifth of the process's page faults.
    entries: Vec<(Name, Object)>,
    items: Vec<Object>,
}

/// The bytes that end a run of regular characters: white space and delimiters, looked up
/// (every token is read through such a run).
static ENDS_RUN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = is_ws(b as u8) || is_delim(b as u8);
        b += 1;
    }
    t
};

fn hexval(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

impl<'a> Lexer<'a> {
    /// A lexer at `pos`, nesting limited to the default [`Limits::depth`].
    pub fn new(buf: &'a [u8], pos: usize) -> Lexer<'a> {
        Lexer::with_depth(buf, pos, Limits::default().depth)
    }

    /// A lexer at `pos` that accepts nesting up to `max_depth`.
    pub fn with_depth(buf: &'a [u8], pos: usize, max_depth: usize) -> Lexer<'a> {
        Lexer {
            buf,
            pos,
            max_depth,
            values_left: usize::MAX,
            entries: Vec::new(),
            items: Vec::new(),
        }
    }

    /// Limits the number of values this lexer may still parse (each number, name,
    /// string, array, dictionary and reference counts one); beyond it, parsing fails
    /// with [`Error::Limit`] naming [`Limits::values`].
    pub fn limit_values(&mut self, n: usize) {
        self.values_left = n;
    }

    /// How many values may still be parsed.
    pub fn values_left(&self) -> usize {
        self.values_left
    }

    fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    /// Skips white space and comments.
    pub fn skip_ws(&mut self) {
        while let Some(b) = self.peek() {
            if is_ws(b) {
                self.pos += 1;
            } else if b == b'%' {
                while let Some(c) = self.peek() {
                    if c == b'\r' || c == b'\n' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// The run of regular characters at the cursor (a keyword or number), not consumed.
    fn regular_run(&self) -> &'a [u8] {
        let start = self.pos.min(self.buf.len());
        let end = self.buf[start..]
            .iter()
            .position(|&b| ENDS_RUN[usize::from(b)])
            .map_or(self.buf.len(), |i| start + i);
        &self.buf[start..end]
    }

    /// Consumes the keyword `kw` (after white space) if it is next; true if it was.
    pub fn eat_keyword(&mut self, kw: &[u8]) -> bool {
        self.skip_ws();
        if self.regular_run() == kw {
            self.pos += kw.len();
            true
        } else {
            false
        }
    }

    /// Reads an unsigned integer token (digits only), after white space.
    pub fn uint(&mut self) -> Option<u64> {
        self.skip_ws();
        let run = self.regular_run();
        if run.is_empty() || run.len() > 19 || !run.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let v = run.iter().fold(0u64, |a, &d| a * 10 + u64::from(d - b'0'));
        self.pos += run.len();
        Some(v)
    }

    /// The start of every direct object, parsed or skimmed: the nesting and value limits
    /// checked and counted, white space skipped; the object's first byte and where it is.
    fn enter(&mut self, depth: usize) -> Result<(usize, u8)> {
        if depth > self.max_depth {
            return Err(exceeded(
                Which::Depth,
                format_args!(
                    "arrays/dictionaries nested more than {} deep at byte {}",
                    self.max_depth, self.pos
                ),
            ));
        }
        if self.values_left == 0 {
            return Err(exceeded(
                Which::Values,
                "the object streams hold more values than the limit allows",
            ));
        }
        self.values_left -= 1;
        self.skip_ws();
        let start = self.pos;
        let Some(b) = self.peek() else {
            return Err(syntax(
                start,
                "unexpected end of data where an object was expected",
            ));
        };
        Ok((start, b))
    }

    /// Parses one direct object.
    pub fn object(&mut self, depth: usize) -> Result<Object> {
        let (start, b) = self.enter(depth)?;
        match b {
            b'/' => {
                self.pos += 1;
                Ok(Object::Name(self.name_body()))
            }
            b'(' => self.literal_string(),
            b'<' => {
                if self.buf.get(self.pos + 1) == Some(&b'<') {
                    self.pos += 2;
                    Ok(Object::Dict(self.dict_body(depth)?))
                } else {
                    self.hex_string()
                }
            }
            b'[' => {
                self.pos += 1;
                let base = self.items.len();
                let items = self.array_items(start, depth, base);
                if items.is_err() {
                    self.items.truncate(base);
                }
                items.map(Object::Array)
            }
            b'+' | b'-' | b'.' | b'0'..=b'9' => self.number(),
            _ if is_delim(b) => Err(syntax(
                start,
                format!(
                    "unexpected '{}' where an object was expected",
                    char::from(b)
                ),
            )),
            _ => {
                let run = self.regular_run();
                let obj = match run {
                    b"true" => Object::Bool(true),
                    b"false" => Object::Bool(false),
                    b"null" => Object::Null,
                    _ => {
                        let shown = String::from_utf8_lossy(&run[..run.len().min(20)]).into_owned();
                        return Err(syntax(
                            start,
                            format!("unexpected '{shown}' where an object was expected"),
                        ));
                    }
                };
                self.pos += run.len();
                Ok(obj)
            }
        }
    }

    /// Parses one direct object as [`Lexer::object`] does -- the same syntax, the same
    /// errors, nesting and value limits -- but builds nothing: `f` is told its tokens in
    /// order. For a reader that keeps a little of each object (the read-back check,
    /// [`crate::readback`]), where building and freeing every object was most of the
    /// cost.
    pub(crate) fn skim(&mut self, depth: usize, f: &mut impl FnMut(Token<'a>)) -> Result<()> {
        let (start, b) = self.enter(depth)?;
        match b {
            b'/' => {
                self.pos += 1;
                f(Token::Name(self.name_ref()));
            }
            b'(' => {
                self.skip_literal_string()?;
                f(Token::Other);
            }
            b'<' if self.buf.get(self.pos + 1) == Some(&b'<') => {
                self.pos += 2;
                f(Token::DictStart);
                loop {
                    self.skip_ws();
                    match self.peek() {
                        None => return Err(syntax(start, "dictionary not closed with >>")),
                        Some(b'>') => {
                            if self.buf.get(self.pos + 1) == Some(&b'>') {
                                self.pos += 2;
                                f(Token::DictEnd);
                                return Ok(());
                            }
                            return Err(syntax(self.pos, "single '>' in a dictionary"));
                        }
                        Some(b'/') => {
                            self.pos += 1;
                            f(Token::Key(self.name_ref()));
                            self.skip_ws();
                            if self.buf[self.pos.min(self.buf.len())..].starts_with(b">>") {
                                // A key without a value: null, not counted (as `dict_body`).
                                f(Token::Other);
                            } else {
                                self.skim(depth + 1, f)?;
                            }
                        }
                        Some(_) => return Err(syntax(self.pos, "dictionary key is not a name")),
                    }
                }
            }
            b'<' => {
                self.skip_hex_string()?;
                f(Token::Other);
            }
            b'[' => {
                self.pos += 1;
                f(Token::ArrayStart);
                loop {
                    self.skip_ws();
                    match self.peek() {
                        Some(b']') => {
                            self.pos += 1;
                            f(Token::ArrayEnd);
                            return Ok(());
                        }
                        None => return Err(syntax(start, "array not closed with ]")),
                        _ => self.skim(depth + 1, f)?,
                    }
                }
            }
            b'+' | b'-' | b'.' | b'0'..=b'9' => {
                // Integers and references are most numbers, and `number` builds neither
                // on the heap.
                f(match self.number()? {
                    Object::Ref(n, _) => Token::Ref(n),
                    Object::Int(i) => Token::Int(i),
                    _ => Token::Other,
                });
            }
            _ if is_delim(b) => {
                return Err(syntax(
                    start,
                    format!(
                        "unexpected '{}' where an object was expected",
                        char::from(b)
                    ),
                ));
            }
            _ => {
                let run = self.regular_run();
                if !matches!(run, b"true" | b"false" | b"null") {
                    return Err(syntax(
                        start,
                        "unexpected keyword where an object was expected",
                    ));
                }
                self.pos += run.len();
                f(Token::Other);
            }
        }
        Ok(())
    }

    /// A name's bytes (the slash consumed), borrowed unless it has `#xx` escapes.
    fn name_ref(&mut self) -> Cow<'a, [u8]> {
        let run = self.regular_run();
        if run.contains(&b'#') {
            Cow::Owned(self.name_body().to_vec())
        } else {
            self.pos += run.len();
            Cow::Borrowed(run)
        }
    }

    /// Passes over a literal string as [`Lexer::literal_string`] reads it, keeping nothing.
    fn skip_literal_string(&mut self) -> Result<()> {
        let start = self.pos;
        self.pos += 1;
        let mut depth = 1usize;
        while let Some(&b) = self.buf.get(self.pos) {
            self.pos += 1;
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                // The escaped character is never a parenthesis that counts; the octal
                // digits or line end that may follow it are not parentheses either.
                b'\\' => self.pos += 1,
                _ => {}
            }
        }
        Err(syntax(start, "literal string not closed with )"))
    }

    /// Passes over a hex string as [`Lexer::hex_string`] reads it (the same errors).
    fn skip_hex_string(&mut self) -> Result<()> {
        let start = self.pos;
        self.pos += 1;
        while let Some(&b) = self.buf.get(self.pos) {
            self.pos += 1;
            if b == b'>' {
                return Ok(());
            }
            if !is_ws(b) && hexval(b).is_none() {
                return Err(syntax(
                    self.pos - 1,
                    format!("'{}' in a hex string", char::from(b).escape_default()),
                ));
            }
        }
        Err(syntax(start, "hex string not closed with >"))
    }

    fn number(&mut self) -> Result<Object> {
        let start = self.pos;
        let run = self.regular_run();
        self.pos += run.len();
        // Most numbers are unsigned integers (and references): read them directly.
        if (1..=18).contains(&run.len()) && run.iter().all(u8::is_ascii_digit) {
            let i = run.iter().fold(0i64, |a, &d| a * 10 + i64::from(d - b'0'));
            return Ok(self.int_or_ref(i));
        }
        let s = std::str::from_utf8(run).unwrap_or("");
        let is_int = !s.is_empty()
            && s.trim_start_matches(['+', '-'])
                .bytes()
                .all(|b| b.is_ascii_digit())
            && s.len() > usize::from(s.starts_with(['+', '-']));
        if is_int && let Ok(i) = s.parse::<i64>() {
            if i >= 0 && !s.starts_with('+') {
                return Ok(self.int_or_ref(i));
            }
            return Ok(Object::Int(i));
        }
        if let Some(v) = short_real(run) {
            return Ok(Object::Real(v));
        }
        // Reals, and the forms real files contain: "-.5", "5.", "--5", "1.2.3" (read to
        // the first invalid character, as Acrobat does).
        let mut i = 0;
        let mut neg = false;
        while i < run.len() && matches!(run[i], b'+' | b'-') {
            neg |= run[i] == b'-';
            i += 1;
        }
        let mut t = String::from("0");
        let mut dot = false;
        let mut digit = false;
        for &c in &run[i..] {
            match c {
                b'0'..=b'9' => {
                    digit = true;
                    t.push(char::from(c));
                }
                b'.' if !dot => {
                    dot = true;
                    t.push('.');
                }
                _ => break,
            }
        }
        if !digit {
            return Err(syntax(
                start,
                format!("bad number '{}'", s.chars().take(20).collect::<String>()),
            ));
        }
        if t.ends_with('.') {
            t.push('0');
        }
        let v: f64 = t
            .parse()
            .map_err(|_| syntax(start, format!("bad number '{s}'")))?;
        let v = if neg { -v } else { v };
        Ok(Object::Real(v))
    }

    /// The unsigned integer `i` just read, or the reference `i g R` it starts.
    fn int_or_ref(&mut self, i: i64) -> Object {
        let save = self.pos;
        if let Some(g) = self.uint()
            && self.eat_keyword(b"R")
            && g <= u64::from(u16::MAX)
            && i <= i64::from(u32::MAX)
        {
            return Object::Ref(i as u32, g as u16);
        }
        self.pos = save;
        Object::Int(i)
    }

    fn name_body(&mut self) -> Name {
        let run = self.regular_run();
        self.pos += run.len();
        if !run.contains(&b'#') {
            return Name::from(run);
        }
        let mut out = Vec::with_capacity(run.len());
        let mut i = 0;
        while i < run.len() {
            if run[i] == b'#'
                && i + 2 < run.len()
                && let (Some(h), Some(l)) = (hexval(run[i + 1]), hexval(run[i + 2]))
            {
                out.push(h << 4 | l);
                i += 3;
                continue;
            }
            out.push(run[i]);
            i += 1;
        }
        Name::from(out)
    }

    fn literal_string(&mut self) -> Result<Object> {
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        let mut depth = 1usize;
        loop {
            let Some(b) = self.peek() else {
                return Err(syntax(start, "literal string not closed with )"));
            };
            self.pos += 1;
            match b {
                b'(' => {
                    depth += 1;
                    out.push(b);
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(Object::Str(out, StrForm::Literal));
                    }
                    out.push(b);
                }
                b'\r' => {
                    if self.peek() == Some(b'\n') {
                        self.pos += 1;
                    }
                    out.push(b'\n');
                }
                b'\\' => {
                    let Some(e) = self.peek() else { continue };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push(v as u8);
                        }
                        b'\r' => {
                            if self.peek() == Some(b'\n') {
                                self.pos += 1;
                            }
                        }
                        b'\n' => {}
                        other => out.push(other),
                    }
                }
                _ => out.push(b),
            }
        }
    }

    fn hex_string(&mut self) -> Result<Object> {
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        let mut hi: Option<u8> = None;
        loop {
            let Some(b) = self.peek() else {
                return Err(syntax(start, "hex string not closed with >"));
            };
            self.pos += 1;
            if b == b'>' {
                if let Some(h) = hi {
                    out.push(h << 4);
                }
                return Ok(Object::Str(out, StrForm::Hex));
            }
            if is_ws(b) {
                continue;
            }
            let Some(v) = hexval(b) else {
                return Err(syntax(
                    self.pos - 1,
                    format!("'{}' in a hex string", char::from(b).escape_default()),
                ));
            };
            match hi.take() {
                Some(h) => out.push(h << 4 | v),
                None => hi = Some(v),
            }
        }
    }

    /// The items of an array whose `[` was at `start`, gathered from `self.items[base..]`.
    fn array_items(&mut self, start: usize, depth: usize, base: usize) -> Result<Vec<Object>> {
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b']') => {
                    self.pos += 1;
                    return Ok(self.items.drain(base..).collect());
                }
                None => return Err(syntax(start, "array not closed with ]")),
                _ => {
                    let item = self.object(depth + 1)?;
                    self.items.push(item);
                }
            }
        }
    }

    fn dict_body(&mut self, depth: usize) -> Result<Dict> {
        let base = self.entries.len();
        let d = self.dict_entries(depth, base);
        if d.is_err() {
            self.entries.truncate(base);
        }
        d
    }

    /// A dictionary's entries after its `<<`, gathered from `self.entries[base..]`.
    fn dict_entries(&mut self, depth: usize, base: usize) -> Result<Dict> {
        let start = self.pos;
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Err(syntax(start, "dictionary not closed with >>")),
                Some(b'>') => {
                    if self.buf.get(self.pos + 1) == Some(&b'>') {
                        self.pos += 2;
                        return Ok(Dict(self.entries.drain(base..).collect()));
                    }
                    return Err(syntax(self.pos, "single '>' in a dictionary"));
                }
                Some(b'/') => {
                    self.pos += 1;
                    let key = self.name_body();
                    self.skip_ws();
                    let value = if self.buf[self.pos.min(self.buf.len())..].starts_with(b">>") {
                        Object::Null
                    } else {
                        self.object(depth + 1)?
                    };
                    // Later duplicates replace earlier ones. The key read is kept, not
                    // copied (`Dict::set` copies it: a second allocation per key).
                    match self.entries[base..].iter_mut().find(|(k, _)| *k == key) {
                        Some((_, v)) => *v = value,
                        None => self.entries.push((key, value)),
                    }
                }
                Some(_) => {
                    return Err(syntax(self.pos, "dictionary key is not a name"));
                }
            }
        }
    }
}

/// How the parser learns an indirect `/Length`: resolve `n g R` to an integer, if it can.
pub type LengthResolver<'r> = &'r dyn Fn(ObjId) -> Option<i64>;

/// Remembers the last search for the keyword `endstream`, so that many streams with a
/// wrong /Length cannot make reading quadratic: once a search from `p` found the first
/// `endstream` at `q` (or none), any search from between `p` and `q` has the same answer.
/// Shareable between threads (any remembered answer is right for the range it covers),
/// but threads reading different parts of a file each keep their own, or they would
/// keep replacing each other's.
#[derive(Debug, Default)]
pub struct EndstreamCache(std::sync::Mutex<Option<(usize, Option<usize>)>>);

impl EndstreamCache {
    /// The offset of the first `endstream` at or after `from`.
    fn find(&self, buf: &[u8], from: usize) -> Option<usize> {
        let mut last = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((p, found)) = *last
            && p <= from
            && found.is_none_or(|q| from <= q)
        {
            return found;
        }
        let found = memchr::memmem::find(buf.get(from..)?, b"endstream").map(|r| from + r);
        *last = Some((from, found));
        found
    }
}

/// What parsing an indirect object needs besides the bytes.
pub struct Context<'r> {
    /// Resolves an indirect /Length.
    pub lengths: LengthResolver<'r>,
    /// Deepest nesting accepted.
    pub max_depth: usize,
    /// The file's `endstream` search memory, if the caller keeps one.
    pub endstreams: Option<&'r EndstreamCache>,
}

/// Where a stream's data ends, given its start and a `/Length` hint: the hint if
/// `endstream` follows it, else the first `endstream` keyword.
fn stream_end(
    buf: &[u8],
    data_start: usize,
    len: Option<i64>,
    cache: Option<&EndstreamCache>,
) -> Option<(usize, usize)> {
    if let Some(len) = len.and_then(|l| usize::try_from(l).ok())
        && let Some(end) = data_start.checked_add(len).filter(|&e| e <= buf.len())
    {
        let mut lx = Lexer::new(buf, end);
        lx.skip_ws();
        if buf[lx.pos..].starts_with(b"endstream") {
            return Some((end, lx.pos + 9));
        }
    }
    let kw = match cache {
        Some(c) => c.find(buf, data_start)?,
        None => data_start + memchr::memmem::find(buf.get(data_start..)?, b"endstream")?,
    };
    let mut end = kw;
    // The EOL before endstream is not data.
    if end > data_start && buf[end - 1] == b'\n' {
        end -= 1;
    }
    if end > data_start && buf[end - 1] == b'\r' {
        end -= 1;
    }
    Some((end, kw + 9))
}

/// Parses `n g obj <object> [stream ... endstream] endobj` at `pos`, with the default
/// nesting limit. Returns the id, the object and the position after it.
pub fn indirect_object(
    buf: &[u8],
    pos: usize,
    lengths: LengthResolver<'_>,
) -> Result<(ObjId, Object, usize)> {
    let cx = Context {
        lengths,
        max_depth: Limits::default().depth,
        endstreams: None,
    };
    indirect_object_in(buf, pos, &cx)
}

/// [`indirect_object`] with the limits and memory of `cx`.
pub fn indirect_object_in(
    buf: &[u8],
    pos: usize,
    cx: &Context<'_>,
) -> Result<(ObjId, Object, usize)> {
    let mut lx = Lexer::with_depth(buf, pos, cx.max_depth);
    let id = object_header(&mut lx)?;
    let obj = lx.object(0)?;
    if let Object::Dict(dict) = obj {
        let len = || match dict.get(b"Length") {
            Some(Object::Int(l)) => Some(*l),
            Some(Object::Ref(n, g)) => (cx.lengths)((*n, *g)),
            _ => None,
        };
        let (data, end_pos) = after_dict(&mut lx, id, len, cx.endstreams)?;
        return Ok(match data {
            Some(data) => (
                id,
                Object::Stream(Box::new(Stream {
                    dict,
                    data: stream_copy(&buf[data]),
                })),
                end_pos,
            ),
            None => (id, Object::Dict(dict), end_pos),
        });
    }
    let end_pos = object_end(buf, lx.pos, id)?;
    Ok((id, obj, end_pos))
}

/// A stream's data copied out of the file, with room for the framing AES-CBC adds
/// ([`crate::security::AES_FRAME`]), so that encrypting it in place does not move it to
/// a new buffer (a copy of every stream, and as many fresh pages again).
fn stream_copy(data: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(data.len() + crate::security::AES_FRAME);
    v.extend_from_slice(data);
    v
}

/// Reads `n g obj` at the lexer's position: the object's id.
pub(crate) fn object_header(lx: &mut Lexer<'_>) -> Result<ObjId> {
    let pos = lx.pos;
    let (Some(num), Some(gen_)) = (lx.uint(), lx.uint()) else {
        return Err(syntax(pos, "expected 'n g obj'"));
    };
    if !lx.eat_keyword(b"obj") {
        return Err(syntax(pos, "expected 'n g obj'"));
    }
    let (Ok(num), Ok(gen_)) = (u32::try_from(num), u16::try_from(gen_)) else {
        return Err(syntax(pos, "object number or generation out of range"));
    };
    Ok((num, gen_))
}

/// What follows the dictionary that is object `id`'s value (the lexer just after it): the
/// range of its stream's data if it is a stream's (`len()`: its /Length, asked only
/// then), and where the object ends.
pub(crate) fn after_dict(
    lx: &mut Lexer<'_>,
    id: ObjId,
    len: impl FnOnce() -> Option<i64>,
    endstreams: Option<&EndstreamCache>,
) -> Result<(Option<std::ops::Range<usize>>, usize)> {
    let buf = lx.buf;
    let save = lx.pos;
    if !lx.eat_keyword(b"stream") {
        return Ok((None, object_end(buf, save, id)?));
    }
    let mut s = lx.pos;
    if buf.get(s) == Some(&b'\r') {
        s += 1;
    }
    if buf.get(s) == Some(&b'\n') {
        s += 1;
    }
    let len = len();
    let Some((end, after)) = stream_end(buf, s, len, endstreams) else {
        return Err(Error::Damaged(format!(
            "stream of object {} {}: no 'endstream' after its data (/Length {})",
            id.0,
            id.1,
            len.map_or("missing".to_string(), |l| l.to_string())
        )));
    };
    Ok((Some(s..end), object_end(buf, after, id)?))
}

/// Where object `id`, whose value ends at `pos`, ends: after its `endobj`. A missing
/// `endobj` is tolerated when the next object, a cross-reference section or the end of
/// the file follows; anything else there means the object is damaged (a stream whose
/// `stream` keyword was lost reads as a dictionary followed by its data), and reading it
/// would silently change what it is.
pub(crate) fn object_end(buf: &[u8], pos: usize, id: ObjId) -> Result<usize> {
    let mut lx = Lexer::new(buf, pos);
    if lx.eat_keyword(b"endobj") {
        return Ok(lx.pos);
    }
    lx.skip_ws();
    let at = lx.pos;
    let rest = &buf[at..];
    let next_header = {
        let mut h = Lexer::new(buf, at);
        h.uint().is_some() && h.uint().is_some() && h.eat_keyword(b"obj")
    };
    if rest.is_empty()
        || next_header
        || [&b"xref"[..], b"trailer", b"startxref", b"%%EOF"]
            .iter()
            .any(|k| rest.starts_with(k))
    {
        return Ok(pos);
    }
    Err(syntax(
        at,
        format!(
            "object {} {} is followed by unexpected data where 'endobj' should be: it is \
             damaged",
            id.0, id.1
        ),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The short reals' division gives bit for bit what parsing the decimal string gives
    /// (the general reading), over 200,000 numbers of 1 to 15 digits with the dot
    /// anywhere and either sign; forms it does not read are left to the general reading.
    #[test]
    fn short_reals_equal_the_parsed_decimal() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let r = next();
            let n = 1 + (r % 15) as usize;
            let digits: String = (0..n)
                .map(|_| char::from(b'0' + (next() % 10) as u8))
                .collect();
            let dot = ((r >> 8) % (n as u64 + 1)) as usize;
            let sign = ["", "-", "+"][((r >> 16) % 3) as usize];
            let text = format!("{sign}{}.{}", &digits[..dot], &digits[dot..]);
            let expected: f64 = format!("0{}.{}0", &digits[..dot], &digits[dot..])
                .parse()
                .unwrap();
            let expected = if sign == "-" { -expected } else { expected };
            let got = short_real(text.as_bytes()).unwrap();
            assert_eq!(got.to_bits(), expected.to_bits(), "{text}");
            match Lexer::new(text.as_bytes(), 0).object(0).unwrap() {
                Object::Real(v) => assert_eq!(v.to_bits(), expected.to_bits(), "{text}"),
                o => panic!("{text}: {o:?}"),
            }
        }
        for odd in [
            "1.2.3",
            "--5",
            "-",
            ".",
            "1234567890.123456",
            "12",
            "1e5",
            "+-1.0",
        ] {
            assert_eq!(short_real(odd.as_bytes()), None, "{odd}");
        }
    }

    fn parse(s: &[u8]) -> Object {
        Lexer::new(s, 0).object(0).unwrap()
    }

    #[test]
    fn objects() {
        assert_eq!(parse(b" 12 0 R"), Object::Ref(12, 0));
        assert_eq!(parse(b"12 0 obj"), Object::Int(12));
        assert_eq!(parse(b"-.5"), Object::Real(-0.5));
        assert_eq!(parse(b"--5"), Object::Real(-5.0));
        assert_eq!(parse(b"/A#20b"), Object::name(b"A b"));
        assert_eq!(
            parse(b"(a\\(b\\)\\101\\\r\nc\r\nd)"),
            Object::Str(b"a(b)Ac\nd".to_vec(), StrForm::Literal)
        );
        assert_eq!(parse(b"<41 4>"), Object::Str(b"A@".to_vec(), StrForm::Hex));
        let d = parse(b"<</A [1 2.5 true null] /B<</C/D>> /E>>");
        let d = d.dict().unwrap();
        assert_eq!(d.get(b"E"), Some(&Object::Null));
        assert!(Lexer::new(b"[[[[", 0).object(0).is_err());
        assert!(Lexer::new(&[b'['; 10_000], 0).object(0).is_err());
    }

    #[test]
    fn streams() {
        let f = b"1 0 obj <</Length 3>> stream\r\nabc\nendstream endobj";
        let (id, o, _) = indirect_object(f, 0, &|_| None).unwrap();
        assert_eq!(id, (1, 0));
        let Object::Stream(s) = o else { panic!() };
        assert_eq!(s.data, b"abc");
        // Wrong length: found by the endstream keyword.
        let f = b"1 0 obj <</Length 99>> stream\nabcd\nendstream endobj";
        let (_, o, _) = indirect_object(f, 0, &|_| None).unwrap();
        let Object::Stream(s) = o else { panic!() };
        assert_eq!(s.data, b"abcd");
        assert!(indirect_object(b"1 0 obj <</Length 9>> stream\nab", 0, &|_| None).is_err());
    }
}
