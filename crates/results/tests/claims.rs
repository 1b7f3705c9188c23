//! The claims summary: every verdict cell of a run's tables counted, the differing ones
//! listed by study and claim; plain text that spells a verdict is not a verdict.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_results::artifact::{Artifact, Cell, Content, Table};
use cipherlab_results::verdict::{Agreement, Claim, claims};
use serde_json::Value;

fn verdict_table(rows: &[(&str, Agreement)]) -> Table {
    let mut t = Table::new(&["the paper's claim, tested", "ours", "verdict"]);
    for (claim, v) in rows {
        t.row(vec![
            Cell::from(Value::from(*claim)),
            Value::from("slower").into(),
            (*v).into(),
        ]);
    }
    t
}

fn artifacts() -> Vec<Artifact> {
    use Agreement::*;
    let mut key_size = Table::new(&["cipher", "ours", "paper: larger key slower"]);
    key_size.row(vec![
        Cell::from(Value::from("aes")),
        Value::from("slower").into(),
        Agrees.into(),
    ]);
    key_size.row(vec![
        Cell::from(Value::from("rc4")),
        Value::from("the same").into(),
        Differs.into(),
    ]);
    key_size.row(vec![
        Cell::from(Value::from("3des")),
        Value::from("-").into(),
        CantTell.into(),
    ]);
    // Words alone are not verdicts: a table of text that happens to spell them.
    let mut words = Table::new(&["cipher", "note"]);
    words.row(vec![Value::from("des"), Value::from("differs")]);
    vec![
        key_size.artifact("key-size", "paper/fig-5", "Fig. 5"),
        words.artifact("key-size", "words", "Words"),
        verdict_table(&[
            ("Java is faster than PHP (encrypt)", Agrees),
            ("Python is slower than Go (decrypt)", Differs),
            ("decryption is faster than encryption on Node.js", Agrees),
        ])
        .artifact("platforms", "claims", "Claims"),
        Artifact::new(
            "platforms",
            "note",
            "a note",
            Content::Note("differs".into()),
        ),
    ]
}

#[test]
fn every_verdict_is_counted_and_the_differing_ones_listed_by_study_and_claim() {
    let c = claims(&artifacts());
    assert_eq!(
        (c.tally.agrees, c.tally.differs, c.tally.cant_tell),
        (3, 2, 1)
    );
    assert_eq!(c.tally.total(), 6);
    assert_eq!(
        c.differing,
        vec![
            Claim {
                study: "key-size".into(),
                claim: "rc4 (paper: larger key slower)".into(),
                verdict: Agreement::Differs,
            },
            Claim {
                study: "platforms".into(),
                claim: "Python is slower than Go (decrypt)".into(),
                verdict: Agreement::Differs,
            },
        ]
    );
    let text = c.to_text();
    assert!(
        text.starts_with("paper claims checked: 6 (3 agree, 2 differ, 1 can't tell)"),
        "{text}"
    );
    assert!(
        text.contains("\n  key-size: rc4 (paper: larger key slower)"),
        "{text}"
    );
    assert!(
        text.contains("\n  platforms: Python is slower than Go (decrypt)"),
        "{text}"
    );
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["tally"]["differs"], 2);
    assert_eq!(json["differing"][1]["study"], "platforms");
    assert_eq!(json["differing"][1]["verdict"], "differs");
}

#[test]
fn verdicts_survive_the_stored_form_and_a_run_without_any_says_so() {
    // Through the bytes the store keeps, the verdicts stay typed and are counted again.
    let back: Vec<Artifact> = artifacts()
        .into_iter()
        .map(|a| {
            Artifact::from_bytes(
                a.study.clone(),
                a.name.clone(),
                a.kind(),
                a.title.clone(),
                a.to_bytes(),
            )
            .unwrap()
        })
        .collect();
    assert_eq!(claims(&back), claims(&artifacts()));
    let none = claims(&[]);
    assert_eq!(none.tally.total(), 0);
    assert!(none.differing.is_empty());
    assert_eq!(
        none.to_text(),
        "paper claims checked: 0 (0 agree, 0 differ, 0 can't tell)"
    );
}
