//! A fixed-size cache of network evaluations, shared by the search threads and
//! kept between moves.
//!
//! Its key ([`net_input_key`]) covers everything the net's input depends on:
//! - the node key ([`super::key`]): stones, side to move, the simple-ko ban,
//!   the pass count and, under superko, the situations before the last
//!   capture, which fix every superko ban (the net's ko-ban plane and the
//!   legal moves its policy is spread over);
//! - the last five moves (the history planes), and whether the game has five;
//! - komi and the rules (global inputs).
//!
//! So two positions share an entry only if the net would see the same input
//! (up to hash collisions of 64 bits). The relation to the node key: a node
//! is a set of paths with one set of legal moves and one value; the cache
//! splits it further by recent history, which the net reads and the node does
//! not. A node reached by transposition is evaluated once, by whichever path
//! came first.

use super::key::mix;
use crate::go::board::{Color, Move};
use crate::go::game::Game;

/// Entries in the cache.
pub const ENTRIES: usize = 1 << 13;

/// Cells of the largest board the net evaluates, and its pass.
const POLICY_LEN: usize = 19 * 19 + 1;
const OWNERSHIP_LEN: usize = 19 * 19;

/// What is kept of one evaluation, all from Black's view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CachedValue {
    pub black_win: f32,
    pub black_score: f32,
    pub score_stdev: f32,
}

/// See the module documentation.
pub struct NetCache {
    keys: Vec<u64>,
    values: Vec<CachedValue>,
    /// `POLICY_LEN` priors per entry, net index order (`y * n + x`), pass last.
    policy: Vec<f32>,
    /// `OWNERSHIP_LEN` Black ownerships per entry, scaled to -127..127.
    ownership: Vec<i8>,
    pub hits: u64,
    pub misses: u64,
}

impl Default for NetCache {
    fn default() -> Self {
        NetCache::new()
    }
}

impl NetCache {
    pub fn new() -> NetCache {
        NetCache {
            keys: vec![0; ENTRIES],
            values: vec![CachedValue::default(); ENTRIES],
            policy: vec![0.0; ENTRIES * POLICY_LEN],
            ownership: vec![0; ENTRIES * OWNERSHIP_LEN],
            hits: 0,
            misses: 0,
        }
    }

    pub fn clear(&mut self) {
        self.keys.fill(0);
    }

    #[inline]
    fn slot(key: u64) -> usize {
        (key as usize) & (ENTRIES - 1)
    }

    /// Copies the entry for `key` into `policy` (net order, pass last, `area
    /// + 1` long) and `ownership` (`area` long); its values, or `None`.
    pub fn get(
        &mut self,
        key: u64,
        policy: &mut [f32],
        ownership: &mut [f32],
    ) -> Option<CachedValue> {
        let s = Self::slot(key);
        if key == 0 || self.keys[s] != key || policy.len() > POLICY_LEN {
            self.misses += 1;
            return None;
        }
        self.hits += 1;
        policy.copy_from_slice(&self.policy[s * POLICY_LEN..s * POLICY_LEN + policy.len()]);
        let own = &self.ownership[s * OWNERSHIP_LEN..s * OWNERSHIP_LEN + ownership.len()];
        for (o, &q) in ownership.iter_mut().zip(own) {
            *o = q as f32 / 127.0;
        }
        Some(self.values[s])
    }

    /// Stores an evaluation (replacing whatever shared its slot).
    pub fn put(&mut self, key: u64, value: CachedValue, policy: &[f32], ownership: &[f32]) {
        if key == 0 || policy.len() > POLICY_LEN || ownership.len() > OWNERSHIP_LEN {
            return;
        }
        let s = Self::slot(key);
        self.keys[s] = key;
        self.values[s] = value;
        self.policy[s * POLICY_LEN..s * POLICY_LEN + policy.len()].copy_from_slice(policy);
        for (q, &o) in self.ownership[s * OWNERSHIP_LEN..]
            .iter_mut()
            .zip(ownership)
        {
            *q = (o.clamp(-1.0, 1.0) * 127.0).round() as i8;
        }
    }
}

/// The cache key of `game`'s position as a search node keyed `node_key`
/// sees it: see the module documentation.
pub fn net_input_key(node_key: u64, game: &Game) -> u64 {
    let turns = game.turns();
    let mut h = mix(node_key ^ 0x243f_6a88_85a3_08d3);
    for t in turns.iter().rev().take(5) {
        let p = match t.mv {
            Move::Pass => 0,
            Move::Play(p) => p.index() as u64 + 1,
        };
        let c = u64::from(t.color == Color::White);
        h = mix(h ^ (p << 1 | c));
    }
    h = mix(h ^ turns.len().min(5) as u64);
    let rules = game.rules();
    let rules_code =
        (rules.ko as u64) | (rules.scoring as u64) << 4 | u64::from(rules.suicide_allowed) << 8;
    h = mix(h ^ game.komi().to_bits() ^ rules_code.rotate_left(32));
    h.max(1)
}
