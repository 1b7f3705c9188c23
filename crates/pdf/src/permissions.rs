//! User-access permissions: the /P value of ISO 32000-2 Table 22, from words and back.

use crate::error::{Error, Result};

/// The permission bits of /P (ISO 32000-2 Table 22), 1-based bit number and a word.
pub const PERMISSION_BITS: [(u32, &str); 8] = [
    (3, "print"),
    (4, "modify"),
    (5, "copy"),
    (6, "annotate"),
    (9, "fill-forms"),
    (10, "extract-accessibility"),
    (11, "assemble"),
    (12, "print-high-quality"),
];

/// Bits that must be set whatever is granted: 7 and 8 (reserved, 1) and 13-32 (1 for
/// revision 3 and later). Bits 1 and 2 must be 0.
const RESERVED_ONES: u32 = 0xFFFF_F0C0;

/// The permissions /P grants, as words, each with whether it is granted.
pub fn permissions(p: i32) -> Vec<(&'static str, bool)> {
    PERMISSION_BITS
        .iter()
        .map(|&(bit, w)| (w, p as u32 & (1 << (bit - 1)) != 0))
        .collect()
}

/// /P granting everything (-4, as qpdf and Acrobat write it).
pub const ALL: i32 = (RESERVED_ONES | 0x0F3C) as i32;

/// Parses a permission list into /P.
///
/// The list is comma-separated: `all`, `none`, permission words (`print`, `modify`,
/// `copy`, `annotate`, `fill-forms`, `extract-accessibility`, `assemble`,
/// `print-high-quality`) to grant, and `-word` to deny. It starts from nothing granted,
/// except when its first item is a denial (`-modify,-copy` means everything but those).
/// Items apply left to right: `all,-modify` and `-modify` are the same.
pub fn parse(list: &str) -> Result<i32> {
    let items: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if items.is_empty() {
        return Err(Error::Invalid(
            "--permissions is empty; give `all`, `none` or a list such as `print,copy`".into(),
        ));
    }
    let mut granted: u32 = if items[0].starts_with('-') { 0x0F3C } else { 0 };
    for item in items {
        let (deny, word) = match item.strip_prefix('-') {
            Some(w) => (true, w),
            None => (false, item),
        };
        let bits = match word.to_ascii_lowercase().as_str() {
            "all" => 0x0F3C,
            "none" => {
                if deny {
                    return Err(Error::Invalid(
                        "--permissions: `-none` means nothing; use `all`".into(),
                    ));
                }
                granted = 0;
                continue;
            }
            w => match PERMISSION_BITS.iter().find(|(_, name)| *name == w) {
                Some(&(bit, _)) => 1u32 << (bit - 1),
                None => {
                    let known: Vec<&str> = PERMISSION_BITS.iter().map(|(_, n)| *n).collect();
                    return Err(Error::Invalid(format!(
                        "--permissions: unknown permission `{word}`; the permissions are {}, \
                         and `all` or `none`",
                        known.join(", ")
                    )));
                }
            },
        };
        if deny {
            granted &= !bits;
        } else {
            granted |= bits;
        }
    }
    Ok((RESERVED_ONES | granted) as i32)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn words_to_p() {
        assert_eq!(parse("all").unwrap(), -4);
        assert_eq!(ALL, -4);
        assert_eq!(parse("none").unwrap(), 0xFFFF_F0C0_u32 as i32);
        assert_eq!(parse("-modify").unwrap(), parse("all,-modify").unwrap());
        let p = parse("print,copy").unwrap();
        let granted: Vec<&str> = permissions(p)
            .into_iter()
            .filter(|x| x.1)
            .map(|x| x.0)
            .collect();
        assert_eq!(granted, ["print", "copy"]);
        assert!(parse("fly").unwrap_err().to_string().contains("`fly`"));
        assert!(parse(" , ").is_err());
        // Everything but printing: bits 3 and 12 cleared from 0xFFFFFFFC.
        assert_eq!(parse("all,-print,-print-high-quality").unwrap(), -2056);
    }
}
