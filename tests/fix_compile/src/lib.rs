//! The fixtures of `../fix_fixtures` as `cargo mcp-lint --fix --unsafe-fixes` leaves them
//! (`src/NAME.fixed`), compiled as modules of this crate. `tests/fix_fixed.rs` in the root crate
//! checks that the files are byte for byte what `--fix` writes today; this crate's own tests
//! (`tests/round_trip.rs`) drive their handlers through MRTR rounds with rmcp's client.
//!
//! What the fix cannot write is here, as its message tells the author to add it: the servers'
//! `MrtrServer` impls (where the sealing keys come from is the author's decision).

// The fixed code keeps what the legacy code declared (imports and the error helper it no longer
// calls) and uses rmcp's deprecated roots types to keep the old result shape.
#![allow(unused_imports, dead_code, unused_variables, deprecated, clippy::all)]

use std::sync::OnceLock;

use mrtr::{KeyRing, MrtrConfig, MrtrServer, SecretKey};

// The fixed files are exactly what `--fix` writes (tests/fix_fixed.rs compares bytes): rustfmt
// must not reformat them.
#[rustfmt::skip]
#[path = "../../fix_fixtures/src/tool_elicit.fixed"]
pub mod tool_elicit;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/handwritten.fixed"]
pub mod handwritten;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/tool_sampling.fixed"]
pub mod tool_sampling;

// The rmcp 1.x and 2.x servers of ../upgrade_fixtures after `--fix --unsafe-fixes --upgrade-rmcp`:
// upgraded to rmcp 3.x and migrated to MRTR in one run.
#[rustfmt::skip]
#[path = "../../upgrade_fixtures/rmcp1/src/lib.fixed"]
pub mod upgraded_rmcp1;

#[rustfmt::skip]
#[path = "../../upgrade_fixtures/rmcp2/src/lib.fixed"]
pub mod upgraded_rmcp2;

/// One key for every server of the crate: a test process plays one deployment.
pub fn config() -> &'static MrtrConfig {
    static CONFIG: OnceLock<MrtrConfig> = OnceLock::new();
    CONFIG.get_or_init(|| {
        MrtrConfig::new(
            "fix-compile",
            KeyRing::single(SecretKey::new("k1", vec![0x5a; 32]).expect("a 32-byte key")),
        )
    })
}

impl MrtrServer for tool_elicit::Deployer {
    fn mrtr_config(&self) -> &MrtrConfig {
        config()
    }
}

impl MrtrServer for tool_sampling::Assistant {
    fn mrtr_config(&self) -> &MrtrConfig {
        config()
    }
}

impl MrtrServer for upgraded_rmcp1::Notes {
    fn mrtr_config(&self) -> &MrtrConfig {
        config()
    }
}

impl MrtrServer for upgraded_rmcp2::Notes {
    fn mrtr_config(&self) -> &MrtrConfig {
        config()
    }
}

impl MrtrServer for handwritten::Docs {
    fn mrtr_config(&self) -> &MrtrConfig {
        config()
    }
}
