//! H1: a handoff keeps every follow-up its parent sent, whole and in order, with its time —
//! refused ones (empty, H2) are not kept. A2A's task history shows them.
use baton_core::script::scenario::run;
use std::path::PathBuf;

#[test]
fn h1_a_handoff_keeps_the_follow_ups_it_was_sent() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let script = std::fs::read_to_string(dir.join("h1_follow_up_queued.jsonl")).unwrap();
    let ran = run(&script);
    let kept: Vec<(String, String)> = ran
        .engine
        .state()
        .handoffs
        .values()
        .flat_map(|h| h.follow_ups.iter().map(|f| (f.message.clone(), f.at.to_iso())))
        .collect();
    assert_eq!(
        kept,
        [
            ("Focus on the orders table first.".to_string(), "2026-01-05T09:02:00Z".to_string()),
            ("And the currency columns.".to_string(), "2026-01-05T09:03:00Z".to_string()),
        ]
    );
}
