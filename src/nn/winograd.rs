//! 3x3 convolution by Winograd F(4x4, 3x3): each 6x6 input tile and each 3x3 filter go to a
//! 6x6 transform domain where the convolution is 36 independent matrix products (one GEMM per
//! transform point over all tiles of the batch), then each product goes back to a 4x4 output
//! tile. 36 multiplies per 16 outputs instead of 144 (Lavin & Gray 2015, points 0, ±1, ±2, ∞).
//!
//! Transforms run over whole channel rows of the NHWC activations, so they vectorize.

use super::gemm::{gemm, PackedMatrix};
use super::layers::Frame;

/// Output tile side.
const M: usize = 4;
/// Transform tile side.
const A: usize = 6;
/// Transform points.
pub const POINTS: usize = A * A;

/// The filter transform `G` (6x3).
const G: [[f64; 3]; 6] = [
    [1.0 / 4.0, 0.0, 0.0],
    [-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0],
    [-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0],
    [1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0],
    [1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0],
    [0.0, 0.0, 1.0],
];

/// Transforms 3x3 filters (`[ky][kx][in][out]`) into 36 packed `in x out` matrices.
pub fn transform_filters(weights: &[f32], cin: usize, cout: usize) -> Vec<PackedMatrix> {
    let mut points = vec![vec![0.0f32; cin * cout]; POINTS];
    for ic in 0..cin {
        for oc in 0..cout {
            let g = |y: usize, x: usize| weights[((y * 3 + x) * cin + ic) * cout + oc] as f64;
            // gg = G g (6x3), u = gg G^T (6x6).
            let mut gg = [[0.0f64; 3]; A];
            for (i, row) in gg.iter_mut().enumerate() {
                for (x, v) in row.iter_mut().enumerate() {
                    *v = (0..3).map(|k| G[i][k] * g(k, x)).sum();
                }
            }
            for i in 0..A {
                for j in 0..A {
                    let u: f64 = (0..3).map(|k| gg[i][k] * G[j][k]).sum();
                    points[i * A + j][ic * cout + oc] = u as f32;
                }
            }
        }
    }
    points
        .iter()
        .map(|p| PackedMatrix::new(p, cin, cout))
        .collect()
}

/// The 3x3 filters (`[ky][kx][in][out]`) back from their 36 transformed matrices: `G` has a
/// left inverse built from its rows 0, 1 and 5 (`g0 = 4 u0`, `g2 = u5`,
/// `g1 = -6 u1 - g0 - g2`), applied on both sides.
pub fn untransform_filters(points: &[PackedMatrix], cin: usize, cout: usize) -> Vec<f32> {
    const G_INV: [[f64; A]; 3] = [
        [4.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [-4.0, -6.0, 0.0, 0.0, 0.0, -1.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
    ];
    let unpacked: Vec<Vec<f32>> = points.iter().map(PackedMatrix::unpack).collect();
    let mut weights = vec![0.0f32; 9 * cin * cout];
    for ic in 0..cin {
        for oc in 0..cout {
            let u = |i: usize, j: usize| unpacked[i * A + j][ic * cout + oc] as f64;
            for y in 0..3 {
                for x in 0..3 {
                    let g: f64 = (0..A)
                        .flat_map(|i| (0..A).map(move |j| (i, j)))
                        .filter(|&(i, j)| G_INV[y][i] != 0.0 && G_INV[x][j] != 0.0)
                        .map(|(i, j)| G_INV[y][i] * u(i, j) * G_INV[x][j])
                        .sum();
                    weights[((y * 3 + x) * cin + ic) * cout + oc] = g as f32;
                }
            }
        }
    }
    weights
}

/// Scratch floats for a batch of `batch` boards of shape `frame`.
pub fn scratch_len(batch: usize, frame: Frame, cin: usize, cout: usize) -> usize {
    let tiles = batch * frame.width.div_ceil(M) * frame.height.div_ceil(M);
    POINTS * tiles * (cin + cout) + A * A * cin.max(cout) + A * cin.max(cout) + cin
}

/// `B^T d` for six channel rows: six output rows of `c` values in `dst`.
#[inline(always)]
fn input_rows(src: [&[f32]; 6], dst: &mut [f32], c: usize) {
    let (o0, rest) = dst.split_at_mut(c);
    let (o1, rest) = rest.split_at_mut(c);
    let (o2, rest) = rest.split_at_mut(c);
    let (o3, rest) = rest.split_at_mut(c);
    let (o4, o5) = rest.split_at_mut(c);
    let [d0, d1, d2, d3, d4, d5] = src;
    for i in 0..c {
        let (a0, a1, a2, a3, a4, a5) = (d0[i], d1[i], d2[i], d3[i], d4[i], d5[i]);
        o0[i] = 4.0 * a0 - 5.0 * a2 + a4;
        o1[i] = -4.0 * (a1 + a2) + a3 + a4;
        o2[i] = 4.0 * (a1 - a2) - a3 + a4;
        o3[i] = 2.0 * (a3 - a1) - a2 + a4;
        o4[i] = 2.0 * (a1 - a3) - a2 + a4;
        o5[i] = 4.0 * a1 - 5.0 * a3 + a5;
    }
}

/// `A^T m` for six channel rows: four output rows of `c` values in `dst`.
#[inline(always)]
fn output_rows(src: [&[f32]; 6], dst: &mut [f32], c: usize) {
    let (o0, rest) = dst.split_at_mut(c);
    let (o1, rest) = rest.split_at_mut(c);
    let (o2, o3) = rest.split_at_mut(c);
    let [m0, m1, m2, m3, m4, m5] = src;
    for i in 0..c {
        let (p12, n12) = (m1[i] + m2[i], m1[i] - m2[i]);
        let (p34, n34) = (m3[i] + m4[i], m3[i] - m4[i]);
        o0[i] = m0[i] + p12 + p34;
        o1[i] = n12 + 2.0 * n34;
        o2[i] = p12 + 4.0 * p34;
        o3[i] = n12 + 8.0 * n34 + m5[i];
    }
}

/// Six consecutive `c`-long rows of `buf` starting at row `first`, `stride` rows apart.
#[inline(always)]
fn rows6(buf: &[f32], first: usize, stride: usize, c: usize) -> [&[f32]; 6] {
    std::array::from_fn(|k| &buf[(first + k * stride) * c..(first + k * stride + 1) * c])
}

/// Convolves `batch` boards (NHWC, `cin` channels) with the transformed filters into `out`
/// (`cout` channels), adding to it when `accumulate`.
#[allow(clippy::too_many_arguments)] // the convolution's shape, as Conv::apply passes it
pub fn convolve(
    filters: &[PackedMatrix],
    cin: usize,
    cout: usize,
    input: &[f32],
    batch: usize,
    frame: Frame,
    out: &mut [f32],
    accumulate: bool,
    scratch: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if super::gemm::best_isa() != super::gemm::Isa::Portable {
        // SAFETY: best_isa() found AVX2 and FMA (or AVX-512, which implies them on every
        // CPU that has it).
        unsafe {
            return convolve_avx2(
                filters, cin, cout, input, batch, frame, out, accumulate, scratch,
            );
        };
    }
    convolve_body(
        filters, cin, cout, input, batch, frame, out, accumulate, scratch,
    )
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn convolve_avx2(
    filters: &[PackedMatrix],
    cin: usize,
    cout: usize,
    input: &[f32],
    batch: usize,
    frame: Frame,
    out: &mut [f32],
    accumulate: bool,
    scratch: &mut [f32],
) {
    convolve_body(
        filters, cin, cout, input, batch, frame, out, accumulate, scratch,
    )
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn convolve_body(
    filters: &[PackedMatrix],
    cin: usize,
    cout: usize,
    input: &[f32],
    batch: usize,
    frame: Frame,
    out: &mut [f32],
    accumulate: bool,
    scratch: &mut [f32],
) {
    let (w, h) = (frame.width, frame.height);
    let (tw, th) = (w.div_ceil(M), h.div_ceil(M));
    let tiles = batch * tw * th;
    let area = frame.area();
    let (v, rest) = scratch.split_at_mut(POINTS * tiles * cin);
    let (prod, rest) = rest.split_at_mut(POINTS * tiles * cout);
    let (tmp, rest) = rest.split_at_mut(A * A * cin.max(cout));
    let (rows, rest) = rest.split_at_mut(A * cin.max(cout));
    let zero = &mut rest[..cin];
    zero.fill(0.0);
    let zero: &[f32] = zero;

    // Input transform: V[point][tile][cin].
    for b in 0..batch {
        let board = &input[b * area * cin..(b + 1) * area * cin];
        for ty in 0..th {
            for tx in 0..tw {
                let tile = (b * th + ty) * tw + tx;
                let at = |i: usize, j: usize| -> &[f32] {
                    let y = (M * ty + i) as isize - 1;
                    let x = (M * tx + j) as isize - 1;
                    if y >= 0 && x >= 0 && (y as usize) < h && (x as usize) < w {
                        let p = y as usize * w + x as usize;
                        &board[p * cin..(p + 1) * cin]
                    } else {
                        zero
                    }
                };
                // Columns first: tmp[j][i] = (B^T d)[i][j].
                for j in 0..A {
                    let src = std::array::from_fn(|k| at(k, j));
                    input_rows(src, &mut tmp[j * A * cin..(j + 1) * A * cin], cin);
                }
                // Then rows: V[i][j] = (B^T d B)[i][j].
                for i in 0..A {
                    input_rows(rows6(tmp, i, A, cin), &mut rows[..A * cin], cin);
                    for j in 0..A {
                        let dst = ((i * A + j) * tiles + tile) * cin;
                        v[dst..dst + cin].copy_from_slice(&rows[j * cin..(j + 1) * cin]);
                    }
                }
            }
        }
    }

    // One product per transform point.
    for (point, filter) in filters.iter().enumerate() {
        let a = &v[point * tiles * cin..(point + 1) * tiles * cin];
        let c = &mut prod[point * tiles * cout..(point + 1) * tiles * cout];
        gemm(tiles, a, cin, filter, c, false);
    }

    // Output transform.
    for b in 0..batch {
        let board = &mut out[b * area * cout..(b + 1) * area * cout];
        for ty in 0..th {
            for tx in 0..tw {
                let tile = (b * th + ty) * tw + tx;
                // Columns first: tmp[j][i] = (A^T m)[i][j] for i < 4.
                for j in 0..A {
                    let src = std::array::from_fn(|k| {
                        let p = ((k * A + j) * tiles + tile) * cout;
                        &prod[p..p + cout]
                    });
                    output_rows(src, &mut tmp[j * M * cout..(j + 1) * M * cout], cout);
                }
                for i in 0..M {
                    let y = M * ty + i;
                    if y >= h {
                        break;
                    }
                    output_rows(rows6(tmp, i, M, cout), &mut rows[..M * cout], cout);
                    for j in 0..M {
                        let x = M * tx + j;
                        if x >= w {
                            break;
                        }
                        let dst = &mut board[(y * w + x) * cout..(y * w + x + 1) * cout];
                        let src = &rows[j * cout..(j + 1) * cout];
                        if accumulate {
                            dst.iter_mut().zip(src).for_each(|(d, s)| *d += s);
                        } else {
                            dst.copy_from_slice(src);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct 3x3 convolution, f64, zero padding.
    fn direct(w: &[f32], cin: usize, cout: usize, input: &[f32], frame: Frame) -> Vec<f64> {
        let (fw, fh) = (frame.width, frame.height);
        let mut out = vec![0.0; fw * fh * cout];
        for y in 0..fh as isize {
            for x in 0..fw as isize {
                for oc in 0..cout {
                    let mut s = 0.0f64;
                    for dy in 0..3 {
                        for dx in 0..3 {
                            let (sy, sx) = (y + dy as isize - 1, x + dx as isize - 1);
                            if sy < 0 || sx < 0 || sy >= fh as isize || sx >= fw as isize {
                                continue;
                            }
                            for ic in 0..cin {
                                s += w[((dy * 3 + dx) * cin + ic) * cout + oc] as f64
                                    * input[(sy as usize * fw + sx as usize) * cin + ic] as f64;
                            }
                        }
                    }
                    out[(y as usize * fw + x as usize) * cout + oc] = s;
                }
            }
        }
        out
    }

    #[test]
    fn filters_come_back_from_their_transform() {
        let (cin, cout) = (5, 7);
        let w: Vec<f32> = (0..9 * cin * cout)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0)
            .collect();
        let back = untransform_filters(&transform_filters(&w, cin, cout), cin, cout);
        assert_eq!(back.len(), w.len());
        for (a, b) in w.iter().zip(&back) {
            assert!((a - b).abs() < 1e-5 * (1.0 + a.abs()), "{a} vs {b}");
        }
    }

    #[test]
    fn winograd_matches_direct_convolution() {
        for &(fw, fh, cin, cout, batch) in &[
            (1usize, 1usize, 1usize, 1usize, 1usize),
            (4, 4, 2, 3, 1),
            (5, 5, 3, 17, 2),
            (9, 9, 8, 5, 3),
            (19, 19, 16, 32, 1),
            (19, 13, 8, 5, 2),
            (3, 10, 4, 6, 2),
        ] {
            let frame = Frame {
                width: fw,
                height: fh,
            };
            let area = frame.area();
            let w: Vec<f32> = (0..9 * cin * cout)
                .map(|i| ((i * 31 % 17) as f32 - 8.0) * 0.05)
                .collect();
            let input: Vec<f32> = (0..batch * area * cin)
                .map(|i| ((i * 13 % 11) as f32 - 5.0) * 0.1)
                .collect();
            let filters = transform_filters(&w, cin, cout);
            let mut scratch = vec![0.0; scratch_len(batch, frame, cin, cout)];
            let mut out = vec![0.25f32; batch * area * cout];
            convolve(
                &filters,
                cin,
                cout,
                &input,
                batch,
                frame,
                &mut out,
                true,
                &mut scratch,
            );
            for b in 0..batch {
                let want = direct(
                    &w,
                    cin,
                    cout,
                    &input[b * area * cin..(b + 1) * area * cin],
                    frame,
                );
                for (i, &wv) in want.iter().enumerate() {
                    let got = out[b * area * cout + i] as f64;
                    assert!(
                        (got - 0.25 - wv).abs() < 1e-4 * (1.0 + wv.abs()),
                        "{fw}x{fh} cin={cin} cout={cout} b={b} i={i}: {got} vs {}",
                        wv + 0.25
                    );
                }
            }
        }
    }
}
