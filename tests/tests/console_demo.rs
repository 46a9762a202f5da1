//! The console's demo (`demo/console.jsonl`) played the way the console plays it — planned by
//! `core::playback` and run on a moving clock with ticks at deadlines — fails no step and ends
//! with everything the demo promises: a lead delegating to several agents, a three-stage
//! blueprint chain with coding-agent badges (B3, B4), a quiet child nudged (S7), a mailbox
//! report (M1), relay threads in two teammates' inboxes (I1), a sibling release (X2).
use baton_core::playback::{plan, Due, Playback, Progress};
use baton_core::{Engine, MemoryStorage, RelayStatus, SeededIds, SessionStatus, Status, Timestamp};
use serde_json::json;
use std::collections::BTreeSet;

const DEMO: &str = include_str!("../../demo/console.jsonl");

fn play() -> (Engine<MemoryStorage>, Playback) {
    let plan = plan(DEMO).expect("the demo plans");
    let end = plan.steps.last().expect("steps").at;
    let mut engine = Engine::open(MemoryStorage::new(), Box::new(SeededIds::new(plan.seed.unwrap_or(1)))).unwrap();
    let mut pb = Playback::new(plan, Progress::default());
    // The clock moves a minute at a time, as a running console would (faster).
    let mut clock = pb.next_at().expect("a first step");
    while clock <= end {
        while let Some(due) = pb.next(clock, engine.next_deadline(), engine.last_at()) {
            match due {
                Due::Tick(t) => engine.tick(t).expect("ticks run"),
                Due::Step { index, at, command } => {
                    let r = engine.run(command.expect("callers parse"), at);
                    pb.done(index, r.as_ref().map_err(|e| e.to_string()));
                }
            }
        }
        clock = Timestamp(clock.0 + 60_000);
    }
    (engine, pb)
}

#[test]
fn the_console_demo_plays_every_step_and_shows_what_it_promises() {
    let (engine, pb) = play();
    assert!(pb.finished());
    assert_eq!(pb.progress.failed, Vec::<String>::new(), "no step fails");
    let st = engine.state();

    // The lead delegates to several agents.
    let from_lead: BTreeSet<&str> =
        st.handoffs.values().filter(|h| h.parent_thread_id == "chat_main").map(|h| h.child_bot_id.as_str()).collect();
    assert!(from_lead.len() >= 3, "{from_lead:?}");

    // B3/B4: the journey's three stages all spawned, with badges.
    let strip = engine.preview_host("mission_strip", json!({"thread_id": "chat_main"}), engine.last_at()).unwrap();
    let stages: Vec<(&str, &str, Option<&str>)> = strip["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["blueprint"].as_str().unwrap(), s["state"].as_str().unwrap(), s["coding_agent"].as_str()))
        .collect();
    assert_eq!(
        stages,
        [
            ("discovery", "spawned", Some("claude_code")),
            ("schema_migration", "spawned", Some("claude_code")),
            ("validation", "spawned", Some("cocoa"))
        ]
    );

    // S7: a quiet child was nudged; M1: the review came back by mailbox and completed it.
    let review = st.handoffs.values().find(|h| h.spec.thread_title.as_deref() == Some("Model review")).unwrap();
    assert!(review.nudges_sent >= 1);
    assert_eq!(review.status, Status::Completed);
    assert!(st.messages.values().any(|m| m.subject.as_deref() == Some("Model review complete")));
    // A handoff is still running at the end, and one was cancelled (C1).
    assert!(st.handoffs.values().any(|h| h.status == Status::Running));
    assert!(st.handoffs.values().any(|h| h.status == Status::Cancelled));

    // I1: relay threads wait in two teammates' inboxes.
    let recipients: BTreeSet<&str> =
        st.relay_threads.values().filter(|t| t.status == RelayStatus::Pending).map(|t| t.recipient.as_str()).collect();
    assert_eq!(recipients, BTreeSet::from(["alice@acme", "carol@acme"]));

    // X2: the sibling handed control back with typed values.
    let session = st.sessions.values().next().expect("a sibling session");
    assert_eq!(session.status, SessionStatus::Released);
    assert_eq!(session.return_values.as_ref().unwrap()["downtime"], json!(false));
}
