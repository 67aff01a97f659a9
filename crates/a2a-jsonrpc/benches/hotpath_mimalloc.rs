//! The `hotpath` bench with mimalloc as the global allocator (what the `a2a`
//! binary uses), to compare allocators on the same requests:
//!
//! ```text
//! cargo bench -p a2a-jsonrpc --bench hotpath_mimalloc -- send-task 2000
//! ```

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "hotpath.rs"]
mod hotpath;

fn main() {
    hotpath::main();
}
