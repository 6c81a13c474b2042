//! The final status of the stones, for `final_status_list` and
//! `final_score`: dead stones and seki from the net's ownership (averaged
//! over its symmetries, remembered for the position), settling playouts,
//! and a short search on the chains they leave in doubt.

use super::classical::playout::{default_max_moves, sample_playouts, PlayoutRng, Policy};
use super::key::{KeyMode, KeyState};
use super::mcts_engine::MctsEngine;
use super::net_cache::net_input_key;
use super::network;
use super::ownership::OwnershipMap;
use super::stop::StopRule;
use super::tree::lock;
use crate::go::board::{Move, Point};
use crate::go::game::Game;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

impl MctsEngine {
    /// Ownership from `dead_stone_playouts` settling playouts of `game`'s
    /// position ([`Policy::Settling`]: nobody throws a chain into atari, so
    /// sekis and capture races that neither side should start stand), half
    /// with each colour to move first, so that the count of a finished game
    /// does not hang on whose turn it would be.
    fn playout_ownership(&self, game: &Game) -> OwnershipMap {
        let mut map = OwnershipMap::default();
        let mut rng = PlayoutRng::new(self.config.seed ^ 0xdead);
        let cap = default_max_moves(game.board());
        let last = game.last_turn().and_then(|t| match t.mv {
            Move::Play(p) => Some(p),
            Move::Pass => None,
        });
        let (to_move, n) = (game.to_move(), self.config.dead_stone_playouts.max(2));
        sample_playouts(
            &mut Policy::Settling,
            game.board(),
            n,
            |i| {
                if i % 2 == 0 {
                    (to_move, last)
                } else {
                    (to_move.opp(), None)
                }
            },
            &mut rng,
            cap,
            |end| {
                map.add(end);
            },
        );
        map
    }

    /// The network's ownership of `game`'s position, averaged over the eight
    /// symmetries; `None` without a network (or if it cannot evaluate).
    fn network_ownership(&mut self, game: &Game) -> Option<OwnershipMap> {
        if !self.network_for(game) {
            return None;
        }
        let history_key =
            KeyState::of_game(game).key(game.board(), game.to_move(), KeyMode::PlainTree);
        let key = net_input_key(history_key, game, None);
        if let Some((k, map)) = &self.final_ownership {
            if *k == key {
                return Some(map.clone());
            }
        }
        self.ensure_evaluators(1, game);
        let eval = self.network.as_mut()?.threads.first_mut()?;
        let mut map = OwnershipMap::default();
        let mut by_point = Vec::new();
        for symmetry in 0..8 {
            eval.judge_uncached(game, symmetry, None)?;
            network::ownership_by_point(game.board(), eval.ownership(), &mut by_point);
            map.add_black(game.board(), &by_point);
        }
        self.final_ownership = Some((key, map.clone()));
        Some(map)
    }

    /// Settling playouts decide, a short search of the player to move is the
    /// second opinion on chains they leave in doubt
    /// ([`OwnershipMap::dead_stones_checked`]); it runs only when there is
    /// such a chain, and nothing runs on a board without stones.
    pub(super) fn final_dead_stones(&mut self, game: &Game) -> Vec<Point> {
        let board = game.board();
        if board.num_empty() == board.geometry().area() {
            return Vec::new();
        }
        if let Some(net_map) = self.network_ownership(game) {
            // The net decides; settling playouts are the second opinion on
            // the chains it leaves in doubt.
            if !net_map.leaves_chains_in_doubt(board) {
                return net_map.dead_stones(board);
            }
            let settling = self.playout_ownership(game);
            return net_map.dead_stones_checked(board, &settling);
        }
        let settling = self.playout_ownership(game);
        if !settling.leaves_chains_in_doubt(board) {
            return settling.dead_stones(board);
        }
        let rule = StopRule {
            visits: Some(u64::from(self.config.dead_stone_playouts)),
            time: None,
            early: false,
        };
        let never = AtomicBool::new(false);
        self.search(
            game,
            game.to_move(),
            rule,
            &[],
            &never,
            Duration::MAX,
            &mut |_| {},
        );
        let searched = lock(&self.tree).ownership.clone();
        settling.dead_stones_checked(game.board(), &searched)
    }

    /// From the network's ownership: chains neither side owns that share a
    /// liberty ([`OwnershipMap::seki_stones`]), never a dead one. Without a
    /// network, none (playouts cannot tell a seki from an open fight).
    pub(super) fn final_seki_stones(&mut self, game: &Game) -> Vec<Point> {
        let Some(map) = self.network_ownership(game) else {
            return Vec::new();
        };
        let dead = self.final_dead_stones(game);
        let mut seki = map.seki_stones(game.board());
        seki.retain(|p| !dead.contains(p));
        seki
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::go::board::{Color, Geometry};
    use crate::go::rules::Preset;
    use crate::search::config::SearchConfig;
    use crate::search::test_nets::{self, small_network_engine};

    /// The remembered final ownership is always the asked position's: after
    /// a move, and after a change of komi, the engine answers as a fresh one
    /// does, and going back gives the first answer again.
    #[test]
    fn remembered_final_ownership_follows_the_position() {
        let Some(net) = test_nets::b6c96() else {
            return;
        };
        let fresh = || small_network_engine(&net);
        let g = Geometry::new(9).unwrap();
        let start = Game::new(g, Preset::Chinese.rules(), 7.0);
        let mut moved = start.clone();
        moved
            .play(Color::Black, Move::Play(g.point(4, 4).unwrap()))
            .unwrap();
        let mut high_komi = start.clone();
        high_komi.set_komi(30.0);
        let map = |engine: &mut MctsEngine, game: &Game| {
            let m = engine.network_ownership(game).expect("the net covers 9x9");
            m.for_color(game.board(), Color::Black)
        };
        let mut engine = fresh();
        let first = map(&mut engine, &start);
        for other in [&moved, &high_komi] {
            let remembered = map(&mut engine, other);
            assert_ne!(remembered, first, "the position changed");
            assert_eq!(remembered, map(&mut fresh(), other));
            assert_eq!(map(&mut engine, &start), first);
        }
    }

    /// `dead_stones` searches only for a second opinion on chains the
    /// settling playouts leave in doubt: none on a board without stones, none
    /// where every chain is clearly alive or dead.
    #[test]
    fn dead_stones_search_only_for_chains_in_doubt() {
        let g = Geometry::new(5).unwrap();
        let mut engine = MctsEngine::new(SearchConfig {
            tt_mb: 4,
            ..SearchConfig::default()
        });
        let empty = Game::new(g, Preset::Chinese.rules(), 0.5);
        assert_eq!(engine.dead_stones(&empty), vec![]);
        // Black's wall owns the board; White's stone at (2,0) is dead.
        let mut won = empty.clone();
        let mut setup = Vec::new();
        for (y, row) in ["..OX.", "...XX", "XXXX.", "...XX", "...X."]
            .iter()
            .enumerate()
        {
            for (x, ch) in row.chars().enumerate() {
                let stone = match ch {
                    'X' => Some(Color::Black),
                    'O' => Some(Color::White),
                    _ => continue,
                };
                setup.push((g.point(x, y).unwrap(), stone));
            }
        }
        won.setup(&setup, Some(Color::White));
        let settling = engine.playout_ownership(&won);
        assert!(!settling.leaves_chains_in_doubt(won.board()));
        assert_eq!(engine.dead_stones(&won), vec![g.point(2, 0).unwrap()]);
        assert_eq!(
            lock(&engine.tree).table.occupied().count(),
            0,
            "no search ran"
        );
    }
}
