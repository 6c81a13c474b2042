//! Win-rate statistics for a match: the Wilson score interval.

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval for `score` successes in `n` trials (a draw
/// counts half a success), at normal quantile `z`. `None` when `n` is 0.
pub fn wilson(score: f64, n: u32, z: f64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let n = f64::from(n);
    let p = (score / n).clamp(0.0, 1.0);
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-4
    }

    #[test]
    fn known_values() {
        // 8 of 10: the textbook Wilson interval is [0.490, 0.943].
        let (lo, hi) = wilson(8.0, 10, Z95).unwrap();
        assert!(close(lo, 0.4902) && close(hi, 0.9433), "{lo} {hi}");
        // 0 of 10 is [0, 0.278]; 10 of 10 is [0.722, 1].
        let (lo, hi) = wilson(0.0, 10, Z95).unwrap();
        assert!(close(lo, 0.0) && close(hi, 0.2775), "{lo} {hi}");
        let (lo, hi) = wilson(10.0, 10, Z95).unwrap();
        assert!(close(lo, 0.7225) && close(hi, 1.0), "{lo} {hi}");
        // Symmetric around one half.
        let (lo, hi) = wilson(50.0, 100, Z95).unwrap();
        assert!(close(lo + hi, 1.0) && close(lo, 0.4038), "{lo} {hi}");
        assert_eq!(wilson(0.0, 0, Z95), None);
    }
}
