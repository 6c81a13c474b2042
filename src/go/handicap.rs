//! Handicap stone placement: the fixed pattern of GTP `fixed_handicap` (GNU Go's
//! `engine/handicap.c` layout, shared/docs/gtp-clients.md §2.6) and the free
//! placement tengen chooses for `place_free_handicap`; and how many handicap
//! stones a game had, counted as KataGo counts them ([`count_katago`]).
//!
//! Fixed handicap: at most 9 stones on odd boards from 9×9 up, at most 4 on even
//! boards and on 7×7, none below 7×7. Corner stones sit on the 3rd line on
//! boards up to 11×11, on the 4th line above. Nothing here places stones on a
//! board: callers put the points into the game as setup.
//!
//! Rectangular boards are treated one axis at a time, as KataGo's
//! `PlayUtils::placeFixedHandicap` does: no fixed handicap if either side is
//! below 7, at most 4 stones if either side is even or 7, and each axis takes
//! its own corner line and middle from its own length. On a square board this
//! is the layout above unchanged.

use crate::go::board::{Geometry, Point};

/// Largest `fixed_handicap` for a board.
pub fn max_fixed(geometry: Geometry) -> usize {
    let one_side = |s: usize| match s {
        s if s < 7 => 0,
        7 => 4,
        s if s % 2 == 0 => 4,
        _ => 9,
    };
    one_side(geometry.width()).min(one_side(geometry.height()))
}

/// The fixed placement of `stones` handicap stones, in GNU Go's order; `None`
/// when that number is not possible on this board (below 2 or above
/// [`max_fixed`]).
pub fn fixed(geometry: Geometry, stones: usize) -> Option<Vec<Point>> {
    if stones < 2 || stones > max_fixed(geometry) {
        return None;
    }
    // (corner line, far corner line, middle) along one axis of length s.
    let axis = |s: usize| {
        let edge = if s <= 11 { 2 } else { 3 };
        (edge, s - 1 - edge, s / 2)
    };
    let (left_x, right_x, mid_x) = axis(geometry.width());
    let (top_y, bottom_y, mid_y) = axis(geometry.height());
    // (x, y) from the top-left.
    let bottom_left = (left_x, bottom_y);
    let top_right = (right_x, top_y);
    let top_left = (left_x, top_y);
    let bottom_right = (right_x, bottom_y);
    let left = (left_x, mid_y);
    let right = (right_x, mid_y);
    let bottom = (mid_x, bottom_y);
    let top = (mid_x, top_y);
    let centre = (mid_x, mid_y);
    let corners = [bottom_left, top_right, top_left, bottom_right];
    let mut spots: Vec<(usize, usize)> = match stones {
        2..=4 => corners[..stones].to_vec(),
        5 => corners.to_vec(),
        6 | 7 => [&corners[..], &[left, right]].concat(),
        _ => [&corners[..], &[left, right, bottom, top]].concat(),
    };
    if stones % 2 == 1 && stones >= 5 {
        spots.push(centre);
    }
    Some(
        spots
            .into_iter()
            .map(|(x, y)| geometry.point(x, y).expect("handicap point on the board"))
            .collect(),
    )
}

/// tengen's free placement of `stones` stones: the fixed pattern as far as it
/// goes, then each further stone on the empty point farthest from every stone
/// placed so far (preferring the 3rd and 4th lines). `None` unless
/// `2 <= stones < width × height`.
pub fn free(geometry: Geometry, stones: usize) -> Option<Vec<Point>> {
    if stones < 2 || stones >= geometry.area() {
        return None;
    }
    let mut placed = fixed(geometry, stones.min(max_fixed(geometry))).unwrap_or_default();
    let (w, h) = (geometry.width() as i64, geometry.height() as i64);
    let line_x = |v: i64| v.min(w - 1 - v);
    let line_y = |v: i64| v.min(h - 1 - v);
    let preferred = |s: i64| if s <= 11 { 2 } else { 3 };
    while placed.len() < stones {
        let best = geometry
            .points()
            .filter(|p| !placed.contains(p))
            .max_by_key(|p| {
                let (x, y) = (p.x() as i64, p.y() as i64);
                let nearest = placed
                    .iter()
                    .map(|q| (q.x() as i64 - x).abs() + (q.y() as i64 - y).abs())
                    .min()
                    .unwrap_or(w + h);
                let off_line = (line_x(x) - preferred(w)).abs() + (line_y(y) - preferred(h)).abs();
                // Farthest first; then closest to the preferred line; then the
                // first point in reading order (max_by_key keeps the last max).
                (nearest, -off_line, -(p.index() as i64))
            })
            .expect("fewer stones than points");
        placed.push(best);
    }
    Some(placed)
}

/// The number of handicap stones as KataGo counts them
/// (`BoardHistory::computeNumHandicapStones` with its GTP default
/// `assumeMultipleStartingBlackMovesAreHandicap`): the black stones of the
/// position the history starts from plus Black's board plays before White's
/// first board play (White's passes in between do not stop the count), and
/// none at all if that position has a white stone or if the total is 1.
/// White's compensation for them is [`crate::go::rules::HandicapBonus::points`].
pub fn count_katago(start_black: u32, start_white: u32, black_plays_before_white: u32) -> u32 {
    if start_white != 0 {
        return 0;
    }
    match start_black + black_plays_before_white {
        0 | 1 => 0,
        n => n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::vertex::format_point;

    fn names(g: Geometry, n: usize) -> String {
        fixed(g, n)
            .unwrap()
            .into_iter()
            .map(|p| format_point(p, g))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn gnugo_layout_on_19x19() {
        let g = Geometry::new(19).unwrap();
        assert_eq!(names(g, 2), "D4 Q16");
        assert_eq!(names(g, 3), "D4 Q16 D16");
        assert_eq!(names(g, 4), "D4 Q16 D16 Q4");
        assert_eq!(names(g, 5), "D4 Q16 D16 Q4 K10");
        assert_eq!(names(g, 6), "D4 Q16 D16 Q4 D10 Q10");
        assert_eq!(names(g, 7), "D4 Q16 D16 Q4 D10 Q10 K10");
        assert_eq!(names(g, 8), "D4 Q16 D16 Q4 D10 Q10 K4 K16");
        assert_eq!(names(g, 9), "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10");
        assert!(fixed(g, 1).is_none() && fixed(g, 10).is_none());
    }

    #[test]
    fn small_and_even_boards() {
        let g9 = Geometry::new(9).unwrap();
        assert_eq!(names(g9, 5), "C3 G7 C7 G3 E5");
        let g13 = Geometry::new(13).unwrap();
        assert_eq!(names(g13, 4), "D4 K10 D10 K4");
        let g10 = Geometry::new(10).unwrap();
        assert_eq!(max_fixed(g10), 4);
        assert!(fixed(g10, 5).is_none());
        let g7 = Geometry::new(7).unwrap();
        assert_eq!(names(g7, 4), "C3 E5 C5 E3");
        assert!(fixed(g7, 5).is_none());
        assert!(fixed(Geometry::new(6).unwrap(), 2).is_none());
    }

    #[test]
    fn rectangular_boards_take_each_axis_alone() {
        // 19 wide, 13 high: 4th-line corners on both axes, K for the middle column, row 7.
        let g = Geometry::rect(19, 13).unwrap();
        assert_eq!(max_fixed(g), 9);
        assert_eq!(names(g, 9), "D4 Q10 D10 Q4 D7 Q7 K4 K10 K7");
        // 13 wide, 9 high: 3rd-line rows, 4th-line columns.
        let g = Geometry::rect(13, 9).unwrap();
        assert_eq!(names(g, 5), "D3 K7 D7 K3 G5");
        // An even side or a side of 7 allows 4; a side below 7 none.
        assert_eq!(max_fixed(Geometry::rect(19, 10).unwrap()), 4);
        assert_eq!(max_fixed(Geometry::rect(7, 19).unwrap()), 4);
        assert_eq!(max_fixed(Geometry::rect(19, 6).unwrap()), 0);
        assert!(fixed(Geometry::rect(19, 6).unwrap(), 2).is_none());
        for (w, h) in [(19, 13), (13, 19), (2, 5), (25, 3)] {
            let g = Geometry::rect(w, h).unwrap();
            for n in 2..g.area().min(30) {
                let mut v = free(g, n).unwrap();
                v.sort();
                v.dedup();
                assert_eq!(v.len(), n, "{w}x{h} {n}");
            }
        }
    }

    #[test]
    fn free_placement_gives_exactly_n_distinct_points() {
        for size in [2, 5, 9, 19] {
            let g = Geometry::new(size).unwrap();
            for n in 2..g.area().min(40) {
                let v = free(g, n).unwrap();
                assert_eq!(v.len(), n);
                let mut sorted = v.clone();
                sorted.sort();
                sorted.dedup();
                assert_eq!(sorted.len(), n, "{size} {n}");
            }
            assert!(free(g, g.area()).is_none());
            assert!(free(g, 1).is_none());
        }
        let g = Geometry::new(19).unwrap();
        assert_eq!(free(g, 4), fixed(g, 4));
    }

    #[test]
    fn katago_counts_two_or_more_black_stones_on_a_board_without_white() {
        assert_eq!(count_katago(0, 0, 0), 0);
        assert_eq!(count_katago(1, 0, 0), 0, "one black stone: an even game");
        assert_eq!(count_katago(0, 0, 1), 0);
        assert_eq!(count_katago(2, 0, 0), 2);
        assert_eq!(count_katago(1, 0, 1), 2);
        assert_eq!(count_katago(0, 0, 3), 3);
        assert_eq!(
            count_katago(9, 1, 0),
            0,
            "a set-up position, not a handicap"
        );
    }
}
