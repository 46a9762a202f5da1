//! The Python package's generated files are what the `baton` command prints from the schemas:
//! `python/src/baton/types.py` (`baton python`: every tool's arguments and result, every host
//! input's arguments and answer, every effect) and `python/src/baton/tools.json` (`baton
//! tools`: the definitions the host driver hands a model). A build that changes a schema fails
//! here until they are regenerated (`UPDATE_EXPECT=1`) and reviewed.
use std::path::PathBuf;
use std::process::Command;

fn matches(command: &str, file: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_baton")).arg(command).output().expect("baton runs");
    assert!(out.status.success());
    let generated = String::from_utf8(out.stdout).expect("utf-8");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../python/src/baton").join(file);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &generated).expect("write the generated file");
        return;
    }
    let committed = std::fs::read_to_string(&path).expect("the generated file exists");
    assert!(
        committed == generated,
        "python/src/baton/{file} is out of date with `baton {command}`: run `UPDATE_EXPECT=1 cargo test -p baton --test python` and review the diff"
    );
}

#[test]
fn committed_python_types_match_the_schemas() {
    matches("python", "types.py");
}

#[test]
fn committed_python_tool_definitions_match_the_schemas() {
    matches("tools", "tools.json");
}
