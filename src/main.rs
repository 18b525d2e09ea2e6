/// The allocator: parsing and walking allocate millions of small nodes per run, and the system
/// allocator spent about a third of a run on them (`bench/run.sh`, `perf`).
#[global_allocator]
static GLOBAL: Allocator = Allocator;

/// mimalloc, asked through its plain `malloc` family when the alignment asked for is one every
/// block has anyway (8 bytes: every size class is a multiple of a word), as the system allocator
/// of the standard library does; the `mimalloc` crate's `MiMalloc` takes the aligned path for every
/// allocation, whose extra checks were a twentieth of a run's instructions (callgrind, the bench's
/// all-parse tree). Other alignments still go to the aligned calls.
struct Allocator;

/// The alignment of every block mimalloc hands out.
const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: each call forwards to mimalloc with the size asked for; a pointer from the plain calls
// is aligned to `WORD`, which is all those calls are used for; `mi_free` frees blocks of both
// families.
unsafe impl std::alloc::GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { libmimalloc_sys::mi_malloc(layout.size()).cast() }
        } else {
            unsafe { libmimalloc_sys::mi_malloc_aligned(layout.size(), layout.align()).cast() }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { libmimalloc_sys::mi_zalloc(layout.size()).cast() }
        } else {
            unsafe { libmimalloc_sys::mi_zalloc_aligned(layout.size(), layout.align()).cast() }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            unsafe {
                libmimalloc_sys::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

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

#[cfg(test)]
mod tests {
    use std::alloc::{GlobalAlloc, Layout};

    use super::Allocator;

    /// Every size class and alignment gets a block aligned as asked, and `realloc` keeps the
    /// contents and the alignment: a threshold above what mimalloc's plain calls give (a 24-byte
    /// block is only 8-aligned) would hand out misaligned blocks here.
    #[test]
    fn blocks_are_aligned_as_asked_and_realloc_keeps_them() {
        let a = Allocator;
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            let mut live = Vec::new();
            for size in (1..=160).chain([1000, 5000, 70_000]) {
                let layout = Layout::from_size_align(size, align).unwrap();
                for zeroed in [false, true] {
                    // SAFETY: a non-zero size; the block is freed below with its layout.
                    let p = unsafe {
                        if zeroed {
                            a.alloc_zeroed(layout)
                        } else {
                            a.alloc(layout)
                        }
                    };
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    // SAFETY: `p` holds `size` bytes.
                    unsafe {
                        if zeroed {
                            assert!((0..size).all(|i| *p.add(i) == 0));
                        }
                        p.write_bytes(0xA5, size);
                        let q = a.realloc(p, layout, size * 3);
                        assert_eq!(q as usize % align, 0, "realloc: size {size} align {align}");
                        assert!((0..size).all(|i| *q.add(i) == 0xA5));
                        live.push((q, Layout::from_size_align(size * 3, align).unwrap()));
                    }
                }
            }
            for (p, layout) in live {
                // SAFETY: allocated above with this layout.
                unsafe { a.dealloc(p, layout) };
            }
        }
    }
}
