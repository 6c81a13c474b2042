//! What a result is worth: a playout's value for Black from its margin, the
//! win rate behind a mean value, and a value of Black's as either player
//! sees it.

use crate::go::board::Color;

/// 1 for a Black win by `margin` (komi included), 0 for a loss, ½ for a draw.
#[inline]
pub fn win_value(margin: f64) -> f64 {
    if margin > 0.0 {
        1.0
    } else if margin < 0.0 {
        0.0
    } else {
        0.5
    }
}

/// How a result's margin enters its value: the score part's share of the
/// value (`weight`; the win takes the rest) and its shape. See
/// [`SearchConfig::score_weight`](super::config::SearchConfig::score_weight).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreUtility {
    pub weight: f64,
    pub shape: ScoreShape,
}

/// The score part of a value, 0..1, as a function of Black's margin `m`
/// (komi included) on a board of side `size` (of a square board of the same
/// area), about a center `c` near the margin the search expects. Centring
/// keeps the score part sharp when the game is lopsided and every result is
/// won (or lost) by far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreShape {
    /// `½ + ½ · tanh((m - c) / size)`, centred on the expected margin.
    Tanh,
    /// KataGo's score utilities on tengen's scale: `½ + ⅛ · a(m / (2 ·
    /// size)) + ⅜ · a((m - c) / (0.75 · size))` with `a(x) = 2/π ·
    /// atan(x)`: its static utility (factor 0.1, about 0) and its dynamic one
    /// (factor 0.3, about `c`, 0.8 of the expected margin), in the shares
    /// those factors give them. With a weight of 2/7 (KataGo's 0.4 of score
    /// utility against 1 of win-loss utility) a value is KataGo's utility
    /// `u` mapped as `½ + u / 2.8`.
    KataGo,
}

/// `2/π · atan(x)`: KataGo's score value of `x` scales.
#[inline]
fn atan_value(x: f64) -> f64 {
    std::f64::consts::FRAC_2_PI * x.atan()
}

/// Nodes (abscissas) and weights of 5-point Gauss-Hermite quadrature for a
/// standard normal: `E[f(Z)] ≈ Σ w_i f(z_i)`.
const NORMAL_QUADRATURE: [(f64, f64); 5] = [
    (-2.856_970_013_872_806, 0.011_257_411_327_720_69),
    (-1.355_626_179_974_266, 0.222_075_922_005_612_6),
    (0.0, 0.533_333_333_333_333_3),
    (1.355_626_179_974_266, 0.222_075_922_005_612_6),
    (2.856_970_013_872_806, 0.011_257_411_327_720_69),
];

/// Steps of a standard deviation between the points at which KataGo's
/// expected score value is summed, and how many standard deviations out.
const KATAGO_STEPS_PER_STDEV: f64 = 5.0;
const KATAGO_STDEVS: i32 = 5;

impl ScoreShape {
    /// The score part of a margin known exactly.
    #[inline]
    pub fn of_margin(self, margin: f64, center: f64, size: f64) -> f64 {
        match self {
            ScoreShape::Tanh => 0.5 + 0.5 * ((margin - center) / size).tanh(),
            ScoreShape::KataGo => {
                0.5 + 0.125 * atan_value(margin / (2.0 * size))
                    + 0.375 * atan_value((margin - center) / (0.75 * size))
            }
        }
    }

    /// The expected score part over a normal distribution of the margin
    /// (`margin` its mean, `stdev` its deviation): the tanh by 5-point
    /// Gauss-Hermite quadrature; KataGo's as KataGo sums it, over the
    /// normal cut at 5 deviations.
    pub fn expected(self, margin: f64, stdev: f64, center: f64, size: f64) -> f64 {
        let stdev = stdev.max(0.0);
        if stdev == 0.0 {
            return self.of_margin(margin, center, size);
        }
        match self {
            ScoreShape::Tanh => NORMAL_QUADRATURE
                .iter()
                .map(|&(z, w)| w * self.of_margin(margin + stdev * z, center, size))
                .sum(),
            ScoreShape::KataGo => {
                let last = KATAGO_STDEVS * KATAGO_STEPS_PER_STDEV as i32;
                let (mut sum, mut weights) = (0.0, 0.0);
                for i in -last..=last {
                    let z = f64::from(i) / KATAGO_STEPS_PER_STDEV;
                    let w = (-0.5 * z * z).exp();
                    sum += w * self.of_margin(margin + stdev * z, center, size);
                    weights += w;
                }
                sum / weights
            }
        }
    }

    /// The slope of the score part in points at `margin`.
    pub fn slope(self, margin: f64, center: f64, size: f64) -> f64 {
        // d/dx 2/π · atan(x / k) = 2/π · k / (k² + x²).
        let atan_slope = |x: f64, k: f64| std::f64::consts::FRAC_2_PI * k / (k * k + x * x);
        match self {
            ScoreShape::Tanh => {
                let sech = 1.0 / ((margin - center) / size).cosh();
                0.5 * sech * sech / size
            }
            ScoreShape::KataGo => {
                0.125 * atan_slope(margin, 2.0 * size)
                    + 0.375 * atan_slope(margin - center, 0.75 * size)
            }
        }
    }

    /// The center a search scores about when it expects Black's margin to
    /// be `expected`: that margin, or KataGo's 0.8 of it (its
    /// `dynamicScoreCenterZeroWeight` 0.2), never more than `0.75 · size`
    /// from it.
    pub fn center(self, expected: f64, size: f64) -> f64 {
        match self {
            ScoreShape::Tanh => expected,
            ScoreShape::KataGo => {
                let cap = 0.75 * size;
                (0.8 * expected).clamp(expected - cap, expected + cap)
            }
        }
    }
}

impl ScoreUtility {
    /// The value for Black of a result with Black's winning chance `win`
    /// and a margin of mean `margin` and deviation `stdev` (0: known
    /// exactly): the win blended with the expected score part.
    #[inline]
    pub fn value(self, win: f64, margin: f64, stdev: f64, center: f64, size: f64) -> f64 {
        let score = if self.weight == 0.0 {
            0.5
        } else {
            self.shape.expected(margin, stdev, center, size)
        };
        (1.0 - self.weight) * win.clamp(0.0, 1.0) + self.weight * score
    }
}

/// The value for Black of a playout that ended `margin` points up (komi
/// included) on a board of side `size`: the win value blended with the
/// score part about `center`.
#[inline]
pub fn playout_value(margin: f64, center: f64, size: f64, utility: ScoreUtility) -> f64 {
    utility.value(win_value(margin), margin, 0.0, center, size)
}

/// The winning probability behind a mean [`playout_value`]: the score part
/// averages about ½ (it is centred on the expected margin), so the win part
/// is `(value - w/2) / (1 - w)`. What analysis reports and resigning uses.
pub fn winrate_of(value: f64, score_weight: f64) -> f64 {
    if score_weight >= 1.0 {
        return 0.5;
    }
    ((value - 0.5 * score_weight) / (1.0 - score_weight)).clamp(0.0, 1.0)
}

/// A value of Black's (0..1) as `mover` sees it.
#[inline]
pub(super) fn for_mover(black_value: f32, mover: Color) -> f32 {
    match mover {
        Color::Black => black_value,
        Color::White => 1.0 - black_value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tanh(weight: f64) -> ScoreUtility {
        ScoreUtility {
            weight,
            shape: ScoreShape::Tanh,
        }
    }

    #[test]
    fn any_win_outweighs_any_loss_and_margins_order_the_rest() {
        let size = 9.0;
        for shape in [ScoreShape::Tanh, ScoreShape::KataGo] {
            for w in [0.0, 0.1, 0.25, 2.0 / 7.0, 0.5] {
                let u = ScoreUtility { weight: w, shape };
                for center in [-60.0, 0.0, 60.0] {
                    let v = |m: f64| playout_value(m, center, size, u);
                    // A narrow win against a crushing loss, wherever the centre is.
                    assert!(v(0.5) >= v(-0.5), "{shape:?} w {w} center {center}");
                    assert!(v(0.5) > v(-80.0), "{shape:?} w {w} center {center}");
                    let score_only = shape.of_margin(0.0, center, size);
                    assert!((v(0.0) - (0.5 * (1.0 - w) + w * score_only)).abs() < 1e-12);
                    if w > 0.0 {
                        // Around the centre a few points still count, won or lost.
                        assert!(
                            v(center + 3.0) > v(center - 3.0) + w * 0.1,
                            "{shape:?} w {w} center {center}"
                        );
                    } else {
                        assert_eq!(v(30.0), v(80.0));
                    }
                    for m in [-80.0, -7.5, 0.5, 7.5, 80.0] {
                        assert!((0.0..=1.0).contains(&v(m)));
                    }
                }
            }
        }
        // Tanh: results at the centre carry no score signal, the win rate
        // comes back exactly.
        for w in [0.0, 0.1, 0.25, 0.5] {
            for center in [-60.0f64, 0.0, 60.0] {
                let won = playout_value(center.abs() + 1.0, center.abs() + 1.0, size, tanh(w));
                let lost = playout_value(-center.abs() - 1.0, -center.abs() - 1.0, size, tanh(w));
                assert!((winrate_of(won, w) - 1.0).abs() < 1e-12);
                assert!(winrate_of(lost, w).abs() < 1e-12);
                assert!((winrate_of(0.5 * (won + lost), w) - 0.5).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn expected_values_order_wins_then_margins_and_reduce_to_the_win_rate() {
        let size = 19.0;
        for shape in [ScoreShape::Tanh, ScoreShape::KataGo] {
            for w in [0.0, 0.1, 0.25, 0.5] {
                let u = ScoreUtility { weight: w, shape };
                let v = |win: f64, m: f64, sd: f64| u.value(win, m, sd, 0.0, size);
                for sd in [0.0, 5.0, 30.0] {
                    assert!(v(0.6, 0.0, sd) > v(0.5, 0.0, sd));
                    if w > 0.0 {
                        assert!(v(0.5, 10.0, sd) > v(0.5, -10.0, sd));
                    }
                    assert!((0.0..=1.0).contains(&v(1.0, 80.0, sd)));
                    assert!((0.0..=1.0).contains(&v(0.0, -80.0, sd)));
                    // A symmetric score distribution about 0 (both shapes'
                    // centre here) is worth ½.
                    assert!((v(0.7, 0.0, sd) - ((1.0 - w) * 0.7 + w * 0.5)).abs() < 1e-9);
                }
                // Without spread, the expectation is the plain score part.
                let plain = shape.of_margin(7.0, 0.0, size);
                assert!((v(0.5, 7.0, 0.0) - ((1.0 - w) * 0.5 + w * plain)).abs() < 1e-12);
            }
            // Spread pulls a sure margin's score part toward ½ (both are
            // concave above the centre).
            assert!(shape.expected(20.0, 30.0, 0.0, size) < shape.of_margin(20.0, 0.0, size));
        }
        // The quadrature's weights sum to one and match E[Z²] = 1.
        let (w, z2): (f64, f64) = NORMAL_QUADRATURE
            .iter()
            .fold((0.0, 0.0), |(a, b), &(z, w)| (a + w, b + w * z * z));
        assert!((w - 1.0).abs() < 1e-9 && (z2 - 1.0).abs() < 1e-9);
    }

    /// KataGo's shape at weight 2/7 is KataGo's utility `u` (win-loss plus
    /// 0.1 static and 0.3 dynamic score utility) as `½ + u / 2.8`, its
    /// expectation the normal's integral to within KataGo's own table's
    /// precision, and its slope the derivative.
    #[test]
    fn the_katago_shape_is_katagos_utility_on_tengens_scale() {
        let u = ScoreUtility {
            weight: 2.0 / 7.0,
            shape: ScoreShape::KataGo,
        };
        let a = |x: f64| 2.0 / std::f64::consts::PI * x.atan();
        for size in [9.0, 13.0, 19.0] {
            for (win, margin, center) in [(0.7, 3.5, 2.0), (0.1, -25.0, -18.0), (1.0, 60.5, 48.0)] {
                let katago = (2.0 * win - 1.0)
                    + 0.1 * a(margin / (2.0 * size))
                    + 0.3 * a((margin - center) / (0.75 * size));
                let got = u.value(win, margin, 0.0, center, size);
                assert!((got - (0.5 + katago / 2.8)).abs() < 1e-12, "{got} {katago}");
                // The expectation over N(margin, 12²), integrated finely.
                let stdev = 12.0;
                let (mut sum, mut weights) = (0.0, 0.0);
                for i in -8000..=8000 {
                    let z = f64::from(i) / 1000.0;
                    let w = (-0.5 * z * z).exp();
                    sum += w * ScoreShape::KataGo.of_margin(margin + stdev * z, center, size);
                    weights += w;
                }
                let fine = sum / weights;
                let got = ScoreShape::KataGo.expected(margin, stdev, center, size);
                assert!((got - fine).abs() < 1e-4, "{got} against {fine}");
                // The slope, against a central difference.
                for shape in [ScoreShape::Tanh, ScoreShape::KataGo] {
                    let h = 1e-4;
                    let numeric = (shape.of_margin(margin + h, center, size)
                        - shape.of_margin(margin - h, center, size))
                        / (2.0 * h);
                    let slope = shape.slope(margin, center, size);
                    assert!(
                        (slope - numeric).abs() < 1e-7,
                        "{shape:?} {slope} {numeric}"
                    );
                }
            }
            // The center: KataGo's 0.8 of the expected margin.
            assert_eq!(ScoreShape::KataGo.center(10.0, size), 8.0);
            assert_eq!(ScoreShape::Tanh.center(10.0, size), 10.0);
            let far = 400.0;
            assert!((ScoreShape::KataGo.center(far, size) - (far - 0.75 * size)).abs() < 1e-9);
        }
    }
}
