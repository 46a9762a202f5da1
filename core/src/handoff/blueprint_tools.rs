//! `get_handoff_inputs` and `store_blueprint_outputs` (rules B1, B2).
use crate::ground::error::{CallError, ErrorCode};
use crate::handoff::ctx::{non_empty, Ctx};
use crate::handoff::store::{HandoffState, HandoffTx};
use crate::handoff::wire::*;
use crate::handoff::OnCompletion;
use serde_json::{Map, Value};

pub(crate) fn get_inputs<'a>(
    tx: &mut impl HandoffTx<'a>,
    ctx: &Ctx,
    a: GetHandoffInputsArgs,
) -> Result<GetHandoffInputsResult, CallError> {
    let thread = (*ctx.thread).clone();
    if thread.handoff_reason.as_deref() != Some("blueprint_chain") {
        return Err(CallError::new(
            ErrorCode::Forbidden,
            format!("thread '{}' was not spawned by a blueprint handoff; get_handoff_inputs is for blueprint children (rule B1)", thread.thread_id),
        )
        .rule("B1"));
    }
    if let Some(b) = &a.blueprint_name {
        non_empty("blueprint_name", "B1", b)?;
    }
    let name =
        a.blueprint_name.clone().or_else(|| thread.blueprint.as_ref().map(|b| b.name.clone())).unwrap_or_default();
    let (names, required): (Vec<String>, Vec<String>) = match &a.specific_inputs {
        Some(list) => {
            if let Some(i) = list.iter().position(|n| n.trim().is_empty()) {
                return Err(CallError::invalid(
                    &format!("specific_inputs[{i}]"),
                    "B1",
                    "input names must not be empty",
                ));
            }
            (list.clone(), Vec::new())
        }
        None => {
            let manifest = tx.st().blueprints().get(&name).ok_or_else(|| {
                CallError::new(
                    ErrorCode::NotFound,
                    format!("blueprint_name: no manifest is registered for blueprint '{name}'; pass specific_inputs (rule B1)"),
                )
                .field("blueprint_name")
                .rule("B1")
            })?;
            (
                manifest.inputs.iter().map(|i| i.name.clone()).collect(),
                manifest.inputs.iter().filter(|i| i.required).map(|i| i.name.clone()).collect(),
            )
        }
    };
    let parent_id = thread.parent_thread_id.clone().unwrap_or_default();
    let parent = tx.thread(&parent_id).cloned();
    let handed = tx.handoff_of_child(&thread.thread_id).and_then(|h| h.spec.context_data.clone());
    // Where inputs come from, first hit wins: the parent's stored outputs, its durable
    // blueprint inputs, its context data, then the context handed to this child.
    let sources: Vec<Map<String, Value>> = [
        parent.as_ref().map(|p| p.blueprint_outputs.clone()),
        parent.as_ref().map(|p| p.blueprint_inputs.clone()),
        parent.as_ref().and_then(|p| p.context_data.clone()),
        handed,
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut inputs = Map::new();
    let mut missing = Vec::new();
    for n in &names {
        match sources.iter().find_map(|s| s.get(n)) {
            Some(v) => {
                inputs.insert(n.clone(), v.clone());
            }
            None => missing.push(n.clone()),
        }
    }
    let missing_required: Vec<&String> = missing.iter().filter(|m| required.contains(m)).collect();
    let hint = if missing.is_empty() {
        format!("All {} inputs found; start blueprint '{name}' with them.", names.len())
    } else if missing_required.is_empty() {
        format!("Optional inputs {missing:?} were not stored by the parent; continue without them or ask the parent thread.")
    } else {
        format!("Required inputs {missing_required:?} are missing; ask the parent thread with mailbox_action before starting.")
    };
    // B1: durable only with agent context; otherwise returned for this call alone.
    let persisted = ctx.agent_context && !inputs.is_empty();
    if persisted {
        let mut t = thread.clone();
        t.blueprint_inputs.extend(inputs.clone());
        tx.put_thread(t);
    }
    Ok(GetHandoffInputsResult {
        success: true,
        inputs,
        from_parent_thread: parent_id.to_string(),
        missing_inputs: missing,
        hint,
        persisted,
    })
}

pub(crate) fn store_outputs<'a>(
    tx: &mut impl HandoffTx<'a>,
    ctx: &Ctx,
    a: StoreBlueprintOutputsArgs,
) -> Result<StoreBlueprintOutputsResult, CallError> {
    if a.outputs.is_empty() {
        return Err(CallError::invalid("outputs", "B2", "must name at least one output"));
    }
    if let Some(b) = &a.blueprint_name {
        non_empty("blueprint_name", "B2", b)?;
    }
    let mut thread = (*ctx.thread).clone();
    thread.blueprint_outputs.extend(a.outputs.clone());
    let blueprint_name = a.blueprint_name.or_else(|| thread.blueprint.as_ref().map(|b| b.name.clone()));
    let h = tx.handoff_of_child(&thread.thread_id);
    let notify = h.is_some_and(|h| h.spec.on_completion == OnCompletion::Notify);
    let remediation = thread.context_data.as_ref().is_some_and(|c| c.contains_key("remediation_repo_id"));
    let hint = if notify || remediation {
        "Do not chain another blueprint from this thread: the stored outputs go to the waiting parent automatically when this blueprint exits through @END."
    } else {
        "To continue the chain, call handoff(blueprint_name=<next blueprint>) from this thread; the next blueprint's inputs are extracted from these outputs."
    };
    let stored = thread.blueprint_outputs.clone();
    let count = a.outputs.len();
    let thread_id = thread.thread_id.clone();
    tx.put_thread(thread);
    Ok(StoreBlueprintOutputsResult {
        success: true,
        stored_outputs: stored,
        blueprint_name,
        message: format!("Stored {count} output(s) on thread {thread_id}."),
        hint: hint.into(),
    })
}
