//! Whether an open-loop run (`--rate`) kept its rate. An open loop that falls behind
//! measures a queue: its latencies grow with the wait, and its TPS is what the server
//! could do, not the rate asked. That can be the finding (the variant cannot keep the
//! production rate), but the verdict must say it, with the rate each side achieved,
//! or a board reads a latency comparison of two queues as one of two servers.

use super::round::{RoundRecord, RoundStatus};
use crate::side::Side;

/// The smallest shortfall called "not kept": a Poisson round of a few hundred events
/// wanders by a few percent on its own.
const SLACK: f64 = 0.05;

/// What one side achieved against the rate asked.
struct Achieved {
    side: Side,
    rate: f64,
    achieved: f64,
    short_rounds: usize,
    rounds: usize,
}

/// The sentence that says a side fell short of the rate, with what both achieved;
/// `None` for a closed loop or a rate both sides kept.
pub(crate) fn not_kept(rounds: &[RoundRecord]) -> Option<String> {
    let sides: Vec<Achieved> = Side::BOTH
        .into_iter()
        .filter_map(|side| achieved(rounds, side))
        .collect();
    if !sides.iter().any(Achieved::fell_short) {
        return None;
    }
    let rate = sides.first()?.rate;
    let each: Vec<String> = sides
        .iter()
        .map(|a| {
            format!(
                "{} {:.1}/s ({:.0} %, {} of {} round(s) short)",
                a.side,
                a.achieved,
                100.0 * a.achieved / a.rate,
                a.short_rounds,
                a.rounds
            )
        })
        .collect();
    Some(format!(
        "The open loop did not keep its rate of {rate:.1} transactions/s; achieved: {}. A side \
         that falls behind queues its events, so its latencies include the wait and its TPS is \
         its capacity; lower --rate, or add --threads, to compare the two at a rate both keep",
        each.join(", ")
    ))
}

/// One side's completed open-loop rounds: the rate asked, the rate achieved over all of
/// them, and how many rounds fell short on their own.
fn achieved(rounds: &[RoundRecord], side: Side) -> Option<Achieved> {
    let open: Vec<(&RoundRecord, f64)> = rounds
        .iter()
        .filter(|r| r.side == side && r.status == RoundStatus::Completed)
        .filter_map(|r| Some((r, r.open_loop?.rate)))
        .collect();
    let rate = open.first()?.1;
    let seconds: f64 = open.iter().map(|(r, _)| r.duration_s).sum();
    let events: u64 = open.iter().map(|(r, _)| r.transactions).sum();
    if seconds <= 0.0 || rate <= 0.0 {
        return None;
    }
    let short_rounds = open
        .iter()
        .filter(|(r, rate)| short(r.tps, *rate, rate * r.duration_s))
        .count();
    Some(Achieved {
        side,
        rate,
        achieved: events as f64 / seconds,
        short_rounds,
        rounds: open.len(),
    })
}

/// Whether `achieved` is short of `rate` by more than chance: 5 %, or three standard
/// deviations of a Poisson count of `expected` events when that is more.
fn short(achieved: f64, rate: f64, expected: f64) -> bool {
    let slack = SLACK.max(3.0 / expected.max(1.0).sqrt());
    achieved < rate * (1.0 - slack)
}

impl Achieved {
    fn fell_short(&self) -> bool {
        short(self.achieved, self.rate, self.rate * self.rounds as f64) && self.short_rounds > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::OpenLoop;

    fn round(side: Side, index: u32, tps: f64, rate: f64) -> RoundRecord {
        let mut r = RoundRecord::example(side, 8, index);
        r.duration_s = 10.0;
        r.transactions = (tps * 10.0) as u64;
        r.tps = tps;
        r.open_loop = Some(OpenLoop {
            rate,
            late_events: 0,
            max_lag_ms: 0.0,
            max_queue_depth: 0,
        });
        r
    }

    #[test]
    fn a_rate_both_sides_kept_is_not_mentioned() {
        let rounds = [
            round(Side::Baseline, 0, 348.0, 350.0),
            round(Side::Variant, 0, 353.0, 350.0),
        ];
        assert_eq!(not_kept(&rounds), None);
        let closed = [RoundRecord::example(Side::Baseline, 8, 0)];
        assert_eq!(not_kept(&closed), None);
    }

    #[test]
    fn a_side_that_fell_behind_is_named_with_what_each_achieved() {
        let rounds = [
            round(Side::Baseline, 0, 349.0, 350.0),
            round(Side::Variant, 0, 116.0, 350.0),
            round(Side::Baseline, 1, 352.0, 350.0),
            round(Side::Variant, 1, 240.0, 350.0),
        ];
        let text = not_kept(&rounds).expect("the variant fell short");
        assert!(text.contains("rate of 350.0 transactions/s"), "{text}");
        assert!(
            text.contains("achieved: baseline 350.5/s (100 %, 0 of 2 round(s) short), "),
            "{text}"
        );
        assert!(
            text.contains("variant 178.0/s (51 %, 2 of 2 round(s) short)."),
            "{text}"
        );
    }

    #[test]
    fn a_short_round_of_few_events_is_chance() {
        // 20 events expected: a Poisson count of 16 is within three deviations.
        let mut r = round(Side::Baseline, 0, 1.6, 2.0);
        r.transactions = 16;
        assert_eq!(not_kept(&[r]), None);
    }
}
