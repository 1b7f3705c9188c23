//! Validity checks computed with every run: how fine the timer is, what it costs, and
//! what the harness itself costs for an empty operation.

use serde::{Deserialize, Serialize};

/// The timer and harness figures a reader needs to judge the results of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validity {
    /// The main timer (`wall-clock`).
    pub timer: String,
    /// Its resolution in ns: the smallest non-zero step between two reads.
    pub resolution_ns: u64,
    /// The cost of one read of it, in ns.
    pub timer_overhead_ns: f64,
    /// The secondary counter read around each sample (`tsc`), if any.
    pub counter: Option<String>,
    /// Its resolution in its own ticks.
    pub counter_resolution: Option<u64>,
    /// Whether the CPU reports the TSC as invariant (constant rate).
    pub counter_invariant: Option<bool>,
    /// Counter ticks per nanosecond (the TSC frequency in GHz), measured over a few ms.
    pub counter_ticks_per_ns: Option<f64>,
    /// Per-call cost of an empty operation in the batched loop (average-time and
    /// throughput modes), in ns: the floor under every such figure.
    pub empty_op_ns: f64,
    /// Cost of timing one empty call on its own (single-shot and sample modes), in ns:
    /// the floor under every per-call figure.
    pub empty_call_ns: f64,
}
