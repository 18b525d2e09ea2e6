//! Arbitrary bytes as one source file through the whole engine: prefilter, parse, analysis, gate
//! (suppressions, baseline fingerprints), every reporter, fixes. See `../common/exercise.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../common/exercise.rs"]
mod exercise;

fuzz_target!(|data: &[u8]| {
    exercise::exercise(data);
});
