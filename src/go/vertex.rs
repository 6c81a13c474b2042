//! GTP vertices and colours as text: `D4`, `j11`, `pass`, `B`, `white`, as
//! both front ends read and write them (GTP, and KataGo's JSON analysis
//! protocol, which uses the same vertices).
//!
//! Columns are the letters A–Z without I (so at most 25), rows are numbered
//! from 1 at the **bottom**; tengen's [`Point`] counts rows from the top, so
//! `y = height - row`. Input is case-insensitive; output is upper-case for
//! points and lower-case for `pass`, as every client expects
//! (shared/docs/gtp-clients.md §1, rules 6–7).

use crate::go::board::{Color, Geometry, Move, Point};

/// The column letters, I skipped.
const COLUMNS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// A vertex as written, before it is placed on a board of some size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vertex {
    Pass,
    /// Column from the left and row from the bottom, both from 1.
    At {
        column: usize,
        row: usize,
    },
}

impl Vertex {
    /// Reads `D4`, `d4`, `T19`, `pass`, `PASS`. `None` when the text is not a
    /// vertex at all (`I5`, `A0`, `A26`, `foo`).
    pub fn parse(text: &str) -> Option<Vertex> {
        if text.eq_ignore_ascii_case("pass") {
            return Some(Vertex::Pass);
        }
        let bytes = text.as_bytes();
        let (&letter, digits) = bytes.split_first()?;
        let letter = letter.to_ascii_uppercase();
        let column = COLUMNS.iter().position(|&c| c == letter)? + 1;
        if digits.is_empty() || digits.len() > 2 || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let row: usize = std::str::from_utf8(digits).ok()?.parse().ok()?;
        (1..=COLUMNS.len())
            .contains(&row)
            .then_some(Vertex::At { column, row })
    }

    /// The move this vertex names on a board of `geometry`; `None` if it lies
    /// off that board.
    pub fn to_move(self, geometry: Geometry) -> Option<Move> {
        match self {
            Vertex::Pass => Some(Move::Pass),
            Vertex::At { column, row } => {
                if column > geometry.width() || row > geometry.height() {
                    return None;
                }
                geometry
                    .point(column - 1, geometry.height() - row)
                    .map(Move::Play)
            }
        }
    }
}

/// Reads a vertex and places it on `geometry`: `Err(true)` when the text is no
/// vertex (a syntax error), `Err(false)` when it is off this board.
pub fn parse_move(text: &str, geometry: Geometry) -> Result<Move, bool> {
    Vertex::parse(text)
        .ok_or(true)?
        .to_move(geometry)
        .ok_or(false)
}

/// `D4` for a point of a board of `geometry` (the row counts from its bottom).
pub fn format_point(p: Point, geometry: Geometry) -> String {
    format!("{}{}", COLUMNS[p.x()] as char, geometry.height() - p.y())
}

/// `D4` or `pass`.
pub fn format_move(mv: Move, geometry: Geometry) -> String {
    match mv {
        Move::Pass => "pass".to_string(),
        Move::Play(p) => format_point(p, geometry),
    }
}

/// The column letter of column `x` (from 0), for board diagrams.
pub fn column_letter(x: usize) -> char {
    COLUMNS[x] as char
}

/// Reads `b`, `B`, `black`, `WHITE`, … (GTP colours are case-insensitive).
pub fn parse_color(text: &str) -> Option<Color> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_round_trip_on_every_size() {
        for (w, h) in (2..=25).flat_map(|w| (2..=25).map(move |h| (w, h))) {
            let g = Geometry::rect(w, h).unwrap();
            for p in g.points() {
                let text = format_point(p, g);
                assert_eq!(parse_move(&text, g), Ok(Move::Play(p)));
                assert_eq!(parse_move(&text.to_lowercase(), g), Ok(Move::Play(p)));
            }
        }
    }

    #[test]
    fn corners_skip_i_and_count_rows_from_the_bottom() {
        let g = Geometry::new(19).unwrap();
        assert_eq!(parse_move("A1", g), Ok(Move::Play(g.point(0, 18).unwrap())));
        assert_eq!(
            parse_move("T19", g),
            Ok(Move::Play(g.point(18, 0).unwrap()))
        );
        assert_eq!(parse_move("J10", g), Ok(Move::Play(g.point(8, 9).unwrap())));
        assert_eq!(parse_move("PaSs", g), Ok(Move::Pass));
        assert_eq!(parse_move("I5", g), Err(true));
        assert_eq!(parse_move("A0", g), Err(true));
        assert_eq!(parse_move("A26", g), Err(true));
        assert_eq!(parse_move("A+1", g), Err(true));
        assert_eq!(parse_move("", g), Err(true));
        assert_eq!(parse_move("U5", g), Err(false));
        assert_eq!(parse_move("A20", g), Err(false));
        assert_eq!(format_move(Move::Pass, g), "pass");
        let g25 = Geometry::new(25).unwrap();
        assert_eq!(
            parse_move("Z25", g25),
            Ok(Move::Play(g25.point(24, 0).unwrap()))
        );
    }

    #[test]
    fn rectangular_columns_follow_width_and_rows_height() {
        // 19 wide, 13 high: columns A..T, rows 1..13 from the bottom.
        let g = Geometry::rect(19, 13).unwrap();
        assert_eq!(parse_move("A1", g), Ok(Move::Play(g.point(0, 12).unwrap())));
        assert_eq!(
            parse_move("T13", g),
            Ok(Move::Play(g.point(18, 0).unwrap()))
        );
        assert_eq!(parse_move("T14", g), Err(false));
        assert_eq!(parse_move("A19", g), Err(false));
        // 13 wide, 19 high: columns A..N, rows 1..19.
        let t = g.transposed();
        assert_eq!(
            parse_move("N19", t),
            Ok(Move::Play(t.point(12, 0).unwrap()))
        );
        assert_eq!(parse_move("O1", t), Err(false));
        assert_eq!(format_point(t.point(12, 18).unwrap(), t), "N1");
    }

    #[test]
    fn colors_any_case() {
        for t in ["b", "B", "black", "BLACK", "Black"] {
            assert_eq!(parse_color(t), Some(Color::Black));
        }
        for t in ["w", "W", "white", "WHITE"] {
            assert_eq!(parse_color(t), Some(Color::White));
        }
        assert_eq!(parse_color("bl"), None);
        assert_eq!(parse_color(""), None);
    }
}
