//! HTML pieces: escaping, `data:` URIs for embedded images, tables, and the page's
//! style sheet. Everything a run stored (cipher names, captions, a user's file labels,
//! command lines) reaches the page only through [`escape`].

use std::fmt::Write;

use crate::artifact::{Table, cell_text};
use crate::verdict::Agreement;

/// `s` with `& < > " '` replaced by entities: safe in element content and in quoted
/// attribute values alike.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Standard base64 (RFC 4648, section 4) with padding.
pub fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A `data:` URI, so the page carries its images and needs no other file.
pub fn data_uri(media_type: &str, data: &[u8]) -> String {
    format!("data:{media_type};base64,{}", base64(data))
}

/// The CSS class of a verdict cell: `agrees`, `differs` or `cant-tell`.
pub fn verdict_class(a: Agreement) -> &'static str {
    match a {
        Agreement::Agrees => "agrees",
        Agreement::Differs => "differs",
        Agreement::CantTell => "cant-tell",
    }
}

/// A stored table as HTML: numbers right-aligned, the note as its caption's footnote.
pub fn table(caption: &str, t: &Table) -> String {
    let mut out = String::from("<table>");
    if !caption.is_empty() {
        let _ = write!(out, "<caption>{}</caption>", escape(caption));
    }
    out.push_str("<thead><tr>");
    for c in &t.columns {
        let _ = write!(out, "<th>{}</th>", escape(c));
    }
    out.push_str("</tr></thead><tbody>");
    for row in &t.rows {
        out.push_str("<tr>");
        for v in row {
            let class = match v.verdict() {
                Some(a) => format!(" class=\"verdict {}\"", verdict_class(a)),
                None if v.is_number() => " class=\"num\"".to_string(),
                None => String::new(),
            };
            let _ = write!(out, "<td{class}>{}</td>", escape(&cell_text(v)));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    if !t.note.is_empty() {
        let _ = write!(out, "<p class=\"note\">{}</p>", escape(&t.note));
    }
    out
}

/// Key-value rows (the machine block, validity figures).
pub fn facts(rows: &[(&str, String)]) -> String {
    let mut out = String::from("<table class=\"facts\"><tbody>");
    for (k, v) in rows {
        let _ = write!(out, "<tr><th>{}</th><td>{}</td></tr>", escape(k), escape(v));
    }
    out.push_str("</tbody></table>");
    out
}

/// The page's whole style sheet, inline: the report must open without a network.
pub const CSS: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1180px;padding:0 12px 40px;color:#222;background:#fff}
h1{font-size:1.6em;margin:.8em 0 .2em}h2{border-bottom:2px solid #39506b;padding-bottom:3px;margin-top:1.8em}
h3{font-size:1.05em;margin:1.2em 0 .4em}
table{border-collapse:collapse;margin:.4em 0 .8em;font-size:.86em}
th,td{border:1px solid #ddd;padding:2px 7px;text-align:left;vertical-align:top}
thead th{background:#f1f4f8}td.num{text-align:right;font-variant-numeric:tabular-nums}td.verdict.differs{color:#b00020;font-weight:600}td.verdict.agrees{color:#1b6e20}
caption{text-align:left;font-weight:bold;padding:2px 0}
table.facts th{background:#f7f7f7;font-weight:normal;color:#555}
p.note,p.source{color:#555;font-size:.86em;margin:.2em 0 .8em}
.warn{color:#a33}.muted{color:#777}
.row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
.card{border:1px solid #e3e3e3;border-radius:4px;padding:6px;background:#fcfcfc}
figure{margin:0}figcaption{font-size:.82em;color:#444;max-width:380px}
img.picture{image-rendering:pixelated;width:320px;border:1px solid #ccc}
svg.plot{max-width:100%;height:auto;display:block;margin:.4em 0}
nav a{margin-right:.8em}
";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape(r#"<script>alert("x&'y")</script>"#),
            "&lt;script&gt;alert(&quot;x&amp;&#39;y&quot;)&lt;/script&gt;"
        );
        assert_eq!(escape("µs ok"), "µs ok");
    }

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        // RFC 4648, section 10.
        for (raw, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(raw.as_bytes()), enc, "{raw}");
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn tables_escape_cells_and_align_numbers() {
        let mut t = Table::new(&["cipher", "ratio"]);
        t.row(vec![Value::from("<b>"), serde_json::json!(1.5)]);
        t.note = "a & b".into();
        let h = table("cap", &t);
        assert!(h.contains("<td>&lt;b&gt;</td>"), "{h}");
        assert!(h.contains("<td class=\"num\">1.50</td>"), "{h}");
        assert!(h.contains("a &amp; b"));
    }
}
