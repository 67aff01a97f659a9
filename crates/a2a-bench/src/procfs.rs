//! What `/proc` says about a process: resident memory and CPU time.

use std::io;
use std::time::Duration;

/// Linux reports `utime`/`stime` in `USER_HZ` ticks, which is 100 on every
/// architecture the kernel supports for user space.
const USER_HZ: u64 = 100;

/// `VmRSS` of `pid` in KiB (from `/proc/PID/status`).
///
/// # Errors
///
/// When the file cannot be read (no such process) or has no `VmRSS`.
pub fn rss_kib(pid: u32) -> io::Result<u64> {
    status_kib(pid, "VmRSS:")
}

/// `VmHWM` (peak RSS) of `pid` in KiB.
///
/// # Errors
///
/// As [`rss_kib`].
pub fn peak_rss_kib(pid: u32) -> io::Result<u64> {
    status_kib(pid, "VmHWM:")
}

fn status_kib(pid: u32, key: &str) -> io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| io::Error::other(format!("/proc/{pid}/status has no {key}")))
}

/// User + system CPU time consumed so far by every thread of `pid`.
///
/// # Errors
///
/// When `/proc/PID/stat` cannot be read or parsed.
pub fn cpu_time(pid: u32) -> io::Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    cpu_time_of(&stat).ok_or_else(|| io::Error::other(format!("cannot parse /proc/{pid}/stat")))
}

/// CPU time of this process.
///
/// # Errors
///
/// As [`cpu_time`].
pub fn self_cpu_time() -> io::Result<Duration> {
    cpu_time(std::process::id())
}

/// Parses `utime` + `stime` (fields 14 and 15) out of a `stat` line; the
/// command name (field 2) may contain spaces and parentheses, so fields are
/// counted after the last `)`.
fn cpu_time_of(stat: &str) -> Option<Duration> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    let ticks = utime + stime;
    Some(Duration::from_millis(ticks * 1000 / USER_HZ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat() {
        let stat = "1234 (a2a (x) y) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0";
        assert_eq!(cpu_time_of(stat), Some(Duration::from_millis(3000)));
    }

    #[test]
    fn reads_self() {
        let me = std::process::id();
        assert!(rss_kib(me).unwrap() > 0);
        assert!(peak_rss_kib(me).unwrap() >= rss_kib(me).unwrap() / 2);
        assert!(cpu_time(me).is_ok());
    }
}
