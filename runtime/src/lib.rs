//! The runtime behind `#[mrtr_handler]`.
pub use mrtr_macros::*;
