//! The fp32 product's right-hand matrix, packed once into 16-column panels, and what every
//! fp32-panel kernel (the bf16 one included) shares: the shape checks and the store of a tile row.

/// Width of a packed panel (one AVX-512 register, two AVX2 registers, four NEON registers).
pub(in crate::nn::kernels) const PANEL: usize = 16;
/// Inner-dimension block: a 16-wide panel block of 16 KiB stays in L1 (the transformer nets'
/// 192- and 256-deep products then take one pass over C instead of two). Only the x86 and
/// NEON kernels block the inner dimension.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(in crate::nn::kernels) const KC: usize = 256;

/// A `k x n` matrix packed as `ceil(n / 16)` panels of `k` rows of 16 floats (zero padded).
#[derive(Debug, Clone)]
pub struct PackedMatrix {
    pub(super) k: usize,
    pub(super) n: usize,
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

    pub(super) fn panel(&self, p: usize) -> &[f32] {
        &self.data[p * self.k * PANEL..(p + 1) * self.k * PANEL]
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

/// The walk of the kernels whose micro-tiles are 6 rows by one panel (AVX2, NEON) over `C`:
/// blocks of [`KC`] steps of the inner dimension, each panel, each 6 rows (fewer at the end),
/// full panels written straight to `C` and a ragged last panel through a tile. A macro, so
/// that it expands inside each kernel's `run`: compiled with that kernel's target features,
/// its micro-kernel `$tile::<R>(a, i, lda, b, p, k0, k1, tile, direct)` inlined. Needs
/// `store_row`, `KC` and `PANEL` in scope; the caller's unsafe contract covers its pointers.
macro_rules! walk_six_row_tiles {
    ($tile:ident, $m:expr, $a:expr, $lda:expr, $b:expr, $c:expr, $accumulate:expr) => {{
        let (m, a, lda, b, c, accumulate) = ($m, $a, $lda, $b, $c, $accumulate);
        let n = b.n;
        let panels = n.div_ceil(PANEL);
        // A ragged panel's tile, written whole by the micro-kernel before it is read.
        let mut tile = [[0.0f32; PANEL]; 6];
        let mut k0 = 0;
        while k0 < b.k {
            let k1 = (k0 + KC).min(b.k);
            let add = accumulate || k0 > 0;
            for p in 0..panels {
                let cols = PANEL.min(n - p * PANEL);
                let mut i = 0;
                while i < m {
                    let rows = 6.min(m - i);
                    // Full panels go straight to C; a ragged last panel through `tile`.
                    let direct =
                        (cols == PANEL).then(|| (c.as_mut_ptr().add(i * n + p * PANEL), n, add));
                    match rows {
                        6 => $tile::<6>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        5 => $tile::<5>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        4 => $tile::<4>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        3 => $tile::<3>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        2 => $tile::<2>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        _ => $tile::<1>(a, i, lda, b, p, k0, k1, &mut tile, direct),
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
    }};
}
pub(super) use walk_six_row_tiles;
