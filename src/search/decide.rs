//! Choosing the move once the search is done: resigning, passing, the
//! clean-up, and below full strength the level's or the human-SL net's move.

use super::levels;
use super::mcts_engine::MctsEngine;
use super::root::Root;
use super::tree::lock;
use super::tt::{point_move, NO_SLOT};
use crate::engine::level::Level;
use crate::engine::root_choices::RootChoices;
use crate::engine::{Decision, GenmoveOptions, Report};
use crate::go::board::{Color, Move};
use crate::go::game::Game;

/// With a network, resign only after this many losing `genmove`s in a row...
pub const RESIGN_AFTER: u32 = 3;
/// ...and this many points behind on 19×19 (scaled by area on other boards),
/// and a quarter of the empty points.
pub const RESIGN_BEHIND: f64 = 10.0;

/// Visits behind the root's moves needed before resigning: playouts are
/// noisy and need many; a net's judgement needs fewer (a slow net at a fast
/// clock searches a few dozen visits a move and would never resign).
const RESIGN_EVIDENCE_PLAYOUTS: u64 = 64;
const RESIGN_EVIDENCE_NETWORK: u64 = 16;

/// Visits behind a search's root moves.
pub(super) fn root_visits(report: &Report) -> u64 {
    report.moves.iter().map(|m| m.visits).sum()
}

impl MctsEngine {
    /// With a network: whether resigning is right besides the low win rate:
    /// the net's win rate has stayed low for [`RESIGN_AFTER`] moves in a
    /// row, and the score lead is worse than [`RESIGN_BEHIND`] points
    /// (scaled by the board's area) and than a quarter of the empty points,
    /// the points still in play. So a game lost by a point or two, or one
    /// still being caught up (a handicap game as White), is played out
    /// against a fallible opponent.
    ///
    /// Below full strength (a level, or human-like play) the streak and the
    /// margin are twice as long: the search judges by its own play, which
    /// the engine then does not play.
    fn hopeless(&self, game: &Game, score_lead: f64) -> bool {
        let board = game.board();
        let area = board.geometry().area() as f64;
        let behind = (RESIGN_BEHIND * area / 361.0).max(board.num_empty() as f64 / 4.0);
        let below_full_strength = self.config.level != Level::Max || self.human.is_some();
        let patience = if below_full_strength { 2 } else { 1 };
        self.losing_streak >= patience * RESIGN_AFTER && score_lead < -behind * patience as f64
    }

    /// The net's policy over `color`'s legal moves (pass included) at the
    /// root of the last search: the priors of the root's edges.
    fn root_policy(&self, game: &Game, color: Color) -> Vec<(Move, f32)> {
        let root = Root::new(game, color, &self.config);
        let t = lock(&self.tree);
        let Some(slot) = t.table.find(root.key, NO_SLOT) else {
            return Vec::new();
        };
        t.table
            .edges(slot)
            .iter()
            .filter(|e| root.searches(e.point))
            .map(|e| (point_move(e.point), e.prior_w))
            .collect()
    }

    /// Below full strength, the board move the human-SL net (see
    /// [`super::human`]) or the level (see [`super::levels`]) plays instead of the
    /// search's; passes, resignation and the clean-up stay the search's.
    pub(super) fn below_full_strength(
        &mut self,
        game: &Game,
        color: Color,
        options: &GenmoveOptions,
        decision: Decision,
        report: &Report,
    ) -> Decision {
        if options.cleanup
            || !self.network_for(game)
            || !matches!(decision, Decision::Play(Move::Play(_)))
        {
            return decision;
        }
        // A move the front end avoids is never played; an image of a searched
        // move is as good as it.
        let avoided = options.root.map_or(&[][..], RootChoices::avoided);
        let admitted = |mv: Move| {
            game.is_legal(color, mv) && !matches!(mv, Move::Play(p) if avoided.contains(&p))
        };
        if let Some(human) = &mut self.human {
            return human
                .choose(game, color, report)
                .filter(|&mv| admitted(mv))
                .map_or(decision, Decision::Play);
        }
        let Some(kyu) = self.config.level.kyu() else {
            return decision;
        };
        let mut policy = self.root_policy(game, color);
        if policy.is_empty() {
            return decision;
        }
        let points = game.board().geometry().area();
        let visits: Vec<(Move, u64)> = report.moves.iter().map(|m| (m.mv, m.visits)).collect();
        let mv = levels::pick(kyu, points, &mut policy, &visits, &mut self.level_rng);
        if admitted(mv) {
            Decision::Play(mv)
        } else {
            decision
        }
    }

    /// The move to play given the finished search (see the module docs of
    /// [`crate::engine`] for what the options mean).
    pub(super) fn decide(
        &self,
        game: &Game,
        color: Color,
        options: &GenmoveOptions,
        report: &Report,
    ) -> Decision {
        let legal = |mv: Move| game.is_legal(color, mv);
        let best_board_play = report
            .moves
            .iter()
            .find(|m| m.mv != Move::Pass && legal(m.mv))
            .map(|m| m.mv);
        let Some(best) = report.moves.iter().find(|m| legal(m.mv)) else {
            return Decision::Play(Move::Pass);
        };
        let area = game.board().geometry().area() as u32;
        // Visits behind the root's moves, this search's and those kept in
        // the table from earlier ones (an early stop may add only a few);
        // with a net, or those searched over the whole losing streak when
        // that is more (the playouts' noisy judgement needs one long search).
        let network = self.network_for(game);
        let evidence = if network {
            root_visits(report).max(self.losing_evidence)
        } else {
            root_visits(report)
        };
        let min_evidence = if network {
            RESIGN_EVIDENCE_NETWORK
        } else {
            RESIGN_EVIDENCE_PLAYOUTS
        };
        if options.allow_resign
            && !options.cleanup
            && self.config.resign_threshold > 0.0
            && game.move_number() >= area / 2
            && evidence >= min_evidence
            && best.winrate < self.config.resign_threshold
            && (!network || self.hopeless(game, best.score_lead))
        {
            return Decision::Resign;
        }
        let t = lock(&self.tree);
        let board = game.board();
        let opponent_passed = game.last_turn().is_some_and(|t| t.mv == Move::Pass);
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        let settled = sign
            * t.ownership
                .settled_margin(board, game.rules().scoring, game.effective_komi());
        let dead_opponents = t
            .ownership
            .dead_stones(board)
            .iter()
            .any(|&p| board.at(p).color() == Some(color.opp()));
        drop(t);
        let mv = match best.mv {
            Move::Pass if options.cleanup && dead_opponents => {
                best_board_play.unwrap_or(Move::Pass)
            }
            Move::Pass if opponent_passed && settled < 0.0 => best_board_play.unwrap_or(Move::Pass),
            Move::Play(_)
                if opponent_passed && !options.cleanup && settled > 0.0 && best.winrate > 0.5 =>
            {
                Move::Pass
            }
            // Cleanup is over once no dead opponent stone is left.
            Move::Play(_) if opponent_passed && options.cleanup && !dead_opponents => Move::Pass,
            mv => mv,
        };
        Decision::Play(if legal(mv) { mv } else { Move::Pass })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, Limits};
    use crate::go::board::Geometry;
    use crate::go::rules::Preset;
    use crate::search::config::SearchConfig;
    use crate::search::test_nets;
    use std::sync::atomic::AtomicBool;

    /// The root's priors come from the net at `root_policy_optimism`: with a
    /// net that has an optimistic policy head (the transformer, version 15)
    /// and the same seed (so the same symmetry), optimism 1 at the root moves
    /// the priors away from optimism 0.
    #[test]
    fn the_root_is_judged_at_its_own_policy_optimism() {
        let Some(net) = test_nets::transformer() else {
            return;
        };
        let mut game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), 7.0);
        game.play(
            Color::Black,
            Move::Play(game.board().geometry().point(4, 4).unwrap()),
        )
        .unwrap();
        let priors = |root_policy_optimism: f32| {
            let config = SearchConfig {
                tt_mb: 4,
                root_policy_optimism,
                ..SearchConfig::default()
            };
            let mut engine = MctsEngine::with_network(config, net.clone()).unwrap();
            let options = GenmoveOptions {
                limits: Limits {
                    playouts: Some(1),
                    time: None,
                },
                ..GenmoveOptions::default()
            };
            engine.genmove(
                &game,
                Color::White,
                &options,
                &AtomicBool::new(false),
                &mut |_| {},
            );
            engine.root_policy(&game, Color::White)
        };
        let (plain, optimistic) = (priors(0.0), priors(1.0));
        assert_eq!(plain.len(), optimistic.len());
        let largest = plain
            .iter()
            .zip(&optimistic)
            .map(|((a, p), (b, q))| {
                assert_eq!(a, b);
                (p - q).abs()
            })
            .fold(0.0f32, f32::max);
        assert!(
            largest > 1e-3,
            "optimism changed no prior by more than {largest}"
        );
        assert_eq!(priors(0.0), plain, "the same seed gives the same priors");
    }
}
