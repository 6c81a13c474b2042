//! Pass-alive area in KataGo's sense (`Board::calculateArea`): Benson's
//! unconditional life for each colour, the territory it encloses, and the
//! optional "big territory" and "any stone" marks the network's area planes use.
//!
//! This is a feature for the network, not tengen's scoring (see [`crate::go::score`]).
//! Regions are the maximal connected sets of points that are empty or hold an
//! opponent stone, seeded only from empty points. A region is *vital* for an own
//! chain when each of its empty points (each of its points, when multi-stone
//! suicide is legal) touches that chain. Chains with fewer than two vital regions
//! die, regions touching a dead chain stop being vital, until nothing changes.

use crate::go::board::{Board, Color, Point, Stone, CELLS};

/// Which extra marks [`AreaScratch::calculate`] adds to the pass-alive core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AreaFlags {
    /// Stones not marked otherwise count for their own colour.
    pub non_pass_alive_stones: bool,
    /// Empty regions bordered only by a colour's pass-alive chains count for it.
    pub safe_big_territories: bool,
    /// Empty regions bordered only by one colour count for it where still unmarked.
    pub unsafe_big_territories: bool,
}

impl AreaFlags {
    /// The flags KataGo's V7 features pass (area scoring, no tax): all three.
    pub const FEATURES: AreaFlags = AreaFlags {
        non_pass_alive_stones: true,
        safe_big_territories: true,
        unsafe_big_territories: true,
    };
    /// Only pass-alive chains and pass-alive territory.
    pub const PASS_ALIVE_ONLY: AreaFlags = AreaFlags {
        non_pass_alive_stones: false,
        safe_big_territories: false,
        unsafe_big_territories: false,
    };
}

/// One region of empty-or-opponent points.
#[derive(Clone, Copy, Debug, Default)]
struct Region {
    /// Range of the region's points in `AreaScratch::members`.
    start: u32,
    len: u32,
    /// Range of the own chain heads it is vital for in `AreaScratch::vital`.
    vital_start: u32,
    vital_len: u32,
    /// Points not touching any own stone, counted up to 2.
    internal: u8,
    contains_opp: bool,
    borders_dead: bool,
}

/// Reusable buffers; [`AreaScratch::calculate`] allocates nothing once warm.
#[derive(Clone)]
pub struct AreaScratch {
    region_of: Vec<i16>,
    members: Vec<Point>,
    regions: Vec<Region>,
    vital: Vec<u16>,
    heads: Vec<Point>,
    dead: Vec<bool>,
    vital_count: Vec<i32>,
}

impl Default for AreaScratch {
    fn default() -> Self {
        AreaScratch {
            region_of: vec![-1; CELLS],
            members: Vec::with_capacity(CELLS),
            regions: Vec::with_capacity(CELLS / 2),
            vital: Vec::with_capacity(CELLS * 2),
            heads: Vec::with_capacity(CELLS),
            dead: Vec::with_capacity(CELLS),
            vital_count: vec![0; CELLS],
        }
    }
}

fn touches_chain(board: &Board, p: Point, head: u16) -> bool {
    p.neighbors()
        .iter()
        .any(|&n| board.at(n).color().is_some() && board.chain_head(n).index() as u16 == head)
}

impl AreaScratch {
    /// Fills `out` (indexed by cell, length [`CELLS`]) with the owner of each
    /// on-board point, `None` where nobody owns it.
    pub fn calculate(
        &mut self,
        board: &Board,
        flags: AreaFlags,
        suicide_legal: bool,
        out: &mut [Option<Color>],
    ) {
        for p in board.geometry().points() {
            out[p.index()] = None;
        }
        for pla in Color::BOTH {
            self.for_player(board, pla, flags, suicide_legal, out);
        }
        if flags.non_pass_alive_stones {
            for p in board.geometry().points() {
                if out[p.index()].is_none() {
                    out[p.index()] = board.at(p).color();
                }
            }
        }
    }

    /// Marks in `out` what `pla` owns: its pass-alive chains and territory, and
    /// the big territories `flags` asks for.
    fn for_player(
        &mut self,
        board: &Board,
        pla: Color,
        flags: AreaFlags,
        suicide_legal: bool,
        out: &mut [Option<Color>],
    ) {
        let own = pla.stone();
        let opp = pla.opp().stone();
        self.clear(board);
        let any_own = self.find_chains_and_regions(board, own, opp, suicide_legal);
        self.count_vital_regions();
        self.kill_chains(board, opp);
        self.mark_area(board, pla, flags, any_own, out);
    }

    /// Empties the buffers for a new colour.
    fn clear(&mut self, board: &Board) {
        for p in board.geometry().points() {
            self.region_of[p.index()] = -1;
        }
        self.members.clear();
        self.regions.clear();
        self.vital.clear();
        self.heads.clear();
    }

    /// Lists the heads of the `own` chains and floods every region, in board
    /// order; returns whether there is any `own` stone.
    fn find_chains_and_regions(
        &mut self,
        board: &Board,
        own: Stone,
        opp: Stone,
        suicide_legal: bool,
    ) -> bool {
        let mut any_own = false;
        for p in board.geometry().points() {
            let s = board.at(p);
            if s == own {
                any_own = true;
                if board.chain_head(p) == p {
                    self.heads.push(p);
                }
            }
            if self.region_of[p.index()] != -1 || s != Stone::Empty {
                continue;
            }
            let region = self.flood_region(board, p, own, opp, suicide_legal);
            self.regions.push(region);
        }
        any_own
    }

    /// Floods the region of the empty point `p` into `members`, keeping in
    /// `vital` the `own` chains it is vital for.
    fn flood_region(
        &mut self,
        board: &Board,
        p: Point,
        own: Stone,
        opp: Stone,
        suicide_legal: bool,
    ) -> Region {
        let idx = self.regions.len();
        let mut region = Region {
            start: self.members.len() as u32,
            vital_start: self.vital.len() as u32,
            ..Region::default()
        };
        for n in p.neighbors() {
            if board.at(n) == own {
                let h = board.chain_head(n).index() as u16;
                let list = &self.vital[region.vital_start as usize..];
                if !list.contains(&h) {
                    self.vital.push(h);
                }
            }
        }
        region.vital_len = self.vital.len() as u32 - region.vital_start;
        // Breadth-first flood; `members` doubles as the queue.
        self.region_of[p.index()] = idx as i16;
        self.members.push(p);
        let mut head = region.start as usize;
        while head < self.members.len() {
            let q = self.members[head];
            head += 1;
            let sq = board.at(q);
            if region.vital_len > 0 && (suicide_legal || sq == Stone::Empty) {
                region.vital_len = self.keep_vital_touching(board, q, &region);
            }
            if region.internal < 2 && board.neighbor_count(q, own) == 0 {
                region.internal += 1;
            }
            if sq == opp {
                region.contains_opp = true;
            }
            for n in q.neighbors() {
                let sn = board.at(n);
                if (sn == Stone::Empty || sn == opp) && self.region_of[n.index()] == -1 {
                    self.region_of[n.index()] = idx as i16;
                    self.members.push(n);
                }
            }
        }
        region.len = self.members.len() as u32 - region.start;
        // Drop the vital entries filtered away so the next region starts after the kept ones.
        self.vital
            .truncate((region.vital_start + region.vital_len) as usize);
        region
    }

    /// Keeps, at the front of `region`'s vital list, the chains the point `q`
    /// touches; returns how many.
    fn keep_vital_touching(&mut self, board: &Board, q: Point, region: &Region) -> u32 {
        let vs = region.vital_start as usize;
        let mut kept = 0;
        for i in 0..region.vital_len as usize {
            let h = self.vital[vs + i];
            if touches_chain(board, q, h) {
                self.vital[vs + kept] = h;
                kept += 1;
            }
        }
        kept as u32
    }

    /// Counts for each chain the regions vital for it.
    fn count_vital_regions(&mut self) {
        for &h in &self.heads {
            self.vital_count[h.index()] = 0;
        }
        for r in &self.regions {
            for i in 0..r.vital_len {
                let h = self.vital[(r.vital_start + i) as usize];
                self.vital_count[h as usize] += 1;
            }
        }
    }

    /// Benson's loop: kills the chains with fewer than two vital regions, the
    /// regions around them no longer vital, until no chain dies.
    fn kill_chains(&mut self, board: &Board, opp: Stone) {
        self.dead.clear();
        self.dead.resize(self.heads.len(), false);
        loop {
            let mut killed = false;
            for i in 0..self.heads.len() {
                let h = self.heads[i];
                if self.dead[i] || self.vital_count[h.index()] >= 2 {
                    continue;
                }
                self.dead[i] = true;
                killed = true;
                self.border_dead_chain(board, h, opp);
            }
            if !killed {
                break;
            }
        }
    }

    /// Marks the regions next to the dead chain of `h` as bordering it, and
    /// takes them from the vital counts of the chains they were vital for.
    fn border_dead_chain(&mut self, board: &Board, h: Point, opp: Stone) {
        for s in board.chain_stones(h) {
            for n in s.neighbors() {
                let r = self.region_of[n.index()];
                let sn = board.at(n);
                if r < 0 || !(sn == Stone::Empty || sn == opp) {
                    continue;
                }
                let region = &mut self.regions[r as usize];
                if region.borders_dead {
                    continue;
                }
                region.borders_dead = true;
                for k in 0..region.vital_len {
                    let vh = self.vital[(region.vital_start + k) as usize];
                    self.vital_count[vh as usize] -= 1;
                }
            }
        }
    }

    /// Writes `pla`'s area into `out`: the living chains, the pass-alive
    /// territory, and the big territories `flags` asks for.
    fn mark_area(
        &self,
        board: &Board,
        pla: Color,
        flags: AreaFlags,
        any_own: bool,
        out: &mut [Option<Color>],
    ) {
        for (i, &h) in self.heads.iter().enumerate() {
            if !self.dead[i] {
                for s in board.chain_stones(h) {
                    out[s.index()] = Some(pla);
                }
            }
        }
        for r in &self.regions {
            let points = &self.members[r.start as usize..(r.start + r.len) as usize];
            let pass_alive_territory = r.internal <= 1 && !r.borders_dead && any_own;
            let safe_big =
                flags.safe_big_territories && !r.contains_opp && !r.borders_dead && any_own;
            if pass_alive_territory || safe_big {
                for q in points {
                    out[q.index()] = Some(pla);
                }
            } else if flags.unsafe_big_territories && !r.contains_opp && any_own {
                for q in points {
                    if out[q.index()].is_none() {
                        out[q.index()] = Some(pla);
                    }
                }
            }
        }
    }
}
