//! Priors for new tree edges: a few pseudo-playouts per move from cheap
//! tactical facts, so the search looks at captures and escapes first and
//! shuns self-ataris before its own statistics say anything.
//!
//! Each heuristic adds pseudo-playouts: an even prior (half won) for every move,
//! won ones for capturing a chain or saving one from atari, a few for putting a
//! chain in atari, lost ones for a self-atari, and lost ones for first-line moves
//! while the board is mostly empty. Patterns and a tactical reader come later
//! behind the same function.

use crate::board::{Board, Color, Point, Stone};
use smallvec::SmallVec;

/// The weights, in pseudo-playouts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PriorWeights {
    /// Every move: this many playouts, half of them won.
    pub even: f32,
    /// Capturing (won playouts, plus one per captured stone up to 10).
    pub capture: f32,
    /// Moving a chain in atari out of it (won playouts).
    pub escape: f32,
    /// Putting an opponent chain in atari (won playouts).
    pub atari: f32,
    /// Self-atari of more than one stone (lost playouts; a third for one stone).
    pub self_atari: f32,
    /// First-line move while at least half the board is empty (lost playouts).
    pub first_line: f32,
    /// A pass while at least half the board is empty (lost playouts).
    pub early_pass: f32,
}

impl Default for PriorWeights {
    fn default() -> Self {
        PriorWeights {
            even: 10.0,
            capture: 20.0,
            escape: 20.0,
            atari: 6.0,
            self_atari: 20.0,
            first_line: 8.0,
            early_pass: 40.0,
        }
    }
}

/// Pseudo-playouts and pseudo-wins (for the mover) of a pass.
pub fn pass_prior(board: &Board, w: &PriorWeights) -> (f32, f32) {
    if board.num_empty() * 2 >= board.geometry().area() {
        (w.even + w.early_pass, w.even * 0.5)
    } else {
        (w.even, w.even * 0.5)
    }
}

/// Pseudo-playouts and pseudo-wins (for `color`) of the legal board play `p`.
pub fn move_prior(board: &Board, p: Point, color: Color, w: &PriorWeights) -> (f32, f32) {
    let mut n = w.even;
    let mut won = w.even * 0.5;
    let opp = color.opp();
    let mut captured = 0usize;
    let mut saves = false;
    let mut ataris = false;
    let mut liberties: SmallVec<[Point; 8]> = SmallVec::new();
    let add_liberty = |q: Point, libs: &mut SmallVec<[Point; 8]>| {
        if q != p && !libs.contains(&q) {
            libs.push(q);
        }
    };
    let mut heads: SmallVec<[Point; 4]> = SmallVec::new();
    for nb in p.neighbors() {
        match board.at(nb) {
            Stone::Empty => add_liberty(nb, &mut liberties),
            s if s == opp.stone() => {
                let head = board.chain_head(nb);
                if heads.contains(&head) {
                    continue;
                }
                heads.push(head);
                match board.liberties(nb) {
                    1 => {
                        captured += board.chain_size(nb);
                        // The captured stone next to p becomes a liberty.
                        add_liberty(nb, &mut liberties);
                    }
                    2 => ataris = true,
                    _ => {}
                }
            }
            s if s == color.stone() => {
                let head = board.chain_head(nb);
                if heads.contains(&head) {
                    continue;
                }
                heads.push(head);
                if board.liberties(nb) == 1 {
                    saves = true;
                }
                for q in board.liberty_points(nb, 3) {
                    add_liberty(q, &mut liberties);
                }
            }
            _ => {}
        }
    }
    let libs_after = liberties.len();
    if captured > 0 {
        let k = w.capture + captured.min(10) as f32;
        n += k;
        won += k;
    }
    if saves && libs_after >= 2 {
        n += w.escape;
        won += w.escape;
    }
    if libs_after <= 1 && captured == 0 {
        let own_stones = 1 + heads
            .iter()
            .filter(|h| board.at(**h) == color.stone())
            .map(|h| board.chain_size(*h))
            .sum::<usize>();
        n += if own_stones > 1 {
            w.self_atari
        } else {
            w.self_atari / 3.0
        };
    } else if ataris {
        n += w.atari;
        won += w.atari;
    }
    let size = board.size();
    let on_first_line = p.x() == 0 || p.y() == 0 || p.x() + 1 == size || p.y() + 1 == size;
    if size >= 7 && on_first_line && board.num_empty() * 2 >= board.geometry().area() {
        n += w.first_line;
    }
    (n, won)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Geometry;

    fn board_from(rows: &[&str]) -> Board {
        let g = Geometry::new(rows.len()).unwrap();
        let mut b = Board::new(g);
        for (y, row) in rows.iter().enumerate() {
            for (x, ch) in row.chars().enumerate() {
                let c = match ch {
                    'X' => Some(Color::Black),
                    'O' => Some(Color::White),
                    _ => None,
                };
                if c.is_some() {
                    b.set_stone(g.point(x, y).unwrap(), c);
                }
            }
        }
        b
    }

    fn rate(b: &Board, x: usize, y: usize, c: Color) -> f32 {
        let (n, w) = move_prior(
            b,
            b.geometry().point(x, y).unwrap(),
            c,
            &PriorWeights::default(),
        );
        w / n
    }

    #[test]
    fn captures_and_escapes_rate_high_self_ataris_low() {
        let b = board_from(&[
            ".....", //
            ".XO..", //
            "XO.O.", //
            ".X...", //
            ".....", //
        ]);
        // The white stone at (1,2) has one liberty, (2,2).
        assert!(rate(&b, 2, 2, Color::Black) > 0.8, "capture");
        assert!(rate(&b, 2, 2, Color::White) > 0.7, "escape");
        assert!(
            (rate(&b, 3, 3, Color::Black) - 0.5).abs() < 1e-6,
            "nothing special"
        );
        let atari = board_from(&[
            ".....", //
            "OX...", //
            ".....", //
            ".....", //
            ".....", //
        ]);
        // Black (0,2) leaves the white stone (0,1) one liberty.
        assert!(rate(&atari, 0, 2, Color::Black) > 0.6, "atari");
        let self_atari = board_from(&[
            "X..O.", //
            "X.O..", //
            "OO...", //
            ".....", //
            ".....", //
        ]);
        // Black (1,1) joins the corner chain and leaves it one liberty, (1,0).
        assert!(rate(&self_atari, 1, 1, Color::Black) < 0.3, "self-atari");
        assert!(
            rate(&self_atari, 1, 0, Color::Black) >= 0.5,
            "two liberties left"
        );
    }
}
