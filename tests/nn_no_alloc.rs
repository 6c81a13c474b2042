//! An evaluation allocates nothing once the workspace and outputs exist (counted through a
//! global allocator), and one network is shared by threads.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use tengen::nn::{postprocess, NetEval, NetInput, Network, PostProcessOptions, RawEval, Workspace};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged, only counting calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn evaluation_allocates_nothing_after_warm_up_and_the_net_is_shared_by_threads() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/nets/g170-b6c96-s175395328-d26788732.bin.gz");
    if !path.exists() {
        eprintln!(
            "SKIP evaluation_allocates_nothing_after_warm_up: {} is missing",
            path.display()
        );
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the b6c96 net is missing under CI"
        );
        return;
    }
    let net = Network::load(&path).expect("load");
    let n = 9;
    let area = n * n;
    let mut spatial = vec![0.0f32; 22 * area];
    spatial[..area].fill(1.0);
    let global = [0.0f32; 19];
    let legal = vec![true; area + 1];
    let run = |net: &Network| -> usize {
        let mut ws = Workspace::new(net, 3, 19);
        let mut raw = vec![RawEval::new(); 3];
        let mut eval = NetEval::new();
        let input = NetInput {
            board_size: n,
            spatial: &spatial,
            global: &global,
            meta: None,
        };
        net.evaluate(&mut ws, &[input; 3], &[0, 3, 6], &mut raw)
            .expect("warm-up");
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        for _ in 0..3 {
            net.evaluate(&mut ws, &[input; 3], &[1, 2, 7], &mut raw)
                .expect("evaluate");
            postprocess(
                net,
                &raw[0],
                tengen::Color::White,
                &legal,
                &PostProcessOptions::default(),
                &mut eval,
            );
        }
        ALLOCATIONS.load(Ordering::Relaxed) - before
    };
    assert_eq!(run(&net), 0, "allocations during evaluation");
    // Two threads on one net (other threads' allocations may count; only check it runs).
    std::thread::scope(|s| {
        let a = s.spawn(|| run(&net));
        let b = s.spawn(|| run(&net));
        a.join().expect("thread a");
        b.join().expect("thread b");
    });
}
