//! Playouts: play a position out to the end with a cheap move policy and count it.
//!
//! Playouts run on a bare [`Board`] under the simple-ko rule with suicide
//! forbidden (superko is the game's and the tree's business; see
//! [`crate::history`]). They never fill a one-point eye of their own colour and
//! end after two consecutive passes or a move cap.
//!
//! The light policy chooses uniformly among the legal, non-eye-filling points by
//! probing the empty-point list from a random start. Nothing here allocates.

use crate::board::{Board, Color, Point};
use crate::score::area_margin_fast;
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

/// How a playout ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayoutResult {
    /// Moves played, passes included.
    pub moves: u32,
    /// Black's area minus White's at the end, before komi.
    pub margin: i32,
}

/// A uniformly random point among the empty points that `color` may play under
/// the playout rule and that are not true eyes of `color`; `None` if there is none.
#[inline]
pub fn random_move(board: &Board, color: Color, rng: &mut PlayoutRng) -> Option<Point> {
    let n = board.num_empty();
    if n == 0 {
        return None;
    }
    let start = rng.below(n);
    let acceptable = |p: Point| !board.is_true_eye(p, color) && board.is_legal_simple(p, color);
    (start..n)
        .chain(0..start)
        .map(|i| board.empty_point(i))
        .find(|&p| acceptable(p))
}

/// Plays `board` out with the light policy, `to_move` first, for at most
/// `max_moves` moves, and counts the final position.
pub fn light_playout(
    board: &mut Board,
    to_move: Color,
    rng: &mut PlayoutRng,
    max_moves: u32,
) -> PlayoutResult {
    let mut color = to_move;
    let mut passes = 0;
    let mut moves = 0;
    while passes < 2 && moves < max_moves {
        match random_move(board, color, rng) {
            Some(p) => {
                board.play(p, color);
                passes = 0;
            }
            None => {
                board.clear_ko();
                passes += 1;
            }
        }
        moves += 1;
        color = color.opp();
    }
    PlayoutResult {
        moves,
        margin: area_margin_fast(board),
    }
}

/// The usual move cap for a board: three times its area.
pub fn default_max_moves(board: &Board) -> u32 {
    3 * board.geometry().area() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Geometry, Stone};

    #[test]
    fn playouts_end_with_only_eyes_left_and_stay_consistent() {
        for size in [5, 9, 19] {
            let g = Geometry::new(size).unwrap();
            let mut rng = PlayoutRng::new(size as u64);
            let mut by_passes = 0;
            for _ in 0..20 {
                let mut b = Board::new(g);
                let cap = default_max_moves(&b);
                let r = light_playout(&mut b, Color::Black, &mut rng, cap);
                b.assert_consistent();
                assert!(r.moves > 0 && r.moves <= cap);
                if r.moves == cap {
                    // A cycle (triple ko and the like) under simple ko: the cap ends it.
                    continue;
                }
                by_passes += 1;
                // The last passer had no acceptable move, and the board has not
                // changed since (the first pass may have cleared a ko point, so
                // only the last passer is sure to have none).
                let last = if r.moves % 2 == 1 {
                    Color::Black
                } else {
                    Color::White
                };
                assert!(random_move(&b, last, &mut rng).is_none());
                let stones: i32 = g
                    .points()
                    .map(|p| match b.at(p) {
                        Stone::Black => 1,
                        Stone::White => -1,
                        _ => 0,
                    })
                    .sum();
                assert!((r.margin - stones).abs() <= b.num_empty() as i32);
            }
            assert!(
                by_passes >= 18,
                "{size}x{size}: only {by_passes}/20 ended by passes"
            );
        }
    }

    #[test]
    fn a_seed_replays_the_same_playout() {
        let g = Geometry::new(9).unwrap();
        let run = |seed| {
            let mut b = Board::new(g);
            light_playout(&mut b, Color::Black, &mut PlayoutRng::new(seed), 243)
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }
}
