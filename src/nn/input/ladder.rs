//! Ladder reading for the network's ladder planes, with KataGo's semantics
//! (`Board::searchIsLadderCaptured`, `searchIsLadderCapturedAttackerFirst2Libs`,
//! `iterLadders` in `nninputs.cpp`), on a small board of its own with play/undo.
//!
//! The reader is a depth-first search over atari sequences: the defender tries
//! the captures that gain liberties and its own liberty, the attacker fills one
//! of the two liberties. Shortcuts follow KataGo exactly (liberty bounds, the
//! double-ko death rule, non-adjacent escapes with three liberties, the move
//! ordering heuristic), as does the node budget (25,000 plays, then "not
//! captured") and the stack limit. The simple-ko point is colourless, as in
//! KataGo: whoever moves next may not play it; the defender's root clears it.
//!
//! Not the engine's tactical reader ([`crate::search::classical::tactics`]): that one answers a
//! different question for move choice.

use crate::go::board::{Board, Point, Stone, CELLS};
use std::ops::ControlFlow;

const BUDGET: u32 = 25_000;

/// A ladder board: cells only; chains are found by flood fill when asked.
#[derive(Clone)]
pub struct LadderBoard {
    /// Number of on-board points of the loaded board.
    area: usize,
    cells: [Stone; CELLS],
    /// Colourless simple-ko point (`None`: no ko).
    ko: Option<Point>,
    mark: Vec<u32>,
    lib_mark: Vec<u32>,
    generation: u32,
    chain_buf: Vec<Point>,
    /// Memo of chain facts for the current position: `memo_stamp[p] == version`
    /// means `memo_head[p]` names the chain of the stone `p` and
    /// `memo_info[head]` holds its facts. `version` changes with every play,
    /// undo and load.
    version: u32,
    memo_stamp: Vec<u32>,
    memo_head: Vec<u16>,
    memo_info: Vec<ChainInfo>,
    /// The version and head for which `chain_buf` holds a chain's stones.
    buf_version: u32,
    buf_head: u16,
}

/// What undoing a play needs.
#[derive(Clone, Copy, Debug, Default)]
struct Record {
    point: u16,
    color: u8,
    prev_ko: u16,
    captured_start: u32,
    captured_len: u32,
}

/// Where one visit of a frame leaves the ladder search.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// The frame is decided with this answer: back to the frame above.
    Back(bool),
    /// The frame's move is illegal, which counts as this answer: its next move.
    Skip(bool),
    /// The frame's move is played: on to the frame below.
    Deeper,
}

/// Facts about one chain, from one flood fill.
#[derive(Clone, Copy, Debug)]
struct ChainInfo {
    stones: usize,
    libs: usize,
}

impl Default for LadderBoard {
    fn default() -> Self {
        LadderBoard {
            area: 0,
            cells: [Stone::Border; CELLS],
            ko: None,
            mark: vec![0; CELLS],
            lib_mark: vec![0; CELLS],
            generation: 0,
            chain_buf: Vec::with_capacity(CELLS),
            version: 1,
            memo_stamp: vec![0; CELLS],
            memo_head: vec![0; CELLS],
            memo_info: vec![ChainInfo { stones: 0, libs: 0 }; CELLS],
            buf_version: 0,
            buf_head: 0,
        }
    }
}

impl LadderBoard {
    /// Loads the stones of `board` and the colourless ko point `ko`.
    pub fn load(&mut self, board: &Board, ko: Option<Point>) {
        self.area = board.geometry().area();
        self.cells = [Stone::Border; CELLS];
        for p in board.geometry().points() {
            self.cells[p.index()] = board.at(p);
        }
        self.ko = ko;
        self.changed();
    }

    /// Forgets the memo of chain facts (the stones changed).
    fn changed(&mut self) {
        self.version = self.version.wrapping_add(1);
        if self.version == 0 {
            self.memo_stamp.iter_mut().for_each(|m| *m = 0);
            self.version = 1;
        }
    }

    /// The chain facts of the stone `p`, from the memo when it is fresh.
    fn info(&mut self, p: Point) -> ChainInfo {
        if self.memo_stamp[p.index()] == self.version {
            return self.memo_info[self.memo_head[p.index()] as usize];
        }
        self.chain(p)
    }

    #[inline]
    fn at(&self, p: Point) -> Stone {
        self.cells[p.index()]
    }

    fn next_generation(&mut self) -> u32 {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.lib_mark.iter_mut().for_each(|m| *m = 0);
            self.generation = 1;
        }
        self.generation
    }

    /// Flood-fills the chain through the stone `p` into `chain_buf`, counting
    /// its stones and distinct liberties.
    fn chain(&mut self, p: Point) -> ChainInfo {
        if self.memo_stamp[p.index()] == self.version
            && self.buf_version == self.version
            && self.memo_head[p.index()] == self.buf_head
        {
            return self.memo_info[self.buf_head as usize];
        }
        let g = self.next_generation();
        let color = self.at(p);
        self.chain_buf.clear();
        self.chain_buf.push(p);
        self.mark[p.index()] = g;
        let mut libs = 0;
        let mut i = 0;
        while i < self.chain_buf.len() {
            let s = self.chain_buf[i];
            i += 1;
            for n in s.neighbors() {
                let c = self.cells[n.index()];
                if c == color && self.mark[n.index()] != g {
                    self.mark[n.index()] = g;
                    self.chain_buf.push(n);
                } else if c == Stone::Empty && self.lib_mark[n.index()] != g {
                    self.lib_mark[n.index()] = g;
                    libs += 1;
                }
            }
        }
        let info = ChainInfo {
            stones: self.chain_buf.len(),
            libs,
        };
        for &s in &self.chain_buf {
            self.memo_stamp[s.index()] = self.version;
            self.memo_head[s.index()] = p.index() as u16;
        }
        self.memo_info[p.index()] = info;
        self.buf_version = self.version;
        self.buf_head = p.index() as u16;
        info
    }

    fn libs(&mut self, p: Point) -> usize {
        self.info(p).libs
    }

    fn immediate_libs(&self, p: Point) -> usize {
        p.neighbors()
            .iter()
            .filter(|n| self.at(**n) == Stone::Empty)
            .count()
    }

    /// Appends to `buf` the liberties of the chain at `p` that are not already
    /// in `buf[from..]`; returns how many were appended.
    fn push_liberties(&mut self, p: Point, buf: &mut Vec<Point>, from: usize) -> usize {
        self.chain(p);
        let before = buf.len();
        for i in 0..self.chain_buf.len() {
            let s = self.chain_buf[i];
            for n in s.neighbors() {
                if self.at(n) == Stone::Empty && !buf[from..].contains(&n) {
                    buf.push(n);
                }
            }
        }
        buf.len() - before
    }

    /// Appends the capturing moves that gain liberties for the chain at `p`
    /// (the liberties of adjacent opponent chains in atari), skipping any
    /// already in `buf[from..]`.
    fn push_liberty_gaining_captures(&mut self, p: Point, buf: &mut Vec<Point>, from: usize) {
        let opp = match self.at(p) {
            Stone::Black => Stone::White,
            _ => Stone::Black,
        };
        self.chain(p);
        let own: smallvec::SmallVec<[Point; 64]> = self.chain_buf.iter().copied().collect();
        let mut atari_heads: smallvec::SmallVec<[Point; 16]> = smallvec::SmallVec::new();
        for s in own {
            for n in s.neighbors() {
                if self.at(n) != opp || atari_heads.iter().any(|&h| self.same_chain(h, n)) {
                    continue;
                }
                if self.libs(n) == 1 {
                    atari_heads.push(n);
                    self.push_liberties(n, buf, from);
                }
            }
        }
    }

    /// Whether the stones `a` and `b` are in one chain.
    fn same_chain(&mut self, a: Point, b: Point) -> bool {
        if self.at(a) != self.at(b) {
            return false;
        }
        self.info(a);
        self.info(b);
        self.memo_head[a.index()] == self.memo_head[b.index()]
    }

    fn has_liberty_gaining_captures(&mut self, p: Point) -> bool {
        let opp = other(self.at(p));
        self.chain(p);
        let own: smallvec::SmallVec<[Point; 64]> = self.chain_buf.iter().copied().collect();
        for s in own {
            for n in s.neighbors() {
                if self.at(n) == opp && self.libs(n) == 1 {
                    return true;
                }
            }
        }
        false
    }

    fn is_suicide(&mut self, p: Point, color: Stone) -> bool {
        let opp = other(color);
        for n in p.neighbors() {
            let c = self.at(n);
            if c == Stone::Empty {
                return false;
            }
            if c == color && self.libs(n) > 1 {
                return false;
            }
            if c == opp && self.libs(n) == 1 {
                return false;
            }
        }
        true
    }

    /// KataGo's `isLegal` with multi-stone suicide forbidden: empty, not the
    /// ko point, not suicide.
    fn is_legal(&mut self, p: Point, color: Stone) -> bool {
        self.at(p) == Stone::Empty && self.ko != Some(p) && !self.is_suicide(p, color)
    }

    /// Lower and upper bounds on the liberties of a `color` stone played at `p`.
    fn bound_libs_after_play(&mut self, p: Point, color: Stone) -> (usize, usize) {
        let opp = other(color);
        let (mut immediate, mut caps, mut cap_stones, mut conn, mut max_conn) = (0, 0, 0, 0, 0);
        for n in p.neighbors() {
            let c = self.at(n);
            if c == Stone::Empty {
                immediate += 1;
            } else if c == opp {
                let info = self.info(n);
                if info.libs == 1 {
                    caps += 1;
                    cap_stones += info.stones;
                }
            } else if c == color {
                let l = self.libs(n) - 1;
                conn += l;
                max_conn = max_conn.max(l);
            }
        }
        (
            caps + max_conn.max(immediate),
            immediate + cap_stones + conn,
        )
    }

    /// KataGo's `getNumLibertiesAfterPlay`, including its way of counting a
    /// capturable adjacent stone as a liberty.
    fn num_libs_after_play(&mut self, p: Point, color: Stone, max: usize) -> usize {
        let opp = other(color);
        let mut libs: smallvec::SmallVec<[Point; 32]> = smallvec::SmallVec::new();
        let mut captured: smallvec::SmallVec<[Point; 4]> = smallvec::SmallVec::new();
        for n in p.neighbors() {
            let c = self.at(n);
            if c == Stone::Empty {
                libs.push(n);
                if libs.len() >= max {
                    return max;
                }
            } else if c == opp && self.libs(n) == 1 {
                libs.push(n);
                if libs.len() >= max {
                    return max;
                }
                if !captured.iter().any(|&h| self.same_chain(h, n)) {
                    captured.push(n);
                }
            }
        }
        let mut connected: smallvec::SmallVec<[Point; 4]> = smallvec::SmallVec::new();
        for n in p.neighbors() {
            if self.at(n) != color || connected.iter().any(|&h| self.same_chain(h, n)) {
                continue;
            }
            connected.push(n);
            self.chain(n);
            let stones: smallvec::SmallVec<[Point; 64]> = self.chain_buf.iter().copied().collect();
            for s in stones {
                for q in s.neighbors() {
                    if q == p || libs.contains(&q) {
                        continue;
                    }
                    let would_be_empty = match self.at(q) {
                        Stone::Empty => true,
                        c if c == opp => captured.iter().any(|&h| self.same_chain(h, q)),
                        _ => false,
                    };
                    if would_be_empty {
                        libs.push(q);
                        if libs.len() >= max {
                            return max;
                        }
                    }
                }
            }
        }
        libs.len()
    }

    /// Whether `color` at `p` would capture exactly one lone stone from a spot
    /// surrounded by opponent stones and edges.
    fn would_be_ko_capture(&mut self, p: Point, color: Stone) -> bool {
        if self.at(p) != Stone::Empty {
            return false;
        }
        let opp = other(color);
        let mut capturable = None;
        for n in p.neighbors() {
            let c = self.at(n);
            if c != Stone::Border && c != opp {
                return false;
            }
            if c == opp && self.libs(n) == 1 {
                if capturable.is_some() {
                    return false;
                }
                capturable = Some(n);
            }
        }
        match capturable {
            Some(q) => self.info(q).stones == 1,
            None => false,
        }
    }

    /// KataGo's double-ko death: the `pla` chain at `p` with two liberties
    /// `m0` and `m1`, both ko captures for the attacker that leave the defender
    /// at most two liberties, and no capture to gain liberties.
    fn dies_to_double_ko(&mut self, p: Point, pla: Stone, m0: Point, m1: Point) -> bool {
        let opp = other(pla);
        self.would_be_ko_capture(m0, opp)
            && self.would_be_ko_capture(m1, opp)
            && self.num_libs_after_play(m0, pla, 3) <= 2
            && self.num_libs_after_play(m1, pla, 3) <= 2
            && !self.has_liberty_gaining_captures(p)
    }

    fn heuristic_connection_libs_x2(&mut self, p: Point, color: Stone) -> i32 {
        let mut total = 0;
        for n in p.neighbors() {
            if self.at(n) == color {
                let l = self.libs(n) as i32;
                if l > 1 {
                    total += l * 2 - 3;
                }
            }
        }
        total
    }

    /// Plays `color` at the empty point `p`, capturing; records what undo needs.
    fn play(&mut self, p: Point, color: Stone, captured: &mut Vec<Point>) -> Record {
        let mut rec = Record {
            point: p.index() as u16,
            color: color as u8,
            prev_ko: self.ko.map_or(0, |k| k.index() as u16),
            captured_start: captured.len() as u32,
            captured_len: 0,
        };
        let opp = other(color);
        self.cells[p.index()] = color;
        self.changed();
        let mut last_captured = None;
        for n in p.neighbors() {
            if self.at(n) == opp && self.libs(n) == 0 {
                self.chain(n);
                for i in 0..self.chain_buf.len() {
                    let s = self.chain_buf[i];
                    self.cells[s.index()] = Stone::Empty;
                    captured.push(s);
                }
                self.changed();
                last_captured = Some(n);
            }
        }
        rec.captured_len = captured.len() as u32 - rec.captured_start;
        self.ko = None;
        if rec.captured_len == 1 {
            let info = self.chain(p);
            if info.stones == 1 && info.libs == 1 {
                self.ko = last_captured;
            }
        }
        // No suicide can happen: the reader only plays legal moves with suicide forbidden.
        rec
    }

    fn undo(&mut self, rec: Record, captured: &mut Vec<Point>) {
        let color = if rec.color == Stone::Black as u8 {
            Stone::Black
        } else {
            Stone::White
        };
        self.cells[rec.point as usize] = Stone::Empty;
        let start = rec.captured_start as usize;
        for &s in &captured[start..start + rec.captured_len as usize] {
            self.cells[s.index()] = other(color);
        }
        captured.truncate(start);
        self.changed();
        self.ko = (rec.prev_ko != 0).then(|| Point::from_index(rec.prev_ko as usize));
    }
}

#[inline]
fn other(s: Stone) -> Stone {
    match s {
        Stone::Black => Stone::White,
        Stone::White => Stone::Black,
        other => other,
    }
}

fn adjacent(a: Point, b: Point) -> bool {
    a.neighbors().contains(&b)
}

/// Buffers of the search, kept between calls.
#[derive(Clone, Default)]
pub struct LadderScratch {
    pub board: LadderBoard,
    buf: Vec<Point>,
    captured: Vec<Point>,
    list_start: Vec<usize>,
    list_len: Vec<usize>,
    list_cur: Vec<i32>,
    records: Vec<Record>,
    solved: Vec<(Point, bool)>,
    working: Vec<Point>,
}

impl LadderScratch {
    /// Whether the chain through `p` (one liberty, defender to move) is captured
    /// in a ladder; with `defender_first` false, the attacker moves first on a
    /// chain of at most two liberties.
    ///
    /// A depth-first walk over the frames of an explicit stack, as KataGo's
    /// `searchIsLadderCaptured`: frame `i` lists its moves at `buf[list_start[i]..]`
    /// and tries them in turn; `ret` carries a deeper frame's answer back up.
    pub fn is_ladder_captured(&mut self, p: Point, defender_first: bool) -> bool {
        let pla = self.board.at(p);
        if pla != Stone::Black && pla != Stone::White {
            return false;
        }
        let libs0 = self.board.libs(p);
        if libs0 > 2 || (defender_first && libs0 > 1) {
            return false;
        }
        let saved_ko = self.board.ko;
        if defender_first {
            self.board.ko = None;
        }
        let stack_size = self.board.area * 3 / 2 + 1;
        self.reset_stack(stack_size);
        let mut idx: i32 = 0;
        let mut nodes = 0u32;
        let mut ret = false;
        let mut from_deeper = false;

        loop {
            if idx <= -1 {
                self.board.ko = saved_ko;
                return ret;
            }
            let i = idx as usize;
            let step = if i >= stack_size - 1 {
                Step::Back(true)
            } else if nodes >= BUDGET {
                // KataGo undoes everything but does not restore the saved ko point.
                self.undo_frames(i);
                return false;
            } else {
                let is_defender = defender_first == i.is_multiple_of(2);
                self.step(p, pla, i, is_defender, ret, from_deeper)
            };
            match step {
                Step::Back(answer) => {
                    ret = answer;
                    from_deeper = true;
                    idx -= 1;
                }
                Step::Skip(answer) => {
                    ret = answer;
                    from_deeper = false;
                }
                Step::Deeper => {
                    nodes += 1;
                    idx += 1;
                }
            }
        }
    }

    /// Makes room for `stack_size` frames and opens the first one, empty.
    fn reset_stack(&mut self, stack_size: usize) {
        if self.list_start.len() < stack_size + 1 {
            self.list_start.resize(stack_size + 1, 0);
            self.list_len.resize(stack_size + 1, 0);
            self.list_cur.resize(stack_size + 1, -1);
            self.records.resize(stack_size + 1, Record::default());
        }
        self.list_start[0] = 0;
        self.list_len[0] = 0;
        self.list_cur[0] = -1;
        self.buf.clear();
    }

    /// Undoes the moves of the frames below `depth`, deepest first.
    fn undo_frames(&mut self, depth: usize) {
        for k in (0..depth).rev() {
            let rec = self.records[k];
            self.board.undo(rec, &mut self.captured);
        }
    }

    /// One visit of frame `i` (its side `is_defender`, attacking the `pla` chain at `p`):
    /// lists its moves on arrival, or takes in a deeper frame's answer `ret` on return,
    /// then plays its next move.
    fn step(
        &mut self,
        p: Point,
        pla: Stone,
        i: usize,
        is_defender: bool,
        ret: bool,
        from_deeper: bool,
    ) -> Step {
        let entered = if self.list_cur[i] == -1 {
            self.open_frame(p, pla, i, is_defender)
        } else {
            self.resume_frame(i, is_defender, ret, from_deeper)
        };
        if let ControlFlow::Break(answer) = entered {
            return Step::Back(answer);
        }
        self.play_next(pla, i, is_defender)
    }

    /// Arriving at frame `i`: answers at once when the liberties decide it, else
    /// lists the side's candidate moves from `buf[list_start[i]..]`.
    fn open_frame(
        &mut self,
        p: Point,
        pla: Stone,
        i: usize,
        is_defender: bool,
    ) -> ControlFlow<bool> {
        let libs = self.board.libs(p);
        if !is_defender && libs <= 1 {
            return ControlFlow::Break(true);
        }
        if !is_defender && libs >= 3 {
            return ControlFlow::Break(false);
        }
        if is_defender && libs >= 2 {
            return ControlFlow::Break(false);
        }
        if is_defender && self.board.ko.is_some() {
            return ControlFlow::Break(false);
        }
        let start = self.list_start[i];
        self.buf.truncate(start);
        let len = if is_defender {
            self.defender_moves(p, pla, start)?
        } else {
            self.attacker_moves(p, pla, start)?
        };
        self.list_len[i] = len;
        self.list_cur[i] = 0;
        ControlFlow::Continue(())
    }

    /// The defender's moves on the `pla` chain at `p` in atari, from `buf[start..]`:
    /// captures that gain liberties, then its liberty; or the answer when the
    /// liberty bounds of the last of them already decide.
    fn defender_moves(&mut self, p: Point, pla: Stone, start: usize) -> ControlFlow<bool, usize> {
        let b = &mut self.board;
        b.push_liberty_gaining_captures(p, &mut self.buf, start);
        b.push_liberties(p, &mut self.buf, start);
        let len = self.buf.len() - start;
        let last = self.buf[start + len - 1];
        let (lower, upper) = b.bound_libs_after_play(last, pla);
        if lower >= 3 {
            return ControlFlow::Break(false);
        }
        if len == 1 && upper <= 1 {
            return ControlFlow::Break(true);
        }
        ControlFlow::Continue(len)
    }

    /// The attacker's moves on the two liberties of the `pla` chain at `p`, from
    /// `buf[start..]`, most promising first: only the one that does not let the
    /// defender escape to three liberties, none when both do (the answer then,
    /// or when the chain dies to the double-ko rule).
    fn attacker_moves(&mut self, p: Point, pla: Stone, start: usize) -> ControlFlow<bool, usize> {
        let b = &mut self.board;
        b.push_liberties(p, &mut self.buf, start);
        let mut len = self.buf.len() - start;
        debug_assert_eq!(len, 2);
        let (m0, m1) = (self.buf[start], self.buf[start + 1]);
        let mut l0 = b.immediate_libs(m0) as i32;
        let mut l1 = b.immediate_libs(m1) as i32;
        if l0 == 0 && l1 == 0 && b.dies_to_double_ko(p, pla, m0, m1) {
            return ControlFlow::Break(true);
        }
        if !adjacent(m0, m1) {
            if l0 >= 3 && l1 >= 3 {
                return ControlFlow::Break(false);
            } else if l0 >= 3 {
                len = 1;
            } else if l1 >= 3 {
                self.buf[start] = m1;
                len = 1;
            }
        }
        if len > 1 {
            l0 = l0 * 2 + b.heuristic_connection_libs_x2(m0, pla);
            l1 = l1 * 2 + b.heuristic_connection_libs_x2(m1, pla);
            if l1 > l0 {
                self.buf.swap(start, start + 1);
            }
        }
        self.buf.truncate(start + len);
        ControlFlow::Continue(len)
    }

    /// Back at frame `i` with a deeper frame's answer `ret`: undoes the frame's
    /// move if one was played, stops when `ret` settles the frame, else moves on
    /// to its next move.
    fn resume_frame(
        &mut self,
        i: usize,
        is_defender: bool,
        ret: bool,
        from_deeper: bool,
    ) -> ControlFlow<bool> {
        if from_deeper {
            let rec = self.records[i];
            self.board.undo(rec, &mut self.captured);
        }
        if is_defender != ret {
            return ControlFlow::Break(ret);
        }
        self.list_cur[i] += 1;
        ControlFlow::Continue(())
    }

    /// Plays frame `i`'s current move and opens the frame after it; the frame
    /// fails for its side when its moves are used up.
    fn play_next(&mut self, pla: Stone, i: usize, is_defender: bool) -> Step {
        if self.list_cur[i] as usize >= self.list_len[i] {
            return Step::Back(is_defender);
        }
        let b = &mut self.board;
        let mv = self.buf[self.list_start[i] + self.list_cur[i] as usize];
        let mover = if is_defender { pla } else { other(pla) };
        if !b.is_legal(mv, mover) {
            return Step::Skip(is_defender);
        }
        self.records[i] = b.play(mv, mover, &mut self.captured);
        let j = i + 1;
        self.list_cur[j] = -1;
        self.list_start[j] = self.list_start[i] + self.list_len[i];
        self.list_len[j] = 0;
        Step::Deeper
    }

    /// For a chain of exactly two liberties at `p`: the attacker's moves on its
    /// liberties after which the defender, moving first, is ladder-captured.
    /// Returns whether there is one; the moves are left in [`Self::working_moves`].
    pub fn two_liberty_ladder(&mut self, p: Point) -> bool {
        self.working.clear();
        let target = self.board.at(p);
        if target != Stone::Black && target != Stone::White || self.board.libs(p) != 2 {
            return false;
        }
        let opp = other(target);
        self.buf.clear();
        self.board.push_liberties(p, &mut self.buf, 0);
        let (m0, m1) = (self.buf[0], self.buf[1]);
        let mut works = [false; 2];
        for (k, mv) in [m0, m1].into_iter().enumerate() {
            if self.board.is_legal(mv, opp) {
                let rec = self.board.play(mv, opp, &mut self.captured);
                works[k] = self.is_ladder_captured(p, true);
                self.board.undo(rec, &mut self.captured);
            }
        }
        if works[0] {
            self.working.push(m0);
        }
        if works[1] {
            self.working.push(m1);
        }
        works[0] || works[1]
    }

    /// The moves found by the last successful [`Self::two_liberty_ladder`].
    pub fn working_moves(&self) -> &[Point] {
        &self.working
    }

    /// KataGo's `iterLadders`: for every stone of a chain with one or two
    /// liberties that is laddered (one liberty: captured with the defender to
    /// move; two: some attacker move on a liberty ladders it), calls
    /// `f(stone, working_moves)`; `working_moves` is empty for one-liberty
    /// chains and for stones of a chain solved earlier in the scan.
    pub fn iter_ladders(
        &mut self,
        board: &Board,
        ko: Option<Point>,
        mut f: impl FnMut(Point, &[Point]),
    ) {
        self.board.load(board, ko);
        self.solved.clear();
        for p in board.geometry().points() {
            if board.at(p).color().is_none() {
                continue;
            }
            let libs = board.liberties(p);
            if libs != 1 && libs != 2 {
                continue;
            }
            let head = board.chain_head(p);
            if let Some(&(_, laddered)) = self.solved.iter().find(|(h, _)| *h == head) {
                if laddered {
                    f(p, &[]);
                }
                continue;
            }
            let laddered = if libs == 1 {
                self.working.clear();
                self.is_ladder_captured(p, true)
            } else {
                self.two_liberty_ladder(p)
            };
            self.solved.push((head, laddered));
            if laddered {
                let working = std::mem::take(&mut self.working);
                f(p, &working);
                self.working = working;
            }
        }
    }
}
