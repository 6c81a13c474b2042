//! The one place that asks the CPU what it runs: the instruction-set levels the kernels are
//! written for, detected once, and the cap the environment puts on them.
//!
//! Levels, lowest first (each kernel names the one it needs, and the levels it needs of the
//! lower ones of its architecture come with it):
//! - `portable`: plain Rust, any CPU;
//! - `neon`: AArch64's Advanced SIMD, which every AArch64 CPU has (the fp32 and vector kernels,
//!   the Winograd transforms, on 4 lanes with fused multiply-adds);
//! - `avx2`: AVX2 and FMA (the fp32 and vector kernels, the Winograd transforms, int8's
//!   `vpmaddubsw`);
//! - `avx-vnni`: AVX-VNNI's 256-bit `vpdpbusd` (int8);
//! - `avx512`: AVX-512F (the fp32 and vector kernels on 16 lanes);
//! - `avx512-vnni`: AVX512-VNNI's 512-bit `vpdpbusd` (int8);
//! - `avx512-bf16`: AVX512-BF16's `vdpbf16ps` (bf16).
//!
//! The x86-64 levels (`avx2` up) and the AArch64 one (`neon`) never meet on one CPU; the order
//! between them means nothing.
//!
//! **`TENGEN_ISA`** caps the choice: `TENGEN_ISA=avx2` runs no kernel above `avx2` (so
//! `portable`, `avx2`), whatever the CPU has; `TENGEN_ISA=portable` runs the portable loops on
//! any CPU. A level the CPU lacks changes nothing (the CPU's own levels are the limit anyway),
//! and a level of the other architecture caps nothing (`neon` on x86-64, `avx2` on AArch64); an
//! unknown value is named on stderr and ignored. Unset or empty, every level the CPU has may
//! run. The kernel tests run every kernel the CPU has, cap or not.

use std::sync::OnceLock;

/// An instruction-set level a kernel is written for, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// Plain Rust: any CPU.
    Portable,
    /// AArch64's Advanced SIMD (NEON), with fused multiply-adds.
    Neon,
    /// AVX2 with FMA.
    Avx2,
    /// AVX-VNNI (with AVX2 and FMA).
    AvxVnni,
    /// AVX-512F (with AVX2 and FMA).
    Avx512,
    /// AVX512-VNNI (with AVX-512F, AVX2 and FMA).
    Avx512Vnni,
    /// AVX512-BF16 (with AVX-512F, AVX2 and FMA).
    Avx512Bf16,
}

/// The environment variable that caps the levels chosen.
pub const ENV_VAR: &str = "TENGEN_ISA";

impl Isa {
    /// Every level, lowest first.
    pub const ALL: [Isa; 7] = [
        Isa::Portable,
        Isa::Neon,
        Isa::Avx2,
        Isa::AvxVnni,
        Isa::Avx512,
        Isa::Avx512Vnni,
        Isa::Avx512Bf16,
    ];

    /// The level's name, as `TENGEN_ISA` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Neon => "neon",
            Isa::Avx2 => "avx2",
            Isa::AvxVnni => "avx-vnni",
            Isa::Avx512 => "avx512",
            Isa::Avx512Vnni => "avx512-vnni",
            Isa::Avx512Bf16 => "avx512-bf16",
        }
    }

    /// The level named `name` (any case, `_` for `-`).
    pub fn parse(name: &str) -> Option<Isa> {
        let name = name.trim().to_ascii_lowercase().replace('_', "-");
        Isa::ALL.into_iter().find(|isa| isa.name() == name)
    }

    /// Whether this CPU has the level's instructions (detected once).
    pub fn on_cpu(self) -> bool {
        detected()[self as usize]
    }

    /// Whether the kernels may choose the level: the CPU has it and `TENGEN_ISA` allows it.
    pub fn enabled(self) -> bool {
        allowed_under(self, cap()) && self.on_cpu()
    }

    /// Whether the level is one of AArch64's (the others, but `portable`, are x86-64's).
    fn is_arm(self) -> bool {
        self == Isa::Neon
    }
}

/// Whether a cap of `cap` lets `isa` run: `portable` always, a level of the cap's own
/// architecture up to the cap, one of the other architecture unless the cap is `portable`.
fn allowed_under(isa: Isa, cap: Isa) -> bool {
    match (isa, cap) {
        (Isa::Portable, _) => true,
        (_, Isa::Portable) => false,
        _ if isa.is_arm() == cap.is_arm() => isa <= cap,
        _ => true,
    }
}

/// The highest of `kernels` (lowest first, starting with [`Isa::Portable`]) that is
/// [enabled](Isa::enabled): the kernel a family of kernels runs.
pub fn best_of(kernels: &[Isa]) -> Isa {
    kernels
        .iter()
        .rev()
        .copied()
        .find(|isa| isa.enabled())
        .unwrap_or(Isa::Portable)
}

/// The highest level this CPU has.
pub fn cpu_level() -> Isa {
    Isa::ALL
        .into_iter()
        .rev()
        .find(|isa| isa.on_cpu())
        .unwrap_or(Isa::Portable)
}

/// The cap `TENGEN_ISA` sets (the highest level when it is unset or unknown).
pub fn cap() -> Isa {
    static CAP: OnceLock<Isa> = OnceLock::new();
    *CAP.get_or_init(|| {
        let value = std::env::var(ENV_VAR).unwrap_or_default();
        if value.trim().is_empty() {
            return HIGHEST;
        }
        parse_cap(&value).unwrap_or_else(|message| {
            eprintln!("tengen: {message}");
            HIGHEST
        })
    })
}

/// The cap when there is none: the last level, above every other of its architecture (and
/// capping nothing of the other).
const HIGHEST: Isa = Isa::ALL[Isa::ALL.len() - 1];

/// The cap a `TENGEN_ISA` value sets, or why it sets none.
fn parse_cap(value: &str) -> Result<Isa, String> {
    Isa::parse(value).ok_or_else(|| {
        let names: Vec<&str> = Isa::ALL.iter().map(|isa| isa.name()).collect();
        format!(
            "{ENV_VAR}={value} is not a level ({}); running this CPU's own, {}",
            names.join(", "),
            cpu_level().name()
        )
    })
}

/// Per level, whether the CPU has it.
fn detected() -> &'static [bool; Isa::ALL.len()] {
    static DETECTED: OnceLock<[bool; Isa::ALL.len()]> = OnceLock::new();
    DETECTED.get_or_init(|| Isa::ALL.map(detect))
}

#[cfg(target_arch = "x86_64")]
fn detect(isa: Isa) -> bool {
    use std::arch::is_x86_feature_detected as has;
    let avx2 = has!("avx2") && has!("fma");
    let avx512 = avx2 && has!("avx512f");
    match isa {
        Isa::Portable => true,
        Isa::Neon => false,
        Isa::Avx2 => avx2,
        Isa::AvxVnni => avx2 && has!("avxvnni"),
        Isa::Avx512 => avx512,
        Isa::Avx512Vnni => avx512 && has!("avx512vnni"),
        Isa::Avx512Bf16 => avx512 && has!("avx512bf16"),
    }
}

#[cfg(target_arch = "aarch64")]
fn detect(isa: Isa) -> bool {
    match isa {
        Isa::Portable => true,
        // Mandatory on AArch64, asked all the same.
        Isa::Neon => std::arch::is_aarch64_feature_detected!("neon"),
        _ => false,
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn detect(isa: Isa) -> bool {
    isa == Isa::Portable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_limits_its_own_architecture_and_portable_limits_all() {
        for isa in Isa::ALL {
            // No cap, or the other architecture's highest: everything.
            assert!(allowed_under(isa, HIGHEST) && allowed_under(isa, Isa::Neon));
            assert_eq!(allowed_under(isa, Isa::Portable), isa == Isa::Portable);
        }
        assert!(allowed_under(Isa::Neon, Isa::Avx2));
        assert!(allowed_under(Isa::Avx2, Isa::Avx2) && !allowed_under(Isa::Avx512, Isa::Avx2));
    }

    #[test]
    fn levels_parse_by_name_and_an_unknown_cap_says_so() {
        for isa in Isa::ALL {
            assert_eq!(Isa::parse(isa.name()), Some(isa));
            assert_eq!(parse_cap(&isa.name().to_uppercase()), Ok(isa));
        }
        assert_eq!(Isa::parse("AVX512_BF16"), Some(Isa::Avx512Bf16));
        let message = parse_cap("avx9000").unwrap_err();
        assert!(message.contains("TENGEN_ISA=avx9000") && message.contains("portable"));
    }

    #[test]
    fn portable_always_runs_and_a_family_never_picks_past_the_cpu() {
        assert!(Isa::Portable.on_cpu() && Isa::Portable.enabled());
        let chosen = best_of(&Isa::ALL);
        assert!(chosen.on_cpu() && chosen <= cap() && chosen <= cpu_level());
        assert_eq!(best_of(&[Isa::Portable]), Isa::Portable);
        for isa in Isa::ALL {
            assert!(!isa.enabled() || isa.on_cpu());
        }
        #[cfg(target_arch = "aarch64")]
        assert!(Isa::Neon.on_cpu(), "every AArch64 CPU has NEON");
        eprintln!(
            "cpu: this CPU's level is {}, capped at {}",
            cpu_level().name(),
            cap().name()
        );
    }
}
