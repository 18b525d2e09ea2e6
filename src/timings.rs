//! `MCP_LINT_TIMINGS=1` prints the wall time of each phase of a run on stderr, and the thread time
//! of each stage of the files' analysis: where the time goes on a real tree, without a profiler.
//! Off, it costs one environment look-up per run.

use std::time::Instant;

pub struct Phases {
    on: bool,
    last: Instant,
}

impl Phases {
    pub fn start() -> Phases {
        Phases {
            on: on(),
            last: Instant::now(),
        }
    }

    /// Ends the phase `name`, which ran since the previous mark.
    pub fn mark(&mut self, name: &str) {
        if self.on {
            let now = Instant::now();
            eprintln!(
                "timing: {name:<10} {:>8.1} ms",
                (now - self.last).as_secs_f64() * 1e3
            );
            self.last = now;
        }
    }
}

/// The stages of one file's analysis, summed over all files and threads: thread time, not wall
/// time, so the sum shows what a stage costs whatever the parallelism.
#[derive(Clone, Copy)]
pub enum Stage {
    Scan,
    /// The file's package looked up: its manifest, lock and code evidence read on a package's
    /// first file, a lock wait when another thread is reading them.
    Package,
    ItemIndex,
    Skeleton,
    Parse,
    Facts,
    Walk,
    FilePasses,
    Drop,
    /// The package tables built on first use, inside some file's walk (`model/request_flow.rs`,
    /// `model/wrappers.rs`): counted in `walk` as well.
    RequestFlow,
    Wrappers,
}

const STAGE_NAMES: [&str; 11] = [
    "scan",
    "package",
    "item index",
    "skeleton",
    "parse",
    "facts",
    "walk",
    "file passes",
    "drop",
    "  of which flow",
    "  of which wrappers",
];

static STAGE_NANOS: [std::sync::atomic::AtomicU64; 11] =
    [const { std::sync::atomic::AtomicU64::new(0) }; 11];

/// Whether `MCP_LINT_TIMINGS` asks for timings (read once).
fn on() -> bool {
    static ON: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
        std::env::var_os("MCP_LINT_TIMINGS").is_some_and(|v| !v.is_empty() && v != "0")
    });
    *ON
}

/// Runs `f` as part of `stage` (timed only when timings are on). The item index's time includes
/// a thread's wait for another that is building the same package's index.
pub fn stage<T>(stage: Stage, f: impl FnOnce() -> T) -> T {
    if !on() {
        return f();
    }
    let start = Instant::now();
    let out = f();
    STAGE_NANOS[stage as usize].fetch_add(
        start.elapsed().as_nanos() as u64,
        std::sync::atomic::Ordering::Relaxed,
    );
    out
}

/// Prints the stage sums (see [`Stage`]) when timings are on.
pub fn print_stages() {
    if !on() {
        return;
    }
    for (name, nanos) in STAGE_NAMES.iter().zip(&STAGE_NANOS) {
        let ms = nanos.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e6;
        eprintln!("stage:  {name:<12} {ms:>8.1} ms (all threads)");
    }
}
