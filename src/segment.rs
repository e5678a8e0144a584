//! Segments: one run's client load split over N processes, usually on N hosts, that never
//! talk to each other. They agree by construction, as k6's execution segments do: every
//! segment holds the same plan and the same start time, so each computes the same
//! wall-clock round boundaries and takes a fixed share of every level's threads (and of
//! `--rate`). A guard gap after every round, in which nobody sends load, absorbs the
//! skew between the hosts' clocks: as long as the skew is smaller than the gap, one host
//! never runs a side while another still measures the other side. `abtest merge` then
//! checks that the segments really did agree and adds them up.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::schedule::{Schedule, Slot};

/// The guard gap when `--guard-gap` is not given: well above what NTP or chrony keeps
/// hosts on one network apart (milliseconds), small beside a round.
pub(crate) const DEFAULT_GUARD: Duration = Duration::from_millis(250);

/// Which part of a run this process is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Segment {
    /// 1-based index of this segment.
    pub(crate) index: u32,
    /// Number of segments in the run.
    pub(crate) count: u32,
    /// When the first round starts, RFC 3339, the same for every segment; none for a
    /// single segment that starts as soon as it is ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) start_at: Option<String>,
    /// Idle time after every round that absorbs clock skew between hosts.
    #[serde(with = "crate::serde_secs")]
    pub(crate) guard: Duration,
}

/// A segment's threads at one level: ids `first..first + count` of the level's threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ThreadShare {
    /// Level-wide id of the segment's first thread.
    pub(crate) first: u32,
    /// How many threads the segment runs.
    pub(crate) count: u32,
}

impl ThreadShare {
    /// All of a level's threads: a run that is not split.
    pub(crate) fn whole(threads: u32) -> ThreadShare {
        ThreadShare {
            first: 0,
            count: threads,
        }
    }
}

/// When one round happens on the wall clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    /// The workers take over the side's connections (or connect) and warm up.
    pub(crate) start: SystemTime,
    /// The measured period begins.
    pub(crate) measure: SystemTime,
    /// The measured period ends.
    pub(crate) end: SystemTime,
}

/// Parses `--segment I/N`.
pub(crate) fn parse_index(text: &str) -> Result<(u32, u32), String> {
    let usage = || format!("`{text}`: expected I/N, such as 2/3 (segment 2 of 3)");
    let (index, count) = text.split_once('/').ok_or_else(usage)?;
    let index: u32 = index.trim().parse().map_err(|_| usage())?;
    let count: u32 = count.trim().parse().map_err(|_| usage())?;
    if count == 0 || index == 0 || index > count {
        return Err(format!(
            "`{text}`: the index runs from 1 to the number of segments"
        ));
    }
    Ok((index, count))
}

impl Segment {
    /// Whether the run is split at all (`1/1` is a whole run with a segment record).
    pub(crate) fn is_split(&self) -> bool {
        self.count > 1
    }

    /// The planned start, parsed; `ready` when none was given.
    pub(crate) fn start_time(&self, ready: SystemTime) -> Result<SystemTime, String> {
        match &self.start_at {
            Some(text) => humantime::parse_rfc3339_weak(text)
                .map_err(|e| format!("--start-at {text}: {e}; write it as 2026-12-01T10:00:00Z")),
            None => Ok(ready),
        }
    }

    /// This segment's threads of a level: the level split into `count` shares that add up
    /// to it exactly, the first `threads % count` shares one thread larger.
    pub(crate) fn share(&self, threads: u32) -> ThreadShare {
        let k = self.index - 1;
        let (base, extra) = (threads / self.count, threads % self.count);
        ThreadShare {
            first: k * base + k.min(extra),
            count: base + u32::from(k < extra),
        }
    }

    /// This segment's part of an arrival rate at a level: in proportion to its threads,
    /// so the shares add up to the rate.
    pub(crate) fn rate_share(&self, rate: f64, threads: u32) -> f64 {
        rate * f64::from(self.share(threads).count) / f64::from(threads.max(1))
    }

    /// Where this segment's distinct ids start: the 2³² ids split into `count` ranges,
    /// so that no two segments draw the same id.
    pub(crate) fn unique_offset(&self) -> u32 {
        ((u64::from(self.index - 1) << 32) / u64::from(self.count)) as u32
    }

    /// The wall-clock window of every slot, by position, the first starting at the
    /// planned start (or at `ready`). A round lasts its warm-up (the re-warm where its
    /// side's connections are kept, as the runner does) plus the measured period; the
    /// pause and the guard gap follow it.
    pub(crate) fn windows(
        &self,
        schedule: &Schedule,
        slots: &[Slot],
        persistent: bool,
        ready: SystemTime,
    ) -> Result<Vec<Window>, String> {
        let mut start = self.start_time(ready)?;
        let mut last_level: [Option<u32>; 2] = [None, None];
        let mut windows = Vec::with_capacity(slots.len());
        for slot in slots {
            let side = slot.side as usize;
            let kept = persistent && last_level[side] == Some(slot.threads);
            last_level[side] = Some(slot.threads);
            let measure = start + schedule.warmup_of(kept);
            let end = measure + schedule.round_time;
            windows.push(Window {
                start,
                measure,
                end,
            });
            start = end + schedule.pause + self.guard;
        }
        Ok(windows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::{LevelOrder, RoundOrder};
    use crate::side::Side;

    fn segment(index: u32, count: u32) -> Segment {
        Segment {
            index,
            count,
            start_at: Some("2026-12-01T10:00:00Z".to_string()),
            guard: Duration::from_millis(250),
        }
    }

    #[test]
    fn shares_add_up_to_every_level_and_never_overlap() {
        for count in 1..=7 {
            for threads in count..=40 {
                let mut next = 0;
                let mut rate = 0.0;
                for index in 1..=count {
                    let share = segment(index, count).share(threads);
                    assert_eq!(share.first, next, "{index}/{count} of {threads}");
                    assert!(share.count >= 1);
                    next += share.count;
                    rate += segment(index, count).rate_share(900.0, threads);
                }
                assert_eq!(next, threads);
                assert!((rate - 900.0).abs() < 1e-9);
            }
        }
        assert_eq!(segment(1, 3).share(8), ThreadShare { first: 0, count: 3 });
        assert_eq!(segment(3, 3).share(8), ThreadShare { first: 6, count: 2 });
    }

    #[test]
    fn segments_draw_from_disjoint_id_ranges() {
        let offsets: Vec<u32> = (1..=4).map(|i| segment(i, 4).unique_offset()).collect();
        assert_eq!(offsets, [0, 1 << 30, 2 << 30, 3 << 30]);
    }

    #[test]
    fn parses_index_of_count() {
        assert_eq!(parse_index("2/3"), Ok((2, 3)));
        assert_eq!(parse_index("1/1"), Ok((1, 1)));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            assert!(parse_index(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn windows_follow_the_plan_with_rewarm_and_guard() {
        let schedule = Schedule {
            levels: vec![4],
            rounds: 2,
            round_time: Duration::from_secs(5),
            warmup: Duration::from_secs(3),
            rewarm: Some(Duration::from_secs(1)),
            pause: Duration::ZERO,
            order: RoundOrder::Abba,
            level_order: LevelOrder::Asc,
            instances: 1,
            swap: false,
        };
        let slots = schedule.slots(1);
        let seg = segment(1, 2);
        let windows = seg
            .windows(&schedule, &slots, true, SystemTime::now())
            .unwrap();
        let start = seg.start_time(SystemTime::now()).unwrap();
        let at = |ms: u64| start + Duration::from_millis(ms);
        // A: 3 s warm-up, B: 3 s warm-up, then B and A re-warm 1 s.
        assert_eq!(slots[0].side, Side::Baseline);
        assert_eq!(windows[0].measure, at(3_000));
        assert_eq!(windows[1].start, at(8_250));
        assert_eq!(windows[1].measure, at(11_250));
        assert_eq!(windows[2].start, at(16_500));
        assert_eq!(windows[2].measure, at(17_500));
        assert_eq!(windows[3].end, at(28_750));
        let per_round = seg.windows(&schedule, &slots, false, start).unwrap();
        assert_eq!(per_round[2].measure, at(16_500 + 3_000));
    }
}
