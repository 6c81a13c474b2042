//! KataGo's view of a tengen game: replays the game's turns through the parts
//! of KataGo's `BoardHistory` (and its GTP engine) that the network's inputs
//! read, so that the features match what KataGo would compute after being sent
//! the same position and moves.
//!
//! What is reproduced:
//! - a move by the player who is *not* to move clears the history first
//!   (KataGo's `Search::makeMove` → `setPlayerAndClearHistory`), and so does
//!   evaluating for a player other than the one to move (`kata-raw-nn`);
//! - the count of "approximately valid" turns, game end after two passes (area
//!   scoring) or the end of the normal phase (territory scoring, where KataGo's
//!   GTP prevents the cleanup phase), and under simple ko: passes repeating a
//!   situation the same player passed in (spight-style ending) and no-result
//!   after a third repetition;
//! - the white handicap bonus KataGo adds to komi (`whiteHandicapBonus` of its
//!   rules, with its GTP default of treating opening black moves as handicap);
//! - the boards one and two moves ago (for the ladder planes).
//!
//! Encore phases never start (KataGo's GTP default `preventCleanupPhase`).

use crate::go::board::zobrist::to_move_key;
use crate::go::board::{Board, Color, Move, Point};
use crate::go::game::Game;
use crate::go::rules::{KoRule, Rules, Scoring};

/// KataGo's `whiteHandicapBonus` rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandicapBonus {
    Zero,
    N,
    NMinusOne,
}

/// The parts of KataGo's rules that tengen's [`Rules`] does not carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KataRuleExtras {
    /// KataGo's `friendlyPassOk`.
    pub friendly_pass_ok: bool,
    pub handicap_bonus: HandicapBonus,
}

impl KataRuleExtras {
    /// The extras that describe tengen's own rules. Under every preset a
    /// tengen game ends at the second consecutive pass, and its score is the
    /// area (or territory) count plus komi with no compensation for handicap
    /// stones: KataGo's `friendlyPassOk = false` and `whiteHandicapBonus = 0`.
    /// (KataGo's named rule sets differ: its `chinese` adds a point of komi
    /// per handicap stone and allows a friendly pass.) The golden positions
    /// are recorded from KataGo with these extras (`…button0whb0`).
    pub const TENGEN: KataRuleExtras = KataRuleExtras {
        friendly_pass_ok: false,
        handicap_bonus: HandicapBonus::Zero,
    };
}

/// KataGo's history state for the player to move, after [`HistoryView::replay`].
#[derive(Clone)]
pub struct HistoryView {
    /// `game.turns()[clear_index..]` is KataGo's move history.
    pub clear_index: usize,
    /// The history was cleared because the player to move is not the one
    /// KataGo would presume (`kata-raw-nn` with another colour): no ko point,
    /// no superko bans, no history.
    pub cleared_for_player: bool,
    pub num_approx_valid_turns: usize,
    pub game_finished: bool,
    pub past_normal_phase_end: bool,
    pub consecutive_ending_passes: u32,
    /// A pass now would repeat a situation in which the player to move passed
    /// before (simple ko only).
    pub spight_pass_now: bool,
    /// Komi bonus for White from handicap stones.
    pub white_handicap_bonus: f32,
    /// Boards one and two moves ago as KataGo keeps them (valid only as far
    /// as the history reaches; the ko point is each board's own).
    pub prev1: Board,
    pub prev1_ko: Option<Point>,
    pub prev2: Board,
    pub prev2_ko: Option<Point>,
    /// Position keys since the last clear, for superko after a clear:
    /// (position hash, player to move).
    pub positions: Vec<(u64, Color)>,
    pass_keys: [Vec<u64>; 2],
    simple_ko_keys: Vec<u64>,
    replay: Board,
}

impl HistoryView {
    /// An empty view; [`HistoryView::replay`] fills it.
    pub fn new(board: &Board) -> HistoryView {
        HistoryView {
            clear_index: 0,
            cleared_for_player: false,
            num_approx_valid_turns: 0,
            game_finished: false,
            past_normal_phase_end: false,
            consecutive_ending_passes: 0,
            spight_pass_now: false,
            white_handicap_bonus: 0.0,
            prev1: board.clone(),
            prev1_ko: None,
            prev2: board.clone(),
            prev2_ko: None,
            positions: Vec::with_capacity(512),
            pass_keys: [Vec::with_capacity(16), Vec::with_capacity(16)],
            simple_ko_keys: Vec::with_capacity(512),
            replay: board.clone(),
        }
    }

    fn clear(&mut self, hash: u64, to_move: Color, index: usize) {
        self.clear_index = index;
        self.num_approx_valid_turns = 0;
        self.game_finished = false;
        self.past_normal_phase_end = false;
        self.consecutive_ending_passes = 0;
        self.pass_keys[0].clear();
        self.pass_keys[1].clear();
        self.simple_ko_keys.clear();
        self.simple_ko_keys.push(hash ^ to_move_key(to_move));
        self.positions.clear();
        self.positions.push((hash, to_move));
    }

    /// Replays `game` through KataGo's history rules; `extras` are the parts of
    /// KataGo's rules tengen's rules do not hold.
    pub fn replay(&mut self, game: &Game, extras: KataRuleExtras) {
        let rules = game.rules();
        let simple = rules.ko == KoRule::Simple;
        let (start, start_to_move) = game.start_position();
        let turns = game.turns();
        let n = turns.len();
        self.replay.clone_from(start);
        let mut pla = start_to_move;
        self.clear(start.hash(), pla, 0);
        self.cleared_for_player = false;
        let mut initial_stones = stone_counts(start);
        let mut white_has_moved = false;
        self.white_handicap_bonus =
            handicap_bonus(extras.handicap_bonus, initial_stones, &turns[..0], true);

        for (k, turn) in turns.iter().enumerate() {
            if turn.color != pla {
                self.replay.clear_ko();
                pla = turn.color;
                self.clear(self.replay.hash(), pla, k);
                initial_stones = stone_counts(&self.replay);
                white_has_moved = false;
                self.white_handicap_bonus =
                    handicap_bonus(extras.handicap_bonus, initial_stones, &turns[k..k], true);
            }
            if k + 2 == n {
                self.prev2.clone_from(&self.replay);
                self.prev2_ko = self.replay.ko().map(|(p, _)| p);
            }
            if k + 1 == n {
                self.prev1.clone_from(&self.replay);
                self.prev1_ko = self.replay.ko().map(|(p, _)| p);
            }
            if self.game_finished || self.past_normal_phase_end {
                self.num_approx_valid_turns = self.num_approx_valid_turns.min(1);
            }
            self.game_finished = false;
            self.past_normal_phase_end = false;
            let mut spight = false;
            match turn.mv {
                Move::Play(p) => {
                    self.consecutive_ending_passes = 0;
                    self.replay.play(p, turn.color);
                }
                Move::Pass => {
                    if simple {
                        self.simple_ko_keys.clear();
                    }
                    let key = self.replay.hash() ^ to_move_key(turn.color);
                    self.consecutive_ending_passes += 1;
                    let list = &mut self.pass_keys[turn.color.index()];
                    spight = simple && list.contains(&key);
                    list.push(key);
                    self.replay.clear_ko();
                }
            }
            pla = turn.color.opp();
            self.simple_ko_keys
                .push(self.replay.hash() ^ to_move_key(pla));
            self.positions.push((self.replay.hash(), pla));
            self.num_approx_valid_turns += 1;
            if turn.color == Color::White && turn.mv != Move::Pass {
                white_has_moved = true;
            }
            if !white_has_moved
                && turn.color == Color::Black
                && extras.handicap_bonus != HandicapBonus::Zero
            {
                self.white_handicap_bonus = handicap_bonus(
                    extras.handicap_bonus,
                    initial_stones,
                    &turns[self.clear_index..=k],
                    true,
                );
            }
            if self.consecutive_ending_passes >= 2 || spight {
                match rules.scoring {
                    Scoring::Area => self.game_finished = true,
                    Scoring::Territory => {
                        self.past_normal_phase_end = true;
                        self.num_approx_valid_turns = self.num_approx_valid_turns.min(1);
                    }
                }
            }
            if turn.mv != Move::Pass && simple {
                let last = self.simple_ko_keys[self.simple_ko_keys.len() - 1];
                if self.simple_ko_keys.iter().filter(|&&h| h == last).count() >= 3 {
                    self.game_finished = true;
                }
            }
        }

        let to_move = game.to_move();
        if to_move != pla {
            // kata-raw-nn for the other colour: KataGo clears the history.
            let board = game.board();
            self.clear(board.hash(), to_move, n);
            self.cleared_for_player = true;
            self.white_handicap_bonus = handicap_bonus(
                extras.handicap_bonus,
                stone_counts(board),
                &turns[n..],
                false,
            );
        }
        let key = game.board().hash() ^ to_move_key(to_move);
        self.spight_pass_now = simple && self.pass_keys[to_move.index()].contains(&key);
    }

    /// KataGo's `passWouldEndPhase` for the player to move.
    pub fn pass_would_end_phase(&self) -> bool {
        self.consecutive_ending_passes + 1 >= 2 || self.spight_pass_now
    }

    /// Whether KataGo hides the history because a pass would end the game but a
    /// friendly pass is allowed (`shouldSuppressEndGameFromFriendlyPass`).
    pub fn suppress_pass_end(&self, rules: Rules, extras: KataRuleExtras) -> bool {
        let area = rules.scoring == Scoring::Area;
        let ends_game = self.pass_would_end_phase() && area;
        ends_game
            && extras.friendly_pass_ok
            && self.consecutive_ending_passes + 1 == 2
            && !self.spight_pass_now
    }
}

/// (black stones, white stones) on a board.
fn stone_counts(board: &Board) -> (u32, u32) {
    let mut counts = (0, 0);
    for p in board.geometry().points() {
        match board.at(p).color() {
            Some(Color::Black) => counts.0 += 1,
            Some(Color::White) => counts.1 += 1,
            None => {}
        }
    }
    counts
}

/// KataGo's `computeWhiteHandicapBonus`: handicap stones are the black stones
/// of a start position without white stones, plus (when `count_opening_moves`)
/// the black board plays that open the history before White's first board play.
fn handicap_bonus(
    rule: HandicapBonus,
    initial: (u32, u32),
    moves: &[crate::go::game::Turn],
    count_opening_moves: bool,
) -> f32 {
    if rule == HandicapBonus::Zero {
        return 0.0;
    }
    let mut black_turns = 0;
    if count_opening_moves {
        for (i, t) in moves.iter().enumerate() {
            if t.color != Color::Black {
                if i + 1 < moves.len() && moves[i + 1].color != Color::Black {
                    black_turns = 0;
                    break;
                }
                if t.mv == Move::Pass {
                    continue;
                }
                break;
            }
            if t.mv != Move::Pass {
                black_turns += 1;
            }
        }
    }
    let stones = if initial.1 != 0 {
        0
    } else {
        let advantage = initial.0 + black_turns;
        if advantage <= 1 {
            0
        } else {
            advantage
        }
    };
    match rule {
        HandicapBonus::Zero => 0.0,
        HandicapBonus::N => stones as f32,
        HandicapBonus::NMinusOne => stones.saturating_sub(1) as f32,
    }
}
