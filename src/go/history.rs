//! The whole game's history of positions, and the superko question: would a
//! board play whose *resulting* key is known repeat an earlier position, and
//! which move first created it?
//!
//! Every position of the game is kept (no ring buffer): entry `i` is the
//! position after move `base + i`, entry 0 the start (initial or setup)
//! position. An index maps the key that the active [`KoRule`] compares to the
//! move number that first produced it:
//! - positional: the position key;
//! - situational: the position key with the player to move folded in, for every
//!   entry, passes included (a pass creates a new situation);
//! - natural situational: the position key with its creator folded in, only for
//!   positions created by a board play (not passes, not the start position);
//! - simple: no index (the board's simple-ko point does the work).
//!
//! Changing the ko rule rebuilds the index from the entries.

use crate::go::board::zobrist::to_move_key;
use crate::go::board::Color;
use crate::go::rules::KoRule;
use rustc_hash::FxHashMap;

/// One position of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    /// Position key (stones only).
    hash: u64,
    /// Player to move in this position.
    to_move: Color,
    /// The player whose board play created the position; `None` for a pass or
    /// the start position.
    created_by: Option<Color>,
}

/// See the module documentation.
#[derive(Debug)]
pub struct History {
    ko: KoRule,
    base: u32,
    entries: Vec<Entry>,
    index: FxHashMap<u64, u32>,
}

impl Clone for History {
    fn clone(&self) -> History {
        History {
            ko: self.ko,
            base: self.base,
            entries: self.entries.clone(),
            index: self.index.clone(),
        }
    }

    /// Reuses `self`'s buffers.
    fn clone_from(&mut self, source: &History) {
        self.ko = source.ko;
        self.base = source.base;
        self.entries.clone_from(&source.entries);
        self.index.clone_from(&source.index);
    }
}

impl History {
    /// A history whose start position (move number `base`) has key `hash` and
    /// `to_move` to play.
    pub fn new(ko: KoRule, base: u32, hash: u64, to_move: Color) -> History {
        let mut h = History {
            ko,
            base,
            entries: Vec::with_capacity(512),
            index: FxHashMap::with_capacity_and_hasher(512, Default::default()),
        };
        h.push_entry(Entry {
            hash,
            to_move,
            created_by: None,
        });
        h
    }

    /// The ko rule whose question [`History::repeats`] answers.
    pub fn ko_rule(&self) -> KoRule {
        self.ko
    }

    /// Switches the ko rule; the index is rebuilt from the whole history.
    pub fn set_ko_rule(&mut self, ko: KoRule) {
        if ko == self.ko {
            return;
        }
        self.ko = ko;
        let entries = std::mem::take(&mut self.entries);
        self.index.clear();
        for e in entries {
            self.push_entry(e);
        }
    }

    /// Move number of the newest position (the start position is `base`).
    pub fn last_move_number(&self) -> u32 {
        self.base + self.entries.len() as u32 - 1
    }

    /// Number of positions kept, the start position included.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: the start position is always there.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Records the position after a move: its key, the player now to move, and
    /// who created it by a board play (`None` for a pass).
    pub fn push(&mut self, hash: u64, to_move: Color, created_by: Option<Color>) {
        self.push_entry(Entry {
            hash,
            to_move,
            created_by,
        });
    }

    /// Forgets the newest position (undo). The start position is never removed:
    /// returns false if only it is left.
    pub fn pop(&mut self) -> bool {
        if self.entries.len() <= 1 {
            return false;
        }
        let number = self.last_move_number();
        if let Some(e) = self.entries.pop() {
            if let Some(k) = self.key(&e) {
                if self.index.get(&k) == Some(&number) {
                    self.index.remove(&k);
                }
            }
        }
        true
    }

    /// If `mover`'s board play resulting in position key `hash_after` would repeat
    /// a position forbidden by the ko rule, the move number after which that
    /// position first stood (the start position is `base`).
    #[inline]
    pub fn repeats(&self, hash_after: u64, mover: Color) -> Option<u32> {
        let key = match self.ko {
            KoRule::Simple => return None,
            KoRule::Positional => hash_after,
            KoRule::Situational => hash_after ^ to_move_key(mover.opp()),
            KoRule::NaturalSituational => hash_after ^ to_move_key(mover),
        };
        self.index.get(&key).copied()
    }

    fn push_entry(&mut self, e: Entry) {
        let number = self.base + self.entries.len() as u32;
        self.entries.push(e);
        if let Some(k) = self.key(&e) {
            self.index.entry(k).or_insert(number);
        }
    }

    /// The index key of an entry under the active rule, if it is indexed at all.
    #[inline]
    fn key(&self, e: &Entry) -> Option<u64> {
        match self.ko {
            KoRule::Simple => None,
            KoRule::Positional => Some(e.hash),
            KoRule::Situational => Some(e.hash ^ to_move_key(e.to_move)),
            KoRule::NaturalSituational => e.created_by.map(|c| e.hash ^ to_move_key(c)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Black, White};

    #[test]
    fn positional_ignores_who_is_to_move() {
        let mut h = History::new(KoRule::Positional, 0, 10, Black);
        h.push(20, White, Some(Black));
        assert_eq!(h.repeats(10, Black), Some(0));
        assert_eq!(h.repeats(20, White), Some(1));
        assert_eq!(h.repeats(30, White), None);
    }

    #[test]
    fn situational_counts_passes_and_player() {
        let mut h = History::new(KoRule::Situational, 0, 10, Black);
        h.push(20, White, Some(Black)); // 1: B plays
        h.push(20, Black, None); // 2: W passes: (20, B to move) is new
                                 // A black play giving 20 leaves White to move: repeats move 1.
        assert_eq!(h.repeats(20, Black), Some(1));
        // A white play giving 20 leaves Black to move: repeats move 2 (the pass).
        assert_eq!(h.repeats(20, White), Some(2));
        // The start position had Black to move.
        assert_eq!(h.repeats(10, White), Some(0));
        assert_eq!(h.repeats(10, Black), None);
    }

    #[test]
    fn natural_situational_counts_only_own_board_plays() {
        let mut h = History::new(KoRule::NaturalSituational, 0, 10, Black);
        h.push(20, White, Some(Black));
        h.push(20, Black, None);
        assert_eq!(h.repeats(20, Black), Some(1));
        assert_eq!(
            h.repeats(20, White),
            None,
            "created by Black, and a pass does not count"
        );
        assert_eq!(
            h.repeats(10, White),
            None,
            "the start position was not created by a play"
        );
    }

    #[test]
    fn pop_and_rule_change_keep_the_index_exact() {
        let mut h = History::new(KoRule::Positional, 5, 10, Black);
        h.push(20, White, Some(Black)); // 6
        h.push(10, Black, Some(White)); // 7: repeats 5, index keeps 5
        h.push(30, White, Some(Black)); // 8
        assert_eq!(h.repeats(10, Black), Some(5));
        assert!(h.pop());
        assert_eq!(h.repeats(30, Black), None);
        assert!(h.pop());
        assert_eq!(
            h.repeats(10, Black),
            Some(5),
            "the first creator survives the pop"
        );
        h.set_ko_rule(KoRule::Situational);
        assert_eq!(h.repeats(20, Black), Some(6));
        assert_eq!(h.repeats(20, White), None);
        assert_eq!(h.last_move_number(), 6);
        assert!(h.pop());
        assert!(!h.pop(), "the start position stays");
    }
}
