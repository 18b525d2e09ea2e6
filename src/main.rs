/// The allocator: parsing and walking allocate millions of small nodes per run, and the system
/// allocator spent about a third of a run on them (`bench/run.sh`, `perf`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Stack for the thread that runs the command: every pass that walks a syntax tree (the engine,
/// suppressions, fixes) recurses once per nesting level, and hostile input nests deeply.
const MAIN_STACK: usize = 512 << 20;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // The command runs in a child process that this one watches: a file whose analysis kills it
    // is skipped in a second run (see `supervise.rs`).
    if let Some(status) = mcp_lint::supervise::supervise(&args, mcp_lint::cli::EXIT_ERROR) {
        std::process::exit(status);
    }
    let status = std::thread::Builder::new()
        .name("cargo-mcp-lint".into())
        .stack_size(MAIN_STACK)
        .spawn(move || mcp_lint::cli::run(args))
        .map(|h| h.join().unwrap_or(mcp_lint::cli::EXIT_ERROR))
        .unwrap_or_else(|e| {
            eprintln!("error: cannot start: {e}");
            mcp_lint::cli::EXIT_ERROR
        });
    std::process::exit(status);
}
