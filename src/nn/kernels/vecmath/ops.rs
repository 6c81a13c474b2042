//! The dispatch of the vector kernels: softmax over rows, the SwiGLU gate, SiLU and Mish, each
//! on the kernel [`cpu`] allows. Every norm of a net and every
//! attention row runs through them (millions of exponentials per evaluation), so these are hot
//! paths; they allocate nothing.

#[cfg(target_arch = "aarch64")]
use super::neon;
use super::portable;
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use crate::nn::kernels::cpu::{self, Isa};
use std::sync::OnceLock;

/// The levels with vector kernels, lowest first.
pub const KERNELS: &[Isa] = &[
    Isa::Portable,
    #[cfg(target_arch = "aarch64")]
    Isa::Neon,
    #[cfg(target_arch = "x86_64")]
    Isa::Avx2,
    #[cfg(target_arch = "x86_64")]
    Isa::Avx512,
];

/// The kernels the functions here run (chosen once).
pub fn best_isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| cpu::best_of(KERNELS))
}

/// Each row of `width` values replaced by its softmax.
pub fn softmax_rows(data: &mut [f32], width: usize) {
    #[cfg(target_arch = "x86_64")]
    match best_isa() {
        // SAFETY: best_isa() is AVX-512 only on CPUs with AVX-512F (see `cpu`).
        Isa::Avx512 => return unsafe { avx512::softmax_rows(data, width) },
        // SAFETY: best_isa() is AVX2 only on CPUs with AVX2 and FMA.
        Isa::Avx2 => return unsafe { avx2::softmax_rows(data, width) },
        _ => {}
    }
    #[cfg(target_arch = "aarch64")]
    if best_isa() == Isa::Neon {
        // SAFETY: best_isa() is NEON only on CPUs with NEON (see `cpu`).
        return unsafe { neon::softmax_rows(data, width) };
    }
    portable::softmax_rows(data, width);
}

/// `a[i] = silu(a[i]) * gate[i]`, SwiGLU's gate.
pub fn swiglu(a: &mut [f32], gate: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    match best_isa() {
        // SAFETY: best_isa() is AVX-512 only on CPUs with AVX-512F (see `cpu`).
        Isa::Avx512 => return unsafe { avx512::swiglu(a, gate) },
        // SAFETY: best_isa() is AVX2 only on CPUs with AVX2 and FMA.
        Isa::Avx2 => return unsafe { avx2::swiglu(a, gate) },
        _ => {}
    }
    #[cfg(target_arch = "aarch64")]
    if best_isa() == Isa::Neon {
        // SAFETY: best_isa() is NEON only on CPUs with NEON (see `cpu`).
        return unsafe { neon::swiglu(a, gate) };
    }
    portable::swiglu(a, gate);
}

/// `x * sigmoid(x)` on every value.
pub fn silu(data: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    match best_isa() {
        // SAFETY: best_isa() is AVX-512 only on CPUs with AVX-512F (see `cpu`).
        Isa::Avx512 => return unsafe { avx512::silu(data) },
        // SAFETY: best_isa() is AVX2 only on CPUs with AVX2 and FMA.
        Isa::Avx2 => return unsafe { avx2::silu(data) },
        _ => {}
    }
    #[cfg(target_arch = "aarch64")]
    if best_isa() == Isa::Neon {
        // SAFETY: best_isa() is NEON only on CPUs with NEON (see `cpu`).
        return unsafe { neon::silu(data) };
    }
    portable::silu(data);
}

/// `x * tanh(softplus(x))` on every value, as KataGo's Mish (exactly `x` from 20 up).
pub fn mish(data: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    match best_isa() {
        // SAFETY: best_isa() is AVX-512 only on CPUs with AVX-512F (see `cpu`).
        Isa::Avx512 => return unsafe { avx512::mish(data) },
        // SAFETY: best_isa() is AVX2 only on CPUs with AVX2 and FMA.
        Isa::Avx2 => return unsafe { avx2::mish(data) },
        _ => {}
    }
    #[cfg(target_arch = "aarch64")]
    if best_isa() == Isa::Neon {
        // SAFETY: best_isa() is NEON only on CPUs with NEON (see `cpu`).
        return unsafe { neon::mish(data) };
    }
    portable::mish(data);
}
