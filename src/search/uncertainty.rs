//! Uncertainty-weighted playouts, as KataGo weights them (`useUncertainty`,
//! `uncertaintyCoeff`, `uncertaintyMaxWeight`, exponent 1): nets of model
//! version 10 and later estimate how far their own value and score are from
//! what a short search would say (the short-term error heads). A leaf the
//! net is sure of counts for more in the nodes above it, one it is unsure of
//! for less: its weight is `coeff / (u + coeff / max_weight)`, where `u` is
//! the net's expected error in KataGo's utility units (the win/loss error,
//! plus the score error times how fast the score utility changes at the
//! net's score). Nets without the heads (model version 8, the built-in
//! b6c96) give every leaf weight 1, as does the classical search.

#[cfg(test)]
use super::value::ScoreShape;
use super::value::ScoreUtility;

/// The weighting of one search. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UncertaintyWeighting {
    /// KataGo's `uncertaintyCoeff` (0.25 in its GTP and analysis engines).
    pub coeff: f64,
    /// KataGo's `uncertaintyMaxWeight` (8): the weight of an evaluation
    /// without error.
    pub max_weight: f64,
    /// How the score enters tengen's value, and KataGo utility units per
    /// unit of tengen's value.
    pub score: ScoreUtility,
    pub utility_per_value: f64,
}

impl UncertaintyWeighting {
    /// The weight of a net evaluation whose short-term errors are
    /// `winloss_error` (in win-minus-loss units, -1..1) and `score_error`
    /// (points), at Black's expected margin `margin` on a board whose score
    /// utility is centred on `center` and scaled by `size` (the side of a
    /// square board of its area; see [`super::value::ScoreUtility::value`]). A negative
    /// error (a net without the heads) or one that is not a number gives 1.
    pub fn weight(
        &self,
        winloss_error: f64,
        score_error: f64,
        margin: f64,
        center: f64,
        size: f64,
    ) -> f64 {
        let known = |e: f64| e.is_finite() && e >= 0.0;
        if !known(winloss_error) || !known(score_error) || self.coeff <= 0.0 {
            return 1.0;
        }
        // The slope of the score part of tengen's value in points, in
        // KataGo's utility units.
        let score_slope = self.score.weight
            * self.score.shape.slope(margin, center, size.max(1.0))
            * self.utility_per_value;
        let uncertainty = winloss_error + score_slope * score_error;
        let baseline = self.coeff / self.max_weight.max(1e-6);
        self.coeff / (uncertainty + baseline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn katago_defaults() -> UncertaintyWeighting {
        UncertaintyWeighting {
            coeff: 0.25,
            max_weight: 8.0,
            score: ScoreUtility {
                weight: 0.25,
                shape: ScoreShape::Tanh,
            },
            utility_per_value: 2.0 / 0.75,
        }
    }

    #[test]
    fn a_sure_evaluation_weighs_up_to_the_maximum_and_an_unsure_one_less() {
        let u = katago_defaults();
        let sure = u.weight(0.0, 0.0, 3.0, 0.0, 19.0);
        assert!((sure - 8.0).abs() < 1e-12, "{sure}");
        // KataGo's formula with the win/loss error alone: 0.25 / (0.3 + 0.25 / 8).
        let unsure = u.weight(0.3, 0.0, 3.0, 0.0, 19.0);
        assert!((unsure - 0.25 / (0.3 + 0.03125)).abs() < 1e-12, "{unsure}");
        // More score error, less weight; less so far from the centre, where
        // the score utility is flat.
        let near = u.weight(0.1, 10.0, 1.0, 0.0, 19.0);
        let far = u.weight(0.1, 10.0, 80.0, 0.0, 19.0);
        let none = u.weight(0.1, 0.0, 1.0, 0.0, 19.0);
        assert!(near < far && far < none, "{near} {far} {none}");
        // The slope written out at the centre: w · 0.5 / size per point, in
        // utility units.
        let slope = 0.25 * 0.5 / 19.0 * (2.0 / 0.75);
        let at_center = u.weight(0.1, 10.0, 0.0, 0.0, 19.0);
        assert!((at_center - 0.25 / (0.1 + slope * 10.0 + 0.03125)).abs() < 1e-12);
    }

    #[test]
    fn nets_without_error_heads_and_a_zero_coefficient_give_weight_one() {
        let u = katago_defaults();
        assert_eq!(u.weight(-1.0, -1.0, 0.0, 0.0, 9.0), 1.0);
        assert_eq!(u.weight(f64::NAN, 2.0, 0.0, 0.0, 9.0), 1.0);
        let off = UncertaintyWeighting { coeff: 0.0, ..u };
        assert_eq!(off.weight(0.2, 3.0, 0.0, 0.0, 9.0), 1.0);
    }
}
