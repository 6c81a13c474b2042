//! Writes a [`Game`] as FF\[4\] SGF: root properties, the start position as
//! setup stones, then the moves; passes as `[]`.
//!
//! The text has no blank lines (GTP forbids empty lines inside a response, and
//! `printsgf` sends this text). What a [`Game`] does not keep is not written:
//! moves before its last setup (the game keeps the position, not that history).

use super::record::{point_letters, rules_to_text};
use crate::go::board::{Color, Move, Stone};
use crate::go::game::Game;

/// Moves per line of output.
const MOVES_PER_LINE: usize = 10;

/// The game as SGF text: `FF[4] GM[1] CA[UTF-8] AP SZ KM RU`, `HA` when
/// `handicap` ≥ 2, `RE` when `result` is given, then `AB`/`AW` for the stones
/// of the start position and `PL` when that position has stones or White to
/// move, then one node per move. Ends with a newline.
pub fn write_game(game: &Game, handicap: u32, result: Option<&str>) -> String {
    let (start, start_to_move) = game.start_position();
    let mut out = String::with_capacity(128 + game.turns().len() * 6);
    out.push_str("(;FF[4]GM[1]CA[UTF-8]AP[tengen:");
    out.push_str(env!("CARGO_PKG_VERSION"));
    out.push(']');
    out.push_str(&format!(
        "SZ[{}]KM[{}]RU[{}]",
        start.geometry().sgf_size(),
        game.komi(),
        escape(&rules_to_text(game.rules()))
    ));
    if handicap >= 2 {
        out.push_str(&format!("HA[{handicap}]"));
    }
    if let Some(r) = result {
        out.push_str(&format!("RE[{}]", escape(r)));
    }
    let mut has_stones = false;
    for (ident, color) in [("AB", Color::Black), ("AW", Color::White)] {
        let mut first = true;
        for p in start.geometry().points() {
            if start.at(p) == color.stone() {
                if first {
                    out.push('\n');
                    out.push_str(ident);
                    first = false;
                }
                push_point(&mut out, Some(p));
            }
        }
        has_stones |= !first;
    }
    debug_assert!(start
        .geometry()
        .points()
        .all(|p| start.at(p) != Stone::Border));
    if has_stones || start_to_move == Color::White {
        out.push_str(&format!("PL[{}]", start_to_move.letter()));
    }
    for (i, turn) in game.turns().iter().enumerate() {
        if i % MOVES_PER_LINE == 0 {
            out.push('\n');
        }
        out.push(';');
        out.push(turn.color.letter());
        push_point(
            &mut out,
            match turn.mv {
                Move::Play(p) => Some(p),
                Move::Pass => None,
            },
        );
    }
    out.push_str(")\n");
    out
}

/// `[xy]` for a point, `[]` for none (a pass).
fn push_point(out: &mut String, p: Option<crate::go::board::Point>) {
    out.push('[');
    if let Some(p) = p {
        let [a, b] = point_letters(p);
        out.push(a as char);
        out.push(b as char);
    }
    out.push(']');
}

/// A SimpleText value with `]`, `\` escaped and line breaks as spaces.
fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            ']' | '\\' => {
                s.push('\\');
                s.push(ch);
            }
            '\n' | '\r' => s.push(' '),
            _ => s.push(ch),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Geometry;
    use crate::go::rules::Preset;
    use crate::sgf::record::load;

    #[test]
    fn writes_setup_moves_and_root_properties() {
        let g = Geometry::new(9).unwrap();
        let mut game = Game::new(g, Preset::Japanese.rules(), 6.5);
        game.setup(
            &[
                (g.point(2, 2).unwrap(), Some(Color::Black)),
                (g.point(6, 6).unwrap(), Some(Color::Black)),
            ],
            Some(Color::White),
        );
        game.play(Color::White, Move::Play(g.point(4, 4).unwrap()))
            .unwrap();
        game.play(Color::Black, Move::Pass).unwrap();
        let text = write_game(&game, 2, Some("W+R]"));
        assert_eq!(
            text,
            format!(
                "(;FF[4]GM[1]CA[UTF-8]AP[tengen:{}]SZ[9]KM[6.5]RU[Japanese]HA[2]RE[W+R\\]]\nAB[cc][gg]PL[W]\n;W[ee];B[])\n",
                env!("CARGO_PKG_VERSION")
            )
        );
        assert!(!text.contains("\n\n"));
        let back = load(text.as_bytes(), 0, None, Preset::Chinese.rules(), 0.0).unwrap();
        assert_eq!(back.game.board().hash(), game.board().hash());
        assert_eq!(back.game.turns(), game.turns());
        assert_eq!(back.game.rules(), game.rules());
        assert_eq!(back.info.komi, Some(6.5));
        assert_eq!(back.info.handicap, 2);
        assert_eq!(back.info.result.as_deref(), Some("W+R]"));
    }

    #[test]
    fn a_rectangular_board_is_written_width_first_and_reads_back() {
        // 19 columns, 13 rows: the far corner is s (x 18) m (y 12).
        let g = Geometry::rect(19, 13).unwrap();
        let mut game = Game::new(g, Preset::Chinese.rules(), 7.5);
        game.setup(&[(g.point(0, 12).unwrap(), Some(Color::White))], None);
        game.play(Color::Black, Move::Play(g.point(18, 12).unwrap()))
            .unwrap();
        game.play(Color::White, Move::Play(g.point(18, 0).unwrap()))
            .unwrap();
        let text = write_game(&game, 0, None);
        assert!(text.contains("SZ[19:13]"), "{text}");
        assert!(
            text.contains("AW[am]") && text.contains(";B[sm];W[sa]"),
            "{text}"
        );
        let back = load(text.as_bytes(), 0, None, Preset::Chinese.rules(), 0.0).unwrap();
        assert_eq!(back.info.geometry, g);
        assert_eq!(back.game.board().geometry(), g);
        assert_eq!(back.game.board().hash(), game.board().hash());
        assert_eq!(back.game.turns(), game.turns());
        // And the other way round: 13 columns, 19 rows.
        let t = Game::new(g.transposed(), Preset::Chinese.rules(), 7.5);
        assert!(write_game(&t, 0, None).contains("SZ[13:19]"));
    }
}
