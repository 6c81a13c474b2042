//! Search keys: which positions of the search may share one node of the
//! transposition table.
//!
//! With transpositions on, a node's key is
//! `position key ^ side-to-move key ^ ko-point key ^ pass-count key ^ history key`
//! `^ board-shape key`:
//! - the board's shape is folded in because the same stones on two board
//!   sizes stand on the same point indices: a table kept between searches
//!   (a GTP session or an analysis engine changing sizes) must not give a
//!   5×5 position the node, and the moves, of a 7×7 one;
//! - the simple-ko point is folded in only when it forbids the player to move
//!   (otherwise it changes no legal move);
//! - the pass count (0, 1, 2+) matters because two passes end the game;
//! - the **history key** is zero under the simple-ko rule. Under any superko
//!   rule it is a fingerprint of every situation that stood *before the most
//!   recent capture* (game and search path together).
//!
//! Why that history is enough: a board play can only recreate an earlier board
//! `Q` if some stone was removed since `Q` stood. Between the last capture and
//! now, moves only *added* stones (the tree never plays suicides, the other way
//! to remove stones), so every position `Q` of that stretch is a subset of the
//! current board in which the point of the new move is empty; the new position
//! has a stone there, hence differs from `Q`. So the legal moves of a node depend
//! on its situation and on the *set* of situations before the last capture, and
//! nothing else. The fingerprint is an order-free wrapping sum of a mixed key per
//! situation: two nodes merge only when those sets (counted with multiplicity)
//! agree, so nodes with different legal moves never merge, while the common case
//! (the same local moves in another order, no capture since) still transposes.
//!
//! One consequence: a node reached by two move orders (same situation, same
//! history before the last capture) has one set of legal moves, but a capture
//! from it starts a new history that includes the positions since the last
//! capture, which differ between the two orders; so that edge can lead to
//! different children depending on the path. Such edges are marked
//! (`Edge::multi_child`) and average their own results instead of reading one
//! child's value. Merging less (e.g. chaining the whole history) would keep
//! edges single-child but lose most transpositions; merging more (ignoring the
//! history) would merge nodes whose legal moves differ.
//!
//! With transpositions off, the key is a rolling hash of the whole move sequence
//! since the game's start: a plain tree (that still survives between moves),
//! with the board-shape key too.

use crate::go::board::zobrist::{ko_key, to_move_key};
use crate::go::board::{Board, Color, Move};
use crate::go::game::Game;

/// SplitMix64's finaliser: a bijective 64-bit mixer.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The key of the board's shape (width and height).
#[inline]
fn shape_key(board: &Board) -> u64 {
    let g = board.geometry();
    mix(((g.width() as u64) << 16 | g.height() as u64) ^ 0x6a09_e667_f3bc_c909)
}

/// Keys of the pass count (0, 1, 2 or more), arbitrary odd constants.
const PASS_KEYS: [u64; 3] = [0, 0x5851_f42d_4c95_7f2d, 0x1405_7b7e_f767_814f];

/// How nodes are keyed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyMode {
    /// Positions reached by different move orders share a node; `superko`
    /// says whether the history key is needed (any rule but simple ko).
    Transpositions { superko: bool },
    /// Every move sequence has its own node.
    PlainTree,
}

/// What a search path carries to key the positions along it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyState {
    /// Wrapping sum of the mixed situation keys of every position so far.
    total: u64,
    /// `total` as it stood just before the most recent capture (0 if none).
    before_capture: u64,
    /// Rolling hash of the move sequence (plain-tree mode).
    sequence: u64,
    /// Consecutive passes, capped at 2.
    passes: u8,
    /// Whether any stone was ever removed (capture or suicide) in the game or
    /// on the path: until then no move can repeat a position.
    any_capture: bool,
}

#[inline]
fn situation(board: &Board, to_move: Color) -> u64 {
    mix(board.hash() ^ to_move_key(to_move))
}

#[inline]
fn move_code(mv: Move, mover: Color) -> u64 {
    let p = match mv {
        Move::Pass => 0,
        Move::Play(p) => p.index() as u64 + 1,
    };
    mix((p << 1 | mover.index() as u64) ^ 0x9e37_79b9_7f4a_7c15)
}

impl KeyState {
    /// The state of a start position.
    pub fn start(board: &Board, to_move: Color) -> KeyState {
        let s = situation(board, to_move);
        KeyState {
            total: s,
            before_capture: 0,
            sequence: s,
            passes: 0,
            any_capture: false,
        }
    }

    /// The state after the whole game so far: replays the game from its start
    /// position (costs one replay per move played, done once per search).
    pub fn of_game(game: &Game) -> KeyState {
        let mut start = game.clone();
        while start.undo() {}
        let mut board = start.board().clone();
        let mut state = KeyState::start(&board, start.to_move());
        for t in game.turns() {
            let removed = match t.mv {
                Move::Play(p) => {
                    let e = board.play(p, t.color);
                    e.captured > 0 || e.suicided > 0
                }
                Move::Pass => {
                    board.clear_ko();
                    false
                }
            };
            state.advance(&board, t.color, t.mv, removed);
        }
        debug_assert_eq!(board.hash(), game.board().hash());
        state
    }

    /// Records that `mover` played `mv`, giving `board`; `removed` says whether
    /// stones left the board (capture or suicide).
    #[inline]
    pub fn advance(&mut self, board: &Board, mover: Color, mv: Move, removed: bool) {
        if removed {
            self.before_capture = self.total;
            self.any_capture = true;
        }
        self.total = self.total.wrapping_add(situation(board, mover.opp()));
        self.sequence = mix(self.sequence ^ move_code(mv, mover));
        self.passes = match mv {
            Move::Pass => (self.passes + 1).min(2),
            Move::Play(_) => 0,
        };
    }

    /// Consecutive passes at the end of the path (capped at 2).
    #[inline]
    pub fn passes(&self) -> u8 {
        self.passes
    }

    /// Whether a stone was ever removed: if not, no play can repeat a position.
    #[inline]
    pub fn any_capture(&self) -> bool {
        self.any_capture
    }

    /// The node key of `board` with `to_move` to play. Never 0 (0 marks an
    /// empty table slot).
    #[inline]
    pub fn key(&self, board: &Board, to_move: Color, mode: KeyMode) -> u64 {
        let k = match mode {
            KeyMode::PlainTree => mix(self.sequence ^ to_move_key(to_move)),
            KeyMode::Transpositions { superko } => {
                let mut k = board.hash() ^ to_move_key(to_move) ^ PASS_KEYS[self.passes as usize];
                if let Some((p, forbidden)) = board.ko() {
                    if forbidden == to_move {
                        k ^= ko_key(p);
                    }
                }
                if superko {
                    k ^= mix(self.before_capture ^ 0x2545_f491_4f6c_dd1d);
                }
                k
            }
        };
        (k ^ shape_key(board)).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Geometry;
    use crate::go::rules::Preset;

    const TT: KeyMode = KeyMode::Transpositions { superko: true };

    #[test]
    fn the_same_stones_on_boards_of_two_sizes_have_different_keys() {
        // Point indices do not depend on the board's size: the stones below
        // stand on the same indices on both boards, so the stones' hashes
        // agree and only the shape tells the positions apart.
        let (small, large) = (Geometry::new(5).unwrap(), Geometry::new(7).unwrap());
        let (mut a, mut b) = (Board::new(small), Board::new(large));
        for (x, y) in [(0, 0), (1, 2), (3, 1)] {
            let (p, q) = (small.point(x, y).unwrap(), large.point(x, y).unwrap());
            assert_eq!(p, q);
            a.play(p, Color::Black);
            b.play(q, Color::Black);
        }
        assert_eq!(a.hash(), b.hash());
        for mode in [TT, KeyMode::PlainTree] {
            let (ka, kb) = (
                KeyState::start(&a, Color::White),
                KeyState::start(&b, Color::White),
            );
            assert_ne!(
                ka.key(&a, Color::White, mode),
                kb.key(&b, Color::White, mode),
                "{mode:?}"
            );
        }
    }

    #[test]
    fn side_to_move_and_ko_point_change_the_key() {
        let g = Geometry::new(9).unwrap();
        let b = Board::new(g);
        let s = KeyState::start(&b, Color::Black);
        assert_ne!(s.key(&b, Color::Black, TT), s.key(&b, Color::White, TT));
        // A ko: Black captures a single white stone.
        let mut game = Game::new(g, Preset::Chinese.rules(), 7.0);
        let pt = |x, y| Move::Play(g.point(x, y).unwrap());
        for (c, m) in [
            (Color::Black, pt(1, 0)),
            (Color::White, pt(2, 0)),
            (Color::Black, pt(0, 1)),
            (Color::White, pt(3, 1)),
            (Color::Black, pt(1, 2)),
            (Color::White, pt(2, 2)),
            (Color::Black, pt(5, 5)),
            (Color::White, pt(1, 1)),
            (Color::Black, pt(2, 1)), // captures W B2 (1,1): ko
        ] {
            game.play(c, m).unwrap();
        }
        assert!(game.board().ko().is_some());
        let with_ko = KeyState::of_game(&game);
        let mut no_ko_board = game.board().clone();
        no_ko_board.clear_ko();
        assert_ne!(
            with_ko.key(game.board(), Color::White, TT),
            with_ko.key(&no_ko_board, Color::White, TT),
            "the ko point forbids White a move"
        );
        assert_eq!(
            with_ko.key(game.board(), Color::Black, TT),
            with_ko.key(&no_ko_board, Color::Black, TT),
            "the ko point forbids Black nothing"
        );
    }

    #[test]
    fn move_orders_transpose_until_a_capture_and_pass_counts_differ() {
        let g = Geometry::new(5).unwrap();
        let pt = |x, y| Move::Play(g.point(x, y).unwrap());
        let play_all = |moves: &[(Color, Move)]| {
            let mut game = Game::new(g, Preset::Chinese.rules(), 0.0);
            for &(c, m) in moves {
                game.play(c, m).unwrap();
            }
            let s = KeyState::of_game(&game);
            (s.key(game.board(), game.to_move(), TT), s)
        };
        use Color::{Black as B, White as W};
        let (a, _) = play_all(&[(B, pt(0, 0)), (W, pt(4, 4)), (B, pt(2, 2)), (W, pt(3, 3))]);
        let (b, _) = play_all(&[(B, pt(2, 2)), (W, pt(3, 3)), (B, pt(0, 0)), (W, pt(4, 4))]);
        assert_eq!(a, b, "same position by another order");
        let (c, _) = play_all(&[
            (B, pt(2, 2)),
            (W, pt(3, 3)),
            (B, pt(0, 0)),
            (W, pt(4, 4)),
            (B, Move::Pass),
            (W, Move::Pass),
        ]);
        assert_ne!(a, c, "two passes end the game: not the same node");
        let plain = |moves: &[(Color, Move)]| {
            let mut game = Game::new(g, Preset::Chinese.rules(), 0.0);
            for &(c, m) in moves {
                game.play(c, m).unwrap();
            }
            KeyState::of_game(&game).key(game.board(), game.to_move(), KeyMode::PlainTree)
        };
        assert_ne!(
            plain(&[(B, pt(0, 0)), (W, pt(4, 4)), (B, pt(2, 2)), (W, pt(3, 3))]),
            plain(&[(B, pt(2, 2)), (W, pt(3, 3)), (B, pt(0, 0)), (W, pt(4, 4))]),
            "a plain tree never merges"
        );
    }

    #[test]
    fn history_before_a_capture_separates_nodes_under_superko_only() {
        // Two games reach the same board, same player to move, but one of them
        // had a different position before its last capture.
        let g = Geometry::new(5).unwrap();
        let pt = |x, y| Move::Play(g.point(x, y).unwrap());
        use Color::{Black as B, White as W};
        let key_of = |moves: &[(Color, Move)], ko| {
            let mut rules = Preset::Chinese.rules();
            rules.ko = ko;
            let mut game = Game::new(g, rules, 0.0);
            for &(c, m) in moves {
                game.play(c, m).unwrap();
            }
            let superko = ko != crate::go::rules::KoRule::Simple;
            KeyState::of_game(&game).key(
                game.board(),
                game.to_move(),
                KeyMode::Transpositions { superko },
            )
        };
        // Same final board: B at B5, A4, D2; W at E1; W A5 captured. Orders
        // differ only before the capture in which stones stood.
        let a = [
            (B, pt(1, 0)),
            (W, pt(0, 0)),
            (B, pt(3, 3)),
            (W, pt(4, 4)),
            (B, pt(0, 1)),
        ];
        let b = [
            (B, pt(3, 3)),
            (W, pt(4, 4)),
            (B, pt(1, 0)),
            (W, pt(0, 0)),
            (B, pt(0, 1)),
        ];
        use crate::go::rules::KoRule;
        assert_ne!(
            key_of(&a, KoRule::Positional),
            key_of(&b, KoRule::Positional)
        );
        assert_eq!(key_of(&a, KoRule::Simple), key_of(&b, KoRule::Simple));
        // After the capture, additions in either order transpose again.
        let mut a2 = a.to_vec();
        a2.extend([(W, pt(4, 0)), (B, pt(2, 2)), (W, pt(4, 1)), (B, pt(2, 3))]);
        let mut b2 = a.to_vec();
        b2.extend([(W, pt(4, 1)), (B, pt(2, 3)), (W, pt(4, 0)), (B, pt(2, 2))]);
        assert_eq!(
            key_of(&a2, KoRule::Positional),
            key_of(&b2, KoRule::Positional)
        );
    }
}
