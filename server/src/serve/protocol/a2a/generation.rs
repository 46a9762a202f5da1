//! Task generations (A2A v1.1 draft, §3.2.7 at a2aproject/A2A 28491879): each task's count of
//! mutations, from 1 at the record that made it, one more for every event its stream gives —
//! a state reached, an artifact added or changed. Counted from the workspace's log by the same
//! fold a stream uses (`follow.rs`), so a stream's events, a task read and a precondition all
//! agree on the number.
//!
//! The index lives with the workspace's writer and folds each record as it is appended (the
//! writer builds it from the whole log the first time an A2A method asks for it), so inside a batch
//! it stands exactly at the engine's last record: a send's `ifGenerationMatch` is checked
//! against the task as that very command finds it. A task in a terminal state takes nothing
//! more (spec §3.1.1): its number is kept and its fold dropped.
use super::follow::Follow;
use crate::serve::writer::actor::Index;
use serde_json::Value;
use std::collections::HashMap;

/// A task as the index has it at one record.
pub struct Kept {
    /// Its fold; `None` once it is in a terminal state.
    pub follow: Option<Follow>,
    pub generation: u64,
    /// The record that made it.
    pub made: u64,
}

/// Every task's generation, as of record `upto`.
#[derive(Default)]
pub struct Generations {
    upto: u64,
    /// The tasks that may still move: their fold and generation.
    open: HashMap<String, (Follow, u64)>,
    /// Tasks in a terminal state: their last generation.
    done: HashMap<String, u64>,
    /// The record that made each task (where a replay of it starts).
    made: HashMap<String, u64>,
    /// Which open tasks a child thread, or a plan's task key, belongs to.
    by_thread: HashMap<String, Vec<String>>,
    by_key: HashMap<String, Vec<String>>,
}

fn link(map: &mut HashMap<String, Vec<String>>, key: &str, id: &str) {
    let ids = map.entry(key.to_string()).or_default();
    if !ids.iter().any(|i| i == id) {
        ids.push(id.to_string());
    }
}

fn unlink(map: &mut HashMap<String, Vec<String>>, id: &str) {
    map.retain(|_, ids| {
        ids.retain(|i| i != id);
        !ids.is_empty()
    });
}

/// The writer keeps it beside the log, folded as each record is appended.
impl Index for Generations {
    fn fold(&mut self, seq: u64, line: &str) -> bool {
        Generations::fold(self, seq, line)
    }
    fn upto(&self) -> u64 {
        self.upto
    }
}

impl Generations {
    /// A task's generation (`None`: no such task in the log).
    pub fn generation(&self, id: &str) -> Option<u64> {
        self.open.get(id).map(|(_, g)| *g).or_else(|| self.done.get(id).copied())
    }

    /// What a stream of a task starts from: its fold (while it may still move), its
    /// generation, and the record that made it.
    pub fn kept(&self, id: &str) -> Option<Kept> {
        Some(Kept {
            follow: self.open.get(id).map(|(f, _)| f.clone()),
            generation: self.generation(id)?,
            made: *self.made.get(id)?,
        })
    }

    /// Folds record `seq` (its log line). Records come in order: one already folded is passed
    /// over, and one past a gap is refused (`false`) — the index would be wrong from there.
    pub fn fold(&mut self, seq: u64, line: &str) -> bool {
        if seq <= self.upto {
            return true;
        }
        if seq != self.upto + 1 {
            return false;
        }
        self.upto = seq;
        let Ok(record) = serde_json::from_str::<Value>(line) else { return true };
        let mut touched: Vec<String> = Vec::new();
        let mut touch = |ids: Option<&Vec<String>>| {
            for id in ids.into_iter().flatten() {
                if !touched.contains(id) {
                    touched.push(id.clone());
                }
            }
        };
        for c in record["changes"].as_array().into_iter().flatten() {
            let field = |name: &str| c[name].as_str().unwrap_or_default();
            match field("kind") {
                "handoff" => {
                    let id = field("handoff_id");
                    if !self.open.contains_key(id) && !self.done.contains_key(id) && !id.is_empty() {
                        let parent = field("parent_thread_id");
                        let context = parent.strip_prefix("a2a-").unwrap_or(parent);
                        self.open.insert(id.to_string(), (Follow::blank(id, context), 0));
                        self.made.insert(id.to_string(), seq);
                    }
                    touch(Some(&vec![id.to_string()]));
                }
                "handoff_delta" => touch(Some(&vec![field("handoff_id").to_string()])),
                "ask" | "thread" | "thread_delta" => touch(self.by_thread.get(field("thread_id"))),
                "todo" => {
                    touch(self.by_key.get(field("task_id")));
                    touch(self.by_thread.get(field("task_id")));
                }
                _ => {}
            }
        }
        for id in touched {
            let Some((follow, generation)) = self.open.get_mut(&id) else { continue };
            let events = follow.apply(&record).len() as u64;
            // The record that makes a task gives it generation 1, whatever it shows.
            *generation = if *generation == 0 { 1 } else { *generation + events };
            if follow.terminal() {
                let g = *generation;
                self.open.remove(&id);
                self.done.insert(id.clone(), g);
                unlink(&mut self.by_thread, &id);
                unlink(&mut self.by_key, &id);
                continue;
            }
            if let Some(child) = follow.child() {
                link(&mut self.by_thread, child, &id);
            }
            if let Some(key) = follow.plan_key() {
                link(&mut self.by_key, key, &id);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(changes: Value) -> String {
        json!({"at": 1767600000000u64, "changes": changes}).to_string()
    }

    #[test]
    fn a_task_starts_at_one_and_each_event_adds_one() {
        let mut g = Generations::default();
        let made = line(json!([
            {"kind": "thread", "thread_id": "a2a-ctx", "bot_id": "client"},
            {"kind": "handoff", "handoff_id": "h1", "parent_thread_id": "a2a-ctx", "child_thread_id": "c1", "status": "started", "status_at": 1},
        ]));
        assert!(g.fold(1, &made));
        assert_eq!(g.generation("h1"), Some(1));
        // another task's record, and a record of nothing: no change
        assert!(g.fold(2, &line(json!([{"kind": "todo", "task_id": "c9", "steps": []}]))));
        assert_eq!(g.generation("h1"), Some(1));
        // the child's plan (an artifact) and its first activity (WORKING): two events
        let plan = line(json!([
            {"kind": "todo", "task_id": "c1", "steps": [{"title": "a", "status": "in_progress"}]},
            {"kind": "handoff_delta", "handoff_id": "h1", "set": {"status": "running"}},
        ]));
        assert!(g.fold(3, &plan));
        assert_eq!(g.generation("h1"), Some(3));
        // a question (INPUT_REQUIRED), then its answer (WORKING)
        let ask = |s: &str| {
            line(
                json!([{"kind": "ask", "thread_id": "c1", "question_id": "q1", "status": s, "questions": [{"question": "?"}]}]),
            )
        };
        assert!(g.fold(4, &ask("pending")));
        assert!(g.fold(5, &ask("answered")));
        assert_eq!(g.generation("h1"), Some(5));
        // a record seen twice counts once; one past a gap is refused
        assert!(g.fold(5, &ask("pending")));
        assert_eq!(g.generation("h1"), Some(5));
        assert!(!g.fold(7, &ask("pending")));
        assert_eq!(g.upto(), 5);
        // the result and COMPLETED: two more; then the task takes nothing
        let done = line(
            json!([{"kind": "handoff_delta", "handoff_id": "h1", "set": {"status": "completed", "result": "ok"}}]),
        );
        assert!(g.fold(6, &done));
        assert_eq!(g.generation("h1"), Some(7));
        let kept = g.kept("h1").unwrap();
        assert!(kept.follow.is_none() && kept.generation == 7 && kept.made == 1);
        assert!(g.fold(7, &line(json!([{"kind": "todo", "task_id": "c1", "steps": []}]))));
        assert_eq!(g.generation("h1"), Some(7));
        assert!(g.by_thread.is_empty() && g.by_key.is_empty());
    }

    #[test]
    fn a_plan_under_the_threads_task_key_is_followed() {
        let mut g = Generations::default();
        g.fold(1, &line(json!([{"kind": "handoff", "handoff_id": "h1", "parent_thread_id": "t", "child_thread_id": "c1", "status": "running"}])));
        g.fold(2, &line(json!([{"kind": "thread_delta", "thread_id": "c1", "set": {"task_id": "k7"}}])));
        g.fold(3, &line(json!([{"kind": "todo", "task_id": "k7", "steps": [{"title": "x", "status": "pending"}]}])));
        assert_eq!(g.generation("h1"), Some(2));
        let kept = g.kept("h1").unwrap();
        assert_eq!(kept.follow.unwrap().plan_key(), Some("k7"));
    }
}
