//! Ownership: who ends up owning each point, averaged over playouts, and what
//! follows from it: the dead stones, and the score of the board as it stands
//! with those stones removed.
//!
//! A point at the end of a playout belongs to the colour of its stone, or, if
//! empty, to the only colour next to it (the Tromp-Taylor count of
//! [`crate::go::score::area_margin_fast`], which playouts reach once only eyes are
//! left).

use crate::go::board::{Board, Color, Point, CELLS};
use crate::go::rules::Scoring;
use crate::go::score::{count, playout_owner};

/// A chain is dead when its mean ownership, seen from its own colour, is below this.
pub const DEAD_BELOW: f64 = -0.4;

/// A point nobody owns has its mean ownership within this of 0 (see
/// [`OwnershipMap::seki_stones`]).
pub const SEKI_WITHIN: f64 = 0.35;

/// Ownership sums over playouts (Black = +1 per playout) or network
/// evaluations (Black's expected ownership, -1..=1, per evaluation).
#[derive(Clone, Debug)]
pub struct OwnershipMap {
    sums: Vec<f64>,
    /// Sums of the squared owners, for the spread.
    squares: Vec<f64>,
    playouts: u32,
}

impl Default for OwnershipMap {
    fn default() -> Self {
        OwnershipMap {
            sums: vec![0.0; CELLS],
            squares: vec![0.0; CELLS],
            playouts: 0,
        }
    }
}

impl OwnershipMap {
    pub fn clear(&mut self) {
        self.sums.fill(0.0);
        self.squares.fill(0.0);
        self.playouts = 0;
    }

    /// Number of playouts added.
    pub fn playouts(&self) -> u32 {
        self.playouts
    }

    /// Adds the final position of a playout; returns its Tromp-Taylor margin
    /// for Black (before komi).
    pub fn add(&mut self, board: &Board) -> i32 {
        let mut margin = 0;
        for p in board.geometry().points() {
            let owner = playout_owner(board, p);
            self.sums[p.index()] += owner as f64;
            self.squares[p.index()] += (owner * owner) as f64;
            margin += owner;
        }
        self.playouts += 1;
        margin
    }

    /// Adds one evaluation's expected ownership for Black, by point index.
    pub fn add_black(&mut self, board: &Board, black: &[f32]) {
        for p in board.geometry().points() {
            let owner = black[p.index()].clamp(-1.0, 1.0) as f64;
            self.sums[p.index()] += owner;
            self.squares[p.index()] += owner * owner;
        }
        self.playouts += 1;
    }

    /// Adds another map's counts.
    pub fn merge(&mut self, other: &OwnershipMap) {
        for (a, b) in self.sums.iter_mut().zip(&other.sums) {
            *a += b;
        }
        for (a, b) in self.squares.iter_mut().zip(&other.squares) {
            *a += b;
        }
        self.playouts += other.playouts;
    }

    /// Mean owner of `p` for Black, -1..=1 (0 with no playouts).
    pub fn black(&self, p: Point) -> f64 {
        if self.playouts == 0 {
            0.0
        } else {
            self.sums[p.index()] / self.playouts as f64
        }
    }

    /// The standard deviation of every point's owner over what was added
    /// (KataGo's `ownershipStdev`), row by row from the top-left.
    pub fn stdev(&self, board: &Board) -> Vec<f64> {
        let n = f64::from(self.playouts.max(1));
        board
            .geometry()
            .points()
            .map(|p| {
                let mean = self.sums[p.index()] / n;
                (self.squares[p.index()] / n - mean * mean).max(0.0).sqrt()
            })
            .collect()
    }

    /// Mean owner of every point for `color`, row by row from the top-left.
    pub fn for_color(&self, board: &Board, color: Color) -> Vec<f64> {
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        board
            .geometry()
            .points()
            .map(|p| sign * self.black(p))
            .collect()
    }

    /// The stones of chains whose mean ownership favours the opponent (below
    /// [`DEAD_BELOW`] from the chain's point of view).
    pub fn dead_stones(&self, board: &Board) -> Vec<Point> {
        let own = self.chain_means(board);
        stones_where(board, |p| own[p.index()] < DEAD_BELOW)
    }

    /// The stones in seki by this map: those of chains around an empty
    /// point nobody owns (mean ownership within [`SEKI_WITHIN`] of 0) that
    /// both colours' stones touch and where either colour's stone would be
    /// in atari at once: a shared liberty neither side can fill. (Under area
    /// scoring a seki's stones count for their own colour, so the chains
    /// themselves look owned; their shared liberty does not.) Dead chains
    /// are for the caller to leave out.
    pub fn seki_stones(&self, board: &Board) -> Vec<Point> {
        let mut seki = [false; CELLS];
        for p in board.geometry().points() {
            if board.at(p).color().is_some() || self.black(p).abs() >= SEKI_WITHIN {
                continue;
            }
            let touches = |c: Color| {
                p.neighbors()
                    .iter()
                    .any(|&n| board.at(n).color() == Some(c))
            };
            let fills_badly = |c: Color| board.liberties_after(p, c, 2) < 2;
            if [Color::Black, Color::White]
                .iter()
                .all(|&c| touches(c) && fills_badly(c))
            {
                for n in p.neighbors() {
                    if board.at(n).color().is_some() {
                        for s in board.chain_stones(n) {
                            seki[s.index()] = true;
                        }
                    }
                }
            }
        }
        stones_where(board, |p| seki[p.index()])
    }

    /// Whether some chain is in doubt by this map: leaning to the opponent
    /// (mean below 0) without being dead. Only such chains take the second
    /// opinion of [`dead_stones_checked`](Self::dead_stones_checked); without
    /// one it gives [`dead_stones`](Self::dead_stones).
    pub fn leaves_chains_in_doubt(&self, board: &Board) -> bool {
        let own = self.chain_means(board);
        board.geometry().points().any(|p| {
            let mean = own[p.index()];
            board.at(p).color().is_some() && (DEAD_BELOW..0.0).contains(&mean)
        })
    }

    /// Dead stones by this map, with `searched` as a second opinion on the
    /// chains this map leaves in doubt: a chain is dead when this map says
    /// so, or when it leans to the opponent here (mean below 0) and
    /// `searched` says it is dead. Settling playouts (this map) keep sekis
    /// and races that nobody should start, but their random moves rarely
    /// kill an invader in a wide-open area; a search, whose tree plays the
    /// killing moves, sees those.
    pub fn dead_stones_checked(&self, board: &Board, searched: &OwnershipMap) -> Vec<Point> {
        let (own, second) = (self.chain_means(board), searched.chain_means(board));
        stones_where(board, |p| {
            let (own, second) = (own[p.index()], second[p.index()]);
            own < DEAD_BELOW || (own < 0.0 && second < DEAD_BELOW)
        })
    }

    /// Every stone's chain mean ownership, from the chain's own colour's
    /// point of view (0 for empty points and without playouts).
    fn chain_means(&self, board: &Board) -> Vec<f64> {
        let mut means = vec![0.0; CELLS];
        if self.playouts == 0 {
            return means;
        }
        let mut seen = [false; CELLS];
        for p in board.geometry().points() {
            let Some(c) = board.at(p).color() else {
                continue;
            };
            if seen[p.index()] {
                continue;
            }
            let sign = if c == Color::Black { 1.0 } else { -1.0 };
            let (mut sum, mut n) = (0.0, 0usize);
            for s in board.chain_stones(p) {
                seen[s.index()] = true;
                sum += sign * self.black(s);
                n += 1;
            }
            for s in board.chain_stones(p) {
                means[s.index()] = sum / n as f64;
            }
        }
        means
    }

    /// Black's margin after komi if the game ended now with the dead stones
    /// (by this map) removed.
    pub fn settled_margin(&self, board: &Board, scoring: Scoring, komi: f64) -> f64 {
        count(board, &self.dead_stones(board)).0.margin(scoring) - komi
    }
}

/// The stones of `board`, in point order, for which `dead` holds.
fn stones_where(board: &Board, dead: impl Fn(Point) -> bool) -> Vec<Point> {
    board
        .geometry()
        .points()
        .filter(|&p| board.at(p).color().is_some() && dead(p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Geometry;
    use crate::search::classical::playout::{playout, PlayoutRng, Policy};

    #[test]
    fn a_lone_stone_in_a_framework_is_dead_and_walls_are_alive() {
        // Black walls off the left (column 2), White the right (column 4);
        // column 3 is neutral; a white stone sits inside Black's side.
        let g = Geometry::new(7).unwrap();
        let mut b = Board::new(g);
        for y in 0..7 {
            b.set_stone(g.point(2, y).unwrap(), Some(Color::Black));
            b.set_stone(g.point(4, y).unwrap(), Some(Color::White));
        }
        let intruder = g.point(0, 3).unwrap();
        b.set_stone(intruder, Some(Color::White));
        let mut map = OwnershipMap::default();
        let mut rng = PlayoutRng::new(1);
        for _ in 0..300 {
            let mut x = b.clone();
            playout(&mut x, Color::Black, None, Policy::Light, &mut rng, 150);
            map.add(&x);
        }
        assert_eq!(map.dead_stones(&b), vec![intruder]);
        assert!(map.black(g.point(0, 0).unwrap()) > 0.6);
        assert!(map.black(g.point(6, 6).unwrap()) < -0.6);
        // 21 points each once the intruder is removed; column 3 is dame.
        assert_eq!(map.settled_margin(&b, Scoring::Area, 0.5), -0.5);
        assert_eq!(
            count(&b, &[]).0.margin(Scoring::Area),
            -15.0,
            "counted as alive, the intruder spoils Black's side"
        );
        let own = map.for_color(&b, Color::White);
        assert_eq!(own.len(), 49);
        assert!(own[48] > 0.6);
    }

    /// A map whose every playout ends with `owner` (Black +1, White -1) at
    /// `p`, in `hits` of `playouts`, and unowned elsewhere.
    fn map_with(p: Point, owner: i32, hits: i32, playouts: u32) -> OwnershipMap {
        let mut map = OwnershipMap::default();
        map.sums[p.index()] = (owner * hits) as f64;
        map.playouts = playouts;
        map
    }

    #[test]
    fn the_search_decides_only_the_chains_settling_leaves_in_doubt() {
        let g = Geometry::new(5).unwrap();
        let mut b = Board::new(g);
        let stone = g.point(1, 1).unwrap();
        b.set_stone(stone, Some(Color::White));
        let searched_dead = map_with(stone, 1, 90, 100);
        // Settling leans to Black (mean -0.2 for White): the search decides.
        let leaning = map_with(stone, 1, 20, 100);
        assert!(leaning.leaves_chains_in_doubt(&b));
        assert_eq!(leaning.dead_stones(&b), vec![]);
        assert_eq!(leaning.dead_stones_checked(&b, &searched_dead), vec![stone]);
        assert_eq!(
            leaning.dead_stones_checked(&b, &map_with(stone, 1, 30, 100)),
            vec![],
            "a search in doubt too leaves the stone alive"
        );
        // Settling keeps it White's (a seki, say): the search cannot kill it.
        let alive = map_with(stone, -1, 10, 100);
        assert!(!alive.leaves_chains_in_doubt(&b));
        assert_eq!(alive.dead_stones_checked(&b, &searched_dead), vec![]);
        // Settling kills it: no second opinion needed.
        let dead = map_with(stone, 1, 60, 100);
        assert!(!dead.leaves_chains_in_doubt(&b));
        assert_eq!(
            dead.dead_stones_checked(&b, &OwnershipMap::default()),
            vec![stone]
        );
    }
}
