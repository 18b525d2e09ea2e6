//! `Flow`: the stepping engine that `#[mrtr_handler]` expansions drive.
//!
//! The macro cuts a handler into groups of statements that start at an ask. Each round re-enters
//! the handler; the flow knows the step the previous round suspended at (from the sealed
//! `requestState`), so groups that finished in an earlier round are skipped and their bindings
//! restored from the state, the branch taken at each `if`/`match` holding an ask is replayed from
//! the state without re-evaluating its condition, and the ask at the resume step reads its
//! answer. A suspension seals what later code needs and hands an [`InputRequired`] back to the
//! wrapper, which returns it through [`Completes::input_required`].
//!
//! Once the resume step is reached the round runs live: nothing more is skipped (so a loop's
//! later iterations run in full), and the answers of the request are used up by that step (a
//! later iteration asking at the same step asks the client again).
//!
//! Data kept in `StateBody::data` (opaque to the client, sealed by the runtime):
//! - `"v:<key>"`: a saved binding, serialized as JSON;
//! - `"b:<id>"`: the arm taken at branch `<id>`;
//! - `"i:<id>"`: how many iterations loop `<id>` has begun (the last one is in progress);
//! - `"a:<key>"`: a raw answer already received for the suspended step (a batch answered in
//!   part keeps the answered part here and asks only for the rest).

use std::collections::{BTreeMap, BTreeSet};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

pub use crate::ask::Ask;
pub use crate::context::{Mrtr, StateBody};
pub use crate::deferred::DeferredScope;
pub use crate::error::MrtrError;
pub use crate::wire::{Completes, InputRequired};

mod nest;
use crate::deferred;
pub use nest::{Frame, HelperFrame};

const SAVED: &str = "v:";
const BRANCH: &str = "b:";
const ITERATION: &str = "i:";
const ANSWER: &str = "a:";
const SUSPENDED: &str =
    "mrtr: flow suspended (the #[mrtr_handler] wrapper turns this into an InputRequiredResult)";

/// A value a handler keeps across an ask: it travels in the sealed `requestState`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be kept across an ask: it must be an owned type implementing `serde::Serialize` and `serde::Deserialize`",
    label = "this binding is used after an ask, so it is saved in the sealed requestState",
    note = "re-acquire it after the ask (e.g. open the connection again), or keep a serializable id or summary instead, or derive `serde::Serialize` and `serde::Deserialize` for it; a reference cannot be kept: keep an owned value instead (`.to_owned()`, `.clone()`, `.cloned()`)"
)]
pub trait StateBinding: Serialize + DeserializeOwned {}

// Not recommended, so a type missing both traits gets one error (this trait's, naming
// `serde::Serialize`) instead of one per missing serde trait under serde's internal paths.
#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned> StateBinding for T {}

/// Splits a handler's declared `Result<T, E>` (written directly or through an alias).
pub trait HandlerResult {
    type Ok;
    type Err;
}

impl<T, E> HandlerResult for Result<T, E> {
    type Ok = T;
    type Err = E;
}

/// The outcome of looking up one ask in this round.
#[derive(Debug)]
pub enum Polled<T> {
    /// The answer is here and decoded.
    Ready(T),
    /// Not answered yet: the ask is embedded in the next `inputRequests`.
    Pending,
    /// The ask cannot be sent (capability not declared, invalid ask) or its answer is malformed.
    Failed(MrtrError),
}

impl<T> Polled<T> {
    pub fn take_error(&mut self) -> Option<MrtrError> {
        match std::mem::replace(self, Polled::Pending) {
            Polled::Failed(error) => Some(error),
            other => {
                *self = other;
                None
            }
        }
    }

    pub fn is_pending(&self) -> bool {
        matches!(self, Polled::Pending)
    }

    pub fn into_ready(self) -> Result<T, MrtrError> {
        match self {
            Polled::Ready(value) => Ok(value),
            Polled::Failed(error) => Err(error),
            Polled::Pending => Err(MrtrError::Internal(
                "an ask was read before its answer arrived".into(),
            )),
        }
    }
}

/// One handler invocation's view of the multi-round flow.
pub struct Flow {
    mrtr: Mrtr,
    fingerprint: &'static str,
    flow_id: Option<String>,
    /// The step this round resumes at, until it is reached.
    resume: Option<u32>,
    /// The step this request's `inputResponses` answer, until that step resolves.
    answering: Option<u32>,
    /// A request without `requestState` may still carry answers (a client that answers ahead,
    /// or a retry of a state-less round): they count for the first ask the flow reaches. Nothing
    /// is trusted from them that a fresh client could not send anyway.
    answering_first: bool,
    data: Map<String, Value>,
    /// Raw answers received for the step being resolved in this round (kept on re-ask).
    answered: Map<String, Value>,
    /// inputRequests collected for the step being resolved in this round.
    pending: BTreeMap<String, Value>,
    /// Keys seen at the step being resolved: two asks of one batch may not share a key.
    step_keys: (u32, BTreeSet<String>),
    suspended: Option<InputRequired>,
    /// Pre-2026 sessions: the answers (or failures) of the round [`Flow::carry`] just sent,
    /// by key, until the step's polls take them.
    carried: BTreeMap<String, Result<Value, MrtrError>>,
    /// Set in the child flow of an asking helper (`#[mrtr_helper]`).
    nested: Option<nest::Nesting>,
    /// Asks made below the handler by code the macro does not rewrite (see [`crate::deferred`]).
    deferred: DeferredScope,
}

impl std::fmt::Debug for Flow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Saved bindings and answers may be secrets: only their names are shown.
        f.debug_struct("Flow")
            .field("fingerprint", &self.fingerprint)
            .field("resume", &self.resume)
            .field("data_keys", &self.data.keys().collect::<Vec<_>>())
            .field("pending", &self.pending.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Flow {
    /// Opens this request's state (if any). A state minted by a handler of another shape, or one
    /// that names a step this handler does not have, is `InvalidState`. The state is verified
    /// here but used up only when the round advances ([`Flow::advance`], [`Flow::suspend`]).
    pub fn start(mrtr: &Mrtr, fingerprint: &'static str, steps: u32) -> Result<Flow, MrtrError> {
        // Below the adapter's scope of the whole request, this flow takes the request over.
        DeferredScope::hand_over_to_handler()?;
        if mrtr.carries_in_process() {
            // A pre-2026 session runs the whole flow inside this request: no state comes in,
            // and nothing the request says about MRTR (requestState, inputResponses) counts.
            return Ok(Flow::fresh(
                mrtr,
                fingerprint,
                None,
                None,
                Map::new(),
                false,
            ));
        }
        let body = mrtr.verify_state_for(fingerprint)?;
        let (flow_id, resume, data) = match body {
            None => (None, None, Map::new()),
            Some(body) => {
                // Step 0: a round that ended on deferred asks only; the next one runs from the top.
                let deferred_round = body.step == 0 && deferred::names_asks(&body.data);
                if body.fingerprint != fingerprint
                    || (!deferred_round && (body.step == 0 || body.step > steps))
                {
                    return Err(MrtrError::InvalidState);
                }
                let resume = (body.step > 0).then_some(body.step);
                (Some(body.flow_id), resume, body.data)
            }
        };
        let answering_first = resume.is_none();
        Ok(Flow::fresh(
            mrtr,
            fingerprint,
            flow_id,
            resume,
            data,
            answering_first,
        ))
    }

    fn fresh(
        mrtr: &Mrtr,
        fingerprint: &'static str,
        flow_id: Option<String>,
        resume: Option<u32>,
        data: Map<String, Value>,
        answering_first: bool,
    ) -> Flow {
        // Deferred asks fail in a round that resumed at a step (see `crate::deferred`).
        let deferred = DeferredScope::open_for_request(mrtr, &data, resume.is_some());
        Flow::with_scope(
            mrtr,
            fingerprint,
            flow_id,
            resume,
            data,
            answering_first,
            deferred,
        )
    }

    /// The flow of an SDK adapter's scope around a whole request (`crate::rmcp::scope`): no
    /// steps of its own, only deferred asks, whose rounds it seals under `fingerprint` (step 0).
    /// `Ok(None)` when the request's state is another handler's (a `#[mrtr_handler]` below the
    /// adapter sealed it): the adapter then runs the request in a scope that refuses asks.
    pub(crate) fn start_adapter(
        mrtr: &Mrtr,
        fingerprint: &'static str,
    ) -> Result<Result<Flow, DeferredScope>, MrtrError> {
        let fresh = |data: Map<String, Value>, flow_id: Option<String>, owns: bool| {
            let scope = DeferredScope::open_for_adapter(mrtr, &data, owns, false);
            Flow::with_scope(mrtr, fingerprint, flow_id, None, data, true, scope)
        };
        if mrtr.carries_in_process() {
            return Ok(Ok(fresh(Map::new(), None, false)));
        }
        match mrtr.verify_state()? {
            None => Ok(Ok(fresh(Map::new(), None, false))),
            Some(body) if body.fingerprint == fingerprint => {
                if body.step != 0 || !deferred::names_asks(&body.data) {
                    return Err(MrtrError::InvalidState);
                }
                Ok(Ok(fresh(body.data, Some(body.flow_id), true)))
            }
            Some(_) => Ok(Err(DeferredScope::open_for_adapter(
                mrtr,
                &Map::new(),
                false,
                true,
            ))),
        }
    }

    fn with_scope(
        mrtr: &Mrtr,
        fingerprint: &'static str,
        flow_id: Option<String>,
        resume: Option<u32>,
        data: Map<String, Value>,
        answering_first: bool,
        deferred: DeferredScope,
    ) -> Flow {
        Flow {
            mrtr: mrtr.clone(),
            fingerprint,
            flow_id,
            resume,
            answering: resume,
            answering_first,
            data,
            answered: Map::new(),
            pending: BTreeMap::new(),
            step_keys: (0, BTreeSet::new()),
            suspended: None,
            carried: BTreeMap::new(),
            nested: None,
            deferred,
        }
    }

    /// The scope the expansion runs the body in, so deferred asks below it land in this flow.
    pub fn deferred(&self) -> DeferredScope {
        self.deferred.clone()
    }

    /// After the body: when deferred asks are queued, seals the state that names them and parks
    /// the `InputRequired` for [`Flow::finish`], which then answers with it whatever the body
    /// returned (the body failed because its ask had no answer yet). A step that suspended after
    /// them is dropped from this round: the retry runs from the top and reaches it again.
    pub fn settle_deferred<T, E: From<MrtrError>>(
        &mut self,
        outcome: Result<T, E>,
    ) -> Result<T, E> {
        if !self.deferred.has_pending() {
            return outcome;
        }
        // The successor state replaces the one this round came with: use that one up first.
        self.mrtr.consume_state().map_err(E::from)?;
        let (pending, data) = self.deferred.take_round();
        let flow_id = match &self.flow_id {
            Some(id) => id.clone(),
            None => new_flow_id().map_err(E::from)?,
        };
        let body = StateBody {
            flow_id,
            step: 0,
            fingerprint: self.fingerprint.to_string(),
            data,
        };
        let sealed = self.mrtr.seal_state(&body).map_err(E::from)?;
        self.suspended = Some(InputRequired::new(pending, Some(sealed)).map_err(E::from)?);
        outcome
    }

    /// True on a pre-2026 session: the expansion awaits [`Flow::carry`] before each step.
    pub fn in_process(&self) -> bool {
        self.mrtr.carries_in_process()
    }

    /// The `inputRequests` key of an ask: the explicit one, else the step's default key under
    /// this flow's prefix (a helper's flow prefixes its caller's step).
    fn input_key(&self, explicit: Option<&str>, default_key: &str) -> String {
        match explicit {
            Some(key) => key.to_string(),
            None => format!("{}{default_key}", self.key_prefix()),
        }
    }

    /// Pre-2026 sessions: sends the asks of one step to the client as real requests, all at once,
    /// and keeps their answers for the step's polls. When an ask cannot be sent (a server bug,
    /// or a capability the client did not declare at `initialize`), none of the step's asks is
    /// sent, as on 2026-07-28, where such a step fails before anything reaches the client.
    pub async fn carry(&mut self, mut asks: Vec<crate::carrier::Outgoing>) {
        let Some(carrier) = self.mrtr.carrier().cloned() else {
            return;
        };
        // The keys the step's polls will look under (a helper's default keys are prefixed).
        for ask in asks.iter_mut() {
            let key = self.input_key(ask.explicit_key.then_some(ask.key.as_str()), &ask.key);
            ask.key = key;
        }
        self.carried.clear();
        let mut failed = false;
        for ask in &asks {
            let usable = ask
                .check
                .clone()
                .and_then(|()| self.mrtr.check_capability(&ask.capability));
            if let Err(error) = usable {
                self.carried.insert(ask.key.clone(), Err(error));
                failed = true;
            }
        }
        if failed {
            return;
        }
        let mut keys = BTreeSet::new();
        if asks.iter().any(|ask| !keys.insert(ask.key.as_str())) {
            // Two asks of one batch under one key: the step's polls report it; send nothing.
            return;
        }
        let requests = asks.iter().map(|ask| ask.request.clone()).collect();
        let answers = carrier
            .send_round(requests, self.mrtr.config().ask_timeout())
            .await;
        for (ask, answer) in asks.into_iter().zip(answers) {
            let answer = answer.map_err(|error| error.for_ask(&ask.key, &ask.request));
            self.carried.insert(ask.key, answer);
        }
    }

    /// The step this round resumes at (None in the first round, and once it is reached).
    pub fn resume_step(&self) -> Option<u32> {
        self.resume
    }

    /// True when the code before `step` ran in an earlier round and must not run again.
    pub fn skip_before(&self, step: u32) -> bool {
        self.resume.is_some_and(|r| r >= step)
    }

    /// True when this round resumes at a step inside `[first, last]`.
    pub fn resuming_within(&self, first: u32, last: u32) -> bool {
        self.resume.is_some_and(|r| first <= r && r <= last)
    }

    /// A binding saved by an earlier round. Missing or unreadable is `InvalidState`: the state
    /// is authenticated, so this only happens with a state of another shape.
    pub fn restore<T: StateBinding>(&self, key: &str) -> Result<T, MrtrError> {
        let value = self
            .data
            .get(&format!("{SAVED}{key}"))
            .ok_or(MrtrError::InvalidState)?;
        T::deserialize(value).map_err(|_| MrtrError::InvalidState)
    }

    /// Saves a binding for later rounds (overwrites an older value under the same key).
    pub fn save<T: StateBinding>(&mut self, key: &str, value: &T) -> Result<(), MrtrError> {
        let json = serde_json::to_value(value)
            .map_err(|e| MrtrError::Internal(format!("saving `{key}` into requestState: {e}")))?;
        self.data.insert(format!("{SAVED}{key}"), json);
        Ok(())
    }

    /// [`Flow::save`] for the items of a `for` loop holding asks (bounded per item, so a
    /// borrowed item is reported as such).
    pub fn save_items<T: StateBinding>(
        &mut self,
        key: &str,
        items: &Vec<T>,
    ) -> Result<(), MrtrError> {
        self.save(key, items)
    }

    /// [`Flow::restore`] for the items of a `for` loop holding asks.
    pub fn restore_items<T: StateBinding>(&self, key: &str) -> Result<Vec<T>, MrtrError> {
        self.restore(key)
    }

    /// The arm a previous round took at branch `id`.
    pub fn branch(&self, id: u32) -> Result<u32, MrtrError> {
        self.data
            .get(&format!("{BRANCH}{id}"))
            .and_then(Value::as_u64)
            .and_then(|arm| u32::try_from(arm).ok())
            .ok_or(MrtrError::InvalidState)
    }

    /// Records the arm taken at branch `id`, so a later round re-enters the same arm.
    pub fn choose(&mut self, id: u32, arm: u32) {
        self.data.insert(format!("{BRANCH}{id}"), Value::from(arm));
    }

    /// Looks up the answer to `ask` at `step`. Answers count only for the step the state was
    /// suspended at (an answer to another step's key is ignored); unknown answers are ignored.
    pub fn poll<T>(&mut self, step: u32, default_key: &str, ask: &Ask<T>) -> Polled<T> {
        let key = self.input_key(ask.explicit_key(), default_key);
        if self.step_keys.0 != step {
            self.step_keys = (step, BTreeSet::new());
            self.answered.clear();
            self.pending.clear();
        }
        if !self.step_keys.1.insert(key.clone()) {
            return Polled::Failed(MrtrError::Internal(format!(
                "two asks of one batch use the inputRequests key `{key}`"
            )));
        }
        if self.resume == Some(step) {
            self.resume = None;
        }
        if let Some(carried) = self.carried.remove(&key) {
            return match carried.and_then(|raw| ask.decode(&key, &raw)) {
                Ok(value) => Polled::Ready(value),
                Err(error) => Polled::Failed(error),
            };
        }
        if self.answering == Some(step) || self.answering_first {
            let fresh = self.mrtr.answer(&key).cloned();
            let carried = || self.data.get(&format!("{ANSWER}{key}")).cloned();
            if let Some(raw) = fresh.or_else(carried) {
                let decoded = ask.decode(&key, &raw);
                self.answered.insert(key, raw);
                return match decoded {
                    Ok(value) => Polled::Ready(value),
                    Err(error) => Polled::Failed(error),
                };
            }
        }
        if let Err(error) = ask.check() {
            return Polled::Failed(error);
        }
        if let Err(error) = self.mrtr.check_capability(&ask.required_capability()) {
            return Polled::Failed(error);
        }
        self.pending.insert(key, ask.input_request());
        Polled::Pending
    }

    /// The expansion calls this when `step` produced its value (or its error): the request's
    /// answers are used up, so the same step met again (next loop iteration) asks again.
    pub fn resolved(&mut self, step: u32) {
        if self.answering == Some(step) {
            self.answering = None;
        }
        self.answering_first = false;
        self.step_keys = (0, BTreeSet::new());
    }

    /// The expansion calls this when the answers of `step` decoded, before the code after the
    /// ask runs: the round advances past the state it resumed from, so the replay guard uses it
    /// up now (`InvalidState` when it was used before). A rejected answer never gets here, so the
    /// client can retry the same state with a corrected answer.
    pub fn advance(&mut self, _step: u32) -> Result<(), MrtrError> {
        if self.in_process() {
            // A pre-2026 session brings no state to use up (a stray one is ignored).
            return Ok(());
        }
        self.mrtr.consume_state()
    }

    /// How many iterations loop `id` had begun when the state was sealed.
    pub fn iteration(&self, id: u32) -> Result<u64, MrtrError> {
        self.data
            .get(&format!("{ITERATION}{id}"))
            .and_then(Value::as_u64)
            .filter(|n| *n > 0)
            .ok_or(MrtrError::InvalidState)
    }

    /// Records that loop `id` has begun `count` iterations.
    pub fn set_iteration(&mut self, id: u32, count: u64) {
        self.data
            .insert(format!("{ITERATION}{id}"), Value::from(count));
    }

    /// Seals the state at `step` and parks the `InputRequired` for [`Flow::finish`]. Returns the
    /// error the expansion returns from the handler body: a marker when sealing worked, or the
    /// real error (e.g. `StateTooLarge`) when it did not.
    pub fn suspend(&mut self, step: u32) -> MrtrError {
        if self.in_process() {
            // Every ask of a pre-2026 round was carried before it was polled; a pending one
            // here is a bug in the expansion, and a state must never leave on such a session.
            return MrtrError::Internal(format!(
                "step {step} suspended on a pre-2026 session; its asks were not carried"
            ));
        }
        // A successor state is an advance too: the state this round came with is used up
        // first, so it cannot fork into two live successors.
        if let Err(error) = self.mrtr.consume_state() {
            return error;
        }
        self.data.retain(|name, _| !name.starts_with(ANSWER));
        for (key, raw) in std::mem::take(&mut self.answered) {
            self.data.insert(format!("{ANSWER}{key}"), raw);
        }
        if self.nested.is_some() {
            return self.park(step);
        }
        let flow_id = match &self.flow_id {
            Some(id) => id.clone(),
            None => match new_flow_id() {
                Ok(id) => id,
                Err(error) => return error,
            },
        };
        let body = StateBody {
            flow_id,
            step,
            fingerprint: self.fingerprint.to_string(),
            data: self.data.clone(),
        };
        let sealed = match self.mrtr.seal_state(&body) {
            Ok(sealed) => sealed,
            Err(error) => return error,
        };
        match InputRequired::new(std::mem::take(&mut self.pending), Some(sealed)) {
            Ok(result) => {
                self.suspended = Some(result);
                MrtrError::Internal(SUSPENDED.into())
            }
            Err(error) => error,
        }
    }

    /// [`Flow::finish`] for a body that already returns the handler's response type (the
    /// adapter's scope around a whole handler, see `crate::rmcp::scope`).
    pub fn finish_response<R, E>(
        self,
        outcome: Result<R, E>,
        input_required: impl FnOnce(InputRequired) -> R,
    ) -> Result<R, E> {
        match self.suspended {
            Some(suspended) => Ok(input_required(suspended)),
            None => outcome,
        }
    }

    /// Turns the body's outcome into the handler's response: the parked `InputRequired` when
    /// the body suspended, else the completed result.
    pub fn finish<T: Completes, E>(self, outcome: Result<T, E>) -> Result<T::Response, E> {
        match self.suspended {
            Some(input_required) => Ok(T::input_required(input_required)),
            None => outcome.map(T::complete),
        }
    }
}

fn new_flow_id() -> Result<String, MrtrError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| MrtrError::Internal(format!("no randomness for a flow id: {e}")))?;
    Ok(hex::encode(bytes))
}

/// Stands in for an ask in the copy of a handler that `#[mrtr_handler]` emits next to its
/// compile errors: it keeps the body type-checking (so only the real error is shown and the
/// editor keeps its types). Never runs: a crate with that error does not build.
#[doc(hidden)]
pub fn unrewritten_ask<T>(_ask: Ask<T>) -> Result<T, MrtrError> {
    Err(MrtrError::Internal(
        "#[mrtr_handler] did not rewrite this handler".into(),
    ))
}

/// The answers of a `join(..)` of asks.
#[doc(hidden)]
pub trait AskBatch {
    type Answers;
}

macro_rules! ask_batch {
    ($($name:ident),+) => {
        impl<$($name),+> AskBatch for ($(Ask<$name>,)+) {
            type Answers = ($($name,)+);
        }
    };
}

ask_batch!(A);
ask_batch!(A, B);
ask_batch!(A, B, C);
ask_batch!(A, B, C, D);
ask_batch!(A, B, C, D, E);
ask_batch!(A, B, C, D, E, F);
ask_batch!(A, B, C, D, E, F, G);
ask_batch!(A, B, C, D, E, F, G, H);

/// [`unrewritten_ask`] for a batch.
#[doc(hidden)]
pub fn unrewritten_join<B: AskBatch>(_asks: B) -> Result<B::Answers, MrtrError> {
    Err(MrtrError::Internal(
        "#[mrtr_handler] did not rewrite this handler".into(),
    ))
}

/// Which arm a branch holding asks takes in this round: an arm without asks runs to its value
/// during selection; an arm with asks continues in the dispatch (where a resumed round enters).
#[derive(Debug)]
pub enum Selected<V> {
    Done(V),
    Arm(u32),
}

/// `E::from(error)` for the expansion's own early returns (a generic call, so a handler whose
/// error type is `MrtrError` itself gets no "useless conversion" lint on its asks).
#[inline]
pub fn into_error<E: From<MrtrError>>(error: MrtrError) -> E {
    E::from(error)
}
