fn main() {
    eprintln!("cargo-mcp-lint: not built yet");
    std::process::exit(2);
}
