//! Pictures of the record: each currency's balances over time, one line per
//! player, drawn as SVG by plotters from the record's numbers (never by hand),
//! each with a text alternative. Deterministic: the same record, the same bytes.

use jiff::Timestamp;
use plotters::prelude::*;

use super::SiteError;
use super::kept::{Series, balances_plot, scores_plot};
use super::record::Record;

/// The most points a line is drawn with: a longer series is drawn through
/// evenly spaced points of it (and its last), so a drawing costs the same
/// however long the nomic has run.
const MOST_POINTS: usize = 400;

/// One plot: its file, what it shows, and the same in words; drawn (`svg`)
/// only when the build asks for it, the words always (the page shows them).
pub struct Plot {
    pub file: String,
    pub title: String,
    pub alt: String,
    pub svg: Option<Vec<u8>>,
}

fn plot_error(error: impl std::fmt::Display) -> SiteError {
    SiteError::Plot(error.to_string())
}

type Line = (String, Vec<(Timestamp, f64)>);

fn line(name: String, series: &Series) -> Line {
    let points = series
        .0
        .iter()
        .filter_map(|(at, value)| Some((*at, value.parse::<f64>().ok()?)))
        .collect();
    (name, points)
}

fn plot(
    file: String,
    title: String,
    x_desc: &str,
    lines: Vec<Line>,
    draw_it: bool,
) -> Result<Plot, SiteError> {
    let alt = format!(
        "{title}: {}.",
        lines
            .iter()
            .map(|(name, points)| {
                let first = points.first().map_or(0.0, |p| p.1);
                let last = points.last().map_or(0.0, |p| p.1);
                format!("{name} from {} to {}", number(first), number(last))
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    let svg = match draw_it {
        true => Some(draw(&title, x_desc, &lines)?),
        false => None,
    };
    Ok(Plot {
        file,
        title,
        alt,
        svg,
    })
}

/// A plot per currency any player ever held, in the currencies' order; `draw`
/// says which to draw (those whose series changed).
pub fn balances(
    record: &Record,
    name_of: &dyn Fn(u32) -> String,
    draw: &dyn Fn(&str) -> bool,
) -> Result<Vec<Plot>, SiteError> {
    let mut plots = Vec::new();
    for (currency, of) in &record.kept.balances {
        let lines: Vec<Line> = of
            .iter()
            .map(|(id, series)| line(name_of(*id), series))
            .collect();
        let file = balances_plot(currency);
        let wanted = draw(&file);
        plots.push(plot(
            file,
            format!("Balances in {currency} over time"),
            "days since the first transfer",
            lines,
            wanted,
        )?);
    }
    Ok(plots)
}

/// Each scoring game's scores over time, by game.
pub fn scores(
    record: &Record,
    name_of: &dyn Fn(u32) -> String,
    draw: &dyn Fn(&str) -> bool,
) -> Result<Vec<(String, Plot)>, SiteError> {
    let mut plots = Vec::new();
    for (game, scores) in &record.kept.scores {
        if scores.of.values().all(|series| series.0.is_empty()) {
            continue;
        }
        let lines: Vec<Line> = scores
            .of
            .iter()
            .map(|(id, series)| line(name_of(*id), series))
            .collect();
        let file = scores_plot(game);
        let wanted = draw(&file);
        let plot = plot(
            file,
            format!("{} over time", scores.name),
            "days since the first score",
            lines,
            wanted,
        )?;
        plots.push((game.clone(), plot));
    }
    Ok(plots)
}

fn number(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.2}")
    }
}

/// Days since the first point, the x axis.
fn days(at: Timestamp, start: Timestamp) -> f64 {
    (at.as_second() - start.as_second()) as f64 / 86_400.0
}

fn draw(title: &str, x_desc: &str, lines: &[Line]) -> Result<Vec<u8>, SiteError> {
    let start = lines
        .iter()
        .filter_map(|(_, points)| points.first().map(|p| p.0))
        .min()
        .unwrap_or(Timestamp::UNIX_EPOCH);
    // The axis ends at the last change drawn, not at the site's "now": a plot
    // nothing changed is the same file.
    let end = lines
        .iter()
        .filter_map(|(_, points)| points.last().map(|p| p.0))
        .max()
        .unwrap_or(start);
    let x_end = days(end, start).max(1.0);
    let values = lines
        .iter()
        .flat_map(|(_, points)| points.iter().map(|p| p.1));
    let (low, high) = values.fold((0.0f64, 1.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let margin = ((high - low) * 0.05).max(1.0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, 360)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(0.0..x_end, (low - margin)..(high + margin))
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| number(*y))
            .draw()
            .map_err(plot_error)?;
        for (index, (name, points)) in lines.iter().enumerate() {
            let color = Palette99::pick(index).to_rgba();
            // A balance holds until the next transfer: a staircase, to the end.
            let mut steps = Vec::new();
            let mut before: Option<f64> = None;
            let stride = points.len().div_ceil(MOST_POINTS).max(1);
            let thinned = points
                .iter()
                .enumerate()
                .filter(|(i, _)| i % stride == 0 || *i + 1 == points.len())
                .map(|(_, p)| p);
            for (at, value) in thinned {
                let x = days(*at, start);
                if let Some(previous) = before {
                    steps.push((x, previous));
                }
                steps.push((x, *value));
                before = Some(*value);
            }
            if let Some(previous) = before {
                steps.push((x_end, previous));
            }
            chart
                .draw_series(LineSeries::new(steps, color.stroke_width(2)))
                .map_err(plot_error)?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg.into_bytes())
}
