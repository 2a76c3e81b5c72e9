//! Pictures of the record: each currency's balances over time, one line per
//! player, drawn as SVG by plotters from the record's numbers (never by hand),
//! each with a text alternative. Deterministic: the same record, the same bytes.

use jiff::Timestamp;
use plotters::prelude::*;

use super::SiteError;
use super::record::Record;

/// One plot: its file, what it shows, and the same in words.
pub struct Plot {
    pub file: String,
    pub title: String,
    pub alt: String,
    pub svg: Vec<u8>,
}

fn plot_error(error: impl std::fmt::Display) -> SiteError {
    SiteError::Plot(error.to_string())
}

/// A plot per currency any player ever held, in the currencies' order.
pub fn balances(record: &Record, name_of: &dyn Fn(u32) -> String) -> Result<Vec<Plot>, SiteError> {
    let Some(end) = record.as_of else {
        return Ok(Vec::new());
    };
    let mut currencies: Vec<&String> = record.balances.keys().map(|(c, _)| c).collect();
    currencies.dedup();
    let mut plots = Vec::new();
    for (index, currency) in currencies.into_iter().enumerate() {
        let lines: Vec<(String, Vec<(Timestamp, f64)>)> = record
            .balances
            .iter()
            .filter(|((c, _), _)| c == currency)
            .map(|((_, id), points)| (name_of(*id), points.clone()))
            .collect();
        let title = format!("Balances in {currency} over time");
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
        let svg = draw(&title, &lines, end)?;
        plots.push(Plot {
            file: format!("balances-{}.svg", index + 1),
            title,
            alt,
            svg,
        });
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

fn draw(
    title: &str,
    lines: &[(String, Vec<(Timestamp, f64)>)],
    end: Timestamp,
) -> Result<Vec<u8>, SiteError> {
    let start = lines
        .iter()
        .filter_map(|(_, points)| points.first().map(|p| p.0))
        .min()
        .unwrap_or(end);
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
            .x_desc("days since the first transfer")
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
            for (at, value) in points {
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
