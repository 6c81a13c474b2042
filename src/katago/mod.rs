//! The KataGo compatibility layer both front ends share (`gtp/` and
//! `analysis/` read KataGo's words through it and never each other):
//! [`values`] (config values as KataGo reads and writes them), [`rules`]
//! (rules by name, compact form or JSON), [`limits`] (search limits with
//! one precedence) and [`moves`] (`avoid`/`allow` restrictions).

pub mod limits;
pub mod moves;
pub mod rules;
pub mod values;
