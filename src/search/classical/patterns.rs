//! 3×3 patterns around a candidate move, for heavy playouts and priors.
//!
//! A point's neighbourhood is a 16-bit code that the board keeps up to date
//! incrementally: 2 bits for each of the eight surrounding cells (black,
//! white, empty, border) in the fixed order N, NE, E, SE, S, SW, W, NW. A
//! table indexed by the code says whether the move in the centre matches one of the hand-written "good shape" templates below (the
//! hane, cut and edge patterns of MoGo, Gelly et al. 2006, as Pachi also uses
//! them). The table is built once from the templates under all eight board
//! symmetries and both colour assignments, so a lookup is one shift and mask.

#[cfg(doc)]
use crate::go::board::RING;
use crate::go::board::{Board, Point, Stone};
use std::sync::OnceLock;

/// The 3×3 templates. Rows top to bottom, the centre is the candidate move.
/// `X`/`O`: a stone of one colour / the other (both colourings are tried);
/// `.`: empty; `#`: off the board; `x`: not `X` (empty, `O` or border);
/// `o`: not `O`; `?`: anything.
const TEMPLATES: &[[&str; 3]] = &[
    // Hane: enclosing hane.
    ["XOX", "...", "???"],
    // Hane: non-cutting hane.
    ["XO.", "...", "?.?"],
    // Hane: magari.
    ["XO?", "X..", "x.?"],
    // Hane: thin hane.
    ["XOO", "...", "?.?"],
    // Diagonal attachment (katatsuke).
    [".O.", "X..", "..."],
    // Cut: unprotected cut (kiri).
    ["XO?", "O.o", "?o?"],
    // Cut: peeped cut.
    ["XO?", "O.X", "???"],
    // Cut: de (pushing through).
    ["?X?", "O.O", "ooo"],
    // Edge: chase.
    ["X.?", "O.?", "###"],
    // Edge: block a side cut.
    ["OX?", "X.O", "###"],
    // Edge: block a side connection.
    ["?X?", "x.O", "###"],
    // Edge: sagari.
    ["?XO", "x.x", "###"],
    // Edge: cut.
    ["?OX", "X.O", "###"],
];

/// Template cell (row, column) for each code position, matching [`RING`].
const CELLS: [(usize, usize); 8] = [
    (0, 1),
    (0, 2),
    (1, 2),
    (2, 2),
    (2, 1),
    (2, 0),
    (1, 0),
    (0, 0),
];

/// The 3×3 code of `p`'s neighbourhood (kept by the board incrementally).
#[inline]
pub fn code(board: &Board, p: Point) -> u16 {
    board.pattern_code(p)
}

/// Whether the move at the centre of the neighbourhood `code` matches a template.
#[inline]
pub fn is_good_shape(code: u16) -> bool {
    let table = table();
    table[code as usize >> 6] >> (code & 63) & 1 == 1
}

/// Whether the move at `p` matches a template.
#[inline]
pub fn matches_at(board: &Board, p: Point) -> bool {
    is_good_shape(code(board, p))
}

fn table() -> &'static [u64; 1024] {
    static TABLE: OnceLock<Box<[u64; 1024]>> = OnceLock::new();
    TABLE.get_or_init(build_table)
}

/// Whether a template character accepts a cell, with `x` the colour written `X`.
fn accepts(t: u8, cell: Stone, x: Stone) -> bool {
    let o = if x == Stone::Black {
        Stone::White
    } else {
        Stone::Black
    };
    match t {
        b'X' => cell == x,
        b'O' => cell == o,
        b'.' => cell == Stone::Empty,
        b'#' => cell == Stone::Border,
        b'x' => cell != x,
        b'o' => cell != o,
        _ => true,
    }
}

/// A map from a 3×3 grid cell (row, col) to another.
type Symmetry = fn(usize, usize) -> (usize, usize);

/// The eight symmetries of a 3×3 grid.
fn symmetries() -> [Symmetry; 8] {
    [
        |r, c| (r, c),
        |r, c| (c, 2 - r),
        |r, c| (2 - r, 2 - c),
        |r, c| (2 - c, r),
        |r, c| (r, 2 - c),
        |r, c| (2 - r, c),
        |r, c| (c, r),
        |r, c| (2 - c, 2 - r),
    ]
}

fn decode(code: u16) -> Option<[Stone; 8]> {
    let mut cells = [Stone::Empty; 8];
    for (k, cell) in cells.iter_mut().enumerate() {
        *cell = match (code >> (2 * k)) & 3 {
            0 => Stone::Black,
            1 => Stone::White,
            2 => Stone::Empty,
            _ => Stone::Border,
        };
    }
    // Borders must form a possible board edge: an orthogonal border forces its
    // two diagonal neighbours to be border too.
    for side in [0usize, 2, 4, 6] {
        if cells[side] == Stone::Border
            && (cells[(side + 1) % 8] != Stone::Border || cells[(side + 7) % 8] != Stone::Border)
        {
            return None;
        }
    }
    Some(cells)
}

fn build_table() -> Box<[u64; 1024]> {
    let mut table = Box::new([0u64; 1024]);
    for code in 0..=u16::MAX {
        let Some(cells) = decode(code) else { continue };
        let matched = TEMPLATES.iter().any(|t| {
            symmetries().iter().any(|sym| {
                [Stone::Black, Stone::White].into_iter().any(|x| {
                    CELLS.iter().enumerate().all(|(k, &(r, c))| {
                        let (tr, tc) = sym(r, c);
                        accepts(t[tr].as_bytes()[tc], cells[k], x)
                    })
                })
            })
        });
        if matched {
            table[code as usize >> 6] |= 1 << (code & 63);
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&str]) -> Board {
        Board::from_diagram(rows).expect("diagram")
    }

    #[test]
    fn hane_and_cut_match_under_symmetry_and_colour_swap() {
        let centre = |b: &Board| b.geometry().point(2, 2).unwrap();
        let b = board(&[".....", ".XOX.", ".....", ".....", "....."]);
        assert!(
            matches_at(&b, centre(&b)),
            "enclosing hane below the O stone"
        );
        let b = board(&[".....", ".OXO.", ".....", ".....", "....."]);
        assert!(matches_at(&b, centre(&b)), "colour swapped");
        let b = board(&[".....", ".X...", ".O...", ".X...", "....."]);
        assert!(matches_at(&b, centre(&b)), "rotated");
        let b = board(&[".....", ".....", ".....", ".XOX.", "....."]);
        assert!(matches_at(&b, centre(&b)), "reflected");
        let b = board(&[".....", ".XO..", ".O...", ".....", "....."]);
        assert!(matches_at(&b, centre(&b)), "unprotected cut");
        let b = board(&[".....", ".....", ".....", ".....", "....."]);
        assert!(!matches_at(&b, centre(&b)), "empty neighbourhood");
        let b = board(&[".....", ".X...", ".....", ".....", "....."]);
        assert!(!matches_at(&b, centre(&b)), "a lone diagonal stone");
    }

    #[test]
    fn edge_patterns_match_on_the_edge() {
        // Chase: X on A2, O on A1; the move at B1 has the edge below it.
        let b = board(&[".....", ".....", ".....", "X....", "O...."]);
        assert!(matches_at(&b, b.geometry().point(1, 4).unwrap()));
        // Block a side cut: O X / X . O over the edge.
        let b = board(&[".....", ".....", ".....", "OX...", "X.O.."]);
        assert!(matches_at(&b, b.geometry().point(1, 4).unwrap()));
    }

    #[test]
    fn codes_read_the_neighbourhood_in_order() {
        let b = board(&["X..", ".O.", "..."]);
        let g = b.geometry();
        let c = code(&b, g.point(1, 1).unwrap());
        // NW (position 7) is black (0), N (position 0) is empty (2).
        assert_eq!((c >> 14) & 3, Stone::Black as u16);
        assert_eq!(c & 3, Stone::Empty as u16);
        // Off-board neighbours of a corner point read as border.
        let corner = code(&b, g.point(0, 0).unwrap());
        assert_eq!(corner & 3, Stone::Border as u16);
    }
}
