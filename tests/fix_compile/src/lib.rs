//! The fixtures of `../fix_fixtures` as `cargo mcp-lint --fix --unsafe-fixes` leaves them
//! (`src/NAME.fixed`), compiled as modules of this crate. `tests/fix_fixed.rs` in the root crate
//! checks that the files are byte for byte what `--fix` writes today; this crate's own tests
//! (`tests/round_trip.rs`) drive their handlers through MRTR rounds with rmcp's client.
//!
//! Nothing is added by hand: the fix writes each server's `impl mrtr::MrtrServer for S {}` (its
//! sealing keys then come from `MRTR_KEYS`, here unset: a per-process key, which one test
//! process is).

// The fixed code keeps what the legacy code declared (imports and the error helper it no longer
// calls) and uses rmcp's deprecated roots types to keep the old result shape.
// `--cfg fix_warnings` (tests/fix_compile/tests/no_new_warnings.rs) lifts the allow, to compare
// each fixed module's warnings with its legacy original's.
#![cfg_attr(
    not(fix_warnings),
    allow(unused_imports, dead_code, unused_variables, deprecated, clippy::all)
)]

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

// rmcp 0.14 struct literals of model types after the same run: constructors and setters.
#[rustfmt::skip]
#[path = "../../upgrade_fixtures/literals_rmcp0/src/lib.fixed"]
pub mod upgraded_literals_rmcp0;

// The rmcp 0.8 server of ../upgrade_fixtures after the same run.
#[rustfmt::skip]
#[path = "../../upgrade_fixtures/rmcp0_8/src/lib.fixed"]
pub mod upgraded_rmcp0_8;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/helpers.fixed"]
pub mod helpers;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/runtime_schema.fixed"]
pub mod runtime_schema;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/loops.fixed"]
pub mod loops;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/peers.fixed"]
pub mod peers;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/json_result.fixed"]
pub mod json_result;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/nonresult_helpers.fixed"]
pub mod nonresult_helpers;

// The same fixture before the fix: legacy rmcp 3.x code that sends its requests mid-call. Driven
// by a 2025-11-25 client next to the fixed one, so the tests compare their answers.
#[rustfmt::skip]
#[path = "../../fix_fixtures/src/nonresult_helpers.rs"]
pub mod nonresult_helpers_legacy;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/moved_context.fixed"]
pub mod moved_context;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/moved_context.rs"]
pub mod moved_context_legacy;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/progress_helpers.fixed"]
pub mod progress_helpers;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/progress_helpers.rs"]
pub mod progress_helpers_legacy;

// A helper in one file with callers in another: the two files of each version side by side (the
// tools reach the helper as `super::across_helpers::..`). The inline modules name the fixtures'
// folder, so the files inside resolve from there.
#[path = "../../fix_fixtures/src"]
pub mod across {
    #[rustfmt::skip]
    #[path = "across_helpers.fixed"]
    pub mod across_helpers;

    #[rustfmt::skip]
    #[path = "across_tools.fixed"]
    pub mod across_tools;
}

#[path = "../../fix_fixtures/src"]
pub mod across_legacy {
    #[rustfmt::skip]
    #[path = "across_helpers.rs"]
    pub mod across_helpers;

    #[rustfmt::skip]
    #[path = "across_tools.rs"]
    pub mod across_tools;
}

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/task_local_context.fixed"]
pub mod task_local_context;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/task_local_context.rs"]
pub mod task_local_context_legacy;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/stored_peer_gate.fixed"]
pub mod stored_peer_gate;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/stored_peer_gate.rs"]
pub mod stored_peer_gate_legacy;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/relay_gateway.fixed"]
pub mod relay_gateway;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/relay_gateway.rs"]
pub mod relay_gateway_legacy;

// The shapes of the deferred tier (issue: every ask inside a request gets a fix that compiles):
// each fixed form beside its legacy original, driven through rounds by tests/round_trip.rs.
#[rustfmt::skip]
#[path = "../../fix_fixtures/src/pub_helper.fixed"]
pub mod pub_helper;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/pub_helper.rs"]
pub mod pub_helper_legacy;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/optional_peer.fixed"]
pub mod optional_peer;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/optional_peer.rs"]
pub mod optional_peer_legacy;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/newtype_peer.fixed"]
pub mod newtype_peer;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/newtype_peer.rs"]
pub mod newtype_peer_legacy;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/dispatch_chain.fixed"]
pub mod dispatch_chain;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/dispatch_chain.rs"]
pub mod dispatch_chain_legacy;

// An ask under `#[cfg(unix)]`: rewritten in place (deferred form), so it stays under its attribute.
#[rustfmt::skip]
#[path = "../../fix_fixtures/src/cfg_ask.fixed"]
pub mod cfg_ask;
#[rustfmt::skip]
#[path = "../../fix_fixtures/src/macro_ask.fixed"]
pub mod macro_ask;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/macro_ask.rs"]
pub mod macro_ask_legacy;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/raw_request.fixed"]
pub mod raw_request;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/raw_request.rs"]
pub mod raw_request_legacy;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/match_asks_again.fixed"]
pub mod match_asks_again;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/match_asks_again.rs"]
pub mod match_asks_again_legacy;

// A server that speaks JSON-RPC itself, no SDK: its sends became `mrtr::jsonrpc` asks and its
// dispatch arm runs in the runtime's request scope.
#[rustfmt::skip]
#[path = "../../fix_fixtures/src/hand_rolled.fixed"]
pub mod hand_rolled;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/hand_rolled.rs"]
pub mod hand_rolled_legacy;

// A server that writes its own request messages and reads the answers from a oneshot per id:
// its write is guarded, its receive asked, and its message handler's call runs in the scope.
#[rustfmt::skip]
#[path = "../../fix_fixtures/src/hand_rolled_exchange.fixed"]
pub mod hand_rolled_exchange;

#[rustfmt::skip]
#[path = "../../fix_fixtures/src/hand_rolled_exchange.rs"]
pub mod hand_rolled_exchange_legacy;

// The originals of the fixtures above that no test drives, built only for the warnings
// comparison (`--cfg fix_warnings`, scripts/fix-warnings.py): a fix may not add a warning its
// original did not have.
#[cfg(fix_warnings)]
#[rustfmt::skip]
#[path = "../../fix_fixtures/src"]
pub mod originals {
    #[path = "tool_elicit.rs"] pub mod tool_elicit;
    #[path = "tool_sampling.rs"] pub mod tool_sampling;
    #[path = "helpers.rs"] pub mod helpers;
    #[path = "runtime_schema.rs"] pub mod runtime_schema;
    #[path = "loops.rs"] pub mod loops;
    #[path = "peers.rs"] pub mod peers;
    #[path = "json_result.rs"] pub mod json_result;
    #[path = "cfg_ask.rs"] pub mod cfg_ask;
}
