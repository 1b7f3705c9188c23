//! Statistics: each method with the reference it follows. Nothing here prints or formats;
//! reporting lives with the callers.
//!
//! * [`Sample`] -- a validated (non-empty, finite) set of observations, kept sorted, with
//!   [`Sample::mean`], [`Sample::median`], [`Sample::std_dev`], [`Sample::min`],
//!   [`Sample::max`] and [`Sample::percentile`];
//! * [`bootstrap_ci`] -- the percentile bootstrap confidence interval of any statistic
//!   (Efron & Tibshirani 1993), seeded so that results are reproducible;
//! * [`ratio_ci`] -- the bootstrap interval of `median(A) / median(B)`, what `compare`
//!   needs: a difference is only called when its interval excludes 1;
//! * [`tukey_outliers`] (Tukey 1977) and [`mad_outliers`] (Leys et al. 2013);
//! * [`summarize`] -- all of the above at once, as [`Summary`];
//! * [`Moments`] (Welford 1962) and [`welch_t`] (Welch 1947) -- running mean and variance,
//!   and the t-statistic between two of them: the leakage tests' statistic;
//! * [`byte_entropy`] -- Shannon entropy of a byte string in bits per byte.

use serde::{Deserialize, Serialize};

use crate::rng::Rng;

/// Why a set of observations cannot be summarized.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// No observations.
    #[error(
        "no observations: a statistic needs at least one sample (measure longer or more often)"
    )]
    Empty,
    /// An observation is NaN or infinite.
    #[error(
        "observation {index} is {value}, not a finite number: the timer or the operation misbehaved; drop it or measure again"
    )]
    NotFinite {
        /// Position of the bad value in the input.
        index: usize,
        /// The value itself.
        value: f64,
    },
    /// A confidence level outside (0, 1).
    #[error("confidence level {0} is not between 0 and 1 (exclusive): use e.g. 0.99")]
    BadConfidence(f64),
    /// A ratio's denominator sample has median zero.
    #[error(
        "the denominator's median is zero, so the ratio is undefined: compare times, not zero-cost operations"
    )]
    ZeroDenominator,
}

/// A non-empty set of finite observations, stored sorted ascending.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    sorted: Vec<f64>,
}

impl Sample {
    /// Validates and sorts `values`.
    pub fn new(mut values: Vec<f64>) -> Result<Sample, StatsError> {
        if values.is_empty() {
            return Err(StatsError::Empty);
        }
        if let Some((index, &value)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(StatsError::NotFinite { index, value });
        }
        values.sort_unstable_by(f64::total_cmp);
        Ok(Sample { sorted: values })
    }

    /// The observations, sorted ascending.
    pub fn sorted(&self) -> &[f64] {
        &self.sorted
    }

    /// Number of observations.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Always false: a `Sample` holds at least one observation.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Arithmetic mean, summed in sorted order (smallest magnitudes first for positive
    /// data, which keeps rounding error low).
    pub fn mean(&self) -> f64 {
        self.sorted.iter().sum::<f64>() / self.sorted.len() as f64
    }

    /// The median: the middle value, or the mean of the two middle values.
    pub fn median(&self) -> f64 {
        median_of_sorted(&self.sorted)
    }

    /// Sample standard deviation with Bessel's correction (divisor `n - 1`); 0 for a
    /// single observation.
    pub fn std_dev(&self) -> f64 {
        let n = self.sorted.len();
        if n < 2 {
            return 0.0;
        }
        let m = self.mean();
        let ss: f64 = self.sorted.iter().map(|x| (x - m) * (x - m)).sum();
        (ss / (n - 1) as f64).sqrt()
    }

    /// Smallest observation.
    pub fn min(&self) -> f64 {
        self.sorted[0]
    }

    /// Largest observation.
    pub fn max(&self) -> f64 {
        self.sorted[self.sorted.len() - 1]
    }

    /// The `p`-th percentile (`p` in 0..=100, clamped) by linear interpolation between
    /// order statistics: definition 7 of Hyndman & Fan, "Sample quantiles in statistical
    /// packages", The American Statistician 50(4), 1996 (the default of R and NumPy).
    pub fn percentile(&self, p: f64) -> f64 {
        percentile_of_sorted(&self.sorted, p)
    }
}

fn median_of_sorted(s: &[f64]) -> f64 {
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn percentile_of_sorted(s: &[f64], p: f64) -> f64 {
    let p = if p.is_nan() {
        50.0
    } else {
        p.clamp(0.0, 100.0)
    };
    let h = (s.len() - 1) as f64 * p / 100.0;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    s[lo] + (h - lo as f64) * (s[hi] - s[lo])
}

/// Median of unsorted data, reordering it: O(n) selection instead of a sort, which the
/// bootstrap calls thousands of times.
fn median_in_place(v: &mut [f64]) -> f64 {
    let n = v.len();
    let mid = n / 2;
    let (left, &mut upper, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    if n % 2 == 1 {
        upper
    } else {
        // The lower middle is the largest of the left part.
        let lower = left.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lower + upper) / 2.0
    }
}

/// A statistic the bootstrap can recompute on resampled data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Statistic {
    /// The median.
    Median,
    /// The arithmetic mean.
    Mean,
}

impl Statistic {
    fn of(self, v: &mut [f64]) -> f64 {
        match self {
            Statistic::Median => median_in_place(v),
            Statistic::Mean => v.iter().sum::<f64>() / v.len() as f64,
        }
    }
}

/// Settings of the percentile bootstrap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bootstrap {
    /// Number of resamples `B`. Efron & Tibshirani (1993, ch. 19) advise at least 1000
    /// for percentile intervals; 99% intervals use the 0.5% tails, so more is better.
    pub resamples: u32,
    /// Confidence level, e.g. 0.99.
    pub confidence: f64,
    /// Seed of the resampling generator: the same data and seed give the same interval.
    pub seed: u64,
}

impl Default for Bootstrap {
    /// 10 000 resamples, 99% confidence, seed 0.
    fn default() -> Bootstrap {
        Bootstrap {
            resamples: 10_000,
            confidence: 0.99,
            seed: 0,
        }
    }
}

impl Bootstrap {
    fn check(&self) -> Result<(), StatsError> {
        if self.confidence > 0.0 && self.confidence < 1.0 {
            Ok(())
        } else {
            Err(StatsError::BadConfidence(self.confidence))
        }
    }
}

/// A confidence interval around a point estimate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The statistic on the original data.
    pub estimate: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Confidence level of the bounds, e.g. 0.99.
    pub confidence: f64,
}

impl Interval {
    /// Whether `x` lies within the bounds (inclusive).
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    /// Width relative to the estimate: `(high - low) / |estimate|` (infinite when the
    /// estimate is zero).
    pub fn relative_width(&self) -> f64 {
        (self.high - self.low) / self.estimate.abs()
    }
}

/// Draws `src.len()` values from `src` with replacement into `dst`.
fn resample(rng: &mut Rng, src: &[f64], dst: &mut Vec<f64>) {
    dst.clear();
    dst.extend((0..src.len()).map(|_| src[rng.index(src.len())]));
}

/// Percentile bootstrap confidence interval of `statistic` over `sample`: resample the
/// data with replacement `B` times, recompute the statistic each time, and take the
/// `(1 - c)/2` and `(1 + c)/2` percentiles of the `B` replicates as the bounds.
///
/// Reference: B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman
/// & Hall, 1993, ch. 13 ("Confidence intervals based on bootstrap percentiles"). The
/// percentile method is what criterion.rs uses; it is transformation-respecting, and its
/// coverage approaches the nominal level as `n` grows (tested in `tests/stats.rs`).
pub fn bootstrap_ci(
    sample: &Sample,
    statistic: Statistic,
    settings: &Bootstrap,
) -> Result<Interval, StatsError> {
    settings.check()?;
    let data = sample.sorted();
    let mut scratch = data.to_vec();
    let estimate = statistic.of(&mut scratch);
    let mut rng = Rng::new(settings.seed);
    let mut replicates = Vec::with_capacity(settings.resamples as usize);
    for _ in 0..settings.resamples.max(1) {
        resample(&mut rng, data, &mut scratch);
        replicates.push(statistic.of(&mut scratch));
    }
    Ok(percentile_interval(
        estimate,
        replicates,
        settings.confidence,
    ))
}

fn percentile_interval(estimate: f64, mut replicates: Vec<f64>, confidence: f64) -> Interval {
    replicates.sort_unstable_by(f64::total_cmp);
    let alpha = (1.0 - confidence) / 2.0;
    Interval {
        estimate,
        low: percentile_of_sorted(&replicates, 100.0 * alpha),
        high: percentile_of_sorted(&replicates, 100.0 * (1.0 - alpha)),
        confidence,
    }
}

/// The ratio `median(a) / median(b)` with its percentile bootstrap interval, resampling
/// `a` and `b` independently (the two-sample bootstrap of Efron & Tibshirani 1993,
/// sec. 8.3 and ch. 13).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    /// Estimate and bounds of `median(a) / median(b)`.
    pub interval: Interval,
}

impl Ratio {
    /// Whether the difference is significant at the interval's level: the interval
    /// excludes 1. A ratio whose interval includes 1 must never be called a difference.
    pub fn is_significant(&self) -> bool {
        !self.interval.contains(1.0)
    }
}

/// Bootstrap confidence interval of `median(a) / median(b)`.
///
/// Reference: Efron & Tibshirani (1993), two-sample bootstrap (sec. 8.3) with percentile
/// intervals (ch. 13). For times, `a / b > 1` with an interval above 1 means `a` is
/// slower than `b` at the stated confidence.
pub fn ratio_ci(a: &Sample, b: &Sample, settings: &Bootstrap) -> Result<Ratio, StatsError> {
    settings.check()?;
    let mb = b.median();
    if mb == 0.0 {
        return Err(StatsError::ZeroDenominator);
    }
    let estimate = a.median() / mb;
    let mut rng = Rng::new(settings.seed);
    let (mut sa, mut sb) = (Vec::new(), Vec::new());
    let mut replicates = Vec::with_capacity(settings.resamples as usize);
    for _ in 0..settings.resamples.max(1) {
        resample(&mut rng, a.sorted(), &mut sa);
        resample(&mut rng, b.sorted(), &mut sb);
        let d = median_in_place(&mut sb);
        // A replicate with a zero denominator median carries no information about the
        // ratio; with positive timings it cannot occur.
        if d != 0.0 {
            replicates.push(median_in_place(&mut sa) / d);
        }
    }
    if replicates.is_empty() {
        return Err(StatsError::ZeroDenominator);
    }
    Ok(Ratio {
        interval: percentile_interval(estimate, replicates, settings.confidence),
    })
}

/// Outliers by Tukey's fences, counted by side and severity.
///
/// Reference: J. W. Tukey, *Exploratory Data Analysis*, Addison-Wesley, 1977: with
/// quartiles `Q1`, `Q3` and `IQR = Q3 - Q1`, values beyond `Q1 - 1.5 IQR` or
/// `Q3 + 1.5 IQR` (inner fences) are *mild* outliers, beyond `3 IQR` (outer fences)
/// *severe*. Quartiles by [`Sample::percentile`] (Hyndman & Fan definition 7), as
/// criterion.rs does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TukeyOutliers {
    /// Below the outer low fence.
    pub low_severe: u32,
    /// Between the outer and inner low fences.
    pub low_mild: u32,
    /// Between the inner and outer high fences.
    pub high_mild: u32,
    /// Above the outer high fence.
    pub high_severe: u32,
}

impl TukeyOutliers {
    /// All mild outliers (both sides).
    pub fn mild(&self) -> u32 {
        self.low_mild + self.high_mild
    }

    /// All severe outliers (both sides).
    pub fn severe(&self) -> u32 {
        self.low_severe + self.high_severe
    }

    /// All outliers.
    pub fn total(&self) -> u32 {
        self.mild() + self.severe()
    }
}

/// Tukey's fences: `[outer low, inner low, inner high, outer high]`.
pub fn tukey_fences(sample: &Sample) -> [f64; 4] {
    let q1 = sample.percentile(25.0);
    let q3 = sample.percentile(75.0);
    let iqr = q3 - q1;
    [
        q1 - 3.0 * iqr,
        q1 - 1.5 * iqr,
        q3 + 1.5 * iqr,
        q3 + 3.0 * iqr,
    ]
}

/// Counts outliers by Tukey's fences (see [`TukeyOutliers`]).
pub fn tukey_outliers(sample: &Sample) -> TukeyOutliers {
    let [lo_s, lo_m, hi_m, hi_s] = tukey_fences(sample);
    let mut o = TukeyOutliers::default();
    for &x in sample.sorted() {
        if x < lo_s {
            o.low_severe += 1;
        } else if x < lo_m {
            o.low_mild += 1;
        } else if x > hi_s {
            o.high_severe += 1;
        } else if x > hi_m {
            o.high_mild += 1;
        }
    }
    o
}

/// The median absolute deviation scaled by 1.4826, a consistent estimator of the
/// standard deviation for normal data (Leys et al. 2013; Rousseeuw & Croux 1993).
pub fn mad(sample: &Sample) -> f64 {
    let m = sample.median();
    let mut dev: Vec<f64> = sample.sorted().iter().map(|x| (x - m).abs()).collect();
    1.4826 * median_in_place(&mut dev)
}

/// Threshold of [`mad_outliers`] recommended by Leys et al. (2013): 2.5 ("moderately
/// conservative"); 3 is "very conservative", 2 "poorly conservative".
pub const MAD_THRESHOLD: f64 = 2.5;

/// Counts observations farther than `threshold` scaled MADs from the median.
///
/// Reference: C. Leys, C. Ley, O. Klein, P. Bernard and L. Licata, "Detecting outliers:
/// Do not use standard deviation around the mean, use absolute deviation around the
/// median", Journal of Experimental Social Psychology 49(4), 2013. When the MAD is zero
/// (more than half the observations equal), every value off the median counts.
pub fn mad_outliers(sample: &Sample, threshold: f64) -> u32 {
    let m = sample.median();
    let s = mad(sample);
    sample
        .sorted()
        .iter()
        .filter(|&&x| {
            let d = (x - m).abs();
            if s == 0.0 { d > 0.0 } else { d / s > threshold }
        })
        .count() as u32
}

/// Everything a measurement reports about one set of observations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of observations.
    pub n: u32,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// Sample standard deviation (divisor `n - 1`).
    pub std_dev: f64,
    /// Smallest observation.
    pub min: f64,
    /// Largest observation.
    pub max: f64,
    /// Bootstrap confidence interval of the median.
    pub median_ci: Interval,
    /// Tukey outlier counts.
    pub outliers: TukeyOutliers,
    /// Observations beyond [`MAD_THRESHOLD`] scaled MADs from the median.
    pub mad_outliers: u32,
}

impl Summary {
    /// Share of observations that are Tukey outliers (mild or severe), 0..=1.
    pub fn outlier_share(&self) -> f64 {
        f64::from(self.outliers.total()) / f64::from(self.n.max(1))
    }
}

/// Summarizes `values`: location, spread, the bootstrap interval of the median, and
/// outlier counts.
pub fn summarize(values: &[f64], bootstrap: &Bootstrap) -> Result<Summary, StatsError> {
    let s = Sample::new(values.to_vec())?;
    Ok(Summary {
        n: s.len() as u32,
        mean: s.mean(),
        median: s.median(),
        std_dev: s.std_dev(),
        min: s.min(),
        max: s.max(),
        median_ci: bootstrap_ci(&s, Statistic::Median, bootstrap)?,
        outliers: tukey_outliers(&s),
        mad_outliers: mad_outliers(&s, MAD_THRESHOLD),
    })
}

/// Running count, mean and variance of a stream of observations, in one pass and
/// constant memory (the leakage tests push millions of samples).
///
/// Reference: B. P. Welford, "Note on a method for calculating corrected sums of squares
/// and products", Technometrics 4(3), 1962.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Moments {
    /// Adds one observation.
    pub fn push(&mut self, x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
    }

    /// Observations so far.
    pub fn count(&self) -> f64 {
        self.n
    }

    /// Their mean (0 before the first).
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Their sample variance (divisor `n - 1`; 0 below two observations).
    pub fn variance(&self) -> f64 {
        if self.n < 2.0 {
            0.0
        } else {
            self.m2 / (self.n - 1.0)
        }
    }

    /// The standard error of the difference of this mean and `other`'s:
    /// `sqrt(var_a / n_a + var_b / n_b)`.
    pub fn difference_std_error(&self, other: &Moments) -> f64 {
        (self.variance() / self.n + other.variance() / other.n).sqrt()
    }
}

/// Welch's t-statistic of the difference of two means, `(mean_a - mean_b) / se`; 0 when
/// either side has fewer than two observations or the standard error is 0.
///
/// Reference: B. L. Welch, "The generalization of 'Student's' problem when several
/// different population variances are involved", Biometrika 34, 1947.
pub fn welch_t(a: &Moments, b: &Moments) -> f64 {
    let se = a.difference_std_error(b);
    if a.n < 2.0 || b.n < 2.0 || se == 0.0 {
        0.0
    } else {
        (a.mean - b.mean) / se
    }
}

/// Shannon entropy of the byte distribution of `data`, in bits per byte (0..=8): 8 for
/// uniformly random bytes, 0 for a constant string.
///
/// Reference: C. E. Shannon, "A mathematical theory of communication", Bell System
/// Technical Journal 27, 1948: `H = -sum p_i log2 p_i` over the 256 byte values.
pub fn byte_entropy(data: &[u8]) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let mut counts = [0u64; 256];
    for &b in data {
        counts[usize::from(b)] += 1;
    }
    let n = data.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// Counts of each byte value.
pub fn byte_histogram(data: &[u8]) -> [u64; 256] {
    let mut counts = [0u64; 256];
    for &b in data {
        counts[usize::from(b)] += 1;
    }
    counts
}

/// Pearson's chi-square statistic of `counts` against the uniform distribution over
/// their cells, and its upper-tail p-value with `cells - 1` degrees of freedom: the
/// probability that a truly uniform source gives a statistic at least this large.
///
/// Reference: K. Pearson, "On the criterion that a given system of deviations...",
/// Philosophical Magazine 50 (1900): `X^2 = sum (O_i - E_i)^2 / E_i`; the p-value is
/// `Q(k/2, X^2/2)`, the regularized upper incomplete gamma function ([`gamma_q`]).
/// Returns `None` for no observations or fewer than two cells.
pub fn chi_square_uniform(counts: &[u64]) -> Option<(f64, f64)> {
    let n: u64 = counts.iter().sum();
    if n == 0 || counts.len() < 2 {
        return None;
    }
    let expected = n as f64 / counts.len() as f64;
    let x2: f64 = counts
        .iter()
        .map(|&o| {
            let d = o as f64 - expected;
            d * d / expected
        })
        .sum();
    let dof = (counts.len() - 1) as f64;
    Some((x2, gamma_q(dof / 2.0, x2 / 2.0)))
}

/// The regularized upper incomplete gamma function `Q(a, x) = Γ(a, x) / Γ(a)` for
/// `a > 0`, `x >= 0`.
///
/// Reference: W. H. Press et al., *Numerical Recipes*, 3rd ed., 2007, sec. 6.2: the
/// series for `P(a, x)` when `x < a + 1`, else the continued fraction for `Q(a, x)`
/// evaluated by the modified Lentz method; `ln Γ` by [`ln_gamma`]. Accurate to about
/// 1e-12 relative, far beyond what a p-value needs.
pub fn gamma_q(a: f64, x: f64) -> f64 {
    // Written so that NaN arguments fail too.
    if a.is_nan() || x.is_nan() || a <= 0.0 || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return 1.0;
    }
    let log_prefix = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        // P(a, x) = e^-x x^a / Γ(a+1) * sum_n x^n / ((a+1)...(a+n))
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        (1.0 - sum * log_prefix.exp()).clamp(0.0, 1.0)
    } else {
        // Q(a, x) = e^-x x^a / Γ(a) * 1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...)))
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (log_prefix.exp() * h).clamp(0.0, 1.0)
    }
}

/// `ln Γ(x)` for `x > 0`.
///
/// Reference: C. Lanczos, "A precision approximation of the gamma function", SIAM J.
/// Numer. Anal. B 1 (1964); the coefficients (g = 7, n = 9) are the widely published
/// set of P. Godfrey, accurate to about 1e-15.
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEF: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1-x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = COEF[0];
    let t = x + G + 0.5;
    for (i, c) in COEF.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}
