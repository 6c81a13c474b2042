//! The AVX-512 micro-kernel, and the walk over C's micro-tiles that the bf16 kernel
//! ([`crate::nn::kernels::bf16`]) shares.
use super::matrix::{store_row, PackedMatrix, KC, PANEL};
use std::arch::x86_64::*;

/// Rows per micro-tile: 12 rows x 32 columns (two panels) = 24 accumulators.
pub const ROWS: usize = 12;

/// A micro-tile's sums when they cannot go straight to C: `ROWS` rows of each panel.
pub type Tile = [[f32; PANEL]; 2 * ROWS];

/// Where a micro-tile's sums go: straight into C (its first element, C's row stride, and
/// whether to add to what is there) when all its columns are real, else `None` (into the
/// [`Tile`], whose real columns [`walk`] then copies).
pub type Direct = Option<(*mut f32, usize, bool)>;

/// A micro-kernel: the sums of `R` rows from row `i` by `P` 16-wide panels from panel `p`,
/// over the inner range `d0..d1` (in the kernel's own steps: values, or bf16 pairs).
pub trait MicroKernel {
    /// # Safety
    /// The CPU has the kernel's instructions; `i + R <= m`, `p + P` panels exist, and
    /// `direct`, when given, points at `R` rows of `16 * P` writable values.
    #[allow(clippy::too_many_arguments)] // a micro-tile's coordinates
    unsafe fn tile<const R: usize, const P: usize>(
        &self,
        i: usize,
        p: usize,
        d0: usize,
        d1: usize,
        tile: &mut Tile,
        direct: Direct,
    );
}

/// `C (m x n) = sums` (or `+=` when `accumulate`): walks C in micro-tiles of up to 12 rows
/// by two panels, over blocks of `block` steps of the inner `depth`, and has `kernel`
/// compute each.
///
/// # Safety
/// The CPU has AVX-512F and the kernel's instructions; `c` holds `m * n` values and the
/// kernel's operands cover `m` rows, `n` columns and `depth` steps.
#[target_feature(enable = "avx512f")]
pub unsafe fn walk<K: MicroKernel>(
    kernel: &K,
    m: usize,
    n: usize,
    depth: usize,
    block: usize,
    c: &mut [f32],
    accumulate: bool,
) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let panels = n.div_ceil(PANEL);
        // A ragged panel's tile, which the micro-kernel writes whole before it is read: made
        // once here (zeroing it for every micro-tile cost 3% of a transformer's evaluation).
        let mut tile = [[0.0f32; PANEL]; 2 * ROWS];
        let mut d0 = 0;
        while d0 < depth {
            let d1 = (d0 + block).min(depth);
            let add = accumulate || d0 > 0;
            let mut p = 0;
            while p < panels {
                let pair = p + 1 < panels;
                let mut i = 0;
                while i < m {
                    let rows = ROWS.min(m - i);
                    // Full panels go straight to C; a ragged last panel through `tile`.
                    let last = p + usize::from(pair);
                    let full = n - last * PANEL >= PANEL;
                    let direct = full.then(|| (c.as_mut_ptr().add(i * n + p * PANEL), n, add));
                    macro_rules! go {
                        ($r:literal) => {
                            if pair {
                                kernel.tile::<$r, 2>(i, p, d0, d1, &mut tile, direct)
                            } else {
                                kernel.tile::<$r, 1>(i, p, d0, d1, &mut tile, direct)
                            }
                        };
                    }
                    match rows {
                        12 => go!(12),
                        11 => go!(11),
                        10 => go!(10),
                        9 => go!(9),
                        8 => go!(8),
                        7 => go!(7),
                        6 => go!(6),
                        5 => go!(5),
                        4 => go!(4),
                        3 => go!(3),
                        2 => go!(2),
                        _ => go!(1),
                    }
                    if direct.is_none() {
                        for q in 0..=usize::from(pair) {
                            let cols = PANEL.min(n - (p + q) * PANEL);
                            for r in 0..rows {
                                store_row(
                                    &tile[q * ROWS + r],
                                    &mut c[(i + r) * n + (p + q) * PANEL..],
                                    cols,
                                    add,
                                );
                            }
                        }
                    }
                    i += rows;
                }
                p += if pair { 2 } else { 1 };
            }
            d0 = d1;
        }
    }
}

/// Writes a micro-tile's `R` rows of accumulators (`acc1` only when `P` is 2) where
/// `direct` says. A macro, not a function: a function with a target feature is not
/// always inlined, and then the accumulators go through memory (seen: 10% slower).
macro_rules! write_tile {
    ($r:expr, $p:expr, $acc0:expr, $acc1:expr, $tile:expr, $direct:expr) => {
        match $direct {
            Some((c, ldc, add)) => {
                for r in 0..$r {
                    let row = c.add(r * ldc);
                    let (mut x0, mut x1) = ($acc0[r], $acc1[r]);
                    if add {
                        x0 = _mm512_add_ps(x0, _mm512_loadu_ps(row));
                        if $p == 2 {
                            x1 = _mm512_add_ps(x1, _mm512_loadu_ps(row.add(PANEL)));
                        }
                    }
                    _mm512_storeu_ps(row, x0);
                    if $p == 2 {
                        _mm512_storeu_ps(row.add(PANEL), x1);
                    }
                }
            }
            None => {
                for r in 0..$r {
                    _mm512_storeu_ps($tile[r].as_mut_ptr(), $acc0[r]);
                    if $p == 2 {
                        _mm512_storeu_ps($tile[ROWS + r].as_mut_ptr(), $acc1[r]);
                    }
                }
            }
        }
    };
}
pub(crate) use write_tile;

/// The fp32 operands of one product.
struct Fp32<'a> {
    a: &'a [f32],
    lda: usize,
    b: &'a PackedMatrix,
}

impl MicroKernel for Fp32<'_> {
    #[target_feature(enable = "avx512f")]
    unsafe fn tile<const R: usize, const P: usize>(
        &self,
        i: usize,
        p: usize,
        k0: usize,
        k1: usize,
        tile: &mut Tile,
        direct: Direct,
    ) {
        // SAFETY: this fn's contract: the CPU has its target features, and the operands
        // cover the shapes it is given (its safe caller checked both).
        unsafe {
            let (b, lda) = (self.b, self.lda);
            let panel0 = b.panel(p).as_ptr();
            let panel1 = if P == 2 {
                b.panel(p + 1).as_ptr()
            } else {
                panel0
            };
            let a = self.a.as_ptr().add(i * lda);
            let mut acc0 = [_mm512_setzero_ps(); R];
            let mut acc1 = [_mm512_setzero_ps(); R];
            for kk in k0..k1 {
                let b0 = _mm512_loadu_ps(panel0.add(kk * PANEL));
                let b1 = _mm512_loadu_ps(panel1.add(kk * PANEL));
                for r in 0..R {
                    let x = _mm512_set1_ps(*a.add(r * lda + kk));
                    acc0[r] = _mm512_fmadd_ps(x, b0, acc0[r]);
                    if P == 2 {
                        acc1[r] = _mm512_fmadd_ps(x, b1, acc1[r]);
                    }
                }
            }
            write_tile!(R, P, acc0, acc1, tile, direct);
        }
    }
}

#[target_feature(enable = "avx512f")]
pub unsafe fn run(
    m: usize,
    a: &[f32],
    lda: usize,
    b: &PackedMatrix,
    c: &mut [f32],
    accumulate: bool,
) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        walk(&Fp32 { a, lda, b }, m, b.n, b.k, KC, c, accumulate);
    }
}
