//! An identifier's text without a heap allocation. Outside a compiler, proc-macro2 keeps an
//! `Ident`'s text private: `to_string` is the only way to it, and each call allocates a `String`
//! and frees it again. The rules ask for names hundreds of thousands of times on a large tree
//! (to look them up, compare them, hash them) and keep few of them: those allocations were about
//! 3% of the instructions of a run on the all-parse bench tree (callgrind, `bench/run.sh`'s
//! tree). [`of`] copies the text onto the stack instead; `.to_string()` on the result makes
//! the `String` where one is kept.

use std::cell::RefCell;
use std::fmt::Write as _;

/// An identifier's text (`r#` included for a raw identifier, as `to_string` gives it), in a
/// buffer lent by this thread's pool: dropped, the buffer goes back for the next name.
pub struct Name(String);

thread_local! {
    static SPARE: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Buffers kept per thread: names are held a few at a time (a path's first and last segment).
const SPARE_BUFFERS: usize = 16;
/// Bigger buffers are not kept: a rare long name should not pin its memory.
const SPARE_CAPACITY: usize = 64;

/// The text of `ident`, as [`proc_macro2::Ident::to_string`] gives it.
pub fn of(ident: &proc_macro2::Ident) -> Name {
    let mut text = SPARE
        .with(|spare| spare.borrow_mut().pop())
        .unwrap_or_else(|| String::with_capacity(SPARE_CAPACITY));
    // Writing into a `String` cannot fail.
    let _ = write!(text, "{ident}");
    Name(text)
}

impl Drop for Name {
    fn drop(&mut self) {
        let mut text = std::mem::take(&mut self.0);
        if text.capacity() == 0 || text.capacity() > SPARE_CAPACITY {
            return;
        }
        text.clear();
        // A thread that is going away has no pool to give back to.
        let _ = SPARE.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < SPARE_BUFFERS {
                spare.push(text);
            }
        });
    }
}

impl std::ops::Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        **self == *other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        **self == **other
    }
}

impl From<Name> for String {
    /// The buffer itself, not a copy: it does not go back to the pool.
    fn from(mut n: Name) -> String {
        std::mem::take(&mut n.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_is_what_to_string_gives_and_a_lent_buffer_holds_only_its_name() {
        let long = "a".repeat(SPARE_CAPACITY * 2);
        // Names held at once, more than the pool keeps, and given back in turn: each buffer
        // lent again holds only its new name.
        for _ in 0..3 {
            let held: Vec<(Name, String)> = ["x", "peer", "r#type", "über_größe", &long]
                .iter()
                .cycle()
                .take(SPARE_BUFFERS + 4)
                .map(|text| {
                    let ident: proc_macro2::Ident = syn::parse_str(text).unwrap();
                    (of(&ident), ident.to_string())
                })
                .collect();
            for (n, expected) in &held {
                assert_eq!(&**n, expected.as_str());
            }
            let ident: proc_macro2::Ident = syn::parse_str("kept").unwrap();
            assert_eq!(String::from(of(&ident)), "kept");
        }
    }
}
