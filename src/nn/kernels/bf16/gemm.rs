//! The bfloat16 matrix product for `--precision bf16`: both operands rounded to bf16 (8
//! significant bits, fp32's range), products summed in fp32, as AVX512-BF16's `vdpbf16ps` and
//! AMX's `tdpbf16ps` compute them.
//!
//! Two kernels, chosen at run time ([`best_isa`], as [`cpu`] allows):
//! - **AVX512-BF16** (Zen 4 and later, Intel since Cooper Lake): the right-hand matrix packed once
//!   as pairs of bf16 (rows `2t` and `2t+1` of a column in one 32-bit lane), the left one rounded
//!   per call into a per-thread buffer of such pairs, then one `vdpbf16ps` does 32 multiply-adds
//!   where an fp32 FMA does 16.
//! - **Emulated** ([`Isa::Portable`]) on every other CPU: the values rounded as those instructions round them
//!   (nearest, ties to even; subnormals flushed to zero), then multiplied by the fp32 kernels of
//!   [`crate::nn::kernels::fp32`]. A bf16 product is exact in fp32, so the emulation differs from the
//!   instruction only in the order the sums are rounded: it is the native kernel's twin in the
//!   tests, and it measures on any CPU what bf16 does to a net's outputs (slower than fp32).

#[cfg(target_arch = "x86_64")]
use super::avx512_bf16;
use super::round::round_slice;
use crate::nn::kernels::cpu::{self, Isa};
use crate::nn::kernels::fp32::gemm::gemm;
use crate::nn::kernels::fp32::matrix::PackedMatrix;
#[cfg(target_arch = "x86_64")]
use crate::nn::kernels::fp32::matrix::{check_shapes, PANEL};
use std::cell::RefCell;
use std::sync::OnceLock;

/// The levels with a bf16 kernel, lowest first: [`Isa::Portable`] is the emulation.
pub const KERNELS: &[Isa] = &[
    Isa::Portable,
    #[cfg(target_arch = "x86_64")]
    Isa::Avx512Bf16,
];

/// A bf16 kernel's name, for stderr.
pub fn kernel_name(isa: Isa) -> &'static str {
    match isa {
        Isa::Avx512Bf16 => "AVX512-BF16 vdpbf16ps",
        _ => "emulated on the fp32 kernels",
    }
}

/// The kernel matrices are packed for (chosen once).
pub fn best_isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| cpu::best_of(KERNELS))
}

/// A constant right-hand matrix with its values rounded to bf16, packed for one kernel.
#[derive(Debug, Clone)]
pub struct PackedMatrixBf16 {
    k: usize,
    n: usize,
    layout: Layout,
}

#[derive(Debug, Clone)]
enum Layout {
    /// Rounded, kept in fp32 for the fp32 kernels.
    Emulated(PackedMatrix),
    /// `ceil(n / 16)` panels of `ceil(k / 2)` rows of 16 lanes; lane `j` of row `t` holds
    /// column `j`'s values of rows `2t` (low half) and `2t + 1` (high half) as bf16, zero past
    /// `k` and `n`.
    #[cfg(target_arch = "x86_64")]
    Pairs(Vec<u32>),
}

impl PackedMatrixBf16 {
    /// Rounds and packs row-major `b` (`k x n`) for the fastest kernel of this CPU.
    pub fn new(b: &[f32], k: usize, n: usize) -> Self {
        Self::new_for(best_isa(), b, k, n)
    }

    /// Rounds and packs row-major `b` (`k x n`) for `isa`.
    pub fn new_for(isa: Isa, b: &[f32], k: usize, n: usize) -> Self {
        assert_eq!(b.len(), k * n, "matrix size");
        let mut packed = Self::with_capacity_for(isa, k, n);
        packed.pack_rows(b, k, n, n);
        packed
    }

    /// An empty matrix for the fastest kernel of this CPU, with room to be repacked up to
    /// `k x n` without allocating (for right-hand matrices computed per evaluation:
    /// attention's keys and values).
    pub fn with_capacity(k: usize, n: usize) -> Self {
        Self::with_capacity_for(best_isa(), k, n)
    }

    /// [`PackedMatrixBf16::with_capacity`] for `isa`.
    pub fn with_capacity_for(isa: Isa, k: usize, n: usize) -> Self {
        assert!(
            KERNELS.contains(&isa) && isa.on_cpu(),
            "no bf16 {} kernel on this CPU",
            isa.name()
        );
        let layout = match isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512Bf16 => Layout::Pairs(Vec::with_capacity(
                n.div_ceil(PANEL) * k.div_ceil(2) * PANEL,
            )),
            _ => Layout::Emulated(PackedMatrix::with_capacity(k, n)),
        };
        PackedMatrixBf16 { k: 0, n: 0, layout }
    }

    /// Repacks as the `k x n` matrix `B[row][col] = src[row * stride + col]`, rounded.
    /// Allocates only past the capacity.
    pub fn pack_rows(&mut self, src: &[f32], k: usize, n: usize, stride: usize) {
        assert!(
            k == 0 || n == 0 || src.len() >= (k - 1) * stride + n,
            "source too short"
        );
        (self.k, self.n) = (k, n);
        match &mut self.layout {
            Layout::Emulated(packed) => {
                packed.pack_rows(src, k, n, stride);
                round_slice(packed.values_mut());
            }
            #[cfg(target_arch = "x86_64")]
            Layout::Pairs(data) => {
                data.resize(n.div_ceil(PANEL) * k.div_ceil(2) * PANEL, 0);
                // SAFETY: a matrix is packed in pairs only where the CPU has AVX512-BF16
                // (checked when it was made); `src` holds the k rows (checked above) and
                // `data` was sized for them.
                unsafe { avx512_bf16::pack_row_pairs(src, k, n, stride, data) };
            }
        }
    }

    /// Repacks as the `k x n` matrix `B[row][col] = src[col * stride + row]` (the transpose of
    /// `n` rows of `k` values), rounded. Allocates only past the capacity (and, with the native
    /// kernel, a per-thread row of `k` pairs the first time).
    pub fn pack_transposed(&mut self, src: &[f32], k: usize, n: usize, stride: usize) {
        assert!(
            k == 0 || n == 0 || src.len() >= (n - 1) * stride + k,
            "source too short"
        );
        (self.k, self.n) = (k, n);
        match &mut self.layout {
            Layout::Emulated(packed) => {
                packed.pack_transposed(src, k, n, stride);
                round_slice(packed.values_mut());
            }
            #[cfg(target_arch = "x86_64")]
            Layout::Pairs(data) => {
                let pairs = k.div_ceil(2);
                data.resize(n.div_ceil(PANEL) * pairs * PANEL, 0);
                data.fill(0);
                COLUMN.with(|column| {
                    let mut column = column.borrow_mut();
                    let column = prefix(&mut column, pairs);
                    for col in 0..n {
                        // SAFETY: as in `pack_rows`; column `col` is `k` values at
                        // `col * stride` (checked above) and `column` holds `pairs` words.
                        unsafe {
                            avx512_bf16::round_rows(
                                1,
                                &src[col * stride..],
                                k,
                                k,
                                &mut column[..pairs],
                            )
                        };
                        let (p, j) = (col / PANEL, col % PANEL);
                        for (t, &pair) in column[..pairs].iter().enumerate() {
                            data[(p * pairs + t) * PANEL + j] = pair;
                        }
                    }
                });
            }
        }
    }

    /// The kernel this matrix is packed for.
    pub fn isa(&self) -> Isa {
        match self.layout {
            Layout::Emulated(_) => Isa::Portable,
            #[cfg(target_arch = "x86_64")]
            Layout::Pairs(_) => Isa::Avx512Bf16,
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
}

thread_local! {
    /// The left matrix rounded (emulation) or as bf16 pairs (native), per thread, grown only
    /// when a larger product comes.
    static ROUNDED: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    #[cfg(target_arch = "x86_64")]
    static PAIRS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// One column of a matrix packed transposed, as bf16 pairs.
    #[cfg(target_arch = "x86_64")]
    static COLUMN: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// Each row's sum of exponentials in [`softmax_gemm_bf16`].
    #[cfg(target_arch = "x86_64")]
    static SUMS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// The first `len` values of a per-thread buffer, grown to hold them (never shrunk, so it
/// allocates only the first time a shape is larger than any before).
fn prefix<T: Copy + Default>(buffer: &mut Vec<T>, len: usize) -> &mut [T] {
    if buffer.len() < len {
        buffer.resize(len, T::default());
    }
    &mut buffer[..len]
}

/// `C = A * B` (or `C += A * B` when `accumulate`) with `A` rounded to bf16 on the way in, on
/// the kernel `b` was packed for. `a` holds `m` rows of `b.k()` values at stride `lda`; `c`
/// holds `m` rows of `b.n()` values.
pub fn gemm_bf16(
    m: usize,
    a: &[f32],
    lda: usize,
    b: &PackedMatrixBf16,
    c: &mut [f32],
    accumulate: bool,
) {
    let k = b.k;
    match &b.layout {
        Layout::Emulated(packed) => ROUNDED.with(|rounded| {
            let mut rounded = rounded.borrow_mut();
            let rounded = prefix(&mut rounded, m * k);
            for (i, dst) in rounded.chunks_exact_mut(k).enumerate() {
                dst.copy_from_slice(&a[i * lda..i * lda + k]);
                round_slice(dst);
            }
            gemm(m, rounded, k, packed, c, accumulate);
        }),
        #[cfg(target_arch = "x86_64")]
        Layout::Pairs(data) => {
            if !check_shapes(m, a, lda, k, c, b.n) {
                return;
            }
            assert!(Isa::Avx512Bf16.on_cpu(), "packed for AVX512-BF16");
            PAIRS.with(|pairs| {
                let mut pairs = pairs.borrow_mut();
                let pairs = prefix(&mut pairs, m * k.div_ceil(2));
                // SAFETY: the CPU has AVX-512F and AVX512-BF16 (checked above); the shapes of
                // a, c and the packed matrix were checked, and the kernel stays inside them.
                unsafe {
                    avx512_bf16::round_rows(m, a, lda, k, pairs);
                    avx512_bf16::run(m, pairs, data, k, b.n, c, accumulate);
                }
            });
        }
    }
}

/// `C = softmax(S) * B`, the softmax taken over each of the `m` rows of `k()` scores in `s`
/// (which it may overwrite): attention's scores times its values. On the native kernel the
/// exponentials `e^(x - max)` go straight to bf16 pairs and each row of `C` is divided by its
/// sum afterwards, which saves two passes over the scores (the normalising one and the
/// rounding one) for a division over the far smaller rows of `C`; the emulation runs the fp32
/// softmax, then [`gemm_bf16`].
pub fn softmax_gemm_bf16(m: usize, s: &mut [f32], b: &PackedMatrixBf16, c: &mut [f32]) {
    let k = b.k;
    match &b.layout {
        Layout::Emulated(_) => {
            crate::nn::kernels::vecmath::ops::softmax_rows(&mut s[..m * k], k);
            gemm_bf16(m, s, k, b, c, false);
        }
        #[cfg(target_arch = "x86_64")]
        Layout::Pairs(data) => {
            if !check_shapes(m, s, k, k, c, b.n) {
                return;
            }
            assert!(Isa::Avx512Bf16.on_cpu(), "packed for AVX512-BF16");
            PAIRS.with(|pairs| {
                SUMS.with(|sums| {
                    let (mut pairs, mut sums) = (pairs.borrow_mut(), sums.borrow_mut());
                    let pairs = prefix(&mut pairs, m * k.div_ceil(2));
                    let sums = prefix(&mut sums, m);
                    // SAFETY: as in `gemm_bf16`: the CPU has the instructions and the shapes
                    // were checked; `pairs` and `sums` were sized for m rows.
                    unsafe {
                        avx512_bf16::exp_rows(m, s, k, pairs, sums);
                        avx512_bf16::run(m, pairs, data, k, b.n, c, false);
                    }
                    for (row, sum) in c.chunks_exact_mut(b.n).zip(sums.iter()) {
                        let inverse = 1.0 / sum;
                        row.iter_mut().for_each(|v| *v *= inverse);
                    }
                })
            });
        }
    }
}
