//! Inputs for KataGo-format networks: the V7 features (22 planes, 19 globals)
//! computed from a [`crate::Game`] exactly as KataGo computes them.
//!
//! - `features`: the planes and globals, and the legal-move mask;
//! - `history`: KataGo's view of the game's history (what its GTP engine would
//!   hold after the same moves);
//! - `ladder`: ladder reading for the ladder planes;
//! - `area`: pass-alive area for the area planes.

pub mod area;
pub mod features;
pub mod history;
pub mod ladder;

#[cfg(test)]
mod tests;
