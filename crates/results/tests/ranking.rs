//! Rankings compare pair by pair: a wide interval blocks only the comparisons it
//! overlaps; the census counts what a run could not order; two runs' pair orders are
//! compared.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use cipherlab_results::ranking::{Decision, census, decide, pair_agreement, rank, undecided};
use support::{id, measurement, samples};

fn enc(alg: &str, ns: f64, spread: f64, seed: u64) -> cipherlab_results::id::Measurement {
    measurement(
        id("data-size", alg, "encrypt", 65_536, "bmp"),
        samples(ns, spread, 15, seed),
    )
}

/// AES at 20x the speed of the others with a very wide interval is still first: no
/// interval overturns that order. Its interval overlaps none of the others, so every
/// pair is ordered; a second wide interval that does overlap a neighbour leaves only
/// that pair undecided.
#[test]
fn a_wide_interval_blocks_only_the_pairs_it_overlaps() {
    let aes = enc("aes-128-ecb", 6_000.0, 0.40, 1); // wide: 40% spread
    let des = enc("des-ecb", 120_000.0, 0.01, 2);
    let bf = enc("blowfish-128-ecb", 150_000.0, 0.01, 3);
    let rc2 = enc("rc2-128-ecb", 170_000.0, 0.30, 4); // wide, overlapping bf
    let tdes = enc("3des-168-ecb", 400_000.0, 0.01, 5);
    let (lo, hi) = cipherlab_results::ranking::interval_ns(&aes);
    assert!(
        (hi - lo) / aes.summary.median > 0.05,
        "AES's interval is wide"
    );
    assert!(aes.warnings.iter().any(|w| w.kind() == "wide-interval"));

    let all = vec![aes, des, bf, rc2, tdes];
    let r = rank(all.iter().collect(), "t".into());
    assert!(r.unranked.is_empty());
    let got: Vec<(usize, &str)> = r
        .ranked
        .iter()
        .map(|(k, m)| (*k, m.id.algorithm.name()))
        .collect();
    // bf and rc2 are undecided: both rank after aes and des (3), 3des after all four.
    assert_eq!(
        got,
        vec![
            (1, "aes-128-ecb"),
            (2, "des-ecb"),
            (3, "blowfish-128-ecb"),
            (3, "rc2-128-ecb"),
            (5, "3des-168-ecb")
        ]
    );
    assert!(r.undecided[0].is_empty() && r.undecided[1].is_empty());
    assert_eq!(r.undecided[2], vec![3]);
    assert_eq!(r.undecided[3], vec![2]);
    assert_eq!(decide(&all[0], &all[1]), Decision::Ordered);
    assert_eq!(decide(&all[2], &all[3]), Decision::Undecided);

    let c = census(&all);
    assert_eq!((c.figures, c.grouped, c.few_samples), (5, 5, 0));
    assert_eq!((c.pairs, c.ordered, c.tied, c.undecided), (10, 9, 0, 1));
    assert_eq!(c.undecided_figures, 2);
    assert_eq!(undecided(&all), vec![2, 3]);
    assert!(c.to_text().contains("2 of 5 figures"), "{}", c.to_text());
}

/// Medians within the equivalence margin with narrow intervals are tied, not
/// undecided: more samples would not make an order the next process keeps. With a wide
/// interval the same medians are undecided: the run cannot yet say they are close.
#[test]
fn close_medians_are_tied_only_when_the_intervals_are_narrow() {
    let a = enc("rc4-40", 70_000.0, 0.001, 1);
    let b = enc("rc4-128", 71_000.0, 0.005, 2);
    assert_eq!(decide(&a, &b), Decision::Tied);
    assert!(undecided(&[a.clone(), b]).is_empty());
    let wide = enc("rc4-128", 71_000.0, 0.30, 3);
    assert!((wide.summary.median / 71_000.0 - 1.0).abs() < 0.05);
    assert_eq!(decide(&a, &wide), Decision::Undecided);
}

/// Figures of other phases, sizes or timers are never compared.
#[test]
fn only_comparable_figures_are_paired() {
    let a = enc("aes-128-ecb", 6_000.0, 0.01, 1);
    let mut b = measurement(
        id("data-size", "des-ecb", "decrypt", 65_536, "bmp"),
        samples(6_100.0, 0.5, 15, 2),
    );
    let c = census(&[a.clone(), b.clone()]);
    assert_eq!((c.grouped, c.pairs), (0, 0));
    b.id.phase = cipherlab_results::id::Phase::Encrypt;
    b.timer = "wall-clock-other".into();
    assert_eq!(census(&[a, b]).pairs, 0);
}

/// Two runs: pairs ordered in both are compared; a reversed pair is named.
#[test]
fn pair_agreement_counts_reversed_pairs() {
    let run = |des: f64, seed: u64| {
        vec![
            enc("aes-128-ecb", 6_000.0, 0.01, seed),
            enc("des-ecb", des, 0.01, seed + 1),
            enc("blowfish-128-ecb", 150_000.0, 0.01, seed + 2),
            enc("3des-168-ecb", 400_000.0, 0.01, seed + 3),
        ]
    };
    let a = run(120_000.0, 1);
    let same = pair_agreement(&a, &run(121_000.0, 10));
    assert_eq!((same.ordered_in_both, same.same_way), (6, 6));
    assert_eq!(same.share(), Some(1.0));
    // DES now slower than Blowfish: one pair of six reversed.
    let b = run(200_000.0, 20);
    let p = pair_agreement(&a, &b);
    assert_eq!((p.ordered_in_both, p.same_way), (6, 5));
    assert_eq!(p.reversed.len(), 1);
    assert!(p.reversed[0].0.contains("blowfish-128-ecb") && p.reversed[0].1.contains("des-ecb"));
}
