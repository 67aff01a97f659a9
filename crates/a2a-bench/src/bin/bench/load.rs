//! Load for a fixed time over a fixed number of connections, one request in
//! flight per connection:
//!
//! - closed loop: each connection sends its next request as soon as the
//!   previous answer has been read (throughput at saturation; its latency
//!   is the latency *at saturation*, and like every closed loop it omits
//!   the requests a slow answer kept from being sent);
//! - open loop (`--rate`): each connection sends on a fixed schedule and
//!   latency counts from the *intended* send time, so it is free of
//!   coordinated omission (as wrk2 does).
//!
//! Optionally two targets alternately in slices (A B, B A, …) so both see
//! the same machine conditions, and their ratio.

use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_bench::procfs;
use hdrhistogram::Histogram;

use crate::target::{Conn, Target, open_conns};

/// What one or more slices of load measured.
#[derive(Debug, Clone)]
pub(crate) struct Stats {
    /// Latency in µs: closed loop from the actual send, open loop from the
    /// intended send time.
    pub(crate) hist: Histogram<u64>,
    /// Service time in µs: from the actual send to the end of the answer.
    pub(crate) service: Histogram<u64>,
    /// Open loop: sends scheduled in the slices.
    pub(crate) intended: u64,
    /// Open loop: scheduled sends never started (the worker was too far
    /// behind when the slice ended).
    pub(crate) unsent: u64,
    pub(crate) ok: u64,
    pub(crate) errors: u64,
    pub(crate) events: u64,
    pub(crate) first_error: Option<String>,
    pub(crate) elapsed: Duration,
    pub(crate) server_cpu: Option<Duration>,
    /// CPU time of this load generator during the slices.
    pub(crate) client_cpu: Option<Duration>,
}

impl Stats {
    pub(crate) fn new() -> Self {
        let hist = || Histogram::new_with_bounds(1, 120_000_000, 3).expect("histogram bounds");
        Self {
            hist: hist(),
            service: hist(),
            intended: 0,
            unsent: 0,
            ok: 0,
            errors: 0,
            events: 0,
            first_error: None,
            elapsed: Duration::ZERO,
            server_cpu: None,
            client_cpu: None,
        }
    }

    pub(crate) fn record(&mut self, latency: Duration) {
        let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.hist.saturating_record(us.max(1));
    }

    pub(crate) fn record_service(&mut self, latency: Duration) {
        let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.service.saturating_record(us.max(1));
    }

    pub(crate) fn error(&mut self, e: String) {
        self.errors += 1;
        self.first_error.get_or_insert(e);
    }

    /// Merges worker stats of the same slice (`elapsed` is not summed).
    fn absorb(&mut self, o: Self) {
        let _ = self.hist.add(&o.hist);
        let _ = self.service.add(&o.service);
        self.intended += o.intended;
        self.unsent += o.unsent;
        self.ok += o.ok;
        self.errors += o.errors;
        self.events += o.events;
        if self.first_error.is_none() {
            self.first_error = o.first_error;
        }
    }

    /// Appends a later slice (`elapsed` and CPU are summed).
    pub(crate) fn append(&mut self, o: Self) {
        let elapsed = self.elapsed + o.elapsed;
        let sum = |a: Option<Duration>, b: Option<Duration>| match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        let cpu = sum(self.server_cpu, o.server_cpu);
        let client = sum(self.client_cpu, o.client_cpu);
        self.absorb(o);
        self.elapsed = elapsed;
        self.server_cpu = cpu;
        self.client_cpu = client;
    }

    pub(crate) fn rate(&self) -> f64 {
        per_sec(self.ok, self.elapsed)
    }

    pub(crate) fn events_rate(&self) -> f64 {
        per_sec(self.events, self.elapsed)
    }

    /// Server CPU µs per successful request.
    pub(crate) fn cpu_per_request_us(&self) -> Option<f64> {
        let cpu = self.server_cpu?;
        (self.ok > 0).then(|| cpu.as_secs_f64() * 1e6 / count_f64(self.ok))
    }

    /// Load-generator CPU µs per successful request.
    pub(crate) fn client_cpu_per_request_us(&self) -> Option<f64> {
        let cpu = self.client_cpu?;
        (self.ok > 0).then(|| cpu.as_secs_f64() * 1e6 / count_f64(self.ok))
    }

    pub(crate) fn ms(&self, q: f64) -> f64 {
        count_f64(self.hist.value_at_quantile(q)) / 1000.0
    }

    pub(crate) fn max_ms(&self) -> f64 {
        count_f64(self.hist.max()) / 1000.0
    }

    /// A quantile of the service time, ms.
    pub(crate) fn service_ms(&self, q: f64) -> f64 {
        count_f64(self.service.value_at_quantile(q)) / 1000.0
    }

    /// Open loop: at least 99 % of the intended sends were answered (none
    /// left unsent beyond 1 %, no errors).
    pub(crate) fn sustained(&self) -> bool {
        self.intended == 0 || (self.ok * 100 >= self.intended * 99 && self.errors == 0)
    }

    /// Open loop: the rate the schedule asked for, per second.
    pub(crate) fn intended_rate(&self) -> f64 {
        per_sec(self.intended, self.elapsed)
    }
}

/// `n` as a float (exact below 2^53: any realistic count).
#[allow(clippy::cast_precision_loss)]
pub(crate) fn count_f64(n: u64) -> f64 {
    n as f64
}

pub(crate) fn per_sec(n: u64, d: Duration) -> f64 {
    if d.is_zero() {
        0.0
    } else {
        count_f64(n) / d.as_secs_f64()
    }
}

/// Open-loop pacing of one worker: its intended send times are
/// `first + k * period` (k = 0, 1, …) while before the slice's end.
#[derive(Debug, Clone, Copy)]
struct Pace {
    first: Instant,
    period: Duration,
}

/// A worker: its connection (reopened after an HTTP error) and sequence.
pub(crate) struct Worker {
    idx: u32,
    conn: Option<Conn>,
    seq: u64,
}

impl Worker {
    /// Sends requests until `until`.
    ///
    /// Closed loop (`pace` is `None`): back to back, the latency of each
    /// from its actual send.
    ///
    /// Open loop: request k is *intended* at `pace.first + k * period`;
    /// the worker sleeps until then, or sends at once when an earlier
    /// answer made it late, and the latency counts from the intended time
    /// (no coordinated omission: a slow answer is also charged to the
    /// requests queued behind it). Intended sends it could not start
    /// before `until` are counted as `unsent`, not dropped silently. The
    /// service time (from the actual send) is recorded too.
    ///
    /// Bounded: by `until` (plus one `timeout` for the request in flight)
    /// and, per request, by `timeout`.
    async fn run(
        mut self,
        target: Arc<Target>,
        until: Instant,
        pace: Option<Pace>,
        timeout: Duration,
    ) -> (Self, Stats) {
        let mut stats = Stats::new();
        let mut k: u32 = 0;
        loop {
            let intended = match pace {
                Some(p) => {
                    let at = p.first + p.period * k;
                    if at >= until {
                        break;
                    }
                    k += 1;
                    stats.intended += 1;
                    tokio::time::sleep_until(at.into()).await;
                    Some(at)
                }
                None => None,
            };
            // Closed loop: nothing starts after the end. Open loop: a send
            // intended before the end is sent even if the timer woke a
            // little after it.
            if intended.is_none() && Instant::now() >= until {
                break;
            }
            let conn = match self.conn.as_mut() {
                Some(c) => c,
                None => match target.connect_http().await {
                    Ok(s) => self.conn.insert(Conn::Http(s)),
                    Err(e) => {
                        stats.error(e);
                        // Not a tight loop on a refused connection.
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    }
                },
            };
            self.seq += 1;
            let sent = Instant::now();
            match tokio::time::timeout(timeout, target.call(conn, self.idx, self.seq)).await {
                Ok(Ok(events)) => {
                    let done = Instant::now();
                    stats.record(done - intended.unwrap_or(sent));
                    stats.record_service(done - sent);
                    stats.ok += 1;
                    stats.events += events;
                }
                Ok(Err(e)) => {
                    stats.error(e);
                    if matches!(self.conn, Some(Conn::Http(_))) {
                        // The connection may be broken: open a new one.
                        self.conn = None;
                    }
                }
                Err(_) => {
                    stats.error(format!("no answer within {timeout:?}"));
                    if matches!(self.conn, Some(Conn::Http(_))) {
                        self.conn = None;
                    }
                }
            }
        }
        // Open loop: the intended sends left before `until` (the worker
        // fell behind) were never sent; count them.
        if let Some(p) = pace {
            let mut at = p.first + p.period * k;
            while at < until {
                stats.intended += 1;
                stats.unsent += 1;
                k += 1;
                at = p.first + p.period * k;
            }
        }
        (self, stats)
    }
}

/// A target with its open connections.
pub(crate) struct Pool {
    pub(crate) target: Arc<Target>,
    workers: Vec<Worker>,
    /// Open loop: the whole pool's intended request rate.
    rate: Option<f64>,
    /// Per-request time limit.
    timeout: Duration,
}

impl Pool {
    pub(crate) async fn open(
        target: Target,
        connections: usize,
        grpc_channels: usize,
        worker_base: u32,
        rate: Option<f64>,
        timeout: Duration,
    ) -> Result<Self, String> {
        let target = Arc::new(target);
        let conns = open_conns(&target, connections, grpc_channels).await?;
        let workers = conns
            .into_iter()
            .zip(worker_base..)
            .map(|(c, idx)| Worker {
                idx,
                conn: Some(c),
                seq: 0,
            })
            .collect();
        Ok(Self {
            target,
            workers,
            rate,
            timeout,
        })
    }

    /// Runs every worker for `duration`; the slice ends when the last
    /// in-flight request has been answered (or has timed out).
    pub(crate) async fn slice(&mut self, duration: Duration) -> Stats {
        let cpu0 = self
            .target
            .server_pid
            .and_then(|p| procfs::cpu_time(p).ok());
        let me0 = procfs::self_cpu_time().ok();
        let started = Instant::now();
        let until = started + duration;
        let n = self.workers.len().max(1);
        // Open loop: each of the n workers sends every n / rate seconds,
        // their schedules staggered evenly, so the pool's sends are
        // intended 1 / rate apart.
        let period = self
            .rate
            .map(|r| Duration::from_secs_f64(count_f64(n as u64) / r.max(0.001)));
        let timeout = self.timeout;
        let handles: Vec<_> = self
            .workers
            .drain(..)
            .enumerate()
            .map(|(i, w)| {
                let pace = period.map(|p| Pace {
                    first: started + p.mul_f64(count_f64(i as u64) / count_f64(n as u64)),
                    period: p,
                });
                tokio::spawn(w.run(Arc::clone(&self.target), until, pace, timeout))
            })
            .collect();
        let mut stats = Stats::new();
        for h in handles {
            match h.await {
                Ok((w, s)) => {
                    self.workers.push(w);
                    stats.absorb(s);
                }
                Err(e) => stats.error(format!("worker panicked: {e}")),
            }
        }
        stats.elapsed = started.elapsed();
        let cpu1 = self
            .target
            .server_pid
            .and_then(|p| procfs::cpu_time(p).ok());
        if let (Some(a), Some(b)) = (cpu0, cpu1) {
            stats.server_cpu = Some(b.saturating_sub(a));
        }
        if let (Some(a), Some(b)) = (me0, procfs::self_cpu_time().ok()) {
            stats.client_cpu = Some(b.saturating_sub(a));
        }
        stats
    }
}

/// The outcome of a run: per target, the merged stats and the per-slice
/// request rates.
pub(crate) struct Outcome {
    pub(crate) stats: Stats,
    pub(crate) slice_rates: Vec<f64>,
}

/// Runs `pools` alternately: a warm-up slice each, then `rounds` rounds of
/// one slice per pool, in the order A B, B A, A B … (so a linear drift of
/// the machine's speed hits both equally).
pub(crate) async fn alternate(
    pools: &mut [Pool],
    warmup: Duration,
    duration: Duration,
    rounds: u32,
    verbose: bool,
) -> Vec<Outcome> {
    let rounds = rounds.max(1);
    if !warmup.is_zero() {
        for p in pools.iter_mut() {
            let s = p.slice(warmup).await;
            if verbose {
                eprintln!(
                    "  warm-up {}: {:.0} req/s, {} errors",
                    p.target.label,
                    s.rate(),
                    s.errors
                );
            }
        }
    }
    let slice = duration / rounds;
    let mut out: Vec<Outcome> = pools
        .iter()
        .map(|_| Outcome {
            stats: Stats::new(),
            slice_rates: Vec::new(),
        })
        .collect();
    for r in 0..rounds {
        let order: Vec<usize> = if r % 2 == 0 {
            (0..pools.len()).collect()
        } else {
            (0..pools.len()).rev().collect()
        };
        for i in order {
            let s = pools[i].slice(slice).await;
            if verbose {
                eprintln!(
                    "  round {}/{} {}: {:.0} req/s, p99 {:.2} ms, {} errors",
                    r + 1,
                    rounds,
                    pools[i].target.label,
                    s.rate(),
                    s.ms(0.99),
                    s.errors
                );
            }
            out[i].slice_rates.push(s.rate());
            out[i].stats.append(s);
        }
    }
    out
}

/// Median, min and max of the per-round ratios a/b.
pub(crate) fn round_ratios(a: &[f64], b: &[f64]) -> Option<(f64, f64, f64)> {
    let mut r: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(_, b)| **b > 0.0)
        .map(|(a, b)| a / b)
        .collect();
    if r.is_empty() {
        return None;
    }
    r.sort_by(f64::total_cmp);
    let mid = r.len() / 2;
    let median = if r.len().is_multiple_of(2) {
        f64::midpoint(r[mid - 1], r[mid])
    } else {
        r[mid]
    };
    Some((median, r[0], r[r.len() - 1]))
}

/// Prints one target's result.
pub(crate) fn print_stats(role: &str, target: &Target, s: &Stats) {
    println!("{role}: {}", target.label);
    print!(
        "  requests {}  errors {}  {:.0} req/s",
        s.ok,
        s.errors,
        s.rate()
    );
    if target.kind.is_stream() {
        print!(
            "  {:.0} events/s ({:.2} events/request)",
            s.events_rate(),
            if s.ok > 0 {
                count_f64(s.events) / count_f64(s.ok)
            } else {
                0.0
            }
        );
    }
    println!();
    if s.intended > 0 {
        println!(
            "  open loop: {} sends intended ({:.0}/s), {} never sent (worker behind schedule){}",
            s.intended,
            s.intended_rate(),
            s.unsent,
            if s.sustained() {
                ""
            } else {
                ": RATE NOT SUSTAINED"
            }
        );
        println!(
            "  latency ms from the intended send: p50 {:.3}  p90 {:.3}  p99 {:.3}  max {:.3}",
            s.ms(0.50),
            s.ms(0.90),
            s.ms(0.99),
            s.max_ms()
        );
        println!(
            "  service time ms (from the actual send): p50 {:.3}  p99 {:.3}",
            s.service_ms(0.50),
            s.service_ms(0.99)
        );
    } else {
        println!(
            "  latency ms (closed loop, at saturation): p50 {:.3}  p90 {:.3}  p99 {:.3}  max {:.3}",
            s.ms(0.50),
            s.ms(0.90),
            s.ms(0.99),
            s.max_ms()
        );
    }
    let busy = |d: Option<Duration>| {
        d.unwrap_or_default().as_secs_f64() / s.elapsed.as_secs_f64().max(1e-9)
    };
    if let Some(cpu) = s.cpu_per_request_us() {
        println!(
            "  server CPU {cpu:.1} µs/request ({:.2} cores busy)",
            busy(s.server_cpu)
        );
    }
    if let Some(cpu) = s.client_cpu_per_request_us() {
        println!(
            "  load generator CPU {cpu:.1} µs/request ({:.2} cores busy)",
            busy(s.client_cpu)
        );
    }
    if let Some(e) = &s.first_error {
        println!("  first error: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios() {
        let (m, lo, hi) = round_ratios(&[1.0, 2.0, 3.0], &[2.0, 2.0, 2.0]).unwrap();
        assert!((m - 1.0).abs() < 1e-9 && (lo - 0.5).abs() < 1e-9 && (hi - 1.5).abs() < 1e-9);
        assert!(round_ratios(&[1.0], &[0.0]).is_none());
    }

    #[test]
    fn stats_append() {
        let mut a = Stats::new();
        a.record(Duration::from_millis(1));
        a.ok = 1;
        a.elapsed = Duration::from_secs(1);
        let mut b = Stats::new();
        b.record(Duration::from_millis(3));
        b.ok = 3;
        b.elapsed = Duration::from_secs(1);
        a.append(b);
        assert_eq!(a.ok, 4);
        assert!((a.rate() - 2.0).abs() < 1e-9);
        assert!(a.max_ms() >= 2.9);
    }
}
