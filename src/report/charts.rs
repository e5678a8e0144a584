//! SVG charts for the HTML report, drawn with plotters' SVG backend: the per-round TPS of
//! both sides in run order (so drift and alternation are visible), the latency
//! percentile curves from each side's merged histogram, and the thread sweep.

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::format::{self, confidence};
use crate::histogram;
use crate::results::classes::ClassComparison;
use crate::results::{RoundRecord, RoundStatus};
use crate::side::Side;
use crate::stats::compare::{Comparison, Family};
use crate::stats::metric::Metric;

const BASELINE: RGBColor = RGBColor(31, 119, 180);
const VARIANT: RGBColor = RGBColor(255, 127, 14);
const SIZE: (u32, u32) = (760, 340);

fn color(side: Side) -> RGBColor {
    match side {
        Side::Baseline => BASELINE,
        Side::Variant => VARIANT,
    }
}

fn failed<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing a chart failed: {e:?}")
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Where a chart's legend goes and how wide its y labels are.
struct Layout {
    legend: Option<SeriesLabelPosition>,
    y_label_width: u32,
}

impl Layout {
    /// A legend at `position` and room for numbers on the y axis.
    fn legend_at(position: SeriesLabelPosition) -> Layout {
        Layout {
            legend: Some(position),
            y_label_width: 64,
        }
    }
}

/// Draws one SVG chart: the frame, `body`'s series, and the legend where `layout` says.
fn svg_chart(
    caption: &str,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
    layout: Layout,
    body: impl FnOnce(&mut Chart<'_, '_>) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(failed)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(32)
            .y_label_area_size(layout.y_label_width)
            .build_cartesian_2d(x, y)
            .map_err(failed)?;
        body(&mut chart)?;
        if let Some(position) = layout.legend {
            chart
                .configure_series_labels()
                .position(position)
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK)
                .draw()
                .map_err(failed)?;
        }
        root.present().map_err(failed)?;
    }
    Ok(svg)
}

fn completed(rounds: &[RoundRecord], threads: u32) -> Vec<&RoundRecord> {
    rounds
        .iter()
        .filter(|r| r.status == RoundStatus::Completed && r.threads == threads)
        .collect()
}

/// Per-round TPS of both sides at one thread level, in run order, with each side's mean
/// and its 95 % interval as a band.
pub(crate) fn rounds_chart(
    rounds: &[RoundRecord],
    names: &[String; 2],
    threads: u32,
    comparison: Option<&Comparison>,
) -> anyhow::Result<String> {
    let rounds = completed(rounds, threads);
    let (low, high) = bounds(rounds.iter().map(|r| r.tps));
    // Headroom above the points for the legend, so it never covers a round.
    let high = high + 0.3 * (high - low);
    let first = rounds.first().map_or(0, |r| r.position) as f64;
    let last = rounds.last().map_or(1, |r| r.position) as f64;
    let caption = format!("TPS per round in run order, {threads} threads");
    svg_chart(
        &caption,
        first - 0.5..last + 0.5,
        low..high,
        Layout::legend_at(SeriesLabelPosition::UpperRight),
        |chart| {
            chart
                .configure_mesh()
                .x_desc("position in the run")
                .y_desc("transactions per second")
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&|y| format!("{y:.0}"))
                .disable_x_mesh()
                .draw()
                .map_err(failed)?;
            for side in Side::BOTH {
                let c = color(side);
                if let Some(summary) = comparison.map(|c| {
                    if side == Side::Baseline {
                        c.baseline
                    } else {
                        c.variant
                    }
                }) {
                    let half = 1.96 * summary.sd / (summary.n as f64).sqrt();
                    let band = [
                        (first - 0.5, summary.mean - half),
                        (last + 0.5, summary.mean + half),
                    ];
                    chart
                        .draw_series(std::iter::once(Rectangle::new(band, c.mix(0.15).filled())))
                        .map_err(failed)?;
                    let mean = [(first - 0.5, summary.mean), (last + 0.5, summary.mean)];
                    chart
                        .draw_series(LineSeries::new(mean, c.stroke_width(1)))
                        .map_err(failed)?;
                }
                let points = rounds
                    .iter()
                    .filter(|r| r.side == side)
                    .map(|r| (r.position as f64, r.tps));
                chart
                    .draw_series(points.map(|p| Circle::new(p, 4, c.filled())))
                    .map_err(failed)?
                    .label(names[side as usize].as_str())
                    .legend(move |(x, y)| Circle::new((x + 8, y), 4, c.filled()));
            }
            Ok(())
        },
    )
}

/// Latency against percentile (p50 to p99.9, on a log scale of 1/(1 − p)) from each
/// side's merged histogram at one thread level.
pub(crate) fn latency_chart(
    rounds: &[RoundRecord],
    names: &[String; 2],
    threads: u32,
) -> anyhow::Result<String> {
    let percentiles = [50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9];
    let curves: Vec<(Side, Vec<(f64, f64)>)> = Side::BOTH
        .iter()
        .map(|&side| (side, percentile_curve(rounds, threads, side, &percentiles)))
        .collect();
    let (_, high) = bounds(curves.iter().flat_map(|(_, c)| c.iter().map(|p| p.1)));
    let scale = |p: f64| -(1.0 - p / 100.0).log10();
    let caption = format!("Latency by percentile, {threads} threads");
    svg_chart(
        &caption,
        scale(50.0)..scale(99.9),
        0.0..high,
        Layout::legend_at(SeriesLabelPosition::UpperLeft),
        |chart| {
            chart
                .configure_mesh()
                .x_desc("percentile")
                .y_desc("latency (ms)")
                .x_labels(4)
                .x_label_formatter(&|x| {
                    let p = 100.0 * (1.0 - 10f64.powf(-x));
                    format!("p{}", (p * 10.0).round() / 10.0)
                })
                .draw()
                .map_err(failed)?;
            for (side, curve) in curves {
                let c = color(side);
                let points: Vec<(f64, f64)> = curve.iter().map(|&(p, v)| (scale(p), v)).collect();
                chart
                    .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
                    .map_err(failed)?
                    .label(names[side as usize].as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                    });
                chart
                    .draw_series(points.into_iter().map(|p| Circle::new(p, 3, c.filled())))
                    .map_err(failed)?;
            }
            Ok(())
        },
    )
}

fn percentile_curve(
    rounds: &[RoundRecord],
    threads: u32,
    side: Side,
    percentiles: &[f64],
) -> Vec<(f64, f64)> {
    let mut merged: Option<hdrhistogram::Histogram<u64>> = None;
    for round in completed(rounds, threads)
        .into_iter()
        .filter(|r| r.side == side)
    {
        if let Some(h) = histogram::decode(&round.histogram) {
            match merged.as_mut() {
                Some(m) => {
                    let _ = m.add(&h);
                }
                None => merged = Some(h),
            }
        }
    }
    let Some(histogram) = merged.filter(|h| !h.is_empty()) else {
        return Vec::new();
    };
    percentiles
        .iter()
        .map(|&p| (p, histogram.value_at_percentile(p) as f64 / 1000.0))
        .collect()
}

/// Mean TPS of both sides at every thread level, with 95 % whiskers.
pub(crate) fn sweep_chart(
    comparisons: &[Comparison],
    names: &[String; 2],
) -> anyhow::Result<String> {
    let tps: Vec<&Comparison> = comparisons
        .iter()
        .filter(|c| c.metric == Metric::Tps)
        .collect();
    let (_, high) = bounds(tps.iter().flat_map(|c| {
        [
            c.baseline.mean + c.baseline.sd,
            c.variant.mean + c.variant.sd,
        ]
    }));
    let levels: Vec<u32> = tps.iter().map(|c| c.threads).collect();
    let x = -0.5..levels.len() as f64 - 0.5;
    svg_chart(
        "TPS by thread level",
        x,
        0.0..high,
        Layout::legend_at(SeriesLabelPosition::UpperRight),
        |chart| {
            chart
                .configure_mesh()
                .x_desc("threads")
                .y_desc("TPS")
                .x_labels(levels.len())
                .x_label_formatter(&|x| {
                    levels
                        .get(x.round() as usize)
                        .map(u32::to_string)
                        .unwrap_or_default()
                })
                .draw()
                .map_err(failed)?;
            for side in Side::BOTH {
                let c = color(side);
                let points: Vec<(f64, f64, f64)> = tps
                    .iter()
                    .enumerate()
                    .map(|(i, comparison)| {
                        let s = if side == Side::Baseline {
                            comparison.baseline
                        } else {
                            comparison.variant
                        };
                        (i as f64, s.mean, 1.96 * s.sd / (s.n as f64).sqrt())
                    })
                    .collect();
                chart
                    .draw_series(LineSeries::new(
                        points.iter().map(|p| (p.0, p.1)),
                        c.stroke_width(2),
                    ))
                    .map_err(failed)?
                    .label(names[side as usize].as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                    });
                chart
                    .draw_series(points.iter().map(|&(x, y, e)| {
                        ErrorBar::new_vertical(x, y - e, y, y + e, c.filled(), 8)
                    }))
                    .map_err(failed)?;
            }
            Ok(())
        },
    )
}

/// The % change of every confirmatory metric, TPS first (the top rows), one row per
/// metric and thread level. A metric with a tolerance shows the interval its verdict
/// reads — the (1 − 2α) interval, whose bounds are the one-sided bounds of the table —
/// with the tolerance as a red line and the worse side of it shaded; the others their
/// 95 % interval. The axis is chosen from the tolerances and the TPS and deciding
/// intervals, so one wild p99 bound cannot squeeze the decision into a pixel: an interval
/// beyond the axis is drawn to its edge with an arrow and its value.
pub(crate) fn change_chart(
    comparisons: &[Comparison],
    alpha: f64,
    verdict_alpha: f64,
) -> anyhow::Result<String> {
    let mut rows: Vec<&Comparison> = comparisons
        .iter()
        .filter(|c| c.family == Family::Confirmatory)
        .collect();
    rows.sort_by_key(|c| c.metric != Metric::Tps);
    let extent = change_extent(&rows);
    // A ratio cannot fall by more than 100 %: the axis stops just below that, so an
    // interval wider than the table's `<-99` is drawn to the edge, not to −300 %.
    let axis = [(-extent).max(-RATIO_FLOOR), extent];
    let n = rows.len();
    // Row i is drawn at height n − 1 − i, so the first row (TPS) is on top.
    let labels: Vec<String> = rows
        .iter()
        .rev()
        .map(|c| format!("{} @{}", c.metric.label(), c.threads))
        .collect();
    let judged = rows.iter().any(|c| c.tolerance_pct.is_some());
    let caption = if judged {
        format!(
            "Change vs baseline: bar = interval the verdict reads ({} % one-sided bounds); red = tolerance",
            confidence(verdict_alpha)
        )
    } else {
        format!("Change of variant vs baseline, {} % CI", confidence(alpha))
    };
    let y = -0.5..n as f64 - 0.5;
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u32;
    let layout = Layout {
        legend: None,
        y_label_width: 16 + 7 * widest,
    };
    svg_chart(&caption, axis[0]..axis[1], y, layout, |chart| {
        row_mesh(chart, "change (%)", &labels)?;
        for (i, c) in rows.iter().enumerate() {
            draw_worse_side(chart, c, (n - 1 - i) as f64, axis)?;
        }
        zero_line(chart, n)?;
        for (i, c) in rows.iter().enumerate() {
            draw_change(chart, c, (n - 1 - i) as f64, axis)?;
        }
        Ok(())
    })
}

/// The frame of a chart of changes, one labelled row per entry of `labels` (bottom
/// first).
fn row_mesh(chart: &mut Chart<'_, '_>, x_desc: &str, labels: &[String]) -> anyhow::Result<()> {
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_labels(labels.len().max(1))
        .y_label_formatter(&|y| labels.get(y.round() as usize).cloned().unwrap_or_default())
        .disable_y_mesh()
        .draw()
        .map_err(failed)
}

/// The line of no change across `rows` rows.
fn zero_line(chart: &mut Chart<'_, '_>, rows: usize) -> anyhow::Result<()> {
    let zero = [(0.0, -0.5), (0.0, rows as f64 - 0.5)];
    chart
        .draw_series(LineSeries::new(zero, BLACK.stroke_width(1)))
        .map_err(failed)?;
    Ok(())
}

/// The most query classes the classes chart draws (the slowest changes).
const CLASSES_DRAWN: usize = 20;

/// The change of each query class's mean latency at one thread level, with its interval,
/// the slowest change on top: which classes got slower, at a glance.
pub(crate) fn classes_chart(
    classes: &[ClassComparison],
    threads: u32,
    alpha: f64,
) -> anyhow::Result<String> {
    let rows: Vec<&ClassComparison> = classes
        .iter()
        .filter(|c| c.threads == threads)
        .take(CLASSES_DRAWN)
        .collect();
    let n = rows.len();
    let labels: Vec<String> = rows
        .iter()
        .rev()
        .map(|c| super::classes::shown_in(&c.class, 40))
        .collect();
    // The axis holds zero, every change, and each interval up to three times the
    // largest change (a wild bound is cut at the edge, not allowed to squeeze the rest).
    let widest = rows
        .iter()
        .map(|c| c.change_pct.abs())
        .fold(5.0_f64, f64::max);
    let (low, high) = rows
        .iter()
        .flat_map(|c| c.ci_pct.unwrap_or([c.change_pct; 2]))
        .filter(|v| v.is_finite())
        .map(|v| v.clamp(-3.0 * widest, 3.0 * widest))
        .fold((0.0_f64, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = 0.08 * (high - low).max(10.0);
    let (low, high) = (low - pad, high + pad);
    let caption = format!(
        "Query classes at {threads} threads: change of mean latency, {} % CI",
        confidence(alpha)
    );
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u32;
    let layout = Layout {
        legend: None,
        y_label_width: 16 + 7 * longest,
    };
    svg_chart(&caption, low..high, -0.5..n as f64 - 0.5, layout, |chart| {
        row_mesh(chart, "change of mean latency (%)", &labels)?;
        zero_line(chart, n)?;
        let clip = |v: f64| v.clamp(low + pad / 4.0, high - pad / 4.0);
        for (i, c) in rows.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            let point = clip(c.change_pct);
            let [lo, hi] = c.ci_pct.unwrap_or([low, high]);
            let style = if c.significant { RED } else { VARIANT };
            chart
                .draw_series([ErrorBar::new_horizontal(
                    y,
                    clip(lo),
                    point,
                    clip(hi),
                    style.filled(),
                    10,
                )])
                .map_err(failed)?;
            chart
                .draw_series([Circle::new((point, y), 5, style.filled())])
                .map_err(failed)?;
        }
        Ok(())
    })
}

/// Where a comparison's tolerance lies on the change axis: below zero for TPS (a loss),
/// above for latency (an inflation).
fn tolerance_boundary(c: &Comparison) -> Option<f64> {
    c.tolerance_pct
        .map(|t| if c.metric == Metric::Tps { -t } else { t })
}

/// The interval a row draws: the one its verdict reads when it has a tolerance, else
/// its 95 % interval.
fn drawn_interval(c: &Comparison) -> Option<[f64; 2]> {
    if c.tolerance_pct.is_some() {
        c.verdict_ci_pct
    } else {
        c.ci_pct
    }
}

/// Half the width of the change axis: the TPS intervals and every tolerance fit, with
/// room; other intervals fit when they are not more than three times as wide, and are
/// clipped beyond that (a p99 bound of +16 000 % must not squeeze the TPS row).
fn change_extent(rows: &[&Comparison]) -> f64 {
    let deciding = rows
        .iter()
        .flat_map(|c| {
            let mut values = vec![tolerance_boundary(c).unwrap_or(0.0)];
            if c.metric == Metric::Tps {
                values.extend(drawn_interval(c).unwrap_or([c.change_pct; 2]));
                values.push(c.change_pct);
            }
            values
        })
        .filter(|v| v.is_finite())
        .fold(5.0_f64, |m, v| m.max(v.abs().min(100.0)));
    let others = rows
        .iter()
        .flat_map(|c| drawn_interval(c).unwrap_or([c.change_pct; 2]))
        .filter(|v| v.is_finite())
        .fold(0.0_f64, |m, v| m.max(v.abs()));
    others.min(3.0 * deciding).max(deciding) * 1.15
}

/// The lowest the change axis goes, in %: a ratio of positive values cannot fall by
/// more than 100 %.
const RATIO_FLOOR: f64 = 110.0;

/// Shades the side of a row's tolerance that is worse, labelled "worse".
fn draw_worse_side(
    chart: &mut Chart<'_, '_>,
    c: &Comparison,
    y: f64,
    [low, high]: [f64; 2],
) -> anyhow::Result<()> {
    let Some(t) = tolerance_boundary(c) else {
        return Ok(());
    };
    let t = t.clamp(low, high);
    let (from, to, label, anchor) = if c.metric == Metric::Tps {
        (low, t, "\u{2190} worse", low * 0.97)
    } else {
        (t, high, "worse \u{2192}", high * 0.8)
    };
    let red = RGBColor(214, 39, 40);
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(from, y - 0.45), (to, y + 0.45)],
            red.mix(0.08).filled(),
        )))
        .map_err(failed)?;
    chart
        .draw_series(std::iter::once(Text::new(
            label,
            (anchor, y + 0.42),
            ("sans-serif", 12).into_font().color(&red),
        )))
        .map_err(failed)?;
    Ok(())
}

/// One row of the change chart at height `y`: the tolerance, the interval (clipped at
/// the axis with an arrow and its value, written as the table writes it), the point.
fn draw_change(
    chart: &mut Chart<'_, '_>,
    c: &Comparison,
    y: f64,
    [low, high]: [f64; 2],
) -> anyhow::Result<()> {
    if let Some(t) = tolerance_boundary(c).filter(|t| (low..=high).contains(t)) {
        chart
            .draw_series(LineSeries::new(
                [(t, y - 0.4), (t, y + 0.4)],
                RED.stroke_width(2),
            ))
            .map_err(failed)?;
    }
    let [left, right] = [low * 0.98, high * 0.98];
    if let Some([lo, hi]) = drawn_interval(c) {
        let point = c.change_pct.clamp(left, right);
        chart
            .draw_series(std::iter::once(ErrorBar::new_horizontal(
                y,
                lo.clamp(left, right),
                point,
                hi.clamp(left, right),
                VARIANT.filled(),
                10,
            )))
            .map_err(failed)?;
        let (lo_text, hi_text) = (format::lower_bound(lo), format::upper_bound(hi));
        if lo > right {
            clipped_mark(chart, format!("{lo_text}…{hi_text} %"), right, y)?;
        } else if hi < left {
            clipped_mark(chart, format!("{lo_text}…{hi_text} %"), left, y)?;
        } else {
            if hi > right {
                clipped_mark(chart, format!("{hi_text} %"), right, y)?;
            }
            if lo < left {
                clipped_mark(chart, format!("{lo_text} %"), left, y)?;
            }
        }
    }
    if (left..=right).contains(&c.change_pct) {
        chart
            .draw_series(std::iter::once(Circle::new(
                (c.change_pct, y),
                5,
                VARIANT.filled(),
            )))
            .map_err(failed)?;
    }
    Ok(())
}

/// An arrow at the axis edge `at` for an interval beyond it, with the bounds' `text`.
fn clipped_mark(chart: &mut Chart<'_, '_>, text: String, at: f64, y: f64) -> anyhow::Result<()> {
    let arrow = if at > 0.0 { "\u{25B6}" } else { "\u{25C0}" };
    let font = ("sans-serif", 12).into_font().color(&BLACK);
    let width = at.abs() / 0.98;
    let text_at = if at > 0.0 {
        at - 0.3 * width
    } else {
        at + 0.04 * width
    };
    chart
        .draw_series([
            Text::new(arrow.to_string(), (at - 0.02 * at, y + 0.08), font.clone()),
            Text::new(text, (text_at, y - 0.12), font),
        ])
        .map_err(failed)?;
    Ok(())
}

/// A range that holds every value with a little room, starting at zero for positives.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        low = low.min(v);
        high = high.max(v);
    }
    if !low.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((high - low) * 0.1).max(high.abs() * 0.02).max(1e-9);
    ((low - pad).max(0.0), high + pad)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixture's comparisons, its TPS interval as wide as a first look's.
    fn wild_tps() -> Vec<Comparison> {
        let results: crate::results::ResultsFile =
            serde_json::from_str(include_str!("../../tests/fixtures/audit-point-select.json"))
                .unwrap();
        let mut comparisons = results.judgement.comparisons;
        for c in comparisons.iter_mut().filter(|c| c.metric == Metric::Tps) {
            c.change_pct = -25.0;
            c.ci_pct = Some([-160.0, 1402.0]);
            c.verdict_ci_pct = Some([-150.0, 1402.0]);
        }
        comparisons
    }

    /// The x axis' tick labels of an SVG chart: the texts that are plain numbers.
    fn ticks(svg: &str) -> Vec<f64> {
        svg.split('>')
            .filter_map(|part| part.split('<').next())
            .filter_map(|text| text.trim().parse::<f64>().ok())
            .collect()
    }

    #[test]
    fn the_change_axis_stops_where_a_ratio_can_go_and_says_what_the_table_says() {
        let svg = change_chart(&wild_tps(), 0.05, 0.05).unwrap();
        let lowest = ticks(&svg).into_iter().fold(0.0, f64::min);
        assert!(lowest >= -RATIO_FLOOR, "axis tick at {lowest} %");
        assert!(
            svg.contains("&gt;+999 %") || svg.contains(">+999 %"),
            "{svg}"
        );
        assert!(!svg.contains("+1402"), "the table says >+999");
        assert!(svg.contains("&lt;-99 %") || svg.contains("<-99 %"));
    }
}
