//! The board: stones, chains, exact liberty counts, captures, the simple-ko point
//! and the Zobrist position key, all kept up to date incrementally.
//!
//! A `Board` knows nothing of turn order, superko or history: either colour may
//! play at any time, and the only repetition it knows is the simple-ko point
//! (the point where an immediate single-stone recapture would recreate the
//! position). Superko lives in [`crate::go::history`], turn order in [`crate::go::game`].
//!
//! Representation (padded 1-D array, see [`point`]):
//! - `cells`: the [`Stone`] in each cell, sentinels off the board;
//! - chains: `head[p]` is the chain's representative stone, `next[p]` links the
//!   chain's stones in a circle; `libs[head]` is the **exact** number of distinct
//!   liberties and `size[head]` the number of stones (both undefined off heads);
//! - `nbrs[p]`: how many of `p`'s four neighbours are black, white, empty and
//!   border, for O(1) eye and suicide tests;
//! - `empties`/`empty_at`: the empty points as a list with an index map, for O(1)
//!   random move choice and removal;
//! - `pattern[p]`: the 3×3 code of `p`'s neighbourhood (2 bits per surrounding
//!   cell in [`point::RING`] order, the [`Stone`] value), updated by XOR when a
//!   stone is added or removed, for O(1) pattern lookups ([`crate::search::classical::patterns`]);
//! - `hash`: XOR of [`zobrist::stone_key`] over all stones; never recomputed from
//!   scratch outside debug checks and tests.
//!
//! The struct is plain data (`Clone`, no heap): 13,672 bytes whatever the board
//! size, so a playout copies it with one `memcpy`.

pub mod point;
pub mod zobrist;

pub use point::{Color, Geometry, Move, Point, Stone, CELLS, MAX_POINTS, MAX_SIZE, RING, STRIDE};

use smallvec::SmallVec;

/// Up to four distinct chain heads next to a point.
type Heads = SmallVec<[u16; 4]>;

/// What playing a stone did, for callers that keep records (SGF check, search).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PlayEffect {
    /// Opponent stones captured.
    pub captured: u16,
    /// Own stones removed by a (multi-stone) suicide; 1 for a single-stone suicide.
    pub suicided: u16,
}

/// See the module documentation.
#[derive(Clone)]
pub struct Board {
    geometry: Geometry,
    cells: [Stone; CELLS],
    head: [u16; CELLS],
    next: [u16; CELLS],
    libs: [u16; CELLS],
    size: [u16; CELLS],
    /// `nbrs[p][stone as usize]`: neighbours of each kind.
    nbrs: [[u8; 4]; CELLS],
    /// 3×3 neighbourhood code of each cell (meaningful on the board).
    pattern: [u16; CELLS],
    empties: [u16; MAX_POINTS],
    empty_at: [u16; CELLS],
    num_empty: u16,
    /// Simple-ko point and the colour it is forbidden to; `ko_point == 0` means none.
    ko_point: u16,
    ko_color: Color,
    hash: u64,
    /// Stones captured *by* each colour (prisoners it holds), suicides included.
    captures: [u32; 2],
}

impl Board {
    /// An empty board.
    pub fn new(geometry: Geometry) -> Board {
        let mut b = Board {
            geometry,
            cells: [Stone::Border; CELLS],
            head: [0; CELLS],
            next: [0; CELLS],
            libs: [0; CELLS],
            size: [0; CELLS],
            nbrs: [[0; 4]; CELLS],
            pattern: [0; CELLS],
            empties: [0; MAX_POINTS],
            empty_at: [0; CELLS],
            num_empty: 0,
            ko_point: 0,
            ko_color: Color::Black,
            hash: 0,
            captures: [0; 2],
        };
        for p in geometry.points() {
            b.cells[p.index()] = Stone::Empty;
            b.empty_at[p.index()] = b.num_empty;
            b.empties[b.num_empty as usize] = p.index() as u16;
            b.num_empty += 1;
        }
        for p in geometry.points() {
            for n in p.neighbors() {
                b.nbrs[p.index()][b.cells[n.index()] as usize] += 1;
            }
            b.pattern[p.index()] = b.pattern_from_scratch(p);
        }
        b
    }

    /// The 3×3 code of `p`'s neighbourhood: 2 bits per surrounding cell in
    /// [`RING`] order, each the [`Stone`] value there.
    #[inline]
    pub fn pattern_code(&self, p: Point) -> u16 {
        self.pattern[p.index()]
    }

    fn pattern_from_scratch(&self, p: Point) -> u16 {
        RING.iter().enumerate().fold(0, |code, (k, off)| {
            let q = (p.index() as isize + off) as usize;
            code | (self.cells[q] as u16) << (2 * k)
        })
    }

    /// Updates the codes around `p` after its contents changed by `delta`
    /// (old stone value XOR new stone value).
    #[inline]
    fn update_patterns(&mut self, p: Point, delta: u16) {
        for (k, off) in RING.iter().enumerate() {
            // p sits at ring position k of the cell p - off.
            let r = (p.index() as isize - off) as usize;
            self.pattern[r] ^= delta << (2 * k);
        }
    }

    /// A board from a diagram, top row first: `X` black, `O` white, `.` or `+`
    /// empty. The stones are set up (no captures, like SGF `AB`/`AW`). `None`
    /// unless the rows have one length and form a board of a supported size
    /// (square or not) made of those characters. For tests and tools.
    pub fn from_diagram(rows: &[&str]) -> Option<Board> {
        let width = rows.first()?.chars().count();
        let geometry = Geometry::rect(width, rows.len())?;
        let mut board = Board::new(geometry);
        for (y, row) in rows.iter().enumerate() {
            if row.chars().count() != width {
                return None;
            }
            for (x, ch) in row.chars().enumerate() {
                let stone = match ch {
                    'X' => Some(Color::Black),
                    'O' => Some(Color::White),
                    '.' | '+' => None,
                    _ => return None,
                };
                if stone.is_some() {
                    board.set_stone(geometry.point(x, y)?, stone);
                }
            }
        }
        Some(board)
    }

    /// The board's geometry.
    #[inline]
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// What is on `p`.
    #[inline]
    pub fn at(&self, p: Point) -> Stone {
        self.cells[p.index()]
    }

    /// The position key: XOR of the keys of all stones (0 for the empty board).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Stones captured by `color` so far (including opponent suicides).
    #[inline]
    pub fn captures(&self, color: Color) -> u32 {
        self.captures[color.index()]
    }

    /// The simple-ko point, if the last move created one, and who may not play it.
    #[inline]
    pub fn ko(&self) -> Option<(Point, Color)> {
        (self.ko_point != 0).then(|| (Point::from_index(self.ko_point as usize), self.ko_color))
    }

    /// Whether `color` is forbidden to play `p` by the simple-ko point.
    #[inline]
    pub fn is_ko(&self, p: Point, color: Color) -> bool {
        self.ko_point as usize == p.index() && self.ko_color == color
    }

    /// Forget the simple-ko point (a pass does this).
    #[inline]
    pub fn clear_ko(&mut self) {
        self.ko_point = 0;
    }

    /// The empty points, in no particular order.
    #[inline]
    pub fn empty_points(&self) -> impl Iterator<Item = Point> + '_ {
        self.empties[..self.num_empty as usize]
            .iter()
            .map(|&i| Point::from_index(i as usize))
    }

    /// Number of empty points.
    #[inline]
    pub fn num_empty(&self) -> usize {
        self.num_empty as usize
    }

    /// The `i`-th empty point (`i < num_empty()`), for random move choice.
    #[inline]
    pub fn empty_point(&self, i: usize) -> Point {
        Point::from_index(self.empties[i] as usize)
    }

    /// Number of `kind` cells among the four neighbours of `p`.
    #[inline]
    pub fn neighbor_count(&self, p: Point, kind: Stone) -> usize {
        self.nbrs[p.index()][kind as usize] as usize
    }

    /// The chain's representative stone; defined only for stones.
    #[inline]
    pub fn chain_head(&self, p: Point) -> Point {
        Point::from_index(self.head[p.index()] as usize)
    }

    /// Exact number of liberties of the chain through the stone `p`.
    #[inline]
    pub fn liberties(&self, p: Point) -> usize {
        self.libs[self.head[p.index()] as usize] as usize
    }

    /// Number of stones in the chain through the stone `p`.
    #[inline]
    pub fn chain_size(&self, p: Point) -> usize {
        self.size[self.head[p.index()] as usize] as usize
    }

    /// The stones of the chain through the stone `p` (walks the chain).
    pub fn chain_stones(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        let start = p.index() as u16;
        let mut cur = Some(start);
        std::iter::from_fn(move || {
            let c = cur?;
            let n = self.next[c as usize];
            cur = (n != start).then_some(n);
            Some(Point::from_index(c as usize))
        })
    }

    /// Up to `max` distinct liberties of the chain through the stone `p`.
    /// Costs a walk of the chain (stops once `max` are found).
    pub fn liberty_points(&self, p: Point, max: usize) -> SmallVec<[Point; 8]> {
        let mut found = SmallVec::new();
        let want = self.liberties(p).min(max);
        if want == 0 {
            return found;
        }
        for s in self.chain_stones(p) {
            for n in s.neighbors() {
                if self.cells[n.index()] == Stone::Empty && !found.contains(&n) {
                    found.push(n);
                    if found.len() == want {
                        return found;
                    }
                }
            }
        }
        found
    }

    /// Liberties the chain of a new `color` stone on the empty point `p` would
    /// have, counted up to `cap`: `min(true count, cap)`, captures included
    /// (a captured stone frees a liberty where it touches `p` or one of the own
    /// chains that `p` joins). Costs walks of the adjacent friendly chains,
    /// stopping early at `cap`, and of the captured chains.
    pub fn liberties_after(&self, p: Point, color: Color, cap: usize) -> usize {
        let mut libs: SmallVec<[Point; 8]> = SmallVec::new();
        let mut captures = false;
        for n in p.neighbors() {
            match self.cells[n.index()] {
                Stone::Empty => {
                    if !libs.contains(&n) {
                        libs.push(n);
                    }
                }
                Stone::Border => {}
                s if s == color.stone() => {
                    for l in self.liberty_points(n, cap + 1) {
                        if l != p && !libs.contains(&l) {
                            libs.push(l);
                        }
                    }
                }
                _ => captures |= self.libs[self.head[n.index()] as usize] == 1,
            }
            if libs.len() >= cap {
                return cap;
            }
        }
        if captures {
            let own = self.adjacent_heads(p, color);
            for head in self.adjacent_heads(p, color.opp()) {
                if self.libs[head as usize] != 1 {
                    continue;
                }
                for s in self.chain_stones(Point::from_index(head as usize)) {
                    let frees = s.neighbors().iter().any(|&m| {
                        m == p
                            || (self.cells[m.index()] == color.stone()
                                && own.contains(&self.head[m.index()]))
                    });
                    if frees && !libs.contains(&s) {
                        libs.push(s);
                        if libs.len() >= cap {
                            return cap;
                        }
                    }
                }
            }
        }
        libs.len()
    }

    /// Whether `color` playing the empty point `p` would put a chain of two or
    /// more stones into atari (a self-atari worth refusing; a lone stone in
    /// atari can be a useful throw-in).
    #[inline]
    pub fn is_group_self_atari(&self, p: Point, color: Color) -> bool {
        self.nbrs[p.index()][color as usize] > 0 && self.liberties_after(p, color, 2) < 2
    }

    /// The single liberty of a chain in atari, else `None`.
    pub fn last_liberty(&self, p: Point) -> Option<Point> {
        if self.liberties(p) != 1 {
            return None;
        }
        for s in self.chain_stones(p) {
            for n in s.neighbors() {
                if self.cells[n.index()] == Stone::Empty {
                    return Some(n);
                }
            }
        }
        None
    }

    /// Distinct chain heads of `color` next to `p`.
    #[inline]
    fn adjacent_heads(&self, p: Point, color: Color) -> Heads {
        let mut heads = Heads::new();
        for n in p.neighbors() {
            if self.cells[n.index()] == color.stone() {
                let h = self.head[n.index()];
                if !heads.contains(&h) {
                    heads.push(h);
                }
            }
        }
        heads
    }

    /// Whether `color` playing the empty point `p` would leave its own new chain
    /// without liberties and capture nothing (a suicide, single- or multi-stone).
    #[inline]
    pub fn is_suicide(&self, p: Point, color: Color) -> bool {
        if self.nbrs[p.index()][Stone::Empty as usize] > 0 {
            return false;
        }
        for n in p.neighbors() {
            let c = self.cells[n.index()];
            if c == color.stone() {
                if self.libs[self.head[n.index()] as usize] > 1 {
                    return false;
                }
            } else if c == color.opp().stone() && self.libs[self.head[n.index()] as usize] == 1 {
                return false;
            }
        }
        true
    }

    /// Whether `color` may play the empty point `p` under simple ko with suicide
    /// forbidden: the playout rule. Does not check that `p` is empty.
    #[inline]
    pub fn is_legal_simple(&self, p: Point, color: Color) -> bool {
        !self.is_ko(p, color) && !self.is_suicide(p, color)
    }

    /// Whether `p` is empty and every orthogonal neighbour is `color` or border.
    #[inline]
    pub fn is_eyelike(&self, p: Point, color: Color) -> bool {
        let n = &self.nbrs[p.index()];
        n[color as usize] + n[Stone::Border as usize] == 4
    }

    /// Whether `p` is an eye of `color` that a player should never fill: eyelike,
    /// and the diagonals do not make it false (at most one opponent diagonal in
    /// the centre, none on the edge or in the corner).
    #[inline]
    pub fn is_true_eye(&self, p: Point, color: Color) -> bool {
        if !self.is_eyelike(p, color) {
            return false;
        }
        let opp = color.opp().stone();
        let mut bad = 0;
        for d in p.diagonals() {
            bad += (self.cells[d.index()] == opp) as u32;
        }
        let on_edge = self.nbrs[p.index()][Stone::Border as usize] > 0;
        bad < if on_edge { 1 } else { 2 }
    }

    /// The position key after `color` plays the empty point `p`, with captures and
    /// (multi- or single-stone) suicide applied, without changing the board.
    /// Costs a walk of each captured chain.
    pub fn hash_after(&self, p: Point, color: Color) -> u64 {
        let mut h = self.hash ^ zobrist::stone_key(color, p);
        let opp = color.opp();
        let mut captured_any = false;
        for head in self.adjacent_heads(p, opp) {
            if self.libs[head as usize] == 1 {
                captured_any = true;
                for s in self.chain_stones(Point::from_index(head as usize)) {
                    h ^= zobrist::stone_key(opp, s);
                }
            }
        }
        if !captured_any && self.is_suicide(p, color) {
            // The new chain (p plus every adjacent own chain) is removed.
            h ^= zobrist::stone_key(color, p);
            for head in self.adjacent_heads(p, color) {
                for s in self.chain_stones(Point::from_index(head as usize)) {
                    h ^= zobrist::stone_key(color, s);
                }
            }
        }
        h
    }

    /// Puts a stone of `color` on the empty point `p` and resolves captures, then
    /// suicide (the mover's chain is removed if it has no liberties left). Sets the
    /// simple-ko point. Any legality policy is the caller's.
    ///
    /// # Panics
    /// In debug builds, if `p` is not an empty on-board point.
    pub fn play(&mut self, p: Point, color: Color) -> PlayEffect {
        debug_assert_eq!(
            self.cells[p.index()],
            Stone::Empty,
            "play on a non-empty point"
        );
        let opp = color.opp();
        self.ko_point = 0;
        self.add_stone(p, color);

        // The new stone took a liberty from every distinct adjacent chain.
        let enemies = self.adjacent_heads(p, opp);
        for &h in &enemies {
            self.libs[h as usize] -= 1;
        }
        let friends = self.adjacent_heads(p, color);
        for &h in &friends {
            self.libs[h as usize] -= 1;
        }

        // The new stone starts as a chain of one, then absorbs or is absorbed by
        // each adjacent friendly chain.
        let pi = p.index() as u16;
        self.head[pi as usize] = pi;
        self.next[pi as usize] = pi;
        self.size[pi as usize] = 1;
        self.libs[pi as usize] = self.nbrs[pi as usize][Stone::Empty as usize] as u16;
        let mut my_head = pi;
        for h in friends {
            my_head = self.merge(my_head, h);
        }

        let mut effect = PlayEffect::default();
        let mut last_captured = 0u16;
        for h in enemies {
            if self.libs[h as usize] == 0 {
                last_captured = h;
                effect.captured += self.remove_chain(h);
            }
        }
        self.captures[color.index()] += effect.captured as u32;

        let my_head = self.head[pi as usize];
        if effect.captured == 0 && self.libs[my_head as usize] == 0 {
            effect.suicided = self.remove_chain(my_head);
            self.captures[opp.index()] += effect.suicided as u32;
        } else if effect.captured == 1
            && self.size[my_head as usize] == 1
            && self.libs[my_head as usize] == 1
        {
            // Recapturing at the captured point would recreate the previous position.
            self.ko_point = last_captured;
            self.ko_color = opp;
        }
        effect
    }

    /// Merges the chains with heads `a` and `b` (distinct, same colour) and returns
    /// the surviving head. Liberties of the smaller chain are counted as new only
    /// where they do not touch the larger chain; relabelling as we go makes a
    /// liberty shared by two stones of the smaller chain count once.
    fn merge(&mut self, a: u16, b: u16) -> u16 {
        if a == b {
            return a;
        }
        let (big, small) = if self.size[a as usize] >= self.size[b as usize] {
            (a, b)
        } else {
            (b, a)
        };
        let color = self.cells[big as usize];
        let mut new_libs = 0u16;
        let mut s = small;
        loop {
            let sp = Point::from_index(s as usize);
            for n in sp.neighbors() {
                if self.cells[n.index()] == Stone::Empty && !self.touches_chain(n, big, color) {
                    new_libs += 1;
                }
            }
            self.head[s as usize] = big;
            s = self.next[s as usize];
            if s == small {
                break;
            }
        }
        self.libs[big as usize] += new_libs;
        self.size[big as usize] += self.size[small as usize];
        // Splice the two circular lists.
        self.next.swap(big as usize, small as usize);
        big
    }

    /// Whether the empty point `p` is next to a stone of `color` whose head is `head`.
    #[inline]
    fn touches_chain(&self, p: Point, head: u16, color: Stone) -> bool {
        p.neighbors()
            .iter()
            .any(|n| self.cells[n.index()] == color && self.head[n.index()] == head)
    }

    /// Removes every stone of the chain `head`; each freed point becomes a liberty
    /// of each distinct chain next to it. Returns the number of stones removed.
    fn remove_chain(&mut self, head: u16) -> u16 {
        let color = self.cells[head as usize]
            .color()
            .expect("remove_chain on a stone");
        let mut s = head;
        let mut removed = 0;
        loop {
            let next = self.next[s as usize];
            let sp = Point::from_index(s as usize);
            self.remove_stone(sp, color);
            removed += 1;
            s = next;
            if s == head {
                break;
            }
        }
        // Second pass: the liberties gained by the neighbouring chains. Done after
        // all stones are gone so that chains of the removed colour are not counted.
        let mut s = head;
        loop {
            let sp = Point::from_index(s as usize);
            for h in self.adjacent_heads(sp, color.opp()) {
                self.libs[h as usize] += 1;
            }
            s = self.next[s as usize];
            if s == head {
                break;
            }
        }
        removed
    }

    /// Cell bookkeeping for a new stone: cell, hash, neighbour counts, empty list.
    #[inline]
    fn add_stone(&mut self, p: Point, color: Color) {
        let i = p.index();
        self.cells[i] = color.stone();
        self.update_patterns(p, Stone::Empty as u16 ^ color as u16);
        self.hash ^= zobrist::stone_key(color, p);
        for n in p.neighbors() {
            // Border cells' counts are never read: wrapping keeps this branch-free.
            let c = &mut self.nbrs[n.index()];
            c[Stone::Empty as usize] = c[Stone::Empty as usize].wrapping_sub(1);
            c[color as usize] = c[color as usize].wrapping_add(1);
        }
        let at = self.empty_at[i];
        self.num_empty -= 1;
        let last = self.empties[self.num_empty as usize];
        self.empties[at as usize] = last;
        self.empty_at[last as usize] = at;
    }

    /// Cell bookkeeping for a removed stone (chain records are the caller's).
    #[inline]
    fn remove_stone(&mut self, p: Point, color: Color) {
        let i = p.index();
        self.cells[i] = Stone::Empty;
        self.update_patterns(p, Stone::Empty as u16 ^ color as u16);
        self.hash ^= zobrist::stone_key(color, p);
        for n in p.neighbors() {
            let c = &mut self.nbrs[n.index()];
            c[Stone::Empty as usize] = c[Stone::Empty as usize].wrapping_add(1);
            c[color as usize] = c[color as usize].wrapping_sub(1);
        }
        self.empty_at[i] = self.num_empty;
        self.empties[self.num_empty as usize] = i as u16;
        self.num_empty += 1;
    }

    /// Changes the contents of `p` without any rule: for setup (SGF `AB`/`AW`/`AE`,
    /// handicap). Chains and liberties around `p` are rebuilt; chains without
    /// liberties are left on the board, as the SGF specification asks. Clears the
    /// simple-ko point. Not for hot paths: costs a flood fill of the chains touched.
    pub fn set_stone(&mut self, p: Point, stone: Option<Color>) {
        debug_assert!(self.geometry.contains(p));
        self.ko_point = 0;
        if let Some(old) = self.cells[p.index()].color() {
            if Some(old) == stone {
                return;
            }
            self.remove_stone(p, old);
        }
        if let Some(c) = stone {
            self.add_stone(p, c);
        }
        // Rebuild the chain records of every chain that may have changed: those
        // through p and through its neighbours.
        let mut seeds = vec![p];
        seeds.extend(p.neighbors());
        for s in seeds {
            if self.cells[s.index()].color().is_some() {
                self.rebuild_chain(s);
            }
        }
    }

    /// Recomputes the chain records through the stone `p` from scratch.
    fn rebuild_chain(&mut self, p: Point) {
        let (stones, libs) = self.flood_chain(p);
        let head = stones[0];
        for (k, &s) in stones.iter().enumerate() {
            self.head[s as usize] = head;
            self.next[s as usize] = stones[(k + 1) % stones.len()];
        }
        self.libs[head as usize] = libs;
        self.size[head as usize] = stones.len() as u16;
    }

    /// The stones (starting with `p`) and the number of distinct liberties of the
    /// chain through the stone `p`, by flood fill over the cells alone.
    fn flood_chain(&self, p: Point) -> (Vec<u16>, u16) {
        let color = self.cells[p.index()];
        let mut stones = vec![p.index() as u16];
        let mut seen = vec![false; CELLS];
        seen[p.index()] = true;
        let mut libs = 0u16;
        let mut i = 0;
        while i < stones.len() {
            let s = Point::from_index(stones[i] as usize);
            for n in s.neighbors() {
                let c = self.cells[n.index()];
                if !seen[n.index()] && (c == color || c == Stone::Empty) {
                    seen[n.index()] = true;
                    if c == color {
                        stones.push(n.index() as u16);
                    } else {
                        libs += 1;
                    }
                }
            }
            i += 1;
        }
        (stones, libs)
    }

    /// The position key computed from scratch: for tests and debug checks only.
    pub fn hash_from_scratch(&self) -> u64 {
        self.geometry
            .points()
            .filter_map(|p| self.at(p).color().map(|c| zobrist::stone_key(c, p)))
            .fold(0, |a, k| a ^ k)
    }

    /// Checks every incremental structure against a from-scratch computation.
    /// For tests and debug assertions; panics with a description on mismatch.
    pub fn assert_consistent(&self) {
        assert_eq!(self.hash, self.hash_from_scratch(), "hash");
        let mut empties = 0;
        let mut checked = vec![false; CELLS];
        for p in self.geometry.points() {
            let i = p.index();
            let mut counts = [0u8; 4];
            for n in p.neighbors() {
                counts[self.cells[n.index()] as usize] += 1;
            }
            assert_eq!(self.nbrs[i], counts, "neighbour counts at {p:?}");
            assert_eq!(
                self.pattern[i],
                self.pattern_from_scratch(p),
                "3x3 code at {p:?}"
            );
            match self.cells[i] {
                Stone::Empty => {
                    empties += 1;
                    assert_eq!(
                        self.empties[self.empty_at[i] as usize] as usize, i,
                        "empty list"
                    );
                }
                Stone::Black | Stone::White => {
                    if checked[i] {
                        continue;
                    }
                    let (stones, libs) = self.flood_chain(p);
                    let h = self.head[i] as usize;
                    assert_eq!(self.cells[h], self.cells[i], "head colour at {p:?}");
                    assert_eq!(self.libs[h], libs, "liberties at {p:?}");
                    assert_eq!(self.size[h] as usize, stones.len(), "size at {p:?}");
                    assert_eq!(
                        self.chain_stones(p).count(),
                        stones.len(),
                        "chain list at {p:?}"
                    );
                    for s in stones {
                        assert_eq!(
                            self.head[s as usize] as usize, h,
                            "chain membership at {p:?}"
                        );
                        checked[s as usize] = true;
                    }
                }
                Stone::Border => panic!("border inside the board at {p:?}"),
            }
        }
        assert_eq!(empties, self.num_empty as usize, "empty count");
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for y in 0..self.geometry.height() {
            for x in 0..self.geometry.width() {
                let p = self.geometry.point(x, y).expect("in range");
                let ch = match self.at(p) {
                    Stone::Black => 'X',
                    Stone::White => 'O',
                    _ => '.',
                };
                write!(f, "{ch}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
