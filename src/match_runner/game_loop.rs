//! One game between two GTP engines, the way gogui-twogtp plays it: `genmove`
//! to the side to move, `play` of that move to the other side (and to the
//! referee), until two passes, a resignation, a forfeit or the move cap.
//!
//! Every move is checked by our own [`Game`] under the match rules: an engine
//! that sends an illegal or unreadable move, crashes, times out, or refuses a
//! legal move of its opponent loses the game, and the record says why.
//! Finished games are counted by our scorer; see [`score_finished`] for where
//! the dead stones come from.

use super::openings::Opening;
use super::player::{GameSettings, Player, Timeouts};
use crate::go::board::{Color, Geometry, Move, Point};
use crate::go::game::Game;
use crate::go::rules::Rules;
use crate::go::score::GameResult;
use crate::go::vertex;
use crate::match_runner::gtp_client::GtpError;
use crate::time::Clock;
use std::time::{Duration, Instant};

/// Everything one game needs besides the players.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// The board; `settings.size` is its size.
    pub geometry: Geometry,
    pub settings: GameSettings,
    pub rules: Rules,
    /// Black's handicap stones (none for an even game).
    pub handicap: Vec<Point>,
    /// The game ends without result after this many moves.
    pub max_moves: u32,
    pub timeouts: Timeouts,
    /// Seconds a move may run past the game clock and still be in time.
    pub lag: f64,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// Two passes in a row; counted.
    TwoPasses,
    /// `color` resigned.
    Resignation(Color),
    /// `loser` lost by breaking a rule or the protocol (`on_time`: by not
    /// answering `genmove` in time).
    Forfeit {
        loser: Color,
        on_time: bool,
        why: String,
    },
    /// Both engines failed before the first move.
    BothFailed(String),
    /// The move cap was reached.
    MoveCap,
}

/// Who won.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Winner(Color),
    Draw,
    NoResult,
}

/// A played game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The game as far as it went: every move in it is legal.
    pub game: Game,
    pub ending: Ending,
    pub verdict: Verdict,
    /// The result as SGF `RE` writes it: `B+3.5`, `W+R`, `B+T`, `W+F`, `0`, `Void`.
    pub result: String,
    /// Remarks: where the dead stones came from, a referee that disagreed, …
    pub notes: Vec<String>,
}

/// Plays one game, from `opening`'s moves when given; never fails: every
/// engine failure becomes a result.
pub fn play_game(
    spec: &GameSpec,
    opening: Option<&Opening>,
    black: &mut Player,
    white: &mut Player,
    mut referee: Option<&mut Player>,
) -> GameRecord {
    let geometry = spec.geometry;
    let mut game = Game::new(geometry, spec.rules, spec.settings.komi);
    let mut notes = Vec::new();
    let timeout = spec.timeouts.command;
    let setup_black = black.new_game(&spec.settings, timeout);
    let setup_white = white.new_game(&spec.settings, timeout);
    match (setup_black, setup_white) {
        (Err(b), Err(w)) => {
            let why = format!("black: {b}; white: {w}");
            return finish(game, Ending::BothFailed(why));
        }
        (Err(e), _) => return finish(game, fault(format!("setup: {e}")).ending(Color::Black)),
        (_, Err(e)) => return finish(game, fault(format!("setup: {e}")).ending(Color::White)),
        _ => {}
    }
    if let Some(r) = referee.as_deref_mut() {
        let untimed = GameSettings {
            seconds_per_move: None,
            clock: None,
            ..spec.settings.clone()
        };
        if let Err(e) = r.new_game(&untimed, timeout) {
            notes.push(format!("referee unusable: {e}"));
            referee = None;
        }
    }
    if !spec.handicap.is_empty() {
        let stones: Vec<String> = spec
            .handicap
            .iter()
            .map(|&p| vertex::format_move(Move::Play(p), geometry))
            .collect();
        let command = format!("set_free_handicap {}", stones.join(" "));
        if let Err(e) = black.send(&command, timeout) {
            return finish(game, fault(format!("handicap: {e}")).ending(Color::Black));
        }
        if let Err(e) = white.send(&command, timeout) {
            return finish(game, fault(format!("handicap: {e}")).ending(Color::White));
        }
        tell_referee(&mut referee, &command, timeout, &mut notes);
        let setup: Vec<_> = spec
            .handicap
            .iter()
            .map(|&p| (p, Some(Color::Black)))
            .collect();
        game.setup(&setup, Some(Color::White));
    }
    let mut opening_failed = opening.and_then(|opening| {
        play_opening(
            opening,
            &mut game,
            black,
            white,
            &mut referee,
            timeout,
            &mut notes,
        )
    });

    let mut clock = spec.settings.clock.map(Clock::new);
    let ending = loop {
        if let Some(ending) = opening_failed.take() {
            break ending;
        }
        if game.move_number() >= spec.max_moves {
            break Ending::MoveCap;
        }
        let color = game.to_move();
        let (mover, other) = match color {
            Color::Black => (&mut *black, &mut *white),
            Color::White => (&mut *white, &mut *black),
        };
        let mv = match ask_move(spec, mover, color, geometry, clock.as_mut()) {
            Ok(Some(mv)) => mv,
            Ok(None) => break Ending::Resignation(color),
            Err(f) => break f.ending(color),
        };
        let text = vertex::format_move(mv, geometry);
        if let Err(illegal) = game.play(color, mv) {
            break fault(format!("illegal move {text}: {illegal}")).ending(color);
        }
        let play = format!("play {} {text}", letter(color));
        if let Err(e) = other.send(&play, timeout) {
            let why = format!("refused the legal move '{play}': {e}");
            break fault(why).ending(color.opp());
        }
        tell_referee(&mut referee, &play, timeout, &mut notes);
        if game.consecutive_passes() >= 2 {
            break Ending::TwoPasses;
        }
    };

    if let Some(c) = &clock {
        notes.push(clocks_at_the_end(c, &ending));
    }
    let mut record = match ending {
        Ending::TwoPasses => score_finished(spec, game, black, white, referee, &mut notes),
        other => finish(game, other),
    };
    record.notes = notes;
    record
}

/// The note of both clocks when a timed game ends (the player who lost on
/// time has a fallen flag).
fn clocks_at_the_end(c: &Clock, ending: &Ending) -> String {
    let flagged = match ending {
        Ending::Forfeit {
            loser,
            on_time: true,
            ..
        } => Some(*loser),
        _ => None,
    };
    let describe = |color: Color| {
        if flagged == Some(color) {
            "flag fallen".to_string()
        } else {
            describe_clock(c, color)
        }
    };
    format!(
        "clocks at the end: black {}, white {}",
        describe(Color::Black),
        describe(Color::White)
    )
}

/// A player's clock as the game line shows it: main time left, or the
/// byo-yomi periods left (how many a player lost is what a real clock match
/// needs to see). A move that never ended was never charged: the caller
/// says "flag fallen" for the player who lost on time.
fn describe_clock(clock: &Clock, color: Color) -> String {
    let r = clock.remaining(color);
    if r.count == 0 {
        format!("{:.1} s of main time", r.time)
    } else {
        format!("{} period(s)", r.count)
    }
}

/// Why an engine loses a game it did not finish.
struct Fault {
    on_time: bool,
    why: String,
}

/// A fault that is not about time.
fn fault(why: String) -> Fault {
    Fault {
        on_time: false,
        why,
    }
}

impl Fault {
    /// The ending when `loser` commits this fault.
    fn ending(self, loser: Color) -> Ending {
        Ending::Forfeit {
            loser,
            on_time: self.on_time,
            why: self.why,
        }
    }
}

/// Asks `mover` for a move: `Ok(None)` is a resignation. Under a game
/// `clock` the mover is told its time first (`time_left`, seconds rounded
/// down and the byo-yomi periods left, as KGS sends it), and loses on time
/// when the move takes longer than the clock allows plus the lag.
fn ask_move(
    spec: &GameSpec,
    mover: &mut Player,
    color: Color,
    geometry: Geometry,
    clock: Option<&mut Clock>,
) -> Result<Option<Move>, Fault> {
    let told = match (spec.settings.seconds_per_move, clock.as_deref()) {
        (Some(t), _) => Some(format!("{t} 1")),
        (None, Some(c)) => {
            let r = c.remaining(color);
            Some(format!("{} {}", r.time.floor(), r.count))
        }
        (None, None) => None,
    };
    if let Some(left) = told {
        if mover.supports("time_left") {
            let command = format!("time_left {} {left}", letter(color));
            match mover.send(&command, spec.timeouts.command) {
                Err(e) if e.is_fatal() => return Err(fault(e.to_string())),
                _ => {}
            }
        }
    }
    let limit = clock.as_deref().and_then(|c| c.flag_limit(color));
    let timeout = limit.map_or(spec.timeouts.genmove, |l| {
        spec.timeouts
            .genmove
            .min(Duration::from_secs_f64(l + spec.lag + 1.0))
    });
    let started = Instant::now();
    let answer = mover
        .send(&format!("genmove {}", letter(color)), timeout)
        .map_err(|e| Fault {
            on_time: matches!(e, GtpError::Timeout { .. }),
            why: e.to_string(),
        })?;
    let elapsed = started.elapsed();
    if let Some(c) = clock {
        if let Some(l) = limit.filter(|l| elapsed.as_secs_f64() > l + spec.lag) {
            return Err(Fault {
                on_time: true,
                why: format!(
                    "out of time: the move took {:.1} s, the clock allowed {l:.1} s",
                    elapsed.as_secs_f64()
                ),
            });
        }
        c.spend(color, elapsed);
    }
    if answer.eq_ignore_ascii_case("resign") {
        return Ok(None);
    }
    let shown: String = answer.chars().take(40).collect();
    vertex::parse_move(answer.trim(), geometry)
        .map(Some)
        .map_err(|_| fault(format!("unreadable move '{shown}'")))
}

/// Counts a game that ended by two passes. Dead stones: the referee's
/// `final_status_list dead` if there is a referee; else the engines' lists if
/// both give one and they agree; else none. The referee's `final_score`, when
/// it differs from ours, is noted.
fn score_finished(
    spec: &GameSpec,
    game: Game,
    black: &mut Player,
    white: &mut Player,
    referee: Option<&mut Player>,
    notes: &mut Vec<String>,
) -> GameRecord {
    let timeout = spec.timeouts.command;
    let geometry = game.board().geometry();
    let mut referee_score = None;
    let dead = match referee {
        Some(r) => {
            if r.supports("final_score") {
                referee_score = r.send("final_score", timeout).ok();
            }
            match dead_stones(r, geometry, timeout) {
                Some(d) => {
                    notes.push(format!("{} dead stones from the referee", d.len()));
                    d
                }
                None => {
                    notes.push("no dead stones removed (referee gave none)".into());
                    Vec::new()
                }
            }
        }
        None => {
            match (
                dead_stones(black, geometry, timeout),
                dead_stones(white, geometry, timeout),
            ) {
                (Some(b), Some(w)) if b == w => {
                    notes.push(format!("{} dead stones agreed by both engines", b.len()));
                    b
                }
                (Some(_), Some(_)) => {
                    notes.push("no dead stones removed (engines disagree)".into());
                    Vec::new()
                }
                _ => {
                    notes.push("no dead stones removed (not reported by both engines)".into());
                    Vec::new()
                }
            }
        }
    };
    let result = GameResult::of_game(&game, &dead);
    let text = result.to_string();
    if let Some(theirs) = referee_score {
        if !same_score(&theirs, result) {
            notes.push(format!("referee's final_score: {theirs}"));
        }
    }
    let verdict = match result.winner() {
        Some(c) => Verdict::Winner(c),
        None => Verdict::Draw,
    };
    GameRecord {
        game,
        ending: Ending::TwoPasses,
        verdict,
        result: text,
        notes: Vec::new(),
    }
}

/// The engine's `final_status_list dead` as sorted points holding stones;
/// `None` if it does not list the command, fails, or names a non-vertex.
fn dead_stones(
    player: &mut Player,
    g: Geometry,
    timeout: std::time::Duration,
) -> Option<Vec<Point>> {
    if !player.supports("final_status_list") {
        return None;
    }
    let answer = player.send("final_status_list dead", timeout).ok()?;
    let mut points = Vec::new();
    for token in answer.split_whitespace() {
        match vertex::parse_move(token, g).ok()? {
            Move::Play(p) => points.push(p),
            Move::Pass => return None,
        }
    }
    points.sort();
    points.dedup();
    Some(points)
}

/// Whether a `final_score` text (`B+3.5`, `W+2.0`, `0`) says the same as `ours`.
fn same_score(text: &str, ours: GameResult) -> bool {
    let t = text.trim().to_ascii_uppercase();
    let margin = if t == "0" {
        Some(0.0)
    } else if let Some(v) = t.strip_prefix("B+") {
        v.parse::<f64>().ok()
    } else if let Some(v) = t.strip_prefix("W+") {
        v.parse::<f64>().ok().map(|m| -m)
    } else {
        None
    };
    margin.is_some_and(|m| (m - ours.0).abs() < 1e-9)
}

/// Plays `opening`'s moves into `game` and tells both engines and the referee;
/// `None` when all went through, else how the game ended (an engine that
/// refuses a move forfeits).
fn play_opening(
    opening: &Opening,
    game: &mut Game,
    black: &mut Player,
    white: &mut Player,
    referee: &mut Option<&mut Player>,
    timeout: Duration,
    notes: &mut Vec<String>,
) -> Option<Ending> {
    notes.push(format!("opening {}", opening.name));
    let geometry = game.board().geometry();
    for &(color, mv) in &opening.moves {
        let text = vertex::format_move(mv, geometry);
        if let Err(illegal) = game.play(color, mv) {
            // Checked when the openings were read, under the same rules.
            return Some(Ending::BothFailed(format!(
                "opening move {text} illegal: {illegal}"
            )));
        }
        let play = format!("play {} {text}", letter(color));
        for (engine, side) in [(&mut *black, Color::Black), (&mut *white, Color::White)] {
            if let Err(e) = engine.send(&play, timeout) {
                let why = format!("refused the opening move '{play}': {e}");
                return Some(fault(why).ending(side));
            }
        }
        tell_referee(referee, &play, timeout, notes);
    }
    None
}

/// Sends `command` to the referee while it is usable; one that fails is
/// dropped, with a note.
fn tell_referee(
    referee: &mut Option<&mut Player>,
    command: &str,
    timeout: Duration,
    notes: &mut Vec<String>,
) {
    if let Some(r) = referee.as_deref_mut() {
        if let Err(e) = r.send(command, timeout) {
            notes.push(format!("referee unusable: {e}"));
            *referee = None;
        }
    }
}

/// The record of a game that ended without counting.
fn finish(game: Game, ending: Ending) -> GameRecord {
    let (verdict, result) = match &ending {
        Ending::Resignation(c) => (Verdict::Winner(c.opp()), format!("{}+R", c.opp().letter())),
        Ending::Forfeit { loser, on_time, .. } => {
            let kind = if *on_time { 'T' } else { 'F' };
            (
                Verdict::Winner(loser.opp()),
                format!("{}+{kind}", loser.opp().letter()),
            )
        }
        Ending::TwoPasses | Ending::BothFailed(_) | Ending::MoveCap => {
            (Verdict::NoResult, "Void".to_string())
        }
    };
    GameRecord {
        game,
        ending,
        verdict,
        result,
        notes: Vec::new(),
    }
}

/// GTP colour argument.
fn letter(color: Color) -> char {
    color.letter().to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_score_comparison() {
        assert!(same_score("B+3.0", GameResult(3.0)));
        assert!(same_score("w+0.5", GameResult(-0.5)));
        assert!(same_score("0", GameResult(0.0)));
        assert!(!same_score("B+3", GameResult(-3.0)));
        assert!(!same_score("W+R", GameResult(-3.0)));
        assert!(!same_score("", GameResult(0.0)));
    }

    fn empty() -> Game {
        Game::new(Geometry::new(5).unwrap(), Rules::default(), 0.5)
    }

    #[test]
    fn results_of_unscored_endings() {
        let r = finish(empty(), Ending::Resignation(Color::White));
        assert_eq!(
            (r.verdict, r.result.as_str()),
            (Verdict::Winner(Color::Black), "B+R")
        );
        let why = "no response".to_string();
        let ending = Ending::Forfeit {
            loser: Color::Black,
            on_time: true,
            why,
        };
        let r = finish(empty(), ending);
        assert_eq!(
            (r.verdict, r.result.as_str()),
            (Verdict::Winner(Color::White), "W+T")
        );
        let why = "illegal move A1: point occupied".to_string();
        let ending = Ending::Forfeit {
            loser: Color::White,
            on_time: false,
            why,
        };
        let r = finish(empty(), ending);
        assert_eq!(r.result, "B+F");
        let r = finish(empty(), Ending::MoveCap);
        assert_eq!((r.verdict, r.result.as_str()), (Verdict::NoResult, "Void"));
    }
}
