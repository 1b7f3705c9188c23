//! The unencrypted wrapper document of ISO 32000-2 §7.6.7: an ordinary PDF 2.0 file whose
//! one page says what the file is and how to open it, carrying the encrypted document (the
//! "payload") as an embedded file.
//!
//! The payload's file specification has /AFRelationship /EncryptedPayload and an /EP
//! encrypted payload dictionary (Table 28: /Type /EncryptedPayload, /Subtype the
//! cryptographic filter -- [`crate::lwc::HANDLER`] -- and its /Version); the catalog lists
//! it in /AF (associated files) and in the /EmbeddedFiles name tree, and opens the
//! attachments panel. A reader without the filter shows the cover page; `cipherlab pdf
//! decrypt` finds the payload through the catalog's /AF and decrypts it.
//!
//! No /Collection dictionary is written: a portfolio-aware reader would then try to show
//! the payload, which it cannot open, instead of the cover page. The wrapper carries
//! nothing of the original document: not its /Info (title, author), not its file name
//! (the payload is always `encrypted-payload.pdf`).

use std::collections::BTreeMap;

use crate::document::Document;
use crate::error::{Error, Result};
use crate::filters;
use crate::limits::Limits;
use crate::lwc::{HANDLER, LwcCipher, VERSION};
use crate::object::{Dict, Object, StrForm, Stream, write_object};
use crate::random;
use crate::writer::{self, Layout};

/// The embedded file's name.
pub const PAYLOAD_NAME: &str = "encrypted-payload.pdf";

/// An encrypted payload found in a wrapper document.
#[derive(Clone, Debug)]
pub struct Payload {
    /// /EP /Subtype: the cryptographic filter.
    pub subtype: String,
    /// /EP /Version, if given.
    pub version: Option<String>,
    /// The embedded file's name (/UF or /F).
    pub name: String,
    /// The payload document's bytes.
    pub bytes: Vec<u8>,
}

fn text(s: &str) -> Object {
    Object::Str(s.as_bytes().to_vec(), StrForm::Literal)
}

/// The cover page's lines: (font, size, text).
fn cover_lines(cipher: LwcCipher) -> Vec<(&'static str, i64, String)> {
    let c = cipher.name();
    let body = [
        "This PDF file is a wrapper (ISO 32000-2, section 7.6.7). The document itself is",
        &format!("attached to it as \"{PAYLOAD_NAME}\", encrypted with {c}, an"),
        "authenticated lightweight cipher that PDF readers do not support yet.",
        "",
        "Every string and stream of the document is encrypted and authenticated: any",
        "change to it is detected, and nothing of it is shown unless every part checks out.",
        "",
        "To open it, use cipherlab with the document's user or owner password (it is asked",
        "for; --password-file FILE reads it from a file):",
        "",
        "    cipherlab pdf decrypt THIS-FILE.pdf -o document.pdf --require-authenticated",
        "",
        "--require-authenticated refuses a file that anyone could have made in its place: one",
        "that is not encrypted, or that opens without a password.",
        "",
        "and to see how it is encrypted, without the password:",
        "",
        "    cipherlab pdf info THIS-FILE.pdf",
        "",
        &format!(
            "Encryption: security handler /{HANDLER} version {VERSION}, crypt filter /{} ({c}),",
            cipher.cfm()
        ),
        "a fresh nonce and a tag for every string and stream, keys from the passwords by",
        "the PDF 2.0 (revision 6) algorithm.",
    ];
    let mut v = vec![("F2", 20, "Encrypted document".to_string())];
    v.extend(body.iter().map(|l| ("F1", 11, (*l).to_string())));
    v
}

/// Wraps `payload` (an encrypted PDF) in a PDF 2.0 wrapper document.
pub fn wrap(payload: &[u8], cipher: LwcCipher) -> Result<Vec<u8>> {
    let mut o: BTreeMap<u32, (u16, Object)> = BTreeMap::new();
    // The cover page's content.
    let mut content = b"BT 72 770 Td".to_vec();
    let mut first = true;
    for (font, size, line) in cover_lines(cipher) {
        let _ = std::io::Write::write_fmt(
            &mut content,
            format_args!(" /{font} {size} Tf {} TL", size + size / 3 + 2),
        );
        if !first {
            content.extend_from_slice(b" T*");
        }
        first = false;
        if !line.is_empty() {
            content.push(b' ');
            write_object(&mut content, &text(&line));
            content.extend_from_slice(b" Tj");
        }
    }
    content.extend_from_slice(b" ET\n");
    let mut cs = Dict::new();
    cs.set(b"Filter", Object::name("FlateDecode"));
    o.insert(
        4,
        (
            0,
            Object::Stream(Box::new(Stream {
                dict: cs,
                data: filters::deflate(&content),
            })),
        ),
    );
    for (num, base) in [(6, "Helvetica"), (7, "Helvetica-Bold")] {
        let mut f = Dict::new();
        f.set(b"Type", Object::name("Font"));
        f.set(b"Subtype", Object::name("Type1"));
        f.set(b"BaseFont", Object::name(base));
        f.set(b"Encoding", Object::name("WinAnsiEncoding"));
        o.insert(num, (0, Object::Dict(f)));
    }
    let mut fonts = Dict::new();
    fonts.set(b"F1", Object::Ref(6, 0));
    fonts.set(b"F2", Object::Ref(7, 0));
    let mut res = Dict::new();
    res.set(b"Font", Object::Dict(fonts));
    let mut page = Dict::new();
    page.set(b"Type", Object::name("Page"));
    page.set(b"Parent", Object::Ref(2, 0));
    page.set(
        b"MediaBox",
        Object::Array([0, 0, 595, 842].map(Object::Int).to_vec()),
    );
    page.set(b"Resources", Object::Dict(res));
    page.set(b"Contents", Object::Ref(4, 0));
    o.insert(3, (0, Object::Dict(page)));
    let mut pages = Dict::new();
    pages.set(b"Type", Object::name("Pages"));
    pages.set(b"Kids", Object::Array(vec![Object::Ref(3, 0)]));
    pages.set(b"Count", Object::Int(1));
    o.insert(2, (0, Object::Dict(pages)));
    // The payload: an embedded file stream (ciphertext: not compressed).
    let mut params = Dict::new();
    params.set(b"Size", Object::Int(payload.len() as i64));
    params.set(
        b"CheckSum",
        Object::Str(crate::security::md5(&[payload]).to_vec(), StrForm::Hex),
    );
    let mut ef = Dict::new();
    ef.set(b"Type", Object::name("EmbeddedFile"));
    ef.set(b"Subtype", Object::name("application/pdf"));
    ef.set(b"Params", Object::Dict(params));
    o.insert(
        8,
        (
            0,
            Object::Stream(Box::new(Stream {
                dict: ef,
                data: payload.to_vec(),
            })),
        ),
    );
    let mut ep = Dict::new();
    ep.set(b"Type", Object::name("EncryptedPayload"));
    ep.set(b"Subtype", Object::name(HANDLER));
    ep.set(b"Version", Object::name(VERSION.to_string()));
    let mut efs = Dict::new();
    efs.set(b"F", Object::Ref(8, 0));
    efs.set(b"UF", Object::Ref(8, 0));
    let mut fs = Dict::new();
    fs.set(b"Type", Object::name("Filespec"));
    fs.set(b"F", text(PAYLOAD_NAME));
    fs.set(b"UF", text(PAYLOAD_NAME));
    fs.set(
        b"Desc",
        text(&format!(
            "The encrypted document ({}, /{HANDLER}); open it with cipherlab pdf decrypt",
            cipher.name()
        )),
    );
    fs.set(b"AFRelationship", Object::name("EncryptedPayload"));
    fs.set(b"EF", Object::Dict(efs));
    fs.set(b"EP", Object::Dict(ep));
    o.insert(5, (0, Object::Dict(fs)));
    let mut tree = Dict::new();
    tree.set(
        b"Names",
        Object::Array(vec![text(PAYLOAD_NAME), Object::Ref(5, 0)]),
    );
    let mut names = Dict::new();
    names.set(b"EmbeddedFiles", Object::Dict(tree));
    let mut cat = Dict::new();
    cat.set(b"Type", Object::name("Catalog"));
    cat.set(b"Pages", Object::Ref(2, 0));
    cat.set(b"Names", Object::Dict(names));
    cat.set(b"AF", Object::Array(vec![Object::Ref(5, 0)]));
    cat.set(b"PageMode", Object::name("UseAttachments"));
    o.insert(1, (0, Object::Dict(cat)));
    let mut info = Dict::new();
    info.set(b"Title", text("Encrypted document"));
    info.set(b"Producer", text("cipherlab"));
    o.insert(9, (0, Object::Dict(info)));
    let id: [u8; 16] = random::bytes()?;
    let mut trailer = Dict::new();
    trailer.set(b"Root", Object::Ref(1, 0));
    trailer.set(b"Info", Object::Ref(9, 0));
    trailer.set(
        b"ID",
        Object::Array(vec![
            Object::Str(id.to_vec(), StrForm::Hex),
            Object::Str(id.to_vec(), StrForm::Hex),
        ]),
    );
    let doc = Document {
        version: "2.0".into(),
        trailer,
        objects: o,
        compressed: Default::default(),
        had_object_streams: false,
        had_xref_stream: false,
        linearized: false,
        warnings: Vec::new(),
        in_the_clear: Vec::new(),
        strings_decrypted: 0,
        streams_decrypted: 0,
    };
    Ok(writer::write(
        doc,
        Layout {
            object_streams: false,
            xref_stream: false,
        },
    ))
}

/// `o`, or the object it refers to.
fn resolve<'a>(doc: &'a Document, o: &'a Object) -> &'a Object {
    match o {
        Object::Ref(n, g) => match doc.objects.get(n) {
            Some((og, obj)) if og == g => obj,
            _ => &Object::Null,
        },
        other => other,
    }
}

/// The encrypted payload of a wrapper document: the first entry of the catalog's /AF
/// with /AFRelationship /EncryptedPayload. `Ok(None)` for any other document. The
/// payload decodes within `limits` like every other stream: a small wrapper must not
/// inflate into more memory than `--max-stream-mib` allows.
pub fn find(doc: &Document, limits: &Limits) -> Result<Option<Payload>> {
    let Some(root) = doc.trailer.get(b"Root") else {
        return Ok(None);
    };
    let Some(cat) = resolve(doc, root).dict() else {
        return Ok(None);
    };
    let Some(af) = cat.get(b"AF") else {
        return Ok(None);
    };
    let Object::Array(af) = resolve(doc, af) else {
        return Ok(None);
    };
    for f in af {
        let Some(fs) = resolve(doc, f).dict() else {
            continue;
        };
        if fs.name(b"AFRelationship") != Some(b"EncryptedPayload") {
            continue;
        }
        let bad =
            |m: &str| Error::Damaged(format!("the encrypted payload's file specification {m}"));
        let ep = fs
            .get(b"EP")
            .map(|e| resolve(doc, e))
            .and_then(Object::dict)
            .ok_or_else(|| bad("has no /EP encrypted payload dictionary"))?;
        let subtype = ep
            .name(b"Subtype")
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .ok_or_else(|| bad("has no /EP /Subtype (the cryptographic filter)"))?;
        let version = match ep.get(b"Version") {
            Some(Object::Name(v)) => Some(String::from_utf8_lossy(v).into_owned()),
            Some(Object::Str(v, _)) => Some(String::from_utf8_lossy(v).into_owned()),
            Some(Object::Int(i)) => Some(i.to_string()),
            _ => None,
        };
        let name = [&b"UF"[..], b"F"]
            .iter()
            .find_map(|k| fs.get(k).and_then(|o| resolve(doc, o).as_str()))
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_default();
        let ef = fs
            .get(b"EF")
            .map(|e| resolve(doc, e))
            .and_then(Object::dict)
            .ok_or_else(|| bad("has no /EF embedded file"))?;
        let Some(Object::Stream(s)) = [&b"UF"[..], b"F"]
            .iter()
            .find_map(|k| ef.get(k).map(|o| resolve(doc, o)))
        else {
            return Err(bad("has no embedded file stream"));
        };
        let bytes = if s.dict.get(b"Filter").is_some() {
            filters::decode_capped(
                &s.dict,
                &s.data,
                "the encrypted payload",
                limits.stream_bytes,
            )?
        } else {
            s.data.clone()
        };
        return Ok(Some(Payload {
            subtype,
            version,
            name,
            bytes,
        }));
    }
    Ok(None)
}
