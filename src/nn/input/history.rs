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
//! - the white handicap bonus KataGo adds to komi: the game's own
//!   ([`Game::white_handicap_bonus`], counted as KataGo's GTP engine counts
//!   it), or from the board alone when the history is cleared for the player;
//! - the boards one and two moves ago (for the ladder planes).
//!
//! Encore phases never start (KataGo's GTP default `preventCleanupPhase`).

use crate::go::board::zobrist::to_move_key;
use crate::go::board::{Board, Color, Move, Point};
use crate::go::game::Game;
use crate::go::handicap;
use crate::go::rules::{KoRule, Rules, Scoring};

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

    /// Replays `game` through KataGo's history rules.
    pub fn replay(&mut self, game: &Game) {
        let rules = game.rules();
        let simple = rules.ko == KoRule::Simple;
        let (start, start_to_move) = game.start_position();
        let turns = game.turns();
        let n = turns.len();
        self.replay.clone_from(start);
        let mut pla = start_to_move;
        self.clear(start.hash(), pla, 0);
        self.cleared_for_player = false;
        self.white_handicap_bonus = game.white_handicap_bonus() as f32;

        for (k, turn) in turns.iter().enumerate() {
            if turn.color != pla {
                self.replay.clear_ko();
                pla = turn.color;
                self.clear(self.replay.hash(), pla, k);
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
            let (black, white) = stone_counts(board);
            let stones = handicap::count_katago(black, white, 0);
            self.white_handicap_bonus = rules.handicap_bonus.points(stones) as f32;
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
    pub fn suppress_pass_end(&self, rules: Rules) -> bool {
        let area = rules.scoring == Scoring::Area;
        let ends_game = self.pass_would_end_phase() && area;
        ends_game
            && rules.friendly_pass_ok
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
