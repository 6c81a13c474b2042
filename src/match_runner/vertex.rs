//! GTP vertex text for the match runner: `D4`, `pass` (columns A–Z skipping I,
//! row 1 at the bottom), read case-insensitively, written upper-case.
//!
//! TODO(merge): use gtp::vertex — this private converter exists only until the
//! shared one from the `gtp` branch is merged.

use crate::board::{Geometry, Move, Point};

const COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// Reads a vertex on a board of geometry `g`; `None` if it is not a vertex of
/// that board.
pub fn parse(text: &str, g: Geometry) -> Option<Move> {
    let t = text.trim().to_ascii_uppercase();
    if t == "PASS" {
        return Some(Move::Pass);
    }
    let mut chars = t.chars();
    let letter = chars.next()?;
    let x = COLUMNS.iter().position(|&c| char::from(c) == letter)?;
    let digits = chars.as_str();
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let row: usize = digits.parse().ok()?;
    if row == 0 || row > g.size() {
        return None;
    }
    g.point(x, g.size() - row).map(Move::Play)
}

/// Writes a move as GTP text: `D4` or `pass`.
pub fn format(mv: Move, g: Geometry) -> String {
    match mv {
        Move::Pass => "pass".to_string(),
        Move::Play(p) => point(p, g),
    }
}

/// Writes a board point as GTP text (`D4`).
pub fn point(p: Point, g: Geometry) -> String {
    let column = COLUMNS.get(p.x()).map_or('?', |&c| char::from(c));
    format!("{column}{}", g.size() - p.y())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejects() {
        let g = Geometry::new(19).unwrap();
        for p in g.points() {
            let text = point(p, g);
            assert_eq!(parse(&text, g), Some(Move::Play(p)));
            assert_eq!(parse(&text.to_ascii_lowercase(), g), Some(Move::Play(p)));
        }
        assert_eq!(format(Move::Pass, g), "pass");
        assert_eq!(parse("PASS", g), Some(Move::Pass));
        assert_eq!(parse("A1", g), g.point(0, 18).map(Move::Play));
        assert_eq!(parse("J19", g), g.point(8, 0).map(Move::Play));
        assert_eq!(parse("T19", g), g.point(18, 0).map(Move::Play));
        let small = Geometry::new(9).unwrap();
        for bad in [
            "I5", "K1", "A10", "A0", "A", "", "5A", "A+1", "A01x", "resign", "é3",
        ] {
            assert_eq!(parse(bad, small), None, "{bad}");
        }
    }
}
