//! The int8 product's operands: the right-hand matrix quantized per column and packed for the
//! kernels, the left one quantized per row, and the store every kernel shares.

/// Columns per panel.
pub(super) const PANEL: usize = 16;
/// Rows of `B` (inner dimension) per block.
pub(super) const QUAD: usize = 4;
/// The largest quantized magnitude (never -128, so that `|a|` fits the unsigned side).
pub(super) const QMAX: f32 = 127.0;

/// A `k x n` matrix quantized to bytes with one scale per column, packed for the kernel.
#[derive(Debug, Clone)]
pub struct PackedMatrixI8 {
    pub(super) k: usize,
    pub(super) n: usize,
    /// `k` rounded up to a multiple of [`QUAD`].
    k_padded: usize,
    pub(super) data: Vec<i8>,
    pub(super) scale: Vec<f32>,
    /// Each column's sum of its quantized values (the VNNI kernel's offset correction).
    #[cfg(target_arch = "x86_64")]
    pub(super) col_sum: Vec<i32>,
}

impl PackedMatrixI8 {
    /// Quantizes and packs row-major `b` (`k x n`).
    pub fn new(b: &[f32], k: usize, n: usize) -> Self {
        assert_eq!(b.len(), k * n, "matrix size");
        let k_padded = k.div_ceil(QUAD) * QUAD;
        let panels = n.div_ceil(PANEL);
        let scale: Vec<f32> = (0..n)
            .map(|col| {
                let largest = (0..k).map(|row| b[row * n + col].abs()).fold(0.0, f32::max);
                largest / QMAX
            })
            .collect();
        let mut data = vec![0i8; panels * k_padded * PANEL];
        #[cfg(target_arch = "x86_64")]
        let mut col_sum = vec![0i32; n];
        for col in 0..n {
            let (p, j) = (col / PANEL, col % PANEL);
            for row in 0..k {
                let (quad, t) = (row / QUAD, row % QUAD);
                let q = quantize(b[row * n + col], scale[col]);
                data[((p * (k_padded / QUAD) + quad) * PANEL + j) * QUAD + t] = q;
                #[cfg(target_arch = "x86_64")]
                {
                    col_sum[col] += i32::from(q);
                }
            }
        }
        PackedMatrixI8 {
            k,
            n,
            k_padded,
            data,
            scale,
            #[cfg(target_arch = "x86_64")]
            col_sum,
        }
    }

    /// Rows (the inner dimension).
    pub fn k(&self) -> usize {
        self.k
    }

    /// Columns.
    pub fn n(&self) -> usize {
        self.n
    }

    pub(super) fn panel(&self, p: usize) -> &[i8] {
        let len = self.k_padded * PANEL;
        &self.data[p * len..(p + 1) * len]
    }
}

/// `x / scale` rounded to the nearest integer within ±127 (0 when the scale is 0).
#[inline]
fn quantize(x: f32, scale: f32) -> i8 {
    if scale > 0.0 {
        (x / scale).round().clamp(-QMAX, QMAX) as i8
    } else {
        0
    }
}

/// The left matrix of one product, quantized per row: kept per thread and grown only when a
/// larger product comes, so evaluations do not allocate once warm.
#[derive(Debug, Default)]
pub(super) struct QuantizedRows {
    pub(super) k_padded: usize,
    pub(super) data: Vec<i8>,
    pub(super) scale: Vec<f32>,
}

/// Quantizes one row into `dst` (zero padded past `src.len()`); returns its scale. Rounds
/// `v * (1 / scale)` to nearest, ties to even, as the AVX2 code does, so both give the same
/// bytes.
pub(super) fn quantize_row(src: &[f32], dst: &mut [i8]) -> f32 {
    let scale = src.iter().fold(0.0f32, |m, v| m.max(v.abs())) / QMAX;
    if scale <= 0.0 {
        dst.fill(0);
        return scale;
    }
    let inv = 1.0 / scale;
    for (d, &v) in dst.iter_mut().zip(src) {
        *d = quantize_scaled(v, inv);
    }
    dst[src.len()..].fill(0);
    scale
}

/// `v * inv` clamped to ±127 and rounded to nearest, ties to even: an activation's byte.
#[inline]
pub(super) fn quantize_scaled(v: f32, inv: f32) -> i8 {
    (v * inv).clamp(-QMAX, QMAX).round_ties_even() as i8
}

/// Writes `sum * a_scale * b_scale` (or adds it) for the `cols` real columns of a tile row.
#[inline(always)]
pub(super) fn store_row(
    sums: &[i32; PANEL],
    a_scale: f32,
    b_scale: &[f32],
    dst: &mut [f32],
    cols: usize,
    accumulate: bool,
) {
    for j in 0..cols {
        let v = sums[j] as f32 * a_scale * b_scale[j];
        if accumulate {
            dst[j] += v;
        } else {
            dst[j] = v;
        }
    }
}
