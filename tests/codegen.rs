//! The generated protobuf code committed in `crates/a2a-pb/src/generated/`
//! must equal what the root `build.rs` writes to `OUT_DIR`.
//!
//! When they differ this test rewrites the committed copy and fails once, in
//! the style of rust-analyzer's `ensure_file_contents`: edit `proto/`, run
//! `cargo test`, run it again, commit.

use std::fs;
use std::path::{Path, PathBuf};

/// Where the build script writes (compile-time `OUT_DIR` of this package).
const OUT_DIR: &str = env!("OUT_DIR");

fn committed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/a2a-pb/src/generated")
}

/// Every regular file directly under `dir`, sorted by name.
fn files_in(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

#[test]
fn committed_generated_code_is_fresh() {
    let out_dir = Path::new(OUT_DIR);
    let committed = committed_dir();
    let generated = files_in(out_dir);
    assert!(
        generated.iter().any(|n| n == "a2a.v1.rs"),
        "build.rs wrote no a2a.v1.rs to {}: {generated:?}",
        out_dir.display()
    );

    let mut stale = Vec::new();
    for name in &generated {
        let fresh = fs::read(out_dir.join(name)).expect("read a generated file");
        let target = committed.join(name);
        if fs::read(&target).ok().as_deref() != Some(fresh.as_slice()) {
            fs::create_dir_all(&committed).expect("create the generated directory");
            fs::write(&target, &fresh).expect("update the committed copy");
            stale.push(format!("updated {}", target.display()));
        }
    }
    for name in files_in(&committed) {
        if !generated.contains(&name) {
            let target = committed.join(&name);
            fs::remove_file(&target).expect("remove a file the build no longer writes");
            stale.push(format!("removed {}", target.display()));
        }
    }

    assert!(
        stale.is_empty(),
        "\nThe committed generated code was out of date and has been rewritten:\n  {}\n\n\
         Re-run the tests and commit the changes under crates/a2a-pb/src/generated/.\n\
         (In CI: run `cargo test --test codegen` locally and commit the result.)\n",
        stale.join("\n  ")
    );
}
