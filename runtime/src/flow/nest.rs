//! Asking helpers (`#[mrtr_helper]`): a helper's asks run on a child [`Flow`] whose progress
//! travels inside the caller's state, under the caller's step that called the helper.
//!
//! The caller's call `helper(&mrtr, ..).await` is a step of the caller. The caller hands the
//! helper a [`Frame`] in place of `&mrtr`: the helper's saved progress when the caller resumes at
//! that step, whether this request's answers are meant for it, and the key prefix of its asks
//! (`s<caller step>.`). The helper runs its own state machine on that frame; when it suspends
//! it parks its state and questions in the frame, and the caller suspends at its own step with
//! the helper's state stored under `n:<step>`. Nesting goes as deep as helpers call helpers.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{DeferredScope, Flow, Mrtr, MrtrError, SUSPENDED};

const NESTED: &str = "n:";

/// A helper's progress, kept in its caller's state.
#[derive(Debug, Serialize, Deserialize)]
struct Saved {
    /// The helper's own shape fingerprint, checked when a round resumes inside it.
    #[serde(rename = "f")]
    fingerprint: String,
    #[serde(rename = "s")]
    step: u32,
    #[serde(rename = "d")]
    data: Map<String, Value>,
}

/// A helper that suspended: its progress and the questions of its step.
#[derive(Debug)]
struct Parked {
    saved: Saved,
    pending: BTreeMap<String, Value>,
}

/// What a child flow remembers of its caller.
#[derive(Debug)]
pub(super) struct Nesting {
    pub(super) prefix: String,
    parked: Option<Parked>,
}

/// What a caller hands an asking helper in place of `&mrtr` (the `#[mrtr_handler]` and
/// `#[mrtr_helper]` expansions build it; authors never name it).
#[derive(Debug)]
pub struct Frame {
    mrtr: Mrtr,
    prefix: String,
    /// `Some` when the caller resumes at the step that called the helper: its saved progress
    /// (`None` inside when the caller's state has none, which is `InvalidState`).
    resume: Option<Option<Saved>>,
    answering: bool,
    answering_first: bool,
    parked: Option<Parked>,
}

impl Frame {
    /// A frame outside any flow, for the stand-in copy `#[mrtr_handler]` emits next to its
    /// compile errors. Never runs: a crate with that error does not build.
    #[doc(hidden)]
    pub fn detached(mrtr: &Mrtr) -> Frame {
        Frame {
            mrtr: mrtr.clone(),
            prefix: String::new(),
            resume: None,
            answering: false,
            answering_first: false,
            parked: None,
        }
    }

    /// The request's handle, for the helper's own asks.
    pub fn mrtr(&self) -> &Mrtr {
        &self.mrtr
    }

    /// True when the helper suspended: the caller suspends too.
    pub fn suspended(&self) -> bool {
        self.parked.is_some()
    }
}

/// A plain `async fn` taking `&Mrtr` (one that reads capabilities but does not ask) is called
/// like a helper, with the frame in place of `&mrtr`: it reads the request's handle through
/// this, and, never suspending, completes its step in the round it runs.
impl std::ops::Deref for Frame {
    type Target = Mrtr;

    fn deref(&self) -> &Mrtr {
        &self.mrtr
    }
}

/// The `&Mrtr` parameter of an asking helper, as `#[mrtr_helper]` rewrites it.
#[diagnostic::on_unimplemented(
    message = "an asking helper (`#[mrtr_helper]`) is called outside a handler's state machine",
    label = "this passes `{Self}` to a helper that asks",
    note = "call it as `helper(&mrtr, ..).await` from the body of a `#[mrtr_handler]` handler or of another `#[mrtr_helper]`, as its own statement (`let x = helper(&mrtr, ..).await?;`)"
)]
pub trait HelperFrame {
    fn frame(&mut self) -> &mut Frame;
}

impl HelperFrame for &mut Frame {
    fn frame(&mut self) -> &mut Frame {
        self
    }
}

fn nested_key(step: u32) -> String {
    format!("{NESTED}{step}")
}

impl Flow {
    /// The key prefix of this flow's default `inputRequests` keys (empty for a handler).
    pub(super) fn key_prefix(&self) -> &str {
        self.nested.as_ref().map_or("", |n| n.prefix.as_str())
    }

    /// Caller side: the frame for the helper called at `step`.
    pub fn frame(&mut self, step: u32) -> Frame {
        let resume = if self.resume == Some(step) {
            self.resume = None;
            let saved = self
                .data
                .get(&nested_key(step))
                .and_then(|raw| Saved::deserialize(raw).ok());
            Some(saved)
        } else {
            None
        };
        Frame {
            mrtr: self.mrtr.clone(),
            prefix: format!("{}s{step}.", self.key_prefix()),
            resume,
            answering: self.answering == Some(step),
            answering_first: self.answering_first,
            parked: None,
        }
    }

    /// Caller side: the helper called at `step` suspended. Its progress goes into this flow's
    /// state and its questions into this round's `inputRequests`; returns what
    /// [`Flow::suspend`] returns.
    pub fn suspend_nested(&mut self, step: u32, frame: Frame) -> MrtrError {
        let Some(parked) = frame.parked else {
            return MrtrError::Internal("a helper was suspended without its state".into());
        };
        match serde_json::to_value(&parked.saved) {
            Ok(saved) => {
                self.data.insert(nested_key(step), saved);
            }
            Err(e) => return MrtrError::Internal(format!("saving a helper's progress: {e}")),
        }
        // The answers this flow itself received belong to an earlier step.
        self.answered.clear();
        self.pending = parked.pending;
        self.suspend(step)
    }

    /// Caller side: the helper called at `step` returned; its progress is no longer needed.
    pub fn nested_done(&mut self, step: u32) {
        self.data.remove(&nested_key(step));
        self.resolved(step);
    }

    /// Helper side: the child flow of a helper, from the frame its caller built. A saved
    /// progress of another helper shape, or naming a step it does not have, is `InvalidState`.
    pub fn start_nested(
        frame: &mut Frame,
        fingerprint: &'static str,
        steps: u32,
    ) -> Result<Flow, MrtrError> {
        let (resume, data) = match frame.resume.take() {
            None => (None, Map::new()),
            Some(None) => return Err(MrtrError::InvalidState),
            Some(Some(saved)) => {
                if saved.fingerprint != fingerprint || saved.step == 0 || saved.step > steps {
                    return Err(MrtrError::InvalidState);
                }
                (Some(saved.step), saved.data)
            }
        };
        Ok(Flow {
            mrtr: frame.mrtr.clone(),
            fingerprint,
            flow_id: None,
            resume,
            answering: if frame.answering { resume } else { None },
            answering_first: frame.answering_first && resume.is_none(),
            data,
            answered: Map::new(),
            pending: BTreeMap::new(),
            step_keys: (0, BTreeSet::new()),
            suspended: None,
            carried: BTreeMap::new(),
            nested: Some(Nesting {
                prefix: frame.prefix.clone(),
                parked: None,
            }),
            // Never current (the handler's scope is): deferred asks below a helper land there.
            deferred: DeferredScope::open(&frame.mrtr, &Map::new(), true),
        })
    }

    /// Helper side, from [`Flow::suspend`]: instead of sealing, park the progress and the
    /// questions for the caller.
    pub(super) fn park(&mut self, step: u32) -> MrtrError {
        let saved = Saved {
            fingerprint: self.fingerprint.to_string(),
            step,
            data: std::mem::take(&mut self.data),
        };
        let pending = std::mem::take(&mut self.pending);
        if let Some(nesting) = self.nested.as_mut() {
            nesting.parked = Some(Parked { saved, pending });
        }
        MrtrError::Internal(SUSPENDED.into())
    }

    /// Helper side: hands a suspension to the caller through `frame`, and returns the body's
    /// outcome (the suspension marker when it suspended, which the caller does not read).
    pub fn finish_nested<T, E>(self, frame: &mut Frame, outcome: Result<T, E>) -> Result<T, E> {
        frame.parked = self.nested.and_then(|n| n.parked);
        outcome
    }
}
