//! What a search may begin with: the board points a front end rules out
//! (GTP's `avoid`/`allow`, the analysis engine's `avoidMoves`/`allowMoves`)
//! and KataGo's root symmetry pruning (`rootSymmetryPruning`, on by default
//! in its GTP and analysis engines). When a symmetry of the board maps the
//! position to itself (no ko or superko ban in force), the moves that are
//! images of moves already considered are not searched, and the front ends
//! list every searched move once more for each of its images (KataGo's
//! `isSymmetryOf`). Which of two symmetric moves is searched follows
//! KataGo's scan (`SymmetryHelpers::markDuplicateMoveLocs`): for Black the
//! columns from the right, for White from the left, so that natural
//! openings come out as they are usually recorded.

use crate::go::board::{Color, Geometry, Move, Point};
use crate::go::game::Game;
use crate::nn::symmetry::{is_transpose, map, NUM_SYMMETRIES};

/// The root moves a search leaves out, and the symmetries that list some of
/// them again as copies of searched ones.
#[derive(Clone, Debug, PartialEq)]
pub struct RootChoices {
    geometry: Option<Geometry>,
    /// Points ruled out by the front end: never searched, never listed.
    avoided: Vec<Point>,
    /// Symmetries mapping the position to itself, 0 (the identity) first.
    symmetries: Vec<u8>,
    /// By point index: an image of a move searched instead.
    duplicate: Vec<bool>,
}

impl Default for RootChoices {
    /// Everything searched: nothing avoided, the identity only.
    fn default() -> RootChoices {
        RootChoices::without_symmetries(Vec::new())
    }
}

impl RootChoices {
    /// What a search for `to_move` may begin with, as both front ends set it
    /// up: `avoided` left out, and with `symmetry_pruning` (KataGo's
    /// `rootSymmetryPruning`) one move of each set a symmetry makes equal.
    pub fn for_search(
        game: &Game,
        to_move: Color,
        avoided: Vec<Point>,
        symmetry_pruning: bool,
    ) -> RootChoices {
        if symmetry_pruning {
            RootChoices::new(game, to_move, avoided)
        } else {
            RootChoices::without_symmetries(avoided)
        }
    }

    /// `avoided` left out, no symmetry pruning.
    pub fn without_symmetries(avoided: Vec<Point>) -> RootChoices {
        RootChoices {
            geometry: None,
            avoided,
            symmetries: vec![0],
            duplicate: Vec::new(),
        }
    }

    /// `avoided` left out, and the images of searched moves under the
    /// symmetries of `game`'s position with `to_move` to play; an avoided
    /// move is never the searched one of its images.
    pub fn new(game: &Game, to_move: Color, avoided: Vec<Point>) -> RootChoices {
        let board = game.board();
        let g = board.geometry();
        let mut out = RootChoices {
            geometry: Some(g),
            avoided,
            symmetries: vec![0],
            duplicate: vec![false; g.area()],
        };
        // A transposing symmetry does not map a rectangle to itself.
        let count = if g.is_square() { NUM_SYMMETRIES } else { 4 };
        for s in 1..count {
            let maps_to_itself = g.points().all(|p| {
                image(s, g, p).is_some_and(|q| board.at(p).color() == board.at(q).color())
            });
            if maps_to_itself {
                out.symmetries.push(s);
            }
        }
        if out.symmetries.len() == 1 {
            return out;
        }
        // A ko or superko ban breaks the symmetry (KataGo's rule). Checked
        // only once the stones are symmetric: most positions are not, and
        // this runs before every `genmove`.
        let banned = g.points().any(|p| {
            board.at(p).color().is_none()
                && matches!(
                    game.check(to_move, Move::Play(p)),
                    Err(e) if e.repeats_move().is_some() || e == crate::go::game::IllegalMove::Ko
                )
        });
        if banned {
            out.symmetries.truncate(1);
            return out;
        }
        let (w, h) = (g.width(), g.height());
        let columns: Vec<usize> = if to_move == Color::Black {
            (0..w).rev().collect()
        } else {
            (0..w).collect()
        };
        for x in columns {
            for k in 0..h {
                let y = if to_move == Color::Black {
                    k
                } else {
                    h - 1 - k
                };
                let Some(p) = g.point(x, y) else { continue };
                if out.avoided.contains(&p) || out.duplicate[cell(g, p)] {
                    continue;
                }
                for &s in &out.symmetries[1..] {
                    if let Some(q) = image(s, g, p).filter(|&q| q != p) {
                        out.duplicate[cell(g, q)] = true;
                    }
                }
            }
        }
        out
    }

    /// The symmetries that map the position to itself (0 first).
    pub fn symmetries(&self) -> &[u8] {
        &self.symmetries
    }

    /// The front end's avoided points.
    pub fn avoided(&self) -> &[Point] {
        &self.avoided
    }

    /// The moves not to search: images of moves searched instead.
    pub fn duplicates(&self) -> impl Iterator<Item = Point> + '_ {
        self.geometry.into_iter().flat_map(move |g| {
            g.points()
                .filter(move |p| self.duplicate.get(cell(g, *p)) == Some(&true))
        })
    }

    /// Every point the search leaves out: the avoided ones and the
    /// duplicates.
    pub fn excluded(&self) -> Vec<Point> {
        self.avoided
            .iter()
            .copied()
            .chain(self.duplicates())
            .collect()
    }

    /// `mv`'s image under symmetry `s` (a pass stays a pass).
    pub fn image(&self, s: u8, mv: Move) -> Move {
        match (mv, self.geometry) {
            (Move::Play(p), Some(g)) => image(s, g, p).map_or(mv, Move::Play),
            _ => mv,
        }
    }
}

/// `p`'s index in a row-by-row array of the board's points.
fn cell(g: Geometry, p: Point) -> usize {
    p.y() * g.width() + p.x()
}

/// Point `p` under symmetry `s` on a board that `s` maps to itself.
fn image(s: u8, g: Geometry, p: Point) -> Option<Point> {
    if is_transpose(s) && !g.is_square() {
        return None;
    }
    let (y, x) = map(s, g.width(), g.height(), p.y(), p.x());
    g.point(x, y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Preset;
    use crate::go::vertex::{format_move, parse_move};

    fn game(size: usize, moves: &[&str]) -> Game {
        let g = Geometry::new(size).unwrap();
        let mut game = Game::new(g, Preset::Chinese.rules(), 7.5);
        for m in moves {
            let c = game.to_move();
            game.play(c, parse_move(m, g).unwrap()).unwrap();
        }
        game
    }

    fn searched(game: &Game) -> Vec<String> {
        let r = RootChoices::new(game, game.to_move(), Vec::new());
        let g = game.board().geometry();
        g.points()
            .filter(|p| !r.duplicates().any(|q| q == *p))
            .map(|p| format_move(Move::Play(p), g))
            .collect()
    }

    #[test]
    fn the_empty_board_searches_one_eighth_from_the_upper_right_for_black() {
        let g = game(5, &[]);
        let r = RootChoices::new(&g, g.to_move(), Vec::new());
        assert_eq!(r.symmetries(), &[0, 1, 2, 3, 4, 5, 6, 7]);
        // Of 25 points, the 6 of one triangle (with its diagonal and axes).
        let kept = searched(&g);
        assert_eq!(kept.len(), 6, "{kept:?}");
        assert!(kept.contains(&"E5".to_string()) && kept.contains(&"C3".to_string()));
        assert!(!kept.contains(&"A1".to_string()));
    }

    #[test]
    fn white_scans_from_the_left_and_asymmetry_prunes_nothing() {
        let w = game(5, &["C3"]);
        let kept = searched(&w);
        assert_eq!(kept.len(), 6, "{kept:?}");
        assert!(kept.contains(&"A1".to_string()), "{kept:?}");
        let asym = game(5, &["B2"]);
        assert_eq!(
            RootChoices::new(&asym, asym.to_move(), Vec::new())
                .symmetries()
                .len(),
            2
        ); // the diagonal
        let mirrored = game(5, &["B2", "pass", "D2"]);
        // Two black stones, mirror images: only the left-right flip holds.
        assert_eq!(
            RootChoices::new(&mirrored, mirrored.to_move(), Vec::new()).symmetries(),
            &[0, 2]
        );
        let broken = game(5, &["B2", "D3"]);
        assert_eq!(
            RootChoices::new(&broken, broken.to_move(), Vec::new()).symmetries(),
            &[0]
        );
        assert_eq!(searched(&broken).len(), 25);
    }

    #[test]
    fn a_rectangle_has_no_transposing_symmetry() {
        let g = Geometry::rect(7, 5).unwrap();
        let game = Game::new(g, Preset::Chinese.rules(), 7.5);
        assert_eq!(
            RootChoices::new(&game, game.to_move(), Vec::new()).symmetries(),
            &[0, 1, 2, 3]
        );
    }

    #[test]
    fn images_map_moves_and_keep_passes() {
        let g = game(9, &[]);
        let r = RootChoices::new(&g, g.to_move(), Vec::new());
        let geo = g.board().geometry();
        let c3 = parse_move("C3", geo).unwrap();
        let images: Vec<String> = r
            .symmetries()
            .iter()
            .map(|&s| format_move(r.image(s, c3), geo))
            .collect();
        for v in ["C3", "C7", "G3", "G7"] {
            assert!(images.contains(&v.to_string()), "{images:?}");
        }
        assert_eq!(r.image(3, Move::Pass), Move::Pass);
    }
}
