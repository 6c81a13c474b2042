//! Single-precision matrix product `C (m x n) = A (m x k) * B (k x n) [+ C]` against a constant
//! right-hand matrix packed once at load time into 16-column panels.
//!
//! Runtime dispatch picks an AVX-512 or AVX2+FMA micro-kernel when the CPU has it, a portable
//! loop otherwise; nothing is allocated per call. The left matrix is read in place (row-major,
//! any row stride), so im2col rows and NHWC activations feed it directly.

use std::sync::OnceLock;

/// Width of a packed panel (one AVX-512 register, two AVX2 registers).
pub(in crate::nn::kernels) const PANEL: usize = 16;
/// Inner-dimension block: a 16-wide panel block of 16 KiB stays in L1 (the transformer nets'
/// 192- and 256-deep products then take one pass over C instead of two).
pub(in crate::nn::kernels) const KC: usize = 256;

/// A `k x n` matrix packed as `ceil(n / 16)` panels of `k` rows of 16 floats (zero padded).
#[derive(Debug, Clone)]
pub struct PackedMatrix {
    k: usize,
    n: usize,
    data: Vec<f32>,
}

impl PackedMatrix {
    /// Packs row-major `b` (`k x n`).
    pub fn new(b: &[f32], k: usize, n: usize) -> Self {
        assert_eq!(b.len(), k * n, "matrix size");
        let panels = n.div_ceil(PANEL);
        let mut data = vec![0.0; panels * k * PANEL];
        for p in 0..panels {
            for row in 0..k {
                for j in 0..PANEL.min(n - p * PANEL) {
                    data[(p * k + row) * PANEL + j] = b[row * n + p * PANEL + j];
                }
            }
        }
        PackedMatrix { k, n, data }
    }

    /// An empty matrix with room to be repacked up to `k x n` without allocating (for
    /// right-hand matrices computed per evaluation: attention's keys and values).
    pub fn with_capacity(k: usize, n: usize) -> Self {
        PackedMatrix {
            k: 0,
            n: 0,
            data: Vec::with_capacity(n.div_ceil(PANEL) * k * PANEL),
        }
    }

    /// Repacks as the `k x n` matrix `B[row][col] = src[row * stride + col]`. Allocates only
    /// past the capacity.
    pub fn pack_rows(&mut self, src: &[f32], k: usize, n: usize, stride: usize) {
        self.reshape(k, n);
        for (p, panel) in self.data.chunks_exact_mut(k * PANEL).enumerate() {
            let cols = PANEL.min(n - p * PANEL);
            for (row, dst) in panel.chunks_exact_mut(PANEL).enumerate() {
                let at = row * stride + p * PANEL;
                dst[..cols].copy_from_slice(&src[at..at + cols]);
                dst[cols..].fill(0.0);
            }
        }
    }

    /// Repacks as the `k x n` matrix `B[row][col] = src[col * stride + row]`: the transpose of
    /// `n` rows of `k` values. Allocates only past the capacity.
    pub fn pack_transposed(&mut self, src: &[f32], k: usize, n: usize, stride: usize) {
        self.reshape(k, n);
        for (p, panel) in self.data.chunks_exact_mut(k * PANEL).enumerate() {
            let cols = PANEL.min(n - p * PANEL);
            for j in 0..PANEL {
                if j < cols {
                    let column = &src[(p * PANEL + j) * stride..][..k];
                    for (row, &v) in column.iter().enumerate() {
                        panel[row * PANEL + j] = v;
                    }
                } else {
                    for row in 0..k {
                        panel[row * PANEL + j] = 0.0;
                    }
                }
            }
        }
    }

    fn reshape(&mut self, k: usize, n: usize) {
        self.k = k;
        self.n = n;
        self.data.resize(n.div_ceil(PANEL) * k * PANEL, 0.0);
    }

    /// The packed values, padding included (for a reduced-precision twin that rounds them).
    pub(in crate::nn::kernels) fn values_mut(&mut self) -> &mut [f32] {
        &mut self.data
    }

    /// Multiplies column `j` by `scale[j]`.
    pub fn scale_columns(&mut self, scale: &[f32]) {
        for (p, panel) in self.data.chunks_exact_mut(self.k * PANEL).enumerate() {
            for row in panel.chunks_exact_mut(PANEL) {
                for (j, v) in row
                    .iter_mut()
                    .enumerate()
                    .take(self.n.saturating_sub(p * PANEL))
                {
                    *v *= scale[p * PANEL + j];
                }
            }
        }
    }

    /// The matrix back in row-major order.
    pub fn unpack(&self) -> Vec<f32> {
        let mut out = vec![0.0; self.k * self.n];
        for col in 0..self.n {
            let (p, j) = (col / PANEL, col % PANEL);
            for row in 0..self.k {
                out[row * self.n + col] = self.data[(p * self.k + row) * PANEL + j];
            }
        }
        out
    }

    /// Rows (the inner dimension).
    pub fn k(&self) -> usize {
        self.k
    }

    /// Columns.
    pub fn n(&self) -> usize {
        self.n
    }

    fn panel(&self, p: usize) -> &[f32] {
        &self.data[p * self.k * PANEL..(p + 1) * self.k * PANEL]
    }
}

/// Instruction sets with a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

/// The best kernel this CPU runs (detected once).
pub fn best_isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Isa::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return Isa::Avx2;
            }
        }
        Isa::Portable
    })
}

/// Every kernel this CPU can run (for tests).
pub fn available_isas() -> Vec<Isa> {
    let mut isas = vec![Isa::Portable];
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            isas.push(Isa::Avx2);
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            isas.push(Isa::Avx512);
        }
    }
    isas
}

/// `C = A * B` (or `C += A * B` when `accumulate`). `a` holds `m` rows of `b.k()` values at
/// stride `lda`; `c` holds `m` rows of `b.n()` values, contiguous.
pub fn gemm(m: usize, a: &[f32], lda: usize, b: &PackedMatrix, c: &mut [f32], accumulate: bool) {
    gemm_with(best_isa(), m, a, lda, b, c, accumulate);
}

/// [`gemm`] with a chosen kernel; panics if the CPU lacks it.
pub fn gemm_with(
    isa: Isa,
    m: usize,
    a: &[f32],
    lda: usize,
    b: &PackedMatrix,
    c: &mut [f32],
    accumulate: bool,
) {
    if !check_shapes(m, a, lda, b.k, c, b.n) {
        return;
    }
    match isa {
        Isa::Portable => portable::run(m, a, lda, b, c, accumulate),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => {
            assert!(
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            );
            // SAFETY: the CPU has AVX2 and FMA (checked above); the bounds of a, b, c were
            // checked above and the kernel stays inside them.
            unsafe { avx2::run(m, a, lda, b, c, accumulate) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            assert!(std::arch::is_x86_feature_detected!("avx512f"));
            // SAFETY: as above, with AVX-512F.
            unsafe { avx512::run(m, a, lda, b, c, accumulate) }
        }
    }
}

/// Checks that `a` holds `m` rows of `k` values at stride `lda` and `c` room for `m` rows of
/// `n` (panics otherwise); returns whether there is anything to compute.
pub(in crate::nn::kernels) fn check_shapes(
    m: usize,
    a: &[f32],
    lda: usize,
    k: usize,
    c: &[f32],
    n: usize,
) -> bool {
    if m == 0 || n == 0 {
        return false;
    }
    assert!(
        lda >= k && a.len() >= (m - 1) * lda + k,
        "left matrix too short"
    );
    assert!(c.len() >= m * n, "output too short");
    true
}

/// Writes a finished 16-wide tile row into `c` (only the `cols` real columns).
#[inline(always)]
pub(in crate::nn::kernels) fn store_row(
    tile: &[f32; PANEL],
    dst: &mut [f32],
    cols: usize,
    accumulate: bool,
) {
    if accumulate {
        for j in 0..cols {
            dst[j] += tile[j];
        }
    } else {
        dst[..cols].copy_from_slice(&tile[..cols]);
    }
}

mod portable {
    use super::{store_row, PackedMatrix, PANEL};

    pub fn run(m: usize, a: &[f32], lda: usize, b: &PackedMatrix, c: &mut [f32], accumulate: bool) {
        let (k, n) = (b.k, b.n);
        for p in 0..n.div_ceil(PANEL) {
            let panel = b.panel(p);
            let cols = PANEL.min(n - p * PANEL);
            for i in 0..m {
                let row = &a[i * lda..i * lda + k];
                let mut acc = [0.0f32; PANEL];
                for (x, bk) in row.iter().zip(panel.chunks_exact(PANEL)) {
                    for j in 0..PANEL {
                        acc[j] += x * bk[j];
                    }
                }
                store_row(&acc, &mut c[i * n + p * PANEL..], cols, accumulate);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{store_row, PackedMatrix, KC, PANEL};
    use std::arch::x86_64::*;

    /// Rows per micro-tile: 6 rows x 16 columns = 12 accumulators.
    const ROWS: usize = 6;

    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn run(
        m: usize,
        a: &[f32],
        lda: usize,
        b: &PackedMatrix,
        c: &mut [f32],
        accumulate: bool,
    ) {
        let n = b.n;
        let panels = n.div_ceil(PANEL);
        // A ragged panel's tile, written whole by the micro-kernel before it is read.
        let mut tile = [[0.0f32; PANEL]; ROWS];
        let mut k0 = 0;
        while k0 < b.k {
            let k1 = (k0 + KC).min(b.k);
            let add = accumulate || k0 > 0;
            for p in 0..panels {
                let cols = PANEL.min(n - p * PANEL);
                let mut i = 0;
                while i < m {
                    let rows = ROWS.min(m - i);
                    // Full panels go straight to C; a ragged last panel through `tile`.
                    let direct =
                        (cols == PANEL).then(|| (c.as_mut_ptr().add(i * n + p * PANEL), n, add));
                    match rows {
                        6 => tile_kernel::<6>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        5 => tile_kernel::<5>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        4 => tile_kernel::<4>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        3 => tile_kernel::<3>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        2 => tile_kernel::<2>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        _ => tile_kernel::<1>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                    }
                    if direct.is_none() {
                        for r in 0..rows {
                            store_row(&tile[r], &mut c[(i + r) * n + p * PANEL..], cols, add);
                        }
                    }
                    i += rows;
                }
            }
            k0 = k1;
        }
    }

    #[inline]
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)] // the micro-kernel's loop state, kept in registers
    unsafe fn tile_kernel<const R: usize>(
        a: &[f32],
        i: usize,
        lda: usize,
        b: &PackedMatrix,
        p: usize,
        k0: usize,
        k1: usize,
        tile: &mut [[f32; PANEL]; 6],
        direct: Option<(*mut f32, usize, bool)>,
    ) {
        let panel = b.panel(p).as_ptr();
        let a = a.as_ptr().add(i * lda);
        let mut lo = [_mm256_setzero_ps(); R];
        let mut hi = [_mm256_setzero_ps(); R];
        for kk in k0..k1 {
            let b0 = _mm256_loadu_ps(panel.add(kk * PANEL));
            let b1 = _mm256_loadu_ps(panel.add(kk * PANEL + 8));
            for r in 0..R {
                let x = _mm256_broadcast_ss(&*a.add(r * lda + kk));
                lo[r] = _mm256_fmadd_ps(x, b0, lo[r]);
                hi[r] = _mm256_fmadd_ps(x, b1, hi[r]);
            }
        }
        match direct {
            Some((c, ldc, add)) => {
                for r in 0..R {
                    let row = c.add(r * ldc);
                    let (mut l, mut h) = (lo[r], hi[r]);
                    if add {
                        l = _mm256_add_ps(l, _mm256_loadu_ps(row));
                        h = _mm256_add_ps(h, _mm256_loadu_ps(row.add(8)));
                    }
                    _mm256_storeu_ps(row, l);
                    _mm256_storeu_ps(row.add(8), h);
                }
            }
            None => {
                for r in 0..R {
                    _mm256_storeu_ps(tile[r].as_mut_ptr(), lo[r]);
                    _mm256_storeu_ps(tile[r].as_mut_ptr().add(8), hi[r]);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(in crate::nn::kernels) mod avx512 {
    //! The AVX-512 micro-kernel, and the walk over C's micro-tiles that the bf16 kernel
    //! ([`crate::nn::kernels::bf16`]) shares.
    use super::{store_row, PackedMatrix, KC, PANEL};
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

    #[target_feature(enable = "avx512f")]
    pub unsafe fn run(
        m: usize,
        a: &[f32],
        lda: usize,
        b: &PackedMatrix,
        c: &mut [f32],
        accumulate: bool,
    ) {
        walk(&Fp32 { a, lda, b }, m, b.n, b.k, KC, c, accumulate);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_matches_a_naive_product_on_ragged_sizes() {
        #[cfg(target_arch = "x86_64")]
        for isa in [Isa::Avx2, Isa::Avx512] {
            if !available_isas().contains(&isa) {
                eprintln!(
                    "every_kernel_matches_a_naive_product_on_ragged_sizes: skipped {isa:?} (not on this CPU)"
                );
            }
        }
        for &(m, k, n) in &[
            (1, 1, 1),
            (13, 7, 3),
            (25, 22, 96),
            (361, 864, 96),
            (30, 33, 40),
            (7, 96, 17),
        ] {
            let a: Vec<f32> = (0..m * (k + 3))
                .map(|i| ((i * 37 % 23) as f32 - 11.0) * 0.1)
                .collect();
            let b: Vec<f32> = (0..k * n)
                .map(|i| ((i * 53 % 19) as f32 - 9.0) * 0.1)
                .collect();
            let packed = PackedMatrix::new(&b, k, n);
            let lda = k + 3;
            let mut want = vec![0.0f64; m * n];
            for i in 0..m {
                for j in 0..n {
                    want[i * n + j] = 0.5
                        + (0..k)
                            .map(|t| a[i * lda + t] as f64 * b[t * n + j] as f64)
                            .sum::<f64>();
                }
            }
            for isa in available_isas() {
                let mut c = vec![0.5f32; m * n];
                gemm_with(isa, m, &a, lda, &packed, &mut c, true);
                for (idx, (&got, &w)) in c.iter().zip(&want).enumerate() {
                    assert!(
                        (got as f64 - w).abs() < 1e-3 * (1.0 + w.abs()),
                        "{isa:?} {m}x{k}x{n} at {idx}: {got} vs {w}"
                    );
                }
                let mut c = vec![f32::NAN; m * n];
                gemm_with(isa, m, &a, lda, &packed, &mut c, false);
                assert!(
                    (c[0] as f64 - (want[0] - 0.5)).abs() < 1e-3 * (1.0 + want[0].abs()),
                    "{isa:?} overwrite"
                );
            }
        }
    }
}
