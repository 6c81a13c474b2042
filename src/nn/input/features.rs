//! KataGo's V7 network inputs (`NNInputs::fillRowV7`) for the player to move
//! in a tengen [`Game`], and the legal-move mask KataGo applies to the policy.
//!
//! Layout: `spatial[c * w * h + y * w + x]` for channel `c` (0..22) on a board
//! `w` wide and `h` high, row `y` from the top (GTP row `h - y`), column `x`
//! from the left; `global[0..19]`. This is KataGo's layout for a board in the
//! top-left of its `nnXLen`×`nnYLen` buffer with the buffer's margin cut off;
//! the board's area stands where KataGo uses `x_size * y_size` (the komi clip
//! and the komi parity wave).
//!
//! Rules mapping (tengen → KataGo): simple / positional / situational ko map to
//! KataGo's rules of the same name; natural situational superko is given to the
//! net as situational (globals 6/7), while the ko-ban plane and the legal mask
//! keep tengen's own natural-situational bans. Area scoring has no tax;
//! territory scoring is KataGo's `japanese` (tax SEKI) without its cleanup phase.
//! KataGo's `friendlyPassOk` and white handicap bonus are the game's rules'
//! ([`crate::go::rules::Rules`]), the bonus counted by the game.
//!
//! Nets take boards up to 19 on each side; larger boards are refused.

use super::area::{AreaFlags, AreaScratch};
use super::history::HistoryView;
use super::ladder::LadderScratch;
use super::sizes::{MAX_BOARD_SIZE, NUM_GLOBAL_FEATURES, NUM_SPATIAL_FEATURES};
use crate::go::board::{Board, Color, Geometry, Move, Point, Stone, CELLS};
use crate::go::game::Game;
use crate::go::rules::{KoRule, Scoring};
use std::cell::RefCell;
use std::fmt;

const KOMI_CLIP_RADIUS: f32 = 20.0;

/// Why the features could not be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureError {
    /// A side of the board is longer than [`MAX_BOARD_SIZE`].
    BoardTooLarge { width: usize, height: usize },
    /// An output slice has the wrong length.
    WrongLength { expected: usize, got: usize },
}

impl fmt::Display for FeatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FeatureError::BoardTooLarge { width, height } => write!(
                f,
                "board size {width}x{height} is larger than the {MAX_BOARD_SIZE}x{MAX_BOARD_SIZE} the networks take"
            ),
            FeatureError::WrongLength { expected, got } => {
                write!(f, "feature buffer of length {got}, expected {expected}")
            }
        }
    }
}

impl std::error::Error for FeatureError {}

/// Reusable work space: nothing is allocated per call once it has seen the
/// longest game.
pub struct FeatureScratch {
    history: HistoryView,
    ladder: LadderScratch,
    area: AreaScratch,
    area_out: Vec<Option<Color>>,
    /// Compute the pass-alive area as if multi-stone suicide were legal whatever the rules
    /// (nets with KataGo's `preferPassAliveUnderSuicideRules`).
    pub pass_alive_as_if_suicide_legal: bool,
    /// At most this many of the last moves are shown to the net (KataGo's
    /// `MiscNNInputParams::maxHistory`: 0 hides every move, as KataGo's
    /// `ignorePreRootHistory` does at a search's root).
    pub max_history: usize,
}

impl Default for FeatureScratch {
    fn default() -> Self {
        let board = Board::new(Geometry::new(MAX_BOARD_SIZE).unwrap_or_else(|| unreachable!()));
        FeatureScratch {
            history: HistoryView::new(&board),
            ladder: LadderScratch::default(),
            area: AreaScratch::default(),
            area_out: vec![None; CELLS],
            pass_alive_as_if_suicide_legal: false,
            max_history: usize::MAX,
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<FeatureScratch> = RefCell::new(FeatureScratch::default());
}

/// [`FeatureScratch::fill_v7`] with a per-thread scratch.
///
/// # Errors
/// See [`FeatureScratch::fill_v7`].
pub fn fill_v7(
    game: &Game,
    spatial: &mut [f32],
    global: &mut [f32; NUM_GLOBAL_FEATURES],
) -> Result<(), FeatureError> {
    SCRATCH.with(|s| s.borrow_mut().fill_v7(game, spatial, global))
}

/// [`FeatureScratch::legal_moves_mask`] with a per-thread scratch.
///
/// # Errors
/// See [`FeatureScratch::legal_moves_mask`].
pub fn legal_moves_mask(game: &Game, out: &mut [bool]) -> Result<(), FeatureError> {
    SCRATCH.with(|s| s.borrow_mut().legal_moves_mask(game, out))
}

fn check_size(game: &Game) -> Result<Geometry, FeatureError> {
    let g = game.board().geometry();
    if g.max_side() > MAX_BOARD_SIZE {
        return Err(FeatureError::BoardTooLarge {
            width: g.width(),
            height: g.height(),
        });
    }
    Ok(g)
}

/// Index of `p` in a row-major plane `width` wide.
#[inline]
fn pos(p: Point, width: usize) -> usize {
    p.y() * width + p.x()
}

/// The triangle wave of komi parity KataGo gives the net (global 18).
pub fn komi_parity_wave(self_komi: f32, board_area: usize) -> f32 {
    let floor = if board_area.is_multiple_of(2) {
        (self_komi / 2.0).floor() * 2.0
    } else {
        ((self_komi - 1.0) / 2.0).floor() * 2.0 + 1.0
    };
    let delta = (self_komi - floor).clamp(0.0, 2.0);
    if delta < 0.5 {
        delta
    } else if delta < 1.5 {
        1.0 - delta
    } else {
        delta - 2.0
    }
}

impl FeatureScratch {
    /// A fresh scratch.
    pub fn new() -> FeatureScratch {
        FeatureScratch::default()
    }

    /// Fills the V7 inputs for the player to move under the game's rules.
    ///
    /// # Errors
    /// A board side longer than 19, or `spatial.len() != 22 * width * height`.
    pub fn fill_v7(
        &mut self,
        game: &Game,
        spatial: &mut [f32],
        global: &mut [f32; NUM_GLOBAL_FEATURES],
    ) -> Result<(), FeatureError> {
        let g = check_size(game)?;
        let nn = g.area();
        if spatial.len() != NUM_SPATIAL_FEATURES * nn {
            return Err(FeatureError::WrongLength {
                expected: NUM_SPATIAL_FEATURES * nn,
                got: spatial.len(),
            });
        }
        spatial.fill(0.0);
        global.fill(0.0);
        self.history.replay(game);
        let mut planes = Planes {
            spatial,
            width: g.width(),
            area: nn,
        };
        let board = game.board();
        stone_planes(board, game.to_move(), &mut planes);
        let ko = current_ko(board, &self.history);
        for_each_ban(game, &self.history, ko, |p| planes.set(6, p));
        if game.rules().scoring == Scoring::Area {
            self.area_planes(game, &mut planes);
        }
        let suppress = self.history.suppress_pass_end(game.rules());
        let included = self.last_move_planes(game, suppress, &mut planes, global);
        self.ladder_planes(game, ko, included, &mut planes);
        rule_globals(game, &self.history, suppress, global);
        Ok(())
    }

    /// Planes 18 and 19: the pass-alive area (with KataGo's big territories) of
    /// the player to move and of the opponent, under area scoring.
    fn area_planes(&mut self, game: &Game, planes: &mut Planes) {
        let board = game.board();
        let pla = game.to_move();
        self.area.calculate(
            board,
            AreaFlags::FEATURES,
            game.rules().suicide_allowed || self.pass_alive_as_if_suicide_legal,
            &mut self.area_out,
        );
        for p in board.geometry().points() {
            match self.area_out[p.index()] {
                Some(c) if c == pla => planes.set(18, p),
                Some(_) => planes.set(19, p),
                None => {}
            }
        }
    }

    /// Planes 9 to 13 and globals 0 to 4: the last five moves, as far back as the
    /// history shows them and the colours alternate; returns how many are shown.
    fn last_move_planes(
        &self,
        game: &Game,
        suppress: bool,
        planes: &mut Planes,
        global: &mut [f32; NUM_GLOBAL_FEATURES],
    ) -> usize {
        let hist = &self.history;
        let pla = game.to_move();
        let opp = pla.opp();
        let max_turns = if suppress {
            0
        } else if hist.game_finished || hist.past_normal_phase_end {
            1
        } else {
            5
        }
        .min(self.max_history);
        let moves = &game.turns()[hist.clear_index..];
        let moves = if hist.cleared_for_player {
            &moves[..0]
        } else {
            moves
        };
        let usable = max_turns.min(hist.num_approx_valid_turns);
        let mut included = 0;
        for k in 0..usable.min(moves.len()) {
            let turn = moves[moves.len() - 1 - k];
            let expected = if k % 2 == 0 { opp } else { pla };
            if turn.color != expected {
                break;
            }
            included = k + 1;
            match turn.mv {
                Move::Pass => global[k] = 1.0,
                Move::Play(p) => planes.set(9 + k, p),
            }
        }
        included
    }

    /// Planes 14 to 17: laddered stones now, one and two moves ago (the current
    /// board where fewer moves are shown), and the moves that ladder an
    /// opponent chain of two liberties.
    fn ladder_planes(
        &mut self,
        game: &Game,
        ko: Option<Point>,
        included: usize,
        planes: &mut Planes,
    ) {
        let hist = &self.history;
        let board = game.board();
        let opp = game.to_move().opp();
        self.ladder.iter_ladders(board, ko, |p, working| {
            planes.set(14, p);
            if board.at(p) == opp.stone() && board.liberties(p) > 1 {
                for &w in working {
                    planes.set(17, w);
                }
            }
        });
        let (prev1, prev1_ko) = if included < 1 {
            (board, ko)
        } else {
            (&hist.prev1, hist.prev1_ko)
        };
        self.ladder
            .iter_ladders(prev1, prev1_ko, |p, _| planes.set(15, p));
        let (prev2, prev2_ko) = if included < 2 {
            (prev1, prev1_ko)
        } else {
            (&hist.prev2, hist.prev2_ko)
        };
        self.ladder
            .iter_ladders(prev2, prev2_ko, |p, _| planes.set(16, p));
    }

    /// Fills `out` (length `width * height + 1`, row-major from the top-left, pass last)
    /// with the moves KataGo accepts for the player to move: pass, and empty
    /// points that are not the ko point, not an illegal suicide and not banned
    /// by superko.
    ///
    /// # Errors
    /// A board side longer than 19, or `out.len() != width * height + 1`.
    pub fn legal_moves_mask(&mut self, game: &Game, out: &mut [bool]) -> Result<(), FeatureError> {
        let g = check_size(game)?;
        let (n, area) = (g.width(), g.area());
        if out.len() != area + 1 {
            return Err(FeatureError::WrongLength {
                expected: area + 1,
                got: out.len(),
            });
        }
        self.history.replay(game);
        let board = game.board();
        let pla = game.to_move();
        let suicide_allowed = game.rules().suicide_allowed;
        let ko = current_ko(board, &self.history);
        for p in board.geometry().points() {
            out[pos(p, n)] = board.at(p) == Stone::Empty
                && Some(p) != ko
                && !illegal_suicide(board, p, pla, suicide_allowed);
        }
        out[area] = true;
        for_each_ban(game, &self.history, ko, |p| {
            if Some(p) != ko {
                out[pos(p, n)] = false;
            }
        });
        Ok(())
    }
}

/// The spatial planes being filled: `spatial[c * area + pos(p, width)]`.
struct Planes<'a> {
    spatial: &'a mut [f32],
    width: usize,
    area: usize,
}

impl Planes<'_> {
    /// Sets plane `c` at the point `p`.
    #[inline]
    fn set(&mut self, c: usize, p: Point) {
        self.spatial[c * self.area + pos(p, self.width)] = 1.0;
    }
}

/// Planes 0 to 5: the board, the stones of `pla` and of the opponent, and the
/// stones of chains with one, two and three liberties.
fn stone_planes(board: &Board, pla: Color, planes: &mut Planes) {
    for p in board.geometry().points() {
        planes.set(0, p);
        if let Some(c) = board.at(p).color() {
            planes.set(if c == pla { 1 } else { 2 }, p);
            match board.liberties(p) {
                1 => planes.set(3, p),
                2 => planes.set(4, p),
                3 => planes.set(5, p),
                _ => {}
            }
        }
    }
}

/// The komi from the point of view of the player to move, with the handicap
/// bonus and territory scoring's adjustment, clipped as KataGo clips it.
fn self_komi(game: &Game, hist: &HistoryView) -> f32 {
    let mut white_komi = game.komi() as f32 + hist.white_handicap_bonus;
    if game.rules().scoring == Scoring::Territory {
        white_komi += territory_white_bonus(game.board());
    }
    let bound = game.board().geometry().area() as f32 + KOMI_CLIP_RADIUS;
    if game.to_move() == Color::White {
        white_komi
    } else {
        -white_komi
    }
    .clamp(-bound, bound)
}

/// Globals 5 to 18: komi, the ko, suicide and scoring rules, whether a pass
/// would end the phase, and the komi parity wave.
fn rule_globals(
    game: &Game,
    hist: &HistoryView,
    suppress: bool,
    global: &mut [f32; NUM_GLOBAL_FEATURES],
) {
    let rules = game.rules();
    let self_komi = self_komi(game, hist);
    global[5] = self_komi / 20.0;
    match rules.ko {
        KoRule::Simple => {}
        KoRule::Positional => {
            global[6] = 1.0;
            global[7] = 0.5;
        }
        KoRule::Situational | KoRule::NaturalSituational => {
            global[6] = 1.0;
            global[7] = -0.5;
        }
    }
    if rules.suicide_allowed {
        global[8] = 1.0;
    }
    if rules.scoring == Scoring::Territory {
        global[9] = 1.0;
        global[10] = 1.0;
    }
    if !suppress && hist.pass_would_end_phase() {
        global[14] = 1.0;
    }
    if rules.scoring == Scoring::Area {
        global[18] = komi_parity_wave(self_komi, game.board().geometry().area());
    }
}

/// KataGo's (colourless) simple-ko point on the current board.
fn current_ko(board: &Board, hist: &HistoryView) -> Option<Point> {
    if hist.cleared_for_player {
        None
    } else {
        board.ko().map(|(p, _)| p)
    }
}

fn illegal_suicide(board: &Board, p: Point, color: Color, suicide_allowed: bool) -> bool {
    board.is_suicide(p, color) && (!suicide_allowed || board.neighbor_count(p, color.stone()) == 0)
}

/// Calls `f` on the ko point and on every point superko forbids to the player
/// to move (KataGo's feature 6).
fn for_each_ban(game: &Game, hist: &HistoryView, ko: Option<Point>, mut f: impl FnMut(Point)) {
    if let Some(k) = ko {
        f(k);
    }
    let rules = game.rules();
    if rules.ko == KoRule::Simple || hist.cleared_for_player {
        return;
    }
    // KataGo marks superko bans only after a move since the last clear.
    if game.turns().len() == hist.clear_index {
        return;
    }
    let board = game.board();
    let pla = game.to_move();
    for p in board.empty_points() {
        if Some(p) == ko || illegal_suicide(board, p, pla, rules.suicide_allowed) {
            continue;
        }
        let after = board.hash_after(p, pla);
        let banned = if hist.clear_index == 0 {
            game.history().repeats(after, pla).is_some()
        } else if rules.ko == KoRule::Positional {
            hist.positions.iter().any(|&(h, _)| h == after)
        } else {
            hist.positions
                .iter()
                .any(|&(h, to_move)| h == after && to_move == pla.opp())
        };
        if banned {
            f(p);
        }
    }
}

/// KataGo's territory-scoring komi adjustment: one point per stone played by
/// Black minus White, i.e. stones on the board minus prisoners taken.
fn territory_white_bonus(board: &Board) -> f32 {
    let (mut black, mut white) = (0i64, 0i64);
    for p in board.geometry().points() {
        match board.at(p).color() {
            Some(Color::Black) => black += 1,
            Some(Color::White) => white += 1,
            None => {}
        }
    }
    let net_white_captured =
        board.captures(Color::Black) as i64 - board.captures(Color::White) as i64;
    (black - white - net_white_captured) as f32
}
