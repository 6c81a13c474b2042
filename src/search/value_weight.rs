//! How a node's children are weighted in its value, as KataGo weights them
//! (`valueWeightExponent`, `useNoisePruning`): not by visits alone, so that
//! the visits PUCT spends exploring poor moves drag the node's value down
//! less.
//!
//! - *Value weighting*: each child's visits are multiplied by `P^e`, where
//!   `P` is the chance under a Student t (3 degrees of freedom) that a
//!   child as good as this one beats the visit-weighted mean of the
//!   children, its spread shrinking with `visits^¼` (KataGo's
//!   `1 / (1.5 · sqrt(weight))` variance in utility units); then the
//!   weights are scaled back to the same total.
//! - *Noise pruning*: taken in the order of their priors, a child worse than
//!   the children before it loses part of whatever weight it has beyond
//!   twice its policy's share of theirs, the more the worse it is
//!   (`1 - exp(-gap / scale)`).
//!
//! Values here are tengen's (0..1 for the player to move); KataGo's
//! constants are in its utility units, so gaps are converted by
//! [`ValueShaping::utility_per_value`].

/// The child weighting of one search. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueShaping {
    /// KataGo's `valueWeightExponent` (0: plain visit weights).
    pub exponent: f64,
    /// KataGo's `noisePruneUtilityScale` (0: no noise pruning).
    pub noise_prune_scale: f64,
    /// KataGo utility units per unit of tengen's value.
    pub utility_per_value: f64,
}

/// One visited child: its prior, its value for the player choosing among
/// the children, its visits (its weight, once shaped), and a tag for the
/// caller to find it by after [`ValueShaping::shape`] has reordered them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Child {
    pub prior: f32,
    pub value: f64,
    pub visits: f64,
    pub tag: u32,
}

/// The cumulative distribution function of Student's t with 3 degrees of
/// freedom (closed form).
pub fn t3_cdf(t: f64) -> f64 {
    let x = t / 3f64.sqrt();
    0.5 + (x / (1.0 + x * x) + x.atan()) / std::f64::consts::PI
}

/// [`t3_cdf`] at `z`, interpolated in a table over -16..16 (within 2e-6;
/// the tails beyond are clamped): the value weighting calls it for every
/// visited child of every node a backup passes through.
fn t3_cdf_table(z: f64) -> f64 {
    const STEPS: usize = 4096;
    const RANGE: f64 = 16.0;
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..=STEPS)
            .map(|i| t3_cdf(-RANGE + 2.0 * RANGE * i as f64 / STEPS as f64))
            .collect()
    });
    let x = ((z + RANGE) / (2.0 * RANGE) * STEPS as f64).clamp(0.0, STEPS as f64);
    let i = (x as usize).min(STEPS - 1);
    let f = x - i as f64;
    table[i] + (table[i + 1] - table[i]) * f
}

/// `x^e` for `x > 0`, with KataGo's exponent ¼ (and ½) by square roots.
#[inline]
fn power(x: f64, e: f64) -> f64 {
    if e == 0.25 {
        x.sqrt().sqrt()
    } else if e == 0.5 {
        x.sqrt()
    } else {
        x.powf(e)
    }
}

impl ValueShaping {
    /// Whether the shaping changes anything.
    pub fn is_active(&self) -> bool {
        self.exponent > 0.0 || self.noise_prune_scale > 0.0
    }

    /// The weighted mean value of `children` (for the player choosing among
    /// them); `children` is reordered (by prior, when pruning noise). The
    /// plain visit-weighted mean when the shaping is off; 0.5 with no visits.
    pub fn mean(&self, children: &mut [Child]) -> f64 {
        let total: f64 = children.iter().map(|c| c.visits).sum();
        if total <= 0.0 {
            return 0.5;
        }
        let plain = children.iter().map(|c| c.visits * c.value).sum::<f64>() / total;
        self.shape(children);
        let weight: f64 = children.iter().map(|c| c.visits).sum();
        if weight <= 0.0 {
            return plain;
        }
        children.iter().map(|c| c.visits * c.value).sum::<f64>() / weight
    }

    /// Replaces each child's visits by its weight (see the module
    /// documentation); the children may be reordered. Nothing changes when
    /// the shaping is off or there are fewer than two children.
    pub fn shape(&self, children: &mut [Child]) {
        if children.len() < 2 || !self.is_active() {
            return;
        }
        let mut total: f64 = children.iter().map(|c| c.visits).sum();
        if self.noise_prune_scale > 0.0 {
            total = self.prune_noise(children);
        }
        if self.exponent > 0.0 {
            self.weigh_by_value(children, total);
        }
    }

    /// Noise pruning (see the module documentation); the children end in
    /// prior order with their weights in `visits`. Returns the new total.
    fn prune_noise(&self, children: &mut [Child]) -> f64 {
        if !children.is_sorted_by(|a, b| a.prior >= b.prior) {
            children.sort_unstable_by(|a, b| b.prior.total_cmp(&a.prior));
        }
        let (mut value_sum, mut weight_sum, mut policy_sum) = (0.0, 0.0, 0.0);
        for c in children.iter_mut() {
            let prior = f64::from(c.prior).max(1e-30);
            if weight_sum > 0.0 && policy_sum > 0.0 {
                let gap = (value_sum / weight_sum - c.value) * self.utility_per_value;
                let lenient_share = 2.0 * weight_sum * prior / policy_sum;
                if gap > 0.0 && c.visits > lenient_share {
                    let excess = c.visits - lenient_share;
                    c.visits -= excess * (1.0 - (-gap / self.noise_prune_scale).exp());
                }
            }
            value_sum += c.value * c.visits;
            weight_sum += c.visits;
            policy_sum += prior;
        }
        weight_sum
    }

    /// Value weighting (see the module documentation), the weights scaled
    /// to sum to `total`.
    fn weigh_by_value(&self, children: &mut [Child], total: f64) {
        let current: f64 = children.iter().map(|c| c.visits).sum();
        if current <= 0.0 {
            return;
        }
        let mean = children.iter().map(|c| c.visits * c.value).sum::<f64>() / current;
        let mut unnormalised = 0.0;
        for c in children.iter_mut() {
            if c.visits <= 0.0 {
                continue;
            }
            let precision = 1.5 * c.visits.sqrt();
            let stdev = (1e-8 + 1.0 / precision).sqrt();
            let z = (c.value - mean) * self.utility_per_value / stdev;
            c.visits *= power(t3_cdf_table(z) + 0.0001, self.exponent);
            unnormalised += c.visits;
        }
        if unnormalised > 0.0 {
            let scale = total / unnormalised;
            for c in children.iter_mut() {
                c.visits *= scale;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shaping(exponent: f64, noise: f64) -> ValueShaping {
        ValueShaping {
            exponent,
            noise_prune_scale: noise,
            utility_per_value: 2.0,
        }
    }

    /// The t density with 3 degrees of freedom, integrated numerically.
    fn t3_cdf_by_integration(t: f64) -> f64 {
        let density = |x: f64| 6.0 * 3f64.sqrt() / (std::f64::consts::PI * (3.0 + x * x).powi(2));
        let (lo, steps) = (-2000.0, 400_000);
        let h = (t - lo) / steps as f64;
        let mut sum = 0.5 * (density(lo) + density(t));
        for i in 1..steps {
            sum += density(lo + i as f64 * h);
        }
        // The tail below `lo` is about 2·sqrt(3)·3 / (π · 3 · |lo|³)... negligible.
        sum * h
    }

    #[test]
    fn t3_cdf_matches_its_density_integrated() {
        for t in [-6.0, -2.0, -0.5, 0.0, 0.3, 1.0, 4.0] {
            let (fast, slow) = (t3_cdf(t), t3_cdf_by_integration(t));
            assert!((fast - slow).abs() < 1e-6, "{t}: {fast} vs {slow}");
        }
        assert!((t3_cdf(0.0) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn the_table_follows_the_closed_form() {
        let mut worst = 0.0f64;
        for i in -32_000..=32_000 {
            let z = i as f64 * 0.0005;
            worst = worst.max((t3_cdf_table(z) - t3_cdf(z)).abs());
        }
        assert!(worst < 2e-6, "{worst}");
        // Beyond ±16 the tails are clamped, 1.3e-4 off at worst.
        assert!((t3_cdf_table(-1e9) - t3_cdf(-16.0)).abs() < 1e-12);
        assert!((t3_cdf_table(-20.0) - t3_cdf(-20.0)).abs() < 2e-4);
        assert!((t3_cdf_table(f64::INFINITY) - t3_cdf(16.0)).abs() < 1e-12);
    }

    #[test]
    fn off_it_is_the_visit_weighted_mean() {
        let mut children = [
            Child {
                prior: 0.5,
                value: 0.6,
                visits: 30.0,
                tag: 0,
            },
            Child {
                prior: 0.3,
                value: 0.2,
                visits: 10.0,
                tag: 0,
            },
        ];
        let mean = shaping(0.0, 0.0).mean(&mut children);
        assert!((mean - 0.5).abs() < 1e-12);
        assert_eq!(shaping(0.0, 0.0).mean(&mut []), 0.5);
    }

    #[test]
    fn poor_children_count_for_less_and_good_ones_for_more() {
        let children = [
            Child {
                prior: 0.5,
                value: 0.6,
                visits: 30.0,
                tag: 0,
            },
            Child {
                prior: 0.3,
                value: 0.2,
                visits: 10.0,
                tag: 0,
            },
            Child {
                prior: 0.1,
                value: 0.58,
                visits: 5.0,
                tag: 0,
            },
        ];
        let plain = shaping(0.0, 0.0).mean(&mut children.clone());
        let weighted = shaping(0.25, 0.0).mean(&mut children.clone());
        assert!(weighted > plain + 0.01, "{weighted} vs {plain}");
        assert!(weighted < 0.6);
        // Equal values: nothing to reweigh.
        let mut same = children;
        for c in &mut same {
            c.value = 0.4;
        }
        assert!((shaping(0.25, 0.15).mean(&mut same) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn noise_pruning_cuts_a_poor_child_with_more_than_its_policy_share() {
        // A child with a tiny prior but many visits and a poor value.
        let mut children = [
            Child {
                prior: 0.01,
                value: 0.1,
                visits: 20.0,
                tag: 0,
            },
            Child {
                prior: 0.8,
                value: 0.6,
                visits: 20.0,
                tag: 0,
            },
        ];
        let pruned = shaping(0.0, 0.15).mean(&mut children);
        assert!(pruned > 0.5, "{pruned}");
        // Sorted by prior, the poor child lost weight, the good one none.
        assert_eq!(children[0].prior, 0.8);
        assert_eq!(children[0].visits, 20.0);
        assert!(children[1].visits < 1.0, "{}", children[1].visits);
        // A poor child within its policy share keeps its weight.
        let mut fair = [
            Child {
                prior: 0.4,
                value: 0.1,
                visits: 10.0,
                tag: 0,
            },
            Child {
                prior: 0.6,
                value: 0.6,
                visits: 20.0,
                tag: 0,
            },
        ];
        let kept = shaping(0.0, 0.15).mean(&mut fair);
        assert!((kept - (0.1 * 10.0 + 0.6 * 20.0) / 30.0).abs() < 1e-12);
    }
}
