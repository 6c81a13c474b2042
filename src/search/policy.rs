//! The playout seam: a [`PlayoutPolicy`] chooses each playout move; the search
//! plays the playout with [`run_playout`], which records the moves for AMAF.
//!
//! [`LightPolicy`] is the uniformly random policy of [`crate::playout`]; heavier
//! policies (patterns, tactics near the last move) plug in here.

use crate::board::{Board, Color, Point};
use crate::playout::{random_move, PlayoutRng};

/// Chooses playout moves. Must only return empty points that `color` may play
/// under the playout rule (simple ko, no suicide); `None` means pass.
pub trait PlayoutPolicy: Clone + Send {
    fn choose(&mut self, board: &Board, color: Color, rng: &mut PlayoutRng) -> Option<Point>;
}

/// Uniformly random legal moves that do not fill the mover's own true eyes.
#[derive(Clone, Copy, Debug, Default)]
pub struct LightPolicy;

impl PlayoutPolicy for LightPolicy {
    #[inline]
    fn choose(&mut self, board: &Board, color: Color, rng: &mut PlayoutRng) -> Option<Point> {
        random_move(board, color, rng)
    }
}

/// Plays `board` out with `policy`, `to_move` first, until two passes in a row
/// or `max_moves` moves; appends every stone played to `moves` (which the caller
/// clears and keeps, so nothing is allocated once it has grown).
pub fn run_playout<P: PlayoutPolicy>(
    policy: &mut P,
    board: &mut Board,
    to_move: Color,
    rng: &mut PlayoutRng,
    max_moves: u32,
    moves: &mut Vec<(Point, Color)>,
) {
    let mut color = to_move;
    let mut passes = 0;
    let mut played = 0;
    while passes < 2 && played < max_moves {
        match policy.choose(board, color, rng) {
            Some(p) => {
                board.play(p, color);
                moves.push((p, color));
                passes = 0;
            }
            None => {
                board.clear_ko();
                passes += 1;
            }
        }
        played += 1;
        color = color.opp();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Geometry;
    use crate::playout::{default_max_moves, light_playout};

    #[test]
    fn light_policy_replays_light_playouts_and_records_every_stone() {
        let g = Geometry::new(9).unwrap();
        let mut a = Board::new(g);
        let mut b = Board::new(g);
        let cap = default_max_moves(&a);
        let mut moves = Vec::new();
        run_playout(
            &mut LightPolicy,
            &mut a,
            Color::Black,
            &mut PlayoutRng::new(5),
            cap,
            &mut moves,
        );
        light_playout(&mut b, Color::Black, &mut PlayoutRng::new(5), cap);
        assert_eq!(a.hash(), b.hash(), "same seed, same game");
        let stones = g.points().filter(|&p| a.at(p).color().is_some()).count();
        assert!(moves.len() >= stones && moves.len() as u32 <= cap);
    }
}
