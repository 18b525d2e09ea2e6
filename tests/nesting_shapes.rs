//! Every shape that recurses in syn's parser or in the linter's walks, at 100,000 levels: each is
//! refused by the depth guard as a parse-error finding (MCP900) for its file, and another file in
//! the same run is still linted. Without the guard most of these overflow the stack and abort the
//! whole run. The same table is in `fuzz/hostile_nesting.py`, which writes them as trees for the
//! release binary; keep them in step.

use mcp_lint::lint::{lint_paths, Settings};

const DEPTH: usize = 100_000;

/// A legacy call, so the prefilter admits the file and the rules have something to find.
const TRIGGER: &str = "fn t(ctx: RequestContext<RoleServer>) { ctx.peer.list_roots(); }\n";

/// `prefix + unit * DEPTH + middle + closer * DEPTH + suffix`, in a file with a legacy call, that
/// call also inside the fn the shape is in, so its body is parsed rather than blanked.
fn deep_text(prefix: &str, unit: &str, middle: &str, closer: &str, suffix: &str) -> String {
    let prefix = prefix
        .replacen("fn f() {", "fn f() { ctx.peer.list_roots();", 1)
        .replacen("u8 { ", "u8 { ctx.peer.list_roots(); ", 1);
    format!(
        "{TRIGGER}{prefix}{}{middle}{}{suffix}\n",
        unit.repeat(DEPTH),
        closer.repeat(DEPTH)
    )
}

fn check(prefix: &str, unit: &str, middle: &str, closer: &str, suffix: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    // The same shape, shallow, parses: the guard is what refuses the deep one, not a syntax error.
    let shallow = deep_text(prefix, unit, middle, closer, suffix)
        .replace(&unit.repeat(DEPTH), &unit.repeat(3))
        .replace(&closer.repeat(DEPTH), &closer.repeat(3));
    assert!(
        syn::parse_file(&shallow).is_ok(),
        "the shape does not parse even shallow:\n{shallow}"
    );
    std::fs::write(
        src.join("deep.rs"),
        deep_text(prefix, unit, middle, closer, suffix),
    )
    .unwrap();
    std::fs::write(src.join("ok.rs"), TRIGGER).unwrap();
    let settings = Settings {
        threads: Some(2),
        base_dir: dir.path().to_path_buf(),
        ..Settings::default()
    };
    let report = lint_paths(&[src], &settings);
    let codes = |name: &str| -> Vec<(String, String)> {
        report
            .findings
            .iter()
            .filter(|f| f.path.ends_with(name))
            .map(|f| (f.code.clone(), f.message.clone()))
            .collect()
    };
    let deep = codes("deep.rs");
    assert_eq!(deep.len(), 1, "{deep:?}");
    assert_eq!(deep[0].0, "MCP900", "{deep:?}");
    assert!(
        deep[0].1.contains("the file was not analysed"),
        "refused by the guard, not by a syntax error: {deep:?}"
    );
    let ok = codes("ok.rs");
    assert!(ok.iter().any(|(c, _)| c == "MCP003"), "{ok:?}");
}

macro_rules! shapes {
    ($($name:ident: $prefix:expr, $unit:expr, $middle:expr, $closer:expr, $suffix:expr;)*) => {
        $(
            #[test]
            fn $name() {
                check($prefix, $unit, $middle, $closer, $suffix);
            }
        )*
    };
}

shapes! {
    // types
    generic_args: "type T = ", "A<u8, ", "u8", ">", ";";
    generic_nested: "type T = ", "Vec<", "u8", ">", ";";
    generic_shifts: "type T = ", "A<A<", "u8", ">>", ";";
    turbofish: "fn f() { g::<", "A<", "u8", ">", ">(); }";
    qualified_path: "type T = ", "<", "u8", " as A>::B", ";";
    fn_pointer: "type T = ", "fn(u8, u8) -> ", "u8", "", ";";
    impl_fn: "fn f() -> ", "impl Fn(u8) -> ", "u8", "", " { loop {} }";
    dyn_fn: "type T = Box<", "dyn Fn(u8) -> ", "u8", "", ">;";
    ref_type: "type T = ", "&", "u8", "", ";";
    ptr_type: "type T = ", "*const ", "u8", "", ";";
    slice_type: "type T = ", "[", "u8", "]", ";";
    tuple_type: "type T = ", "(", "u8", ",)", ";";
    // prefix expressions
    break_chain: "fn f() { loop { ", "break ", "", "", "} }";
    return_chain: "fn f() { ", "return ", "", "", "}";
    yield_chain: "fn f() { ", "yield ", "1", "", "; }";
    ref_expr: "fn f() { let x = ", "& ", "1", "", "; }";
    refref_expr: "fn f() { let x = ", "&&", "1", "", "; }";
    ref_mut_expr: "fn f() { let x = ", "&mut ", "1", "", "; }";
    deref: "fn f() { let x = ", "*", "a", "", "; }";
    neg: "fn f() { let x = ", "- ", "1", "", "; }";
    not: "fn f() { let x = ", "!", "a", "", "; }";
    closure: "fn f() { let c = ", "|| ", "1", "", "; }";
    closure_params: "fn f() { let c = ", "|a, b| ", "1", "", "; }";
    move_closure: "fn f() { let c = ", "move |x| ", "1", "", "; }";
    range: "fn f() { let r = ", ".. ", "", "", "; }";
    attr_expr: "fn f() { let x = ", "#[a] ", "1", "", "; }";
    // binary and postfix chains: built in a loop by syn, walked by recursion
    assign: "fn f() { ", "a = ", "1", "", "; }";
    add: "fn f() { let x = ", "1 + ", "1", "", "; }";
    add_blocks: "fn f() { let x = ", "{ 1 } + ", "1", "", "; }";
    add_tuples: "fn f() { let x = ", "(1, 1).0 + ", "1", "", "; }";
    let_chain: "fn f() { if ", "let x = 1 && ", "true", "", " {} }";
    cast: "fn f() { let x = 1", "", "", " as u8", "; }";
    try_chain: "fn f() { let x = a", "", "", "?", "; }";
    await_chain: "async fn f() { let x = a", "", "", ".await", "; }";
    method: "fn f() { let x = a", "", "", ".f()", "; }";
    field: "fn f() { let x = a", "", "", ".b", "; }";
    call: "fn f() { let x = a", "", "", "()", "; }";
    index: "fn f() { let x = a", "", "", "[0]", "; }";
    paren_args: "fn f() { let x = ", "f(1, ", "1", ")", "; }";
    else_if: "fn f(a: bool) -> u8 { ", "if a { 1 } else ", "{ 2 }", "", " }";
    // patterns
    ref_pattern: "fn f() { let ", "&", "x", "", " = 1; }";
    binding_pattern: "fn f() { match 1 { ", "x @ ", "1", "", " => {} } }";
    tuple_pattern: "fn f() { let ", "(", "x", ",)", " = 1; }";
    or_pattern: "fn f() { match 1 { 1", "", "", " | 1", " => {} } }";
    // brackets
    parens: "fn f() { let x = ", "(", "1", ")", "; }";
    blocks: "fn f() ", "{", "", "}", "";
    macro_body: "fn f() { m!", "(", "1", ")", "; }";
    attr_args: "#[a", "(", "b", ")", "] fn f() {}";
}
