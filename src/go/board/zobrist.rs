//! Fixed Zobrist keys: one 64-bit key per colour per cell, one per possible
//! simple-ko cell, and one per side to move.
//!
//! The keys come from a SplitMix64 sequence with a constant seed, evaluated at
//! compile time, so they never change between builds or platforms (a test pins
//! the first ones). The position key is the XOR of the stone keys of every stone
//! on the board; the empty board has key 0. The ko and side-to-move keys are for
//! callers that build situation or search keys on top of the position key.

use super::point::{Color, Point, CELLS};

const SEED: u64 = 0x7465_6e67_656e_5a42; // "tengenZB"

/// One step of SplitMix64 (Steele, Lea & Flood 2014): returns the new state and the output.
const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

/// All keys, laid out so one table lookup gives the key of a stone.
pub struct Keys {
    /// `stone[color][cell]`.
    pub stone: [[u64; CELLS]; 2],
    /// `ko[cell]`: for search keys that must tell ko situations apart.
    pub ko: [u64; CELLS],
    /// `to_move[color]`: for situational keys.
    pub to_move: [u64; 2],
}

const fn generate() -> Keys {
    let mut keys = Keys {
        stone: [[0; CELLS]; 2],
        ko: [0; CELLS],
        to_move: [0; 2],
    };
    let mut state = SEED;
    let mut i = 0;
    while i < CELLS {
        let (s, a) = splitmix64(state);
        let (s, b) = splitmix64(s);
        let (s, c) = splitmix64(s);
        keys.stone[0][i] = a;
        keys.stone[1][i] = b;
        keys.ko[i] = c;
        state = s;
        i += 1;
    }
    let (s, a) = splitmix64(state);
    let (_, b) = splitmix64(s);
    keys.to_move = [a, b];
    keys
}

/// The key tables.
pub static KEYS: Keys = generate();

/// Key of a stone of `color` on `p`.
#[inline]
pub fn stone_key(color: Color, p: Point) -> u64 {
    KEYS.stone[color.index()][p.index()]
}

/// Key that marks `p` as the simple-ko point.
#[inline]
pub fn ko_key(p: Point) -> u64 {
    KEYS.ko[p.index()]
}

/// Key that marks `color` as the player to move.
#[inline]
pub fn to_move_key(color: Color) -> u64 {
    KEYS.to_move[color.index()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashSet;

    /// The keys are part of the on-disk and cross-build contract: pin them.
    #[test]
    fn keys_are_pinned() {
        assert_eq!(KEYS.stone[0][0], 0xbbbd_030f_402d_4556);
        assert_eq!(KEYS.stone[1][0], 0xb7f9_5473_228b_50c3);
        assert_eq!(KEYS.ko[0], 0xb452_cd88_5508_9014);
        assert_eq!(KEYS.to_move[0], 0xfab1_4d9f_e3ed_efac);
    }

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut seen = FxHashSet::default();
        for c in 0..2 {
            for k in KEYS.stone[c] {
                assert!(k != 0 && seen.insert(k));
            }
        }
        for k in KEYS.ko.iter().chain(KEYS.to_move.iter()) {
            assert!(*k != 0 && seen.insert(*k));
        }
    }
}
