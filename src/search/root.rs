//! What a search starts from: the root position, its key and the root moves
//! the search may begin with, shared read-only by the threads.

use super::classical::playout::default_max_moves;
use super::config::SearchConfig;
use super::key::{KeyMode, KeyState};
use super::tt::PASS;
use crate::go::board::{Board, Color, Move, CELLS};
use crate::go::game::Game;
use crate::go::rules::KoRule;

/// What a search starts from; shared read-only by the threads.
pub struct Root<'a> {
    pub game: &'a Game,
    pub board: Board,
    pub color: Color,
    pub keys: KeyState,
    pub key: u64,
    pub mode: KeyMode,
    /// `legal[cell]`: the root may play there (true board plays only). The
    /// root's edges are made for these.
    pub legal: Vec<bool>,
    /// `searched[cell]`: legal and not excluded by the front end (avoided,
    /// or an image of a searched move): the root's moves the search visits
    /// and reports. Excluded moves keep their edges, so priors and a table
    /// shared with other searches stay as the net gave them.
    pub searched: Vec<bool>,
    pub max_depth: usize,
    pub max_playout_moves: u32,
    /// Visits a leaf needs before it is expanded.
    pub expand_after: u32,
    /// The margin (for Black, komi included) the score part of a playout's
    /// value is centred on: the expected result of the position
    /// ([`playout_value`](super::value::playout_value)).
    pub score_center: f64,
}

impl<'a> Root<'a> {
    pub fn new(game: &'a Game, color: Color, cfg: &SearchConfig) -> Root<'a> {
        let transpositions = cfg.transpositions;
        let board = game.board().clone();
        let keys = KeyState::of_game(game);
        let superko = game.rules().ko != KoRule::Simple;
        let mode = if transpositions {
            KeyMode::Transpositions { superko }
        } else {
            KeyMode::PlainTree
        };
        let mut legal = vec![false; CELLS];
        for p in board.empty_points() {
            legal[p.index()] = game.is_legal(color, Move::Play(p));
        }
        let area = board.geometry().area();
        let expand_after = if cfg.expand_after > 0 {
            cfg.expand_after
        } else {
            (area as u32 / 40).max(2)
        };
        Root {
            expand_after,
            key: keys.key(&board, color, mode),
            max_playout_moves: default_max_moves(&board),
            board,
            color,
            keys,
            mode,
            searched: legal.clone(),
            legal,
            game,
            max_depth: area,
            score_center: 0.0,
        }
    }

    /// Whether the search may begin with the edge to `point`: a pass, or
    /// a board play [`Root::searched`] keeps.
    pub fn searches(&self, point: u16) -> bool {
        point == PASS || self.searched[point as usize]
    }
}
