//! Compile-fail tests of `#[mrtr_handler]`: every unsupported shape is an error with the
//! author's span (one trybuild run, few files, to keep the suite fast).

#[test]
fn unsupported_handlers_are_compile_errors_with_the_authors_span() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
