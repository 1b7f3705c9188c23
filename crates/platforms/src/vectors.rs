//! The JSON-lines vector protocol of DESIGN.md, answered by cipherlab's catalogue
//! in-process: what `cipherlab vectors` serves, and what the platform runners' answers are
//! compared with ([`crate::conformance`]).
//!
//! [`answer`] takes one request line and gives one answer; a request that cannot be
//! served gets `{"error": ...}`.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use cipherlab_ciphers::{AlgorithmId, CipherSpec, Error, Padding, providers};

/// One request. Unknown fields are refused, so a vector never goes half-checked.
/// Hashes take `msg` (+ `outlen`, `custom`); ciphers take `key`, `iv`/`nonce`, `ad`,
/// `pt` or `ct` (+ `tag` for AEADs), and optionally `padding`, `effective_bits`, `provider`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// Echoed back by [`answer`] from the raw JSON; declared so it is not "unknown".
    #[serde(default, rename = "id")]
    _id: Option<serde::de::IgnoredAny>,
    alg: String,
    op: String,
    key: Option<String>,
    nonce: Option<String>,
    /// IV for block modes (an alias of `nonce`: give one or the other).
    iv: Option<String>,
    /// `pkcs7` (default for ECB/CBC) or `none`.
    padding: Option<String>,
    /// RC2 effective key bits (RFC 2268); default: the key's bits.
    effective_bits: Option<u16>,
    /// Implementation to use (`rustcrypto`, `openssl`, `cipherlab`, ...); default: the fastest.
    provider: Option<String>,
    ad: Option<String>,
    pt: Option<String>,
    ct: Option<String>,
    tag: Option<String>,
    msg: Option<String>,
    outlen: Option<usize>,
    /// Customization string of a CXOF.
    custom: Option<String>,
}

fn hex_field(name: &str, value: &Option<String>) -> Result<Vec<u8>, String> {
    let Some(v) = value else {
        return Err(format!("missing field \"{name}\""));
    };
    hex::decode(v).map_err(|e| format!("field \"{name}\" is not hex: {e}"))
}

fn optional_hex(name: &str, value: &Option<String>) -> Result<Vec<u8>, String> {
    if value.is_some() {
        hex_field(name, value)
    } else {
        Ok(Vec::new())
    }
}

/// Serves one request; the answer's fields other than `id`.
fn serve(req: &Request) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    let hash = cipherlab_ciphers::hashes::find(&req.alg);
    match (hash.is_some(), req.op.as_str()) {
        (true, "hash") | (false, "encrypt" | "decrypt") => {}
        (true, op) => {
            return Err(format!(
                "{} is a hash: op must be \"hash\", not \"{op}\"",
                req.alg
            ));
        }
        (false, op) => {
            return Err(format!(
                "op \"{op}\" is not one of encrypt, decrypt for a cipher"
            ));
        }
    }
    refuse_unused_fields(req)?;
    if let Some(hash) = hash {
        let digest = hash
            .digest(
                &hex_field("msg", &req.msg)?,
                req.outlen,
                &optional_hex("custom", &req.custom)?,
            )
            .map_err(|e| e.to_string())?;
        out.insert("digest".into(), hex::encode(digest).into());
        return Ok(out);
    }
    let spec = cipher_spec(req)?;
    let key = hex_field("key", &req.key)?;
    let iv = match (&req.iv, &req.nonce) {
        (Some(_), Some(_)) => return Err("give \"iv\" or \"nonce\", not both".into()),
        (Some(_), None) => hex_field("iv", &req.iv)?,
        (None, _) => optional_hex("nonce", &req.nonce)?,
    };
    let ad = optional_hex("ad", &req.ad)?;
    let mut cipher =
        providers::init(&spec, &key, req.provider.as_deref()).map_err(|e| e.to_string())?;
    // The op is "encrypt" or "decrypt" (checked above).
    match req.op == "encrypt" {
        true => {
            let pt = hex_field("pt", &req.pt)?;
            let mut buf = pt;
            let msg_len = buf.len();
            buf.resize(spec.output_len(msg_len), 0);
            let n = cipher
                .encrypt(&iv, &ad, &mut buf, msg_len)
                .map_err(|e| e.to_string())?;
            let (ct, tag) = buf[..n].split_at(n - spec.tag_len());
            out.insert("ct".into(), hex::encode(ct).into());
            if spec.is_aead() {
                out.insert("tag".into(), hex::encode(tag).into());
            }
        }
        false => {
            let mut buf = hex_field("ct", &req.ct)?;
            if spec.is_aead() {
                let tag = hex_field("tag", &req.tag)?;
                if tag.len() != spec.tag_len() {
                    return Err(format!(
                        "tag must be {} bytes, got {}",
                        spec.tag_len(),
                        tag.len()
                    ));
                }
                buf.extend_from_slice(&tag);
            } else if req.tag.is_some() {
                return Err(format!("{spec} has no tag"));
            }
            let n = cipher.decrypt(&iv, &ad, &mut buf).map_err(|e| match e {
                Error::Authentication => "authentication failed".to_string(),
                e => e.to_string(),
            })?;
            out.insert("pt".into(), hex::encode(&buf[..n]).into());
        }
    }
    Ok(out)
}

/// Refuses fields the requested operation would not read (a vector file must not go
/// half-checked because a field was silently ignored).
fn refuse_unused_fields(req: &Request) -> Result<(), String> {
    let present = [
        ("key", req.key.is_some()),
        ("nonce", req.nonce.is_some()),
        ("iv", req.iv.is_some()),
        ("ad", req.ad.is_some()),
        ("pt", req.pt.is_some()),
        ("ct", req.ct.is_some()),
        ("tag", req.tag.is_some()),
        ("msg", req.msg.is_some()),
        ("outlen", req.outlen.is_some()),
        ("custom", req.custom.is_some()),
        ("padding", req.padding.is_some()),
        ("effective_bits", req.effective_bits.is_some()),
        ("provider", req.provider.is_some()),
    ];
    let cipher_common: &[&str] = &[
        "key",
        "nonce",
        "iv",
        "ad",
        "padding",
        "effective_bits",
        "provider",
    ];
    let allowed: Vec<&str> = match req.op.as_str() {
        "hash" => vec!["msg", "outlen", "custom"],
        "encrypt" => [cipher_common, &["pt"]].concat(),
        "decrypt" => [cipher_common, &["ct", "tag"]].concat(),
        _ => return Ok(()), // unreachable: `serve` checks the op first
    };
    let unused: Vec<&str> = present
        .iter()
        .filter(|(name, here)| *here && !allowed.contains(name))
        .map(|(name, _)| *name)
        .collect();
    if unused.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "field(s) {} not used by op \"{}\"",
            unused.join(", "),
            req.op
        ))
    }
}

/// The catalogue spec a request names, with its padding and RC2 options.
fn cipher_spec(req: &Request) -> Result<CipherSpec, String> {
    let mut spec = CipherSpec::parse(&req.alg).map_err(|e| match e {
        Error::UnknownCipher {
            name,
            mut suggestions,
        } => {
            suggestions.extend(
                cipherlab_ciphers::HASHES
                    .iter()
                    .map(|h| h.name)
                    .filter(|h| strsim_close(h, &name))
                    .map(String::from),
            );
            Error::UnknownCipher { name, suggestions }.to_string()
        }
        e => e.to_string(),
    })?;
    spec.padding = match req.padding.as_deref() {
        None | Some("pkcs7") | Some("pkcs5") => Padding::Pkcs7,
        Some("none") => Padding::None,
        Some(p) => return Err(format!("padding \"{p}\" is not pkcs7 or none")),
    };
    if let Some(bits) = req.effective_bits {
        if spec.algorithm.id != AlgorithmId::Rc2 || !(1..=1024).contains(&bits) {
            return Err("effective_bits is for rc2 only, 1 to 1024".into());
        }
        spec.effective_bits = Some(bits);
    }
    Ok(spec)
}

/// Whether a hash name looks like what was typed (shares its first word).
fn strsim_close(known: &str, typed: &str) -> bool {
    typed
        .split('-')
        .next()
        .is_some_and(|w| !w.is_empty() && known.starts_with(w))
}

/// Answers one input line; `Err` carries the answer when the line was not JSON.
pub fn answer(line: &str) -> Result<Value, Value> {
    let value: Value =
        serde_json::from_str(line).map_err(|e| json!({ "error": format!("not JSON: {e}") }))?;
    let id = value.get("id").cloned();
    let result = serde_json::from_value::<Request>(value)
        .map_err(|e| format!("bad request: {e}"))
        .and_then(|req| serve(&req));
    let mut out = Map::new();
    if let Some(id) = id {
        out.insert("id".into(), id);
    }
    match result {
        Ok(fields) => out.extend(fields),
        Err(e) => {
            out.insert("error".into(), e.into());
        }
    }
    Ok(Value::Object(out))
}
