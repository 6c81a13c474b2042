//! The match runner's output: one line per game, and the summary (wins per
//! engine, engine A's win rate with its 95% Wilson interval, total time).

use super::game_loop::{Ending, GameRecord, Verdict};
use super::stats::{wilson, Z95};
use crate::go::board::Color;
use std::time::Duration;

/// `game 3: A white, B black: W+4.5, A wins, 57 moves, two passes (notes)`.
pub fn game_line(number: u32, a_color: Color, record: &GameRecord) -> String {
    let winner = match record.verdict {
        Verdict::Winner(c) if c == a_color => "A wins".to_string(),
        Verdict::Winner(_) => "B wins".to_string(),
        Verdict::Draw => "draw".to_string(),
        Verdict::NoResult => "no result".to_string(),
    };
    let side = |c: Color| if c == a_color { "A" } else { "B" };
    let reason = match &record.ending {
        Ending::TwoPasses => "two passes".to_string(),
        Ending::Resignation(c) => format!("{} resigned", side(*c)),
        Ending::Forfeit { loser, why, .. } => format!("{} forfeits: {why}", side(*loser)),
        Ending::BothFailed(why) => format!("both engines failed: {why}"),
        Ending::MoveCap => "move cap reached".to_string(),
    };
    let mut line = format!(
        "game {number}: A {}, B {}: {}, {winner}, {} moves, {reason}",
        a_color,
        a_color.opp(),
        record.result,
        record.game.turns().len()
    );
    if !record.notes.is_empty() {
        line.push_str(&format!(" ({})", record.notes.join("; ")));
    }
    line
}

/// Running totals over a match.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Wins of A and B.
    pub wins: [u32; 2],
    /// A's score as Black in half points (a win 2, a draw 1) and games as
    /// Black, then the same as White.
    pub a_by_color: [(u32, u32); 2],
    pub draws: u32,
    pub no_result: u32,
}

impl Tally {
    /// Counts one game in which engine A played `a_color`.
    pub fn add(&mut self, record: &GameRecord, a_color: Color) {
        let by_color = &mut self.a_by_color[a_color.index()];
        match record.verdict {
            Verdict::Winner(c) => {
                by_color.1 += 1;
                if c == a_color {
                    self.wins[0] += 1;
                    by_color.0 += 2;
                } else {
                    self.wins[1] += 1;
                }
            }
            Verdict::Draw => {
                by_color.0 += 1;
                by_color.1 += 1;
                self.draws += 1;
            }
            Verdict::NoResult => self.no_result += 1,
        }
    }

    /// Games with a result.
    pub fn decided(&self) -> u32 {
        self.wins[0] + self.wins[1] + self.draws
    }

    /// A's score: wins plus half the draws.
    pub fn a_score(&self) -> f64 {
        f64::from(self.wins[0]) + 0.5 * f64::from(self.draws)
    }

    /// The summary lines.
    pub fn summary_lines(&self, elapsed: Duration) -> Vec<String> {
        let mut lines = vec![format!(
            "wins: A {}, B {}, draws {}, no result {}",
            self.wins[0], self.wins[1], self.draws, self.no_result
        )];
        let n = self.decided();
        lines.push(match wilson(self.a_score(), n, Z95) {
            Some((lo, hi)) => format!(
                "A win rate {:.1}% over {n} games, 95% interval [{:.1}%, {:.1}%] (draws count half); as black {}/{}, as white {}/{}",
                100.0 * self.a_score() / f64::from(n),
                100.0 * lo,
                100.0 * hi,
                half_points(self.a_by_color[0].0),
                self.a_by_color[0].1,
                half_points(self.a_by_color[1].0),
                self.a_by_color[1].1,
            ),
            None => "A win rate: no game with a result".to_string(),
        });
        lines.push(format!("total time {:.1} s", elapsed.as_secs_f64()));
        lines
    }
}

/// `7` or `7.5` for 14 or 15 half points.
fn half_points(half: u32) -> String {
    if half.is_multiple_of(2) {
        (half / 2).to_string()
    } else {
        format!("{}.5", half / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(verdict: Verdict, ending: Ending) -> GameRecord {
        let g = crate::go::board::Geometry::new(5).unwrap();
        GameRecord {
            game: crate::go::game::Game::new(g, crate::go::rules::Rules::default(), 0.5),
            ending,
            verdict,
            result: String::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn tally_counts_by_engine_not_colour() {
        let mut t = Tally::default();
        // A black wins; A white loses (Black wins); A white draws; a void game.
        t.add(
            &record(Verdict::Winner(Color::Black), Ending::TwoPasses),
            Color::Black,
        );
        t.add(
            &record(Verdict::Winner(Color::Black), Ending::TwoPasses),
            Color::White,
        );
        t.add(&record(Verdict::Draw, Ending::TwoPasses), Color::White);
        t.add(&record(Verdict::NoResult, Ending::MoveCap), Color::Black);
        assert_eq!(t.wins, [1, 1]);
        assert_eq!((t.draws, t.no_result, t.decided()), (1, 1, 3));
        assert_eq!(t.a_score(), 1.5);
        assert_eq!(t.a_by_color, [(2, 1), (1, 2)]);
        let lines = t.summary_lines(Duration::from_secs(2));
        assert!(
            lines[1].starts_with("A win rate 50.0% over 3 games"),
            "{}",
            lines[1]
        );
        assert!(
            lines[1].ends_with("as black 1/1, as white 0.5/2"),
            "{}",
            lines[1]
        );
    }

    #[test]
    fn game_line_names_the_engines() {
        let mut r = record(
            Verdict::Winner(Color::White),
            Ending::Resignation(Color::Black),
        );
        r.result = "W+R".into();
        let line = game_line(2, Color::White, &r);
        assert_eq!(
            line,
            "game 2: A white, B black: W+R, A wins, 0 moves, B resigned"
        );
    }
}
