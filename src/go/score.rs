//! Counting a finished position: area and territory scoring, given the set of
//! dead stones (which the caller decides: GTP's `final_status_list`, the search's
//! ownership, or an SGF record), and the result text (`B+3.5`, `W+12`, `0`).
//! A game's result adds White's handicap bonus to komi
//! ([`GameResult::of_game`]).

use crate::go::board::{Board, Color, Point, Stone, CELLS};
use crate::go::game::Game;
use crate::go::rules::Scoring;
use std::fmt;

/// Points of each side before komi, and how they were made.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Count {
    /// Living stones on the board (area scoring counts them).
    pub stones: [u32; 2],
    /// Empty points (plus points of dead stones) surrounded by one colour only.
    pub territory: [u32; 2],
    /// Prisoners held: captures during the game plus dead stones taken off at the end.
    pub prisoners: [u32; 2],
}

/// Owner of each point after counting: a colour, or `None` for neutral (dame,
/// seki) points.
pub type Ownership = Vec<(Point, Option<Color>)>;

/// Counts `board` with the stones on `dead` points removed. Returns the count
/// and who owns each on-board point.
pub fn count(board: &Board, dead: &[Point]) -> (Count, Ownership) {
    let geo = board.geometry();
    let mut is_dead = [false; CELLS];
    for &p in dead {
        if board.at(p).color().is_some() {
            is_dead[p.index()] = true;
        }
    }
    let mut result = Count::default();
    for c in Color::BOTH {
        result.prisoners[c.index()] = board.captures(c);
    }
    // The colour a point counts as once dead stones are lifted.
    let alive = |p: Point| -> Option<Color> {
        if is_dead[p.index()] {
            None
        } else {
            board.at(p).color()
        }
    };
    let mut owner: [Option<Option<Color>>; CELLS] = [None; CELLS];
    let mut stack = Vec::new();
    let mut region = Vec::new();
    for p in geo.points() {
        if owner[p.index()].is_some() {
            continue;
        }
        if let Some(c) = alive(p) {
            result.stones[c.index()] += 1;
            owner[p.index()] = Some(Some(c));
            continue;
        }
        // Flood an empty-or-dead region, noting which live colours border it.
        let mut borders = [false; 2];
        region.clear();
        stack.push(p);
        owner[p.index()] = Some(None);
        while let Some(q) = stack.pop() {
            region.push(q);
            for n in q.neighbors() {
                if !geo.contains(n) {
                    continue;
                }
                match alive(n) {
                    Some(c) => borders[c.index()] = true,
                    None if owner[n.index()].is_none() => {
                        owner[n.index()] = Some(None);
                        stack.push(n);
                    }
                    None => {}
                }
            }
        }
        let holder = match borders {
            [true, false] => Some(Color::Black),
            [false, true] => Some(Color::White),
            _ => None,
        };
        for &q in &region {
            owner[q.index()] = Some(holder);
            if let Some(h) = holder {
                result.territory[h.index()] += 1;
            }
            if is_dead[q.index()] {
                if let Some(c) = board.at(q).color() {
                    result.prisoners[c.opp().index()] += 1;
                }
            }
        }
    }
    let ownership = geo
        .points()
        .map(|p| (p, owner[p.index()].flatten()))
        .collect();
    (result, ownership)
}

impl Count {
    /// Black's points minus White's, before komi.
    pub fn margin(&self, scoring: Scoring) -> f64 {
        let side = |c: usize| match scoring {
            Scoring::Area => self.stones[c] + self.territory[c],
            Scoring::Territory => self.territory[c] + self.prisoners[c],
        } as f64;
        side(0) - side(1)
    }
}

/// A game result: Black's margin after komi.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameResult(pub f64);

impl GameResult {
    /// Scores `board` with `dead` stones removed under `scoring` and `komi`.
    pub fn of(board: &Board, dead: &[Point], scoring: Scoring, komi: f64) -> GameResult {
        GameResult(count(board, dead).0.margin(scoring) - komi)
    }

    /// Scores `game`'s position with `dead` stones removed, as its rules say:
    /// their scoring, and komi plus White's handicap bonus
    /// ([`Game::effective_komi`]).
    pub fn of_game(game: &Game, dead: &[Point]) -> GameResult {
        GameResult::of(
            game.board(),
            dead,
            game.rules().scoring,
            game.effective_komi(),
        )
    }

    /// The winner, `None` for a draw.
    pub fn winner(self) -> Option<Color> {
        if self.0 > 0.0 {
            Some(Color::Black)
        } else if self.0 < 0.0 {
            Some(Color::White)
        } else {
            None
        }
    }
}

impl fmt::Display for GameResult {
    /// `B+3.5`, `W+12`, or `0` for a draw, as GTP `final_score` and SGF `RE` write it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner() {
            None => f.write_str("0"),
            Some(c) => write!(f, "{}+{}", c.letter(), self.0.abs()),
        }
    }
}

/// Stone counts for a quick playout result (every empty point goes to the colour
/// that surrounds it alone): the Tromp-Taylor count of a position where all dead
/// stones have been captured. Black minus White, before komi.
pub fn area_margin_fast(board: &Board) -> i32 {
    board
        .geometry()
        .points()
        .map(|p| playout_owner(board, p))
        .sum()
}

/// Who a point belongs to at the end of a playout, where only eyes and seki
/// points are left empty: +1 Black, -1 White, 0 neither (a stone counts for
/// its colour, an empty point for the one colour next to it).
#[inline]
pub fn playout_owner(board: &Board, p: Point) -> i32 {
    match board.at(p) {
        Stone::Black => 1,
        Stone::White => -1,
        _ => {
            let b = board.neighbor_count(p, Stone::Black);
            let w = board.neighbor_count(p, Stone::White);
            (b > 0 && w == 0) as i32 - (w > 0 && b == 0) as i32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board_from(rows: &[&str]) -> Board {
        Board::from_diagram(rows).expect("diagram")
    }

    #[test]
    fn area_and_territory_with_dead_stones() {
        let b = board_from(&[
            ".X.O.", //
            "XX.OO", //
            "..XO.", //
            "XXXO.", //
            ".X.O.", //
        ]);
        let (counted, own) = count(&b, &[]);
        // Black territory: A5, the A3-B3 region, A1; White: E5 and E1-E3.
        // C5-C4 touch both colours, and so does C1: three dame.
        assert_eq!(counted.stones, [8, 6]);
        assert_eq!(counted.territory, [4, 4]);
        assert_eq!(counted.margin(Scoring::Area), 2.0);
        assert_eq!(own.iter().filter(|(_, o)| o.is_none()).count(), 3);
        assert_eq!(GameResult(2.0 - 5.0).to_string(), "W+3");
        assert_eq!(GameResult(0.5).to_string(), "B+0.5");
        assert_eq!(GameResult(0.0).to_string(), "0");

        // A dead white stone inside Black's area counts as territory and a prisoner.
        let b = board_from(&["X..", ".O.", "..X"]);
        let g = b.geometry();
        let dead = [g.point(1, 1).unwrap()];
        let (c, _) = count(&b, &dead);
        assert_eq!(c.stones, [2, 0]);
        assert_eq!(c.territory, [7, 0]);
        assert_eq!(c.prisoners, [1, 0]);
        assert_eq!(c.margin(Scoring::Territory), 8.0);
        assert_eq!(
            area_margin_fast(&b),
            2 - 1,
            "fast count ignores dead stones"
        );
    }
}
