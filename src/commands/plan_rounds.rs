//! `abtest plan-rounds --cv 3% --effect 2%`: how many rounds a run needs, before it runs.

use crate::cli::PlanRoundsArgs;
use crate::exit::{self, UsageError};
use crate::stats::power::{minimum_detectable_effect, rounds_needed};

/// Prints the rounds per side needed, and what smaller runs could detect.
pub fn execute(args: &PlanRoundsArgs) -> anyhow::Result<i32> {
    if !(args.alpha > 0.0 && args.alpha < 0.5 && args.power > 0.0 && args.power < 1.0) {
        return Err(UsageError::err(
            "--alpha must lie in (0, 0.5) and --power in (0 %, 100 %)",
        ));
    }
    if args.cv <= 0.0 || args.effect <= 0.0 {
        return Err(UsageError::err(
            "--cv and --effect must be above zero, such as --cv 3% --effect 2%",
        ));
    }
    let needed = rounds_needed(args.cv, args.effect, args.alpha, args.power).unwrap_or(2);
    println!(
        "rounds per side: {needed} to detect a {:.2} % change at CV {:.2} % (alpha {}, power {:.0} %)",
        100.0 * args.effect,
        100.0 * args.cv,
        args.alpha,
        100.0 * args.power
    );
    println!("smallest detectable change by rounds per side:");
    for n in [5, 10, 20, 30, 50] {
        let mde = minimum_detectable_effect(args.cv, n, args.alpha, args.power);
        println!("  {n:>3} rounds: {:.2} %", 100.0 * mde);
    }
    Ok(exit::SUCCESS)
}
