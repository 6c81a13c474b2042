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

/// Allocations of three batched evaluations (and post-processings) on each board size of
/// `sizes`, after one warm-up evaluation on the first.
fn allocations_after_warm_up(net: &Network, sizes: &[usize]) -> usize {
    let mut ws = Workspace::new(net, 3, 19);
    // Not `vec![RawEval::new(); 3]`: clones do not keep the capacity for 19x19.
    let mut raw: Vec<RawEval> = (0..3).map(|_| RawEval::new()).collect();
    let mut eval = NetEval::new();
    let inputs: Vec<(usize, Vec<f32>, Vec<bool>)> = sizes
        .iter()
        .map(|&n| {
            let area = n * n;
            let mut spatial = vec![0.0f32; 22 * area];
            spatial[..area].fill(1.0);
            spatial[area + area / 2] = 1.0;
            (n, spatial, vec![true; area + 1])
        })
        .collect();
    let global = [0.0f32; 19];
    fn input<'a>(case: &'a (usize, Vec<f32>, Vec<bool>), global: &'a [f32; 19]) -> NetInput<'a> {
        NetInput {
            width: case.0,
            height: case.0,
            spatial: &case.1,
            global,
            meta: None,
        }
    }
    net.evaluate(
        &mut ws,
        &[input(&inputs[0], &global); 3],
        &[0, 3, 6],
        &mut raw,
    )
    .expect("warm-up");
    // The forward pass is counted alone; post-processing grows its outputs on the first
    // board of each size and is then counted from the second evaluation on.
    let mut allocations = 0;
    for case in &inputs {
        for round in 0..3 {
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            net.evaluate(&mut ws, &[input(case, &global); 3], &[1, 2, 7], &mut raw)
                .expect("evaluate");
            allocations += ALLOCATIONS.load(Ordering::Relaxed) - before;
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            postprocess(
                net,
                &raw[0],
                tengen::Color::White,
                &case.2,
                &PostProcessOptions::default(),
                &mut eval,
            );
            if round > 0 {
                allocations += ALLOCATIONS.load(Ordering::Relaxed) - before;
            }
        }
    }
    allocations
}

#[test]
fn evaluation_allocates_nothing_after_warm_up_and_the_net_is_shared_by_threads() {
    // The built-in net's file in the crate, else the shared copy beside it.
    let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = "g170-b6c96-s175395328-d26788732.bin.gz";
    let builtin = crate_dir.join("src/nn/file/builtin").join(file);
    let path = if builtin.exists() {
        builtin
    } else {
        crate_dir.join("../shared/nets").join(file)
    };
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
    assert_eq!(
        allocations_after_warm_up(&net, &[9, 19]),
        0,
        "allocations during evaluation"
    );
    // Two threads on one net (other threads' allocations may count; only check it runs).
    std::thread::scope(|s| {
        let a = s.spawn(|| allocations_after_warm_up(&net, &[9]));
        let b = s.spawn(|| allocations_after_warm_up(&net, &[9]));
        a.join().expect("thread a");
        b.join().expect("thread b");
    });
    the_transformer_allocates_nothing_after_warm_up();
}

/// The transformer's attention packs its keys and values per evaluation: into buffers sized
/// for the largest board at the start, so a larger board after a small one allocates nothing.
/// (Called by the one test of this binary: the allocation count is the whole process's, so no
/// other test may run beside it.)
fn the_transformer_allocates_nothing_after_warm_up() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/nets/b10c384h6nbttflrs.bin.gz");
    if !path.exists() {
        eprintln!(
            "SKIP the_transformer_allocates_nothing_after_warm_up: {} is missing (.ci/fetch-nets)",
            path.display()
        );
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the b10c384h6nbttflrs net is missing under CI"
        );
        return;
    }
    let net = Network::load(&path).expect("load");
    assert_eq!(
        allocations_after_warm_up(&net, &[9, 19, 13]),
        0,
        "allocations during evaluation"
    );
}
