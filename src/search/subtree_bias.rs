//! Subtree value bias correction (KataGo's `subtreeValueBiasFactor`): the
//! net's value of a position tends to err the same way wherever the same
//! local exchange happens, so the errors the search has seen are pooled in
//! buckets and each node's own evaluation is corrected by its bucket's.
//!
//! A node's bucket is keyed by the player who made the last move, that
//! move, the move before it, the 5×5 neighbourhood of the last move before
//! it was played (stones, edges, and which stones were in atari) and the
//! ko ban then. Each expanded node observes `children's value − own
//! evaluation`, weighted by `child visits ^ exponent`; the bucket's weighted
//! mean times `factor` is added to the evaluations of every node in it, as
//! each is next visited. Values are Black's (the key holds the mover), in
//! tengen's 0..1 units.
//!
//! The table is direct-mapped and fixed in size; a node remembers what it
//! last put in its bucket so that it can replace its own observation. As in
//! KataGo, the buckets last from search to search (the nodes of the kept
//! tree stay in them); a node the new root cannot reach takes
//! [`FORGOTTEN_SHARE`] of its part out of its bucket as it is forgotten
//! (KataGo's `subtreeValueBiasFreeProp`).

use crate::go::board::{Board, Color, Point};

/// Buckets in the table (a power of two).
const BUCKETS: usize = 1 << 16;

/// The share of a forgotten node's part its bucket gives up (KataGo's
/// `subtreeValueBiasFreeProp`, 0.8).
pub const FORGOTTEN_SHARE: f64 = 0.8;

/// A node's part in its bucket, kept in the node.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contribution {
    /// The bucket's key (0: the node has none).
    pub key: u64,
    /// The correction now added to the node's own evaluations.
    pub bias: f32,
    /// What the node last added to its bucket, and to which incarnation of
    /// it (a bucket taken over by another key and back starts afresh).
    pub delta_sum: f32,
    pub weight: f32,
    pub generation: u16,
}

#[derive(Clone, Copy, Debug, Default)]
struct Bucket {
    key: u64,
    generation: u16,
    delta_sum: f64,
    weight: f64,
}

/// The buckets of the search. See the module documentation.
pub struct BiasTable {
    buckets: Vec<Bucket>,
    /// The incarnation the next bucket (re)started gets.
    generation: u16,
}

impl Default for BiasTable {
    fn default() -> Self {
        BiasTable::new()
    }
}

impl BiasTable {
    pub fn new() -> BiasTable {
        BiasTable {
            buckets: vec![Bucket::default(); BUCKETS],
            generation: 1,
        }
    }

    /// Every bucket empty (the table forgot its nodes).
    pub fn clear(&mut self) {
        self.buckets.fill(Bucket::default());
    }

    /// The bucket for `key`, started afresh (a new incarnation) if it held
    /// another key.
    fn bucket(&mut self, key: u64) -> &mut Bucket {
        let b = &mut self.buckets[(key as usize) & (BUCKETS - 1)];
        if b.key != key {
            self.generation = self.generation.wrapping_add(1).max(1);
            *b = Bucket {
                key,
                generation: self.generation,
                delta_sum: 0.0,
                weight: 0.0,
            };
        }
        b
    }

    /// The mean error of `key`'s bucket (0 for none yet).
    pub fn mean(&mut self, key: u64) -> f64 {
        let b = self.bucket(key);
        if b.weight > 1e-3 {
            b.delta_sum / b.weight
        } else {
            0.0
        }
    }

    /// A node of `key`'s bucket observes `delta` (its children's value less
    /// its own evaluation) with `weight`, replacing what it last added
    /// (`node`, updated); returns the bucket's mean error.
    pub fn observe(&mut self, node: &mut Contribution, delta: f64, weight: f64) -> f64 {
        let b = self.bucket(node.key);
        let (last_delta, last_weight) = if node.generation == b.generation {
            (f64::from(node.delta_sum), f64::from(node.weight))
        } else {
            (0.0, 0.0)
        };
        b.delta_sum += delta * weight - last_delta;
        b.weight = (b.weight + weight - last_weight).max(0.0);
        node.delta_sum = (delta * weight) as f32;
        node.weight = weight as f32;
        node.generation = b.generation;
        if b.weight > 1e-3 {
            b.delta_sum / b.weight
        } else {
            0.0
        }
    }

    /// A node is forgotten: its bucket gives up [`FORGOTTEN_SHARE`] of what
    /// it last added (nothing if the bucket has started afresh since).
    pub fn forget(&mut self, node: &Contribution) {
        if node.key == 0 {
            return;
        }
        let b = &mut self.buckets[(node.key as usize) & (BUCKETS - 1)];
        if b.key == node.key && b.generation == node.generation {
            b.delta_sum -= FORGOTTEN_SHARE * f64::from(node.delta_sum);
            b.weight = (b.weight - FORGOTTEN_SHARE * f64::from(node.weight)).max(0.0);
        }
    }
}

/// Mixes `x` into 64 well-spread bits (splitmix64's finaliser).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The bucket key of the position `mover` makes by playing `point` on
/// `before` after the move `previous` (`None`: a pass, or no move). 0 (no
/// bucket) when `point` is a pass, as in KataGo.
pub fn bucket_key(
    before: &Board,
    mover: Color,
    previous: Option<Point>,
    point: Option<Point>,
) -> u64 {
    let Some(p) = point else {
        return 0;
    };
    let g = before.geometry();
    let mut h = mix(0x5b_7e_1a_5e ^ mover.index() as u64);
    h = mix(h ^ (p.index() as u64 + 1));
    h = mix(h ^ (previous.map_or(0, |q| q.index() as u64 + 1) << 16));
    let (x0, y0) = (p.x() as isize, p.y() as isize);
    let mut pattern = 0u64;
    for dy in -2..=2isize {
        for dx in -2..=2isize {
            let (x, y) = (x0 + dx, y0 + dy);
            let code = if x < 0 || y < 0 {
                3
            } else {
                match g.point(x as usize, y as usize) {
                    None => 3,
                    Some(q) => match before.at(q).color() {
                        None => 0,
                        Some(c) => {
                            let atari = if before.liberties(q) == 1 { 4 } else { 0 };
                            1 + c.index() as u64 + atari
                        }
                    },
                }
            };
            pattern = pattern.wrapping_mul(8) ^ code;
            if (dy + 2) * 5 + dx + 2 == 20 {
                h = mix(h ^ pattern);
                pattern = 0;
            }
        }
    }
    h = mix(h ^ pattern ^ 0x7a77);
    if let Some((ko, _)) = before.ko() {
        h = mix(h ^ (ko.index() as u64 + 1) << 32);
    }
    h.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Geometry;

    #[test]
    fn a_bucket_pools_its_nodes_and_a_node_replaces_its_own_observation() {
        let mut t = BiasTable::new();
        let mut a = Contribution {
            key: 77,
            ..Contribution::default()
        };
        let mut b = Contribution { key: 77, ..a };
        assert_eq!(t.mean(77), 0.0);
        assert!((t.observe(&mut a, 0.1, 1.0) - 0.1).abs() < 1e-9);
        // A second node: the weighted mean of both.
        assert!((t.observe(&mut b, -0.2, 2.0) - (0.1 - 0.4) / 3.0).abs() < 1e-9);
        // The first node's new observation replaces its old one.
        assert!((t.observe(&mut a, 0.4, 1.0) - (0.4 - 0.4) / 3.0).abs() < 1e-6);
        // Forgetting the first node takes 0.8 of its part out.
        t.forget(&a);
        let want = (0.4 * 0.2 - 0.4) / (1.0 + 2.0 - 0.8);
        assert!((t.mean(77) - want).abs() < 1e-6, "{}", t.mean(77));
        // Another key taking the bucket over starts it afresh; the node's
        // old part is not taken out of the new incarnation.
        let mut other = Contribution {
            key: 77 + BUCKETS as u64,
            ..Contribution::default()
        };
        assert!((t.observe(&mut other, 0.5, 1.0) - 0.5).abs() < 1e-6);
        t.forget(&b);
        assert!((t.mean(77 + BUCKETS as u64) - 0.5).abs() < 1e-6);
        assert!((t.observe(&mut a, 0.3, 2.0) - 0.3).abs() < 1e-6);
        t.clear();
        assert_eq!(t.mean(77), 0.0);
    }

    #[test]
    fn bucket_keys_see_the_mover_the_moves_and_the_neighbourhood_only() {
        let g = Geometry::new(9).unwrap();
        let p = |x, y| g.point(x, y).unwrap();
        let empty = Board::new(g);
        let key = |b: &Board, c, prev, pt| bucket_key(b, c, prev, pt);
        let base = key(&empty, Color::Black, Some(p(2, 2)), Some(p(4, 4)));
        assert_ne!(base, 0);
        assert_eq!(key(&empty, Color::Black, Some(p(2, 2)), None), 0);
        assert_ne!(
            base,
            key(&empty, Color::White, Some(p(2, 2)), Some(p(4, 4)))
        );
        assert_ne!(
            base,
            key(&empty, Color::Black, Some(p(2, 3)), Some(p(4, 4)))
        );
        assert_ne!(base, key(&empty, Color::Black, None, Some(p(4, 4))));
        // A stone within two points changes it, one farther away does not.
        let mut near = empty.clone();
        near.play(p(6, 5), Color::White);
        assert_ne!(base, key(&near, Color::Black, Some(p(2, 2)), Some(p(4, 4))));
        let mut far = empty.clone();
        far.play(p(7, 4), Color::White);
        assert_eq!(base, key(&far, Color::Black, Some(p(2, 2)), Some(p(4, 4))));
        // A stone in atari differs from one with liberties.
        let mut atari = near.clone();
        atari.play(p(6, 6), Color::Black);
        atari.play(p(5, 5), Color::Black);
        assert_eq!(atari.liberties(p(6, 5)), 2);
        let two = key(&atari, Color::Black, Some(p(2, 2)), Some(p(4, 4)));
        atari.play(p(7, 5), Color::Black);
        assert_eq!(atari.liberties(p(6, 5)), 1);
        let one = key(&atari, Color::Black, Some(p(2, 2)), Some(p(4, 4)));
        assert_ne!(two, one);
    }
}
