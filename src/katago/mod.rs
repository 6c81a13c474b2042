//! The KataGo compatibility layer both front ends share (`gtp/` and
//! `analysis/` read KataGo's words through it and never each other):
//! [`values`] (config values as KataGo reads and writes them), [`rules`]
//! (rules by name, compact form or JSON), [`limits`] (search limits with
//! one precedence), [`moves`] (`avoid`/`allow` restrictions) and
//! [`move_view`] (one candidate move's figures and the root's ownership as
//! both printers show them).

pub mod limits;
pub mod move_view;
pub mod moves;
pub mod rules;
pub mod values;
