//! Randomness over a board: a named, portable generator (a seed replays
//! the same games on every platform and build) and uniformly random points,
//! for playouts, random play and randomised tests. Nothing here allocates.

use super::board::{Board, Color, Point};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};

/// The random generator for playouts and search: a named, portable generator, so
/// a seed replays the same games on every platform and build.
#[derive(Clone, Debug)]
pub struct PlayoutRng(Xoshiro256PlusPlus);

impl PlayoutRng {
    pub fn new(seed: u64) -> PlayoutRng {
        PlayoutRng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift: no division, and a bias
    /// below 2^-32 * n, which no playout can notice.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        ((self.0.next_u32() as u64 * n as u64) >> 32) as usize
    }

    /// 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
}

/// A uniformly random empty point satisfying `accept`, found by probing the
/// empty-point list from a random start (no allocation); `None` if none does.
#[inline]
pub fn random_point_where(
    board: &Board,
    rng: &mut PlayoutRng,
    accept: impl Fn(Point) -> bool,
) -> Option<Point> {
    let n = board.num_empty();
    if n == 0 {
        return None;
    }
    let start = rng.below(n);
    (start..n)
        .chain(0..start)
        .map(|i| board.empty_point(i))
        .find(|&p| accept(p))
}

/// A uniformly random point among the empty points that `color` may play under
/// the playout rule and that are not true eyes of `color`; `None` if there is none.
#[inline]
pub fn random_move(board: &Board, color: Color, rng: &mut PlayoutRng) -> Option<Point> {
    random_point_where(board, rng, |p| {
        !board.is_true_eye(p, color) && board.is_legal_simple(p, color)
    })
}
