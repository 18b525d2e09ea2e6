//! `MCP_LINT_TIMINGS=1` prints the wall time of each phase of a run on stderr: where the time goes
//! on a real tree, without a profiler. Off, it costs one environment look-up per run.

use std::time::Instant;

pub struct Phases {
    on: bool,
    last: Instant,
}

impl Phases {
    pub fn start() -> Phases {
        Phases {
            on: std::env::var_os("MCP_LINT_TIMINGS").is_some_and(|v| !v.is_empty() && v != "0"),
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
