//! A game: board + superko history + rules + komi + the moves played, with
//! checked play, tolerant replay of recorded moves, setup stones and undo.
//!
//! Turn order is tracked but not enforced: either colour may play (GTP clients
//! send non-alternating moves when they set up positions). Legality of a board
//! play is decided from the key of the *resulting* position before anything is
//! committed, so a refused move leaves the game untouched.
//!
//! Undo replays the recorded moves from the start position: plays are cheap and
//! replay is exact by construction (board, key, history and captures).
//!
//! The game also counts its handicap stones as KataGo does, so that the count
//! ([`Game::effective_komi`]), the search and the network's inputs read one
//! value.

use crate::go::board::{Board, Color, Geometry, Move, Point, Stone};
use crate::go::handicap;
use crate::go::history::History;
use crate::go::rules::{KoRule, Rules};
use std::borrow::Cow;
use std::fmt;

/// Why a move is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalMove {
    /// The point is not empty.
    Occupied,
    /// The move would leave its own chain without liberties and capture nothing
    /// (single-stone suicide always; multi-stone suicide where the rules forbid it).
    Suicide,
    /// Immediate recapture of a single-stone ko.
    Ko,
    /// Recreates the board position that stood after move `repeats` (0 = start).
    PositionalSuperko { repeats: u32 },
    /// Recreates the situation that stood after move `repeats`, under situational
    /// superko.
    SituationalSuperko { repeats: u32 },
    /// Recreates, by a board play, a position the same player created before
    /// by a board play after move `repeats`: natural situational superko.
    NaturalSituationalSuperko { repeats: u32 },
}

impl IllegalMove {
    /// The machine-readable name used by `tengen check --json`.
    pub fn code(self) -> &'static str {
        match self {
            IllegalMove::Occupied => "occupied",
            IllegalMove::Suicide => "suicide",
            IllegalMove::Ko => "ko",
            IllegalMove::PositionalSuperko { .. } => "positional-superko",
            IllegalMove::SituationalSuperko { .. } => "situational-superko",
            IllegalMove::NaturalSituationalSuperko { .. } => "natural-situational-superko",
        }
    }

    /// For superko, the move number whose position is repeated.
    pub fn repeats_move(self) -> Option<u32> {
        match self {
            IllegalMove::PositionalSuperko { repeats }
            | IllegalMove::SituationalSuperko { repeats }
            | IllegalMove::NaturalSituationalSuperko { repeats } => Some(repeats),
            _ => None,
        }
    }
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::Occupied => f.write_str("point occupied"),
            IllegalMove::Suicide => f.write_str("suicide"),
            IllegalMove::Ko => f.write_str("ko: immediate recapture"),
            IllegalMove::PositionalSuperko { repeats } => {
                write!(
                    f,
                    "positional superko: repeats the position after move {repeats}"
                )
            }
            IllegalMove::SituationalSuperko { repeats } => {
                write!(
                    f,
                    "situational superko: repeats the position after move {repeats}"
                )
            }
            IllegalMove::NaturalSituationalSuperko { repeats } => {
                write!(
                    f,
                    "natural situational superko: repeats the position after move {repeats}"
                )
            }
        }
    }
}

impl std::error::Error for IllegalMove {}

/// One recorded turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    pub color: Color,
    pub mv: Move,
}

/// What KataGo's history knows of the handicap: the stones of the position it
/// starts from and Black's board plays before White's first. KataGo's GTP
/// engine starts a new history from the current position whenever a move is
/// played by the player not to move (`Search::makeMove` →
/// `setPlayerAndClearHistory`); so does this count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct HandicapCount {
    start_black: u32,
    start_white: u32,
    black_plays: u32,
    white_has_played: bool,
}

impl HandicapCount {
    /// A history starting from `board`.
    fn of(board: &Board) -> HandicapCount {
        let mut count = HandicapCount::default();
        for p in board.geometry().points() {
            match board.at(p).color() {
                Some(Color::Black) => count.start_black += 1,
                Some(Color::White) => count.start_white += 1,
                None => {}
            }
        }
        count
    }

    /// Notes `color`'s `mv`, about to be played on `board` when `expected`
    /// is to move.
    fn note(&mut self, board: &Board, expected: Color, color: Color, mv: Move) {
        if color != expected {
            *self = HandicapCount::of(board);
        }
        match (color, mv) {
            (Color::White, Move::Play(_)) => self.white_has_played = true,
            (Color::Black, Move::Play(_)) if !self.white_has_played => self.black_plays += 1,
            _ => {}
        }
    }

    fn stones(self) -> u32 {
        handicap::count_katago(self.start_black, self.start_white, self.black_plays)
    }
}

/// See the module documentation.
#[derive(Debug)]
pub struct Game {
    rules: Rules,
    komi: f64,
    /// The position undo returns to: the initial board or the last setup.
    start: Board,
    start_to_move: Color,
    /// Move number of the start position (moves before a mid-game setup).
    base: u32,
    board: Board,
    to_move: Color,
    turns: Vec<Turn>,
    history: History,
    handicap: HandicapCount,
}

impl Clone for Game {
    fn clone(&self) -> Game {
        Game {
            rules: self.rules,
            komi: self.komi,
            start: self.start.clone(),
            start_to_move: self.start_to_move,
            base: self.base,
            board: self.board.clone(),
            to_move: self.to_move,
            turns: self.turns.clone(),
            history: self.history.clone(),
            handicap: self.handicap,
        }
    }

    /// Reuses `self`'s buffers (the search copies the root game per leaf).
    fn clone_from(&mut self, source: &Game) {
        self.rules = source.rules;
        self.komi = source.komi;
        self.start.clone_from(&source.start);
        self.start_to_move = source.start_to_move;
        self.base = source.base;
        self.board.clone_from(&source.board);
        self.to_move = source.to_move;
        self.turns.clone_from(&source.turns);
        self.history.clone_from(&source.history);
        self.handicap = source.handicap;
    }
}

impl Game {
    /// An empty board of the given geometry, Black to move.
    pub fn new(geometry: Geometry, rules: Rules, komi: f64) -> Game {
        let board = Board::new(geometry);
        Game {
            rules,
            komi,
            start: board.clone(),
            start_to_move: Color::Black,
            base: 0,
            history: History::new(rules.ko, 0, board.hash(), Color::Black),
            board,
            to_move: Color::Black,
            turns: Vec::new(),
            handicap: HandicapCount::default(),
        }
    }

    /// The current board.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The rules in force.
    #[inline]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Changes the rules; the superko history is re-indexed for the new ko rule.
    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
        self.history.set_ko_rule(rules.ko);
    }

    /// Komi (points given to White).
    #[inline]
    pub fn komi(&self) -> f64 {
        self.komi
    }

    pub fn set_komi(&mut self, komi: f64) {
        self.komi = komi;
    }

    /// The number of handicap stones, as KataGo counts them
    /// ([`handicap::count_katago`]): the black stones of the start position
    /// (`fixed_handicap`, `set_free_handicap`, SGF `AB`) if it has no white
    /// stone, plus Black's board plays before White's first board play (a
    /// client that sends handicap stones as `play`s); 0 if that makes fewer
    /// than 2. A move by the player not to move starts the count again from
    /// the current position, as KataGo's GTP engine does.
    pub fn handicap_stones(&self) -> u32 {
        self.handicap.stones()
    }

    /// White's compensation for the handicap stones under the rules in force
    /// ([`Rules::handicap_bonus`]).
    pub fn white_handicap_bonus(&self) -> f64 {
        f64::from(self.rules.handicap_bonus.points(self.handicap_stones()))
    }

    /// Komi plus [`Game::white_handicap_bonus`]: the points White adds to
    /// its count (KataGo's `komi + whiteHandicapBonusScore`). Every result
    /// and every margin the search aims at uses this.
    pub fn effective_komi(&self) -> f64 {
        self.komi + self.white_handicap_bonus()
    }

    /// The player whose turn it is: the opponent of the last mover, or whoever
    /// the start position says.
    #[inline]
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Overrides who is to move (SGF `PL`, GTP `genmove` for the other colour).
    /// Only affects which situation the history records next.
    pub fn set_to_move(&mut self, color: Color) {
        self.to_move = color;
    }

    /// The start position: the initial board or the last setup (what undo
    /// returns to), and who was to move there. For SGF writing.
    pub fn start_position(&self) -> (&Board, Color) {
        (&self.start, self.start_to_move)
    }

    /// The turns played since the start position.
    #[inline]
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// Number of the last move played (0 = none), counting moves before a mid-game setup.
    #[inline]
    pub fn move_number(&self) -> u32 {
        self.base + self.turns.len() as u32
    }

    /// The last turn, if any since the start position.
    pub fn last_turn(&self) -> Option<Turn> {
        self.turns.last().copied()
    }

    /// Number of passes at the end of the move list.
    pub fn consecutive_passes(&self) -> usize {
        self.turns
            .iter()
            .rev()
            .take_while(|t| t.mv == Move::Pass)
            .count()
    }

    /// The superko history.
    #[inline]
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Whether `color` may play `mv` now; the reason if not.
    pub fn check(&self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        let Move::Play(p) = mv else {
            return Ok(());
        };
        let b = &self.board;
        if b.at(p) != Stone::Empty {
            return Err(IllegalMove::Occupied);
        }
        if b.is_ko(p, color) {
            return Err(IllegalMove::Ko);
        }
        if b.is_suicide(p, color) {
            let single = b.neighbor_count(p, color.stone()) == 0;
            if single || !self.rules.suicide_allowed {
                return Err(IllegalMove::Suicide);
            }
        }
        match self.history.repeats(b.hash_after(p, color), color) {
            None => Ok(()),
            Some(repeats) => Err(match self.rules.ko {
                KoRule::Positional => IllegalMove::PositionalSuperko { repeats },
                KoRule::NaturalSituational => IllegalMove::NaturalSituationalSuperko { repeats },
                _ => IllegalMove::SituationalSuperko { repeats },
            }),
        }
    }

    /// Whether `color` may play `mv` now.
    #[inline]
    pub fn is_legal(&self, color: Color, mv: Move) -> bool {
        self.check(color, mv).is_ok()
    }

    /// Plays `mv` for `color` if it is legal; otherwise leaves the game unchanged.
    ///
    /// # Errors
    /// The reason the move is illegal.
    pub fn play(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        self.check(color, mv)?;
        self.commit(color, mv);
        Ok(())
    }

    /// Plays a recorded move the way SGF requires: executed even when illegal
    /// (captures, then suicide, resolved as usual), except on an occupied point,
    /// which cannot be executed and is skipped. Returns the violation, if any.
    pub fn play_recorded(&mut self, color: Color, mv: Move) -> Option<IllegalMove> {
        let verdict = self.check(color, mv).err();
        if verdict != Some(IllegalMove::Occupied) {
            self.commit(color, mv);
        }
        verdict
    }

    fn commit(&mut self, color: Color, mv: Move) {
        let expected = self
            .turns
            .last()
            .map_or(self.start_to_move, |t| t.color.opp());
        self.handicap.note(&self.board, expected, color, mv);
        let created_by = match mv {
            Move::Play(p) => {
                self.board.play(p, color);
                Some(color)
            }
            Move::Pass => {
                self.board.clear_ko();
                None
            }
        };
        self.to_move = color.opp();
        self.turns.push(Turn { color, mv });
        self.history
            .push(self.board.hash(), self.to_move, created_by);
    }

    /// Takes back the last move since the start position. Returns false if there
    /// is none.
    pub fn undo(&mut self) -> bool {
        if self.turns.pop().is_none() {
            return false;
        }
        self.history.pop();
        self.board = self.start.clone();
        self.handicap = HandicapCount::of(&self.start);
        let mut expected = self.start_to_move;
        for t in &self.turns {
            self.handicap.note(&self.board, expected, t.color, t.mv);
            expected = t.color.opp();
            if let Move::Play(p) = t.mv {
                self.board.play(p, t.color);
            } else {
                self.board.clear_ko();
            }
        }
        self.to_move = self
            .turns
            .last()
            .map_or(self.start_to_move, |t| t.color.opp());
        true
    }

    /// This game with `color` to move: itself when `color` is to move
    /// already, else a copy set up with `color` to move (for asking a net
    /// about the other player's move, as KataGo's `kata-raw-nn B` does).
    pub fn with_to_move(&self, color: Color) -> Cow<'_, Game> {
        if color == self.to_move {
            Cow::Borrowed(self)
        } else {
            let mut g = self.clone();
            g.setup(&[], Some(color));
            Cow::Owned(g)
        }
    }

    /// Changes stones without rules (SGF `AB`/`AW`/`AE`, handicap stones), then
    /// makes the result the new start position: the superko history restarts
    /// from it (positions before a setup can no longer be reached by play) and
    /// undo stops there. Move numbering continues.
    pub fn setup(&mut self, changes: &[(Point, Option<Color>)], to_move: Option<Color>) {
        for &(p, stone) in changes {
            self.board.set_stone(p, stone);
        }
        // A setup (even an empty one) starts a new position: no ko carries over.
        self.board.clear_ko();
        if let Some(c) = to_move {
            self.to_move = c;
        }
        self.base = self.move_number();
        self.turns.clear();
        self.start = self.board.clone();
        self.start_to_move = self.to_move;
        self.history = History::new(self.rules.ko, self.base, self.board.hash(), self.to_move);
        self.handicap = HandicapCount::of(&self.board);
    }

    /// Every legal board play for `color` (passes are always legal).
    pub fn legal_points(&self, color: Color) -> Vec<Point> {
        self.board
            .geometry()
            .points()
            .filter(|&p| self.is_legal(color, Move::Play(p)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Preset;

    fn pt(g: Geometry, x: usize, y: usize) -> Point {
        g.point(x, y).unwrap()
    }

    /// The same game when the colour is to move already; else a copy with
    /// the same stones and the other colour to move.
    #[test]
    fn with_to_move_copies_only_for_the_other_colour() {
        let g = Geometry::new(9).unwrap();
        let mut game = Game::new(g, Preset::Chinese.rules(), 7.5);
        game.play(Color::Black, Move::Play(pt(g, 4, 4))).unwrap();
        assert!(matches!(game.with_to_move(Color::White), Cow::Borrowed(_)));
        let black = game.with_to_move(Color::Black);
        assert!(matches!(black, Cow::Owned(_)));
        assert_eq!(black.to_move(), Color::Black);
        assert_eq!(black.board().at(pt(g, 4, 4)), game.board().at(pt(g, 4, 4)));
        assert_eq!(game.to_move(), Color::White);
    }

    #[test]
    fn simple_ko_and_undo() {
        // T1 (simple ko) on 19x19: AB[br][cs] AW[ar][bs], Black A1 captures B1.
        let g = Geometry::new(19).unwrap();
        let mut game = Game::new(g, Preset::Japanese.rules(), 6.5);
        game.setup(
            &[
                (pt(g, 1, 17), Some(Color::Black)),
                (pt(g, 2, 18), Some(Color::Black)),
                (pt(g, 0, 17), Some(Color::White)),
                (pt(g, 1, 18), Some(Color::White)),
            ],
            Some(Color::Black),
        );
        let before = game.board().hash();
        game.play(Color::Black, Move::Play(pt(g, 0, 18))).unwrap();
        assert_eq!(game.board().captures(Color::Black), 1);
        assert_eq!(
            game.check(Color::White, Move::Play(pt(g, 1, 18))),
            Err(IllegalMove::Ko)
        );
        let after = game.board().hash();
        assert_eq!(
            game.play(Color::White, Move::Play(pt(g, 1, 18))),
            Err(IllegalMove::Ko)
        );
        assert_eq!(game.board().hash(), after, "a refused move changes nothing");
        assert!(game.undo());
        assert_eq!(game.board().hash(), before);
        assert_eq!(game.board().captures(Color::Black), 0);
        assert!(!game.undo(), "setup is the start position");

        // An empty setup (an SGF node with only `PL`) also ends the ko.
        game.play(Color::Black, Move::Play(pt(g, 0, 18))).unwrap();
        assert_eq!(
            game.check(Color::White, Move::Play(pt(g, 1, 18))),
            Err(IllegalMove::Ko)
        );
        game.setup(&[], Some(Color::White));
        assert_eq!(game.check(Color::White, Move::Play(pt(g, 1, 18))), Ok(()));
    }

    /// KataGo's count, transcribed: the history starts again at the last move
    /// played out of turn (`setPlayerAndClearHistory`), from the board as it
    /// stood then; `computeNumHandicapStones` over that history's moves.
    fn katago_handicap_stones(game: &Game) -> u32 {
        let (start, start_to_move) = game.start_position();
        let turns = game.turns();
        let mut expected = start_to_move;
        let mut clear_at = 0;
        for (k, t) in turns.iter().enumerate() {
            if t.color != expected {
                clear_at = k;
            }
            expected = t.color.opp();
        }
        let mut board = start.clone();
        for t in &turns[..clear_at] {
            if let Move::Play(p) = t.mv {
                board.play(p, t.color);
            }
        }
        let moves = &turns[clear_at..];
        let mut black_turns = 0;
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
        let (mut black, mut white) = (0, 0);
        for p in board.geometry().points() {
            match board.at(p).color() {
                Some(Color::Black) => black += 1,
                Some(Color::White) => white += 1,
                None => {}
            }
        }
        if white != 0 || black + black_turns <= 1 {
            0
        } else {
            black + black_turns
        }
    }

    #[test]
    fn handicap_stones_from_setup_and_from_opening_black_plays() {
        use crate::go::rules::HandicapBonus;
        let g = Geometry::new(9).unwrap();
        let mut game = Game::new(g, Preset::Chinese.rules(), 7.5);
        assert_eq!(game.handicap_stones(), 0);
        game.setup(
            &[
                (pt(g, 2, 6), Some(Color::Black)),
                (pt(g, 6, 2), Some(Color::Black)),
            ],
            Some(Color::White),
        );
        assert_eq!(game.handicap_stones(), 2);
        assert_eq!(game.effective_komi(), 9.5, "Chinese: a point per stone");
        game.play(Color::White, Move::Play(pt(g, 4, 4))).unwrap();
        game.play(Color::Black, Move::Play(pt(g, 3, 3))).unwrap();
        assert_eq!(
            game.handicap_stones(),
            2,
            "Black's later plays do not count"
        );
        for (bonus, komi) in [
            (HandicapBonus::Zero, 7.5),
            (HandicapBonus::NMinusOne, 8.5),
            (HandicapBonus::N, 9.5),
        ] {
            game.set_rules(Rules {
                handicap_bonus: bonus,
                ..game.rules()
            });
            assert_eq!(game.effective_komi(), komi, "{bonus:?}");
        }

        // Handicap sent as plays: Black twice, a white pass between counts too.
        let mut game = Game::new(g, Preset::Chinese.rules(), 7.5);
        game.play(Color::Black, Move::Play(pt(g, 2, 6))).unwrap();
        assert_eq!(game.handicap_stones(), 0, "one stone is an even game");
        game.play(Color::White, Move::Pass).unwrap();
        game.play(Color::Black, Move::Play(pt(g, 6, 2))).unwrap();
        assert_eq!(game.handicap_stones(), 2);
        game.play(Color::Black, Move::Play(pt(g, 6, 6))).unwrap();
        assert_eq!(game.handicap_stones(), 3);
        game.play(Color::White, Move::Play(pt(g, 4, 4))).unwrap();
        game.play(Color::Black, Move::Play(pt(g, 2, 2))).unwrap();
        assert_eq!(game.handicap_stones(), 3);
        assert!(game.undo() && game.undo() && game.undo());
        assert_eq!(game.handicap_stones(), 2);

        // White first: no handicap.
        let mut game = Game::new(g, Preset::Aga.rules(), 7.5);
        game.play(Color::White, Move::Play(pt(g, 4, 4))).unwrap();
        game.play(Color::Black, Move::Play(pt(g, 2, 2))).unwrap();
        game.play(Color::Black, Move::Play(pt(g, 6, 6))).unwrap();
        assert_eq!(game.handicap_stones(), 0);
        assert_eq!(game.effective_komi(), 7.5);
    }

    /// On random games with moves out of turn, passes and undo, the
    /// incremental count is KataGo's.
    #[test]
    fn handicap_stones_match_katagos_count_on_random_games() {
        let g = Geometry::new(5).unwrap();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..300 {
            let mut game = Game::new(g, Preset::Chinese.rules(), 7.5);
            if round % 3 == 0 {
                let stones = 1 + next(3) as usize;
                let changes: Vec<_> = (0..stones)
                    .map(|i| (pt(g, i, 2 * (i % 2)), Some(Color::Black)))
                    .collect();
                game.setup(&changes, Some(Color::White));
            }
            for _ in 0..(next(12) + 1) {
                let color = if next(5) == 0 {
                    game.to_move().opp()
                } else {
                    game.to_move()
                };
                let legal = game.legal_points(color);
                let mv = if legal.is_empty() || next(4) == 0 {
                    Move::Pass
                } else {
                    Move::Play(legal[next(legal.len() as u64) as usize])
                };
                game.play(color, mv).unwrap();
                assert_eq!(game.handicap_stones(), katago_handicap_stones(&game));
                if next(6) == 0 {
                    game.undo();
                    assert_eq!(game.handicap_stones(), katago_handicap_stones(&game));
                }
            }
        }
    }
}
