//! `pkg/tools.d.ts` is what `baton typescript` generates from the tool schemas: a build that
//! changes the types fails here until the file is regenerated (`UPDATE_EXPECT=1`) and reviewed.
use std::path::PathBuf;
use std::process::Command;

#[test]
fn committed_typescript_types_match_the_schemas() {
    let out = Command::new(env!("CARGO_BIN_EXE_baton")).arg("typescript").output().expect("baton runs");
    assert!(out.status.success());
    let generated = String::from_utf8(out.stdout).expect("utf-8");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../pkg/tools.d.ts");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &generated).expect("write pkg/tools.d.ts");
        return;
    }
    let committed = std::fs::read_to_string(&path).expect("pkg/tools.d.ts exists");
    assert!(
        committed == generated,
        "pkg/tools.d.ts is out of date with the tool schemas: run `UPDATE_EXPECT=1 cargo test -p baton --test typescript` and review the diff"
    );
}

/// The generated part of docs/HOST.md (between its two markers) is what `baton host-table`
/// prints: the effects and host inputs it documents are the declared ones.
#[test]
fn host_doc_tables_match_the_schemas() {
    let out = Command::new(env!("CARGO_BIN_EXE_baton")).arg("host-table").output().expect("baton runs");
    assert!(out.status.success());
    let generated = String::from_utf8(out.stdout).expect("utf-8");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/HOST.md");
    let doc = std::fs::read_to_string(&path).expect("docs/HOST.md exists");
    let (start, end) = ("<!-- generated: baton host-table -->\n", "<!-- end of generated part -->");
    let (Some(a), Some(b)) = (doc.find(start), doc.find(end)) else {
        panic!("docs/HOST.md lacks its markers");
    };
    let current = &doc[a + start.len()..b];
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        let updated = format!("{}{generated}{}", &doc[..a + start.len()], &doc[b..]);
        std::fs::write(&path, updated).expect("write docs/HOST.md");
        return;
    }
    assert!(
        current == generated,
        "docs/HOST.md's tables are out of date: run `UPDATE_EXPECT=1 cargo test -p baton --test typescript` and review the diff"
    );
}
