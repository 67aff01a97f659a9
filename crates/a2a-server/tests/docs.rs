//! `docs/ARCHITECTURE.md` copies the error tables of the gRPC and REST
//! adapters; their crate docs are authoritative, and this test fails when a
//! copy drifts.

const ARCHITECTURE: &str = include_str!("../../../docs/ARCHITECTURE.md");
const GRPC: &str = include_str!("../../a2a-grpc/src/lib.rs");
const REST: &str = include_str!("../../a2a-http-json/src/lib.rs");

/// The markdown table starting with the line `header`, from `text` whose
/// lines may carry a `//! ` doc prefix.
fn table(text: &str, header: &str) -> Vec<String> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.strip_prefix("//! ").unwrap_or(l))
        .collect();
    let start = lines
        .iter()
        .position(|l| *l == header)
        .unwrap_or_else(|| panic!("no table headed {header:?}"));
    lines[start..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .map(|l| (*l).to_owned())
        .collect()
}

#[test]
fn the_grpc_status_table_is_the_adapters() {
    let header = "| `A2aError` | JSON-RPC code | gRPC status |";
    let source = table(GRPC, header);
    assert!(source.len() > 10, "{source:?}");
    assert_eq!(table(ARCHITECTURE, header), source);
}

#[test]
fn the_rest_status_table_is_the_adapters() {
    let header = "| `A2aError` | code | HTTP status | a bare status reads back as |";
    let source = table(REST, header);
    assert!(source.len() > 10, "{source:?}");
    assert_eq!(table(ARCHITECTURE, header), source);
}
