//! The kept tree's values moved to a new score-utility center.
//!
//! A network leaf's value blends its win probability with a score utility
//! centred on the margin the root expects (KataGo's dynamic score utility),
//! and each search sets that center afresh. The nodes kept from earlier
//! searches were valued about earlier centers: left so, a move whose visits
//! came from the last search would be compared with one searched now on
//! different scales (a center moved by 3 points on 19×19 shifts a value by
//! about 0.02, as much as separates two good moves). So before a search,
//! every node reachable from the root has its own evaluation's value
//! recomputed about the new center from the score it keeps, and its
//! children's values gathered again from the leaves up, as KataGo
//! recomputes its tree's utilities when its center moves.
//!
//! The center last moved to stands for every node's: exact for the tree
//! kept from one move to the next, approximate for nodes left unreachable
//! by earlier searches and met again (by transposition, or analysis going
//! back to an earlier position). Nodes whose own results are playouts or
//! folded children keep their values.
//!
//! Off by default (`--recenter`): against KataGo at 100 visits it showed no
//! gain (docs/search.md).

use super::config::SearchConfig;
use super::tt::Table;
use crate::go::board::Color;
use rustc_hash::FxHashSet;

/// The center the kept values are about, and the walk's scratch space.
#[derive(Default)]
pub struct Recentering {
    /// The score center of the last network search (`None` before one).
    center: Option<f64>,
    /// Nodes still to finish: slot, player to move, children pushed.
    stack: Vec<(u32, Color, bool)>,
    seen: FxHashSet<u32>,
}

impl Recentering {
    /// Moves the values of the nodes reachable from `root` (a slot, with
    /// `mover` to play), if the table holds it, to `center`, on a board
    /// whose side (of a square of the same area) is `size`. See the module
    /// documentation.
    pub fn run(
        &mut self,
        table: &mut Table,
        root: Option<u32>,
        mover: Color,
        center: f64,
        size: f64,
        cfg: &SearchConfig,
    ) {
        let old = self.center.replace(center);
        let (Some(old), Some(root)) = (old, root) else {
            return;
        };
        if old == center || cfg.score_weight == 0.0 {
            return;
        }
        let shaping = cfg.value_shaping();
        self.stack.clear();
        self.seen.clear();
        self.stack.push((root, mover, false));
        while let Some(top) = self.stack.last_mut() {
            let (slot, mover, pushed) = *top;
            if !pushed {
                // Each node once (the tree is a graph), after its children
                // (post-order): a node met again while it waits deeper in
                // the stack is finished here, above the parent met last.
                if !self.seen.insert(slot) {
                    self.stack.pop();
                    continue;
                }
                top.2 = true;
                for e in table.edges(slot) {
                    if e.visits == 0 || e.child_key == 0 || e.multi_child {
                        continue;
                    }
                    if let Some(child) = table.find(e.child_key, e.child_slot) {
                        if !self.seen.contains(&child) {
                            self.stack.push((child, mover.opp(), false));
                        }
                    }
                }
                continue;
            }
            self.stack.pop();
            let node = table.node_mut(slot);
            if let (true, Some((margin, stdev))) = (node.own_n > 0, node.own_score.get()) {
                let shape = cfg.score_shape;
                let shift = shape.expected(margin, stdev, center, size)
                    - shape.expected(margin, stdev, old, size);
                node.own_sum += node.own_w * cfg.score_weight * shift;
            }
            if node.is_expanded() {
                table.refresh(slot, true, Some((mover, &shaping)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tt::{Edge, OwnScore, NO_SLOT};

    /// A leaf node judged once: Black's win probability and score.
    struct Judged {
        win: f64,
        margin: f64,
        stdev: f64,
    }

    const SIZE: f64 = 19.0;

    /// A root (Black to move, judged as `root`) over two judged children,
    /// every value computed about `center`, visits 1 (root), 3 and 2.
    fn tree_about(
        center: f64,
        cfg: &SearchConfig,
        root: &Judged,
        kids: &[Judged; 2],
    ) -> (Table, u32) {
        let value = |j: &Judged| {
            cfg.score_utility()
                .value(j.win, j.margin, j.stdev, center, SIZE)
        };
        let mut t = Table::new(1);
        let r = t.find_or_insert(100, NO_SLOT, &[]).unwrap();
        let leaf = |t: &mut Table, key: u64, j: &Judged, n: u32| {
            let s = t.find_or_insert(key, NO_SLOT, &[]).unwrap();
            let node = t.node_mut(s);
            node.own_n = n;
            node.own_w = f64::from(n);
            node.own_sum = f64::from(n) * value(j);
            node.own_score = OwnScore::new(j.margin, j.stdev);
            s
        };
        let children = [
            leaf(&mut t, 101, &kids[0], 3),
            leaf(&mut t, 102, &kids[1], 2),
        ];
        leaf(&mut t, 100, root, 1);
        assert!(t.expand(r, &[Edge::new(1, 0.6, 0.5), Edge::new(2, 0.4, 0.5)]));
        let visits = [3u32, 2];
        for (i, &c) in children.iter().enumerate() {
            let q = t.node(c).value() as f32;
            let (_, edges) = t.node_and_edges_mut(r);
            edges[i].visits = visits[i];
            edges[i].weight = visits[i] as f32;
            edges[i].child_key = 101 + i as u64;
            edges[i].child_slot = c;
            edges[i].child_q = q;
        }
        t.refresh(r, true, Some((Color::Black, &cfg.value_shaping())));
        (t, r)
    }

    #[test]
    fn a_moved_center_gives_the_values_a_search_about_it_would_have() {
        let cfg = SearchConfig::default();
        let root = Judged {
            win: 0.55,
            margin: 2.0,
            stdev: 12.0,
        };
        let kids = [
            Judged {
                win: 0.6,
                margin: 4.5,
                stdev: 10.0,
            },
            Judged {
                win: 0.4,
                margin: -3.0,
                stdev: 0.0,
            },
        ];
        let (mut moved, r) = tree_about(1.0, &cfg, &root, &kids);
        let (want, _) = tree_about(6.0, &cfg, &root, &kids);
        let before = moved.node(r).value();
        let mut recentering = Recentering::default();
        // The first search only learns the center its values are about.
        recentering.run(&mut moved, Some(r), Color::Black, 1.0, SIZE, &cfg);
        assert_eq!(moved.node(r).value(), before);
        recentering.run(&mut moved, Some(r), Color::Black, 6.0, SIZE, &cfg);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-3;
        assert!(
            moved.node(r).value() < before - 0.01,
            "a higher center lowers Black's values"
        );
        assert!(close(moved.node(r).value(), want.node(r).value()));
        for (i, e) in moved.edges(r).iter().enumerate() {
            assert!(close(
                f64::from(e.child_q),
                f64::from(want.edges(r)[i].child_q)
            ));
        }
        // Without a score part there is nothing to move.
        let cfg = SearchConfig {
            score_weight: 0.0,
            ..cfg
        };
        let (mut plain, r) = tree_about(1.0, &cfg, &root, &kids);
        let before = plain.node(r).value();
        let mut recentering = Recentering::default();
        recentering.run(&mut plain, Some(r), Color::Black, 1.0, SIZE, &cfg);
        recentering.run(&mut plain, Some(r), Color::Black, 6.0, SIZE, &cfg);
        assert_eq!(plain.node(r).value(), before);
    }

    #[test]
    fn a_child_met_again_through_a_transposition_is_moved_before_its_parents() {
        // Root (Black) -> B and -> A, A (White) -> B: B is reached twice,
        // first through the root, whose edge to it comes first.
        let cfg = SearchConfig::default();
        let mut t = Table::new(1);
        let judged = |t: &mut Table, key: u64, margin: f64| {
            let s = t.find_or_insert(key, NO_SLOT, &[]).unwrap();
            let node = t.node_mut(s);
            node.own_n = 1;
            node.own_w = 1.0;
            node.own_sum = cfg.score_utility().value(0.5, margin, 5.0, 0.0, SIZE);
            node.own_score = OwnScore::new(margin, 5.0);
            s
        };
        let (r, a, b) = (
            judged(&mut t, 200, 0.0),
            judged(&mut t, 201, 3.0),
            judged(&mut t, 202, -2.0),
        );
        let link = |t: &mut Table, from: u32, to: &[(u32, u64)]| {
            let edges: Vec<Edge> = (0..to.len())
                .map(|i| Edge::new(i as u16 + 1, 0.5, 0.5))
                .collect();
            assert!(t.expand(from, &edges));
            for (i, &(slot, key)) in to.iter().enumerate() {
                let q = t.node(slot).value() as f32;
                let (_, e) = t.node_and_edges_mut(from);
                (
                    e[i].visits,
                    e[i].weight,
                    e[i].child_key,
                    e[i].child_slot,
                    e[i].child_q,
                ) = (1, 1.0, key, slot, q);
            }
        };
        link(&mut t, a, &[(b, 202)]);
        t.refresh(a, true, None);
        link(&mut t, r, &[(b, 202), (a, 201)]);
        t.refresh(r, true, None);
        let mut recentering = Recentering::default();
        recentering.run(&mut t, Some(r), Color::Black, 0.0, SIZE, &cfg);
        recentering.run(&mut t, Some(r), Color::Black, 8.0, SIZE, &cfg);
        // A's edge holds B's value about the new center, as the root's does.
        let b_now = t.node(b).value() as f32;
        assert!((t.edges(a)[0].child_q - b_now).abs() < 1e-6);
        assert!((t.edges(r)[0].child_q - b_now).abs() < 1e-6);
        assert!((t.edges(r)[1].child_q - t.node(a).value() as f32).abs() < 1e-6);
    }

    #[test]
    fn an_own_score_keeps_a_thirty_second_of_a_point() {
        let (m, sd) = OwnScore::new(-7.53, 31.02).get().unwrap();
        assert!((m + 7.53).abs() <= 1.0 / 64.0 && (sd - 31.02).abs() <= 1.0 / 64.0);
        assert_eq!(OwnScore::new(5000.0, -1.0).get(), Some((1023.96875, 0.0)));
        assert_eq!(OwnScore::UNKNOWN.get(), None);
    }
}
