//! Random draws shaped like the data roost stands in for (skewed picks, power laws,
//! activity that grows over time, enum values that all occur), and the synthetic
//! calendar they fall in. Every draw comes from the one seeded stream, in call order.

use chrono::NaiveDate;
use rand::RngExt;

use super::Rng;
use crate::records::Ts;

/// 2016-01-01T00:00:00Z, in seconds.
pub(super) const START: i64 = 1_451_606_400;
/// 2026-10-01T00:00:00Z, in seconds: the end of the synthetic history.
pub(super) const END: i64 = 1_790_812_800;
pub(super) const DAY: i64 = 86_400;

pub(super) fn ts(secs: i64) -> Ts {
    Ts(secs * 1_000_000)
}

pub(super) fn month_start(year: i32, month: u32) -> i64 {
    NaiveDate::from_ymd_opt(year, month, 1)
        .expect("valid month")
        .and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc()
        .timestamp()
}

pub(super) const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

pub(super) fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.random_range(0..items.len())]
}

/// An index below `n`, skewed towards 0 (larger `power`, stronger skew).
pub(super) fn skew(rng: &mut Rng, n: usize, power: f64) -> usize {
    let u: f64 = rng.random();
    ((u.powf(power) * n as f64) as usize).min(n - 1)
}

/// A Pareto sample ≥ 1 with tail index `alpha`, capped.
pub(super) fn pareto(rng: &mut Rng, alpha: f64, cap: f64) -> f64 {
    let u: f64 = rng.random();
    (1.0 / (1.0 - u).powf(1.0 / alpha)).min(cap)
}

pub(super) fn chance(rng: &mut Rng, p: f64) -> bool {
    rng.random_bool(p)
}

/// A timestamp in `[lo, hi)`, denser towards `hi` (activity grows over time).
pub(super) fn when(rng: &mut Rng, lo: i64, hi: i64) -> i64 {
    if hi <= lo {
        return lo;
    }
    let u: f64 = rng.random();
    lo + ((hi - lo) as f64 * u.powf(0.75)) as i64
}

/// A timestamp after `t`, usually soon after, never past `limit` (unless `t` is).
pub(super) fn later(rng: &mut Rng, t: i64, limit: i64) -> i64 {
    let span = (limit - t).max(0);
    let u: f64 = rng.random();
    t + (span as f64 * u.powf(3.0)) as i64
}

/// Splits `total` among items by weight (cumulative rounding: the parts sum to `total`).
pub(super) fn apportion(total: usize, weights: &[f64]) -> Vec<usize> {
    let sum: f64 = weights.iter().sum();
    let mut out = Vec::with_capacity(weights.len());
    let mut cumulative = 0.0;
    let mut given = 0usize;
    for w in weights {
        cumulative += w;
        let upto = if sum > 0.0 {
            ((cumulative / sum) * total as f64).round() as usize
        } else {
            0
        };
        let upto = upto.min(total);
        out.push(upto - given.min(upto));
        given = given.max(upto);
    }
    if let Some(last) = out.last_mut() {
        *last += total - given;
    }
    out
}

/// Picks an enum value: the first records walk through every value, so even a small
/// dataset holds each; later ones follow `weights`.
pub(super) fn enum_value<T: Copy>(rng: &mut Rng, index: usize, all: &[T], weights: &[u32]) -> T {
    if index < all.len() {
        return all[index];
    }
    let total: u32 = weights.iter().sum();
    let mut x = rng.random_range(0..total);
    for (value, &w) in all.iter().zip(weights) {
        if x < w {
            return *value;
        }
        x -= w;
    }
    all[all.len() - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apportion_sums_to_the_total() {
        let parts = apportion(1000, &[1.0, 0.0, 5.0, 0.5, 3.0]);
        assert_eq!(parts.iter().sum::<usize>(), 1000);
        assert_eq!(parts[1], 0);
        assert!(parts[2] > parts[4] && parts[4] > parts[3]);
    }

    #[test]
    fn time_constants_are_the_documented_dates() {
        assert_eq!(START, month_start(2016, 1));
        assert_eq!(END, month_start(2026, 10));
    }
}
