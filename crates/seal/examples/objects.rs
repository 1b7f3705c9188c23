//! An object graph through an encrypting stream and back, as the Java stream-security
//! paper does with `ObjectOutputStream` over `CipherOutputStream`, but authenticated.
//!
//! `cargo run -p cipherlab-seal --example objects [CIPHER]` (default: the container's
//! default cipher; any AEAD of the catalogue, e.g. `ascon-aead128` or `xoodyak`).

use std::collections::BTreeMap;
use std::io::{BufReader, BufWriter, Read};

use cipherlab_seal::{CipherSpec, KeyFile, SealOptions, SealReader, SealWriter, Secret};
use serde::{Deserialize, Serialize};

/// A patient record system: records point at each other by id (serde writes trees;
/// a graph with shared nodes or cycles is written as nodes plus edges).
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Registry {
    clinics: Vec<Clinic>,
    patients: BTreeMap<u32, Patient>,
    /// Referrals between patients' doctors: (from patient, to patient).
    referrals: Vec<(u32, u32)>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Clinic {
    name: String,
    address: Address,
    patient_ids: Vec<u32>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Address {
    street: String,
    city: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Patient {
    name: String,
    born: u16,
    allergies: Vec<String>,
    readings: Vec<f32>,
}

fn sample() -> Registry {
    let mut patients = BTreeMap::new();
    for id in 0..500u32 {
        patients.insert(
            id,
            Patient {
                name: format!("patient {id}"),
                born: 1940 + (id % 80) as u16,
                allergies: if id % 7 == 0 {
                    vec!["penicillin".into()]
                } else {
                    vec![]
                },
                readings: (0..50).map(|i| (id * 50 + i) as f32 * 0.1).collect(),
            },
        );
    }
    Registry {
        clinics: vec![
            Clinic {
                name: "North".into(),
                address: Address {
                    street: "1 Hill Road".into(),
                    city: "Leeds".into(),
                },
                patient_ids: (0..250).collect(),
            },
            Clinic {
                name: "South".into(),
                address: Address {
                    street: "2 River Lane".into(),
                    city: "Bath".into(),
                },
                patient_ids: (250..500).collect(),
            },
        ],
        patients,
        referrals: (0..100).map(|i| (i, (i * 37 + 11) % 500)).collect(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cipher = match std::env::args().nth(1) {
        Some(name) => CipherSpec::parse(&name)?,
        None => cipherlab_seal::default_cipher(),
    };
    let key = KeyFile::generate(cipher);
    let registry = sample();

    // Out: serde -> buffered writer -> SealWriter -> Vec<u8> (a file or socket works too).
    // Several objects go into one stream, one after the other.
    let mut sealed = SealWriter::new(Vec::new(), Secret::Key(&key), &SealOptions::default())?;
    {
        let mut w = BufWriter::new(&mut sealed);
        serde_json::to_writer(&mut w, &registry)?;
        serde_json::to_writer(&mut w, &"end of registry")?;
    }
    let bytes = sealed.finish()?;
    let json_len = serde_json::to_vec(&registry)?.len();
    println!(
        "{cipher}: {json_len} bytes of JSON sealed into {} bytes ({} chunks of 64 KiB)",
        bytes.len(),
        json_len.div_ceil(1 << 16)
    );

    // Back: Vec<u8> -> SealReader (verifies each chunk) -> buffered reader -> serde.
    let reader = BufReader::new(SealReader::new(bytes.as_slice(), Secret::Key(&key))?);
    let mut objects =
        serde_json::Deserializer::from_reader(reader).into_iter::<serde_json::Value>();
    let back: Registry = serde_json::from_value(objects.next().ok_or("no object")??)?;
    let trailer: String = serde_json::from_value(objects.next().ok_or("no trailer")??)?;
    assert_eq!(back, registry);
    assert_eq!(trailer, "end of registry");
    println!(
        "read back {} clinics, {} patients, {} referrals: identical",
        back.clinics.len(),
        back.patients.len(),
        back.referrals.len()
    );

    // A single flipped bit anywhere is an error, never a silently different object.
    let mut tampered = bytes.clone();
    let at = tampered.len() / 2;
    tampered[at] ^= 0x20;
    let mut r = SealReader::new(tampered.as_slice(), Secret::Key(&key))?;
    let mut sink = Vec::new();
    match r.read_to_end(&mut sink) {
        Ok(_) => return Err("a tampered stream was accepted".into()),
        Err(e) => println!("tampered stream refused: {e}"),
    }
    Ok(())
}
