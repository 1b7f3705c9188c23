//! `cipherlab vectors`: the JSON-lines vector protocol of DESIGN.md.
//!
//! One request per line, one answer per line, in order. A request that cannot be served
//! gets `{"error": ...}` and the run goes on; only input that is not JSON makes the exit
//! code non-zero (after every line has been answered).

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::registry::{self, Entry};

/// Options of `cipherlab vectors`.
#[derive(clap::Args)]
pub struct Args {
    /// Read requests from this file instead of standard input.
    #[arg(long, short)]
    input: Option<PathBuf>,
}

/// One request. Unknown fields are refused, so a vector never goes half-checked.
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
    let entry = registry::lookup(&req.alg).ok_or_else(|| {
        let known: Vec<_> = registry::names().collect();
        format!(
            "unknown algorithm \"{}\" (known: {})",
            req.alg,
            known.join(", ")
        )
    })?;
    let mut out = Map::new();
    match (entry, req.op.as_str()) {
        (Entry::Aead(ops), "encrypt") => {
            let (ct, tag) = (ops.seal)(
                &hex_field("key", &req.key)?,
                &hex_field("nonce", &req.nonce)?,
                &optional_hex("ad", &req.ad)?,
                &hex_field("pt", &req.pt)?,
            )?;
            out.insert("ct".into(), hex::encode(ct).into());
            out.insert("tag".into(), hex::encode(tag).into());
        }
        (Entry::Aead(ops), "decrypt") => {
            let pt = (ops.open)(
                &hex_field("key", &req.key)?,
                &hex_field("nonce", &req.nonce)?,
                &optional_hex("ad", &req.ad)?,
                &hex_field("ct", &req.ct)?,
                &hex_field("tag", &req.tag)?,
            )?;
            out.insert("pt".into(), hex::encode(pt).into());
        }
        (Entry::Hash(op), "hash") => {
            let digest = op(
                &hex_field("msg", &req.msg)?,
                req.outlen,
                &optional_hex("custom", &req.custom)?,
            )?;
            out.insert("digest".into(), hex::encode(digest).into());
        }
        (Entry::Aead(_), op) => {
            return Err(format!(
                "op \"{op}\" is not one of encrypt, decrypt for an AEAD"
            ));
        }
        (Entry::Hash(_), op) => return Err(format!("op \"{op}\" is not hash for a hash or XOF")),
    }
    Ok(out)
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

/// Runs the protocol from `args.input` or stdin to stdout.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let reader: Box<dyn BufRead> = match &args.input {
        Some(path) => Box::new(BufReader::new(
            File::open(path).with_context(|| format!("cannot open {}", path.display()))?,
        )),
        None => Box::new(io::stdin().lock()),
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let mut malformed = 0usize;
    for (n, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("reading line {}", n + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = answer(&line).unwrap_or_else(|err| {
            malformed += 1;
            err
        });
        serde_json::to_writer(&mut out, &reply)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    if malformed > 0 {
        eprintln!("cipherlab vectors: {malformed} line(s) were not JSON");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
