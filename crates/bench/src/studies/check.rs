//! Nothing is timed before it is proven (STYLE.md: "a benchmark row exists only for an
//! implementation that passed its KAT"). The test suite runs the official vectors
//! through every provider; here, at plan time, each (cipher, provider) a study times
//! must (1) give its plaintext back and (2) agree byte for byte with every other
//! provider of the same cipher on the same key, IV and message. A provider that fails
//! is not timed and the run stops with the reason.

use std::cell::RefCell;
use std::collections::HashMap;

use cipherlab_ciphers::{CipherSpec, providers};

/// Lengths checked: empty, short, block edges, several blocks, an odd length.
const LENGTHS: [usize; 6] = [0, 1, 15, 16, 17, 1000];

/// What was proven in this process: (cipher, provider) -> outcome.
type Verdicts = HashMap<(String, &'static str), Result<(), String>>;

/// Proves `spec` through `provider` (`None`: the default) and returns the provider's
/// name. Results are remembered for the process.
pub fn prove(spec: &CipherSpec, provider: Option<&str>) -> Result<&'static str, String> {
    let name = match provider {
        Some(p) => providers::by_name(p).map_err(|e| e.to_string())?.name(),
        None => providers::default_for(spec)
            .map_err(|e| e.to_string())?
            .name(),
    };
    thread_local! {
        static PROVEN: RefCell<Verdicts> = RefCell::new(HashMap::new());
    }
    let key = (spec.to_string(), name);
    if let Some(r) = PROVEN.with_borrow(|m| m.get(&key).cloned()) {
        return r.map(|()| name);
    }
    let r = check(spec, name);
    PROVEN.with_borrow_mut(|m| m.insert(key, r.clone()));
    r.map(|()| name)
}

fn check(spec: &CipherSpec, name: &'static str) -> Result<(), String> {
    // Fixed, non-trivial key, IV and messages: every provider sees the same.
    let key: Vec<u8> = (0..spec.key_len()).map(|i| (i * 37 + 11) as u8).collect();
    let iv: Vec<u8> = (0..spec.iv_len()).map(|i| (i * 91 + 5) as u8).collect();
    let ad = b"cipherlab proves before it times";
    let ad: &[u8] = if spec.is_aead() { ad } else { &[] };
    let others: Vec<&'static str> = providers::supporting(spec)
        .into_iter()
        .filter(|p| *p != name)
        .filter(|p| providers::by_name(p).is_ok_and(|prov| prov.available(spec).is_ok()))
        .collect();
    for len in LENGTHS {
        let msg: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
        let ct = encrypt(spec, name, &key, &iv, ad, &msg)?;
        let mut back = ct.clone();
        let mut c =
            providers::init(spec, &key, Some(name)).map_err(|e| format!("{spec} ({name}): {e}"))?;
        let n = c.decrypt(&iv, ad, &mut back).map_err(|e| {
            format!("{spec} ({name}) cannot decrypt its own {len}-byte message: {e}")
        })?;
        if back[..n] != msg[..] {
            return Err(format!(
                "{spec} ({name}) does not give a {len}-byte message back: not timed"
            ));
        }
        for other in &others {
            let theirs = encrypt(spec, other, &key, &iv, ad, &msg)?;
            if theirs != ct {
                return Err(format!(
                    "{spec}: providers {name} and {other} disagree on a {len}-byte message: not timed (run the KAT tests: cargo test -p cipherlab-ciphers)"
                ));
            }
        }
    }
    Ok(())
}

fn encrypt(
    spec: &CipherSpec,
    provider: &str,
    key: &[u8],
    iv: &[u8],
    ad: &[u8],
    msg: &[u8],
) -> Result<Vec<u8>, String> {
    let mut c = providers::init(spec, key, Some(provider))
        .map_err(|e| format!("{spec} ({provider}): {e}"))?;
    let mut buf = msg.to_vec();
    buf.resize(spec.output_len(msg.len()), 0);
    let n = c
        .encrypt(iv, ad, &mut buf, msg.len())
        .map_err(|e| format!("{spec} ({provider}) cannot encrypt: {e}"))?;
    buf.truncate(n);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_ciphers_are_proven_through_their_default_provider() {
        for name in [
            "aes-128-ecb",
            "des-cbc",
            "rc4-40",
            "ascon-aead128",
            "aes-128-gcm",
        ] {
            let spec = CipherSpec::parse(name).unwrap();
            let p = prove(&spec, None).unwrap_or_else(|e| panic!("{e}"));
            assert!(!p.is_empty());
        }
    }

    #[test]
    fn an_unknown_provider_is_refused() {
        let spec = CipherSpec::parse("aes-128-ecb").unwrap();
        assert!(prove(&spec, Some("no-such-provider")).is_err());
    }
}
