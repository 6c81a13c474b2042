//! A fixed-size cache of network evaluations, shared by the search threads and
//! kept between moves.
//!
//! Its key ([`net_input_key`]) covers everything the net's input depends on:
//! - the node key ([`super::key`]): stones, side to move, the simple-ko ban,
//!   the pass count, under superko the situations before the last capture,
//!   which fix every superko ban (the net's ko-ban plane and the legal moves
//!   its policy is spread over), and the board's width and height (engines
//!   of different board shapes may share one cache, and the same stones on
//!   two shapes hash alike);
//! - the last five moves (the history planes), and whether the game has five;
//! - komi with White's handicap bonus, and the rules (global inputs).
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
    pub black_lead: f32,
    /// The net's short-term error estimates (win/loss, score); -1 for a net
    /// without them.
    pub winloss_error: f32,
    pub score_error: f32,
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
pub fn net_input_key(node_key: u64, game: &Game, history_floor: Option<usize>) -> u64 {
    let turns = game.turns();
    // The moves the net is shown (see `Evaluator::set_history_floor`).
    let turns = &turns[history_floor.unwrap_or(0).min(turns.len())..];
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
    let rules_code = (rules.ko as u64)
        | (rules.scoring as u64) << 4
        | u64::from(rules.suicide_allowed) << 8
        | u64::from(rules.friendly_pass_ok) << 9;
    // Komi with the handicap bonus: what the net's komi input reads.
    h = mix(h ^ game.effective_komi().to_bits() ^ rules_code.rotate_left(32));
    h.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Geometry;
    use crate::go::rules::Preset;

    fn game_after(moves: &[(usize, usize)], komi: f64) -> Game {
        game_on(9, moves, komi)
    }

    fn game_on(size: usize, moves: &[(usize, usize)], komi: f64) -> Game {
        let g = Geometry::new(size).unwrap();
        let mut game = Game::new(g, Preset::Chinese.rules(), komi);
        for &(x, y) in moves {
            let c = game.to_move();
            game.play(c, Move::Play(g.point(x, y).unwrap())).unwrap();
        }
        game
    }

    #[test]
    fn the_same_stones_on_two_board_shapes_have_two_entries() {
        // The stones stand on the same point indices on both boards; the
        // node keys the search gives them tell the shapes apart.
        let moves = [(0, 0), (4, 4), (2, 1)];
        let (small, large) = (game_on(5, &moves, 7.5), game_on(7, &moves, 7.5));
        assert_eq!(small.board().hash(), large.board().hash());
        let node_key = |game: &Game| {
            crate::search::key::KeyState::of_game(game).key(
                game.board(),
                game.to_move(),
                crate::search::key::KeyMode::Transpositions { superko: true },
            )
        };
        assert_ne!(
            net_input_key(node_key(&small), &small, None),
            net_input_key(node_key(&large), &large, None)
        );
    }

    #[test]
    fn the_key_covers_what_the_net_reads_and_nothing_older() {
        // Two move orders to one position, differing in the 6th move back
        // but not in the last five: one key. A different last-five: another.
        let last_five = [(2, 0), (6, 8), (3, 0), (5, 8), (4, 0)];
        let a = game_after(
            &[&[(0, 0), (8, 8), (1, 0), (7, 8)], &last_five[..]].concat(),
            7.5,
        );
        let b = game_after(
            &[&[(1, 0), (7, 8), (0, 0), (8, 8)], &last_five[..]].concat(),
            7.5,
        );
        let c = game_after(
            &[
                (0, 0),
                (8, 8),
                (1, 0),
                (7, 8),
                (4, 0),
                (6, 8),
                (3, 0),
                (5, 8),
                (2, 0),
            ],
            7.5,
        );
        assert_eq!(a.board().hash(), b.board().hash());
        assert_eq!(a.board().hash(), c.board().hash());
        let node = 0x1234_5678;
        assert_eq!(net_input_key(node, &a, None), net_input_key(node, &b, None));
        assert_ne!(net_input_key(node, &a, None), net_input_key(node, &c, None));
        // The node key (stones, side to move, bans), komi and rules count.
        assert_ne!(
            net_input_key(node, &a, None),
            net_input_key(node + 1, &a, None)
        );
        let mut other_komi = a.clone();
        other_komi.set_komi(6.5);
        assert_ne!(
            net_input_key(node, &a, None),
            net_input_key(node, &other_komi, None)
        );
        let mut other_rules = a.clone();
        other_rules.set_rules(Preset::Japanese.rules());
        assert_ne!(
            net_input_key(node, &a, None),
            net_input_key(node, &other_rules, None)
        );
        let mut unfriendly = a.clone();
        unfriendly.set_rules(crate::go::rules::Rules {
            friendly_pass_ok: false,
            ..a.rules()
        });
        assert_ne!(
            net_input_key(node, &a, None),
            net_input_key(node, &unfriendly, None)
        );
        // The handicap bonus is komi to the net: two handicap stones under
        // Chinese rules, with the bonus and without.
        let g = Geometry::new(9).unwrap();
        let mut handicap = Game::new(g, Preset::Chinese.rules(), 7.5);
        let stones = [
            (g.point(2, 2), Some(Color::Black)),
            (g.point(6, 6), Some(Color::Black)),
        ];
        let stones: Vec<_> = stones.iter().map(|&(p, c)| (p.unwrap(), c)).collect();
        handicap.setup(&stones, Some(Color::White));
        let mut no_bonus = handicap.clone();
        no_bonus.set_rules(crate::go::rules::Rules {
            handicap_bonus: crate::go::rules::HandicapBonus::Zero,
            ..handicap.rules()
        });
        assert_ne!(
            net_input_key(node, &handicap, None),
            net_input_key(node, &no_bonus, None)
        );
        // Fewer than five moves is part of the input too.
        let short = game_after(&[(4, 4)], 7.5);
        assert_ne!(
            net_input_key(node, &short, None),
            net_input_key(node, &a, None)
        );
        assert_ne!(net_input_key(0, &short, None), 0, "never the empty key");
        // Hiding the moves before the root (ignorePreRootHistory) is another input.
        let floor = a.turns().len();
        assert_ne!(
            net_input_key(node, &a, Some(floor)),
            net_input_key(node, &a, None)
        );
        assert_ne!(
            net_input_key(node, &a, Some(floor)),
            net_input_key(node, &a, Some(floor - 1))
        );
        assert_eq!(
            net_input_key(node, &a, Some(0)),
            net_input_key(node, &a, None)
        );
    }

    #[test]
    fn entries_come_back_as_stored_until_replaced() {
        let mut cache = NetCache::new();
        let n = 9;
        let policy: Vec<f32> = (0..=n * n).map(|i| i as f32 / 100.0).collect();
        let ownership: Vec<f32> = (0..n * n).map(|i| (i as f32 / 40.0) - 1.0).collect();
        let value = CachedValue {
            black_win: 0.75,
            black_score: 3.5,
            score_stdev: 9.0,
            black_lead: 2.5,
            winloss_error: 0.125,
            score_error: 4.0,
        };
        let (mut p, mut o) = (vec![0.0; n * n + 1], vec![0.0; n * n]);
        assert_eq!(cache.get(42, &mut p, &mut o), None);
        cache.put(42, value, &policy, &ownership);
        assert_eq!(cache.get(42, &mut p, &mut o), Some(value));
        assert_eq!(p, policy);
        for (got, want) in o.iter().zip(&ownership) {
            assert!((got - want.clamp(-1.0, 1.0)).abs() <= 0.5 / 127.0 + 1e-6);
        }
        // Another key in the same slot replaces it; the old key misses.
        let other = 42 + ENTRIES as u64;
        cache.put(other, CachedValue::default(), &policy, &ownership);
        assert_eq!(cache.get(42, &mut p, &mut o), None);
        assert_eq!(
            cache.get(other, &mut p, &mut o),
            Some(CachedValue::default())
        );
        cache.clear();
        assert_eq!(cache.get(other, &mut p, &mut o), None);
        assert_eq!((cache.hits, cache.misses), (2, 3));
    }
}
