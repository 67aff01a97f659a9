//! The one protobuf codegen configuration of the workspace.
//!
//! `proto/a2a.proto` (and the `google/api` protos it imports) is compiled with
//! protox (which bundles `google/protobuf/*`), so no system `protoc` is needed. The build writes, only into
//! `OUT_DIR`:
//!
//! - `a2a.v1.rs` (and `google.api.rs`): prost messages and the tonic service,
//!   with the server module gated on `feature = "grpc-server"` and the client
//!   module on `feature = "grpc-client"` (features of `a2a-pb`);
//! - `a2a.v1.serde.rs`: pbjson serde impls (proto-JSON) for `.a2a.v1`;
//! - `a2a_descriptor.bin`: the encoded `FileDescriptorSet`, for gRPC server
//!   reflection.
//!
//! `tests/codegen.rs` checks that these files equal the copies committed in
//! `crates/a2a-pb/src/generated/` and refreshes the copies when they drift.

use std::error::Error;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=proto");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);

    // What `protox::compile(["a2a.proto"], ["proto"])` does, but keeping the
    // compiler: `encode_file_descriptor_set` preserves extension options such
    // as `(google.api.http)`, which the `prost_types` form drops, and the
    // descriptor served by reflection should carry them.
    let mut compiler = protox::Compiler::new(["proto"])?;
    compiler
        .include_source_info(true)
        .include_imports(true)
        .open_files(["a2a.proto"])?;
    let fds = compiler.file_descriptor_set();
    let encoded = compiler.encode_file_descriptor_set();
    std::fs::write(out_dir.join("a2a_descriptor.bin"), &encoded)?;

    tonic_prost_build::configure()
        .server_mod_attribute("a2a.v1", r#"#[cfg(feature = "grpc-server")]"#)
        .client_mod_attribute("a2a.v1", r#"#[cfg(feature = "grpc-client")]"#)
        .compile_well_known_types(true)
        .extern_path(".google.protobuf", "::pbjson_types")
        .out_dir(&out_dir)
        .compile_fds(fds)?;

    pbjson_build::Builder::new()
        .register_descriptors(&encoded)?
        .ignore_unknown_fields()
        .out_dir(&out_dir)
        .build(&[".a2a.v1"])?;

    Ok(())
}
