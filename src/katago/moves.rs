//! `avoid`/`allow` restrictions as KataGo's clients write them, with one
//! vertex reader and one rule for both front ends (GTP's `kata-analyze …
//! avoid b d4,q16 1` and the analysis engine's `avoidMoves`/`allowMoves`).

use crate::engine::MoveRestriction;
use crate::go::board::{Geometry, Move};
use crate::go::vertex::Vertex;

/// The deepest `untilDepth` KataGo reads.
pub const MAX_DEPTH: i64 = 1_000_000_000;

/// Whether `depth` is an `untilDepth` KataGo takes (from 1 to [`MAX_DEPTH`]).
pub fn depth_ok(depth: i64) -> bool {
    (1..=MAX_DEPTH).contains(&depth)
}

/// KataGo's reading of a location (its `Location::parseLocation`): `pass`
/// (or `pss`), a GTP vertex (`D4`), or `(x,y)` counted from 0 at the top
/// left; `None` if it is none of these or off `geometry`.
pub fn parse_location(text: &str, geometry: Geometry) -> Option<Move> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("pss") {
        return Some(Move::Pass);
    }
    if let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        let (x, y) = inner.split_once(',')?;
        let x: usize = x.trim().parse().ok()?;
        let y: usize = y.trim().parse().ok()?;
        return geometry.point(x, y).map(Move::Play);
    }
    Vertex::parse(t)?.to_move(geometry)
}

/// Why a restriction cannot join the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clash {
    /// A second allow list for one player.
    AllowTwice,
    /// An allow list and an avoid list for one player.
    AllowAndAvoid,
}

/// Adds `new` to `restrictions` under KataGo's rule: for each player, any
/// number of avoid lists or one allow list, never both.
///
/// # Errors
/// The clash, with `restrictions` unchanged.
pub fn add(restrictions: &mut Vec<MoveRestriction>, new: MoveRestriction) -> Result<(), Clash> {
    for old in restrictions.iter().filter(|r| r.player == new.player) {
        match (old.allow, new.allow) {
            (true, true) => return Err(Clash::AllowTwice),
            (true, false) | (false, true) => return Err(Clash::AllowAndAvoid),
            (false, false) => {}
        }
    }
    restrictions.push(new);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Color;

    #[test]
    fn locations_read_as_katago_reads_them() {
        let g = Geometry::new(9).unwrap();
        assert_eq!(parse_location("pass", g), Some(Move::Pass));
        assert_eq!(parse_location("PSS", g), Some(Move::Pass));
        assert_eq!(parse_location("a9", g), g.point(0, 0).map(Move::Play));
        assert_eq!(parse_location("(8, 0)", g), g.point(8, 0).map(Move::Play));
        assert_eq!(parse_location("J1", g), g.point(8, 8).map(Move::Play));
        for bad in ["(9,0)", "K1", "i5", "", "(1)", "d44"] {
            assert_eq!(parse_location(bad, g), None, "{bad}");
        }
        assert!(depth_ok(1) && depth_ok(MAX_DEPTH));
        assert!(!depth_ok(0) && !depth_ok(MAX_DEPTH + 1));
    }

    #[test]
    fn avoid_lists_or_one_allow_list_per_player() {
        let r = |player, allow| MoveRestriction {
            player,
            moves: vec![Move::Pass],
            allow,
        };
        let mut list = Vec::new();
        add(&mut list, r(Color::Black, false)).unwrap();
        add(&mut list, r(Color::Black, false)).unwrap();
        add(&mut list, r(Color::White, true)).unwrap();
        assert_eq!(
            add(&mut list, r(Color::Black, true)),
            Err(Clash::AllowAndAvoid)
        );
        assert_eq!(
            add(&mut list, r(Color::White, true)),
            Err(Clash::AllowTwice)
        );
        assert_eq!(
            add(&mut list, r(Color::White, false)),
            Err(Clash::AllowAndAvoid)
        );
        assert_eq!(list.len(), 3);
    }
}
