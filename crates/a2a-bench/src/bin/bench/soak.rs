//! `--mode soak` (a fixed request rate for a long time, sampling the
//! server's RSS) and `--mode fill` (memory per retained task).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use a2a_bench::procfs;
use tokio::time::MissedTickBehavior;

use crate::load::count_f64;
use crate::target::{Conn, Target, open_conns};

#[derive(Default)]
struct Counts {
    ok: AtomicU64,
    errors: AtomicU64,
    first_error: std::sync::Mutex<Option<String>>,
}

impl Counts {
    fn error(&self, e: String) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut f) = self.first_error.lock() {
            f.get_or_insert(e);
        }
    }
}

/// The longest one request of a soak or fill may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Calls `target` at most `n` times on `conn` and not past `until`,
/// reconnecting after an HTTP error; each call waits for the next tick of
/// `pace` when given; each call is bounded by [`REQUEST_TIMEOUT`].
#[allow(clippy::too_many_arguments)]
async fn drive(
    target: Arc<Target>,
    mut conn: Conn,
    worker: u32,
    seq0: u64,
    n: u64,
    mut pace: Option<tokio::time::Interval>,
    until: Option<Instant>,
    counts: Arc<Counts>,
) {
    let mut seq = seq0;
    for _ in 0..n {
        if until.is_some_and(|u| Instant::now() >= u) {
            break;
        }
        if let Some(p) = pace.as_mut() {
            p.tick().await;
            if until.is_some_and(|u| Instant::now() >= u) {
                break;
            }
        }
        seq += 1;
        let r = tokio::time::timeout(REQUEST_TIMEOUT, target.call(&mut conn, worker, seq))
            .await
            .unwrap_or_else(|_| Err(format!("no answer within {REQUEST_TIMEOUT:?}")));
        match r {
            Ok(_) => {
                counts.ok.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                counts.error(e);
                if matches!(conn, Conn::Http(_)) {
                    match target.connect_http().await {
                        Ok(s) => conn = Conn::Http(s),
                        Err(e) => {
                            counts.error(e);
                            tokio::time::sleep(Duration::from_millis(100)).await;
                        }
                    }
                }
            }
        }
    }
}

fn rss(pid: u32) -> Result<u64, String> {
    procfs::rss_kib(pid).map_err(|e| format!("server pid {pid}: {e}"))
}

/// Sends `total` requests over `conns` connections as fast as they are
/// answered, stopping at `until` at the latest.
async fn burst(
    target: &Arc<Target>,
    conns: Vec<Conn>,
    total: u64,
    seq0: u64,
    until: Instant,
    counts: &Arc<Counts>,
) {
    let k = conns.len() as u64;
    let handles: Vec<_> = conns
        .into_iter()
        .zip(0u32..)
        .map(|(c, i)| {
            let share = total / k + u64::from(u64::from(i) < total % k);
            let target = Arc::clone(target);
            let counts = Arc::clone(counts);
            tokio::spawn(async move {
                drive(
                    Arc::clone(&target),
                    c,
                    i,
                    seq0,
                    share,
                    None,
                    Some(until),
                    counts,
                )
                .await;
            })
        })
        .collect();
    for h in handles {
        let _ = h.await;
    }
}

/// `--mode fill`: the server's RSS growth per retained task, measured as a
/// slope between two fills so fixed costs (connections, buffers, the first
/// growth of the maps) cancel out.
pub(crate) async fn fill(
    target: Target,
    connections: usize,
    warmup_tasks: u64,
    tasks: u64,
    md_row: Option<&str>,
) -> Result<bool, String> {
    let pid = target.server_pid.ok_or("--mode fill needs --server-pid")?;
    let target = Arc::new(target);
    let counts = Arc::new(Counts::default());
    let sample = if target.kind.is_grpc() {
        0
    } else {
        target.capture(None).await.map(|b| b.len()).unwrap_or(0)
    };
    let conns = open_conns(&target, connections, 1).await?;
    let started = Instant::now();
    // Bounded: 5 minutes per fill at most (a sent count below the asked
    // one shows up in the ok/error counts).
    let limit = Duration::from_secs(300);
    burst(&target, conns, warmup_tasks, 0, started + limit, &counts).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_a = rss(pid)?;
    let conns = open_conns(&target, connections, 1).await?;
    let fill_started = Instant::now();
    let ok_before = counts.ok.load(Ordering::Relaxed);
    burst(
        &target,
        conns,
        tasks,
        1 << 32,
        fill_started + limit,
        &counts,
    )
    .await;
    let fill_time = fill_started.elapsed();
    let filled = counts.ok.load(Ordering::Relaxed) - ok_before;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_b = rss(pid)?;
    let errors = counts.errors.load(Ordering::Relaxed);
    let ok = counts.ok.load(Ordering::Relaxed);
    // Per task actually created (a failed request stores nothing).
    let per_task = count_f64(rss_b.saturating_sub(rss_a)) * 1024.0 / count_f64(filled.max(1));
    println!(
        "fill: {warmup_tasks} warm-up + {tasks} tasks ({ok} ok, {errors} errors) in {:.1} s ({:.0} req/s during the fill)",
        started.elapsed().as_secs_f64(),
        count_f64(tasks) / fill_time.as_secs_f64().max(1e-9)
    );
    println!(
        "server RSS {rss_a} KiB -> {rss_b} KiB: {per_task:.0} bytes per retained task (one answer is {sample} bytes on the wire)"
    );
    if let Ok(Some(e)) = counts.first_error.lock().map(|e| e.clone()) {
        println!("first error: {e}");
    }
    let met = per_task < 2048.0 && errors == 0 && filled == tasks;
    if let Some(name) = md_row {
        println!(
            "MD| {name} | {tasks} tasks | {per_task:.0} B/task | < 2048 B | {} | RSS {:.1} → {:.1} MiB; answer {sample} B on the wire | {errors} |",
            if met { "✅" } else { "❌" },
            count_f64(rss_a) / 1024.0,
            count_f64(rss_b) / 1024.0
        );
    }
    Ok(met)
}

/// The soak settings.
pub(crate) struct SoakArgs {
    pub(crate) rate: f64,
    pub(crate) duration: Duration,
    pub(crate) sample_every: Duration,
    pub(crate) connections: usize,
    pub(crate) md_row: Option<String>,
}

/// `--mode soak`: `rate` requests/s for `duration`, the server's RSS every
/// `sample_every`; the verdict compares the growth over the second half
/// with what retaining every task would cost.
pub(crate) async fn soak(target: Target, args: SoakArgs) -> Result<bool, String> {
    let pid = target.server_pid.ok_or("--mode soak needs --server-pid")?;
    let target = Arc::new(target);
    let counts = Arc::new(Counts::default());
    let k = args.connections.max(1);
    let conns = open_conns(&target, k, 1).await?;
    let period = Duration::from_secs_f64(count_f64(k as u64) / args.rate.max(0.001));
    let started = Instant::now();
    let until = started + args.duration;
    let handles: Vec<_> = conns
        .into_iter()
        .zip(0u32..)
        .map(|(c, i)| {
            let mut pace = tokio::time::interval_at(
                tokio::time::Instant::now() + period.mul_f64(f64::from(i) / count_f64(k as u64)),
                period,
            );
            pace.set_missed_tick_behavior(MissedTickBehavior::Delay);
            tokio::spawn(drive(
                Arc::clone(&target),
                c,
                i,
                0,
                u64::MAX,
                Some(pace),
                Some(until),
                Arc::clone(&counts),
            ))
        })
        .collect();
    println!(
        "soak: {:.0} req/s for {:.0} s, server RSS every {:.0} s",
        args.rate,
        args.duration.as_secs_f64(),
        args.sample_every.as_secs_f64()
    );
    println!(
        "{:>8} {:>10} {:>12} {:>8}",
        "t (s)", "RSS (KiB)", "requests", "errors"
    );
    let mut samples: Vec<(f64, u64, u64)> = Vec::new();
    let mut next = started;
    loop {
        let t = started.elapsed().as_secs_f64();
        let r = rss(pid)?;
        let ok = counts.ok.load(Ordering::Relaxed);
        println!(
            "{t:>8.1} {r:>10} {ok:>12} {:>8}",
            counts.errors.load(Ordering::Relaxed)
        );
        samples.push((t, r, ok));
        if Instant::now() >= until {
            break;
        }
        next += args.sample_every;
        tokio::time::sleep_until(next.min(until).into()).await;
    }
    for h in handles {
        let _ = h.await;
    }
    let ok = counts.ok.load(Ordering::Relaxed);
    let errors = counts.errors.load(Ordering::Relaxed);
    // Second half: the retention policy has had time to start evicting.
    let half = samples.len() / 2;
    let (t0, r0, n0) = samples[half];
    let (t1, r1, n1) = *samples.last().unwrap_or(&samples[half]);
    let growth_kib = r1.saturating_sub(r0);
    let slope = count_f64(growth_kib) / ((t1 - t0).max(1e-9) / 60.0);
    let per_req = count_f64(growth_kib) * 1024.0 / count_f64(n1.saturating_sub(n0).max(1));
    let max = samples.iter().map(|s| s.1).max().unwrap_or(0);
    // Flat: the second half grew by less than 5 % of the RSS at its start
    // and by less than 64 bytes per request (a retained small task is
    // hundreds of bytes).
    let flat = count_f64(growth_kib) < count_f64(r0) * 0.05 && per_req < 64.0;
    println!(
        "soak: {ok} requests, {errors} errors, {:.0} req/s achieved; RSS second half {r0} -> {r1} KiB ({slope:.0} KiB/min, {per_req:.1} B/request), max {max} KiB: {}",
        count_f64(ok) / started.elapsed().as_secs_f64(),
        if flat { "flat" } else { "growing" }
    );
    if let Ok(Some(e)) = counts.first_error.lock().map(|e| e.clone()) {
        println!("first error: {e}");
    }
    let start_rss = samples.first().map_or(0, |s| s.1);
    let achieved = count_f64(ok) / started.elapsed().as_secs_f64().max(1e-9);
    if let Some(name) = &args.md_row {
        let mib = |k: u64| count_f64(k) / 1024.0;
        println!(
            "MD| {name} | {:.0} req/s asked, {achieved:.0} achieved × {:.1} min ({ok} requests) | start {:.1}, end {:.1}, max {:.1} MiB; 2nd half {:.1} → {:.1} MiB ({slope:.0} KiB/min, {per_req:.1} B/request) | flat | {} | {errors} |",
            args.rate,
            args.duration.as_secs_f64() / 60.0,
            mib(start_rss),
            mib(r1),
            mib(max),
            mib(r0),
            mib(r1),
            if flat { "✅" } else { "❌" }
        );
    }
    Ok(flat && errors == 0)
}
