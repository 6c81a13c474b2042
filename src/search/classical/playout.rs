//! Playouts: play a position out to the end with a cheap move policy and count it.
//!
//! Playouts run on a bare [`Board`] under the simple-ko rule with suicide
//! forbidden (superko is the game's and the tree's business; see
//! [`crate::go::history`]). They never fill a one-point eye of their own colour and
//! end after two consecutive passes or a move cap.
//!
//! Two policies ([`Policy`]):
//! - light: uniformly among the legal, non-eye-filling points, by probing the
//!   empty-point list from a random start;
//! - heavy (MoGo / Pachi "Moggy" style): first answer the last move locally —
//!   save own chains it put in atari (capture an attacker or extend), capture
//!   it if it stands in atari, play a good 3×3 shape next to it ([`patterns`]);
//!   otherwise a random move that does not put a chain of two or more stones
//!   into atari.
//!
//! Nothing here allocates.

use crate::go::board::{Board, Color, Point, Stone};
pub use crate::go::random::{random_move, random_point_where, PlayoutRng};
use crate::go::score::area_margin_fast;
use crate::search::classical::patterns;
use smallvec::SmallVec;

/// How a playout ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayoutResult {
    /// Moves played, passes included.
    pub moves: u32,
    /// Black's area minus White's at the end, before komi.
    pub margin: i32,
}

/// Which move policy a playout uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Light,
    Heavy,
    /// For counting finished games: heavy, but it passes rather than put a
    /// chain of two or more stones into atari ([`settling_move`]), so a seki
    /// or a capture race that neither side should start stays as it is.
    Settling,
}

impl Policy {
    /// The policy's name, as in `--playouts-policy`.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Light => "light",
            Policy::Heavy => "heavy",
            Policy::Settling => "settling",
        }
    }
}

/// Percent chance of trying each heavy rule before falling back to the next.
const ATARI_RATE: usize = 90;
const PATTERN_RATE: usize = 90;

/// Candidate moves of one heavy rule.
type Candidates = SmallVec<[Point; 8]>;

/// A random point among the empty points that `color` may play under the
/// playout rule, that are not true eyes of `color`, and that do not put a chain
/// of two or more stones into atari; failing that, any [`random_move`].
#[inline]
pub fn random_safe_move(board: &Board, color: Color, rng: &mut PlayoutRng) -> Option<Point> {
    random_point_where(board, rng, |p| {
        !board.is_true_eye(p, color)
            && board.is_legal_simple(p, color)
            && !board.is_group_self_atari(p, color)
    })
    .or_else(|| random_move(board, color, rng))
}

/// A random move for settling a finished game: like [`random_safe_move`]
/// without the last resort, and never into a point surrounded by own stones
/// (false eyes included: filling one takes a liberty from the own chains
/// around it, which can turn a won capture race into a seki; when the
/// opponent threatens the connection, [`atari_answers`] fills it). `None` when
/// no such move is left.
#[inline]
fn random_settling_move(board: &Board, color: Color, rng: &mut PlayoutRng) -> Option<Point> {
    random_point_where(board, rng, |p| {
        !board.is_eyelike(p, color)
            && board.is_legal_simple(p, color)
            && !board.is_group_self_atari(p, color)
    })
}

/// Local answers to the opponent's last move at `last`: captures of attackers
/// that save an own chain in atari, extensions out of atari, and the capture of
/// the last move's chain when it stands in atari.
fn atari_answers(board: &Board, color: Color, last: Point) -> Candidates {
    let mut moves = Candidates::new();
    let opp = color.opp();
    let push = |moves: &mut Candidates, p: Point| {
        if !moves.contains(&p) && board.is_legal_simple(p, color) {
            moves.push(p);
        }
    };
    if board.at(last) == opp.stone() {
        if let Some(lib) = board.last_liberty(last) {
            push(&mut moves, lib);
        }
    }
    for n in last.neighbors() {
        if board.at(n) != color.stone() || board.liberties(n) != 1 {
            continue;
        }
        // Our chain through n is in atari: capture a neighbouring chain in atari...
        for s in board.chain_stones(n) {
            for m in s.neighbors() {
                if board.at(m) == opp.stone() {
                    if let Some(lib) = board.last_liberty(m) {
                        push(&mut moves, lib);
                    }
                }
            }
        }
        // ...or extend, if that gives at least two liberties.
        if let Some(lib) = board.last_liberty(n) {
            if board.liberties_after(lib, color, 2) >= 2 {
                push(&mut moves, lib);
            }
        }
    }
    moves
}

/// Good 3x3 shapes among the eight neighbours of the last move.
fn pattern_answers(board: &Board, color: Color, last: Point) -> Candidates {
    let mut moves = Candidates::new();
    for q in last.neighbors().into_iter().chain(last.diagonals()) {
        if board.at(q) == Stone::Empty
            && patterns::matches_at(board, q)
            && board.is_legal_simple(q, color)
            && !board.is_group_self_atari(q, color)
        {
            moves.push(q);
        }
    }
    moves
}

/// The heavy policy's move for `color`, the opponent having just played `last`.
pub fn heavy_move(
    board: &Board,
    color: Color,
    last: Option<Point>,
    rng: &mut PlayoutRng,
) -> Option<Point> {
    local_answer(board, color, last, rng).or_else(|| random_safe_move(board, color, rng))
}

/// The settling policy's move: [`heavy_move`]'s local answers, else
/// `random_settling_move`; it passes rather than put a chain of two or more
/// stones into atari or fill a point surrounded by its own stones.
pub fn settling_move(
    board: &Board,
    color: Color,
    last: Option<Point>,
    rng: &mut PlayoutRng,
) -> Option<Point> {
    local_answer(board, color, last, rng).or_else(|| random_settling_move(board, color, rng))
}

/// The heavy rules that answer the last move: atari answers, then 3×3 shapes,
/// each tried with its rate.
#[inline]
fn local_answer(
    board: &Board,
    color: Color,
    last: Option<Point>,
    rng: &mut PlayoutRng,
) -> Option<Point> {
    let last = last?;
    if rng.below(100) < ATARI_RATE {
        let answers = atari_answers(board, color, last);
        if !answers.is_empty() {
            return Some(answers[rng.below(answers.len())]);
        }
    }
    if rng.below(100) < PATTERN_RATE {
        let answers = pattern_answers(board, color, last);
        if !answers.is_empty() {
            return Some(answers[rng.below(answers.len())]);
        }
    }
    None
}

/// Chooses playout moves. Must only return empty points that `color` may play
/// under the playout rule (simple ko, no suicide); `None` means pass. `last` is
/// the previous move of the playout (or of the position it started from).
pub trait MovePolicy: Clone + Send {
    fn choose(
        &mut self,
        board: &Board,
        color: Color,
        last: Option<Point>,
        rng: &mut PlayoutRng,
    ) -> Option<Point>;
}

impl MovePolicy for Policy {
    #[inline]
    fn choose(
        &mut self,
        board: &Board,
        color: Color,
        last: Option<Point>,
        rng: &mut PlayoutRng,
    ) -> Option<Point> {
        match self {
            Policy::Light => random_move(board, color, rng),
            Policy::Heavy => heavy_move(board, color, last, rng),
            Policy::Settling => settling_move(board, color, last, rng),
        }
    }
}

/// Plays `board` out with `policy`, `to_move` first, until two passes in a row
/// or `max_moves` moves, calling `on_move` for every stone played (the search
/// records them for AMAF). Returns the number of moves, passes included.
pub fn play_out<P: MovePolicy>(
    policy: &mut P,
    board: &mut Board,
    to_move: Color,
    last: Option<Point>,
    rng: &mut PlayoutRng,
    max_moves: u32,
    mut on_move: impl FnMut(Point, Color),
) -> u32 {
    let mut color = to_move;
    let mut last = last;
    let mut passes = 0;
    let mut moves = 0;
    while passes < 2 && moves < max_moves {
        let choice = policy.choose(board, color, last, rng);
        match choice {
            Some(p) => {
                board.play(p, color);
                on_move(p, color);
                passes = 0;
            }
            None => {
                board.clear_ko();
                passes += 1;
            }
        }
        last = choice;
        moves += 1;
        color = color.opp();
    }
    moves
}

/// Plays `n` playouts from copies of `board` with `policy`, playout `i`
/// starting as `start(i)` says (player to move, last move), and hands each
/// end position to `end`.
pub fn sample_playouts<P: MovePolicy>(
    policy: &mut P,
    board: &Board,
    n: u32,
    start: impl Fn(u32) -> (Color, Option<Point>),
    rng: &mut PlayoutRng,
    max_moves: u32,
    mut end: impl FnMut(&Board),
) {
    for i in 0..n {
        let mut b = board.clone();
        let (to_move, last) = start(i);
        play_out(policy, &mut b, to_move, last, rng, max_moves, |_, _| {});
        end(&b);
    }
}

/// Plays `board` out with `policy` (see [`play_out`]) and counts the end.
pub fn playout(
    board: &mut Board,
    to_move: Color,
    last: Option<Point>,
    mut policy: Policy,
    rng: &mut PlayoutRng,
    max_moves: u32,
) -> PlayoutResult {
    let moves = play_out(&mut policy, board, to_move, last, rng, max_moves, |_, _| {});
    PlayoutResult {
        moves,
        margin: area_margin_fast(board),
    }
}

/// Plays `board` out with the light policy: see [`playout`].
pub fn light_playout(
    board: &mut Board,
    to_move: Color,
    rng: &mut PlayoutRng,
    max_moves: u32,
) -> PlayoutResult {
    playout(board, to_move, None, Policy::Light, rng, max_moves)
}

/// The usual move cap for a board: three times its area.
pub fn default_max_moves(board: &Board) -> u32 {
    3 * board.geometry().area() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::{Geometry, Stone};

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
    fn heavy_playouts_stay_legal_and_answer_ataris() {
        let g = Geometry::new(9).unwrap();
        let mut rng = PlayoutRng::new(5);
        for _ in 0..50 {
            let mut b = Board::new(g);
            let r = playout(&mut b, Color::Black, None, Policy::Heavy, &mut rng, 243);
            b.assert_consistent();
            assert!(r.moves > 20);
        }
        // White just put the black stone at C3 in atari; Black must capture or extend.
        //   . . . . .
        //   . . O . .
        //   . O X O .
        //   . . . . .
        let g = Geometry::new(5).unwrap();
        let mut b = Board::new(g);
        let p = |x, y| g.point(x, y).unwrap();
        b.play(p(2, 2), Color::Black);
        for q in [p(2, 1), p(1, 2), p(3, 2)] {
            b.play(q, Color::White);
        }
        let answers = atari_answers(&b, Color::Black, p(3, 2));
        assert_eq!(answers.as_slice(), &[p(2, 3)], "extend at the last liberty");
        let mut rng = PlayoutRng::new(1);
        let mut hits = 0;
        for _ in 0..100 {
            hits += (heavy_move(&b, Color::Black, Some(p(3, 2)), &mut rng) == Some(p(2, 3))) as u32;
        }
        assert!(
            hits >= 80,
            "the heavy policy extends nearly always ({hits}/100)"
        );
    }

    #[test]
    fn playouts_on_rectangles_stay_on_the_board_and_consistent() {
        // Light and heavy (patterns, atari answers, the tactical reader's
        // shortcuts) playouts on boards with different sides, both ways round.
        for (w, h) in [(19, 13), (13, 19), (25, 3), (3, 25), (2, 7), (9, 4)] {
            let g = Geometry::rect(w, h).unwrap();
            let mut rng = PlayoutRng::new((w * 32 + h) as u64);
            let mut by_passes = 0;
            for i in 0..20 {
                let mut b = Board::new(g);
                let cap = default_max_moves(&b);
                let policy = if i % 2 == 0 {
                    Policy::Light
                } else {
                    Policy::Heavy
                };
                let r = playout(&mut b, Color::Black, None, policy, &mut rng, cap);
                b.assert_consistent();
                assert!(r.moves > 0 && r.moves <= cap, "{w}x{h}");
                assert_eq!(
                    g.points().count(),
                    b.num_empty() + g.points().filter(|&p| b.at(p) != Stone::Empty).count()
                );
                by_passes += u32::from(r.moves < cap);
            }
            assert!(
                by_passes >= 16,
                "{w}x{h}: only {by_passes}/20 ended by passes"
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
