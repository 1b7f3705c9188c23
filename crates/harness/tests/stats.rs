//! Statistics against known values and known distributions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_harness::rng::Rng;
use cipherlab_harness::stats::{
    Bootstrap, Moments, Sample, Statistic, StatsError, bootstrap_ci, byte_entropy, mad,
    mad_outliers, ratio_ci, summarize, tukey_fences, tukey_outliers, welch_t,
};

fn sample(v: &[f64]) -> Sample {
    Sample::new(v.to_vec()).unwrap()
}

fn normal(rng: &mut Rng, n: usize, mean: f64, sd: f64) -> Vec<f64> {
    (0..n).map(|_| mean + sd * rng.normal()).collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn location_and_spread_of_fixed_arrays() {
    let s = sample(&[3.0, 1.0, 100.0, 2.0, 4.0]);
    assert_eq!(s.median(), 3.0);
    assert_eq!(s.mean(), 22.0);
    assert_eq!(s.min(), 1.0);
    assert_eq!(s.max(), 100.0);
    assert_eq!(s.sorted(), &[1.0, 2.0, 3.0, 4.0, 100.0]);

    let even = sample(&[4.0, 1.0, 3.0, 2.0]);
    assert_eq!(even.median(), 2.5);

    // Sum of squares about the mean 5 is 32; n - 1 = 7.
    let sd = sample(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).std_dev();
    assert!(close(sd, (32.0f64 / 7.0).sqrt(), 1e-12), "{sd}");
    assert_eq!(sample(&[7.0]).std_dev(), 0.0);

    // Hyndman & Fan type 7 on 1..=10: h = 9p/100.
    let ten = sample(&(1..=10).map(f64::from).collect::<Vec<_>>());
    assert_eq!(ten.percentile(0.0), 1.0);
    assert_eq!(ten.percentile(100.0), 10.0);
    assert!(close(ten.percentile(25.0), 3.25, 1e-12));
    assert!(close(ten.percentile(50.0), 5.5, 1e-12));
    assert!(close(ten.percentile(90.0), 9.1, 1e-12));
    println!("fixed arrays: 12 checks");
}

#[test]
fn bad_input_is_refused_with_the_cause() {
    assert_eq!(Sample::new(vec![]), Err(StatsError::Empty));
    match Sample::new(vec![1.0, f64::NAN]) {
        Err(StatsError::NotFinite { index: 1, .. }) => {}
        other => panic!("{other:?}"),
    }
    let s = sample(&[1.0, 2.0]);
    let bad = Bootstrap {
        confidence: 1.5,
        ..Bootstrap::default()
    };
    let e = bootstrap_ci(&s, Statistic::Mean, &bad).unwrap_err();
    assert!(e.to_string().contains("0.99"), "{e}");
    assert_eq!(
        ratio_ci(&s, &sample(&[0.0, 0.0, 1.0]), &Bootstrap::default()),
        Err(StatsError::ZeroDenominator)
    );
}

/// Percentile bootstrap intervals of a normal sample's mean and median cover the true
/// value at about the stated rate over many independent samples (Efron & Tibshirani
/// 1993, ch. 13: the percentile interval's coverage tends to the nominal level; for
/// n = 100 it is within a couple of points of it).
#[test]
fn bootstrap_interval_covers_the_true_value_at_the_stated_rate() {
    const REPS: u32 = 300;
    let mut rng = Rng::new(2024);
    let mut hits95 = 0;
    let mut hits99 = 0;
    let mut hits_median = 0;
    let mut width95 = 0.0;
    for rep in 0..REPS {
        let s = Sample::new(normal(&mut rng, 100, 10.0, 2.0)).unwrap();
        let b95 = Bootstrap {
            resamples: 1000,
            confidence: 0.95,
            seed: u64::from(rep),
        };
        let b99 = Bootstrap {
            confidence: 0.99,
            ..b95
        };
        let ci95 = bootstrap_ci(&s, Statistic::Mean, &b95).unwrap();
        assert_eq!(ci95.estimate, s.mean());
        hits95 += u32::from(ci95.contains(10.0));
        width95 += ci95.high - ci95.low;
        hits99 += u32::from(
            bootstrap_ci(&s, Statistic::Mean, &b99)
                .unwrap()
                .contains(10.0),
        );
        hits_median += u32::from(
            bootstrap_ci(&s, Statistic::Median, &b95)
                .unwrap()
                .contains(10.0),
        );
    }
    let rate = |h: u32| f64::from(h) / f64::from(REPS);
    println!(
        "coverage over {REPS} samples: mean 95% {:.3}, mean 99% {:.3}, median 95% {:.3}; mean 95% width {:.3}",
        rate(hits95),
        rate(hits99),
        rate(hits_median),
        width95 / f64::from(REPS)
    );
    // Binomial sd at p = 0.95 over 300 trials is 0.013: allow ~3 sd plus the percentile
    // method's small-sample undercoverage.
    assert!(
        (0.90..=0.99).contains(&rate(hits95)),
        "95% coverage {}",
        rate(hits95)
    );
    assert!(rate(hits99) >= 0.965, "99% coverage {}", rate(hits99));
    assert!(rate(hits99) > rate(hits95) || hits99 == REPS);
    assert!((0.88..=0.995).contains(&rate(hits_median)));
    // Normal theory width: 2 * 1.96 * 2 / sqrt(100) = 0.784.
    let w = width95 / f64::from(REPS);
    assert!((0.70..=0.86).contains(&w), "mean 95% width {w}");
}

#[test]
fn bootstrap_is_reproducible_from_its_seed() {
    let mut rng = Rng::new(5);
    let s = Sample::new(normal(&mut rng, 50, 0.0, 1.0)).unwrap();
    let b = Bootstrap::default();
    let a1 = bootstrap_ci(&s, Statistic::Median, &b).unwrap();
    let a2 = bootstrap_ci(&s, Statistic::Median, &b).unwrap();
    assert_eq!(a1, a2);
    let other = bootstrap_ci(&s, Statistic::Median, &Bootstrap { seed: 9, ..b }).unwrap();
    assert_ne!((a1.low, a1.high), (other.low, other.high));
    assert!(a1.low <= a1.estimate && a1.estimate <= a1.high);
    assert_eq!(a1.confidence, 0.99);
}

#[test]
fn tukey_fences_on_a_constructed_sample() {
    // 10..=29 with one outlier of each class. Quartiles (type 7): Q1 = 13.75,
    // Q3 = 25.25, IQR = 11.5; fences -20.75 / -3.5 / 42.5 / 59.75.
    let mut v: Vec<f64> = (10..30).map(f64::from).collect();
    v.extend([-40.0, -10.0, 50.0, 70.0]);
    let s = sample(&v);
    let f = tukey_fences(&s);
    for (got, want) in f.iter().zip([-20.75, -3.5, 42.5, 59.75]) {
        assert!(close(*got, want, 1e-12), "{f:?}");
    }
    let o = tukey_outliers(&s);
    assert_eq!(
        (o.low_severe, o.low_mild, o.high_mild, o.high_severe),
        (1, 1, 1, 1),
        "{o:?}"
    );
    assert_eq!((o.mild(), o.severe(), o.total()), (2, 2, 4));

    // A clean normal sample has few outliers.
    let mut rng = Rng::new(3);
    let clean = Sample::new(normal(&mut rng, 1000, 5.0, 1.0)).unwrap();
    let o = tukey_outliers(&clean);
    // About 0.7% of normal data lies beyond the inner fences; none beyond the outer.
    assert!(o.total() <= 20 && o.severe() == 0, "{o:?}");
}

#[test]
fn mad_outliers_follow_leys_et_al() {
    let s = sample(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 100.0]);
    // median 5.5; |deviations| median 2.5; scaled MAD = 1.4826 * 2.5.
    assert!(close(mad(&s), 1.4826 * 2.5, 1e-12));
    assert_eq!(mad_outliers(&s, 2.5), 1);
    assert_eq!(mad_outliers(&s, 30.0), 0);
    // MAD estimates sigma for normal data.
    let mut rng = Rng::new(11);
    let n = Sample::new(normal(&mut rng, 20_000, 0.0, 3.0)).unwrap();
    assert!(close(mad(&n), 3.0, 0.1), "{}", mad(&n));
}

#[test]
fn ratio_interval_separates_different_samples_and_not_equal_ones() {
    let b = Bootstrap {
        resamples: 2000,
        ..Bootstrap::default()
    };
    let mut rng = Rng::new(77);
    // 20% slower, 5% noise: significant.
    let slow = Sample::new(normal(&mut rng, 40, 12.0, 0.6)).unwrap();
    let fast = Sample::new(normal(&mut rng, 40, 10.0, 0.5)).unwrap();
    let r = ratio_ci(&slow, &fast, &b).unwrap();
    println!("ratio slow/fast: {:?}", r.interval);
    assert!(r.is_significant());
    assert!(
        r.interval.low > 1.1 && r.interval.high < 1.3,
        "{:?}",
        r.interval
    );
    assert!(close(
        r.interval.estimate,
        slow.median() / fast.median(),
        1e-12
    ));
    // 3% faster with 1% noise: significant the other way.
    let a = Sample::new(normal(&mut rng, 30, 0.97, 0.01)).unwrap();
    let c = Sample::new(normal(&mut rng, 30, 1.00, 0.01)).unwrap();
    let r = ratio_ci(&a, &c, &b).unwrap();
    assert!(
        r.is_significant() && r.interval.high < 1.0,
        "{:?}",
        r.interval
    );

    // Same distribution: the 99% interval includes 1 (in ~99% of pairs).
    let mut includes = 0;
    const PAIRS: u32 = 40;
    for k in 0..PAIRS {
        let x = Sample::new(normal(&mut rng, 30, 10.0, 0.5)).unwrap();
        let y = Sample::new(normal(&mut rng, 30, 10.0, 0.5)).unwrap();
        let r = ratio_ci(
            &x,
            &y,
            &Bootstrap {
                seed: u64::from(k),
                ..b
            },
        )
        .unwrap();
        includes += u32::from(!r.is_significant());
    }
    println!("same-distribution pairs whose 99% ratio interval includes 1: {includes}/{PAIRS}");
    assert!(includes >= PAIRS - 2, "{includes}/{PAIRS}");
}

#[test]
fn summary_collects_everything() {
    let mut v: Vec<f64> = (10..30).map(f64::from).collect();
    v.extend([-40.0, -10.0, 50.0, 70.0]);
    let s = summarize(&v, &Bootstrap::default()).unwrap();
    assert_eq!(s.n, 24);
    assert_eq!(s.median, 19.5);
    assert_eq!(s.min, -40.0);
    assert_eq!(s.max, 70.0);
    assert_eq!(s.outliers.total(), 4);
    assert!(s.median_ci.low <= 19.5 && 19.5 <= s.median_ci.high);
    assert!(close(s.outlier_share(), 4.0 / 24.0, 1e-12));
}

#[test]
fn entropy_of_known_byte_strings() {
    assert_eq!(byte_entropy(&[]), 0.0);
    assert_eq!(byte_entropy(&[7; 1000]), 0.0);
    let all: Vec<u8> = (0..=255u8).cycle().take(256 * 40).collect();
    assert!(close(byte_entropy(&all), 8.0, 1e-12));
    assert!(close(byte_entropy(b"abababab"), 1.0, 1e-12));
}

/// Reference values computed with mpmath 1.3 at 30 digits
/// (`mpmath.gammainc(a, x, inf, regularized=True)`), and the chi-square critical values
/// of 255 degrees of freedom (χ²₀.₉₅ = 293.2478, χ²₀.₉₉ = 310.4574) published in
/// standard tables.
#[test]
fn incomplete_gamma_and_chi_square_match_reference_values() {
    use cipherlab_harness::stats::{gamma_q, ln_gamma};
    // Relative closeness.
    let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * b.abs();
    assert!(ln_gamma(1.0).abs() < 1e-14 && ln_gamma(2.0).abs() < 1e-14);
    assert!(close(ln_gamma(0.5), 0.572_364_942_924_700_1, 1e-13));
    assert!(close(ln_gamma(10.0), 12.801_827_480_081_469, 1e-13));
    for (a, x, q) in [
        (3.5, 2.0, 0.779_777_408_475_715_9),
        (100.0, 120.0, 0.027_863_739_890_520_66),
        (127.5, 100.0, 0.995_425_444_541_951_9),
        (0.5, 0.3, 0.438_578_026_081),
    ] {
        assert!(
            close(gamma_q(a, x), q, 1e-10),
            "Q({a}, {x}) = {} not {q}",
            gamma_q(a, x)
        );
    }
    // Q(1, x) = e^-x exactly.
    for x in [0.01, 1.0, 7.5, 40.0] {
        assert!(close(gamma_q(1.0, x), (-x).exp(), 1e-12));
    }
    assert!((gamma_q(127.5, 293.2478 / 2.0) - 0.05).abs() < 1e-5);
    assert!((gamma_q(127.5, 310.4574 / 2.0) - 0.01).abs() < 1e-5);
    assert!(gamma_q(-1.0, 1.0).is_nan() && gamma_q(1.0, -1.0).is_nan());
    assert_eq!(gamma_q(2.0, 0.0), 1.0);
}

/// The chi-square test must reject what is not uniform and, on uniform data, give
/// p-values that are themselves uniform: about 5% of them below 0.05.
#[test]
fn chi_square_p_values_are_uniform_under_the_null() {
    use cipherlab_harness::stats::{byte_histogram, chi_square_uniform};
    let mut rng = Rng::new(42);
    let trials = 400;
    let mut below = 0;
    let mut buf = vec![0u8; 64 * 1024];
    for _ in 0..trials {
        rng.fill_bytes(&mut buf);
        let (_, p) = chi_square_uniform(&byte_histogram(&buf)).unwrap();
        if p < 0.05 {
            below += 1;
        }
    }
    // Binomial(400, 0.05): mean 20, sd 4.36; 4.5 sd either side.
    assert!((1..=40).contains(&below), "{below} of {trials} below 0.05");
    // Text is far from uniform.
    let text = "the quick brown fox jumps over the lazy dog ".repeat(2000);
    let (x2, p) = chi_square_uniform(&byte_histogram(text.as_bytes())).unwrap();
    assert!(x2 > 1e5 && p < 1e-100, "x2 {x2} p {p}");
    assert!(chi_square_uniform(&[0; 256]).is_none());
}

#[test]
fn running_moments_match_the_two_pass_figures() {
    let v = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
    let mut m = Moments::default();
    v.iter().for_each(|&x| m.push(x));
    let s = sample(&v);
    assert_eq!(m.count(), 8.0);
    assert!(close(m.mean(), 5.0, 1e-12));
    assert!(close(m.variance().sqrt(), s.std_dev(), 1e-12));
    assert_eq!(Moments::default().variance(), 0.0);
}

#[test]
fn welch_t_separates_shifted_means_and_not_equal_ones() {
    let mut rng = Rng::new(7);
    let (mut a, mut b, mut c) = (Moments::default(), Moments::default(), Moments::default());
    normal(&mut rng, 10_000, 100.0, 5.0)
        .into_iter()
        .for_each(|x| a.push(x));
    normal(&mut rng, 10_000, 100.0, 5.0)
        .into_iter()
        .for_each(|x| b.push(x));
    normal(&mut rng, 10_000, 101.0, 5.0)
        .into_iter()
        .for_each(|x| c.push(x));
    // Same distribution: |t| below dudect's 4.5 (fixed seed, so this cannot flake).
    assert!(welch_t(&a, &b).abs() < 4.5, "{}", welch_t(&a, &b));
    // A shift of 0.2 standard deviations over 10,000 samples each: t near -14.
    let t = welch_t(&a, &c);
    assert!((-20.0..-8.0).contains(&t), "{t}");
    assert_eq!(welch_t(&a, &c), -welch_t(&c, &a));
    // Too few observations: no statistic.
    let mut one = Moments::default();
    one.push(1.0);
    assert_eq!(welch_t(&one, &a), 0.0);
}
