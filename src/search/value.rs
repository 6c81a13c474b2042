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

/// The value for Black of a playout that ended `margin` points up (komi
/// included) on a board of side `size`: the win value, and with weight
/// `score_weight` a score value `0.5 + 0.5 * tanh((margin - center) / size)`
/// centred on the expected margin `center` (KataGo's dynamic score utility).
/// Centring keeps the score part sharp when the game is lopsided and every
/// playout is won (or lost) by far; see
/// [`SearchConfig::score_weight`](super::config::SearchConfig::score_weight).
#[inline]
pub fn playout_value(margin: f64, center: f64, size: f64, score_weight: f64) -> f64 {
    let score = 0.5 + 0.5 * ((margin - center) / size).tanh();
    (1.0 - score_weight) * win_value(margin) + score_weight * score
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

    #[test]
    fn any_win_outweighs_any_loss_and_margins_order_the_rest() {
        let size = 9.0;
        for w in [0.0, 0.1, 0.25, 0.5] {
            for center in [-60.0, 0.0, 60.0] {
                let v = |m: f64| playout_value(m, center, size, w);
                // A narrow win against a crushing loss, wherever the centre is.
                assert!(v(0.5) >= v(-0.5), "w {w} center {center}");
                assert!(v(0.5) > v(-80.0), "w {w} center {center}");
                let score_only = playout_value(0.0, center, size, 1.0);
                assert_eq!(v(0.0), 0.5 * (1.0 - w) + w * score_only);
                if w > 0.0 {
                    // Around the centre a few points still count, won or lost.
                    assert!(
                        v(center + 3.0) > v(center - 3.0) + w * 0.1,
                        "w {w} center {center}"
                    );
                } else {
                    assert_eq!(v(30.0), v(80.0));
                }
                for m in [-80.0, -7.5, 0.5, 7.5, 80.0] {
                    assert!((0.0..=1.0).contains(&v(m)));
                }
                // Results at the centre carry no score signal: the win rate
                // comes back exactly.
                let won = playout_value(center.abs() + 1.0, center.abs() + 1.0, size, w);
                let lost = playout_value(-center.abs() - 1.0, -center.abs() - 1.0, size, w);
                assert!((winrate_of(won, w) - 1.0).abs() < 1e-12);
                assert!(winrate_of(lost, w).abs() < 1e-12);
                assert!((winrate_of(0.5 * (won + lost), w) - 0.5).abs() < 1e-12);
            }
        }
    }
}
