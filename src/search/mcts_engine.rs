//! The engine: [`MctsEngine`], how it is made, what it keeps between
//! searches, and its side of the engine contract ([`Engine`]), each call
//! handed to the run ([`super::run`]), the decisions ([`super::decide`]) or
//! the final status ([`super::final_status`]).

use super::classical::playout::{PlayoutRng, Policy};
use super::classical::Classical;
use super::config::{QueryOptions, SearchConfig, DEFAULT_PLAYOUTS};
use super::human::HumanPlay;
use super::net_cache::NetCache;
use super::network::NetworkLeaves;
use super::ownership::OwnershipMap;
use super::root::Root;
use super::stop::StopRule;
use super::tree::{lock, Tree};
use super::tt::NO_SLOT;
use crate::engine::level::Level;
use crate::engine::root_choices::RootChoices;
use crate::engine::{Decision, Engine, GenmoveOptions, Limits, Report};
use crate::go::board::{Color, Point};
use crate::go::game::Game;
use crate::nn::metadata::SgfMetadata;
use crate::nn::Network;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Mixed into the seed of the level's move draws, so they do not repeat the
/// search's random stream.
const LEVEL_SEED: u64 = 0x6c65_7665_6c73;

/// The network side of an engine made with [`MctsEngine::with_network`]:
/// the net, its evaluation cache, and one evaluator per search thread.
pub(super) struct NetworkParts {
    pub(super) net: Arc<Network>,
    pub(super) cache: Arc<Mutex<NetCache>>,
    pub(super) threads: Vec<NetworkLeaves>,
}

/// The search engine. See the [search module](super)'s documentation.
pub struct MctsEngine {
    pub(super) config: SearchConfig,
    pub(super) tree: Mutex<Tree>,
    pub(super) searches: u64,
    /// The classical evaluator of each search thread (kept between searches):
    /// the engine's own without a net, and with one on boards larger than
    /// the net takes.
    pub(super) classical: Vec<Classical<Policy>>,
    pub(super) network: Option<NetworkParts>,
    /// `genmove`s in a row whose best move's win rate was below the
    /// resignation threshold.
    pub(super) losing_streak: u32,
    /// Visits searched over the losing streak: a slow net at a fast clock
    /// may search a handful of visits a move, and its judgement over several
    /// moves is the evidence for resigning.
    pub(super) losing_evidence: u64,
    /// Draws the moves of a level below full strength.
    pub(super) level_rng: PlayoutRng,
    /// Human-like play, with a human-SL net.
    pub(super) human: Option<HumanPlay>,
    /// The last position's ownership averaged over the net's 8 symmetries,
    /// under its [`net_input_key`](super::net_cache::net_input_key) with the
    /// full-history node key: one `final_status_list` or `final_score` after
    /// another asks the net once.
    pub(super) final_ownership: Option<(u64, OwnershipMap)>,
}

impl MctsEngine {
    /// A classical engine: playouts follow `config.playout_policy`.
    ///
    /// # Panics
    /// If the table's memory cannot be had; see [`MctsEngine::try_new`].
    pub fn new(config: SearchConfig) -> MctsEngine {
        MctsEngine::try_new(config).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Like [`MctsEngine::new`], with a message instead of a panic when the
    /// table's memory (`config.tt_mb`) cannot be had.
    ///
    /// # Errors
    /// The allocation failed.
    pub fn try_new(config: SearchConfig) -> Result<MctsEngine, String> {
        MctsEngine::build(config, None)
    }

    /// An engine whose leaves the network `net` evaluates (PUCT search).
    ///
    /// # Errors
    /// The table's memory cannot be had.
    pub fn with_network(config: SearchConfig, net: Arc<Network>) -> Result<MctsEngine, String> {
        MctsEngine::with_network_cache(config, net, Arc::new(Mutex::new(NetCache::new())))
    }

    /// Like [`MctsEngine::with_network`], with an evaluation cache shared with
    /// other engines on the same net (the analysis engine's parallel searches).
    ///
    /// # Errors
    /// The table's memory cannot be had.
    pub fn with_network_cache(
        config: SearchConfig,
        net: Arc<Network>,
        cache: Arc<Mutex<NetCache>>,
    ) -> Result<MctsEngine, String> {
        let network = NetworkParts {
            net,
            cache,
            threads: Vec::new(),
        };
        MctsEngine::build(config, Some(network))
    }

    fn build(config: SearchConfig, network: Option<NetworkParts>) -> Result<MctsEngine, String> {
        let tree = Tree::try_new(config.tt_mb).map_err(|_| {
            format!(
                "cannot allocate {} MB for the transposition table",
                config.tt_mb
            )
        })?;
        Ok(MctsEngine {
            tree: Mutex::new(tree),
            searches: 0,
            classical: Vec::new(),
            network,
            losing_streak: 0,
            losing_evidence: 0,
            final_ownership: None,
            level_rng: PlayoutRng::new(config.seed ^ LEVEL_SEED),
            human: None,
            config,
        })
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Sets the options the analysis engine's queries may change for the
    /// next searches: [`SearchConfig::ignore_pre_root_history`],
    /// [`SearchConfig::root_policy_temperature`] and the policy optimism
    /// below and at the root.
    pub fn set_query_options(&mut self, options: QueryOptions) {
        self.config.ignore_pre_root_history = options.ignore_pre_root_history;
        self.config.root_policy_temperature = options.root_policy_temperature;
        self.config.policy_optimism = options.policy_optimism;
        self.config.root_policy_optimism = options.root_policy_optimism;
    }

    /// Whether a network evaluates the leaves (on boards it takes).
    pub fn uses_network(&self) -> bool {
        self.network.is_some()
    }

    /// Whether the network evaluates `game`'s leaves: there is one, and the
    /// board is one it takes (up to 19 on each side; larger boards are
    /// searched the classical way).
    pub(super) fn network_for(&self, game: &Game) -> bool {
        self.network.is_some() && game.board().geometry().max_side() <= crate::nn::MAX_BOARD_SIZE
    }

    /// Plays like a person from now on: `genmove`'s board moves are drawn
    /// from `net`'s human policy under the configured profile (see
    /// [`super::human`]); the search with the main net still decides the rest.
    ///
    /// # Errors
    /// The engine has no main network to search and veto with.
    pub fn set_human_net(&mut self, net: Arc<Network>) -> Result<(), String> {
        let Some(parts) = &self.network else {
            return Err("human-like play needs a main network to search with".into());
        };
        self.human = Some(HumanPlay::new(
            net,
            parts.net.clone(),
            self.config.human_profile,
            self.config.seed ^ LEVEL_SEED.rotate_left(17),
        ));
        Ok(())
    }

    /// Playouts (leaf evaluations) run by the last search.
    pub fn last_playouts(&self) -> u64 {
        lock(&self.tree).playouts
    }

    /// Visits of the node holding `game`'s position with `color` to move, and
    /// its table slot; `None` if the table has no such node.
    pub fn node_of(&self, game: &Game, color: Color) -> Option<(u32, u32)> {
        let root = Root::new(game, color, &self.config);
        let t = lock(&self.tree);
        t.table
            .find(root.key, NO_SLOT)
            .map(|s| (s, t.table.node(s).visits()))
    }

    /// Forgets the search tree but keeps the network's evaluation cache, so
    /// the next search starts from no visits (what `clear` does to the tree
    /// alone).
    pub fn clear_tree(&mut self) {
        lock(&self.tree).forget_all();
        self.final_ownership = None;
    }

    /// Makes sure there are `n` evaluators of the kind that searches `game`.
    pub(super) fn ensure_evaluators(&mut self, n: usize, game: &Game) {
        let use_network = self.network_for(game);
        match &mut self.network {
            Some(parts) if use_network => {
                while parts.threads.len() < n {
                    parts.threads.push(NetworkLeaves::new(
                        parts.net.clone(),
                        parts.cache.clone(),
                        game,
                        self.config.batch,
                        self.config.human_profile,
                    ));
                }
            }
            _ => {
                while self.classical.len() < n {
                    self.classical
                        .push(Classical::new(self.config.playout_policy));
                }
            }
        }
    }
}

impl Engine for MctsEngine {
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        options: &GenmoveOptions,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    ) -> (Decision, Report) {
        let Limits { playouts, time } = options.limits;
        let playouts = playouts.or(self.config.playouts).or(if time.is_none() {
            Some(DEFAULT_PLAYOUTS)
        } else {
            None
        });
        let rule = StopRule {
            visits: playouts,
            time,
            early: time.is_some() && !options.use_all_time,
        };
        let interval = self.config.report_interval;
        let excluded = options.root.map(RootChoices::excluded).unwrap_or_default();
        let report = self.search(game, color, rule, &excluded, stop, interval, progress);
        let losing = report
            .moves
            .first()
            .is_some_and(|m| m.winrate < self.config.resign_threshold);
        self.losing_streak = if losing { self.losing_streak + 1 } else { 0 };
        self.losing_evidence = if losing {
            self.losing_evidence + report.visits
        } else {
            0
        };
        let decision = self.decide(game, color, options, &report);
        let decision = self.below_full_strength(game, color, options, decision, &report);
        (decision, report)
    }

    fn analyze(
        &mut self,
        game: &Game,
        color: Color,
        excluded: &[Point],
        interval: Duration,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    ) {
        let rule = StopRule {
            visits: None,
            time: None,
            early: false,
        };
        self.search(game, color, rule, excluded, stop, interval, progress);
    }

    /// Settling playouts, the net and a short search decide: see
    /// [`super::final_status`].
    fn dead_stones(&mut self, game: &Game) -> Vec<Point> {
        self.final_dead_stones(game)
    }

    /// From the network's ownership: see [`super::final_status`].
    fn seki_stones(&mut self, game: &Game) -> Vec<Point> {
        self.final_seki_stones(game)
    }

    fn set_level(&mut self, level: Level) -> Result<(), String> {
        if level != Level::Max && self.network.is_none() {
            return Err("a level below max needs a network (not --classical)".into());
        }
        self.config.level = level;
        Ok(())
    }

    fn set_human_profile(&mut self, profile: Option<SgfMetadata>) -> Result<(), String> {
        self.config.human_profile = profile;
        if let Some(human) = &mut self.human {
            human.set_profile(profile);
        }
        if let Some(parts) = &mut self.network {
            // Evaluations under the old profile are stale everywhere.
            parts.threads.clear();
            self.clear();
        }
        Ok(())
    }

    fn clear(&mut self) {
        lock(&self.tree).forget_all();
        self.losing_streak = 0;
        self.losing_evidence = 0;
        self.final_ownership = None;
        if let Some(parts) = &self.network {
            crate::sync::lock(&parts.cache).clear();
        }
    }
}
