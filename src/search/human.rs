//! Human-like play: with a human-SL net (KataGo's b18c384nbt-humanv0, or
//! any net with an SGF-metadata encoder) and a profile (`rank_8k`,
//! `preaz_3d`, `proyear_1920`, …), the board move `genmove` plays is drawn
//! from the net's human policy for that profile, as KataGo's documentation
//! and KaTrain's human bot do (temperature 1: in proportion to the policy).
//!
//! What tengen chose where KataGo offers settings:
//! - **Passing** stays with the search (as KataGo's
//!   `humanSLChosenMoveIgnorePass`): the human policy's pass is never drawn;
//!   the main net's search decides passing, resigning and the clean-up.
//! - **A veto on blunders that lose a won game** (in the spirit of KataGo's
//!   `humanSLChosenMovePiklLambda`, which weighs the human policy by the
//!   search's utility loss, but simpler): when the search gives the mover at
//!   least [`WON`], a drawn move after which the main net (the search's
//!   value where it visited the move, else one evaluation) gives the mover
//!   less than [`THROWN_AWAY`] is set aside and another is drawn; after
//!   [`MAX_DRAWS`] vetoes the search's own move is played. Mistakes that
//!   keep the game won, and every mistake in a game not yet won, are played
//!   as the profile would play them.

use crate::engine::Report;
use crate::go::board::{Color, Move};
use crate::go::game::Game;
use crate::nn::metadata::SgfMetadata;
use crate::nn::{Evaluator, NetEval, Network};
use crate::search::classical::playout::PlayoutRng;
use std::sync::Arc;

/// The mover's win rate from which a game counts as won.
pub const WON: f64 = 0.8;
/// Below this win rate after a drawn move, the won game was thrown away.
pub const THROWN_AWAY: f64 = 0.5;
/// Draws before the search's move is played instead.
pub const MAX_DRAWS: usize = 8;
/// Search visits on a move for its value to stand in for the net's.
const TRUSTED_VISITS: u64 = 4;

/// Draws one move in proportion to the weights (non-positive and NaN weights
/// never), or `None` when no weight is positive.
pub fn draw(weights: &[(Move, f32)], rng: &mut PlayoutRng) -> Option<usize> {
    let positive = |w: f32| if w > 0.0 { w as f64 } else { 0.0 };
    let total: f64 = weights.iter().map(|&(_, w)| positive(w)).sum();
    if total <= 0.0 {
        return None;
    }
    // 53 random bits: a uniform number in [0, total).
    let mut x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
    let mut last = None;
    for (i, &(_, w)) in weights.iter().enumerate() {
        let w = positive(w);
        if w > 0.0 {
            if x < w {
                return Some(i);
            }
            x -= w;
            last = Some(i);
        }
    }
    // Rounding left x at the very top: the last positive weight.
    last
}

/// The human-SL net and what choosing with it needs (see the module docs).
pub struct HumanPlay {
    human: Evaluator,
    /// The main net, for the veto's one-off evaluations.
    main: Evaluator,
    eval: NetEval,
    rng: PlayoutRng,
    /// The human policy over the legal board moves.
    weights: Vec<(Move, f32)>,
}

impl HumanPlay {
    /// Human-like play with `human` under `profile`, vetoed by `main`.
    pub fn new(
        human: Arc<Network>,
        main: Arc<Network>,
        profile: Option<SgfMetadata>,
        seed: u64,
    ) -> HumanPlay {
        let mut evaluator = Evaluator::new(human);
        evaluator.set_metadata(profile);
        HumanPlay {
            human: evaluator,
            main: Evaluator::new(main),
            eval: NetEval::new(),
            rng: PlayoutRng::new(seed),
            weights: Vec::with_capacity(19 * 19),
        }
    }

    /// Sets the profile the human net is given.
    pub fn set_profile(&mut self, profile: Option<SgfMetadata>) {
        self.human.set_metadata(profile);
    }

    /// The human policy for `color` to move in `game` (under a random
    /// symmetry), over the legal board moves; `None` if the net cannot
    /// evaluate the board.
    pub fn policy(&mut self, game: &Game, color: Color) -> Option<&[(Move, f32)]> {
        let game = game.with_to_move(color);
        let symmetry = self.rng.below(8) as u8;
        self.human
            .evaluate(&game, symmetry, 0.0, &mut self.eval)
            .ok()?;
        self.weights.clear();
        // The policy is row by row from the top-left, as the points are.
        for (p, &w) in game.board().geometry().points().zip(&self.eval.policy) {
            if w > 0.0 && game.is_legal(color, Move::Play(p)) {
                self.weights.push((Move::Play(p), w));
            }
        }
        Some(&self.weights)
    }

    /// The board move to play for `color` in `game` after the search that
    /// `report` describes, or `None` to play the search's move.
    pub fn choose(&mut self, game: &Game, color: Color, report: &Report) -> Option<Move> {
        self.policy(game, color)?;
        let won = report.winrate >= WON;
        for _ in 0..MAX_DRAWS {
            let i = draw(&self.weights, &mut self.rng)?;
            let mv = self.weights[i].0;
            if !won || self.mover_winrate_after(game, color, mv, report) >= THROWN_AWAY {
                return Some(mv);
            }
            self.weights[i].1 = 0.0;
        }
        None
    }

    /// The mover's win rate after `mv`: the search's where it visited the
    /// move enough, else the main net's.
    fn mover_winrate_after(&mut self, game: &Game, color: Color, mv: Move, report: &Report) -> f64 {
        if let Some(m) = report
            .moves
            .iter()
            .find(|m| m.mv == mv && m.visits >= TRUSTED_VISITS)
        {
            return m.winrate;
        }
        let mut after = game.clone();
        if after.play(color, mv).is_err() {
            return 0.0;
        }
        if self.main.evaluate(&after, 0, 0.0, &mut self.eval).is_err() {
            // No verdict: let the move stand.
            return 1.0;
        }
        let e = &self.eval;
        if e.view == color {
            e.win as f64
        } else {
            e.loss as f64
        }
    }
}
