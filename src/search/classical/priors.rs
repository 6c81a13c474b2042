//! Prior knowledge for new tree nodes: for each candidate move, a number of
//! virtual visits and virtual wins ("equivalent experience", as Pachi's and
//! Fuego's priors) that seed the move's statistics before any playout.
//!
//! Heuristics, each adding visits won (a bonus) or lost (a penalty):
//! - an even prior for every move;
//! - capturing a chain in atari (more for bigger chains, most for the chain of
//!   the last move);
//! - saving an own chain in atari — by capturing or extending — when the
//!   tactical reader says the rescue works, and a penalty for running into a
//!   ladder that works;
//! - putting an opponent chain into atari, more when the ladder works;
//! - a penalty for putting an own chain of two or more stones into atari;
//! - a good 3×3 shape ([`patterns`]);
//! - nearness to the last move;
//! - in the opening, the third and fourth lines over the first and second;
//! - on boards of 13×13 and more, opening sense for the first moves: the
//!   3-3 to 4-5 points of an empty corner, then the third and fourth lines of
//!   an empty side, far over a first- or second-line move where no stone is
//!   near (`opening_sense`). These weigh hundreds of virtual visits, not
//!   dozens: in the opening, 19×19 playouts tell moves apart by less than
//!   their noise, and RAVE's thousands of AMAF samples drown small priors.
//!
//! Values are from the point of view of the player to move.

use crate::go::board::{Board, Color, Geometry, Point, Stone, CELLS};
use crate::search::classical::patterns;
use crate::search::classical::tactics::Reader;

/// Virtual experience for one move.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Prior {
    pub visits: f32,
    pub wins: f32,
}

impl Prior {
    /// The win rate the prior suggests (0.5 without any experience).
    pub fn rate(&self) -> f32 {
        if self.visits > 0.0 {
            self.wins / self.visits
        } else {
            0.5
        }
    }

    fn bonus(&mut self, n: f32) {
        self.visits += n;
        self.wins += n;
    }

    fn penalty(&mut self, n: f32) {
        self.visits += n;
    }
}

/// Weights of the heuristics, in virtual visits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PriorWeights {
    pub even: f32,
    pub capture: f32,
    pub capture_last: f32,
    pub save: f32,
    pub ladder_run: f32,
    pub atari: f32,
    pub self_atari: f32,
    pub pattern: f32,
    pub near_last: f32,
    pub opening_line: f32,
    /// Bonus of an empty corner's 3-3 to 4-5 points at the first move on
    /// boards of 13×13 and more (half on an empty side's third and fourth
    /// lines; the same as a penalty on a lone first- or second-line move),
    /// fading to nothing over the opening (`opening_sense`).
    pub opening_sense: f32,
    /// Penalty of a pass while at least half the board is empty.
    pub early_pass: f32,
}

impl Default for PriorWeights {
    fn default() -> Self {
        PriorWeights {
            even: 10.0,
            capture: 15.0,
            capture_last: 25.0,
            save: 20.0,
            ladder_run: 30.0,
            atari: 5.0,
            self_atari: 25.0,
            pattern: 10.0,
            near_last: 6.0,
            opening_line: 12.0,
            opening_sense: 300.0,
            early_pass: 40.0,
        }
    }
}

/// The prior of a pass: the even prior, and a penalty while at least half the
/// board is empty.
pub fn pass_prior(board: &Board, weights: &PriorWeights) -> Prior {
    let mut prior = Prior::default();
    prior.bonus(weights.even / 2.0);
    prior.penalty(weights.even / 2.0);
    if board.num_empty() * 2 >= board.geometry().area() {
        prior.penalty(weights.early_pass);
    }
    prior
}

/// Fills `out` (indexed by point index, `CELLS` long) with the priors of every
/// empty point for `color`; other entries are left at zero. `last` is the
/// opponent's last move, `move_number` the game's move count (for the opening).
pub fn compute(
    board: &Board,
    color: Color,
    last: Option<Point>,
    move_number: u32,
    weights: &PriorWeights,
    reader: &mut Reader,
    out: &mut [Prior],
) {
    debug_assert_eq!(out.len(), CELLS);
    out.fill(Prior::default());
    let geo = board.geometry();
    // The shorter side decides what counts as a big board's opening.
    let size = geo.width().min(geo.height());
    let opening_moves = geo.area() / 6;
    let opening = (move_number as usize) < opening_moves && size >= 9;
    let sense = if size >= 13 && (move_number as usize) < opening_moves {
        weights.opening_sense * (1.0 - move_number as f32 / opening_moves as f32)
    } else {
        0.0
    };
    for p in board.empty_points() {
        let prior = &mut out[p.index()];
        prior.bonus(weights.even / 2.0);
        prior.penalty(weights.even / 2.0);
        if board.is_group_self_atari(p, color) {
            prior.penalty(weights.self_atari);
        }
        if patterns::matches_at(board, p) {
            prior.bonus(weights.pattern);
        }
        if let Some(l) = last {
            let (dx, dy) = (p.x().abs_diff(l.x()), p.y().abs_diff(l.y()));
            if dx + dy + dx.max(dy) <= 3 {
                prior.bonus(weights.near_last);
            }
        }
        if opening {
            match lines_from_edges(geo, p).0 {
                1 => prior.penalty(weights.opening_line),
                2 => prior.penalty(weights.opening_line / 2.0),
                3 | 4 if size >= 13 => prior.bonus(weights.opening_line / 2.0),
                _ => {}
            }
        }
        if sense > 0.0 {
            opening_sense(board, p, sense, prior);
        }
    }
    tactical_priors(board, color, last, weights, reader, out);
}

/// The lines `p` stands on counted from the nearest edges, the nearer first:
/// (3, 4) for a 3-4 point, (1, 1) for a corner.
fn lines_from_edges(geo: Geometry, p: Point) -> (usize, usize) {
    let line_x = 1 + p.x().min(geo.width() - 1 - p.x());
    let line_y = 1 + p.y().min(geo.height() - 1 - p.y());
    (line_x.min(line_y), line_x.max(line_y))
}

/// How far (in both directions) a point must be from every stone to count as
/// empty ground for [`opening_sense`].
const EMPTY_RADIUS: usize = 3;

/// Opening sense at the empty point `p`, weighing `weight` virtual visits:
/// where no stone stands within [`EMPTY_RADIUS`] (Chebyshev distance), a
/// corner point on the third or fourth line from one edge and the third to
/// fifth from the other earns `weight`, any other third- or fourth-line point
/// half of it, and a first- or second-line point loses `weight`. Points near
/// stones are left to the other heuristics: approaches, answers and fights.
fn opening_sense(board: &Board, p: Point, weight: f32, prior: &mut Prior) {
    let geo = board.geometry();
    let (x, y) = (p.x(), p.y());
    let (low, high) = lines_from_edges(geo, p);
    if low > 4 {
        return;
    }
    let span =
        |c: usize, size: usize| c.saturating_sub(EMPTY_RADIUS)..=(c + EMPTY_RADIUS).min(size - 1);
    for qy in span(y, geo.height()) {
        for qx in span(x, geo.width()) {
            if let Some(q) = geo.point(qx, qy) {
                if board.at(q) != Stone::Empty {
                    return;
                }
            }
        }
    }
    match low {
        1 | 2 => prior.penalty(weight),
        _ if high <= 5 => prior.bonus(weight),
        _ => prior.bonus(weight / 2.0),
    }
}

/// Captures, rescues and ataris: every chain with one or two liberties.
fn tactical_priors(
    board: &Board,
    color: Color,
    last: Option<Point>,
    weights: &PriorWeights,
    reader: &mut Reader,
    out: &mut [Prior],
) {
    let last_head = last
        .filter(|&l| board.at(l) == color.opp().stone())
        .map(|l| board.chain_head(l));
    let mut seen = [false; CELLS];
    for p in board.geometry().points() {
        let Some(owner) = board.at(p).color() else {
            continue;
        };
        let head = board.chain_head(p);
        if seen[head.index()] {
            continue;
        }
        seen[head.index()] = true;
        let libs = board.liberties(p);
        if libs > 2 {
            continue;
        }
        let size = board.chain_size(p) as f32;
        if owner != color {
            if libs == 1 {
                if let Some(lib) = board.last_liberty(p) {
                    let w = if Some(head) == last_head {
                        weights.capture_last
                    } else {
                        weights.capture
                    };
                    out[lib.index()].bonus(w * size.min(4.0).sqrt());
                }
            } else {
                // Two liberties: an atari; worth more when the ladder works.
                let works = reader.capture_move(board, p);
                for lib in board.liberty_points(p, 2) {
                    let w = if works == Some(lib) {
                        weights.atari * 3.0
                    } else {
                        weights.atari
                    };
                    out[lib.index()].bonus(w);
                }
            }
        } else if libs == 1 {
            // Our chain is in atari: reward a working rescue, punish a hopeless run.
            match reader.saves(board, p) {
                Some(Some(mv)) => out[mv.index()].bonus(weights.save * size.min(4.0).sqrt()),
                Some(None) => {}
                None => {
                    if let Some(lib) = board.last_liberty(p) {
                        if board.at(lib) == Stone::Empty {
                            out[lib.index()].penalty(weights.ladder_run);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Geometry;

    fn priors(board: &Board, color: Color, last: Option<Point>, move_number: u32) -> Vec<Prior> {
        let mut out = vec![Prior::default(); CELLS];
        let mut reader = Reader::new(12);
        compute(
            board,
            color,
            last,
            move_number,
            &PriorWeights::default(),
            &mut reader,
            &mut out,
        );
        out
    }

    #[test]
    fn capture_beats_the_even_prior_and_first_line_is_poor_in_the_opening() {
        let g = Geometry::new(19).unwrap();
        let mut b = Board::new(g);
        let p = |x, y| g.point(x, y).unwrap();
        // A white stone in atari at K10 (x=9, y=9): black on three sides.
        b.set_stone(p(9, 9), Some(Color::White));
        for q in [p(8, 9), p(10, 9), p(9, 8)] {
            b.set_stone(q, Some(Color::Black));
        }
        let pr = priors(&b, Color::Black, Some(p(9, 9)), 4);
        let capture = pr[p(9, 10).index()].rate();
        let quiet = pr[p(15, 3).index()].rate();
        let first_line = pr[p(0, 5).index()].rate();
        assert!(capture > 0.8, "capture {capture}");
        assert!(
            quiet > first_line,
            "third/fourth line {quiet} over first line {first_line}"
        );
        assert!(first_line < 0.5);
    }

    #[test]
    fn opening_sense_takes_empty_corners_then_sides_and_shuns_lone_low_moves() {
        let g = Geometry::new(19).unwrap();
        let p = |x, y| g.point(x, y).unwrap();
        let mut b = Board::new(g);
        // Black holds the upper right corner's 4-4 point (Q16 = x 15, y 15).
        b.set_stone(p(15, 15), Some(Color::Black));
        let pr = priors(&b, Color::White, Some(p(15, 15)), 1);
        let rate = |x, y| pr[p(x, y).index()].rate();
        let empty_corner = [rate(3, 3), rate(2, 3), rate(2, 2), rate(2, 4), rate(3, 4)];
        let side = rate(3, 9);
        let centre = rate(9, 9);
        for r in empty_corner {
            assert!(r > side, "empty corner {r} over side {side}");
        }
        assert!(side > centre + 0.2, "side {side} over centre {centre}");
        assert!(rate(1, 9) < 0.2, "lone second line {}", rate(1, 9));
        assert!(rate(0, 9) < 0.2, "lone first line {}", rate(0, 9));
        // Next to Black's stone no bonus: the 3-3 invasion is for the search.
        let invasion = pr[p(16, 16).index()];
        assert!(invasion.visits < 50.0, "3-3 under the stone {invasion:?}");
        // The bonus fades over the opening and is gone on 9x9.
        let late = priors(&b, Color::White, Some(p(15, 15)), 50);
        assert!(late[p(3, 3).index()].visits < pr[p(3, 3).index()].visits);
        let g9 = Geometry::new(9).unwrap();
        let small = priors(&Board::new(g9), Color::Black, None, 0);
        let corner9 = small[g9.point(2, 2).unwrap().index()];
        assert!(corner9.visits < 50.0, "9x9 corner prior {corner9:?}");
    }

    #[test]
    fn running_into_a_working_ladder_is_punished_and_a_breaker_changes_that() {
        let g = Geometry::new(9).unwrap();
        let p = |x, y| g.point(x, y).unwrap();
        let ladder = |breaker: bool| {
            let mut b = Board::new(g);
            b.set_stone(p(2, 2), Some(Color::Black));
            for (x, y) in [(2, 1), (3, 1), (1, 2), (2, 3)] {
                b.set_stone(p(x, y), Some(Color::White));
            }
            if breaker {
                b.set_stone(p(6, 6), Some(Color::Black));
            }
            b
        };
        let run = p(3, 2);
        let hopeless = priors(&ladder(false), Color::Black, Some(p(2, 3)), 30)[run.index()].rate();
        let saving = priors(&ladder(true), Color::Black, Some(p(2, 3)), 30)[run.index()].rate();
        assert!(hopeless < 0.4, "running in a working ladder: {hopeless}");
        assert!(saving > 0.6, "running to the breaker: {saving}");
    }
}
