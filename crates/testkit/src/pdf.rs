//! The developer PDF corpus (`../shared/pdf`) and the table of its `README.md`: one row per
//! file with its size, structure, encryption dictionary and passwords.
//!
//! The table's columns are found by their headers (`file`, `bytes`, `structure`,
//! `encryption`, `user pw`, `owner pw`); a cell this parser does not understand is an
//! error, so the tests never read a password or an /Encrypt value that was misread.

use std::path::{Path, PathBuf};

use crate::kat::workspace_dir;

/// The corpus folder, `../shared/pdf` beside the workspace, if it is there (with its
/// README). Callers print their own `SKIP` line when it is not.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = workspace_dir().join("../shared/pdf");
    dir.join("README.md").is_file().then_some(dir)
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// File name inside the folder.
    pub file: String,
    /// Size in bytes.
    pub bytes: u64,
    /// The structure column ("22 objs (13 in ObjStm), xref stream", ...).
    pub structure: String,
    /// The /Encrypt dictionary, for an encrypted file.
    pub enc: Option<Encryption>,
    /// The user password (`Some("")` for an empty one), when known.
    pub user: Option<String>,
    /// The owner password, when known.
    pub owner: Option<String>,
}

impl Row {
    /// The password that opens an encrypted file (the user password, else the owner's);
    /// `None` for a file that is not encrypted.
    pub fn open_password(&self) -> Option<String> {
        self.enc
            .as_ref()
            .map(|_| self.user.clone().or(self.owner.clone()).unwrap_or_default())
    }
}

/// The values of the /Encrypt dictionary the table gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encryption {
    /// /V.
    pub v: i64,
    /// /R.
    pub r: i64,
    /// /Length in bits.
    pub length: i64,
    /// The crypt filter method (`AESV2`, `AESV3`), `None` below V 4.
    pub cfm: Option<String>,
    /// /P.
    pub p: i64,
    /// /EncryptMetadata (true when absent).
    pub encrypt_metadata: bool,
}

/// The table of `dir/README.md`; panics if it is missing or malformed, or names a file
/// that is not in `dir`.
pub fn readme_rows(dir: &Path) -> Vec<Row> {
    let path = dir.join("README.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let rows = parse_table(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for r in &rows {
        assert!(
            dir.join(&r.file).is_file(),
            "{}: the table names {}, which is not in the folder",
            path.display(),
            r.file
        );
    }
    rows
}

fn cells(line: &str) -> Vec<&str> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(str::trim).collect()
}

/// Parses the table (the one whose header has a `file` column) out of README text.
pub fn parse_table(text: &str) -> Result<Vec<Row>, String> {
    let mut lines = text.lines().enumerate();
    let header = lines
        .by_ref()
        .find(|(_, l)| l.starts_with('|') && cells(l).first() == Some(&"file"))
        .map(|(_, l)| cells(l))
        .ok_or("no table with a `file` column")?;
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or(format!("the table has no `{name}` column"))
    };
    let (file, bytes, structure) = (col("file")?, col("bytes")?, col("structure")?);
    let (encryption, user, owner) = (col("encryption")?, col("user pw")?, col("owner pw")?);
    let mut rows = Vec::new();
    for (i, line) in lines.skip(1).take_while(|(_, l)| l.starts_with('|')) {
        let at = |e: String| format!("line {}: {e}", i + 1);
        let c = cells(line);
        if c.len() != header.len() {
            return Err(at(format!(
                "{} cells, the header has {}",
                c.len(),
                header.len()
            )));
        }
        let name = c[file].trim_matches('`');
        rows.push(Row {
            file: name.to_string(),
            bytes: c[bytes]
                .parse()
                .map_err(|e| at(format!("bytes {:?}: {e}", c[bytes])))?,
            structure: c[structure].to_string(),
            enc: encryption_cell(c[encryption]).map_err(at)?,
            user: password_cell(c[user]).map_err(at)?,
            owner: password_cell(c[owner]).map_err(at)?,
        });
    }
    if rows.is_empty() {
        return Err("the table has no rows".into());
    }
    Ok(rows)
}

/// `` `pw` `` is a password, `(empty)` the empty one, `-` (not encrypted) and `unknown`
/// none.
fn password_cell(cell: &str) -> Result<Option<String>, String> {
    match cell {
        "-" | "unknown" => Ok(None),
        "(empty)" => Ok(Some(String::new())),
        c => c
            .strip_prefix('`')
            .and_then(|c| c.strip_suffix('`'))
            .map(|p| Some(p.to_string()))
            .ok_or(format!("password cell {c:?}")),
    }
}

/// `-`, or `V=5 R=6 Length=256 CFM=AESV3 StmF=/StdCF StrF=/StdCF
/// EncryptMetadata=true(default) P=-3616` (`CFM=(none: V<4)` below V 4).
fn encryption_cell(cell: &str) -> Result<Option<Encryption>, String> {
    if cell == "-" {
        return Ok(None);
    }
    let (mut v, mut r, mut length, mut p) = (None, None, None, None);
    let mut cfm = None;
    let mut encrypt_metadata = true;
    let int = |k: &str, s: &str| {
        s.parse::<i64>()
            .map_err(|e| format!("{k}={s:?} in {cell:?}: {e}"))
    };
    for t in cell.replace("CFM=(none: V<4)", "CFM=-").split_whitespace() {
        let (k, val) = t
            .split_once('=')
            .ok_or(format!("{t:?} in encryption {cell:?}"))?;
        match k {
            "V" => v = Some(int(k, val)?),
            "R" => r = Some(int(k, val)?),
            "Length" => length = Some(int(k, val)?),
            "P" => p = Some(int(k, val)?),
            "CFM" => cfm = (val != "-").then(|| val.to_string()),
            "EncryptMetadata" => {
                encrypt_metadata = match val {
                    "true" | "true(default)" => true,
                    "false" => false,
                    _ => return Err(format!("EncryptMetadata={val:?} in {cell:?}")),
                }
            }
            // The crypt filters' names: always the standard one here, nothing to check.
            "StmF" | "StrF" if val == "/StdCF" => {}
            _ => return Err(format!("{t:?} in encryption {cell:?}")),
        }
    }
    let need = |x: Option<i64>, k: &str| x.ok_or(format!("no {k}= in {cell:?}"));
    Ok(Some(Encryption {
        v: need(v, "V")?,
        r: need(r, "R")?,
        length: need(length, "Length")?,
        cfm,
        p: need(p, "P")?,
        encrypt_metadata,
    }))
}

/// A classic PDF 1.4 file made from object bodies (object `i + 1` is `bodies[i]`) with a
/// correct `xref` table and a trailer of `/Size`, `/Root 1 0 R` and `trailer_extra`: the
/// tests' made files, which they then update, damage or encrypt.
pub fn classic_file(bodies: &[impl AsRef<str>], trailer_extra: &str) -> Vec<u8> {
    let mut f = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        offsets.push(f.len());
        f.extend_from_slice(format!("{} 0 obj\n{}\nendobj\n", i + 1, body.as_ref()).as_bytes());
    }
    let xref = f.len();
    f.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", bodies.len() + 1).as_bytes());
    for o in offsets {
        f.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    f.extend_from_slice(
        format!(
            "trailer\n<</Size {}/Root 1 0 R{trailer_extra}>>\nstartxref\n{xref}\n%%EOF\n",
            bodies.len() + 1
        )
        .as_bytes(),
    );
    f
}

/// Where the last `startxref` keyword of `f` is, and the offset it gives: what an
/// incremental update of a made file needs (`/Prev`). Panics where there is none.
pub fn last_startxref(f: &[u8]) -> (usize, usize) {
    let at = f
        .windows(9)
        .rposition(|w| w == b"startxref")
        .unwrap_or_else(|| panic!("no startxref"));
    let offset = String::from_utf8_lossy(&f[at + 9..])
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("startxref gives no offset"));
    (at, offset)
}

/// A one-page PDF 1.4 file saying "Hello hostile world" ([`classic_file`]).
pub fn minimal_pdf() -> Vec<u8> {
    let content = "BT /F1 24 Tf 72 700 Td (Hello hostile world) Tj ET";
    classic_file(
        &[
            "<</Type/Catalog/Pages 2 0 R>>",
            "<</Type/Pages/Kids[3 0 R]/Count 1>>",
            "<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>",
            &format!(
                "<</Length {}>>\nstream\n{content}\nendstream",
                content.len()
            ),
            "<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
        ],
        "",
    )
}

/// `hay` with the last `needle` in it replaced by `with`. Panics where there is none.
pub fn replace_once(hay: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let i = hay
        .windows(needle.len())
        .rposition(|w| w == needle)
        .unwrap_or_else(|| panic!("{:?} not found", String::from_utf8_lossy(needle)));
    let mut v = hay[..i].to_vec();
    v.extend_from_slice(with);
    v.extend_from_slice(&hay[i + needle.len()..]);
    v
}

/// Appends an incremental update to a classic file: new objects and a trailer derived
/// from the last one by `edit`.
pub fn append_update(
    f: &[u8],
    objs: &[(u32, &[u8])],
    edit: impl Fn(Vec<u8>) -> Vec<u8>,
) -> Vec<u8> {
    let t = f
        .windows(7)
        .rposition(|w| w == b"trailer")
        .unwrap_or_else(|| panic!("no trailer: append_update takes a classic file"));
    let (sx, prev) = last_startxref(f);
    let mut trailer = f[t + 7..sx].to_vec();
    let lt = trailer
        .windows(2)
        .position(|w| w == b"<<")
        .unwrap_or_else(|| panic!("the trailer has no dictionary"));
    trailer.splice(lt + 2..lt + 2, format!("/Prev {prev} ").bytes());
    let trailer = edit(trailer);
    let mut out = f.to_vec();
    out.push(b'\n');
    let mut xref = b"xref\n".to_vec();
    for (n, body) in objs {
        xref.extend_from_slice(format!("{n} 1\n{:010} 00000 n \n", out.len()).as_bytes());
        out.extend_from_slice(format!("{n} 0 obj\n").as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let x = out.len();
    out.extend_from_slice(&xref);
    out.extend_from_slice(b"trailer\n");
    out.extend_from_slice(&trailer);
    out.extend_from_slice(format!("\nstartxref\n{x}\n%%EOF\n").as_bytes());
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const TABLE: &str = "intro\n\n\
        | file | bytes | hdr | pages | structure | encryption | user pw | owner pw |\n\
        |---|---:|---|---|---|---|---|---|\n\
        | `a.pdf` | 10 | 1.5 | 1 | 13 objs | - | - | - |\n\
        | `b.pdf` | 20 | 1.4 | 1 | 112 objs, linearized | V=2 R=3 Length=128 CFM=(none: V<4) EncryptMetadata=true(default) P=-3104 | (empty) | `master` |\n\
        | `c.pdf` | 30 | 1.7 | 4 | 848 objs | V=4 R=4 Length=128 CFM=AESV2 StmF=/StdCF StrF=/StdCF EncryptMetadata=false P=-1052 | (empty) | unknown |\n\
        \nafter\n";

    #[test]
    fn rows_passwords_and_encryption() {
        let rows = parse_table(TABLE).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(
            (rows[0].enc.as_ref(), rows[0].open_password()),
            (None, None)
        );
        let b = rows[1].enc.as_ref().unwrap();
        assert_eq!((b.v, b.r, b.length, b.p), (2, 3, 128, -3104));
        assert_eq!((b.cfm.as_deref(), b.encrypt_metadata), (None, true));
        assert_eq!(rows[1].user.as_deref(), Some(""));
        assert_eq!(rows[1].owner.as_deref(), Some("master"));
        let c = rows[2].enc.as_ref().unwrap();
        assert_eq!(
            (c.cfm.as_deref(), c.encrypt_metadata),
            (Some("AESV2"), false)
        );
        assert_eq!((rows[2].owner.as_deref(), rows[2].bytes), (None, 30));
    }

    #[test]
    fn cells_it_does_not_understand_are_errors() {
        for (from, to) in [
            ("P=-3104", "P=x"),
            ("P=-3104", "Q=1"),
            ("`master`", "master"),
            ("| 20 |", "| twenty |"),
            ("| - | - | - |", "| - | - |"),
        ] {
            assert!(parse_table(&TABLE.replace(from, to)).is_err(), "{to}");
        }
        assert!(parse_table("no table").is_err());
    }

    #[test]
    fn the_shared_corpus_table_parses() {
        let Some(dir) = shared_dir() else {
            println!("SKIP: ../shared/pdf is missing");
            return;
        };
        let rows = readme_rows(&dir);
        let encrypted = rows.iter().filter(|r| r.enc.is_some()).count();
        println!(
            "../shared/pdf/README.md: {} files, {encrypted} encrypted",
            rows.len()
        );
        assert!(rows.len() >= 30 && encrypted >= 16);
    }
}
