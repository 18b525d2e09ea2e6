fn main() {
    std::process::exit(mcp_lint::cli::run(std::env::args().collect()));
}
