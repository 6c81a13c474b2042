//! A small tactical reader: can the chain through a target stone be captured,
//! or can it escape? Reads ladders, nets and simple capture races of chains with
//! at most three liberties by alpha-beta search.
//!
//! - Values are from the side to move's point of view: +1 it wins (the attacker
//!   captures / the defender escapes), -1 it loses, 0 unknown (depth or node
//!   budget exhausted). Alpha-beta on these three values makes the bounds of a
//!   cut-off meaningful.
//! - The reader has its own transposition table: a 64-bit key (position key,
//!   side to move, simple-ko point, target), a check of the full key in the
//!   entry, remaining depth, bound (exact / lower / upper), value and best move.
//!   Replacement prefers the deeper result. The table persists across calls
//!   (positions recur between neighbouring reads) and is cleared by `clear`.
//! - Move ordering: the table's move first, then the two killer moves of the
//!   ply, then the rest in generation order.
//! - Inside the reading the simple-ko rule applies and suicide is forbidden;
//!   the board is copied at each node (it is plain data), so nothing is undone.
//!
//! A target with four or more liberties counts as escaped, as does one with
//! three when the defender is to move or anywhere below the root.

use crate::go::board::zobrist::{ko_key, to_move_key};
use crate::go::board::{Board, Color, Point, Stone};
use smallvec::SmallVec;

/// How deep a read may go, in plies (ladders across the board need ~60).
pub const DEFAULT_DEPTH: u8 = 80;
/// Node budget of one read.
pub const DEFAULT_NODES: u32 = 4_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    depth: u8,
    bound: Bound,
    value: i8,
    best: u16,
}

const EMPTY_ENTRY: Entry = Entry {
    key: 0,
    depth: 0,
    bound: Bound::Exact,
    value: 0,
    best: 0,
};

/// The answer of a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The side to move wins the fight; with the move that does it (`None` if
    /// it wins without moving, e.g. the target already has enough liberties).
    Wins(Option<Point>),
    /// The side to move loses whatever it does.
    Loses,
    /// The budget ran out first.
    Unknown,
}

/// See the module documentation.
pub struct Reader {
    table: Vec<Entry>,
    killers: Vec<[u16; 2]>,
    nodes: u32,
    node_limit: u32,
    max_depth: u8,
}

type Moves = SmallVec<[Point; 8]>;

impl Reader {
    /// A reader with a table of `2^bits` entries.
    pub fn new(bits: u32) -> Reader {
        Reader {
            table: vec![EMPTY_ENTRY; 1 << bits],
            killers: vec![[0; 2]; DEFAULT_DEPTH as usize + 1],
            nodes: 0,
            node_limit: DEFAULT_NODES,
            max_depth: DEFAULT_DEPTH,
        }
    }

    /// Changes the per-read budget.
    pub fn set_limits(&mut self, max_depth: u8, node_limit: u32) {
        self.max_depth = max_depth;
        self.node_limit = node_limit;
        self.killers = vec![[0; 2]; max_depth as usize + 1];
    }

    /// Forgets everything read so far.
    pub fn clear(&mut self) {
        self.table.fill(EMPTY_ENTRY);
    }

    /// Nodes visited by the last read.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Reads the fight for the chain through the stone `target` with `to_move`
    /// to play (either side). `Wins(Some(p))`: `p` captures (attacker) or saves
    /// (defender).
    pub fn read(&mut self, board: &Board, target: Point, to_move: Color) -> Status {
        self.nodes = 0;
        for k in &mut self.killers {
            *k = [0; 2];
        }
        if board.at(target).color().is_none() {
            return Status::Unknown;
        }
        let (value, best) = self.search(board, target, to_move, self.max_depth, 0, -1, 1);
        match value {
            1 => Status::Wins(best),
            -1 => Status::Loses,
            _ => Status::Unknown,
        }
    }

    /// Whether the chain through `target` is lost if its owner's opponent moves
    /// first (a ladder or net that works); the capturing move if so.
    pub fn capture_move(&mut self, board: &Board, target: Point) -> Option<Point> {
        let owner = board.at(target).color()?;
        match self.read(board, target, owner.opp()) {
            Status::Wins(mv) => mv,
            _ => None,
        }
    }

    /// Whether the owner of `target`, moving first, can save it; the saving move
    /// if one is needed and found.
    pub fn saves(&mut self, board: &Board, target: Point) -> Option<Option<Point>> {
        let owner = board.at(target).color()?;
        match self.read(board, target, owner) {
            Status::Wins(mv) => Some(mv),
            _ => None,
        }
    }

    fn key(board: &Board, target: Point, to_move: Color) -> u64 {
        let ko = board.ko().map_or(0, |(p, _)| ko_key(p));
        // The target enters rotated so it cannot cancel the ko key of the same point.
        board.hash() ^ to_move_key(to_move) ^ ko ^ ko_key(target).rotate_left(29)
    }

    /// Negamax alpha-beta. Returns the value for `to_move` and its best move.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        board: &Board,
        target: Point,
        to_move: Color,
        depth: u8,
        ply: usize,
        mut alpha: i8,
        beta: i8,
    ) -> (i8, Option<Point>) {
        self.nodes += 1;
        let defender = board
            .at(target)
            .color()
            .expect("target stands while reading");
        let attacking = to_move != defender;
        let libs = board.liberties(target);
        if attacking && libs == 1 {
            if let Some(lib) = board.last_liberty(target) {
                if board.is_legal_simple(lib, to_move) {
                    return (1, Some(lib));
                }
            }
        }
        // Inside a read, a defender that reaches three liberties has escaped;
        // only the root may start from three with the attacker to move.
        if libs >= 4 || (libs >= 3 && (!attacking || ply > 0)) {
            return (if attacking { -1 } else { 1 }, None);
        }
        if depth == 0 || self.nodes >= self.node_limit {
            return (0, None);
        }

        let key = Self::key(board, target, to_move);
        let slot = (key as usize) & (self.table.len() - 1);
        let entry = self.table[slot];
        let mut tt_move = None;
        if entry.key == key {
            tt_move = (entry.best != 0).then(|| Point::from_index(entry.best as usize));
            if entry.depth >= depth {
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => entry.value >= beta,
                    Bound::Upper => entry.value <= alpha,
                };
                if cut {
                    return (entry.value, tt_move);
                }
            }
        }

        let mut moves = self.ordered_moves(board, target, tt_move, ply);
        if attacking && tt_move.is_none() {
            // Atari from the side that leaves the defender's escape the fewest liberties.
            moves.sort_by_key(|&mv| escape_liberties(board, target, mv));
        }
        let alpha_in = alpha;
        let mut best_value = -1;
        let mut best_move = None;
        for mv in moves {
            if !board.is_legal_simple(mv, to_move) {
                continue;
            }
            let mut child = board.clone();
            child.play(mv, to_move);
            let value = if child.at(target) != defender.stone() {
                // The target was captured (or, for the defender, suicided).
                if attacking {
                    1
                } else {
                    -1
                }
            } else {
                -self
                    .search(
                        &child,
                        target,
                        to_move.opp(),
                        depth - 1,
                        ply + 1,
                        -beta,
                        -alpha,
                    )
                    .0
            };
            if best_move.is_none() || value > best_value {
                best_value = value;
                best_move = Some(mv);
            }
            if value > alpha {
                alpha = value;
            }
            if alpha >= beta {
                let last = self.killers.len() - 1;
                let k = &mut self.killers[ply.min(last)];
                if k[0] != mv.index() as u16 {
                    k[1] = k[0];
                    k[0] = mv.index() as u16;
                }
                break;
            }
        }

        let bound = if best_value <= alpha_in {
            Bound::Upper
        } else if best_value >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let old = &mut self.table[slot];
        if old.key != key || depth >= old.depth {
            *old = Entry {
                key,
                depth,
                bound,
                value: best_value,
                best: best_move.map_or(0, |p| p.index() as u16),
            };
        }
        (best_value, best_move)
    }

    /// Candidate moves, best guesses first: the table move, the killers, then
    /// the target's liberties and the liberties of chains next to it in atari.
    fn ordered_moves(
        &self,
        board: &Board,
        target: Point,
        tt_move: Option<Point>,
        ply: usize,
    ) -> Moves {
        let mut generated = Moves::new();
        let add = |moves: &mut Moves, p: Point| {
            if board.at(p) == Stone::Empty && !moves.contains(&p) {
                moves.push(p);
            }
        };
        for lib in board.liberty_points(target, 3) {
            add(&mut generated, lib);
        }
        // Chains of the other side next to the target that are in atari: the
        // defender captures them to gain liberties; the attacker saves them.
        let defender = board.at(target);
        for s in board.chain_stones(target) {
            for n in s.neighbors() {
                let c = board.at(n);
                if c != defender && c.color().is_some() {
                    if let Some(lib) = board.last_liberty(n) {
                        add(&mut generated, lib);
                    }
                }
            }
        }
        let mut ordered = Moves::new();
        if let Some(t) = tt_move {
            if generated.contains(&t) {
                ordered.push(t);
            }
        }
        for &k in &self.killers[ply.min(self.killers.len() - 1)] {
            let p = Point::from_index(k as usize);
            if k != 0 && generated.contains(&p) && !ordered.contains(&p) {
                ordered.push(p);
            }
        }
        for p in generated {
            if !ordered.contains(&p) {
                ordered.push(p);
            }
        }
        ordered
    }
}

/// If the attacker plays `mv` next to the target, how many liberties the
/// defender gets by extending at one of the remaining liberties (the best of
/// them); 0 if none remains. Used to order attacks.
fn escape_liberties(board: &Board, target: Point, mv: Point) -> usize {
    let Some(defender) = board.at(target).color() else {
        return 0;
    };
    board
        .liberty_points(target, 3)
        .into_iter()
        .filter(|&l| l != mv)
        .map(|l| board.liberties_after(l, defender, 4))
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Geometry;

    /// Black C7 (x=2, y=2) in atari from White C8, D8, B7 and C6, running
    /// down-right on a 9x9 board: a ladder, unless a black stone stands on its
    /// path.
    fn ladder(breaker: Option<(usize, usize)>) -> (Board, Point) {
        let g = Geometry::new(9).unwrap();
        let mut b = Board::new(g);
        let p = |x, y| g.point(x, y).unwrap();
        b.set_stone(p(2, 2), Some(Color::Black));
        for (x, y) in [(2, 1), (3, 1), (1, 2), (2, 3)] {
            b.set_stone(p(x, y), Some(Color::White));
        }
        if let Some((x, y)) = breaker {
            b.set_stone(p(x, y), Some(Color::Black));
        }
        (b, p(2, 2))
    }

    #[test]
    fn ladders_on_rectangles_meet_their_own_edges() {
        // The ladder of `ladder` on rectangles: it works on an empty board of
        // either orientation; a black breaker at (6, 6) saves it on a board 9
        // wide and 25 high; on a board only 5 high the ladder runs into the
        // bottom edge and works (a white stone on its path changes nothing).
        for (w, h, extra, works) in [
            (9, 25, None, true),
            (25, 9, None, true),
            (9, 25, Some(((6, 6), Color::Black)), false),
            (25, 5, Some(((6, 4), Color::White)), true),
        ] {
            let g = Geometry::rect(w, h).unwrap();
            let mut b = Board::new(g);
            let p = |x, y| g.point(x, y).unwrap();
            b.set_stone(p(2, 2), Some(Color::Black));
            for (x, y) in [(2, 1), (3, 1), (1, 2), (2, 3)] {
                b.set_stone(p(x, y), Some(Color::White));
            }
            if let Some(((x, y), color)) = extra {
                b.set_stone(p(x, y), Some(color));
            }
            let mut r = Reader::new(14);
            let status = r.read(&b, p(2, 2), Color::Black);
            assert_eq!(
                status == Status::Loses,
                works,
                "{w}x{h} with {extra:?}: {status:?}"
            );
            b.assert_consistent();
        }
    }

    #[test]
    fn a_ladder_works_on_an_empty_board_and_fails_against_a_breaker() {
        let mut r = Reader::new(14);
        let (b, target) = ladder(None);
        assert_eq!(b.liberties(target), 1);
        assert_eq!(
            r.read(&b, target, Color::Black),
            Status::Loses,
            "the ladder works"
        );
        assert!(r.saves(&b, target).is_none());
        let (b, target) = ladder(Some((6, 6)));
        let escape = b.geometry().point(3, 2).unwrap();
        assert_eq!(
            r.read(&b, target, Color::Black),
            Status::Wins(Some(escape)),
            "the breaker saves it"
        );
    }

    #[test]
    fn the_attacker_captures_at_once_and_the_table_is_reused() {
        let (b, target) = ladder(None);
        let mut r = Reader::new(14);
        assert_eq!(r.capture_move(&b, target), b.geometry().point(3, 2));
        // Reading the defence twice: the second read is answered from the table.
        r.read(&b, target, Color::Black);
        let first = r.nodes();
        r.read(&b, target, Color::Black);
        assert!(
            r.nodes() < first,
            "table hits: {} then {}",
            first,
            r.nodes()
        );
        r.clear();
        r.read(&b, target, Color::Black);
        assert_eq!(r.nodes(), first, "a cleared table reads everything again");
    }

    #[test]
    fn enough_liberties_means_escaped() {
        let g = Geometry::new(9).unwrap();
        let mut b = Board::new(g);
        let p = g.point(4, 4).unwrap();
        b.set_stone(p, Some(Color::Black));
        let mut r = Reader::new(12);
        assert_eq!(
            r.read(&b, p, Color::White),
            Status::Loses,
            "four liberties cannot be laddered"
        );
        assert_eq!(r.read(&b, p, Color::Black), Status::Wins(None));
        assert_eq!(
            r.read(&b, g.point(0, 0).unwrap(), Color::Black),
            Status::Unknown,
            "no target"
        );
    }
}
